/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * checker.c — the checkers of sroce-conform (checker.h).
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "checker.h"
#include "scfile.h"
#include "wire/build.h"
#include "wire/parse.h"
#include "wire/psn.h"

#define HAS(st, f) ((st)->has & (1u << SC_F_##f))

/* Responses count from the tester's PSN, requests from the DUT's. */
static bool sc_is_response(uint8_t opcode)
{
	const struct sr_opcode_info *i = sr_opcode_info(opcode);

	return i != NULL && (i->kind == SR_KIND_ACK ||
			     i->kind == SR_KIND_ATOMIC_ACK ||
			     i->kind == SR_KIND_READ_RESP);
}

uint32_t sc_step_psn(const struct sc_step *st, const struct sc_ctx *c,
		     uint8_t opcode)
{
	bool resp = sc_is_response(opcode);
	uint32_t base;

	/* a request the tester sends / a response the DUT sends: tpsn */
	if (st->kind == SC_SEND)
		base = resp ? c->dpsn : c->tpsn;
	else
		base = resp ? c->tpsn : c->dpsn;
	return (uint32_t)(base + (uint64_t)st->psn) & 0xffffffu;
}

static const char *sc_nak_name(uint8_t code)
{
	switch (code) {
	case SR_NAK_PSN_SEQ_ERR: return "seq";
	case SR_NAK_INVALID_REQ: return "inv";
	case SR_NAK_REMOTE_ACCESS: return "acc";
	case SR_NAK_REMOTE_OP: return "op";
	default: return "?";
	}
}

static void sc_aeth_text(uint32_t a, char *out, size_t cap)
{
	if (a == SC_AETH_ACK_ANY)
		snprintf(out, cap, "ack");
	else if (a == SC_AETH_ANY_RNR)
		snprintf(out, cap, "rnr");
	else if ((a & SR_AETH_TYPE_MASK) == SR_AETH_ACK)
		snprintf(out, cap, "ack(credits %u)", SR_AETH_VALUE(a));
	else if ((a & SR_AETH_TYPE_MASK) == SR_AETH_RNR_NAK)
		snprintf(out, cap, "rnr:%u", SR_AETH_VALUE(a));
	else if ((a & SR_AETH_TYPE_MASK) == SR_AETH_NAK)
		snprintf(out, cap, "nak:%s", sc_nak_name(SR_AETH_VALUE(a)));
	else
		snprintf(out, cap, "reserved 0x%02x", a);
}

static bool sc_aeth_match(uint32_t want, uint8_t got)
{
	if (want == SC_AETH_ACK_ANY)
		return (got & SR_AETH_TYPE_MASK) == SR_AETH_ACK;
	if (want == SC_AETH_ANY_RNR)
		return (got & SR_AETH_TYPE_MASK) == SR_AETH_RNR_NAK;
	return want == got;
}

static uint32_t sc_rel(uint32_t psn, uint32_t base)
{
	return (psn - base) & 0xffffffu;
}

void sc_frame_describe(const struct sc_ctx *c, const uint8_t *frame,
		       uint32_t len, char *out, size_t cap)
{
	struct sr_pkt p;
	enum sr_parse_result r = sr_parse_eth(frame, len, 0, &p);
	const struct sr_bth *b;
	const struct sr_aeth *ae;
	const struct sr_reth *re;
	uint32_t psn;
	int n;

	if (r != SR_PARSE_OK) {
		snprintf(out, cap, "malformed frame (%s)",
			 sr_parse_result_text(r));
		return;
	}
	b = sr_pkt_bth(&p);
	psn = sr_bth_psn(b);
	n = snprintf(out, cap, "%s psn=%u (+%u) qp=0x%06x", p.op->name, psn,
		     sc_rel(psn, sc_is_response(p.opcode) ? c->tpsn : c->dpsn),
		     sr_bth_dqpn(b));
	ae = sr_pkt_ext(&p, SR_EXT_AETH);
	if (ae != NULL && n > 0 && (size_t)n < cap) {
		char a[32];

		sc_aeth_text(sr_aeth_syndrome(ae), a, sizeof(a));
		n += snprintf(out + n, cap - (size_t)n, " AETH[%s msn=%u]", a,
			      sr_aeth_msn(ae));
	}
	re = sr_pkt_ext(&p, SR_EXT_RETH);
	if (re != NULL && n > 0 && (size_t)n < cap)
		n += snprintf(out + n, cap - (size_t)n,
			      " RETH[va=0x%" PRIx64 " rkey=0x%x len=%u]",
			      sr_reth_va(re), sr_reth_rkey(re), sr_reth_len(re));
	if (n > 0 && (size_t)n < cap)
		snprintf(out + n, cap - (size_t)n, " payload=%u",
			 p.payload_len);
}

