/* SPDX-License-Identifier: BSD-3-Clause */
/* A valid frame description for any opcode, shared by the wire tests. */
#ifndef SR_TEST_WIRE_FIXTURE_H
#define SR_TEST_WIRE_FIXTURE_H

#include <string.h>

#include "wire/build.h"

static inline void fixture_build(struct sr_build *b, uint8_t opcode, bool v6,
				 bool vlan)
{
	static const uint8_t v4a[16] = { [10] = 0xff, [11] = 0xff, 10, 0, 0, 1 };
	static const uint8_t v4b[16] = { [10] = 0xff, [11] = 0xff, 10, 0, 0, 2 };
	static const uint8_t v6a[16] = { 0xfe, 0x80, [8] = 0x02, [15] = 0x01 };
	static const uint8_t v6b[16] = { 0xfe, 0x80, [8] = 0x02, [15] = 0x02 };

	memset(b, 0, sizeof(*b));
	memcpy(b->dmac, "\x02\x00\x00\x00\x00\x02", 6);
	memcpy(b->smac, "\x02\x00\x00\x00\x00\x01", 6);
	b->vlan = vlan;
	b->vlan_tci = vlan ? 0x2064 : 0;
	memcpy(b->sgid, v6 ? v6a : v4a, 16);
	memcpy(b->dgid, v6 ? v6b : v4b, 16);
	b->tclass = 0x68;
	b->hop_limit = 64;
	b->flow_label = v6 ? 0x12345 : 0;
	b->ip_id = 0x1234;
	b->ip_df = true;
	b->sport = 0xc012;
	b->opcode = opcode;
	b->se = true;
	b->mig = true;
	b->pkey = 0xffff;
	b->dqpn = 0x000011;
	b->ackreq = true;
	b->psn = 0xfffffe;
	b->rdeth_eecn = 0;
	b->deth_qkey = 0x11111111;
	b->deth_sqpn = 0x000022;
	b->xrc_srqn = 0x000033;
	b->feth = 0x00000011;
	b->reth_va = 0x00007f0012345678ull;
	b->reth_rkey = 0xabcd0102;
	b->reth_len = 4096;
	b->atm_va = 0x00007f0000001000ull;
	b->atm_rkey = 0x0c9a;
	b->atm_swap_add = 0x0102030405060708ull;
	b->atm_cmp = 0x1112131415161718ull;
	b->aeth_syndrome = 0x1f;
	b->aeth_msn = 77;
	b->atmack_orig = 0xdeadbeefcafef00dull;
	b->imm = 0x01020304;
	b->ieth_rkey = 0x55667788;
}

/* A payload length the opcode allows. */
static inline uint32_t fixture_payload_len(uint8_t opcode, uint32_t want)
{
	const struct sr_opcode_info *op = sr_opcode_info(opcode);

	if (!(op->flags & SR_OPF_PAYLOAD))
		return 0;
	if (op->kind == SR_KIND_ATOMIC_WRITE)
		return 8;
	if (op->kind == SR_KIND_CNP)
		return SR_CNP_PAYLOAD;
	return want;
}

#endif
