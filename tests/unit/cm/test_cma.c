/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/cm/cma: rdma_cm's REQ, REP and SIDR_REQ and the QP attributes, held
 * against what Linux put on the wire in tests/data/cm/rping.pcap (rping
 * between two rxe guests): a REQ sroce builds for the same route carries
 * the kernel's values in every field that is not per-connection (IDs,
 * QPN, PSN), and the REQ rxe sent reads back as rping's route.
 */
#include <errno.h>
#include <stdbool.h>
#include <pcap/pcap.h>
#include <stdio.h>
#include <string.h>

#include "cm/cma.h"
#include "cm/mad.h"
#include "sr_check.h"
#include "wire/parse.h"

#ifndef SR_CM_DATA_DIR
#define SR_CM_DATA_DIR "tests/data/cm"
#endif

/* The first MAD of attr in the capture, and its QP1 addresses. */
static void golden(enum sr_cm_attr attr, struct sr_cm_msg *m,
		   struct sr_cm_addr *from)
{
	char err[PCAP_ERRBUF_SIZE];
	struct pcap_pkthdr *h;
	const uint8_t *f;
	pcap_t *pc = pcap_open_offline(SR_CM_DATA_DIR "/rping.pcap", err);

	ck_assert_msg(pc != NULL, "%s", err);
	while (pcap_next_ex(pc, &h, &f) == 1) {
		struct sr_pkt pkt;

		if (sr_parse_eth(f, h->caplen, 0, &pkt) != SR_PARSE_OK ||
		    sr_bth_dqpn(sr_pkt_bth(&pkt)) != SR_GSI_QPN ||
		    sr_mad_parse(sr_pkt_payload(&pkt), pkt.payload_len, m) !=
			    SR_MAD_ERR_OK || m->attr != attr)
			continue;
		memset(from, 0, sizeof(*from));
		sr_pkt_sgid(&pkt, from->gid);
		sr_pkt_dgid(&pkt, from->lgid);
		memcpy(from->mac, f + 6, 6);
		from->pkey = 0xFFFF;
		pcap_close(pc);
		return;
	}
	pcap_close(pc);
	ck_abort_msg("no %s in rping.pcap", sr_cm_attr_info[attr].name);
}

START_TEST(test_req_reads_as_route)
{
	struct sr_cm_addr from;
	struct sr_cma_route r;
	struct sr_cm_msg m;
	const uint8_t *ud;
	uint8_t ul;

	golden(SR_CM_ATTR_REQ, &m, &from);
	ck_assert_int_eq(sr_cma_req_read(&m, &from, 5, &r, &ud, &ul), 0);
	ck_assert_uint_eq(r.ip_version, 4);
	ck_assert_uint_eq(r.sport, 7174);           /* rping's default port */
	ck_assert_uint_eq(r.dport, 53260);          /* the client's port */
	ck_assert_mem_eq(r.dgid, from.gid, 16);
	ck_assert_mem_eq(r.sgid, from.lgid, 16);
	ck_assert_uint_eq(r.path_mtu, 3);           /* rxe: 1024, ours larger */
	ck_assert_uint_eq(r.hop_limit, 64);
	ck_assert_uint_eq(r.ack_timeout, 19);
	ck_assert_uint_eq(ul, SR_CMA_REQ_PDATA_MAX);
	ck_assert_ptr_eq(ud, m.pdata + SR_CMA_HDR_SIZE);
	/* Our MTU smaller: ours. */
	ck_assert_int_eq(sr_cma_req_read(&m, &from, 2, &r, &ud, &ul), 0);
	ck_assert_uint_eq(r.path_mtu, 2);
}
END_TEST

