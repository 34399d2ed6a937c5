/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mad_inject — hostile and stray datagrams to a running device's QP1, from
 * the other node of the default link (the device under test is node 0,
 * 10.0.0.1, with an RDMA-CM listener; this program is node 1):
 *
 *   refused by QP1 (counted in gsi_drop): an RC opcode to QPN 1, the wrong
 *     Q_Key, a MAD cut short;
 *   refused by the CM (counted in cm_drop): garbage, an unknown attribute,
 *     a class version the CM does not speak, a REP nobody asked for;
 *   answered as the specification says: a REQ for a service nobody listens
 *     to gets a REJ with reason 8 (invalid service ID), a DREQ for no
 *     connection gets a DREP, a SIDR_REQ for no service a SIDR_REP with
 *     status 1 (not supported).
 * Exit 0 when every answer came and was right.  The script checks the
 * device's counters and that it still serves a real connection.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cm/cma_hdr.h"
#include "cm/mad.h"
#include "pmd.h"
#include "wire/build.h"
#include "wire/parse.h"

#define MI_TIMEOUT_MS 10000

struct mi {
	struct sr_pmd_dev *dev;
	uint8_t mac[6], peer_mac[6];
	uint8_t sgid[16], dgid[16];
	uint32_t psn;
	/* what came back to QP1 */
	unsigned int rej8, drep, sidr_unsup, other;
};

static void mi_rx(void *ctx, const struct sr_link_frame *f, unsigned int n)
{
	struct mi *mi = ctx;

	for (unsigned int i = 0; i < n; i++) {
		struct sr_cm_msg m;
		struct sr_pkt pkt;

		if (sr_parse_eth(f[i].data, f[i].len, 0, &pkt) != SR_PARSE_OK ||
		    sr_bth_dqpn(sr_pkt_bth(&pkt)) != SR_GSI_QPN ||
		    sr_mad_parse(sr_pkt_payload(&pkt), pkt.payload_len, &m) !=
			    SR_MAD_ERR_OK) {
			mi->other++;
			continue;
		}
		if (m.attr == SR_CM_ATTR_REJ && m.reason == 8)
			mi->rej8++;
		else if (m.attr == SR_CM_ATTR_DREP)
			mi->drep++;
		else if (m.attr == SR_CM_ATTR_SIDR_REP && m.status == 1)
			mi->sidr_unsup++;
		else
			mi->other++;
	}
}

/* One UD frame to the peer's QPN 1 with payload, opcode and Q_Key. */
static int mi_send(struct mi *mi, uint8_t opcode, uint32_t qkey,
		   const uint8_t *payload, uint32_t len)
{
	const struct sr_link_ops *ops = sr_pmd_link_ops();
	struct sr_build b = {
		.hop_limit = 64,
		.ip_df = true,
		.ackreq = true,
		.sport = 0xC001,
		.opcode = opcode,
		.pkey = 0xFFFF,
		.dqpn = SR_GSI_QPN,
		.deth_qkey = qkey,
		.deth_sqpn = SR_GSI_QPN,
	};
	uint8_t frame[512];
	void *cookie;
	uint8_t *buf;
	int n;

	memcpy(b.dmac, mi->peer_mac, 6);
	memcpy(b.smac, mi->mac, 6);
	memcpy(b.sgid, mi->sgid, 16);
	memcpy(b.dgid, mi->dgid, 16);
	b.psn = mi->psn++;
	n = sr_build_frame(frame, sizeof(frame), &b, payload, len);
	if (n < 0)
		return n;
	buf = ops->tx_alloc(sr_pmd_link(mi->dev), (uint32_t)n, &cookie);
	if (buf == NULL)
		return -ENOBUFS;
	memcpy(buf, frame, (size_t)n);
	ops->tx_submit(sr_pmd_link(mi->dev), cookie, (uint32_t)n);
	return 0;
}

static void mi_mad(struct sr_cm_msg *m, enum sr_cm_attr attr, uint64_t tid)
{
	memset(m, 0, sizeof(*m));
	m->attr = attr;
	m->method = SR_MAD_METHOD_SEND;
	m->class_version = SR_MAD_CM_CLASS_VERSION;
	m->tid = tid;
}

static void mi_progress_ms(struct mi *mi, uint32_t ms)
{
	uint64_t end = sr_pmd_now_ns(mi->dev) + (uint64_t)ms * 1000000u;
	const struct timespec nap = { .tv_nsec = 50000 };

	while (sr_pmd_now_ns(mi->dev) < end)
		if (sr_pmd_progress(mi->dev) == 0)
			nanosleep(&nap, NULL);
}

