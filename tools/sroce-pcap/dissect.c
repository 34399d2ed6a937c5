/* SPDX-License-Identifier: BSD-3-Clause */
#include "dissect.h"

#include <arpa/inet.h>
#include <inttypes.h>

#include "cm/cma_hdr.h"
#include "cm/mad.h"
#include "wire/cnp.h"
#include "wire/hdr.h"

const char *sr_dissect_opname(uint8_t opcode, char *buf, size_t len)
{
	const struct sr_opcode_info *op = sr_opcode_info(opcode);

	if (opcode == SR_OPCODE_CNP)
		snprintf(buf, len, "CNP");
	else
		snprintf(buf, len, "%s %s", sr_transport_name(opcode),
			 op ? op->name : "?");
	return buf;
}

static void sr_dissect_addr(FILE *out, const uint8_t gid[16])
{
	char s[INET6_ADDRSTRLEN];

	if (sr_gid_is_v4(gid))
		inet_ntop(AF_INET, gid + 12, s, sizeof(s));
	else
		inet_ntop(AF_INET6, gid, s, sizeof(s));
	fputs(s, out);
}

static void sr_dissect_ext(FILE *out, const struct sr_pkt *p)
{
	const void *h;
	char syn[48];

	if ((h = sr_pkt_ext(p, SR_EXT_DETH)))
		fprintf(out, " DETH[qkey=0x%08x sqp=0x%06x]",
			sr_deth_qkey(h), sr_deth_sqpn(h));
	if ((h = sr_pkt_ext(p, SR_EXT_RDETH)))
		fprintf(out, " RDETH[eec=0x%06x]", sr_rdeth_eecn(h));
	if ((h = sr_pkt_ext(p, SR_EXT_XRCETH)))
		fprintf(out, " XRCETH[srq=0x%06x]", sr_xrceth_srqn(h));
	if ((h = sr_pkt_ext(p, SR_EXT_FETH)))
		fprintf(out, " FETH[sel=%u plt=%u]", sr_feth_selectivity(h),
			sr_feth_placement(h));
	if ((h = sr_pkt_ext(p, SR_EXT_RETH)))
		fprintf(out, " RETH[va=0x%016" PRIx64 " rkey=0x%08x len=%u]",
			sr_reth_va(h), sr_reth_rkey(h), sr_reth_len(h));
	if ((h = sr_pkt_ext(p, SR_EXT_ATMETH)))
		fprintf(out,
			" AtomicETH[va=0x%016" PRIx64 " rkey=0x%08x swap_add=0x%" PRIx64
			" cmp=0x%" PRIx64 "]",
			sr_atmeth_va(h), sr_atmeth_rkey(h),
			sr_atmeth_swap_add(h), sr_atmeth_cmp(h));
	if ((h = sr_pkt_ext(p, SR_EXT_AETH)))
		fprintf(out, " AETH[%s msn=%u]",
			sr_aeth_syndrome_str(sr_aeth_syndrome(h), syn, sizeof(syn)),
			sr_aeth_msn(h));
	if ((h = sr_pkt_ext(p, SR_EXT_ATMACK)))
		fprintf(out, " AtomicAckETH[orig=0x%" PRIx64 "]",
			sr_atmack_orig(h));
	if ((h = sr_pkt_ext(p, SR_EXT_IMMDT)))
		fprintf(out, " ImmDt[0x%08x]", sr_immdt_imm(h));
	if ((h = sr_pkt_ext(p, SR_EXT_IETH)))
		fprintf(out, " IETH[rkey=0x%08x]", sr_ieth_rkey(h));
}

/* The cma header of a REQ/SIDR_REQ: source and destination IP, port. */
static void sr_dissect_cma(FILE *out, const struct sr_cm_msg *m)
{
	struct sr_cma_addr a;
	char src[INET6_ADDRSTRLEN], dst[INET6_ADDRSTRLEN];
	int af;

	if (sr_cma_service_ps(m->service_id) == 0 ||
	    sr_cma_hdr_get(m->pdata, m->pdata_len, &a) != 0)
		return;
	af = a.ip_version == 4 ? AF_INET : AF_INET6;
	inet_ntop(af, af == AF_INET ? a.src + 12 : a.src, src, sizeof(src));
	inet_ntop(af, af == AF_INET ? a.dst + 12 : a.dst, dst, sizeof(dst));
	fprintf(out, " cma[%s:%u > %s]", src, a.port, dst);
}

