/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Every malformed frame is rejected with its reason, and the parser never
 * reads past the buffer: each case is parsed from a heap copy of exactly
 * its length, so AddressSanitizer catches any over-read.
 */
#include <stdlib.h>

#include "sr_check.h"
#include "wire/build.h"
#include "wire/icrc.h"
#include "wire_fixture.h"

static uint8_t frame[SR_MAX_PAYLOAD + 256];
static uint8_t payload[SR_MAX_PAYLOAD];

static enum sr_parse_result parse_exact(const uint8_t *f, uint32_t len)
{
	uint8_t *copy = malloc(len ? len : 1);
	struct sr_pkt pkt;
	enum sr_parse_result r;

	ck_assert_ptr_nonnull(copy);
	memcpy(copy, f, len);
	r = sr_parse_eth(copy, len, 0, &pkt);
	free(copy);
	return r;
}

static uint32_t make(uint8_t opcode, bool v6, bool vlan, uint32_t plen,
		     struct sr_pkt *pkt)
{
	struct sr_build b;
	int n;

	fixture_build(&b, opcode, v6, vlan);
	n = sr_build_frame(frame, sizeof(frame), &b, payload, plen);
	ck_assert_int_gt(n, 0);
	ck_assert_int_eq(sr_parse_eth(frame, (uint32_t)n, 0, pkt), SR_PARSE_OK);
	return (uint32_t)n;
}

/* Recompute the IPv4 header checksum after editing the header. */
static void fix_ipv4_csum(uint8_t *ip, unsigned int ihl)
{
	uint32_t sum = 0;
	unsigned int i;

	ip[10] = ip[11] = 0;
	for (i = 0; i < ihl; i += 2)
		sum += (uint32_t)ip[i] << 8 | ip[i + 1];
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	ip[10] = (uint8_t)(~sum >> 8);
	ip[11] = (uint8_t)~sum;
}

START_TEST(truncation_at_every_offset)
{
	static const uint8_t ops[] = { 0x00, 0x0b, 0x11, 0x12, 0x13, 0x65, 0xa6, 0x1c };
	unsigned int i, v;
	uint32_t n, cut;
	struct sr_pkt pkt;

	for (i = 0; i < sizeof(ops); i++) {
		for (v = 0; v < 4; v++) {
			n = make(ops[i], v & 1, v & 2,
				 fixture_payload_len(ops[i], 37), &pkt);
			for (cut = 0; cut < n; cut++) {
				enum sr_parse_result r = parse_exact(frame, cut);

				ck_assert_msg(r != SR_PARSE_OK,
					      "opcode 0x%02x cut at %u accepted",
					      ops[i], cut);
			}
			ck_assert_int_eq(parse_exact(frame, n), SR_PARSE_OK);
		}
	}
}
END_TEST

START_TEST(bad_pad_count)
{
	struct sr_pkt pkt;
	uint32_t n = make(SR_OPCODE(RC, SEND_ONLY), false, false, 0, &pkt);

	frame[pkt.bth + 1] |= 0x30; /* pad 3, with no payload bytes */
	ck_assert_int_eq(parse_exact(frame, n), SR_PARSE_PAD);
	/* A pad count on an ACK, with nothing to pad. */
	n = make(SR_OPCODE(RC, ACKNOWLEDGE), false, false, 0, &pkt);
	frame[pkt.bth + 1] |= 0x10;
	ck_assert_int_eq(parse_exact(frame, n), SR_PARSE_PAD);
	/* No payload is allowed on an ACK: 8 bytes after BTH, 4 past AETH. */
	n = make(SR_OPCODE(RC, SEND_ONLY), false, false, 8, &pkt);
	frame[pkt.bth] = SR_OPCODE(RC, ACKNOWLEDGE);
	ck_assert_int_eq(parse_exact(frame, n), SR_PARSE_PAYLOAD_LEN);
}
END_TEST

