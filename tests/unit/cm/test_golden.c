/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Golden CM MADs: rping (RC, rdma_cm TCP port space) and udaddy (UD,
 * SIDR, UDP port space) between two Linux rxe guests, captured on the lab
 * bridge (tests/data/cm/).  Every datagram to QP1 is framed as the GSI
 * requires, parses, and rebuilds byte for byte from its description; the
 * handshake's fields (service ID, cma addresses, communication IDs, QPNs,
 * permissive LIDs) are what Linux's cm.c and cma.c put there.
 */
#include <pcap/pcap.h>
#include <stdio.h>
#include <string.h>

#include "cm/cm.h"
#include "cm/cma_hdr.h"
#include "cm/mad.h"
#include "sr_check.h"
#include "wire/build.h"

/* Linux puts the permissive LID in both when the hop limit is above 1. */
#define SR_GOLDEN_REQ_LID SR_CM_LID_PERMISSIVE

#ifndef SR_CM_DATA_DIR
#define SR_CM_DATA_DIR "tests/data/cm"
#endif

#define MAX_MADS 64

struct capture {
	struct sr_cm_msg msg[MAX_MADS];
	uint8_t sgid[MAX_MADS][16];
	unsigned int n;
	unsigned int per_attr[SR_CM_ATTR_COUNT];
};

static void load(const char *name, struct capture *c)
{
	char path[512], err[PCAP_ERRBUF_SIZE];
	struct pcap_pkthdr *h;
	const uint8_t *f;
	pcap_t *pc;

	snprintf(path, sizeof(path), "%s/%s", SR_CM_DATA_DIR, name);
	pc = pcap_open_offline(path, err);
	ck_assert_msg(pc != NULL, "%s: %s", path, err);
	memset(c, 0, sizeof(*c));
	while (pcap_next_ex(pc, &h, &f) == 1) {
		struct sr_pkt pkt;
		const void *deth;
		uint8_t out[SR_MAD_SIZE], frame[512];
		struct sr_build b;

		if (sr_parse_eth(f, h->caplen, 0, &pkt) != SR_PARSE_OK ||
		    sr_bth_dqpn(sr_pkt_bth(&pkt)) != SR_GSI_QPN)
			continue;
		ck_assert_uint_lt(c->n, MAX_MADS);
		/* The GSI's framing: UD SEND only, Q_Key 0x80010000, from QP1. */
		ck_assert_uint_eq(pkt.opcode, SR_OPCODE(UD, SEND_ONLY));
		deth = sr_pkt_ext(&pkt, SR_EXT_DETH);
		ck_assert_ptr_nonnull(deth);
		ck_assert_uint_eq(sr_deth_qkey(deth), SR_GSI_QKEY);
		ck_assert_uint_eq(sr_deth_sqpn(deth), SR_GSI_QPN);
		ck_assert_uint_eq(sr_bth_pkey(sr_pkt_bth(&pkt)), 0xFFFF);
		ck_assert_uint_eq(pkt.payload_len, SR_MAD_SIZE);
		/* rxe's QP1 framing, as our GSI sends it. */
		ck_assert(sr_bth_ackreq(sr_pkt_bth(&pkt)));
		/* lib/wire rebuilds the whole frame (headers, ICRC) from its
		 * description: the GSI needs no framing code of its own. */
		sr_build_from_pkt(&b, &pkt);
		ck_assert_int_eq(sr_build_frame(frame, sizeof(frame), &b,
						sr_pkt_payload(&pkt), SR_MAD_SIZE),
				 (int)h->caplen);
		ck_assert(memcmp(frame, f, h->caplen) == 0);
		ck_assert_int_eq(sr_mad_parse(sr_pkt_payload(&pkt), pkt.payload_len,
					      &c->msg[c->n]), SR_MAD_ERR_OK);
		ck_assert_int_eq(sr_mad_build(&c->msg[c->n], out), (int)SR_MAD_SIZE);
		ck_assert_msg(memcmp(out, sr_pkt_payload(&pkt), SR_MAD_SIZE) == 0,
			      "%s MAD %u (%s) differs after rebuild", name, c->n,
			      sr_cm_attr_info[c->msg[c->n].attr].name);
		sr_pkt_sgid(&pkt, c->sgid[c->n]);
		c->per_attr[c->msg[c->n].attr]++;
		c->n++;
	}
	pcap_close(pc);
}

