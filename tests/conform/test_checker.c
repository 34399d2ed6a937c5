/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_checker.c — sroce-conform's checkers field by field (suites conform
 * and unit: no DPDK, also under the sanitizers).  For each field a step
 * can check, a frame (or completion, memory, QP state) that matches it
 * passes, and the same answer with only that field wrong fails with a
 * reason that names the field.
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "../unit/sr_check.h"
#include "checker.h"
#include "scfile.h"
#include "wire/build.h"

#define F(x) (1u << SC_F_##x)

static const struct sc_ctx ctx = {
	.tpsn = 1000, .dpsn = 5000, .tqpn = 0xc001, .dqpn = 0x42,
	.rkey = 0x1234, .va = 0x7f0000001000ull,
};

static uint8_t frame[9216];

/* A frame of the DUT's to the tester: b filled by the caller. */
static uint32_t build(struct sr_build *b, uint32_t pay, uint32_t pattern,
		      uint32_t off)
{
	uint8_t p[4096] = { 0 };
	int n;

	b->hop_limit = 64;
	b->pkey = 0xffff;
	b->sport = 0xc000;
	b->dqpn = b->dqpn ? b->dqpn : ctx.tqpn;
	memcpy(b->sgid, (uint8_t[16]){ [10] = 0xff, [11] = 0xff, 10, 0, 0, 1 }, 16);
	memcpy(b->dgid, (uint8_t[16]){ [10] = 0xff, [11] = 0xff, 10, 0, 0, 2 }, 16);
	for (uint32_t i = 0; i < pay; i++)
		p[i] = sc_pattern(pattern, off + i);
	n = sr_build_frame(frame, sizeof(frame), b, p, pay);
	ck_assert_int_gt(n, 0);
	return (uint32_t)n;
}

static void pass(const struct sc_step *st, uint32_t len)
{
	char why[256] = "";

	ck_assert_msg(sc_check_frame(st, &ctx, frame, len, why, sizeof(why)),
		      "good answer refused: %s", why);
}

static void refuse(const struct sc_step *st, uint32_t len, const char *word)
{
	char why[256] = "";

	ck_assert(!sc_check_frame(st, &ctx, frame, len, why, sizeof(why)));
	ck_assert_msg(strstr(why, word) != NULL, "reason '%s' does not name %s",
		      why, word);
}

/* An ACK the responder sends: opcode, PSN, AETH, MSN, destination QP. */
START_TEST(ack_fields)
{
	struct sc_step st = {
		.kind = SC_EXPECT, .opcode = SR_OPCODE(RC, ACKNOWLEDGE),
		.has = F(PSN) | F(AETH) | F(MSN), .psn = 2,
		.aeth = SR_AETH_NAK | SR_NAK_PSN_SEQ_ERR, .msn = 7,
	};
	struct sr_build good = {
		.opcode = SR_OPCODE(RC, ACKNOWLEDGE), .psn = 1002,
		.aeth_syndrome = SR_AETH_NAK | SR_NAK_PSN_SEQ_ERR, .aeth_msn = 7,
	}, b;
	uint32_t n;

	b = good;
	pass(&st, build(&b, 0, 0, 0));
	b = good; b.opcode = SR_OPCODE(RC, ATOMIC_ACKNOWLEDGE);
	refuse(&st, build(&b, 0, 0, 0), "opcode");
	b = good; b.psn = 1003;
	refuse(&st, build(&b, 0, 0, 0), "PSN");
	b = good; b.aeth_syndrome = SR_AETH_NAK | SR_NAK_INVALID_REQ;
	refuse(&st, build(&b, 0, 0, 0), "AETH");
	b = good; b.aeth_msn = 8;
	refuse(&st, build(&b, 0, 0, 0), "MSN");
	b = good; b.dqpn = 0xc002;
	refuse(&st, build(&b, 0, 0, 0), "QP");
	/* a broken ICRC is a malformed frame, whatever the fields */
	b = good;
	n = build(&b, 0, 0, 0);
	frame[n - 1] ^= 1;
	refuse(&st, n, "malformed");
	/* aeth=ack takes any credit count, aeth=rnr any timer */
	st.aeth = SC_AETH_ACK_ANY;
	b = good; b.aeth_syndrome = 0x1f;
	pass(&st, build(&b, 0, 0, 0));
	b = good; b.aeth_syndrome = 0x05;
	pass(&st, build(&b, 0, 0, 0));
	b = good; b.aeth_syndrome = SR_AETH_RNR_NAK | 3;
	refuse(&st, build(&b, 0, 0, 0), "AETH");
	st.aeth = SC_AETH_ANY_RNR;
	pass(&st, build(&b, 0, 0, 0));
}
END_TEST