START_TEST(wrong_version_pkey_opcode)
{
	struct sr_pkt pkt;
	uint32_t n = make(SR_OPCODE(RC, SEND_ONLY), true, false, 16, &pkt);

	frame[pkt.bth + 1] |= 0x01;
	ck_assert_int_eq(parse_exact(frame, n), SR_PARSE_TVER);
	n = make(SR_OPCODE(RC, SEND_ONLY), true, false, 16, &pkt);
	frame[pkt.bth + 2] = 0x80; /* P_Key 0x8000: invalid */
	frame[pkt.bth + 3] = 0x00;
	ck_assert_int_eq(parse_exact(frame, n), SR_PARSE_PKEY);
	n = make(SR_OPCODE(RC, SEND_ONLY), true, false, 16, &pkt);
	frame[pkt.bth] = 0x15; /* RESYNC: RD only */
	ck_assert_int_eq(parse_exact(frame, n), SR_PARSE_OPCODE);
	n = make(SR_OPCODE(RC, SEND_ONLY), true, false, 16, &pkt);
	frame[pkt.bth] = SR_OPCODE(UC, READ_REQUEST);
	ck_assert_int_eq(parse_exact(frame, n), SR_PARSE_OPCODE);
}
END_TEST

START_TEST(bad_icrc)
{
	struct sr_pkt pkt;
	uint32_t n, i;

	for (i = 0; i < 2; i++) {
		n = make(SR_OPCODE(RC, WRITE_ONLY), i, false, 100, &pkt);
		frame[n - 1] ^= 0x80;
		ck_assert_int_eq(parse_exact(frame, n), SR_PARSE_ICRC);
		n = make(SR_OPCODE(RC, WRITE_ONLY), i, false, 100, &pkt);
		frame[pkt.payload + 50] ^= 1;
		ck_assert_int_eq(parse_exact(frame, n), SR_PARSE_ICRC);
		/* The ICRC check can be left to an offload. */
		ck_assert_int_eq(sr_parse_eth(frame, n, SR_PARSE_NO_ICRC, &pkt),
				 SR_PARSE_OK);
	}
}
END_TEST

START_TEST(ipv4_options_fragments_checksum_lengths)
{
	struct sr_pkt pkt;
	uint8_t *ip;
	uint32_t n = make(SR_OPCODE(RC, SEND_ONLY), false, false, 32, &pkt);
	uint8_t opt[sizeof(frame)];

	/* Insert a 4-byte option (NOP NOP NOP EOL) after the IPv4 header. */
	memcpy(opt, frame, pkt.l3 + 20);
	memset(opt + pkt.l3 + 20, 1, 3);
	opt[pkt.l3 + 23] = 0;
	memcpy(opt + pkt.l3 + 24, frame + pkt.l3 + 20, n - pkt.l3 - 20);
	ip = opt + pkt.l3;
	ip[0] = 0x46;
	ip[3] += 4;
	fix_ipv4_csum(ip, 24);
	ck_assert_int_eq(parse_exact(opt, n + 4), SR_PARSE_IPV4_OPTIONS);

	n = make(SR_OPCODE(RC, SEND_ONLY), false, false, 32, &pkt);
	ip = frame + pkt.l3;
	ip[6] |= 0x20; /* more fragments */
	fix_ipv4_csum(ip, 20);
	ck_assert_int_eq(parse_exact(frame, n), SR_PARSE_IPV4_FRAGMENT);

	n = make(SR_OPCODE(RC, SEND_ONLY), false, false, 32, &pkt);
	frame[pkt.l3 + 10] ^= 0x11;
	ck_assert_int_eq(parse_exact(frame, n), SR_PARSE_IPV4_CSUM);

	n = make(SR_OPCODE(RC, SEND_ONLY), false, false, 32, &pkt);
	ip = frame + pkt.l3;
	ip[3] -= 4; /* IP shorter than UDP says */
	fix_ipv4_csum(ip, 20);
	ck_assert_int_eq(parse_exact(frame, n), SR_PARSE_UDP_LEN);

	n = make(SR_OPCODE(RC, SEND_ONLY), false, false, 32, &pkt);
	ip = frame + pkt.l3;
	ip[3] += 8; /* IP longer than the frame */
	fix_ipv4_csum(ip, 20);
	ck_assert_int_eq(parse_exact(frame, n), SR_PARSE_RUNT);

	n = make(SR_OPCODE(RC, SEND_ONLY), false, false, 32, &pkt);
	frame[pkt.l3] = 0x65; /* IPv6 version in an IPv4 EtherType */
	ck_assert_int_eq(parse_exact(frame, n), SR_PARSE_IP_VERSION);
}
END_TEST

