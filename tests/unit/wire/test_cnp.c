/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ECN on the wire and the CNP (IBTA Annex A17.9.3): the parser exposes the
 * ECN field, a CE mark keeps the ICRC valid, and the CNP answering a
 * CE-marked packet has ConnectX's BTH byte for byte.
 */
#include "sr_check.h"
#include "wire/cnp.h"
#include "wire/endian.h"
#include "wire_fixture.h"

static uint8_t frame[SR_MAX_PAYLOAD + 256];
static uint8_t cnp[256];
static const uint8_t payload[64];

static int build_write(bool v6, bool vlan, uint8_t tclass)
{
	struct sr_build b;

	fixture_build(&b, SR_OPCODE(RC, WRITE_ONLY), v6, vlan);
	b.tclass = tclass;
	return sr_build_frame(frame, sizeof(frame), &b, payload, sizeof(payload));
}

/* Set the ECN bits of a built frame as a switch does (IPv4: checksum too). */
static void mark(const struct sr_pkt *p, enum sr_ecn ecn)
{
	uint8_t *ip = frame + p->l3;
	uint32_t sum = 0;

	if (p->ipv6) {
		ip[1] = (uint8_t)((ip[1] & ~(SR_ECN_MASK << 4)) | (unsigned int)ecn << 4);
		return;
	}
	ip[1] = sr_tclass_with_ecn(ip[1], ecn);
	ip[10] = ip[11] = 0;
	for (int i = 0; i < 20; i += 2)
		sum += sr_get_be16(ip + i);
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	sr_put_be16(ip + 10, (uint16_t)~sum);
}

START_TEST(ecn_field_is_parsed)
{
	for (int v = 0; v < 4; v++) {
		for (unsigned int e = 0; e < 4; e++) {
			struct sr_pkt p;
			int n = build_write(v & 1, v & 2, (uint8_t)(0x68 | e));

			ck_assert_int_gt(n, 0);
			ck_assert_int_eq(sr_parse_eth(frame, (uint32_t)n, 0, &p), SR_PARSE_OK);
			ck_assert_uint_eq(sr_pkt_tclass(&p), 0x68 | e);
			ck_assert_int_eq(sr_pkt_ecn(&p), (int)e);
		}
	}
}
END_TEST

/* A switch marking CE on ECT(0) leaves the ICRC valid (the ICRC masks the
 * traffic class). */
START_TEST(ce_mark_keeps_icrc)
{
	for (int v = 0; v < 4; v++) {
		struct sr_pkt p;
		int n = build_write(v & 1, v & 2, sr_tclass_with_ecn(0x68, SR_ECN_ECT0));

		ck_assert_int_eq(sr_parse_eth(frame, (uint32_t)n, 0, &p), SR_PARSE_OK);
		ck_assert_int_eq(sr_pkt_ecn(&p), SR_ECN_ECT0);
		mark(&p, SR_ECN_CE);
		ck_assert_int_eq(sr_parse_eth(frame, (uint32_t)n, 0, &p), SR_PARSE_OK);
		ck_assert_int_eq(sr_pkt_ecn(&p), SR_ECN_CE);
		ck_assert_uint_eq(sr_pkt_tclass(&p) >> 2, 0x68 >> 2);
	}
}
END_TEST

START_TEST(cnp_answers_a_ce_packet)
{
	static const uint8_t connectx_bth[12] = {
		0x81, 0x00, 0xff, 0xff, 0x40, 0x00, 0x00, 0xd2, 0, 0, 0, 0,
	};
	static const uint8_t zeros[SR_CNP_PAYLOAD];

	for (int v = 0; v < 4; v++) {
		struct sr_pkt ce, c;
		struct sr_build b;
		uint8_t g1[16], g2[16];
		int n = build_write(v & 1, v & 2, sr_tclass_with_ecn(0x68, SR_ECN_CE));

		ck_assert_int_eq(sr_parse_eth(frame, (uint32_t)n, 0, &ce), SR_PARSE_OK);
		sr_cnp_describe(&b, &ce, 0xd2, 48);
		n = sr_cnp_build(cnp, sizeof(cnp), &b);
		ck_assert_int_gt(n, 0);
		ck_assert_int_eq(sr_parse_eth(cnp, (uint32_t)n, 0, &c), SR_PARSE_OK);
		ck_assert_uint_eq(c.opcode, SR_OPCODE_CNP);
		ck_assert_uint_eq(c.op->kind, SR_KIND_CNP);
		ck_assert_mem_eq(cnp + c.bth, connectx_bth, sizeof(connectx_bth));
		ck_assert_uint_eq(c.payload_len, SR_CNP_PAYLOAD);
		ck_assert_uint_eq(c.pad, 0);
		ck_assert_mem_eq(sr_pkt_payload(&c), zeros, SR_CNP_PAYLOAD);
		ck_assert_uint_eq(c.end - c.bth, 12 + SR_CNP_PAYLOAD);
		/* Back to the sender: MACs and GIDs swapped, VLAN kept. */
		ck_assert_mem_eq(cnp, frame + 6, 6);
		ck_assert_mem_eq(cnp + 6, frame, 6);
		sr_pkt_sgid(&c, g1);
		sr_pkt_dgid(&ce, g2);
		ck_assert_mem_eq(g1, g2, 16);
		sr_pkt_dgid(&c, g1);
		sr_pkt_sgid(&ce, g2);
		ck_assert_mem_eq(g1, g2, 16);
		ck_assert_int_eq(c.has_vlan, ce.has_vlan);
		ck_assert_uint_eq(c.vlan_tci, ce.vlan_tci);
		/* DSCP 48, Not-ECT: a CNP is never marked. */
		ck_assert_uint_eq(sr_pkt_tclass(&c), 48 << 2);
		ck_assert_int_eq(sr_pkt_ecn(&c), SR_ECN_NOT_ECT);
	}
}
END_TEST

/* A CNP whose reserved part is not 16 bytes is malformed. */
START_TEST(cnp_bad_length)
{
	static const uint32_t lens[] = { 0, 4, 12, 15, 17, 20, 1024 };
	static const uint8_t junk[1024];

	for (size_t i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
		struct sr_build b;
		struct sr_pkt p;
		int n;

		fixture_build(&b, SR_OPCODE_CNP, false, false);
		n = sr_build_frame(frame, sizeof(frame), &b, junk, lens[i]);
		ck_assert_int_gt(n, 0);
		ck_assert_int_eq(sr_parse_eth(frame, (uint32_t)n, 0, &p),
				 SR_PARSE_PAYLOAD_LEN);
	}
}
END_TEST

static Suite *cnp_suite(void)
{
	Suite *s = suite_create("wire_cnp");
	TCase *tc = tcase_create("cnp");

	tcase_add_test(tc, ecn_field_is_parsed);
	tcase_add_test(tc, ce_mark_keeps_icrc);
	tcase_add_test(tc, cnp_answers_a_ce_packet);
	tcase_add_test(tc, cnp_bad_length);
	suite_add_tcase(s, tc);
	return s;
}

SR_CHECK_MAIN(cnp_suite)