START_TEST(test_req_as_linux)
{
	struct sr_cm_req_param p;
	struct sr_cma_route r;
	struct sr_cm_addr from;
	struct sr_cm_msg lx;
	uint8_t buf[92], ud[56];
	struct sr_cma_conn c = {
		.qpn = 0x11, .psn = 0x0b84dc, .transport = SR_CM_TRANSPORT_RC,
		.responder_resources = 1, .initiator_depth = 1,
		.retry_count = 7, .rnr_retry_count = 7,
		.pdata = ud, .pdata_len = sizeof(ud),
	};
	const uint8_t *lud;
	uint8_t lul;

	golden(SR_CM_ATTR_REQ, &lx, &from);
	/* rping's route, from the client's side (the frame's source). */
	memset(&r, 0, sizeof(r));
	r.ip_version = 4;
	r.sport = 53260;
	r.dport = 7174;
	memcpy(r.sgid, from.gid, 16);
	memcpy(r.dgid, from.lgid, 16);
	r.path_mtu = 3;
	/* rping's private data is the same bytes after the header */
	memcpy(ud, lx.pdata + SR_CMA_HDR_SIZE, sizeof(ud));
	ck_assert_int_eq(sr_cma_req(&p, buf, &r, SR_RDMA_PS_TCP, &c), 0);
	ck_assert_uint_eq(p.service_id, lx.service_id);
	ck_assert_uint_eq(p.qpn, lx.qpn);
	ck_assert_uint_eq(p.psn, lx.psn);
	ck_assert_uint_eq(p.responder_resources, lx.responder_resources);
	ck_assert_uint_eq(p.initiator_depth, lx.initiator_depth);
	ck_assert_uint_eq(p.remote_cm_timeout, lx.remote_cm_timeout);
	ck_assert_uint_eq(p.local_cm_timeout, lx.local_cm_timeout);
	ck_assert_uint_eq(p.max_cm_retries, lx.max_cm_retries);
	ck_assert_uint_eq(p.retry_count, lx.retry_count);
	ck_assert_uint_eq(p.rnr_retry_count, lx.rnr_retry_count);
	ck_assert_uint_eq(p.transport, lx.transport_type);
	ck_assert_uint_eq(p.path_mtu, lx.path_mtu);
	ck_assert_uint_eq(p.srq, lx.srq);
	ck_assert_uint_eq(p.peer.pkey, lx.pkey);
	ck_assert_uint_eq(p.path.local_lid, lx.pri.local_lid);
	ck_assert_uint_eq(p.path.remote_lid, lx.pri.remote_lid);
	ck_assert_mem_eq(p.path.local_gid, lx.pri.local_gid, 16);
	ck_assert_mem_eq(p.path.remote_gid, lx.pri.remote_gid, 16);
	ck_assert_uint_eq(p.path.hop_limit, lx.pri.hop_limit);
	ck_assert_uint_eq(p.path.traffic_class, lx.pri.traffic_class);
	ck_assert_uint_eq(p.path.sl, lx.pri.sl);
	ck_assert_uint_eq(p.path.subnet_local, lx.pri.subnet_local);
	ck_assert_uint_eq(p.path.ack_timeout, lx.pri.ack_timeout);
	ck_assert_uint_eq(p.path.flow_label, lx.pri.flow_label);
	ck_assert_uint_eq(p.path.packet_rate, lx.pri.packet_rate);
	/* the cma header and the consumer's data, byte for byte */
	ck_assert_uint_eq(p.pdata_len, lx.pdata_len);
	ck_assert_mem_eq(p.pdata, lx.pdata, lx.pdata_len);
	/* and it reads back */
	ck_assert_int_eq(sr_cma_req_read(&lx, &from, 5, &r, &lud, &lul), 0);
	/* too much private data for a REQ */
	c.pdata_len = SR_CMA_REQ_PDATA_MAX + 1;
	ck_assert_int_eq(sr_cma_req(&p, buf, &r, SR_RDMA_PS_TCP, &c), -EINVAL);
	c.pdata_len = 0;
	r.ip_version = 5;
	ck_assert_int_eq(sr_cma_req(&p, buf, &r, SR_RDMA_PS_TCP, &c), -EINVAL);
}
END_TEST

/* In rping.pcap the active side's first RC packet carries the REP's
 * starting PSN, the passive side's the REQ's: our attributes agree. */