static const struct sr_cm_msg *first(const struct capture *c, enum sr_cm_attr a,
				     unsigned int *idx)
{
	for (unsigned int i = 0; i < c->n; i++)
		if (c->msg[i].attr == a) {
			if (idx)
				*idx = i;
			return &c->msg[i];
		}
	ck_abort_msg("no %s", sr_cm_attr_info[a].name);
	return NULL;
}

static const uint8_t ip11[4] = { 10, 77, 0, 11 }, ip12[4] = { 10, 77, 0, 12 };

START_TEST(test_rping)
{
	static struct capture c;
	const struct sr_cm_msg *req, *rep, *rtu, *dreq, *drep;
	struct sr_cma_addr a;
	uint8_t gid11[16], gid12[16];
	unsigned int ri;

	load("rping.pcap", &c);
	req = first(&c, SR_CM_ATTR_REQ, &ri);
	rep = first(&c, SR_CM_ATTR_REP, NULL);
	rtu = first(&c, SR_CM_ATTR_RTU, NULL);
	dreq = first(&c, SR_CM_ATTR_DREQ, NULL);
	drep = first(&c, SR_CM_ATTR_DREP, NULL);
	sr_cma_ipv4_gid(gid11, ip11);
	sr_cma_ipv4_gid(gid12, ip12);
	/* rping's port 7174 in the TCP port space. */
	ck_assert_uint_eq(req->service_id, sr_cma_service_id(SR_RDMA_PS_TCP, 7174));
	ck_assert_int_eq(sr_cma_hdr_get(req->pdata, req->pdata_len, &a), 0);
	ck_assert_uint_eq(a.ip_version, 4);
	ck_assert_mem_eq(a.src + 12, ip11, 4);
	ck_assert_mem_eq(a.dst + 12, ip12, 4);
	ck_assert_mem_eq(c.sgid[ri], gid11, 16);
	ck_assert_mem_eq(req->pri.local_gid, gid11, 16);
	ck_assert_mem_eq(req->pri.remote_gid, gid12, 16);
	ck_assert_uint_eq(req->transport_type, SR_CM_TRANSPORT_RC);
	ck_assert_uint_ne(req->qpn, 0);
	ck_assert_uint_eq(rep->remote_comm_id, req->local_comm_id);
	ck_assert_uint_eq(rtu->local_comm_id, req->local_comm_id);
	ck_assert_uint_eq(rtu->remote_comm_id, rep->local_comm_id);
	ck_assert_uint_ne(rep->qpn, 0);
	/* DREQ names the receiver's QPN; DREP answers it. */
	ck_assert(dreq->qpn == req->qpn || dreq->qpn == rep->qpn);
	ck_assert_uint_eq(drep->local_comm_id, dreq->remote_comm_id);
	ck_assert_uint_eq(drep->remote_comm_id, dreq->local_comm_id);
	/* The REQ's LIDs as the capture shows them, recorded in the doc. */
	ck_assert_uint_eq(req->pri.local_lid, SR_GOLDEN_REQ_LID);
	ck_assert_uint_eq(req->pri.remote_lid, SR_GOLDEN_REQ_LID);
	ck_assert_uint_eq(req->max_cm_retries, SR_CMA_MAX_CM_RETRIES);
	ck_assert_uint_eq(req->remote_cm_timeout, SR_CMA_CM_RESPONSE_TIMEOUT);
	ck_assert_uint_eq(req->local_cm_timeout, SR_CMA_CM_RESPONSE_TIMEOUT);
	ck_assert_uint_eq(req->pri.hop_limit, 64);
	ck_assert_uint_eq(req->pri.subnet_local, 0);
	ck_assert_uint_eq(req->pkey, 0xFFFF);
	ck_assert_uint_eq(req->path_mtu, 3);   /* 1024: the lab's 1500-byte MTU */
	/* One TID for the whole connection: the passive side echoes it. */
	ck_assert_uint_eq(rep->tid, req->tid);
	ck_assert_uint_eq(drep->tid, req->tid);
	/* Only the 36-byte cma header in rping's REQ private data. */
	for (unsigned int i = SR_CMA_HDR_SIZE; i < req->pdata_len; i++)
		ck_assert_uint_eq(req->pdata[i], 0);
}
END_TEST

