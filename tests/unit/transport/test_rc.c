/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_rc.c — RC end to end on a clean simulated wire: every operation,
 * segmentation at every MTU, RNR, and what goes on the wire.
 */
#include <string.h>

#include "harness.h"
#include "sr_check.h"
#include "core/dev_priv.h"
#include "transport/transport.h"
#include "wire/parse.h"
#include "wire/psn.h"

static void fill(uint8_t *p, uint32_t n, uint32_t seed)
{
	for (uint32_t i = 0; i < n; i++)
		p[i] = (uint8_t)(seed * 131u + i * 7u + (i >> 8));
}

START_TEST(test_send_sizes)
{
	static const uint32_t sizes[] = { 0, 1, 255, 256, 257, 1024, 4096,
					  4097, 12000 };
	struct h_pair p;
	struct h_opts o;
	struct sr_wc wc[2];
	unsigned int i;

	h_default_opts(&o, SR_QPT_RC);
	o.mtu = (enum sr_mtu)(SR_MTU_256 + _i);
	h_pair_init(&p, &o);
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		uint32_t n = sizes[i];

		fill(p.n[0].buf, n, i);
		memset(p.n[1].buf + 20000, 0xee, 16000);
		ck_assert_int_eq(h_post_recv(&p, 1, 100 + i, 20000, 16000), 0);
		ck_assert_int_eq(h_post_send(&p, 0, SR_WR_SEND, i, 0, n, 0,
					     SR_SEND_SIGNALED), 0);
		ck_assert_int_eq(h_wait_cq(&p, p.n[0].scq, wc, 1, 100000), 1);
		ck_assert_int_eq(wc[0].status, SR_WC_SUCCESS);
		ck_assert_int_eq(wc[0].opcode, SR_WC_OP_SEND);
		ck_assert_uint_eq(wc[0].wr_id, i);
		ck_assert_int_eq(h_wait_cq(&p, p.n[1].rcq, wc + 1, 1, 100000), 1);
		ck_assert_int_eq(wc[1].status, SR_WC_SUCCESS);
		ck_assert_int_eq(wc[1].opcode, SR_WC_OP_RECV);
		ck_assert_uint_eq(wc[1].byte_len, n);
		ck_assert_uint_eq(wc[1].wr_id, 100 + i);
		ck_assert_mem_eq(p.n[1].buf + 20000, p.n[0].buf, n);
		ck_assert_uint_eq(p.n[1].buf[20000 + n], 0xee);
	}
	h_settle(&p);
	h_pair_fini(&p);
}
END_TEST

START_TEST(test_write_read)
{
	struct h_pair p;
	struct h_opts o;
	struct sr_wc wc;

	h_default_opts(&o, SR_QPT_RC);
	h_pair_init(&p, &o);
	fill(p.n[0].buf, 5000, 3);
	ck_assert_int_eq(h_post_send(&p, 0, SR_WR_RDMA_WRITE, 1, 0, 5000, 8192,
				     SR_SEND_SIGNALED), 0);
	ck_assert_int_eq(h_wait_cq(&p, p.n[0].scq, &wc, 1, 100000), 1);
	ck_assert_int_eq(wc.status, SR_WC_SUCCESS);
	ck_assert_int_eq(wc.opcode, SR_WC_OP_RDMA_WRITE);
	ck_assert_mem_eq(p.n[1].buf + 8192, p.n[0].buf, 5000);

	fill(p.n[1].buf + 30000, 7000, 9);
	ck_assert_int_eq(h_post_send(&p, 0, SR_WR_RDMA_READ, 2, 40000, 7000,
				     30000, SR_SEND_SIGNALED), 0);
	ck_assert_int_eq(h_wait_cq(&p, p.n[0].scq, &wc, 1, 100000), 1);
	ck_assert_int_eq(wc.status, SR_WC_SUCCESS);
	ck_assert_int_eq(wc.opcode, SR_WC_OP_RDMA_READ);
	ck_assert_uint_eq(wc.byte_len, 7000);
	ck_assert_mem_eq(p.n[0].buf + 40000, p.n[1].buf + 30000, 7000);

	/* zero-length READ and WRITE */
	ck_assert_int_eq(h_post_send(&p, 0, SR_WR_RDMA_READ, 3, 0, 0, 0,
				     SR_SEND_SIGNALED), 0);
	ck_assert_int_eq(h_post_send(&p, 0, SR_WR_RDMA_WRITE, 4, 0, 0, 0,
				     SR_SEND_SIGNALED), 0);
	ck_assert_int_eq(h_wait_cq(&p, p.n[0].scq, &wc, 1, 100000), 1);
	ck_assert_int_eq(wc.status, SR_WC_SUCCESS);
	ck_assert_uint_eq(wc.wr_id, 3);
	ck_assert_int_eq(h_wait_cq(&p, p.n[0].scq, &wc, 1, 100000), 1);
	ck_assert_int_eq(wc.status, SR_WC_SUCCESS);
	ck_assert_uint_eq(wc.wr_id, 4);
	h_settle(&p);
	h_pair_fini(&p);
}
END_TEST