START_TEST(test_psns_as_linux)
{
	char err[PCAP_ERRBUF_SIZE];
	struct pcap_pkthdr *h;
	const uint8_t *f;
	struct sr_cm_addr from;
	struct sr_cm_msg req, rep;
	struct sr_cm_req_param p = { 0 };
	struct sr_cm_rep_param rp = { 0 };
	struct sr_cma_qp_attr act, pas;
	uint32_t first_from_active = 0, first_from_passive = 0;
	bool got_a = false, got_p = false;
	pcap_t *pc;

	golden(SR_CM_ATTR_REQ, &req, &from);   /* from: the active side */
	golden(SR_CM_ATTR_REP, &rep, &from);
	golden(SR_CM_ATTR_REQ, &req, &from);
	pc = pcap_open_offline(SR_CM_DATA_DIR "/rping.pcap", err);
	ck_assert_msg(pc != NULL, "%s", err);
	while (pcap_next_ex(pc, &h, &f) == 1) {
		struct sr_pkt pkt;
		uint8_t sgid[16];

		if (sr_parse_eth(f, h->caplen, 0, &pkt) != SR_PARSE_OK ||
		    sr_bth_dqpn(sr_pkt_bth(&pkt)) == SR_GSI_QPN ||
		    pkt.opcode == SR_OPCODE(RC, ACKNOWLEDGE) ||
		    pkt.opcode == SR_OPCODE(RC, READ_RESPONSE_ONLY))
			continue;
		sr_pkt_sgid(&pkt, sgid);
		if (memcmp(sgid, from.gid, 16) == 0 && !got_a) {
			first_from_active = sr_bth_psn(sr_pkt_bth(&pkt));
			got_a = true;
		} else if (memcmp(sgid, from.gid, 16) != 0 && !got_p) {
			first_from_passive = sr_bth_psn(sr_pkt_bth(&pkt));
			got_p = true;
		}
	}
	pcap_close(pc);
	ck_assert(got_a && got_p);
	ck_assert_uint_eq(first_from_active, rep.psn);
	ck_assert_uint_eq(first_from_passive, req.psn);
	p.psn = req.psn;
	rp.psn = rep.psn;
	sr_cma_qp_attr_active(&act, &p, &rep);
	sr_cma_qp_attr_passive(&pas, &req, &rp, 5);
	ck_assert_uint_eq(act.sq_psn, first_from_active);
	ck_assert_uint_eq(pas.sq_psn, first_from_passive);
}
END_TEST

START_TEST(test_req_refused)
{
	struct sr_cm_addr from;
	struct sr_cma_route r;
	struct sr_cm_msg m;
	const uint8_t *ud;
	uint8_t ul;

	golden(SR_CM_ATTR_REQ, &m, &from);
	m.service_id = 0x1234;                   /* not an rdma_cm service */
	ck_assert_int_eq(sr_cma_req_read(&m, &from, 5, &r, &ud, &ul), -EINVAL);
	golden(SR_CM_ATTR_REQ, &m, &from);
	m.pdata_len = 20;                        /* no room for the header */
	ck_assert_int_eq(sr_cma_req_read(&m, &from, 5, &r, &ud, &ul), -EPROTO);
	golden(SR_CM_ATTR_REQ, &m, &from);
	m.pdata[0] = 1;                          /* cma version */
	ck_assert_int_eq(sr_cma_req_read(&m, &from, 5, &r, &ud, &ul),
			 -EPROTONOSUPPORT);
}
END_TEST