/* The fields of a CM message that tell a handshake apart. */
static void sr_dissect_cm(FILE *out, const struct sr_cm_msg *m)
{
	switch (m->attr) {
	case SR_CM_ATTR_REQ:
		fprintf(out, "lcid=0x%08x sid=0x%016" PRIx64 " qpn=0x%06x psn=%u",
			m->local_comm_id, m->service_id, m->qpn, m->psn);
		sr_dissect_cma(out, m);
		break;
	case SR_CM_ATTR_REP:
		fprintf(out, "lcid=0x%08x rcid=0x%08x qpn=0x%06x psn=%u",
			m->local_comm_id, m->remote_comm_id, m->qpn, m->psn);
		break;
	case SR_CM_ATTR_REJ:
		fprintf(out, "lcid=0x%08x rcid=0x%08x reason=%u", m->local_comm_id,
			m->remote_comm_id, m->reason);
		break;
	case SR_CM_ATTR_MRA:
		fprintf(out, "lcid=0x%08x rcid=0x%08x mraed=%u timeout=%u",
			m->local_comm_id, m->remote_comm_id, m->msg_type,
			m->service_timeout);
		break;
	case SR_CM_ATTR_SIDR_REQ:
		fprintf(out, "reqid=0x%08x sid=0x%016" PRIx64, m->local_comm_id,
			m->service_id);
		sr_dissect_cma(out, m);
		break;
	case SR_CM_ATTR_SIDR_REP:
		fprintf(out, "reqid=0x%08x status=%u qpn=0x%06x qkey=0x%08x",
			m->local_comm_id, m->status, m->qpn, m->qkey);
		break;
	default:
		fprintf(out, "lcid=0x%08x rcid=0x%08x", m->local_comm_id,
			m->remote_comm_id);
		break;
	}
}

/* A CNP (IBTA A17.9.3): its 16 bytes are reserved, sent as zero. */
static void sr_dissect_cnp(FILE *out, const struct sr_pkt *p)
{
	const uint8_t *r = sr_pkt_payload(p);
	uint8_t any = 0;

	for (uint32_t i = 0; i < p->payload_len; i++)
		any |= r[i];
	fprintf(out, " CNP[reserved=%s]", any ? "NONZERO" : "zero");
}

/* A MAD on QP1: class, method, attribute; a CM message decoded by
 * lib/cm's parser, or the reason it refuses it. */
static void sr_dissect_mad(FILE *out, const struct sr_pkt *p)
{
	const uint8_t *m = sr_pkt_payload(p);
	struct sr_cm_msg msg;
	enum sr_mad_err err = SR_MAD_ERR_SHORT;

	if (sr_bth_dqpn(sr_pkt_bth(p)) != 1 || p->payload_len < 24)
		return;
	fprintf(out, " MAD[class=0x%02x method=0x%02x attr=0x%04x", m[1], m[3],
		sr_get_be16(m + 16));
	if (m[1] == SR_MAD_CLASS_CM) {
		err = sr_mad_parse(m, p->payload_len, &msg);
		if (err != SR_MAD_ERR_OK)
			fprintf(out, " CM refused: %s", sr_mad_err_name[err]);
		else if (msg.method == SR_MAD_METHOD_SEND)
			fprintf(out, " CM %s", sr_cm_attr_info[msg.attr].name);
	}
	fputc(']', out);
	if (m[1] == SR_MAD_CLASS_CM && err == SR_MAD_ERR_OK &&
	    msg.method == SR_MAD_METHOD_SEND) {
		fputs(" CM[", out);
		sr_dissect_cm(out, &msg);
		fputc(']', out);
	}
}

void sr_dissect_line(FILE *out, const struct sr_pkt *p, bool icrc_ok)
{
	static const char *const ecn_names[] = {
		[SR_ECN_NOT_ECT] = "-", [SR_ECN_ECT1] = "ECT1",
		[SR_ECN_ECT0] = "ECT0", [SR_ECN_CE] = "CE",
	};
	const struct sr_bth *bth = sr_pkt_bth(p);
	const struct sr_udp *udp = sr_pkt_udp(p);
	uint8_t gid[16];
	char name[48];

	sr_pkt_sgid(p, gid);
	sr_dissect_addr(out, gid);
	fputs(" > ", out);
	sr_pkt_dgid(p, gid);
	sr_dissect_addr(out, gid);
	if (p->has_vlan)
		fprintf(out, " vlan=%u", p->vlan_tci & 0xfff);
	fprintf(out, " udp %u>%u %s qp=0x%06x psn=%u%s%s pkey=0x%04x",
		sr_get_be16(udp->sport), sr_get_be16(udp->dport),
		sr_dissect_opname(p->opcode, name, sizeof(name)),
		sr_bth_dqpn(bth), sr_bth_psn(bth),
		sr_bth_ackreq(bth) ? " A" : "", sr_bth_se(bth) ? " SE" : "",
		sr_bth_pkey(bth));
	/* congestion marks after the fields every line has, so parsers of
	 * "time src > dst udp ports opcode qp psn" keep working */
	if (sr_pkt_ecn(p) != SR_ECN_NOT_ECT)
		fprintf(out, " ecn=%s", ecn_names[sr_pkt_ecn(p)]);
	if (sr_bth_fecn_becn(bth) & SR_BTH_FECN)
		fputs(" FECN", out);
	if (sr_bth_fecn_becn(bth) & SR_BTH_BECN)
		fputs(" BECN", out);
	sr_dissect_ext(out, p);
	if (p->opcode == SR_OPCODE_CNP)
		sr_dissect_cnp(out, p);
	if ((p->opcode & SR_TT_MASK) == SR_TT_UD)
		sr_dissect_mad(out, p);
	fprintf(out, " payload=%u pad=%u icrc=%s\n", p->payload_len, p->pad,
		icrc_ok ? "ok" : "BAD");
}