START_TEST(test_udaddy)
{
	static struct capture c;
	const struct sr_cm_msg *req, *rep;
	struct sr_cma_addr a;

	load("udaddy.pcap", &c);
	req = first(&c, SR_CM_ATTR_SIDR_REQ, NULL);
	rep = first(&c, SR_CM_ATTR_SIDR_REP, NULL);
	ck_assert_uint_eq(sr_cma_service_ps(req->service_id), SR_RDMA_PS_UDP);
	ck_assert_int_eq(sr_cma_hdr_get(req->pdata, req->pdata_len, &a), 0);
	ck_assert_mem_eq(a.src + 12, ip11, 4);
	ck_assert_mem_eq(a.dst + 12, ip12, 4);
	ck_assert_uint_eq(rep->local_comm_id, req->local_comm_id);
	ck_assert_uint_eq(rep->status, 0);
	ck_assert_uint_ne(rep->qpn, 0);
	ck_assert_uint_eq(rep->service_id, req->service_id);
}
END_TEST

/* Our CM, given what Linux's REQ and REP say, sends the same bytes (the
 * active side's communication ID and TID aside, which are its own). */
static uint8_t sent[4][SR_MAD_SIZE];
static unsigned int nsent;
static const struct sr_cm_msg *golden_rep;

static void keep(void *ctx, const struct sr_cm_addr *to, const uint8_t *mad)
{
	(void)ctx;
	(void)to;
	if (nsent < 4)
		memcpy(sent[nsent], mad, SR_MAD_SIZE);
	nsent++;
}

static void accept_as_linux(void *ctx, struct sr_cm_id *id, const struct sr_cm_event *ev)
{
	const struct sr_cm_msg *r = golden_rep;
	struct sr_cm_rep_param p = {
		.qpn = r->qpn, .psn = r->psn, .qkey = r->qkey,
		.responder_resources = r->responder_resources,
		.initiator_depth = r->initiator_depth,
		.target_ack_delay = r->target_ack_delay,
		.rnr_retry_count = r->rnr_retry_count, .srq = r->srq,
	};

	(void)ctx;
	if (ev->type == SR_CM_EVENT_REQ_RCVD)
		ck_assert_int_eq(sr_cm_accept(id, 0, &p), 0);
}

static uint8_t golden_mad[2][SR_MAD_SIZE];

static void raw_mads(const char *name)
{
	char path[512], err[PCAP_ERRBUF_SIZE];
	struct pcap_pkthdr *h;
	const uint8_t *f;
	pcap_t *pc;
	unsigned int n = 0;

	snprintf(path, sizeof(path), "%s/%s", SR_CM_DATA_DIR, name);
	pc = pcap_open_offline(path, err);
	ck_assert_ptr_nonnull(pc);
	while (n < 2 && pcap_next_ex(pc, &h, &f) == 1) {
		struct sr_pkt pkt;

		if (sr_parse_eth(f, h->caplen, 0, &pkt) == SR_PARSE_OK &&
		    sr_bth_dqpn(sr_pkt_bth(&pkt)) == SR_GSI_QPN)
			memcpy(golden_mad[n++], sr_pkt_payload(&pkt), SR_MAD_SIZE);
	}
	pcap_close(pc);
	ck_assert_uint_eq(n, 2);
}

