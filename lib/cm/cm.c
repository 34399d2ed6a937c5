/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * cm.c — ids, MAD input and routing, timers and the consumer calls of the
 * communication manager.  The state machine itself is cm_table.c.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cm/cm_priv.h"

#define SR_CM_DEFAULT_IDS      1024u
#define SR_CM_MAX_IDS          65536u
#define SR_CM_DEFAULT_TIMEWAIT (4096ull << 18)

const char *const sr_cm_state_name[SR_CM_STATE_COUNT] = {
#define SR_X(n) [SR_CM_##n] = #n,
	SR_CM_STATES(SR_X)
#undef SR_X
};

const char *const sr_cm_event_name[SR_CM_EVENT_COUNT] = {
#define SR_X(n) [SR_CM_EVENT_##n] = #n,
	SR_CM_EVENTS(SR_X)
#undef SR_X
};

struct sr_cm *sr_cm_create(const struct sr_cm_cfg *cfg)
{
	struct sr_cm *cm;

	if (cfg == NULL || cfg->ops.send == NULL || cfg->ops.event == NULL ||
	    cfg->max_ids > SR_CM_MAX_IDS ||
	    cfg->comm_id_block >= SR_CM_COMM_ID_BLOCKS ||
	    (cfg->comm_id_block && cfg->max_ids > SR_CM_BLOCK_IDS))
		return NULL;
	cm = calloc(1, sizeof(*cm));
	if (cm == NULL)
		return NULL;
	cm->cfg = *cfg;
	if (cm->cfg.max_ids == 0)
		cm->cfg.max_ids = SR_CM_DEFAULT_IDS;
	if (cm->cfg.timewait_ns == 0)
		cm->cfg.timewait_ns = SR_CM_DEFAULT_TIMEWAIT;
	cm->nids = cm->cfg.max_ids;
	cm->ids = calloc(cm->nids, sizeof(*cm->ids));
	if (cm->ids == NULL) {
		free(cm);
		return NULL;
	}
	cm->gen = (uint16_t)(cfg->comm_id_seed ^ cfg->comm_id_seed >> 16);
	return cm;
}

void sr_cm_destroy(struct sr_cm *cm)
{
	if (cm == NULL)
		return;
	for (uint32_t i = 0; i < cm->nids && cm->cfg.ops.listen != NULL; i++)
		if (cm->ids[i].used && cm->ids[i].state == SR_CM_LISTEN)
			(void)cm->cfg.ops.listen(cm->cfg.ops.ctx,
						 cm->ids[i].service_id, false);
	free(cm->ids);
	free(cm);
}

const struct sr_cm_counters *sr_cm_counters(const struct sr_cm *cm)
{
	return &cm->cnt;
}

uint32_t sr_cm_ids_in_use(const struct sr_cm *cm)
{
	return cm->in_use;
}

/* ---- ids ---- */

static struct sr_cm_id *id_alloc(struct sr_cm *cm)
{
	for (uint32_t i = 0; i < cm->nids; i++) {
		struct sr_cm_id *id = &cm->ids[i];

		if (id->used)
			continue;
		memset(id, 0, sizeof(*id));
		id->cm = cm;
		id->used = true;
		id->deadline = UINT64_MAX;
		/* A local ID is never 0 and changes each time a slot is reused;
		 * on a shared port it carries the CM's block (cm.h). */
		if (++cm->gen == 0)
			cm->gen = 1;
		if (cm->cfg.comm_id_block)
			id->local_id = cm->cfg.comm_id_block <<
					       SR_CM_COMM_ID_BLOCK_SHIFT |
				       (uint32_t)(cm->gen & 0x3FFu) << 10 | i;
		else
			id->local_id = (uint32_t)cm->gen << 16 | i;
		id->tid = (uint64_t)cm->cfg.comm_id_seed << 32 | id->local_id;
		cm->in_use++;
		return id;
	}
	return NULL;
}

void sr_cm_id_free(struct sr_cm *cm, struct sr_cm_id *id)
{
	id->used = false;
	id->state = SR_CM_IDLE;
	cm->in_use--;
}

static struct sr_cm_id *id_by_local(struct sr_cm *cm, uint32_t local_id)
{
	uint32_t slot = local_id & (cm->cfg.comm_id_block ? 0x3FFu : 0xFFFFu);
	struct sr_cm_id *id;