START_TEST(test_atomics)
{
	struct h_pair p;
	struct h_opts o;
	struct sr_wc wc;
	uint64_t v = 40, got;
	struct sr_sge sge;
	struct sr_send_wr wr = { 0 };
	const struct sr_send_wr *bad;

	h_default_opts(&o, SR_QPT_RC);
	h_pair_init(&p, &o);
	memcpy(p.n[1].buf + 64, &v, 8);
	sge.addr = (uint64_t)(uintptr_t)p.n[0].buf;
	sge.length = 8;
	sge.lkey = sr_mr_lkey(p.n[0].mr);
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.send_flags = SR_SEND_SIGNALED;
	wr.opcode = SR_WR_ATOMIC_FETCH_AND_ADD;
	wr.wr.atomic.remote_addr = (uint64_t)(uintptr_t)(p.n[1].buf + 64);
	wr.wr.atomic.rkey = sr_mr_rkey(p.n[1].mr);
	wr.wr.atomic.compare_add = 2;
	ck_assert_int_eq(sr_qp_post_send(p.n[0].qp, &wr, &bad), 0);
	ck_assert_int_eq(h_wait_cq(&p, p.n[0].scq, &wc, 1, 100000), 1);
	ck_assert_int_eq(wc.status, SR_WC_SUCCESS);
	ck_assert_int_eq(wc.opcode, SR_WC_OP_FETCH_ADD);
	memcpy(&got, p.n[0].buf, 8);
	ck_assert_uint_eq(got, 40);
	memcpy(&got, p.n[1].buf + 64, 8);
	ck_assert_uint_eq(got, 42);

	wr.opcode = SR_WR_ATOMIC_CMP_AND_SWP;
	wr.wr.atomic.compare_add = 42;
	wr.wr.atomic.swap = 7;
	ck_assert_int_eq(sr_qp_post_send(p.n[0].qp, &wr, &bad), 0);
	ck_assert_int_eq(h_wait_cq(&p, p.n[0].scq, &wc, 1, 100000), 1);
	ck_assert_int_eq(wc.status, SR_WC_SUCCESS);
	ck_assert_int_eq(wc.opcode, SR_WC_OP_COMP_SWAP);
	memcpy(&got, p.n[0].buf, 8);
	ck_assert_uint_eq(got, 42);
	memcpy(&got, p.n[1].buf + 64, 8);
	ck_assert_uint_eq(got, 7);
	/* compare fails: memory unchanged, original returned */
	ck_assert_int_eq(sr_qp_post_send(p.n[0].qp, &wr, &bad), 0);
	ck_assert_int_eq(h_wait_cq(&p, p.n[0].scq, &wc, 1, 100000), 1);
	memcpy(&got, p.n[0].buf, 8);
	ck_assert_uint_eq(got, 7);
	memcpy(&got, p.n[1].buf + 64, 8);
	ck_assert_uint_eq(got, 7);
	h_settle(&p);
	h_pair_fini(&p);
}
END_TEST