START_TEST(test_our_req_and_rep_match_linux)
{
	static struct capture c;
	const struct sr_cm_msg *req, *rep;
	struct sr_cm_cfg cfg = { .ops = { .send = keep, .event = accept_as_linux } };
	struct sr_cm_req_param p;
	struct sr_cm_addr peer = { .pkey = 0xFFFF };
	struct sr_cm *cm;
	struct sr_cm_id *id, *l;

	load("rping.pcap", &c);
	raw_mads("rping.pcap");   /* [0] REQ, [1] REP */
	req = first(&c, SR_CM_ATTR_REQ, NULL);
	rep = first(&c, SR_CM_ATTR_REP, NULL);
	golden_rep = rep;
	/* Active side. */
	cfg.ca_guid = req->ca_guid;
	cm = sr_cm_create(&cfg);
	ck_assert_ptr_nonnull(cm);
	p = (struct sr_cm_req_param){
		.service_id = req->service_id, .path = req->pri, .qpn = req->qpn,
		.psn = req->psn, .qkey = req->qkey, .transport = req->transport_type,
		.responder_resources = req->responder_resources,
		.initiator_depth = req->initiator_depth,
		.retry_count = req->retry_count, .rnr_retry_count = req->rnr_retry_count,
		.path_mtu = req->path_mtu, .srq = req->srq,
		.remote_cm_timeout = req->remote_cm_timeout,
		.local_cm_timeout = req->local_cm_timeout,
		.max_cm_retries = req->max_cm_retries,
		.pdata = req->pdata, .pdata_len = SR_CMA_HDR_SIZE,
	};
	memcpy(p.peer.gid, req->pri.remote_gid, 16);
	p.peer.pkey = req->pkey;
	nsent = 0;
	ck_assert_int_eq(sr_cm_connect(cm, 0, &p, NULL, &id), 0);
	ck_assert_uint_eq(nsent, 1);
	/* Our own local communication ID and TID, Linux's elsewhere. */
	memcpy(sent[0] + 8, golden_mad[0] + 8, 8);
	memcpy(sent[0] + SR_MAD_HDR_SIZE, golden_mad[0] + SR_MAD_HDR_SIZE, 4);
	ck_assert_mem_eq(sent[0], golden_mad[0], SR_MAD_SIZE);
	sr_cm_destroy(cm);
	/* Passive side: Linux's REQ in, our REP out. */
	cfg.ca_guid = rep->ca_guid;
	cm = sr_cm_create(&cfg);
	ck_assert_int_eq(sr_cm_listen(cm, req->service_id, NULL, &l), 0);
	memcpy(peer.gid, req->pri.local_gid, 16);
	nsent = 0;
	sr_cm_input(cm, 0, &peer, golden_mad[0], SR_MAD_SIZE);
	ck_assert_uint_eq(nsent, 1);
	memcpy(sent[0] + SR_MAD_HDR_SIZE, golden_mad[1] + SR_MAD_HDR_SIZE, 4);
	ck_assert_mem_eq(sent[0], golden_mad[1], SR_MAD_SIZE);   /* TID echoed too */
	sr_cm_destroy(cm);
}
END_TEST

static Suite *cm_golden_suite(void)
{
	Suite *s = suite_create("cm_golden");
	TCase *tc = tcase_create("golden");

	tcase_add_test(tc, test_rping);
	tcase_add_test(tc, test_udaddy);
	tcase_add_test(tc, test_our_req_and_rep_match_linux);
	suite_add_tcase(s, tc);
	return s;
}

SR_CHECK_MAIN(cm_golden_suite)
