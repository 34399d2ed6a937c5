/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Builder and parser are inverses: for every opcode, IPv4 and IPv6, with and
 * without VLAN, every pad count: build, parse, describe again, compare.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sr_check.h"
#include "wire/build.h"
#include "wire/icrc.h"
#include "wire_fixture.h"

static uint8_t frame[SR_MAX_PAYLOAD + 256];
static uint8_t frame2[SR_MAX_PAYLOAD + 256];
static uint8_t payload[SR_MAX_PAYLOAD];

static void fill_payload(void)
{
	unsigned int i;

	for (i = 0; i < sizeof(payload); i++)
		payload[i] = (uint8_t)(i * 7 + 3);
}

START_TEST(every_opcode_round_trips)
{
	static const uint32_t lens[] = { 0, 1, 2, 3, 4, 63, 1024, 4095, 4096 };
	unsigned int opc, li, variant;
	int frames = 0;

	fill_payload();
	for (opc = 0; opc < 256; opc++) {
		if (sr_opcode_info((uint8_t)opc) == NULL)
			continue;
		for (variant = 0; variant < 4; variant++) {
			for (li = 0; li < sizeof(lens) / sizeof(lens[0]); li++) {
				struct sr_build b, back;
				struct sr_pkt pkt;
				uint32_t plen = fixture_payload_len((uint8_t)opc, lens[li]);
				int n;

				fixture_build(&b, (uint8_t)opc, variant & 1, variant & 2);
				n = sr_build_frame(frame, sizeof(frame), &b, payload, plen);
				ck_assert_int_gt(n, 0);
				ck_assert_uint_eq((uint32_t)n, sr_build_frame_len(&b, plen));
				ck_assert_int_eq(sr_parse_eth(frame, (uint32_t)n, 0, &pkt),
						 SR_PARSE_OK);
				ck_assert_uint_eq(pkt.payload_len, plen);
				ck_assert_uint_eq(pkt.pad, (4 - plen % 4) % 4);
				ck_assert_mem_eq(sr_pkt_payload(&pkt), payload, plen);
				sr_build_from_pkt(&back, &pkt);
				/* Headers the opcode lacks are not on the wire. */
				ck_assert_uint_eq(back.opcode, b.opcode);
				ck_assert_uint_eq(back.psn, b.psn);
				ck_assert_uint_eq(back.dqpn, b.dqpn);
				ck_assert_mem_eq(back.sgid, b.sgid, 16);
				ck_assert_mem_eq(back.dgid, b.dgid, 16);
				ck_assert_uint_eq(back.vlan_tci, b.vlan_tci);
				if (pkt.ext[SR_EXT_RETH])
					ck_assert_uint_eq(back.reth_va, b.reth_va);
				if (pkt.ext[SR_EXT_ATMETH])
					ck_assert_uint_eq(back.atm_cmp, b.atm_cmp);
				if (pkt.ext[SR_EXT_IMMDT])
					ck_assert_uint_eq(back.imm, b.imm);
				if (pkt.ext[SR_EXT_DETH])
					ck_assert_uint_eq(back.deth_sqpn, b.deth_sqpn);
				/* Rebuilt from the parsed description: identical bytes. */
				ck_assert_int_eq(sr_build_frame(frame2, sizeof(frame2),
								&back, payload, plen), n);
				ck_assert_mem_eq(frame2, frame, (size_t)n);
				frames++;
			}
		}
	}
	ck_assert_int_gt(frames, 2000);
}
END_TEST

START_TEST(icrc_continues_across_segments)
{
	struct sr_build b;
	struct sr_pkt pkt;
	uint32_t crc, whole;
	int n;

	fill_payload();
	fixture_build(&b, SR_OPCODE(RC, SEND_MIDDLE), false, false);
	n = sr_build_frame(frame, sizeof(frame), &b, payload, 4096);
	ck_assert_int_eq(sr_parse_eth(frame, (uint32_t)n, 0, &pkt), SR_PARSE_OK);
	whole = sr_pkt_icrc_calc(&pkt);
	crc = sr_icrc_hdr(frame + pkt.l3, false);
	crc = sr_icrc_update(crc, frame + pkt.payload, 1000);
	crc = sr_icrc_update(crc, frame + pkt.payload + 1000, 3096);
	ck_assert_uint_eq(crc, whole);
	ck_assert_uint_eq(whole, sr_pkt_icrc_stored(&pkt));
}
END_TEST