START_TEST(test_rnr_then_recv)
{
	struct h_pair p;
	struct h_opts o;
	struct sr_wc wc;
	uint64_t cnt[SR_CNT_MAX];

	h_default_opts(&o, SR_QPT_RC);
	h_pair_init(&p, &o);
	fill(p.n[0].buf, 100, 1);
	ck_assert_int_eq(h_post_send(&p, 0, SR_WR_SEND, 1, 0, 100, 0,
				     SR_SEND_SIGNALED), 0);
	/* let a few RNR NAKs happen */
	for (int i = 0; i < 50; i++)
		sim_step(p.net);
	ck_assert_int_eq(sr_cq_poll(p.n[0].scq, 1, &wc), 0);
	ck_assert_int_eq(h_post_recv(&p, 1, 9, 1000, 100), 0);
	ck_assert_int_eq(h_wait_cq(&p, p.n[0].scq, &wc, 1, 100000), 1);
	ck_assert_int_eq(wc.status, SR_WC_SUCCESS);
	ck_assert_int_eq(h_wait_cq(&p, p.n[1].rcq, &wc, 1, 100000), 1);
	ck_assert_mem_eq(p.n[1].buf + 1000, p.n[0].buf, 100);
	sr_qp_counters(p.n[1].qp, cnt);
	ck_assert_uint_gt(cnt[SR_CNT_RNR_NAK_SENT], 0);
	sr_qp_counters(p.n[0].qp, cnt);
	ck_assert_uint_gt(cnt[SR_CNT_RNR_NAK_RCVD], 0);
	h_settle(&p);
	h_pair_fini(&p);
}
END_TEST

START_TEST(test_rnr_retry_exhausted)
{
	struct h_pair p;
	struct h_opts o;
	struct sr_wc wc;

	h_default_opts(&o, SR_QPT_RC);
	o.rnr_retry = 2;
	h_pair_init(&p, &o);
	ck_assert_int_eq(h_post_send(&p, 0, SR_WR_SEND, 1, 0, 10, 0,
				     SR_SEND_SIGNALED), 0);
	ck_assert_int_eq(h_post_send(&p, 0, SR_WR_SEND, 2, 0, 10, 0, 0), 0);
	ck_assert_int_eq(h_wait_cq(&p, p.n[0].scq, &wc, 1, 100000), 1);
	ck_assert_int_eq(wc.status, SR_WC_RNR_RETRY_EXC_ERR);
	ck_assert_uint_eq(wc.wr_id, 1);
	ck_assert_int_eq(h_wait_cq(&p, p.n[0].scq, &wc, 1, 100000), 1);
	ck_assert_int_eq(wc.status, SR_WC_WR_FLUSH_ERR);
	ck_assert_uint_eq(wc.wr_id, 2);
	ck_assert_int_eq(sr_qp_state(p.n[0].qp), SR_QPS_ERR);
	h_settle(&p);
	h_pair_fini(&p);
}
END_TEST

/* ---- what goes on the wire ---- */

struct wire_log {
	int n;
	uint8_t op[64];
	uint32_t plen[64];
	bool ackreq[64];
	uint16_t sport[64];
	uint16_t csum[64];
	uint8_t flags[64];
	uint16_t pkey[64];
	uint8_t syn[64];
	uint32_t msn[64];
	uint32_t psn[64];
	int from[64];
};

static bool log_tap(void *ctx, int from, uint8_t *frame, uint32_t *len)
{
	struct wire_log *l = ctx;
	struct sr_pkt pkt;
	const struct sr_aeth *a;

	ck_assert_int_eq(sr_parse_eth(frame, *len, 0, &pkt), SR_PARSE_OK);
	if (l->n < 64) {
		int i = l->n++;

		l->from[i] = from;
		l->op[i] = pkt.opcode;
		l->plen[i] = pkt.payload_len;
		l->ackreq[i] = sr_bth_ackreq(sr_pkt_bth(&pkt));
		l->sport[i] = sr_get_be16(sr_pkt_udp(&pkt)->sport);
		l->csum[i] = sr_get_be16(sr_pkt_udp(&pkt)->csum);
		l->flags[i] = sr_pkt_bth(&pkt)->se_m_pad_tver & 0x4f;
		l->pkey[i] = sr_bth_pkey(sr_pkt_bth(&pkt));
		l->psn[i] = sr_bth_psn(sr_pkt_bth(&pkt));
		a = sr_pkt_ext(&pkt, SR_EXT_AETH);
		l->syn[i] = a ? sr_aeth_syndrome(a) : 0;
		l->msn[i] = a ? sr_aeth_msn(a) : 0;
	}
	return true;
}

