/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * watch.c — connections of the CMs behind a shared port (watch.h).
 */
#include <stdlib.h>
#include <string.h>

#include "cm/mad.h"
#include "cm/watch.h"

enum sr_watch_state {
	SR_WATCH_FREE,
	SR_WATCH_HALF,       /* a REQ, no REP yet */
	SR_WATCH_OPEN,       /* a REP: both IDs and the peer's QPN known */
	SR_WATCH_ORPHAN,     /* its CM died: DREQs to send */
};

struct sr_watch_conn {
	enum sr_watch_state state;
	uint32_t block;          /* the CM's communication-ID block */
	uint32_t local_id;       /* its ID (0: not yet, a REQ in) */
	uint32_t remote_id;      /* the peer's (0: not yet, a REQ out) */
	uint32_t remote_qpn;
	struct sr_cm_addr peer;
	unsigned int tries;      /* DREQs left */
	uint64_t next_ns;
};

struct sr_cm_watch {
	uint32_t max;
	uint32_t norphans;       /* ORPHAN entries: 0 spares the scans */
	struct sr_cm_watch_counters cnt;
	struct sr_watch_conn conn[];
};

struct sr_cm_watch *sr_cm_watch_create(uint32_t max)
{
	struct sr_cm_watch *w;

	if (max == 0)
		return NULL;
	w = calloc(1, sizeof(*w) + (size_t)max * sizeof(w->conn[0]));
	if (w != NULL)
		w->max = max;
	return w;
}

void sr_cm_watch_destroy(struct sr_cm_watch *w)
{
	free(w);
}

const struct sr_cm_watch_counters *
sr_cm_watch_counters(const struct sr_cm_watch *w)
{
	return &w->cnt;
}

/* A free entry for block, which may hold a quarter of the table at most
 * (one client cannot take every other client's DREQs away). */
static struct sr_watch_conn *sr_watch_new(struct sr_cm_watch *w,
					  uint32_t block)
{
	struct sr_watch_conn *free_one = NULL;
	uint32_t mine = 0;

	for (uint32_t i = 0; i < w->max; i++) {
		struct sr_watch_conn *c = &w->conn[i];

		if (c->state == SR_WATCH_FREE) {
			if (free_one == NULL)
				free_one = c;
		} else if (c->block == block) {
			mine++;
		}
	}
	if (free_one == NULL || (w->max >= 4 && mine >= w->max / 4)) {
		w->cnt.full++;
		return NULL;
	}
	return free_one;
}

/* The live (not orphaned) connection of block's CM with its ID local_id. */
static struct sr_watch_conn *sr_watch_by_local(struct sr_cm_watch *w,
					       uint32_t block,
					       uint32_t local_id)
{
	for (uint32_t i = 0; i < w->max; i++) {
		struct sr_watch_conn *c = &w->conn[i];

		if ((c->state == SR_WATCH_HALF || c->state == SR_WATCH_OPEN) &&
		    c->block == block && c->local_id == local_id && local_id != 0)
			return c;
	}
	return NULL;
}

/* A passive connection still waiting for block's REP: by the peer's ID. */
static struct sr_watch_conn *sr_watch_by_remote(struct sr_cm_watch *w,
						uint32_t block,
						uint32_t remote_id,
						const uint8_t gid[16])
{
	for (uint32_t i = 0; i < w->max; i++) {
		struct sr_watch_conn *c = &w->conn[i];

		if (c->state != SR_WATCH_FREE && c->state != SR_WATCH_ORPHAN &&
		    c->block == block && c->remote_id == remote_id &&
		    memcmp(c->peer.gid, gid, 16) == 0)
			return c;
	}
	return NULL;
}

static void sr_watch_open(struct sr_cm_watch *w, struct sr_watch_conn *c,
			  uint32_t local_id, uint32_t remote_id, uint32_t qpn)
{
	if (c->state != SR_WATCH_OPEN)
		w->cnt.open++;
	c->local_id = local_id;
	c->remote_id = remote_id;
	c->remote_qpn = qpn;
	c->state = SR_WATCH_OPEN;
}