bool sc_frame_skippable(const struct sc_step *st, const struct sc_ctx *c,
			const uint8_t *frame, uint32_t len)
{
	struct sr_pkt p;
	const struct sr_aeth *ae;
	uint32_t want;

	if (sr_parse_eth(frame, len, 0, &p) != SR_PARSE_OK)
		return false;
	if (sr_bth_dqpn(sr_pkt_bth(&p)) != c->tqpn)
		return true;
	if (st->kind != SC_EXPECT || !HAS(st, PSN))
		return false;
	want = sc_step_psn(st, c, st->opcode);
	/*
	 * Waiting for the DUT's request at PSN P: a request before P is a
	 * retransmission (after its ACK timeout, legal on a slow link).
	 */
	if ((p.op->flags & SR_OPF_REQ) && !sc_is_response(st->opcode) &&
	    sr_psn_before(sr_bth_psn(sr_pkt_bth(&p)), want))
		return true;
	if (p.opcode != (uint8_t)((st->opcode & SR_TT_MASK) | SR_OP_ACKNOWLEDGE))
		return false;
	ae = sr_pkt_ext(&p, SR_EXT_AETH);
	if ((sr_aeth_syndrome(ae) & SR_AETH_TYPE_MASK) != SR_AETH_ACK)
		return false;
	return sr_psn_before(sr_bth_psn(sr_pkt_bth(&p)), want);
}

#define SC_WHY(...) (snprintf(why, cap, __VA_ARGS__), false)

static bool sc_check_payload(const struct sc_step *st, const struct sr_pkt *p,
			     char *why, size_t cap)
{
	const uint8_t *d = sr_pkt_payload(p);

	if (HAS(st, PAYLOAD) && p->payload_len != st->payload)
		return SC_WHY("payload of %u bytes, expected %u",
			      p->payload_len, st->payload);
	if (HAS(st, PATTERN))
		for (uint32_t i = 0; i < p->payload_len; i++)
			if (d[i] != sc_pattern(st->pattern, st->off + i))
				return SC_WHY("payload byte %u is 0x%02x, expected 0x%02x (pattern %u)",
					      i, d[i],
					      sc_pattern(st->pattern, st->off + i),
					      st->pattern);
	return true;
}