START_TEST(test_wire_format)
{
	struct h_pair p;
	struct h_opts o;
	struct sr_wc wc;
	struct wire_log l = { 0 };
	int i;

	h_default_opts(&o, SR_QPT_RC);
	o.mtu = SR_MTU_1024;
	h_pair_init(&p, &o);
	sim_set_tap(p.net, log_tap, &l);
	ck_assert_int_eq(h_post_recv(&p, 1, 1, 0, 8192), 0);
	ck_assert_int_eq(h_post_recv(&p, 1, 2, 0, 8192), 0);
	ck_assert_int_eq(h_post_send(&p, 0, SR_WR_SEND, 1, 0, 4096, 0, 0), 0);
	ck_assert_int_eq(h_post_send(&p, 0, SR_WR_SEND, 2, 0, 4096, 0,
				     SR_SEND_SIGNALED), 0);
	ck_assert_int_eq(h_wait_cq(&p, p.n[0].scq, &wc, 1, 100000), 1);
	h_settle(&p);
	/* 8 request packets; the ACKs coalesce to 1 or 2 */
	int req = 0, ack = 0;

	for (i = 0; i < l.n; i++) {
		ck_assert_uint_eq(l.csum[i], 0);          /* UDP checksum 0 */
		ck_assert_uint_eq(l.flags[i], 0);         /* MigReq 0, TVer 0 */
		ck_assert_uint_eq(l.pkey[i], 0xffff);
		ck_assert_uint_eq(l.sport[i] & 0xc000, 0xc000);
		if (l.from[i] == 0) {
			static const uint8_t want[4] = {
				SR_OPCODE(RC, SEND_FIRST), SR_OPCODE(RC, SEND_MIDDLE),
				SR_OPCODE(RC, SEND_MIDDLE), SR_OPCODE(RC, SEND_LAST),
			};
			ck_assert_uint_eq(l.op[i], want[req % 4]);
			ck_assert_uint_eq(l.plen[i], 1024);
			ck_assert_int_eq(l.ackreq[i], req % 4 == 3);
			ck_assert_uint_eq(l.psn[i], (o.psn0 + (uint32_t)req) & 0xffffff);
			req++;
		} else {
			ck_assert_uint_eq(l.op[i], SR_OPCODE(RC, ACKNOWLEDGE));
			ck_assert_uint_eq(l.syn[i], 0x1f);
			ack++;
			/* the last ACK: PSN of the last packet, MSN 2 */
			if (i == l.n - 1) {
				ck_assert_uint_eq(l.msn[i], 2);
				ck_assert_uint_eq(l.psn[i], (o.psn0 + 7) & 0xffffff);
			}
		}
	}
	ck_assert_int_eq(req, 8);
	ck_assert_int_ge(ack, 1);
	ck_assert_int_le(ack, 2);
	/* rxe's UDP source port for these QPNs */
	{
		uint32_t a = sr_qp_num(p.n[0].qp), b = sr_qp_num(p.n[1].qp);
		uint64_t v = (uint64_t)a * b;
		uint32_t fl;

		v ^= v >> 20;
		v ^= v >> 40;
		fl = (uint32_t)(v & 0xfffff);
		ck_assert_uint_eq(l.sport[0],
				  ((fl & 0x3fff) ^ ((fl & 0xfc000) >> 14)) | 0xc000);
	}
	h_pair_fini(&p);
}
END_TEST

/*
 * A QP's headers come from a template made once (wire/build.h); what it
 * was made from can change: the device's GID (a host NIC's address
 * moves), the QP's address vector (a QP reset and connected elsewhere).
 * Every frame after a change carries the new addresses, with a valid
 * IPv4 checksum.
 */
struct addr_log {
	int n;                    /* node 0's frames */
	uint8_t src[4], dmac[6], ttl;
	bool csum_ok;
};

static bool addr_tap(void *ctx, int from, uint8_t *frame, uint32_t *len)
{
	struct addr_log *l = ctx;
	struct sr_pkt pkt;
	const uint8_t *ip;
	uint32_t sum = 0;

	ck_assert_int_eq(sr_parse_eth(frame, *len, 0, &pkt), SR_PARSE_OK);
	if (from != 0)
		return true;
	ip = frame + pkt.l3;
	for (int i = 0; i < 20; i += 2)
		sum += (uint32_t)ip[i] << 8 | ip[i + 1];
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	if (l->n == 0)
		l->csum_ok = true;
	l->csum_ok = l->csum_ok && sum == 0xffff;
	memcpy(l->src, ip + 12, 4);
	memcpy(l->dmac, frame, 6);
	l->ttl = ip[8];
	l->n++;
	return true;
}