	if (slot >= cm->nids)
		return NULL;
	id = &cm->ids[slot];
	return id->used && id->local_id == local_id ? id : NULL;
}

static bool same_gid(const struct sr_cm_addr *a, const struct sr_cm_addr *b)
{
	return memcmp(a->gid, b->gid, sizeof(a->gid)) == 0;
}

/* The id a REQ or SIDR_REQ from this peer with this ID already made. */
static struct sr_cm_id *id_by_remote(struct sr_cm *cm, uint32_t remote_id,
				     const struct sr_cm_addr *from, bool sidr)
{
	for (uint32_t i = 0; i < cm->nids; i++) {
		struct sr_cm_id *id = &cm->ids[i];

		if (id->used && id->sidr == sidr && id->state != SR_CM_LISTEN &&
		    id->remote_id == remote_id && same_gid(&id->peer, from))
			return id;
	}
	return NULL;
}

static struct sr_cm_id *listener(struct sr_cm *cm, uint64_t service_id)
{
	for (uint32_t i = 0; i < cm->nids; i++) {
		struct sr_cm_id *id = &cm->ids[i];

		if (id->used && id->state == SR_CM_LISTEN &&
		    id->service_id == service_id)
			return id;
	}
	return NULL;
}

/* ---- helpers of the actions ---- */

void sr_cm_tx(struct sr_cm *cm, const struct sr_cm_addr *to, const uint8_t *mad)
{
	cm->cnt.tx++;
	cm->cfg.ops.send(cm->cfg.ops.ctx, to, mad);
}

void sr_cm_emit(struct sr_cm *cm, struct sr_cm_id *id, enum sr_cm_event_type t,
		const struct sr_cm_msg *msg, uint8_t timed_out)
{
	struct sr_cm_event ev = { .type = t, .msg = msg, .timed_out = timed_out };

	cm->cfg.ops.event(cm->cfg.ops.ctx, id, &ev);
}

void sr_cm_msg_init(struct sr_cm_msg *m, const struct sr_cm_id *id,
		    enum sr_cm_attr attr, const uint8_t *pdata, uint8_t len)
{
	memset(m, 0, sizeof(*m));
	m->attr = attr;
	m->tid = id->tid;
	m->local_comm_id = id->local_id;
	m->remote_comm_id = id->remote_id;
	if (len != 0)
		memcpy(m->pdata, pdata, len);
	m->pdata_len = len;
}

void sr_cm_send_msg(struct sr_cm *cm, struct sr_cm_id *id,
		    const struct sr_cm_msg *m, uint8_t *buf)
{
	/* Every caller checked pdata_len against the message's size. */
	(void)sr_mad_build(m, buf);
	sr_cm_tx(cm, &id->peer, buf);
}

void sr_cm_send_rej(struct sr_cm *cm, const struct sr_cm_addr *to, uint64_t tid,
		    uint32_t local_id, uint32_t remote_id, uint8_t msg_type,
		    uint16_t reason, const uint8_t *pdata, uint8_t len)
{
	struct sr_cm_msg m = {
		.attr = SR_CM_ATTR_REJ, .tid = tid, .local_comm_id = local_id,
		.remote_comm_id = remote_id, .msg_type = msg_type,
		.reason = reason, .pdata_len = len,
	};
	uint8_t buf[SR_MAD_SIZE];

	if (len != 0)
		memcpy(m.pdata, pdata, len);
	(void)sr_mad_build(&m, buf);
	sr_cm_tx(cm, to, buf);
}

void sr_cm_arm(struct sr_cm_id *id, uint64_t now, uint64_t ns, uint8_t retries)
{
	id->retry_ns = ns;
	id->retries_left = retries;
	id->deadline = now + ns;
}

void sr_cm_timewait(struct sr_cm *cm, struct sr_cm_id *id, uint64_t now)
{
	id->state = SR_CM_TIMEWAIT;
	id->deadline = now + cm->cfg.timewait_ns;
}

/* ---- input ---- */