int main(void)
{
	static const uint8_t peer_ip[4] = { 10, 0, 0, 1 };
	struct mi mi = { 0 };
	struct sr_cm_msg m;
	uint8_t mad[SR_MAD_SIZE], pdata[SR_CMA_HDR_SIZE];
	struct sr_cma_addr ca = { .ip_version = 4, .port = 40000 };
	uint64_t deadline;
	int rc;

	if (sr_pmd_open(&mi.dev))
		return 2;
	sr_pmd_set_rx_handler(mi.dev, mi_rx, &mi);
	if (sr_pmd_link_wait(mi.dev, MI_TIMEOUT_MS)) {
		fprintf(stderr, "mad_inject: link did not come up\n");
		return 1;
	}
	sr_pmd_mac(mi.dev, mi.mac);
	memcpy(mi.sgid, sr_pmd_gids(mi.dev)->entry[1].gid, 16);  /* IPv4 */
	sr_cma_ipv4_gid(mi.dgid, peer_ip);
	deadline = sr_pmd_now_ns(mi.dev) + MI_TIMEOUT_MS * 1000000ull;
	while ((rc = sr_pmd_resolve(mi.dev, mi.dgid, mi.peer_mac)) == -EAGAIN &&
	       sr_pmd_now_ns(mi.dev) < deadline)
		mi_progress_ms(&mi, 10);
	if (rc) {
		fprintf(stderr, "mad_inject: 10.0.0.1 did not resolve: %d\n", rc);
		return 1;
	}

	/* ---- refused by QP1 ---- */
	mi_mad(&m, SR_CM_ATTR_REQ, 1);
	sr_mad_build(&m, mad);
	mi_send(&mi, SR_OPCODE(RC, SEND_ONLY), SR_GSI_QKEY, mad, SR_MAD_SIZE);
	mi_send(&mi, SR_OPCODE(UD, SEND_ONLY), 0x1234, mad, SR_MAD_SIZE);
	mi_send(&mi, SR_OPCODE(UD, SEND_ONLY), SR_GSI_QKEY, mad, 100);
	/* ---- refused by the CM ---- */
	for (unsigned int i = 0; i < sizeof(mad); i++)
		mad[i] = (uint8_t)(i * 37 + 11);
	mi_send(&mi, SR_OPCODE(UD, SEND_ONLY), SR_GSI_QKEY, mad, SR_MAD_SIZE);
	mi_mad(&m, SR_CM_ATTR_RTU, 2);
	sr_mad_build(&m, mad);
	mad[16] = 0x00;
	mad[17] = 0x99;                          /* attribute 0x0099 */
	mi_send(&mi, SR_OPCODE(UD, SEND_ONLY), SR_GSI_QKEY, mad, SR_MAD_SIZE);
	mi_mad(&m, SR_CM_ATTR_RTU, 3);
	sr_mad_build(&m, mad);
	mad[2] = 9;                              /* class version 9 */
	mi_send(&mi, SR_OPCODE(UD, SEND_ONLY), SR_GSI_QKEY, mad, SR_MAD_SIZE);
	mi_mad(&m, SR_CM_ATTR_REP, 4);
	m.local_comm_id = 0x11111111;
	m.remote_comm_id = 0x22222222;           /* names no id of the CM's */
	sr_mad_build(&m, mad);
	mi_send(&mi, SR_OPCODE(UD, SEND_ONLY), SR_GSI_QKEY, mad, SR_MAD_SIZE);
	/* ---- answered ---- */
	memcpy(ca.src, mi.sgid, 16);
	memcpy(ca.dst, mi.dgid, 16);
	sr_cma_hdr_put(pdata, &ca);
	mi_mad(&m, SR_CM_ATTR_REQ, 5);
	m.local_comm_id = 0x33333333;
	m.service_id = sr_cma_service_id(SR_RDMA_PS_TCP, 9);   /* nobody */
	m.qpn = 0x99;
	m.transport_type = SR_CM_TRANSPORT_RC;
	m.remote_cm_timeout = m.local_cm_timeout = 20;
	m.max_cm_retries = 15;
	m.path_mtu = 3;
	m.pkey = 0xFFFF;
	m.pri.local_lid = m.pri.remote_lid = 0xFFFF;
	memcpy(m.pri.local_gid, mi.sgid, 16);
	memcpy(m.pri.remote_gid, mi.dgid, 16);
	m.pri.hop_limit = 64;
	m.pri.ack_timeout = 19;
	memcpy(m.pdata, pdata, sizeof(pdata));
	m.pdata_len = SR_CM_DATA_SIZE - 140;
	sr_mad_build(&m, mad);
	mi_send(&mi, SR_OPCODE(UD, SEND_ONLY), SR_GSI_QKEY, mad, SR_MAD_SIZE);
	mi_mad(&m, SR_CM_ATTR_DREQ, 6);
	m.local_comm_id = 0x44444444;
	m.remote_comm_id = 0x55555555;
	m.qpn = 0x99;
	sr_mad_build(&m, mad);
	mi_send(&mi, SR_OPCODE(UD, SEND_ONLY), SR_GSI_QKEY, mad, SR_MAD_SIZE);
	mi_mad(&m, SR_CM_ATTR_SIDR_REQ, 7);
	m.local_comm_id = 0x66666666;
	m.pkey = 0xFFFF;
	m.service_id = sr_cma_service_id(SR_RDMA_PS_UDP, 9);
	memcpy(m.pdata, pdata, sizeof(pdata));
	m.pdata_len = SR_CM_DATA_SIZE - 16;
	sr_mad_build(&m, mad);
	mi_send(&mi, SR_OPCODE(UD, SEND_ONLY), SR_GSI_QKEY, mad, SR_MAD_SIZE);

	deadline = sr_pmd_now_ns(mi.dev) + 3000000000ull;
	while ((mi.rej8 == 0 || mi.drep == 0 || mi.sidr_unsup == 0) &&
	       sr_pmd_now_ns(mi.dev) < deadline)
		mi_progress_ms(&mi, 10);
	printf("mad_inject: REJ reason 8: %u, DREP: %u, SIDR_REP unsupported: %u, "
	       "other: %u\n", mi.rej8, mi.drep, mi.sidr_unsup, mi.other);
	sr_pmd_dev_destroy(mi.dev);
	return mi.rej8 == 1 && mi.drep == 1 && mi.sidr_unsup == 1 ? 0 : 1;
}