/* A request of the DUT's: RETH, AckReq, payload length and bytes. */
START_TEST(write_fields)
{
	struct sc_step st = {
		.kind = SC_EXPECT, .opcode = SR_OPCODE(RC, WRITE_FIRST),
		.has = F(PSN) | F(VA) | F(RKEY) | F(LEN) | F(PAYLOAD) |
		       F(PATTERN) | F(OFF),
		.psn = 0, .va = 0x10000, .rkey = 0x1234, .len = 2500,
		.payload = 1024, .pattern = 3, .off = 0,
	};
	struct sr_build good = {
		.opcode = SR_OPCODE(RC, WRITE_FIRST), .psn = 5000,
		.reth_va = 0x10000, .reth_rkey = 0x1234, .reth_len = 2500,
	}, b;
	uint32_t n;

	b = good;
	pass(&st, build(&b, 1024, 3, 0));
	b = good; b.reth_va = 0x10008;
	refuse(&st, build(&b, 1024, 3, 0), "VA");
	b = good; b.reth_rkey = 0x1235;
	refuse(&st, build(&b, 1024, 3, 0), "R_Key");
	b = good; b.reth_len = 2048;
	refuse(&st, build(&b, 1024, 3, 0), "DMA length");
	b = good;
	refuse(&st, build(&b, 512, 3, 0), "payload of 512");
	b = good;
	refuse(&st, build(&b, 1024, 3, 1), "payload byte 0");
	b = good;
	n = build(&b, 1024, 3, 0);
	st.has |= F(ACKREQ);
	refuse(&st, n, "AckReq");
	b = good; b.ackreq = true;
	pass(&st, build(&b, 1024, 3, 0));
}
END_TEST

/* Atomics both ways, immediate data, the DETH's Q_Key. */
START_TEST(atomic_imm_qkey_fields)
{
	struct sc_step st = {
		.kind = SC_EXPECT, .opcode = SR_OPCODE(RC, COMPARE_SWAP),
		.has = F(VA) | F(SWAP) | F(CMP), .va = 0x10008, .swap = 6,
		.cmp = 5,
	};
	struct sr_build good = {
		.opcode = SR_OPCODE(RC, COMPARE_SWAP), .psn = 5000,
		.atm_va = 0x10008, .atm_rkey = 1, .atm_swap_add = 6, .atm_cmp = 5,
	}, b;

	b = good;
	pass(&st, build(&b, 0, 0, 0));
	b = good; b.atm_swap_add = 7;
	refuse(&st, build(&b, 0, 0, 0), "swap/add");
	b = good; b.atm_cmp = 4;
	refuse(&st, build(&b, 0, 0, 0), "compare");
	b = good; b.atm_va = 0x10010;
	refuse(&st, build(&b, 0, 0, 0), "AtomicETH VA");

	st = (struct sc_step){ .kind = SC_EXPECT,
			       .opcode = SR_OPCODE(RC, ATOMIC_ACKNOWLEDGE),
			       .has = F(ORIG), .orig = 41 };
	b = (struct sr_build){ .opcode = SR_OPCODE(RC, ATOMIC_ACKNOWLEDGE),
			       .psn = 1000, .aeth_syndrome = 0x1f,
			       .atmack_orig = 41 };
	pass(&st, build(&b, 0, 0, 0));
	b.atmack_orig = 42;
	refuse(&st, build(&b, 0, 0, 0), "original data");

	st = (struct sc_step){ .kind = SC_EXPECT,
			       .opcode = SR_OPCODE(RC, SEND_ONLY_IMM),
			       .has = F(IMM), .imm = 0xcafe };
	b = (struct sr_build){ .opcode = SR_OPCODE(RC, SEND_ONLY_IMM),
			       .psn = 5000, .imm = 0xcafe };
	pass(&st, build(&b, 8, 0, 0));
	b.imm = 0xcaff;
	refuse(&st, build(&b, 8, 0, 0), "immediate");

	st = (struct sc_step){ .kind = SC_EXPECT,
			       .opcode = SR_OPCODE(UD, SEND_ONLY),
			       .has = F(QKEY), .qkey = 0x11111111 };
	b = (struct sr_build){ .opcode = SR_OPCODE(UD, SEND_ONLY),
			       .deth_qkey = 0x11111111, .deth_sqpn = 0x42 };
	pass(&st, build(&b, 8, 0, 0));
	b.deth_qkey = 0x22222222;
	refuse(&st, build(&b, 8, 0, 0), "Q_Key");
}
END_TEST