/*
 * The payload by reference (three pieces: headers, payload where it is,
 * pad and ICRC) puts the same bytes on the wire as the whole-frame
 * builder, for every opcode with a payload, both IP versions, with and
 * without VLAN, every pad count; the header buffer need only hold them.
 */
START_TEST(by_reference_same_bytes)
{
	static const uint32_t lens[] = { 1, 2, 3, 4, 63, 1024, 4095, 4096 };
	uint8_t hdr[128], tail[SR_BUILD_TAIL_MAX];
	unsigned int opc, li, variant;
	int frames = 0;

	fill_payload();
	for (opc = 0; opc < 256; opc++) {
		const struct sr_opcode_info *op = sr_opcode_info((uint8_t)opc);

		if (op == NULL || !(op->flags & SR_OPF_PAYLOAD))
			continue;
		for (variant = 0; variant < 4; variant++) {
			for (li = 0; li < sizeof(lens) / sizeof(lens[0]); li++) {
				uint32_t plen = fixture_payload_len((uint8_t)opc, lens[li]);
				struct sr_build b;
				struct sr_pkt pkt;
				uint32_t t;
				int n, off;

				if (plen == 0)
					continue;
				fixture_build(&b, (uint8_t)opc, variant & 1, variant & 2);
				n = sr_build_frame(frame, sizeof(frame), &b, payload, plen);
				ck_assert_int_gt(n, 0);
				off = sr_build_hdrs_ref(hdr, sizeof(hdr), &b, plen, &pkt);
				ck_assert_int_gt(off, 0);
				/* exactly the headers: one byte less is refused */
				ck_assert_int_eq(sr_build_hdrs_ref(hdr, (uint32_t)off - 1,
								   &b, plen, NULL), -ENOSPC);
				t = sr_build_finish_ref(hdr, &pkt, payload, tail);
				ck_assert_uint_eq((uint32_t)off + plen + t, (uint32_t)n);
				ck_assert_mem_eq(hdr, frame, (size_t)off);
				ck_assert_mem_eq(frame + off, payload, plen);
				ck_assert_mem_eq(tail, frame + off + plen, t);
				frames++;
			}
		}
	}
	ck_assert_int_gt(frames, 500);
}
END_TEST

/* IPv4 addresses, TOS and TTL of all ones: a header sum that carries. */
static void fixture_all_ones(struct sr_build *b, bool on)
{
	if (!on)
		return;
	memset(b->sgid + 12, 0xff, 4);
	memset(b->dgid + 12, 0xff, 3);
	b->dgid[15] = 0xfe;
	b->tclass = 0xff;
	b->hop_limit = 0xff;
}

/*
 * A connection's template (its fixed header bytes, made once from a
 * packet of another opcode, PSN and IPv4 ID) gives the bytes and the
 * layout the field-by-field builder gives, for every opcode, both IP
 * versions, with and without VLAN, every pad count, and IPv4 IDs whose
 * checksums carry (0, 0xffff and random ones; and addresses of all ones,
 * whose sum carries twice), whole and by reference.
 */
