/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * checker.h — the checkers: is what the DUT did what a step expects?
 *
 * Pure functions of the step, the scenario's context and the observation
 * (a frame, a completion, the MR's bytes, the QP state).  Each returns true
 * on a match and otherwise writes why not (one line) into why.
 */
#ifndef SC_CHECKER_H
#define SC_CHECKER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "scenario.h"

/* What the tester knows of one scenario's run. */
struct sc_ctx {
	uint32_t tpsn, dpsn;     /* PSN bases */
	uint32_t tqpn;           /* the tester's QPN (the DUT's peer) */
	uint32_t dqpn;           /* the DUT's QPN */
	uint32_t rkey;           /* the DUT MR's rkey */
	uint32_t mw_rkey;        /* its memory window's, once bound */
	uint64_t va;             /* the DUT MR's address */
};

/* One completion the agent reported. */
struct sc_cqe {
	int status;
	int opcode;
	uint32_t len;
	uint32_t imm;
};

/* The PSN a step means (base + offset, 24 bits). */
uint32_t sc_step_psn(const struct sc_step *st, const struct sc_ctx *c,
		     uint8_t opcode);

/* Is the frame the DUT's answer the step expects? */
bool sc_check_frame(const struct sc_step *st, const struct sc_ctx *c,
		    const uint8_t *frame, uint32_t len, char *why,
		    size_t cap);

/*
 * May the frame be passed over while waiting for the step's frame?  An ACK
 * of an earlier PSN is (a responder may ACK more often than asked, and
 * ACKs coalesce: IBA 9.7.5.1.2); so is a request of the DUT's before the
 * PSN awaited (a retransmission after its ACK timeout), and a frame to
 * another QP.
 */
bool sc_frame_skippable(const struct sc_step *st, const struct sc_ctx *c,
			const uint8_t *frame, uint32_t len);

bool sc_check_cqe(const struct sc_step *st, const struct sc_cqe *cqe,
		  char *why, size_t cap);

/* The MR's bytes at the step's off (len bytes, or 8 for u64=). */
bool sc_check_mem(const struct sc_step *st, const uint8_t *mem, uint32_t len,
		  char *why, size_t cap);

bool sc_check_qpstate(const struct sc_step *st, const char *state, char *why,
		      size_t cap);

/* One line describing a frame: "ACKNOWLEDGE psn=+3 AETH NAK inv msn=1". */
void sc_frame_describe(const struct sc_ctx *c, const uint8_t *frame,
		       uint32_t len, char *out, size_t cap);

/* One line saying what a step expects. */
void sc_step_describe(const struct sc_step *st, char *out, size_t cap);

#endif /* SC_CHECKER_H */
