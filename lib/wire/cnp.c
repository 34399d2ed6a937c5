/* SPDX-License-Identifier: BSD-3-Clause */
#include "wire/cnp.h"

#include <string.h>

void sr_cnp_describe(struct sr_build *b, const struct sr_pkt *ce,
		     uint32_t dqpn, uint8_t dscp)
{
	const struct sr_bth *bth = sr_pkt_bth(ce);

	memset(b, 0, sizeof(*b));
	memcpy(b->dmac, ce->frame + 6, 6);
	memcpy(b->smac, ce->frame, 6);
	b->vlan = ce->has_vlan;
	b->vlan_tci = ce->vlan_tci;
	sr_pkt_dgid(ce, b->sgid);
	sr_pkt_sgid(ce, b->dgid);
	b->tclass = (uint8_t)((dscp & 0x3f) << 2 | SR_ECN_NOT_ECT);
	b->hop_limit = 64;
	b->ip_df = true;
	b->sport = sr_get_be16(sr_pkt_udp(ce)->sport);
	b->opcode = SR_OPCODE_CNP;
	b->pkey = sr_bth_pkey(bth);
	b->fecn_becn = SR_BTH_BECN;
	b->dqpn = dqpn & 0xffffffu;
	b->psn = 0;
}

int sr_cnp_build(uint8_t *buf, uint32_t cap, const struct sr_build *b)
{
	static const uint8_t reserved[SR_CNP_PAYLOAD];

	return sr_build_frame(buf, cap, b, reserved, sizeof(reserved));
}