/* What may be passed over while a step waits, and what may not. */
START_TEST(skippable)
{
	struct sc_step ack = {
		.kind = SC_EXPECT, .opcode = SR_OPCODE(RC, ACKNOWLEDGE),
		.has = F(PSN), .psn = 2,
	};
	struct sc_step req = {
		.kind = SC_EXPECT, .opcode = SR_OPCODE(RC, WRITE_ONLY),
		.has = F(PSN), .psn = 1,
	};
	struct sr_build b;
	uint32_t n;

	b = (struct sr_build){ .opcode = SR_OPCODE(RC, ACKNOWLEDGE), .psn = 1001,
			       .aeth_syndrome = 0x1f };
	n = build(&b, 0, 0, 0);
	ck_assert(sc_frame_skippable(&ack, &ctx, frame, n));   /* earlier ACK */
	b.psn = 1002;
	n = build(&b, 0, 0, 0);
	ck_assert(!sc_frame_skippable(&ack, &ctx, frame, n));  /* the one */
	b.psn = 1001;
	b.aeth_syndrome = SR_AETH_NAK;
	n = build(&b, 0, 0, 0);
	ck_assert(!sc_frame_skippable(&ack, &ctx, frame, n));  /* a NAK never */
	b = (struct sr_build){ .opcode = SR_OPCODE(RC, WRITE_ONLY), .psn = 5000,
			       .reth_len = 8 };
	n = build(&b, 8, 0, 0);
	ck_assert(sc_frame_skippable(&req, &ctx, frame, n));   /* a resend */
	b.psn = 5001;
	n = build(&b, 8, 0, 0);
	ck_assert(!sc_frame_skippable(&req, &ctx, frame, n));
	b.dqpn = 0x999;
	n = build(&b, 8, 0, 0);
	ck_assert(sc_frame_skippable(&req, &ctx, frame, n));   /* another QP */
}
END_TEST

START_TEST(cqe_mem_state)
{
	struct sc_step st = { .kind = SC_CQE,
			      .has = F(STATUS) | F(WC_OP) | F(LEN) | F(IMM),
			      .status = 0, .wc_op = 128, .len = 16, .imm = 5 };
	struct sc_cqe good = { .status = 0, .opcode = 128, .len = 16, .imm = 5 }, c;
	uint8_t mem[64];
	char why[256];

	c = good;
	ck_assert(sc_check_cqe(&st, &c, why, sizeof(why)));
	c = good; c.status = 5;
	ck_assert(!sc_check_cqe(&st, &c, why, sizeof(why)));
	ck_assert(strstr(why, "WR_FLUSH_ERR") != NULL);
	c = good; c.opcode = 129;
	ck_assert(!sc_check_cqe(&st, &c, why, sizeof(why)));
	ck_assert(strstr(why, "opcode") != NULL);
	c = good; c.len = 17;
	ck_assert(!sc_check_cqe(&st, &c, why, sizeof(why)));
	ck_assert(strstr(why, "byte_len") != NULL);
	c = good; c.imm = 6;
	ck_assert(!sc_check_cqe(&st, &c, why, sizeof(why)));
	ck_assert(strstr(why, "immediate") != NULL);

	st = (struct sc_step){ .kind = SC_MEM, .has = F(OFF) | F(LEN) | F(PATTERN),
			       .off = 8, .len = 64, .pattern = 4 };
	for (uint32_t i = 0; i < 64; i++)
		mem[i] = sc_pattern(4, i);
	ck_assert(sc_check_mem(&st, mem, 64, why, sizeof(why)));
	mem[63] ^= 1;
	ck_assert(!sc_check_mem(&st, mem, 64, why, sizeof(why)));
	ck_assert(strstr(why, "+71") != NULL);           /* off 8 + 63 */
	ck_assert(!sc_check_mem(&st, mem, 63, why, sizeof(why)));

	st = (struct sc_step){ .kind = SC_MEM, .has = F(OFF) | F(ORIG), .orig = 15 };
	uint64_t v = 15;
	memcpy(mem, &v, 8);
	ck_assert(sc_check_mem(&st, mem, 8, why, sizeof(why)));
	v = 20;
	memcpy(mem, &v, 8);
	ck_assert(!sc_check_mem(&st, mem, 8, why, sizeof(why)));

	st = (struct sc_step){ .kind = SC_QPSTATE, .state = "ERR" };
	ck_assert(sc_check_qpstate(&st, "ERR", why, sizeof(why)));
	ck_assert(!sc_check_qpstate(&st, "RTS", why, sizeof(why)));
}
END_TEST

static Suite *checker_suite(void)
{
	Suite *s = suite_create("conform_checker");
	TCase *tc = tcase_create("fields");

	tcase_add_test(tc, ack_fields);
	tcase_add_test(tc, write_fields);
	tcase_add_test(tc, atomic_imm_qkey_fields);
	tcase_add_test(tc, skippable);
	tcase_add_test(tc, cqe_mem_state);
	suite_add_tcase(s, tc);
	return s;
}

SR_CHECK_MAIN(checker_suite)
