/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * scenario.h — the model of a conformance scenario (docs/conformance.md).
 *
 * A scenario is data, read from a scenario file (scenarios/<area>.sc,
 * parsed by scfile.c): its name, area, IBA reference, level (mandatory or
 * optional), the DUT's queue pair and memory region, and a list of steps.
 * The tester (tester.c) plays the steps in order: it sends frames it
 * builds, waits for the DUT's frames and the agent's completions, and
 * hands each observation to a checker (checker.c), which says whether it is
 * what the step expects.
 *
 * PSNs in a step are offsets: a request the tester sends, and a response
 * the DUT sends, count from the tester's request PSN (tpsn); a request the
 * DUT sends, and a response the tester sends, from the DUT's (dpsn).
 * Addresses (va=) are offsets in the DUT's memory region; rkey=good is its
 * rkey.  Payloads are patterns: byte i of pattern s is (s * 31 + i) & 0xff.
 */
#ifndef SC_SCENARIO_H
#define SC_SCENARIO_H

#include <stdbool.h>
#include <stdint.h>

#define SC_MAX_STEPS 48
#define SC_NAME_LEN 64
#define SC_TEXT_LEN 256

enum sc_step_kind {
	SC_SEND,        /* the tester sends a frame */
	SC_EXPECT,      /* the DUT's next frame matches */
	SC_EXPECT_NONE, /* the DUT sends nothing within ms */
	SC_RECV,        /* the agent posts a receive */
	SC_POST,        /* the agent posts a work request */
	SC_CQE,         /* the agent's next completion matches */
	SC_CQE_NONE,    /* no completion within ms */
	SC_MEM,         /* the agent's MR holds a pattern */
	SC_FILL,        /* the agent writes a pattern into its MR */
	SC_QPSTATE,     /* the agent's QP is in a state */
	SC_WAIT,        /* let ms pass */
	SC_BIND,        /* the agent binds a memory window over its MR */
};

/* The value of rkey=, dqpn=: a number, or the DUT's own (good). */
#define SC_GOOD 0xffffffffffffffffull
#define SC_BAD_RKEY 0xbad0000000000000ull /* the DUT's rkey, key byte +1 */
#define SC_MW_RKEY 0xbad1000000000000ull  /* the rkey of the DUT's window */

/* Fields a step sets; has marks which were given. */
enum sc_field {
	SC_F_PSN, SC_F_VA, SC_F_RKEY, SC_F_LEN, SC_F_PAYLOAD, SC_F_PATTERN,
	SC_F_ACKREQ, SC_F_SE, SC_F_IMM, SC_F_SWAP, SC_F_CMP, SC_F_QKEY,
	SC_F_DQPN, SC_F_AETH, SC_F_MSN, SC_F_ORIG, SC_F_MS, SC_F_STATUS,
	SC_F_WC_OP, SC_F_OFF, SC_F_BADICRC, SC_F_TVER, SC_F_PKEY,
	SC_F_STATE, SC_F_IETH, SC_F_COUNT, SC_F_MAX
};

/* AETH expectations / values: aeth=ack, nak:N, rnr (any timer), rnr:T. */
#define SC_AETH_ANY_RNR 0x100u

struct sc_step {
	enum sc_step_kind kind;
	uint16_t line;          /* in the scenario file */
	uint8_t opcode;         /* SEND / EXPECT: BTH opcode; POST: sc_wr_op */
	uint32_t has;           /* 1 << enum sc_field */
	int64_t psn;
	uint64_t va;
	uint64_t rkey;
	uint32_t len;           /* RETH DMA length / POST and RECV length */
	uint32_t payload;       /* payload bytes */
	uint32_t pattern;
	uint32_t imm;
	uint64_t swap, cmp, orig;
	uint32_t qkey;
	uint64_t dqpn;
	uint32_t aeth;          /* syndrome, or SC_AETH_ANY_RNR */
	uint32_t msn;
	uint32_t ms;
	int status;             /* ibv_wc_status */
	int wc_op;              /* ibv_wc_opcode */
	uint32_t off;
	uint32_t pkey;
	uint32_t tver;
	uint32_t count;         /* SEND: repeat with psn+1, va+len each */
	char state[8];          /* QPSTATE: RTS, ERR, ... */
};

/* Work requests the agent posts (POST). */
#define SC_WR_OPS(X)                       \
	X(SEND, "send")                    \
	X(SEND_IMM, "send_imm")            \
	X(WRITE, "write")                  \
	X(WRITE_IMM, "write_imm")          \
	X(READ, "read")                    \
	X(CMP_SWAP, "cmp_swap")            \
	X(FETCH_ADD, "fetch_add")

enum sc_wr_op {
#define SC_X(n, s) SC_WR_##n,
	SC_WR_OPS(SC_X)
#undef SC_X
	SC_WR_MAX
};

enum sc_qp_type { SC_QP_RC, SC_QP_UC, SC_QP_UD };

struct sc_scenario {
	char name[SC_NAME_LEN];
	char area[24];
	char ref[SC_TEXT_LEN];       /* IBA chapter and rule */
	char title[SC_TEXT_LEN];     /* what it shows, one line */
	char expect[SC_TEXT_LEN];    /* what a conforming DUT does */
	bool mandatory;
	const char *file;
	uint16_t line;
	/* the DUT's QP */
	enum sc_qp_type qp_type;
	uint32_t mr_len;
	char access[8];              /* r, w, a, m letters: remote access, MW bind */
	uint32_t tpsn, dpsn;         /* PSN bases */
	uint8_t timeout, retry, rnr_retry, min_rnr;
	uint8_t max_rd_atomic;       /* the DUT's initiator depth */
	uint32_t qkey;
	uint32_t nsteps;
	struct sc_step step[SC_MAX_STEPS];
};

/* Pattern byte i of seed s. */
static inline uint8_t sc_pattern(uint32_t s, uint32_t i)
{
	return (uint8_t)(s * 31u + i);
}

const char *sc_wr_op_name(int op);
int sc_wr_op_parse(const char *s);
const char *sc_wc_status_name(int status);
int sc_wc_status_parse(const char *s);
const char *sc_wc_opcode_name(int op);
int sc_wc_opcode_parse(const char *s);
const char *sc_step_kind_name(enum sc_step_kind k);

#endif /* SC_SCENARIO_H */