/* Node 0's QP through RESET to RTS again, towards av. */
static void reconnect(struct h_pair *p, const struct sr_av *av)
{
	struct sr_qp_attr a = { .qp_state = SR_QPS_RESET };

	ck_assert_int_eq(sr_qp_modify(p->n[0].qp, &a, SR_QP_STATE), 0);
	h_connect_av(p, 0, av);
}

/* Post one WRITE from node 0 and run the wire until it is quiet. */
static void write_one(struct h_pair *p, struct addr_log *l)
{
	int before = l->n;

	ck_assert_int_eq(h_post_send(p, 0, SR_WR_RDMA_WRITE, 9, 0, 64, 0, 0), 0);
	h_settle(p);
	ck_assert_int_gt(l->n, before);
}

START_TEST(test_headers_follow_changes)
{
	static const uint8_t moved[16] = { [10] = 0xff, [11] = 0xff, 10, 9, 8, 7 };
	struct h_pair p;
	struct h_opts o;
	struct addr_log l = { 0 };
	struct sr_av av;

	h_default_opts(&o, SR_QPT_RC);
	h_pair_init(&p, &o);
	sim_set_tap(p.net, addr_tap, &l);
	write_one(&p, &l);
	ck_assert_mem_eq(l.src, p.n[0].gid + 12, 4);
	ck_assert_mem_eq(l.dmac, p.n[1].mac, 6);
	/* the device's address moves: the next packet says so */
	ck_assert_int_eq(sr_dev_set_gid(p.n[0].dev, 0, moved), 0);
	write_one(&p, &l);
	ck_assert_mem_eq(l.src, moved + 12, 4);
	/* connected elsewhere: another next hop, another hop limit */
	av = h_av_to(&p, 1);
	av.dmac[5] = 0x77;
	av.hop_limit = 17;
	reconnect(&p, &av);
	write_one(&p, &l);
	ck_assert_uint_eq(l.dmac[5], 0x77);
	ck_assert_uint_eq(l.ttl, 17);
	ck_assert_mem_eq(l.src, moved + 12, 4);
	av.dmac[5] = 0x78;
	av.hop_limit = 33;
	reconnect(&p, &av);
	write_one(&p, &l);
	ck_assert_uint_eq(l.dmac[5], 0x78);
	ck_assert_uint_eq(l.ttl, 33);
	ck_assert(l.csum_ok);
	h_pair_fini(&p);
}
END_TEST

/*
 * A local buffer outside its region: LOC_PROT_ERR, and nothing of the
 * message on the wire, whether the check is the one at the start of a
 * message of several packets or the gather of a one-packet message.
 */
struct req_count {
	int requests;             /* node 0's request packets */
};

static bool req_tap(void *ctx, int from, uint8_t *frame, uint32_t *len)
{
	struct req_count *c = ctx;
	struct sr_pkt pkt;

	ck_assert_int_eq(sr_parse_eth(frame, *len, 0, &pkt), SR_PARSE_OK);
	if (from == 0 && (pkt.op->flags & SR_OPF_REQ))
		c->requests++;
	return true;
}

START_TEST(test_local_buffer_outside_region)
{
	static const uint32_t lens[] = { 64, 1024, 3 * 1024 + 5 };
	static const enum sr_wr_opcode ops[] = { SR_WR_RDMA_WRITE, SR_WR_SEND };
	uint32_t len = lens[_i % 3];
	struct req_count c = { 0 };
	struct h_pair p;
	struct h_opts o;
	struct sr_wc wc;

	h_default_opts(&o, SR_QPT_RC);
	o.mtu = SR_MTU_1024;
	h_pair_init(&p, &o);
	sim_set_tap(p.net, req_tap, &c);
	memset(p.n[1].buf, 0xee, 8192);
	ck_assert_int_eq(h_post_recv(&p, 1, 1, 0, 8192), 0);
	/* past the region's end: for several packets, not in the first */
	ck_assert_int_eq(h_post_send(&p, 0, ops[_i / 3], 5,
				     o.buflen - (len > 1024 ? 1500 : 10), len,
				     0, SR_SEND_SIGNALED), 0);
	ck_assert_int_eq(h_wait_cq(&p, p.n[0].scq, &wc, 1, 100000), 1);
	ck_assert_int_eq(wc.status, SR_WC_LOC_PROT_ERR);
	ck_assert_uint_eq(wc.wr_id, 5);
	h_settle(&p);
	ck_assert_int_eq(c.requests, 0);
	ck_assert_uint_eq(p.n[1].buf[0], 0xee);
	ck_assert_int_eq(sr_qp_state(p.n[0].qp), SR_QPS_ERR);
	h_pair_fini(&p);
}
END_TEST