START_TEST(template_same_bytes)
{
	static const uint32_t lens[] = { 0, 1, 3, 4, 63, 4096 };
	static const uint16_t ids[] = { 0, 0xffff, 0x8000, 0x7fff };
	uint8_t hdr[128], hdr2[128];
	unsigned int opc, li, variant, k;
	int frames = 0;

	fill_payload();
	srand(21);
	for (variant = 0; variant < 5; variant++) {
		struct sr_build_tmpl t;
		struct sr_build proto;

		fixture_build(&proto, SR_OPCODE(RC, ACKNOWLEDGE), variant & 1,
			      variant & 2);
		fixture_all_ones(&proto, variant == 4);
		proto.ip_id = 0x4242;
		proto.psn = 7;
		sr_build_tmpl_init(&t, &proto);
		for (opc = 0; opc < 256; opc++) {
			if (sr_opcode_info((uint8_t)opc) == NULL)
				continue;
			for (li = 0; li < sizeof(lens) / sizeof(lens[0]); li++) {
				for (k = 0; k < 6; k++) {
					uint32_t plen = fixture_payload_len((uint8_t)opc,
									    lens[li]);
					struct sr_build b, bt;
					struct sr_pkt p1, p2;
					int n, n2;

					fixture_build(&b, (uint8_t)opc, variant & 1,
						      variant & 2);
					fixture_all_ones(&b, variant == 4);
					b.ip_id = k < 4 ? ids[k] : (uint16_t)rand();
					b.psn = (uint32_t)rand() & 0xffffff;
					b.ackreq = k & 1;
					b.se = k & 2;
					bt = b;
					bt.tmpl = &t;
					ck_assert_uint_eq(sr_build_frame_len(&bt, plen),
							  sr_build_frame_len(&b, plen));
					n = sr_build_frame(frame, sizeof(frame), &b,
							   payload, plen);
					n2 = sr_build_frame(frame2, sizeof(frame2), &bt,
							    payload, plen);
					ck_assert_int_gt(n, 0);
					ck_assert_int_eq(n2, n);
					ck_assert_mem_eq(frame2, frame, (size_t)n);
					n = sr_build_hdrs_ref(hdr, sizeof(hdr), &b,
							      plen, &p1);
					n2 = sr_build_hdrs_ref(hdr2, sizeof(hdr2), &bt,
							       plen, &p2);
					ck_assert_int_eq(n2, n);
					ck_assert_mem_eq(hdr2, hdr, (size_t)n);
					p2.frame = p1.frame;
					ck_assert_mem_eq(&p2, &p1, sizeof(p1));
					frames++;
				}
			}
		}
	}
	ck_assert_int_gt(frames, 5 * 64 * 6 * 6);
	/* every IPv4 ID: each checksum the fold can meet */
	for (variant = 0; variant < 2; variant++) {
		struct sr_build_tmpl t;
		struct sr_build b, bt;

		fixture_build(&b, SR_OPCODE(RC, SEND_ONLY), false, false);
		fixture_all_ones(&b, variant == 1);
		sr_build_tmpl_init(&t, &b);
		bt = b;
		bt.tmpl = &t;
		for (uint32_t id = 0; id <= 0xffff; id++) {
			b.ip_id = bt.ip_id = (uint16_t)id;
			ck_assert_int_gt(sr_build_hdrs(frame, sizeof(frame), &b,
						       63, NULL), 0);
			ck_assert_int_gt(sr_build_hdrs(frame2, sizeof(frame2), &bt,
						       63, NULL), 0);
			ck_assert_mem_eq(frame2, frame, 64);
		}
	}
}
END_TEST

/* CRC-32 (IEEE, reflected), one bit at a time: the definition. */
static uint32_t crc32_bitwise(const uint8_t *p, size_t n)
{
	uint32_t c = 0xffffffffu;

	for (size_t i = 0; i < n; i++) {
		c ^= p[i];
		for (int k = 0; k < 8; k++)
			c = (c >> 1) ^ (0xedb88320u & (0u - (c & 1u)));
	}
	return ~c;
}

/*
 * The ICRC of every packet length from a bare SEND to 300 payload bytes,
 * IPv4 and IPv6 (short packets take a zero-padded path, longer ones a
 * prefix and the rest in place) equals the Annex A17 definition computed
 * bit by bit over 8 0xFF bytes and the masked packet.
 */