static void send_sidr_unsupported(struct sr_cm *cm, const struct sr_cm_addr *from,
				  const struct sr_cm_msg *req, uint8_t status)
{
	struct sr_cm_msg m = {
		.attr = SR_CM_ATTR_SIDR_REP, .tid = req->tid,
		.local_comm_id = req->local_comm_id, .status = status,
		.service_id = req->service_id,
	};
	uint8_t buf[SR_MAD_SIZE];

	(void)sr_mad_build(&m, buf);
	sr_cm_tx(cm, from, buf);
}

static void rx_req(struct sr_cm *cm, uint64_t now, const struct sr_cm_addr *from,
		   const struct sr_cm_msg *msg)
{
	struct sr_cm_in in = { .now = now, .msg = msg };
	struct sr_cm_id *id = id_by_remote(cm, msg->local_comm_id, from, false);
	struct sr_cm_id *lid;
	struct sr_cm_event ev = { .type = SR_CM_EVENT_REQ_RCVD, .msg = msg };

	if (id != NULL) {
		if (sr_cm_dispatch(cm, id, SR_CM_IN_RX_REQ, &in) != 0)
			cm->cnt.rx_stale++;
		return;
	}
	lid = listener(cm, msg->service_id);
	if (lid == NULL) {
		cm->cnt.rej_no_listener++;
		sr_cm_send_rej(cm, from, msg->tid, 0, msg->local_comm_id,
			       SR_CM_MSG_REQ, SR_CM_REJ_INVALID_SERVICE_ID, NULL, 0);
		return;
	}
	/* RC and UC only: RD (and the reserved value) are refused. */
	if (msg->transport_type > SR_CM_TRANSPORT_UC) {
		cm->cnt.rej_transport++;
		sr_cm_send_rej(cm, from, msg->tid, 0, msg->local_comm_id,
			       SR_CM_MSG_REQ, SR_CM_REJ_INVALID_TRANSPORT, NULL, 0);
		return;
	}
	id = id_alloc(cm);
	if (id == NULL) {
		cm->cnt.rej_no_resources++;
		sr_cm_send_rej(cm, from, msg->tid, 0, msg->local_comm_id,
			       SR_CM_MSG_REQ, SR_CM_REJ_NO_RESOURCES, NULL, 0);
		return;
	}
	id->state = SR_CM_REQ_RCVD;
	id->remote_id = msg->local_comm_id;
	id->remote_qpn = msg->qpn;
	id->service_id = msg->service_id;
	id->tid = msg->tid;
	id->peer = *from;
	id->ctx = lid->ctx;
	id->max_retries = msg->max_cm_retries;
	id->peer_timeout = msg->local_cm_timeout;
	ev.listen_id = lid;
	cm->cfg.ops.event(cm->cfg.ops.ctx, id, &ev);
}

static void rx_sidr_req(struct sr_cm *cm, const struct sr_cm_addr *from,
			const struct sr_cm_msg *msg)
{
	struct sr_cm_id *id = id_by_remote(cm, msg->local_comm_id, from, true);
	struct sr_cm_id *lid;
	struct sr_cm_event ev = { .type = SR_CM_EVENT_SIDR_REQ_RCVD, .msg = msg };

	if (id != NULL && id->state == SR_CM_SIDR_REQ_RCVD) {
		cm->cnt.rx_dup++;
		return;
	}
	lid = listener(cm, msg->service_id);
	if (lid == NULL) {
		cm->cnt.sidr_unsupported++;
		send_sidr_unsupported(cm, from, msg, SR_CM_SIDR_UNSUPPORTED);
		return;
	}
	id = id_alloc(cm);
	if (id == NULL) {
		cm->cnt.rej_no_resources++;
		send_sidr_unsupported(cm, from, msg, SR_CM_SIDR_REJECT);
		return;
	}
	id->sidr = true;
	id->state = SR_CM_SIDR_REQ_RCVD;
	id->remote_id = msg->local_comm_id;
	id->service_id = msg->service_id;
	id->tid = msg->tid;
	id->peer = *from;
	id->ctx = lid->ctx;
	ev.listen_id = lid;
	cm->cfg.ops.event(cm->cfg.ops.ctx, id, &ev);
}