/*
 * Interop with rxe: a requester has at most SR_MAX_UNACKED PSNs without an
 * ACK, no more than rxe's own requester (RXE_MAX_UNACKED_PSNS, 128).  With
 * 1024 in flight, a 1 MiB SEND to rxe in a TCG guest (~8 k packets/s) took
 * longer than one ACK timeout to absorb; every timeout sent the whole
 * window again behind it, and ib_send_lat -s 1048576 ended in RETRY_EXC.
 */
enum { RXE_MAX_UNACKED_PSNS = 128 };

struct window_log {
	uint32_t psn0;            /* the requester's first PSN */
	uint32_t acked;           /* last PSN an ACK let through covered */
	bool have_ack;
	bool swallow_acks;
	uint32_t sent;            /* request packets */
	int32_t max_ahead;        /* most PSNs sent past the last ACK */
};

static bool window_tap(void *ctx, int from, uint8_t *frame, uint32_t *len)
{
	struct window_log *l = ctx;
	struct sr_pkt pkt;
	uint32_t psn;

	ck_assert_int_eq(sr_parse_eth(frame, *len, 0, &pkt), SR_PARSE_OK);
	psn = sr_bth_psn(sr_pkt_bth(&pkt));
	if (from == 0) {
		uint32_t base = l->have_ack ? sr_psn_add(l->acked, 1) : l->psn0;
		int32_t ahead = sr_psn_diff(psn, base) + 1;

		l->sent++;
		if (ahead > l->max_ahead)
			l->max_ahead = ahead;
		return true;
	}
	if (pkt.opcode != SR_OPCODE(RC, ACKNOWLEDGE) || l->swallow_acks)
		return !l->swallow_acks;
	if (!l->have_ack || sr_psn_before(l->acked, psn))
		l->acked = psn;
	l->have_ack = true;
	return true;
}

/* The device's window (sr_dev_config.window): the default, which is
 * rxe's, a client of sroced's, the smallest. */
static const uint32_t windows[] = { 0, 512, SR_WINDOW_MIN };

START_TEST(test_unacked_window)
{
	const uint32_t len = 1u << 20;     /* 1024 packets at path MTU 1024 */
	const uint32_t window = windows[_i] ? windows[_i] : SR_MAX_UNACKED;
	struct window_log l = { 0 };
	struct h_pair p;
	struct h_opts o;
	struct sr_wc wc;

	h_default_opts(&o, SR_QPT_RC);
	o.buflen = len;
	o.window[0] = o.window[1] = windows[_i];
	h_pair_init(&p, &o);
	l.psn0 = o.psn0;
	l.swallow_acks = true;
	sim_set_tap(p.net, window_tap, &l);
	ck_assert_int_eq(h_post_recv(&p, 1, 1, 0, len), 0);
	ck_assert_int_eq(h_post_send(&p, 0, SR_WR_SEND, 2, 0, len, 0,
				     SR_SEND_SIGNALED), 0);
	/* no ACK comes back: the requester stops at the window */
	for (int i = 0; i < 100000 && sim_step_frames(p.net); i++)
		;
	ck_assert_uint_eq(l.sent, window);
	if (windows[_i] == 0)
		ck_assert_uint_le(l.sent, RXE_MAX_UNACKED_PSNS);
	/* ACKs come back (after a timeout): never more than the window out */
	l.swallow_acks = false;
	ck_assert_int_eq(h_wait_cq(&p, p.n[0].scq, &wc, 1, 10000000), 1);
	ck_assert_int_eq(wc.status, SR_WC_SUCCESS);
	ck_assert_int_eq(h_wait_cq(&p, p.n[1].rcq, &wc, 1, 10000000), 1);
	ck_assert_int_eq(wc.status, SR_WC_SUCCESS);
	ck_assert_uint_eq(wc.byte_len, len);
	ck_assert_int_le(l.max_ahead, (int32_t)window);
	ck_assert_uint_ge(l.sent, len / 1024);
	h_pair_fini(&p);
}
END_TEST

/*
 * A shared device's QPNs come from a block the daemon hands out
 * (sr_dev_config.qpn_base): QPs are numbered from it, frames reach them by
 * it, and a frame to a QPN below the block finds no QP.
 */