bool sc_check_frame(const struct sc_step *st, const struct sc_ctx *c,
		    const uint8_t *frame, uint32_t len, char *why, size_t cap)
{
	struct sr_pkt p;
	enum sr_parse_result r = sr_parse_eth(frame, len, 0, &p);
	const struct sr_bth *b;
	const void *x;
	uint32_t psn;

	if (r != SR_PARSE_OK)
		return SC_WHY("malformed frame: %s", sr_parse_result_text(r));
	b = sr_pkt_bth(&p);
	if (p.opcode != st->opcode) {
		const struct sr_opcode_info *w = sr_opcode_info(st->opcode);

		return SC_WHY("opcode %s, expected %s", p.op->name,
			      w ? w->name : "?");
	}
	if (sr_bth_dqpn(b) != c->tqpn)
		return SC_WHY("to QP 0x%06x, expected the tester's 0x%06x",
			      sr_bth_dqpn(b), c->tqpn);
	psn = sr_bth_psn(b);
	if (HAS(st, PSN) && psn != sc_step_psn(st, c, st->opcode))
		return SC_WHY("PSN %u (+%u), expected %u (+%" PRId64 ")", psn,
			      sc_rel(psn, sc_step_psn(st, c, st->opcode) -
					      (uint32_t)st->psn),
			      sc_step_psn(st, c, st->opcode), st->psn);
	if (HAS(st, ACKREQ) && !sr_bth_ackreq(b))
		return SC_WHY("AckReq not set");
	if (HAS(st, SE) && !sr_bth_se(b))
		return SC_WHY("SE not set");
	x = sr_pkt_ext(&p, SR_EXT_AETH);
	if (HAS(st, AETH) && x != NULL &&
	    !sc_aeth_match(st->aeth, sr_aeth_syndrome(x))) {
		char g[32], w[32];

		sc_aeth_text(sr_aeth_syndrome(x), g, sizeof(g));
		sc_aeth_text(st->aeth, w, sizeof(w));
		return SC_WHY("AETH %s, expected %s", g, w);
	}
	if (HAS(st, MSN) && x != NULL && sr_aeth_msn(x) != st->msn)
		return SC_WHY("MSN %u, expected %u", sr_aeth_msn(x), st->msn);
	x = sr_pkt_ext(&p, SR_EXT_RETH);
	if (x != NULL) {
		if (HAS(st, LEN) && sr_reth_len(x) != st->len)
			return SC_WHY("RETH DMA length %u, expected %u",
				      sr_reth_len(x), st->len);
		if (HAS(st, VA) && sr_reth_va(x) != st->va)
			return SC_WHY("RETH VA 0x%" PRIx64 ", expected 0x%" PRIx64,
				      sr_reth_va(x), st->va);
		if (HAS(st, RKEY) && st->rkey <= UINT32_MAX &&
		    sr_reth_rkey(x) != st->rkey)
			return SC_WHY("RETH R_Key 0x%x, expected 0x%" PRIx64,
				      sr_reth_rkey(x), st->rkey);
	}
	x = sr_pkt_ext(&p, SR_EXT_ATMETH);
	if (x != NULL) {
		if (HAS(st, SWAP) && sr_atmeth_swap_add(x) != st->swap)
			return SC_WHY("AtomicETH swap/add %" PRIu64 ", expected %" PRIu64,
				      sr_atmeth_swap_add(x), st->swap);
		if (HAS(st, CMP) && sr_atmeth_cmp(x) != st->cmp)
			return SC_WHY("AtomicETH compare %" PRIu64 ", expected %" PRIu64,
				      sr_atmeth_cmp(x), st->cmp);
		if (HAS(st, VA) && sr_atmeth_va(x) != st->va)
			return SC_WHY("AtomicETH VA 0x%" PRIx64 ", expected 0x%" PRIx64,
				      sr_atmeth_va(x), st->va);
	}
	x = sr_pkt_ext(&p, SR_EXT_ATMACK);
	if (x != NULL && HAS(st, ORIG) && sr_atmack_orig(x) != st->orig)
		return SC_WHY("AtomicAckETH original data %" PRIu64 ", expected %" PRIu64,
			      sr_atmack_orig(x), st->orig);
	x = sr_pkt_ext(&p, SR_EXT_DETH);
	if (x != NULL && HAS(st, QKEY) && sr_deth_qkey(x) != st->qkey)
		return SC_WHY("DETH Q_Key 0x%x, expected 0x%x", sr_deth_qkey(x),
			      st->qkey);
	x = sr_pkt_ext(&p, SR_EXT_IMMDT);
	if (HAS(st, IMM) && (x == NULL || sr_immdt_imm(x) != st->imm))
		return SC_WHY("immediate data %s, expected 0x%x",
			      x ? "differs" : "missing", st->imm);
	return sc_check_payload(st, &p, why, cap);
}