START_TEST(ipv6_extension_headers)
{
	struct sr_pkt pkt;
	uint32_t n = make(SR_OPCODE(RC, SEND_ONLY), true, false, 32, &pkt);
	uint8_t ext[sizeof(frame)];
	uint8_t *ip;

	/* Insert an 8-byte hop-by-hop header (next = UDP, PadN). */
	memcpy(ext, frame, pkt.l3 + 40);
	ext[pkt.l3 + 40] = 17;
	ext[pkt.l3 + 41] = 0;
	ext[pkt.l3 + 42] = 1;
	ext[pkt.l3 + 43] = 4;
	memset(ext + pkt.l3 + 44, 0, 4);
	memcpy(ext + pkt.l3 + 48, frame + pkt.l3 + 40, n - pkt.l3 - 40);
	ip = ext + pkt.l3;
	ip[6] = 0; /* next header: hop-by-hop */
	ip[5] += 8;
	ck_assert_int_eq(parse_exact(ext, n + 8), SR_PARSE_IPV6_EXT);
	/* The same behind a header that leads to TCP is simply not RoCE. */
	ext[pkt.l3 + 40] = 6;
	ck_assert_int_eq(parse_exact(ext, n + 8), SR_PARSE_NOT_UDP);

	n = make(SR_OPCODE(RC, SEND_ONLY), true, false, 32, &pkt);
	frame[pkt.l3 + 5] += 4; /* payload length past the frame */
	ck_assert_int_eq(parse_exact(frame, n), SR_PARSE_RUNT);
}
END_TEST

/*
 * An IPv4-mapped address (::ffff:a.b.c.d, the GID of an IPv4 address) in
 * an IPv6 header, source or destination, with a correct ICRC: refused.
 * Accepted, it would be described (struct sr_build) as IPv4 and answered
 * over IPv4 (the round trip the parse fuzzer checks fails).
 */
START_TEST(ipv6_mapped_addresses)
{
	static const uint8_t mapped[16] = { [10] = 0xff, [11] = 0xff,
					    10, 0, 0, 1 };
	struct sr_pkt pkt;

	for (int which = 8; which <= 24; which += 16) {   /* source, dest */
		uint32_t n = make(SR_OPCODE(RC, SEND_ONLY), true, false, 32,
				  &pkt);
		uint8_t *ip = frame + pkt.l3;

		memcpy(ip + which, mapped, 16);
		sr_icrc_store(frame + pkt.end,
			      sr_icrc_calc(ip, true, pkt.end - pkt.l3));
		ck_assert_int_eq(parse_exact(frame, n), SR_PARSE_IPV6_MAPPED);
		/* one byte off the mapped prefix: an IPv6 address again */
		ip[which + 9] = 0x01;
		sr_icrc_store(frame + pkt.end,
			      sr_icrc_calc(ip, true, pkt.end - pkt.l3));
		ck_assert_int_eq(parse_exact(frame, n), SR_PARSE_OK);
	}
}
END_TEST

START_TEST(not_roce_frames)
{
	struct sr_pkt pkt;
	uint32_t n = make(SR_OPCODE(RC, SEND_ONLY), false, false, 32, &pkt);

	frame[pkt.l4 + 3] = 0xb6; /* port 4790 */
	ck_assert_int_eq(parse_exact(frame, n), SR_PARSE_NOT_ROCE_PORT);
	ck_assert(!sr_parse_result_is_roce(SR_PARSE_NOT_ROCE_PORT));
	n = make(SR_OPCODE(RC, SEND_ONLY), false, false, 32, &pkt);
	frame[pkt.l3 + 9] = 6;
	fix_ipv4_csum(frame + pkt.l3, 20);
	ck_assert_int_eq(parse_exact(frame, n), SR_PARSE_NOT_UDP);
	frame[12] = 0x08;
	frame[13] = 0x06; /* ARP */
	ck_assert_int_eq(parse_exact(frame, n), SR_PARSE_NOT_IP);
}
END_TEST