START_TEST(test_qpn_base)
{
	struct h_pair p;
	struct h_opts o;
	struct sr_wc wc;

	h_default_opts(&o, SR_QPT_RC);
	o.qpn_base[0] = 0x3000;
	o.qpn_base[1] = 0xfff000;    /* the last block: 4096 QPs fit */
	o.max_qp[1] = 4096;
	h_pair_init(&p, &o);
	ck_assert_uint_eq(sr_dev_max_qp(p.n[0].dev), SR_MAX_QP);
	ck_assert_uint_eq(sr_dev_max_qp(p.n[1].dev), 4096);
	ck_assert_uint_eq(sr_qp_num(p.n[0].qp), 0x3000);
	ck_assert_uint_eq(sr_qp_num(p.n[1].qp), 0xfff000);
	ck_assert_ptr_eq(sr_dev_qp_lookup(p.n[1].dev, 0xfff000), p.n[1].qp);
	ck_assert_ptr_null(sr_dev_qp_lookup(p.n[1].dev, 2));
	ck_assert_ptr_null(sr_dev_qp_lookup(p.n[1].dev, 0xfff000 - 1));
	fill(p.n[0].buf, 3000, 5);
	ck_assert_int_eq(h_post_send(&p, 0, SR_WR_RDMA_WRITE, 1, 0, 3000, 8192,
				     SR_SEND_SIGNALED), 0);
	ck_assert_int_eq(h_wait_cq(&p, p.n[0].scq, &wc, 1, 100000), 1);
	ck_assert_int_eq(wc.status, SR_WC_SUCCESS);
	ck_assert_mem_eq(p.n[1].buf + 8192, p.n[0].buf, 3000);
	h_settle(&p);
	h_pair_fini(&p);
}
END_TEST

START_TEST(test_qpn_base_bad)
{
	/* [qpn_base, max_qp]: below QPN 2, or a block past QPN 2^24 - 1 */
	static const uint32_t bad[][2] = {
		{ 1, 0 }, { 0xfff001, 4096 }, { 0xffffff, 0 },
		{ 0xfff000, 0 }, { 0x1000, SR_MAX_QP + 1 },
	};
	struct sr_mr_dev *mrd = sr_mr_dev_create(NULL);
	struct sim_cfg sc = { 0 };
	struct sim_net *net = sim_create(&sc);
	struct sr_dev_config cfg = { 0 };

	cfg.link_ops = sim_ops();
	cfg.link = sim_port(net, 0);
	cfg.mr = mrd;
	cfg.gid_count = 1;
	for (unsigned int i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		cfg.qpn_base = bad[i][0];
		cfg.max_qp = bad[i][1];
		ck_assert_ptr_null(sr_dev_create(&cfg));
	}
	/* a window out of its range */
	cfg.qpn_base = 0;
	cfg.max_qp = 0;
	cfg.window = SR_WINDOW_MIN - 1;
	ck_assert_ptr_null(sr_dev_create(&cfg));
	cfg.window = SR_WINDOW_MAX + 1;
	ck_assert_ptr_null(sr_dev_create(&cfg));
	cfg.window = 0;
	cfg.qpn_base = 0xfff000;
	cfg.max_qp = 4096;
	struct sr_dev *dev = sr_dev_create(&cfg);
	ck_assert_ptr_nonnull(dev);
	sr_dev_destroy(dev);
	sim_destroy(net);
	sr_mr_dev_destroy(mrd);
}
END_TEST

static Suite *rc_suite(void)
{
	Suite *s = suite_create("transport_rc");
	TCase *tc = tcase_create("rc");

	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, test_send_sizes, 0, 5);
	tcase_add_test(tc, test_write_read);
	tcase_add_test(tc, test_atomics);
	tcase_add_test(tc, test_rnr_then_recv);
	tcase_add_test(tc, test_rnr_retry_exhausted);
	tcase_add_test(tc, test_wire_format);
	tcase_add_test(tc, test_headers_follow_changes);
	tcase_add_loop_test(tc, test_local_buffer_outside_region, 0, 6);
	tcase_add_loop_test(tc, test_unacked_window, 0,
			    (int)(sizeof(windows) / sizeof(windows[0])));
	tcase_add_test(tc, test_qpn_base);
	tcase_add_test(tc, test_qpn_base_bad);
	suite_add_tcase(s, tc);
	return s;
}

SR_CHECK_MAIN(rc_suite)