static void rx_lap(struct sr_cm *cm, const struct sr_cm_addr *from,
		   const struct sr_cm_msg *msg)
{
	struct sr_cm_msg m = {
		.attr = SR_CM_ATTR_APR, .tid = msg->tid,
		.local_comm_id = msg->remote_comm_id,
		.remote_comm_id = msg->local_comm_id,
		.status = SR_CM_APR_UNSUPPORTED,
	};
	uint8_t buf[SR_MAD_SIZE];

	cm->cnt.lap_refused++;
	(void)sr_mad_build(&m, buf);
	sr_cm_tx(cm, from, buf);
}

/* A DREQ for a connection we no longer have (its timewait is over): the
 * peer's DREP was lost; answer, as Linux's cm_issue_drep does, so the peer
 * stops retrying. */
static void drep_unknown(struct sr_cm *cm, const struct sr_cm_addr *from,
			 const struct sr_cm_msg *msg)
{
	struct sr_cm_msg m = {
		.attr = SR_CM_ATTR_DREP, .tid = msg->tid,
		.local_comm_id = msg->remote_comm_id,
		.remote_comm_id = msg->local_comm_id,
	};
	uint8_t buf[SR_MAD_SIZE];

	cm->cnt.drep_unknown++;
	(void)sr_mad_build(&m, buf);
	sr_cm_tx(cm, from, buf);
}

/* Received message -> table input; REQ, SIDR_REQ, LAP, APR are routed
 * before the table (they make ids or never reach one). */
static const uint8_t rx_input[SR_CM_ATTR_COUNT] = {
	[SR_CM_ATTR_MRA] = SR_CM_IN_RX_MRA + 1,
	[SR_CM_ATTR_REJ] = SR_CM_IN_RX_REJ + 1,
	[SR_CM_ATTR_REP] = SR_CM_IN_RX_REP + 1,
	[SR_CM_ATTR_RTU] = SR_CM_IN_RX_RTU + 1,
	[SR_CM_ATTR_DREQ] = SR_CM_IN_RX_DREQ + 1,
	[SR_CM_ATTR_DREP] = SR_CM_IN_RX_DREP + 1,
	[SR_CM_ATTR_SIDR_REP] = SR_CM_IN_RX_SIDR_REP + 1,
};

void sr_cm_input(struct sr_cm *cm, uint64_t now, const struct sr_cm_addr *from,
		 const uint8_t *mad, uint32_t len)
{
	struct sr_cm_msg msg;
	struct sr_cm_in in = { .now = now, .msg = &msg };
	enum sr_mad_err err;
	struct sr_cm_id *id;
	uint32_t ours;

	cm->cnt.rx++;
	err = sr_mad_parse(mad, len, &msg);
	if (err != SR_MAD_ERR_OK) {
		cm->cnt.rx_malformed++;
		cm->cnt.rx_err[err]++;
		return;
	}
	if (msg.method == SR_MAD_METHOD_GET || msg.method == SR_MAD_METHOD_SET) {
		uint8_t buf[SR_MAD_SIZE];

		cm->cnt.get_resp++;
		sr_mad_build_get_resp(mad, buf);
		sr_cm_tx(cm, from, buf);
		return;
	}
	switch (msg.attr) {
	case SR_CM_ATTR_REQ:
		rx_req(cm, now, from, &msg);
		return;
	case SR_CM_ATTR_SIDR_REQ:
		rx_sidr_req(cm, from, &msg);
		return;
	case SR_CM_ATTR_LAP:
		rx_lap(cm, from, &msg);
		return;
	case SR_CM_ATTR_APR:
		cm->cnt.apr_dropped++;
		return;
	default:
		break;
	}
	/* A SIDR_REP names our ID in its request ID; the others in the
	 * remote communication ID. */
	ours = msg.attr == SR_CM_ATTR_SIDR_REP ? msg.local_comm_id
					       : msg.remote_comm_id;
	id = id_by_local(cm, ours);
	if (id == NULL || id->state == SR_CM_LISTEN) {
		if (msg.attr == SR_CM_ATTR_DREQ)
			drep_unknown(cm, from, &msg);
		else
			cm->cnt.rx_unknown_id++;
		return;
	}
	/* From the peer, with its ID once we know it, and a DREQ naming our
	 * QP (as Linux's cm_dreq_handler checks): a third party that guessed
	 * our ID cannot end the connection. */
	if (!same_gid(&id->peer, from) ||
	    (msg.attr != SR_CM_ATTR_SIDR_REP && id->remote_id != 0 &&
	     msg.local_comm_id != id->remote_id) ||
	    (msg.attr == SR_CM_ATTR_DREQ && id->local_qpn != 0 &&
	     msg.qpn != id->local_qpn)) {
		cm->cnt.rx_remote_mismatch++;
		return;
	}
	if (sr_cm_dispatch(cm, id, (enum sr_cm_input)(rx_input[msg.attr] - 1),
			   &in) == 0)
		return;
	if (msg.attr == SR_CM_ATTR_DREQ && id->state == SR_CM_IDLE)
		drep_unknown(cm, from, &msg);
	else
		cm->cnt.rx_stale++;
}