bool sc_check_cqe(const struct sc_step *st, const struct sc_cqe *cqe,
		  char *why, size_t cap)
{
	int want = HAS(st, STATUS) ? st->status : 0;

	if (cqe->status != want)
		return SC_WHY("completion status %s, expected %s",
			      sc_wc_status_name(cqe->status),
			      sc_wc_status_name(want));
	if (HAS(st, WC_OP) && cqe->status == 0 && cqe->opcode != st->wc_op)
		return SC_WHY("completion opcode %s, expected %s",
			      sc_wc_opcode_name(cqe->opcode),
			      sc_wc_opcode_name(st->wc_op));
	if (HAS(st, LEN) && cqe->status == 0 && cqe->len != st->len)
		return SC_WHY("completion byte_len %u, expected %u", cqe->len,
			      st->len);
	if (HAS(st, IMM) && cqe->imm != st->imm)
		return SC_WHY("completion immediate 0x%x, expected 0x%x",
			      cqe->imm, st->imm);
	return true;
}

bool sc_check_mem(const struct sc_step *st, const uint8_t *mem, uint32_t len,
		  char *why, size_t cap)
{
	if (HAS(st, ORIG)) {
		uint64_t v;

		if (len < 8)
			return SC_WHY("memory: %u bytes read, 8 needed", len);
		memcpy(&v, mem, 8);
		if (v != st->orig)
			return SC_WHY("memory at +%u holds %" PRIu64 ", expected %" PRIu64,
				      st->off, v, st->orig);
		return true;
	}
	if (len != st->len)
		return SC_WHY("memory: %u bytes read, %u expected", len, st->len);
	for (uint32_t i = 0; i < len; i++)
		if (mem[i] != sc_pattern(st->pattern, i))
			return SC_WHY("memory byte +%u is 0x%02x, expected 0x%02x (pattern %u)",
				      st->off + i, mem[i],
				      sc_pattern(st->pattern, i), st->pattern);
	return true;
}

bool sc_check_qpstate(const struct sc_step *st, const char *state, char *why,
		      size_t cap)
{
	if (strcmp(st->state, state) != 0)
		return SC_WHY("QP state %s, expected %s", state, st->state);
	return true;
}

void sc_step_describe(const struct sc_step *st, char *out, size_t cap)
{
	const struct sr_opcode_info *i = sr_opcode_info(st->opcode);
	char a[32] = "";
	int n;

	switch (st->kind) {
	case SC_EXPECT:
		if (HAS(st, AETH))
			sc_aeth_text(st->aeth, a, sizeof(a));
		n = snprintf(out, cap, "%s", i ? i->name : "?");
		if (HAS(st, PSN) && n > 0 && (size_t)n < cap)
			n += snprintf(out + n, cap - (size_t)n, " psn=+%" PRId64,
				      st->psn);
		if (a[0] && n > 0 && (size_t)n < cap)
			snprintf(out + n, cap - (size_t)n, " AETH %s", a);
		break;
	case SC_CQE:
		snprintf(out, cap, "a completion %s",
			 sc_wc_status_name(HAS(st, STATUS) ? st->status : 0));
		break;
	case SC_EXPECT_NONE:
		snprintf(out, cap, "no frame within %u ms", st->ms ? st->ms : 300);
		break;
	case SC_CQE_NONE:
		snprintf(out, cap, "no completion within %u ms",
			 st->ms ? st->ms : 300);
		break;
	case SC_MEM:
		snprintf(out, cap, "the MR at +%u to hold %s", st->off,
			 HAS(st, ORIG) ? "a 64-bit value" : "the pattern");
		break;
	case SC_QPSTATE:
		snprintf(out, cap, "the QP in state %s", st->state);
		break;
	default:
		snprintf(out, cap, "%s", sc_step_kind_name(st->kind));
	}
}
