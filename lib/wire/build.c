/* SPDX-License-Identifier: BSD-3-Clause */
#include "wire/build.h"

#include <errno.h>
#include <string.h>

#include "wire/icrc.h"

static uint32_t sr_build_l2_len(const struct sr_build *b)
{
	return (uint32_t)sizeof(struct sr_eth) +
	       (b->vlan ? (uint32_t)sizeof(struct sr_vlan) : 0);
}

static uint32_t sr_build_l3_len(const struct sr_build *b)
{
	return sr_gid_is_v4(b->dgid) ? (uint32_t)sizeof(struct sr_ipv4)
				     : (uint32_t)sizeof(struct sr_ipv6);
}

uint32_t sr_build_frame_len(const struct sr_build *b, uint32_t payload_len)
{
	const struct sr_opcode_info *op = sr_opcode_info(b->opcode);
	uint32_t pad = (4 - (payload_len & 3)) & 3;
	uint32_t l4 = b->tmpl != NULL ? b->tmpl->l4
				      : sr_build_l2_len(b) + sr_build_l3_len(b);

	return l4 + (uint32_t)sizeof(struct sr_udp) + (op ? op->hdr_len : 0) +
	       payload_len + pad + SR_ICRC_LEN;
}

/* A sum of 16-bit words, folded and complemented: the IPv4 checksum. */
static uint16_t sr_build_csum(uint32_t sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

static void sr_build_ipv4(uint8_t *ip, const struct sr_build *b,
			  uint32_t ip_len)
{
	uint32_t sum = 0;
	unsigned int i;

	ip[0] = 0x45;
	ip[1] = b->tclass;
	sr_put_be16(ip + 2, (uint16_t)ip_len);
	sr_put_be16(ip + 4, b->ip_id);
	sr_put_be16(ip + 6, b->ip_df ? 0x4000 : 0);
	ip[8] = b->hop_limit;
	ip[9] = SR_IPPROTO_UDP;
	ip[10] = 0;
	ip[11] = 0;
	memcpy(ip + 12, b->sgid + 12, 4);
	memcpy(ip + 16, b->dgid + 12, 4);
	for (i = 0; i < sizeof(struct sr_ipv4); i += 2)
		sum += sr_get_be16(ip + i);
	sr_put_be16(ip + 10, sr_build_csum(sum));
}

static void sr_build_ipv6(uint8_t *ip, const struct sr_build *b,
			  uint32_t plen)
{
	sr_put_be32(ip, 6u << 28 | (uint32_t)b->tclass << 20 |
				(b->flow_label & 0xfffff));
	sr_put_be16(ip + 4, (uint16_t)plen);
	ip[6] = SR_IPPROTO_UDP;
	ip[7] = b->hop_limit;
	memcpy(ip + 8, b->sgid, 16);
	memcpy(ip + 24, b->dgid, 16);
}

static void sr_build_bth(uint8_t *p, const struct sr_build *b, uint8_t pad)
{
	p[0] = b->opcode;
	p[1] = (uint8_t)((b->se ? SR_BTH_SE : 0) | (b->mig ? SR_BTH_MIG : 0) |
			 pad << 4 | SR_BTH_TVER);
	sr_put_be16(p + 2, b->pkey);
	p[4] = b->fecn_becn;
	sr_put_be24(p + 5, b->dqpn);
	p[8] = b->ackreq ? SR_BTH_ACK : 0;
	sr_put_be24(p + 9, b->psn);
}

/* Write the extension headers of mask hdrs at their offsets from bth. */
static void sr_build_ext(uint8_t *bth, const uint8_t off[SR_EXT_MAX],
			 uint16_t hdrs, const struct sr_build *b)
{
	uint8_t *h;

	if (hdrs & SR_HDR(RDETH)) {
		h = bth + off[SR_EXT_RDETH];
		h[0] = 0;
		sr_put_be24(h + 1, b->rdeth_eecn);
	}
	if (hdrs & SR_HDR(DETH)) {
		h = bth + off[SR_EXT_DETH];
		sr_put_be32(h, b->deth_qkey);
		h[4] = 0;
		sr_put_be24(h + 5, b->deth_sqpn);
	}
	if (hdrs & SR_HDR(XRCETH)) {
		h = bth + off[SR_EXT_XRCETH];
		h[0] = 0;
		sr_put_be24(h + 1, b->xrc_srqn);
	}
	if (hdrs & SR_HDR(FETH))
		sr_put_be32(bth + off[SR_EXT_FETH], b->feth);
	if (hdrs & SR_HDR(RETH)) {
		h = bth + off[SR_EXT_RETH];
		sr_put_be64(h, b->reth_va);
		sr_put_be32(h + 8, b->reth_rkey);
		sr_put_be32(h + 12, b->reth_len);
	}
	if (hdrs & SR_HDR(ATMETH)) {
		h = bth + off[SR_EXT_ATMETH];
		sr_put_be64(h, b->atm_va);
		sr_put_be32(h + 8, b->atm_rkey);
		sr_put_be64(h + 12, b->atm_swap_add);
		sr_put_be64(h + 20, b->atm_cmp);
	}
	if (hdrs & SR_HDR(AETH)) {
		h = bth + off[SR_EXT_AETH];
		h[0] = b->aeth_syndrome;
		sr_put_be24(h + 1, b->aeth_msn);
	}
	if (hdrs & SR_HDR(ATMACK))
		sr_put_be64(bth + off[SR_EXT_ATMACK], b->atmack_orig);
	if (hdrs & SR_HDR(IMMDT))
		sr_put_be32(bth + off[SR_EXT_IMMDT], b->imm);
	if (hdrs & SR_HDR(IETH))
		sr_put_be32(bth + off[SR_EXT_IETH], b->ieth_rkey);
}

void sr_build_tmpl_init(struct sr_build_tmpl *t, const struct sr_build *b)
{
	struct sr_build d = *b;
	struct sr_pkt pkt;
	uint8_t frame[SR_BUILD_TMPL_MAX + SR_BTH_LEN + SR_ICRC_LEN];

	/* a packet with no extension header, nothing per packet set */
	d.tmpl = NULL;
	d.opcode = SR_OPCODE(RC, SEND_MIDDLE);
	d.ip_id = 0;
	d.psn = 0;
	memset(t, 0, sizeof(*t));
	if (sr_build_hdrs(frame, sizeof(frame), &d, 0, &pkt) < 0)
		return;
	memcpy(t->hdr, frame, pkt.bth);
	t->l3 = (uint8_t)pkt.l3;
	t->l4 = (uint8_t)pkt.l4;
	t->bth = (uint8_t)pkt.bth;
	t->ipv6 = pkt.ipv6;
	t->vlan = b->vlan;
	t->vlan_tci = b->vlan_tci;
	if (!t->ipv6) {
		const uint8_t *ip = t->hdr + t->l3;

		/* words 1, 2 and 5 (length, ID, checksum) are per packet */
		for (unsigned int i = 0; i < sizeof(struct sr_ipv4); i += 2)
			if (i != 2 && i != 4 && i != 10)
				t->ip_sum += sr_get_be16(ip + i);
	}
}

/* The template's copy, then what changes from packet to packet. */
static void sr_build_from_tmpl(uint8_t *buf, const struct sr_build_tmpl *t,
			       uint32_t udp_len, uint16_t ip_id)
{
	uint8_t *ip = buf + t->l3;

	memcpy(buf, t->hdr, t->bth);
	if (t->ipv6) {
		sr_put_be16(ip + 4, (uint16_t)udp_len);
	} else {
		uint32_t ip_len = (uint32_t)sizeof(struct sr_ipv4) + udp_len;

		sr_put_be16(ip + 2, (uint16_t)ip_len);
		sr_put_be16(ip + 4, ip_id);
		sr_put_be16(ip + 10, sr_build_csum(t->ip_sum + ip_len + ip_id));
	}
	sr_put_be16(buf + t->l4 + 4, (uint16_t)udp_len);
}

/* Ethernet, IP and UDP headers, field by field. */
static void sr_build_to_udp(uint8_t *buf, const struct sr_build *b,
			    uint32_t l2, uint32_t l3, uint32_t udp_len)
{
	uint8_t *p;

	memcpy(buf, b->dmac, 6);
	memcpy(buf + 6, b->smac, 6);
	p = buf + 12;
	if (b->vlan) {
		sr_put_be16(p, SR_ETHERTYPE_VLAN);
		sr_put_be16(p + 2, b->vlan_tci);
		p += 4;
	}
	sr_put_be16(p, l3 == sizeof(struct sr_ipv4) ? SR_ETHERTYPE_IPV4
						    : SR_ETHERTYPE_IPV6);
	p = buf + l2;
	if (l3 == sizeof(struct sr_ipv4))
		sr_build_ipv4(p, b, l3 + udp_len);
	else
		sr_build_ipv6(p, b, udp_len);
	p += l3;
	sr_put_be16(p, b->sport);
	sr_put_be16(p + 2, SR_ROCE_PORT);
	sr_put_be16(p + 4, (uint16_t)udp_len);
	sr_put_be16(p + 6, b->udp_csum);
}

/* whole: cap must hold the frame (payload after the headers), not just them */
static int sr_build_hdrs_(uint8_t *buf, uint32_t cap, const struct sr_build *b,
			  uint32_t payload_len, struct sr_pkt *pkt, bool whole)
{
	const struct sr_opcode_info *op = sr_opcode_info(b->opcode);
	const struct sr_build_tmpl *t = b->tmpl;
	struct sr_pkt local;
	uint32_t l2, l3, pad = (4 - (payload_len & 3)) & 3;
	uint32_t udp_len, flen;
	uint8_t *p;

	if (op == NULL || payload_len > SR_MAX_PAYLOAD)
		return -EINVAL;
	if (!(op->flags & SR_OPF_PAYLOAD) && payload_len != 0)
		return -EINVAL;
	if (t != NULL) {
		l2 = t->l3;
		l3 = (uint32_t)(t->l4 - t->l3);
	} else {
		l2 = sr_build_l2_len(b);
		l3 = sr_build_l3_len(b);
	}
	udp_len = (uint32_t)sizeof(struct sr_udp) + op->hdr_len + payload_len +
		  pad + SR_ICRC_LEN;
	flen = l2 + l3 + udp_len;
	if ((whole ? flen : l2 + l3 + (uint32_t)sizeof(struct sr_udp) +
			    op->hdr_len) > cap)
		return -ENOSPC;
	if (pkt == NULL)
		pkt = &local;
	memset(pkt, 0, sizeof(*pkt));
	if (t != NULL)
		sr_build_from_tmpl(buf, t, udp_len, b->ip_id);
	else
		sr_build_to_udp(buf, b, l2, l3, udp_len);
	p = buf + l2 + l3 + sizeof(struct sr_udp);
	sr_build_bth(p, b, (uint8_t)pad);

	pkt->frame = buf;
	pkt->frame_len = flen;
	pkt->has_vlan = t != NULL ? t->vlan : b->vlan;
	pkt->vlan_tci = t != NULL ? t->vlan_tci : b->vlan_tci;
	pkt->ipv6 = l3 != sizeof(struct sr_ipv4);
	pkt->l3 = (uint16_t)l2;
	pkt->l4 = (uint16_t)(l2 + l3);
	pkt->bth = (uint16_t)(pkt->l4 + sizeof(struct sr_udp));
	pkt->opcode = b->opcode;
	pkt->op = op;
	pkt->pad = (uint8_t)pad;
	pkt->payload = (uint16_t)(pkt->bth + op->hdr_len);
	pkt->payload_len = payload_len;
	pkt->end = pkt->payload + payload_len + pad;
	memcpy(pkt->ext, op->ext, SR_EXT_MAX);
	sr_build_ext(p, pkt->ext, op->hdrs, b);
	return pkt->payload;
}

int sr_build_hdrs(uint8_t *buf, uint32_t cap, const struct sr_build *b,
		  uint32_t payload_len, struct sr_pkt *pkt)
{
	return sr_build_hdrs_(buf, cap, b, payload_len, pkt, true);
}

int sr_build_hdrs_ref(uint8_t *buf, uint32_t cap, const struct sr_build *b,
		      uint32_t payload_len, struct sr_pkt *pkt)
{
	return sr_build_hdrs_(buf, cap, b, payload_len, pkt, false);
}

uint32_t sr_build_finish_ref(const uint8_t *hdr, const struct sr_pkt *pkt,
			     const uint8_t *payload, uint8_t *tail)
{
	static const uint8_t zeros[4];
	uint32_t crc = sr_icrc_hdrs(hdr + pkt->l3, pkt->ipv6,
				    pkt->payload - pkt->l3);

	crc = sr_icrc_update(crc, payload, pkt->payload_len);
	crc = sr_icrc_update(crc, zeros, pkt->pad);
	memset(tail, 0, pkt->pad);
	sr_icrc_store(tail + pkt->pad, crc);
	return (uint32_t)pkt->pad + SR_ICRC_LEN;
}

uint32_t sr_build_finish(uint8_t *buf, const struct sr_pkt *pkt)
{
	memset(buf + pkt->payload + pkt->payload_len, 0, pkt->pad);
	sr_icrc_store(buf + pkt->end,
		      sr_icrc_calc(buf + pkt->l3, pkt->ipv6, pkt->end - pkt->l3));
	return pkt->end + SR_ICRC_LEN;
}

int sr_build_frame(uint8_t *buf, uint32_t cap, const struct sr_build *b,
		   const void *payload, uint32_t payload_len)
{
	struct sr_pkt pkt;
	int off = sr_build_hdrs(buf, cap, b, payload_len, &pkt);

	if (off < 0)
		return off;
	if (payload_len)
		memcpy(buf + off, payload, payload_len);
	return (int)sr_build_finish(buf, &pkt);
}

void sr_build_from_pkt(struct sr_build *b, const struct sr_pkt *p)
{
	const uint8_t *f = p->frame;
	const uint8_t *ip = f + p->l3;
	const struct sr_bth *bth = sr_pkt_bth(p);
	const struct sr_udp *udp = sr_pkt_udp(p);
	const uint8_t *h;

	memset(b, 0, sizeof(*b));
	memcpy(b->dmac, f, 6);
	memcpy(b->smac, f + 6, 6);
	b->vlan = p->has_vlan;
	b->vlan_tci = p->vlan_tci;
	sr_pkt_sgid(p, b->sgid);
	sr_pkt_dgid(p, b->dgid);
	if (p->ipv6) {
		uint32_t w = sr_get_be32(ip);

		b->tclass = (uint8_t)(w >> 20);
		b->flow_label = w & 0xfffff;
		b->hop_limit = ip[7];
	} else {
		b->tclass = ip[1];
		b->ip_id = sr_get_be16(ip + 4);
		b->ip_df = sr_get_be16(ip + 6) & 0x4000;
		b->hop_limit = ip[8];
	}
	b->sport = sr_get_be16(udp->sport);
	b->udp_csum = sr_get_be16(udp->csum);
	b->opcode = sr_bth_opcode(bth);
	b->se = sr_bth_se(bth);
	b->mig = sr_bth_mig(bth);
	b->pkey = sr_bth_pkey(bth);
	b->fecn_becn = sr_bth_fecn_becn(bth);
	b->dqpn = sr_bth_dqpn(bth);
	b->ackreq = sr_bth_ackreq(bth);
	b->psn = sr_bth_psn(bth);
	if ((h = sr_pkt_ext(p, SR_EXT_RDETH)))
		b->rdeth_eecn = sr_rdeth_eecn((const struct sr_rdeth *)h);
	if ((h = sr_pkt_ext(p, SR_EXT_DETH))) {
		b->deth_qkey = sr_deth_qkey((const struct sr_deth *)h);
		b->deth_sqpn = sr_deth_sqpn((const struct sr_deth *)h);
	}
	if ((h = sr_pkt_ext(p, SR_EXT_XRCETH)))
		b->xrc_srqn = sr_xrceth_srqn((const struct sr_xrceth *)h);
	if ((h = sr_pkt_ext(p, SR_EXT_FETH)))
		b->feth = sr_feth_bits((const struct sr_feth *)h);
	if ((h = sr_pkt_ext(p, SR_EXT_RETH))) {
		b->reth_va = sr_reth_va((const struct sr_reth *)h);
		b->reth_rkey = sr_reth_rkey((const struct sr_reth *)h);
		b->reth_len = sr_reth_len((const struct sr_reth *)h);
	}
	if ((h = sr_pkt_ext(p, SR_EXT_ATMETH))) {
		b->atm_va = sr_atmeth_va((const struct sr_atmeth *)h);
		b->atm_rkey = sr_atmeth_rkey((const struct sr_atmeth *)h);
		b->atm_swap_add = sr_atmeth_swap_add((const struct sr_atmeth *)h);
		b->atm_cmp = sr_atmeth_cmp((const struct sr_atmeth *)h);
	}
	if ((h = sr_pkt_ext(p, SR_EXT_AETH))) {
		b->aeth_syndrome = sr_aeth_syndrome((const struct sr_aeth *)h);
		b->aeth_msn = sr_aeth_msn((const struct sr_aeth *)h);
	}
	if ((h = sr_pkt_ext(p, SR_EXT_ATMACK)))
		b->atmack_orig = sr_atmack_orig((const struct sr_atmack *)h);
	if ((h = sr_pkt_ext(p, SR_EXT_IMMDT)))
		b->imm = sr_immdt_imm((const struct sr_immdt *)h);
	if ((h = sr_pkt_ext(p, SR_EXT_IETH)))
		b->ieth_rkey = sr_ieth_rkey((const struct sr_ieth *)h);
}
