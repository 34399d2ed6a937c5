/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * sroce-bench-stages — what each stage of one RDMA WRITE packet costs on
 * one core, by the same lib/ calls the transport makes, with no link:
 *
 *   requester  build   sr_build_hdrs (Ethernet .. RETH) from the
 *                      connection's template, as the transport builds a
 *                      connected QP's packets (build-all: every field)
 *              copy    the payload from registered memory into the frame
 *              icrc    sr_build_finish (pad + ICRC over the frame)
 *   responder  parse   sr_parse_eth without the ICRC check
 *              icrc    the ICRC check (sr_pkt_icrc_calc)
 *              lookup  sr_mr_lookup + sr_mr_ref_put (rkey, bounds, access)
 *              copy    sr_mr_copy_to: the payload into registered memory
 *
 * for payloads of 64 B, 1 KiB and 4 KiB (a WRITE_ONLY packet each).  The
 * link's own cost per frame (pmd + memif, both sides) is the raw link
 * benchmark's; scripts/bench.sh puts the two together.  Prints a table
 * and one JSON line per figure; asserts nothing.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mr/lookup.h"
#include "mr/mr.h"
#include "wire/build.h"
#include "wire/icrc.h"

static volatile uint64_t sink;

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Run body for about 0.2 s; per becomes nanoseconds per run. */
#define TIME_NS(per, body)                                           \
	do {                                                         \
		double t0_ = now_s(), t_;                            \
		uint64_t n_ = 0;                                     \
		do {                                                 \
			for (int k_ = 0; k_ < 256; k_++) { body; }   \
			n_ += 256;                                   \
			t_ = now_s() - t0_;                          \
		} while (t_ < 0.2);                                  \
		per = t_ / (double)n_ * 1e9;                         \
	} while (0)

static void describe(struct sr_build *b, uint32_t rkey, uint64_t va,
		     uint32_t len)
{
	memset(b, 0, sizeof(*b));
	b->dmac[5] = 2;
	b->smac[5] = 1;
	b->sgid[10] = b->sgid[11] = b->dgid[10] = b->dgid[11] = 0xff;
	b->sgid[12] = b->dgid[12] = 10;
	b->sgid[15] = 2;
	b->dgid[15] = 1;
	b->hop_limit = 64;
	b->ip_df = true;
	b->sport = 0xc000;
	b->opcode = SR_OPCODE(RC, WRITE_ONLY);
	b->pkey = 0xffff;
	b->dqpn = 2;
	b->ackreq = true;
	b->reth_va = va;
	b->reth_rkey = rkey;
	b->reth_len = len;
}

static void row(const char *side, const char *stage, uint32_t payload,
		double ns)
{
	printf("%-10s %-8s %7u %9.1f\n", side, stage, payload, ns);
	printf("{\"bench\":\"stages\",\"side\":\"%s\",\"stage\":\"%s\","
	       "\"payload\":%u,\"ns\":%.2f}\n", side, stage, payload, ns);
}

int main(void)
{
	static const uint32_t sizes[3] = { 64, 1024, 4096 };
	static uint8_t frame[8192];
	struct sr_mr_dev *d = sr_mr_dev_create(NULL);
	struct sr_pd *pd = d ? sr_pd_alloc(d) : NULL;
	uint8_t *mem = aligned_alloc(4096, 1u << 20);
	struct sr_mr *mr;

	if (pd == NULL || mem == NULL)
		return 1;
	memset(mem, 0x5a, 1u << 20);
	mr = sr_mr_reg_virt(pd, mem, 1u << 20, (uint64_t)(uintptr_t)mem,
			    SR_ACCESS_LOCAL_WRITE | SR_ACCESS_REMOTE_WRITE);
	if (mr == NULL)
		return 1;
	printf("%-10s %-8s %7s %9s\n", "side", "stage", "payload", "ns/pkt");
	for (int i = 0; i < 3; i++) {
		uint32_t len = sizes[i], rkey = sr_mr_rkey(mr);
		uint64_t va = (uint64_t)(uintptr_t)mem + 4096;
		struct sr_build b;
		struct sr_pkt pkt, bpkt;
		struct sr_mr_ref ref;
		double ns;
		int off;

		struct sr_build_tmpl tmpl;

		describe(&b, rkey, va, len);
		TIME_NS(ns, sink += (uint64_t)sr_build_hdrs(frame, sizeof(frame), &b, len, &bpkt));
		row("requester", "build-all", len, ns);
		sr_build_tmpl_init(&tmpl, &b);
		b.tmpl = &tmpl;
		TIME_NS(ns, sink += (uint64_t)sr_build_hdrs(frame, sizeof(frame), &b, len, &bpkt));
		row("requester", "build", len, ns);
		off = sr_build_hdrs(frame, sizeof(frame), &b, len, &bpkt);
		if (off < 0)
			return 1;
		TIME_NS(ns, memcpy(frame + off, mem + 8192, len); sink += frame[off]);
		row("requester", "copy", len, ns);
		TIME_NS(ns, sink += sr_build_finish(frame, &bpkt));
		row("requester", "icrc", len, ns);

		uint32_t flen = sr_build_finish(frame, &bpkt);

		if (sr_parse_eth(frame, flen, 0, &pkt) != SR_PARSE_OK)
			return 1;
		TIME_NS(ns, sink += sr_parse_eth(frame, flen, SR_PARSE_NO_ICRC, &pkt));
		row("responder", "parse", len, ns);
		TIME_NS(ns, sink += sr_pkt_icrc_calc(&pkt));
		row("responder", "icrc", len, ns);
		TIME_NS(ns, sink += sr_mr_lookup(d, rkey, true, va, len,
						 SR_ACCESS_REMOTE_WRITE, pd, 2, &ref);
			sr_mr_ref_put(&ref));
		row("responder", "lookup", len, ns);
		if (sr_mr_lookup(d, rkey, true, va, len, SR_ACCESS_REMOTE_WRITE, pd, 2,
				 &ref) != SR_MR_OK)
			return 1;
		TIME_NS(ns, sr_mr_copy_to(&ref, va, sr_pkt_payload(&pkt), len);
			sink += mem[4096]);
		row("responder", "copy", len, ns);
		sr_mr_ref_put(&ref);
	}
	sr_mr_dereg(mr);
	sr_pd_dealloc(pd);
	sr_mr_dev_destroy(d);
	free(mem);
	return 0;
}