uint64_t sr_cm_next_deadline(const struct sr_cm *cm)
{
	uint64_t t = UINT64_MAX;

	for (uint32_t i = 0; i < cm->nids; i++)
		if (cm->ids[i].used && cm->ids[i].deadline < t)
			t = cm->ids[i].deadline;
	return t;
}

void sr_cm_poll(struct sr_cm *cm, uint64_t now)
{
	struct sr_cm_in in = { .now = now };

	for (uint32_t i = 0; i < cm->nids; i++) {
		struct sr_cm_id *id = &cm->ids[i];

		if (!id->used || id->deadline > now)
			continue;
		id->deadline = UINT64_MAX;
		(void)sr_cm_dispatch(cm, id, SR_CM_IN_TIMEOUT, &in);
	}
}

/* ---- consumer calls ---- */

static int pdata_ok(const uint8_t *pdata, uint8_t len, enum sr_cm_attr attr)
{
	if (len > sr_cm_attr_info[attr].pdata_len || (len != 0 && pdata == NULL))
		return -EINVAL;
	return 0;
}

int sr_cm_listen(struct sr_cm *cm, uint64_t service_id, void *ctx,
		 struct sr_cm_id **out)
{
	struct sr_cm_id *id;

	if (cm == NULL || out == NULL)
		return -EINVAL;
	if (listener(cm, service_id) != NULL)
		return -EADDRINUSE;
	id = id_alloc(cm);
	if (id == NULL)
		return -ENOMEM;
	if (cm->cfg.ops.listen != NULL) {
		int rc = cm->cfg.ops.listen(cm->cfg.ops.ctx, service_id, true);

		if (rc) {
			sr_cm_id_free(cm, id);
			return rc;
		}
	}
	id->state = SR_CM_LISTEN;
	id->service_id = service_id;
	id->ctx = ctx;
	*out = id;
	return 0;
}

int sr_cm_connect(struct sr_cm *cm, uint64_t now,
		  const struct sr_cm_req_param *p, void *ctx,
		  struct sr_cm_id **out)
{
	struct sr_cm_msg m;
	struct sr_cm_id *id;

	if (cm == NULL || p == NULL || out == NULL ||
	    pdata_ok(p->pdata, p->pdata_len, SR_CM_ATTR_REQ) != 0 ||
	    p->transport > SR_CM_TRANSPORT_UC || p->qpn > 0xFFFFFFu ||
	    p->max_cm_retries > 15)
		return -EINVAL;
	id = id_alloc(cm);
	if (id == NULL)
		return -ENOMEM;
	id->state = SR_CM_REQ_SENT;
	id->service_id = p->service_id;
	id->peer = p->peer;
	id->ctx = ctx;
	id->max_retries = p->max_cm_retries;
	id->peer_timeout = p->remote_cm_timeout;
	sr_cm_msg_init(&m, id, SR_CM_ATTR_REQ, p->pdata, p->pdata_len);
	m.service_id = p->service_id;
	m.ca_guid = cm->cfg.ca_guid;
	m.qkey = p->qkey;
	m.qpn = p->qpn;
	id->local_qpn = p->qpn;
	m.psn = p->psn & 0xFFFFFFu;
	m.responder_resources = p->responder_resources;
	m.initiator_depth = p->initiator_depth;
	m.remote_cm_timeout = p->remote_cm_timeout & 31u;
	m.local_cm_timeout = p->local_cm_timeout & 31u;
	m.transport_type = p->transport;
	m.retry_count = p->retry_count & 7u;
	m.rnr_retry_count = p->rnr_retry_count & 7u;
	m.path_mtu = p->path_mtu & 15u;
	m.srq = p->srq & 1u;
	m.max_cm_retries = p->max_cm_retries;
	m.pkey = p->peer.pkey;
	m.pri = p->path;
	sr_cm_send_msg(cm, id, &m, id->mad);
	sr_cm_arm(id, now, sr_cm_timeout_ns(p->remote_cm_timeout),
		  p->max_cm_retries);
	*out = id;
	return 0;
}

