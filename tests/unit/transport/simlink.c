/* SPDX-License-Identifier: BSD-3-Clause */
#include "simlink.h"

#include <stdlib.h>
#include <string.h>

#include "mr/mr.h"

struct sim_frame {
	uint64_t at;
	uint64_t seq;
	int to;
	uint32_t len;
	uint8_t *data;
};

struct sim_portctx {
	struct sim_net *net;
	int id;
	long tx_room;            /* buffers tx_alloc still gives; < 0: any */
	/*
	 * The frame tx_alloc_ref gave and not yet submitted or aborted (the
	 * transport builds one at a time): its payload is copied in, and the
	 * region's reference put, at submit, as a port's copy would.
	 */
	uint8_t *ref_buf;
	struct sr_mr_ref ref;
	const uint8_t *ref_payload;
	uint32_t ref_off, ref_len;
	uint64_t by_ref;         /* frames sent by reference */
};

struct sim_net {
	struct sim_cfg cfg;
	uint64_t rng;
	uint64_t now;
	uint64_t seq;
	struct sim_portctx port[2];
	struct sr_dev *dev[2];
	struct sim_frame *heap;
	uint32_t nheap, capheap;
	long live_bufs;
	sim_tap_fn tap;
	void *tap_ctx;
	struct sim_stats st;
	uint64_t last_at[2];     /* in-order delivery per direction */
};