/* Both ends of rping's connection derive matching QP attributes. */
START_TEST(test_qp_attr_both_sides)
{
	struct sr_cm_msg req, rep;
	struct sr_cm_addr from;
	struct sr_cm_req_param p;
	struct sr_cm_rep_param rp;
	struct sr_cma_qp_attr act, pas;
	struct sr_cma_route r = { .ip_version = 4, .sport = 1, .dport = 2,
				  .path_mtu = 3 };
	struct sr_cma_conn a = { .qpn = 0x11, .psn = 100,
				 .responder_resources = 4, .initiator_depth = 2,
				 .retry_count = 6, .rnr_retry_count = 5 };
	struct sr_cma_conn b = { .qpn = 0x22, .psn = 200,
				 .responder_resources = 2, .initiator_depth = 4,
				 .rnr_retry_count = 3 };
	uint8_t buf[92];

	golden(SR_CM_ATTR_REQ, &req, &from);
	ck_assert_int_eq(sr_cma_req(&p, buf, &r, SR_RDMA_PS_TCP, &a), 0);
	/* the REQ as the passive side parses it */
	req.qpn = p.qpn;
	req.psn = p.psn;
	req.responder_resources = p.responder_resources;
	req.initiator_depth = p.initiator_depth;
	req.retry_count = p.retry_count;
	req.rnr_retry_count = p.rnr_retry_count;
	req.path_mtu = p.path_mtu;
	req.pri.ack_timeout = p.path.ack_timeout;
	ck_assert_int_eq(sr_cma_rep(&rp, &b), 0);
	memset(&rep, 0, sizeof(rep));
	rep.qpn = rp.qpn;
	rep.psn = rp.psn;
	rep.responder_resources = rp.responder_resources;
	rep.initiator_depth = rp.initiator_depth;
	rep.target_ack_delay = rp.target_ack_delay;
	rep.rnr_retry_count = rp.rnr_retry_count;
	sr_cma_qp_attr_active(&act, &p, &rep);
	sr_cma_qp_attr_passive(&pas, &req, &rp, 5);
	/* each sends with the PSN the other expects */
	ck_assert_uint_eq(act.sq_psn, pas.rq_psn);
	ck_assert_uint_eq(pas.sq_psn, act.rq_psn);
	ck_assert_uint_eq(act.dest_qpn, 0x22);
	ck_assert_uint_eq(pas.dest_qpn, 0x11);
	ck_assert_uint_eq(act.path_mtu, pas.path_mtu);
	/* what one may have outstanding the other can answer */
	ck_assert_uint_le(act.max_rd_atomic, pas.max_dest_rd_atomic);
	ck_assert_uint_le(pas.max_rd_atomic, act.max_dest_rd_atomic);
	/* ib_cm's values: ACK timeout 19 (life 18 + 1), min RNR timer 0 */
	ck_assert_uint_eq(act.timeout, 19);
	ck_assert_uint_eq(pas.timeout, 19);
	ck_assert_uint_eq(act.min_rnr_timer, 0);
	ck_assert_uint_eq(act.retry_cnt, 6);
	ck_assert_uint_eq(pas.retry_cnt, 6);
	ck_assert_uint_eq(act.rnr_retry, 3);     /* the REP's */
	ck_assert_uint_eq(pas.rnr_retry, 5);     /* the REQ's */
	ck_assert(act.remote_read && pas.remote_read);
}
END_TEST

START_TEST(test_sidr_and_rep_limits)
{
	struct sr_cma_route r = { .ip_version = 6, .sport = 9, .dport = 7 };
	struct sr_cm_sidr_param sp;
	struct sr_cm_rep_param rp;
	uint8_t buf[216], data[200] = { 0 };
	struct sr_cma_conn c = { .pdata = data, .pdata_len = 196 };

	ck_assert_int_eq(sr_cma_sidr_req(&sp, buf, &r, SR_RDMA_PS_UDP, data, 180), 0);
	ck_assert_uint_eq(sp.pdata_len, 216);
	ck_assert_uint_eq(sp.service_id, sr_cma_service_id(SR_RDMA_PS_UDP, 7));
	ck_assert_int_eq(sr_cma_sidr_req(&sp, buf, &r, SR_RDMA_PS_UDP, data, 181),
			 -EINVAL);
	ck_assert_int_eq(sr_cma_rep(&rp, &c), 0);
	c.pdata_len = 197;
	ck_assert_int_eq(sr_cma_rep(&rp, &c), -EINVAL);
	c.pdata = NULL;
	c.pdata_len = 1;
	ck_assert_int_eq(sr_cma_rep(&rp, &c), -EINVAL);
	/* the kernel's flow label: sport * 31 + dport, 20 bits */
	ck_assert_uint_eq(sr_cma_flow_label(53260, 7174), 0x94D7Au);
}
END_TEST

static Suite *cm_cma_suite(void)
{
	Suite *s = suite_create("cm_cma");
	TCase *tc = tcase_create("cma");

	tcase_add_test(tc, test_req_reads_as_route);
	tcase_add_test(tc, test_req_as_linux);
	tcase_add_test(tc, test_req_refused);
	tcase_add_test(tc, test_psns_as_linux);
	tcase_add_test(tc, test_qp_attr_both_sides);
	tcase_add_test(tc, test_sidr_and_rep_limits);
	suite_add_tcase(s, tc);
	return s;
}

SR_CHECK_MAIN(cm_cma_suite)
