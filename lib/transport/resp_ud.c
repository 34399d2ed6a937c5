/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * resp_ud.c — the responder's UD datagrams: SEND_ONLY[_IMM] with a DETH,
 * Q_Key checked, the GRH (IPv6 header, or the IPv4 header in its last 20
 * bytes) then the payload scattered into the receive buffer, one
 * completion per datagram with the network-header type in wc.sl.
 */
#include <string.h>

#include "transport/transport.h"

void sr_resp_ud(struct sr_qp *qp, const struct sr_pkt *pkt)
{
	const struct sr_deth *deth = sr_pkt_ext(pkt, SR_EXT_DETH);
	const struct sr_immdt *imm = sr_pkt_ext(pkt, SR_EXT_IMMDT);
	uint8_t grh[40] = { 0 };
	struct sr_wc wc = {
		.status = SR_WC_SUCCESS,
		.opcode = SR_WC_OP_RECV,
		.wc_flags = SR_WC_GRH,
	};
	struct sr_recv_wqe *w = qp->resp.wqe;
	uint32_t len = pkt->payload_len;

	if (deth == NULL || sr_deth_qkey(deth) != qp->attr.qkey) {
		sr_qp_count(qp, SR_CNT_UD_QKEY_DROP, 1);
		return;
	}
	if (!sr_resp_get_wqe(qp)) {
		sr_qp_count(qp, SR_CNT_UD_NO_RECV_DROP, 1);
		return;
	}
	/* verbs: the GRH (IPv6 header, or IPv4 header in its last 20 bytes) */
	if (pkt->ipv6)
		memcpy(grh, sr_pkt_l3(pkt), 40);
	else
		memcpy(grh + 20, sr_pkt_l3(pkt), 20);
	if (len + 40 > w->length) {
		sr_resp_complete_err(qp, SR_WC_LOC_LEN_ERR);
		return;
	}
	if (sr_dma_scatter(qp, w->sge, w->num_sge, 0, grh, 40) != SR_MR_OK ||
	    (len > 0 && sr_dma_scatter(qp, w->sge, w->num_sge, 40,
				       sr_pkt_payload(pkt), len) != SR_MR_OK)) {
		sr_resp_complete_err(qp, SR_WC_LOC_PROT_ERR);
		return;
	}
	wc.byte_len = len + 40;
	wc.src_qp = sr_deth_sqpn(deth);
	wc.sl = pkt->ipv6 ? SR_WC_SL_ROCEV2_IPV6 : SR_WC_SL_ROCEV2_IPV4;
	if (imm != NULL) {
		wc.imm_data = sr_immdt_imm(imm);
		wc.wc_flags |= SR_WC_WITH_IMM;
	}
	sr_resp_complete(qp, &wc, sr_bth_se(sr_pkt_bth(pkt)));
}