static int api(struct sr_cm_id *id, enum sr_cm_input ev, struct sr_cm_in *in,
	       enum sr_cm_attr attr)
{
	if (id == NULL || !id->used || pdata_ok(in->pdata, in->pdata_len, attr) != 0)
		return -EINVAL;
	return sr_cm_dispatch(id->cm, id, ev, in);
}

int sr_cm_accept(struct sr_cm_id *id, uint64_t now, const struct sr_cm_rep_param *p)
{
	struct sr_cm_in in = { .now = now, .rep = p };

	if (p == NULL || p->qpn > 0xFFFFFFu ||
	    pdata_ok(p->pdata, p->pdata_len, SR_CM_ATTR_REP) != 0)
		return -EINVAL;
	return api(id, SR_CM_IN_API_ACCEPT, &in, SR_CM_ATTR_REP);
}

int sr_cm_reject(struct sr_cm_id *id, uint64_t now, uint16_t reason,
		 const uint8_t *pdata, uint8_t pdata_len)
{
	struct sr_cm_in in = { .now = now, .reason = reason, .pdata = pdata,
			       .pdata_len = pdata_len };

	if (id != NULL && (id->state == SR_CM_REP_RCVD ||
			   id->state == SR_CM_MRA_REP_SENT))
		in.value = SR_CM_MSG_REP;
	return api(id, SR_CM_IN_API_REJECT, &in, SR_CM_ATTR_REJ);
}

int sr_cm_mra(struct sr_cm_id *id, uint64_t now, uint8_t service_timeout,
	      const uint8_t *pdata, uint8_t pdata_len)
{
	struct sr_cm_in in = { .now = now, .value = service_timeout & 31u,
			       .pdata = pdata, .pdata_len = pdata_len };

	return api(id, SR_CM_IN_API_MRA, &in, SR_CM_ATTR_MRA);
}

int sr_cm_rtu(struct sr_cm_id *id, uint64_t now, const uint8_t *pdata,
	      uint8_t pdata_len)
{
	struct sr_cm_in in = { .now = now, .pdata = pdata, .pdata_len = pdata_len };

	return api(id, SR_CM_IN_API_RTU, &in, SR_CM_ATTR_RTU);
}

int sr_cm_established(struct sr_cm_id *id, uint64_t now)
{
	struct sr_cm_in in = { .now = now };

	return api(id, SR_CM_IN_API_ESTABLISH, &in, SR_CM_ATTR_RTU);
}

int sr_cm_disconnect(struct sr_cm_id *id, uint64_t now, const uint8_t *pdata,
		     uint8_t pdata_len)
{
	struct sr_cm_in in = { .now = now, .pdata = pdata, .pdata_len = pdata_len };

	return api(id, SR_CM_IN_API_DISCONNECT, &in, SR_CM_ATTR_DREQ);
}

int sr_cm_drep(struct sr_cm_id *id, uint64_t now, const uint8_t *pdata,
	       uint8_t pdata_len)
{
	struct sr_cm_in in = { .now = now, .pdata = pdata, .pdata_len = pdata_len };

	return api(id, SR_CM_IN_API_DREP, &in, SR_CM_ATTR_DREP);
}

int sr_cm_sidr_req(struct sr_cm *cm, uint64_t now,
		   const struct sr_cm_sidr_param *p, void *ctx,
		   struct sr_cm_id **out)
{
	struct sr_cm_msg m;
	struct sr_cm_id *id;

	if (cm == NULL || p == NULL || out == NULL ||
	    pdata_ok(p->pdata, p->pdata_len, SR_CM_ATTR_SIDR_REQ) != 0)
		return -EINVAL;
	id = id_alloc(cm);
	if (id == NULL)
		return -ENOMEM;
	id->sidr = true;
	id->state = SR_CM_SIDR_REQ_SENT;
	id->service_id = p->service_id;
	id->peer = p->peer;
	id->ctx = ctx;
	sr_cm_msg_init(&m, id, SR_CM_ATTR_SIDR_REQ, p->pdata, p->pdata_len);
	m.pkey = p->peer.pkey;
	m.service_id = p->service_id;
	sr_cm_send_msg(cm, id, &m, id->mad);
	sr_cm_arm(id, now, sr_cm_timeout_ns(p->timeout), p->max_retries);
	*out = id;
	return 0;
}