START_TEST(runt_and_oversize)
{
	struct sr_pkt pkt;
	uint32_t n;
	uint8_t big[sizeof(frame) + 16];

	ck_assert_int_eq(parse_exact(frame, 0), SR_PARSE_RUNT);
	ck_assert_int_eq(parse_exact(frame, 10), SR_PARSE_RUNT);
	/* UDP says 8 bytes: no room for a BTH. */
	n = make(SR_OPCODE(RC, SEND_ONLY), true, false, 0, &pkt);
	frame[pkt.l3 + 4] = 0;
	frame[pkt.l3 + 5] = 8;
	frame[pkt.l4 + 4] = 0;
	frame[pkt.l4 + 5] = 8;
	ck_assert_int_eq(parse_exact(frame, n), SR_PARSE_RUNT);
	/* 4100 payload bytes: more than any path MTU. */
	n = make(SR_OPCODE(RC, SEND_ONLY), true, false, 4096, &pkt);
	memcpy(big, frame, n);
	memmove(big + pkt.end + 4, big + pkt.end, 4);
	memset(big + pkt.end, 0, 4);
	big[pkt.l3 + 5] += 4;
	big[pkt.l4 + 5] += 4;
	ck_assert_int_eq(parse_exact(big, n + 4), SR_PARSE_OVERSIZE);
	/* An ATOMIC WRITE carries exactly 8 bytes. */
	n = make(SR_OPCODE(RC, ATOMIC_WRITE), true, false, 8, &pkt);
	frame[pkt.l3 + 5] -= 4;
	frame[pkt.l4 + 5] -= 4;
	ck_assert_int_eq(parse_exact(frame, n - 4), SR_PARSE_PAYLOAD_LEN);
}
END_TEST

/* Random corruption of valid frames: never a crash, never an over-read. */
START_TEST(random_mutations)
{
	struct sr_pkt pkt;
	unsigned int seed = 12345, i;

	for (i = 0; i < 20000; i++) {
		uint8_t opc = (uint8_t)(rand_r(&seed) & 0xff);
		uint32_t n, k, flips;

		if (!sr_opcode_info(opc))
			continue;
		n = make(opc, rand_r(&seed) & 1, rand_r(&seed) & 1,
			 fixture_payload_len(opc, (uint32_t)rand_r(&seed) % 300), &pkt);
		flips = 1 + (uint32_t)rand_r(&seed) % 4;
		for (k = 0; k < flips; k++)
			frame[(uint32_t)rand_r(&seed) % n] ^=
				(uint8_t)(1u << (rand_r(&seed) % 8));
		(void)parse_exact(frame, (uint32_t)rand_r(&seed) % (n + 1));
		(void)parse_exact(frame, n);
	}
}
END_TEST

static Suite *malformed_suite(void)
{
	Suite *s = suite_create("wire_malformed");
	TCase *tc = tcase_create("reject");

	tcase_add_test(tc, truncation_at_every_offset);
	tcase_add_test(tc, bad_pad_count);
	tcase_add_test(tc, wrong_version_pkey_opcode);
	tcase_add_test(tc, bad_icrc);
	tcase_add_test(tc, ipv4_options_fragments_checksum_lengths);
	tcase_add_test(tc, ipv6_extension_headers);
	tcase_add_test(tc, ipv6_mapped_addresses);
	tcase_add_test(tc, not_roce_frames);
	tcase_add_test(tc, runt_and_oversize);
	tcase_add_test(tc, random_mutations);
	tcase_set_timeout(tc, 60);
	suite_add_tcase(s, tc);
	return s;
}

SR_CHECK_MAIN(malformed_suite)