START_TEST(icrc_matches_bitwise_definition)
{
	static uint8_t ref[8 + SR_MAX_PAYLOAD + 256];

	fill_payload();
	for (unsigned int v6 = 0; v6 < 2; v6++) {
		for (uint32_t plen = 0; plen <= 300; plen++) {
			struct sr_build b;
			struct sr_pkt pkt;
			uint32_t n, ip;
			int len;

			fixture_build(&b, SR_OPCODE(RC, SEND_ONLY), v6, false);
			len = sr_build_frame(frame, sizeof(frame), &b, payload, plen);
			ck_assert_int_gt(len, 0);
			ck_assert_int_eq(sr_parse_eth(frame, (uint32_t)len, 0, &pkt),
					 SR_PARSE_OK);
			n = pkt.end - pkt.l3;
			memset(ref, 0xff, 8);
			memcpy(ref + 8, frame + pkt.l3, n);
			ip = 8;
			if (v6) {
				ref[ip] |= 0x0f;                 /* traffic class, */
				memset(ref + ip + 1, 0xff, 3);   /* flow label */
				ref[ip + 7] = 0xff;              /* hop limit */
				ip += 40;
			} else {
				ref[ip + 1] = 0xff;              /* TOS */
				ref[ip + 8] = 0xff;              /* TTL */
				ref[ip + 10] = ref[ip + 11] = 0xff;   /* checksum */
				ip += 20;
			}
			ref[ip + 6] = ref[ip + 7] = 0xff;   /* UDP checksum */
			ref[ip + 8 + 4] = 0xff;             /* BTH FECN/BECN/resv */
			ck_assert_uint_eq(sr_icrc_calc(frame + pkt.l3, v6, n),
					  crc32_bitwise(ref, 8 + (size_t)n));
			ck_assert_uint_eq(sr_pkt_icrc_stored(&pkt),
					  crc32_bitwise(ref, 8 + (size_t)n));
		}
	}
}
END_TEST

/* Fields the ICRC masks do not change it; a field it covers does. */
START_TEST(icrc_masks_variant_fields)
{
	struct sr_build b;
	struct sr_pkt pkt;
	uint32_t icrc;
	int n;

	for (int v6 = 0; v6 < 2; v6++) {
		fixture_build(&b, SR_OPCODE(RC, WRITE_ONLY), v6, false);
		n = sr_build_frame(frame, sizeof(frame), &b, payload, 64);
		ck_assert_int_eq(sr_parse_eth(frame, (uint32_t)n, 0, &pkt), SR_PARSE_OK);
		icrc = sr_pkt_icrc_stored(&pkt);
		if (v6) {
			frame[pkt.l3 + 1] ^= 0xff; /* traffic class, flow label */
			frame[pkt.l3 + 7] ^= 0x0f; /* hop limit */
		} else {
			frame[pkt.l3 + 1] ^= 0x03; /* ECN */
			frame[pkt.l3 + 8] -= 1;    /* TTL */
			frame[pkt.l3 + 10] ^= 0xff; /* checksum */
		}
		frame[pkt.l4 + 6] ^= 0x5a;    /* UDP checksum */
		frame[pkt.bth + 4] ^= 0xc0;   /* FECN, BECN */
		ck_assert_uint_eq(sr_pkt_icrc_calc(&pkt), icrc);
		frame[pkt.bth + 11] ^= 1;     /* PSN */
		ck_assert_uint_ne(sr_pkt_icrc_calc(&pkt), icrc);
	}
}
END_TEST

START_TEST(builder_refuses_bad_requests)
{
	struct sr_build b;

	fixture_build(&b, SR_OPCODE(RC, ACKNOWLEDGE), false, false);
	ck_assert_int_eq(sr_build_frame(frame, sizeof(frame), &b, payload, 4), -EINVAL);
	fixture_build(&b, 0x15, false, false);
	ck_assert_int_eq(sr_build_frame(frame, sizeof(frame), &b, payload, 0), -EINVAL);
	fixture_build(&b, SR_OPCODE(RC, SEND_ONLY), false, false);
	ck_assert_int_eq(sr_build_frame(frame, sizeof(frame), &b, payload, 4097), -EINVAL);
	ck_assert_int_eq(sr_build_frame(frame, 60, &b, payload, 64), -ENOSPC);
}
END_TEST

static Suite *build_parse_suite(void)
{
	Suite *s = suite_create("wire_build_parse");
	TCase *tc = tcase_create("round_trip");

	tcase_add_test(tc, every_opcode_round_trips);
	tcase_add_test(tc, icrc_continues_across_segments);
	tcase_add_test(tc, by_reference_same_bytes);
	tcase_add_test(tc, template_same_bytes);
	tcase_add_test(tc, icrc_matches_bitwise_definition);
	tcase_add_test(tc, icrc_masks_variant_fields);
	tcase_add_test(tc, builder_refuses_bad_requests);
	suite_add_tcase(s, tc);
	return s;
}

SR_CHECK_MAIN(build_parse_suite)