int sr_cm_sidr_rep(struct sr_cm_id *id, uint64_t now, uint8_t status,
		   uint32_t qpn, uint32_t qkey, const uint8_t *pdata,
		   uint8_t pdata_len)
{
	struct sr_cm_in in = { .now = now, .value = status, .qpn = qpn,
			       .qkey = qkey, .pdata = pdata, .pdata_len = pdata_len };

	if (qpn > 0xFFFFFFu)
		return -EINVAL;
	return api(id, SR_CM_IN_API_SIDR_REP, &in, SR_CM_ATTR_SIDR_REP);
}

void sr_cm_id_destroy(struct sr_cm_id *id, uint64_t now)
{
	struct sr_cm *cm;
	struct sr_cm_in in = { .now = now };

	if (id == NULL || !id->used)
		return;
	cm = id->cm;
	switch (id->state) {
	case SR_CM_REQ_SENT:
	case SR_CM_MRA_REQ_RCVD:
		sr_cm_send_rej(cm, &id->peer, id->tid, id->local_id, id->remote_id,
			       SR_CM_MSG_OTHER, SR_CM_REJ_TIMEOUT, NULL, 0);
		break;
	case SR_CM_REQ_RCVD:
	case SR_CM_MRA_REQ_SENT:
	case SR_CM_REP_RCVD:
	case SR_CM_MRA_REP_SENT:
		in.reason = SR_CM_REJ_CONSUMER_DEFINED;
		in.value = id->state == SR_CM_REQ_RCVD ||
			   id->state == SR_CM_MRA_REQ_SENT ? SR_CM_MSG_REQ
							   : SR_CM_MSG_REP;
		(void)sr_cm_dispatch(cm, id, SR_CM_IN_API_REJECT, &in);
		break;
	case SR_CM_REP_SENT:
	case SR_CM_MRA_REP_RCVD:
		sr_cm_send_rej(cm, &id->peer, id->tid, id->local_id, id->remote_id,
			       SR_CM_MSG_OTHER, SR_CM_REJ_CONSUMER_DEFINED, NULL, 0);
		break;
	case SR_CM_ESTABLISHED:
		(void)sr_cm_dispatch(cm, id, SR_CM_IN_API_DISCONNECT, &in);
		break;
	case SR_CM_DREQ_RCVD:
		(void)sr_cm_dispatch(cm, id, SR_CM_IN_API_DREP, &in);
		break;
	case SR_CM_SIDR_REQ_RCVD:
		(void)sr_cm_dispatch(cm, id, SR_CM_IN_API_SIDR_REP,
				     &(struct sr_cm_in){ .now = now,
							 .value = SR_CM_SIDR_REJECT });
		break;
	case SR_CM_LISTEN:
		if (cm->cfg.ops.listen != NULL)
			(void)cm->cfg.ops.listen(cm->cfg.ops.ctx,
						 id->service_id, false);
		break;
	default:
		break;
	}
	if (id->state == SR_CM_TIMEWAIT) {
		id->orphan = true;
		return;
	}
	sr_cm_id_free(cm, id);
}

enum sr_cm_state sr_cm_id_state(const struct sr_cm_id *id)
{
	return id->state;
}

void *sr_cm_id_ctx(const struct sr_cm_id *id)
{
	return id->ctx;
}

void sr_cm_id_set_ctx(struct sr_cm_id *id, void *ctx)
{
	id->ctx = ctx;
}

uint32_t sr_cm_id_local(const struct sr_cm_id *id)
{
	return id->local_id;
}

uint32_t sr_cm_id_remote(const struct sr_cm_id *id)
{
	return id->remote_id;
}

uint32_t sr_cm_id_remote_qpn(const struct sr_cm_id *id)
{
	return id->remote_qpn;
}

const struct sr_cm_addr *sr_cm_id_peer(const struct sr_cm_id *id)
{
	return &id->peer;
}