uint64_t sim_rand(struct sim_net *n)
{
	/* splitmix64 */
	uint64_t z = (n->rng += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static bool sim_chance(struct sim_net *n, uint32_t ppm)
{
	return ppm != 0 && sim_rand(n) % 1000000u < ppm;
}

static bool sim_less(const struct sim_frame *a, const struct sim_frame *b)
{
	return a->at < b->at || (a->at == b->at && a->seq < b->seq);
}

static void sim_push(struct sim_net *n, struct sim_frame f)
{
	uint32_t i;

	if (n->nheap == n->capheap) {
		n->capheap = n->capheap ? n->capheap * 2 : 256;
		n->heap = realloc(n->heap, n->capheap * sizeof(*n->heap));
	}
	i = n->nheap++;
	while (i > 0) {
		uint32_t p = (i - 1) / 2;

		if (!sim_less(&f, &n->heap[p]))
			break;
		n->heap[i] = n->heap[p];
		i = p;
	}
	n->heap[i] = f;
}

static struct sim_frame sim_pop(struct sim_net *n)
{
	struct sim_frame top = n->heap[0], last = n->heap[--n->nheap];
	uint32_t i = 0;

	for (;;) {
		uint32_t c = 2 * i + 1;

		if (c >= n->nheap)
			break;
		if (c + 1 < n->nheap && sim_less(&n->heap[c + 1], &n->heap[c]))
			c++;
		if (!sim_less(&n->heap[c], &last))
			break;
		n->heap[i] = n->heap[c];
		i = c;
	}
	if (n->nheap > 0)
		n->heap[i] = last;
	return top;
}

struct sim_net *sim_create(const struct sim_cfg *cfg)
{
	struct sim_net *n = calloc(1, sizeof(*n));

	n->cfg = *cfg;
	n->rng = cfg->seed;
	n->now = 1000000;
	for (int i = 0; i < 2; i++) {
		n->port[i].net = n;
		n->port[i].id = i;
		n->port[i].tx_room = -1;
	}
	return n;
}

int sim_destroy(struct sim_net *n)
{
	int leaked;

	while (n->nheap > 0) {
		struct sim_frame f = sim_pop(n);

		free(f.data);
	}
	leaked = (int)n->live_bufs;
	free(n->heap);
	free(n);
	return leaked;
}

static uint8_t *sim_tx_alloc(void *link, uint32_t len, void **cookie)
{
	struct sim_portctx *p = link;
	uint8_t *b;

	if (p->tx_room == 0)
		return NULL;
	if (p->tx_room > 0)
		p->tx_room--;
	b = malloc(len);
	p->net->live_bufs++;
	*cookie = b;
	return b;
}

static void sim_enqueue(struct sim_net *n, int from, uint8_t *data,
			uint32_t len)
{
	const struct sim_cfg *c = &n->cfg;
	struct sim_frame f = { .to = 1 - from, .len = len, .data = data };

	n->st.sent++;
	if (sim_chance(n, c->loss_ppm)) {
		n->st.lost++;
		free(data);
		return;
	}
	if (sim_chance(n, c->corrupt_ppm) && len > 0) {
		uint32_t at = (uint32_t)(sim_rand(n) % len);

		data[at] ^= (uint8_t)(1u << (sim_rand(n) % 8));
		n->st.corrupted++;
	}
	f.at = n->now + c->delay_ns +
	       (c->jitter_ns ? sim_rand(n) % c->jitter_ns : 0);
	if (f.at < n->last_at[from])
		f.at = n->last_at[from];     /* jitter never reorders */
	if (sim_chance(n, c->reorder_ppm)) {
		f.at += c->reorder_ns ? c->reorder_ns : 1 + c->delay_ns * 4;
		n->st.reordered++;
	} else {
		n->last_at[from] = f.at;
	}
	f.seq = n->seq++;
	if (sim_chance(n, c->dup_ppm)) {
		struct sim_frame d = f;

		d.data = malloc(len);
		memcpy(d.data, data, len);
		d.at += c->jitter_ns ? sim_rand(n) % (c->jitter_ns + 1) : 0;
		d.seq = n->seq++;
		sim_push(n, d);
		n->st.duped++;
	}
	sim_push(n, f);
}

static uint8_t *sim_tx_alloc_ref(void *link, uint32_t hdr_len,
				 const uint8_t *payload, uint32_t len,
				 uint32_t tail_len, struct sr_mr_ref *ref,
				 uint8_t **tail, void **cookie)
{
	struct sim_portctx *p = link;
	uint8_t *b;

	if (p->ref_buf != NULL)
		abort();          /* the transport builds one frame at a time */
	b = sim_tx_alloc(link, hdr_len + len + tail_len, cookie);
	if (b == NULL)
		return NULL;
	p->ref_buf = b;
	p->ref = *ref;
	p->ref_payload = payload;
	p->ref_off = hdr_len;
	p->ref_len = len;
	*tail = b + hdr_len + len;
	return b;
}

/* A frame by reference: its payload read, its reference given back. */
static void sim_ref_done(struct sim_portctx *p, void *cookie, bool send)
{
	if (cookie != p->ref_buf)
		return;
	if (send) {
		memcpy(p->ref_buf + p->ref_off, p->ref_payload, p->ref_len);
		p->by_ref++;
	}
	sr_mr_ref_put(&p->ref);
	p->ref_buf = NULL;
}

static void sim_tx_submit(void *link, void *cookie, uint32_t len)
{
	struct sim_portctx *p = link;
	struct sim_net *n = p->net;
	uint8_t *data = cookie;

	sim_ref_done(p, cookie, true);
	n->live_bufs--;
	if (n->tap != NULL && !n->tap(n->tap_ctx, p->id, data, &len)) {
		free(data);
		return;
	}
	sim_enqueue(n, p->id, data, len);
}

static void sim_tx_abort(void *link, void *cookie)
{
	struct sim_portctx *p = link;

	sim_ref_done(p, cookie, false);
	p->net->live_bufs--;
	free(cookie);
}

static uint64_t sim_now_ns(void *link)
{
	struct sim_portctx *p = link;

	return p->net->now;
}

static const struct sr_link_ops sim_link_ops = {
	.tx_alloc = sim_tx_alloc,
	.tx_submit = sim_tx_submit,
	.tx_abort = sim_tx_abort,
	.tx_alloc_ref = sim_tx_alloc_ref,
	.now_ns = sim_now_ns,
};

const struct sr_link_ops *sim_ops(void)
{
	return &sim_link_ops;
}

void *sim_port(struct sim_net *n, int port)
{
	return &n->port[port];
}

uint64_t sim_by_ref(const struct sim_net *n, int port)
{
	return n->port[port].by_ref;
}

void sim_attach(struct sim_net *n, int port, struct sr_dev *dev)
{
	n->dev[port] = dev;
}

void sim_set_tx_room(struct sim_net *n, int port, long room)
{
	n->port[port].tx_room = room;
}

void sim_set_tap(struct sim_net *n, sim_tap_fn fn, void *ctx)
{
	n->tap = fn;
	n->tap_ctx = ctx;
}

void sim_set_cfg(struct sim_net *n, const struct sim_cfg *cfg)
{
	uint64_t rng = n->rng;

	n->cfg = *cfg;
	n->rng = rng;
}

void sim_inject(struct sim_net *n, int from, const uint8_t *frame,
		uint32_t len)
{
	uint8_t *d = malloc(len);

	memcpy(d, frame, len);
	struct sim_frame f = { .at = n->now, .seq = n->seq++, .to = 1 - from,
			       .len = len, .data = d };
	sim_push(n, f);
}

uint64_t sim_now(const struct sim_net *n)
{
	return n->now;
}

void sim_advance(struct sim_net *n, uint64_t ns)
{
	n->now += ns;
}

uint32_t sim_in_flight(const struct sim_net *n)
{
	return n->nheap;
}

void sim_stats(const struct sim_net *n, struct sim_stats *s)
{
	*s = n->st;
}

static bool sim_step_ex(struct sim_net *n, bool timers);

bool sim_step(struct sim_net *n)
{
	return sim_step_ex(n, true);
}

bool sim_step_frames(struct sim_net *n)
{
	return sim_step_ex(n, false);
}

static bool sim_step_ex(struct sim_net *n, bool timers)
{
	unsigned int work = 0;
	uint64_t next = UINT64_MAX;
	int i;

	while (n->nheap > 0 && n->heap[0].at <= n->now) {
		struct sim_frame f = sim_pop(n);

		if (n->dev[f.to] != NULL)
			sr_dev_rx(n->dev[f.to], f.data, f.len);
		n->st.delivered++;
		free(f.data);
		work++;
	}
	for (i = 0; i < 2; i++)
		if (n->dev[i] != NULL)
			work += sr_dev_poll(n->dev[i], n->cfg.budget ? n->cfg.budget : 16);
	if (work > 0) {
		n->now += n->cfg.step_ns ? n->cfg.step_ns : 200;
		return true;
	}
	if (n->nheap > 0)
		next = n->heap[0].at;
	for (i = 0; timers && i < 2; i++) {
		if (n->dev[i] != NULL) {
			uint64_t t = sr_dev_next_timer_ns(n->dev[i]);

			if (t != UINT64_MAX && n->now + t < next)
				next = n->now + t;
		}
	}
	if (next == UINT64_MAX)
		return false;
	if (next > n->now)
		n->now = next;
	return true;
}