void sr_cm_watch_mad(struct sr_cm_watch *w, uint32_t block, bool out,
		     const struct sr_cm_addr *peer, const uint8_t *mad,
		     uint32_t len)
{
	struct sr_cm_msg m;
	struct sr_watch_conn *c;
	/* the ID of block's CM: its own when it sends, echoed when not */
	uint32_t mine, theirs;

	if (w == NULL || mad == NULL || peer == NULL ||
	    sr_mad_parse(mad, len, &m) != SR_MAD_ERR_OK ||
	    m.method != SR_MAD_METHOD_SEND)
		return;
	mine = out ? m.local_comm_id : m.remote_comm_id;
	theirs = out ? m.remote_comm_id : m.local_comm_id;
	switch (m.attr) {
	case SR_CM_ATTR_REQ:
		if (out) {                  /* active: our ID now, theirs at REP */
			if (sr_watch_by_local(w, block, mine) != NULL)
				return;     /* sent again */
		} else if (sr_watch_by_remote(w, block, theirs, peer->gid)) {
			return;             /* the peer sent it again */
		}
		c = sr_watch_new(w, block);
		if (c == NULL)
			return;
		memset(c, 0, sizeof(*c));
		c->state = SR_WATCH_HALF;
		c->block = block;
		c->peer = *peer;
		if (out) {
			c->local_id = mine;
		} else {
			c->remote_id = theirs;
			c->remote_qpn = m.qpn;
		}
		return;
	case SR_CM_ATTR_REP:
		if (out) {                  /* passive: our REP names both */
			c = sr_watch_by_remote(w, block, theirs, peer->gid);
			if (c != NULL)
				sr_watch_open(w, c, mine, theirs, c->remote_qpn);
		} else {                    /* active: the peer's REP */
			c = sr_watch_by_local(w, block, mine);
			if (c != NULL)
				sr_watch_open(w, c, mine, theirs, m.qpn);
		}
		return;
	case SR_CM_ATTR_REJ:
	case SR_CM_ATTR_DREQ:
	case SR_CM_ATTR_DREP:
		c = sr_watch_by_local(w, block, mine);
		if (c == NULL && theirs != 0)
			c = sr_watch_by_remote(w, block, theirs, peer->gid);
		if (c != NULL)
			c->state = SR_WATCH_FREE;
		return;
	default:                            /* RTU, MRA, LAP, APR, SIDR */
		return;
	}
}

unsigned int sr_cm_watch_orphan(struct sr_cm_watch *w, uint32_t block,
				uint64_t now)
{
	unsigned int n = 0;

	if (w == NULL)
		return 0;
	for (uint32_t i = 0; i < w->max; i++) {
		struct sr_watch_conn *c = &w->conn[i];

		if (c->block != block)
			continue;
		if (c->state == SR_WATCH_HALF) {
			c->state = SR_WATCH_FREE;
		} else if (c->state == SR_WATCH_OPEN) {
			c->state = SR_WATCH_ORPHAN;
			c->tries = SR_CM_WATCH_TRIES;
			c->next_ns = now;
			n++;
		}
	}
	w->cnt.orphaned += n;
	w->norphans += n;
	return n;
}

void sr_cm_watch_poll(struct sr_cm_watch *w, uint64_t now,
		      void (*send)(void *ctx, const struct sr_cm_addr *to,
				   const uint8_t *mad),
		      void *ctx)
{
	if (w == NULL || send == NULL || w->norphans == 0)
		return;
	for (uint32_t i = 0; i < w->max; i++) {
		struct sr_watch_conn *c = &w->conn[i];
		uint8_t mad[SR_MAD_SIZE];
		struct sr_cm_msg m = { .attr = SR_CM_ATTR_DREQ };

		if (c->state != SR_WATCH_ORPHAN || c->next_ns > now)
			continue;
		m.tid = (uint64_t)c->local_id << 32 | c->tries;
		m.local_comm_id = c->local_id;
		m.remote_comm_id = c->remote_id;
		m.qpn = c->remote_qpn;
		if (sr_mad_build(&m, mad) == (int)SR_MAD_SIZE) {
			send(ctx, &c->peer, mad);
			w->cnt.dreq_sent++;
		}
		if (--c->tries == 0) {
			c->state = SR_WATCH_FREE;
			w->norphans--;
		} else
			c->next_ns = now + SR_CM_WATCH_GAP_NS;
	}
}

uint64_t sr_cm_watch_next(const struct sr_cm_watch *w)
{
	uint64_t t = UINT64_MAX;

	if (w == NULL || w->norphans == 0)
		return t;
	for (uint32_t i = 0; i < w->max; i++)
		if (w->conn[i].state == SR_WATCH_ORPHAN && w->conn[i].next_ns < t)
			t = w->conn[i].next_ns;
	return t;
}

bool sr_cm_watch_answer(struct sr_cm_watch *w, const uint8_t from_gid[16],
			const uint8_t *mad, uint32_t len)
{
	struct sr_cm_msg m;

	if (w == NULL || mad == NULL || from_gid == NULL || w->norphans == 0 ||
	    sr_mad_parse(mad, len, &m) != SR_MAD_ERR_OK ||
	    m.method != SR_MAD_METHOD_SEND ||
	    (m.attr != SR_CM_ATTR_DREP && m.attr != SR_CM_ATTR_DREQ))
		return false;
	for (uint32_t i = 0; i < w->max; i++) {
		struct sr_watch_conn *c = &w->conn[i];

		if (c->state != SR_WATCH_ORPHAN ||
		    c->local_id != m.remote_comm_id ||
		    c->remote_id != m.local_comm_id ||
		    memcmp(c->peer.gid, from_gid, 16) != 0)
			continue;
		c->state = SR_WATCH_FREE;
		w->norphans--;
		if (m.attr == SR_CM_ATTR_DREQ)
			return false;   /* the owner's CM sends the DREP */
		w->cnt.answered++;
		return true;
	}
	return false;
}
