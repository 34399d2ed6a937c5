/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * craft.c — crafted packets for the transport tests (craft.h).
 */
#include <string.h>

#include "craft.h"
#include "sr_check.h"
#include "wire/parse.h"

bool cap_tap(void *ctx, int from, uint8_t *frame, uint32_t *len)
{
	struct cap *c = ctx;
	struct sr_pkt pkt;
	const struct sr_aeth *a;
	const struct sr_reth *r;
	const struct sr_atmack *k;
	int i;

	if (from != c->swallow)
		return true;
	ck_assert_int_eq(sr_parse_eth(frame, *len, 0, &pkt), SR_PARSE_OK);
	if (c->n < MAXCAP) {
		i = c->n++;
		c->op[i] = pkt.opcode;
		c->psn[i] = sr_bth_psn(sr_pkt_bth(&pkt));
		a = sr_pkt_ext(&pkt, SR_EXT_AETH);
		r = sr_pkt_ext(&pkt, SR_EXT_RETH);
		k = sr_pkt_ext(&pkt, SR_EXT_ATMACK);
		c->syn[i] = a ? sr_aeth_syndrome(a) : 0xff;
		c->msn[i] = a ? sr_aeth_msn(a) : 0;
		c->va[i] = r ? sr_reth_va(r) : 0;
		c->rlen[i] = r ? sr_reth_len(r) : 0;
		c->plen[i] = pkt.payload_len;
		c->orig[i] = k ? sr_atmack_orig(k) : 0;
	}
	return false;
}

void craft_init(struct h_pair *p, int from, struct sr_build *b,
		       uint8_t opcode, uint32_t psn)
{
	struct h_node *s = &p->n[from], *d = &p->n[1 - from];

	memset(b, 0, sizeof(*b));
	memcpy(b->dmac, d->mac, 6);
	memcpy(b->smac, s->mac, 6);
	memcpy(b->sgid, s->gid, 16);
	memcpy(b->dgid, d->gid, 16);
	b->hop_limit = 64;
	b->ip_df = true;
	b->sport = 0xc000;
	b->opcode = opcode;
	b->pkey = 0xffff;
	b->dqpn = sr_qp_num(d->qp);
	b->psn = psn & 0xffffff;
}

void craft_send(struct h_pair *p, int from, const struct sr_build *b,
		       const void *payload, uint32_t len)
{
	uint8_t frame[5000];
	int n = sr_build_frame(frame, sizeof(frame), b, payload, len);

	ck_assert_int_gt(n, 0);
	sim_inject(p->net, from, frame, (uint32_t)n);
}

void settle(struct h_pair *p)
{
	for (int i = 0; i < 2000; i++)
		if (!sim_step_frames(p->net))
			break;
}

void craft_read(struct h_pair *p, uint32_t psn, uint32_t off,
		       uint32_t len)
{
	struct sr_build b;

	craft_init(p, 0, &b, SR_OPCODE(RC, READ_REQUEST), psn);
	b.reth_va = (uint64_t)(uintptr_t)p->n[1].buf + off;
	b.reth_rkey = sr_mr_rkey(p->n[1].mr);
	b.reth_len = len;
	craft_send(p, 0, &b, NULL, 0);
}

void craft_ack(struct h_pair *p, uint32_t psn, uint8_t syn, uint32_t msn)
{
	struct sr_build b;

	craft_init(p, 1, &b, SR_OPCODE(RC, ACKNOWLEDGE), psn);
	b.aeth_syndrome = syn;
	b.aeth_msn = msn;
	craft_send(p, 1, &b, NULL, 0);
}
