/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * forge.c — a hostile client of sroced: it attaches like any process
 * (pmd/daemon.h), opens its frame channel with the pmd API and writes
 * crafted RoCEv2 frames into it, bypassing the transport:
 *   1. a UD SEND to victim_qpn whose DETH names a source QP of another
 *      client's block (victim_qpn's own): must be dropped as forged;
 *   2. a UD SEND from a QP of its own block but another source IP:
 *      forged;
 *   3. a UD SEND from another source MAC: forged;
 *   4. an RC SEND to victim_qpn, which no QP of its own is connected to:
 *      forged;
 *   5. a CM DREQ from QP1 that speaks for a communication ID of another
 *      client's block (victim_qpn's): forged (QP1 and the CM's IDs are
 *      the daemon's, lib/cm/route.h);
 *   6. a MAD to QP1 from a UD QP of its own block: forged (only QP1
 *      speaks to QP1);
 *   7. an XRC SEND to victim_qpn, which no QP of its own is connected
 *      to: forged;
 *   8. a good UD SEND from its own QP to a QPN of its own block at the
 *      device's address: the daemon switches it back to this channel.
 *
 *   forge VICTIM_QPN
 * Prints "forged 7 sent, good 1 sent, good 1 came back" and exits 0 when
 * the good frame came back; the test reads the daemon's counters.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cm/mad.h"
#include "daemon.h"
#include "pmd.h"
#include "wire/build.h"
#include "wire/hdr.h"

static int got_back;
static uint32_t want_dqpn;

static void on_rx(void *ctx, const struct sr_link_frame *f, unsigned int n)
{
	struct sr_pkt pkt;

	(void)ctx;
	for (unsigned int i = 0; i < n; i++)
		if (sr_parse_eth(f[i].data, f[i].len, 0, &pkt) == SR_PARSE_OK &&
		    sr_bth_dqpn(sr_pkt_bth(&pkt)) == want_dqpn)
			got_back++;
}

static uint8_t mad[SR_MAD_SIZE];

static int send_op(struct sr_pmd_dev *dev, uint8_t opcode, const uint8_t smac[6],
		   const uint8_t dmac[6], const uint8_t sgid[16],
		   const uint8_t dgid[16], uint32_t dqpn, uint32_t sqpn)
{
	const struct sr_link_ops *ops = sr_pmd_link_ops();
	struct sr_build b = { 0 };
	static const char text[64] = "forged by tests/sroced/forge.c";
	const void *payload = dqpn == 1 ? (const void *)mad : text;
	uint32_t plen = dqpn == 1 ? SR_MAD_SIZE : sizeof(text);
	void *cookie;
	uint8_t *buf;
	int len;

	memcpy(b.smac, smac, 6);
	memcpy(b.dmac, dmac, 6);
	memcpy(b.sgid, sgid, 16);
	memcpy(b.dgid, dgid, 16);
	b.hop_limit = 64;
	b.sport = 0xc000;
	b.opcode = opcode;         /* UD, RC or XRC SEND_ONLY (0x64, 0x04, 0xa4) */
	b.pkey = 0xffff;
	b.dqpn = dqpn;
	b.psn = 1;
	b.deth_qkey = dqpn == 1 ? SR_GSI_QKEY : 0x11111111;
	b.deth_sqpn = sqpn;
	buf = ops->tx_alloc(sr_pmd_link(dev), 512, &cookie);
	if (buf == NULL)
		return -ENOBUFS;
	len = sr_build_frame(buf, 512, &b, payload, plen);
	if (len < 0) {
		ops->tx_abort(sr_pmd_link(dev), cookie);
		return len;
	}
	ops->tx_submit(sr_pmd_link(dev), cookie, (uint32_t)len);
	return 0;
}

int main(int argc, char **argv)
{
	struct sr_pmd_daemon_att att;
	struct sr_pmd_config cfg;
	struct sr_pmd_dev *dev;
	char err[256] = "";
	uint8_t sgid[16] = { [10] = 0xff, [11] = 0xff }, other[16];
	uint8_t bad_mac[6] = { 0x02, 0xba, 0xd0, 0, 0, 1 };
	uint32_t victim, mine;
	bool required;
	const char *sock = sr_pmd_daemon_socket(&required);
	struct timespec t0, t;
	struct sr_cm_msg dreq = { .method = SR_MAD_METHOD_SEND,
				  .attr = SR_CM_ATTR_DREQ };
	int rc;

	if (argc != 2 || sock == NULL) {
		fprintf(stderr, "usage: SROCE_DAEMON=SOCK forge VICTIM_QPN\n");
		return 2;
	}
	victim = (uint32_t)strtoul(argv[1], NULL, 0);
	rc = sr_pmd_daemon_attach(sock, 0, &cfg, &att, err, sizeof(err));
	if (rc == 0)
		rc = sr_pmd_dev_create(&cfg, -1, &dev, err, sizeof(err));
	if (rc) {
		fprintf(stderr, "forge: %s\n", err);
		return 1;
	}
	sr_pmd_set_rx_handler(dev, on_rx, NULL);
	if (sr_pmd_link_wait(dev, 5000)) {
		fprintf(stderr, "forge: the channel did not come up\n");
		return 1;
	}
	memcpy(sgid + 12, cfg.ipv4, 4);
	memcpy(other, sgid, 16);
	other[15] ^= 0x55;           /* someone else's IPv4 address */
	mine = att.qpn_base + 7;
	want_dqpn = att.qpn_base + 9;
	rc = send_op(dev, 0x64, cfg.mac, cfg.gw_mac, sgid, sgid, victim, victim + 1);
	rc |= send_op(dev, 0x64, cfg.mac, cfg.gw_mac, other, sgid, victim, mine);
	rc |= send_op(dev, 0x64, bad_mac, cfg.gw_mac, sgid, sgid, victim, mine);
	/* RC, then XRC (SEND_ONLY 0xa4), to a QP none of ours is connected to */
	rc |= send_op(dev, 0x04, cfg.mac, cfg.gw_mac, sgid, sgid, victim, 0);
	rc |= send_op(dev, 0xa4, cfg.mac, cfg.gw_mac, sgid, sgid, victim, 0);
	/* a DREQ in the name of the victim's block's CM, from QP1, then
	 * from a UD QP of ours */
	dreq.local_comm_id = (victim >> 12) << 20 | 1;
	dreq.remote_comm_id = 0x1234;
	if (sr_mad_build(&dreq, mad) != (int)SR_MAD_SIZE)
		return 1;
	rc |= send_op(dev, 0x64, cfg.mac, cfg.gw_mac, sgid, other, 1, 1);
	dreq.local_comm_id = (att.qpn_base >> 12) << 20 | 1;
	if (sr_mad_build(&dreq, mad) != (int)SR_MAD_SIZE)
		return 1;
	rc |= send_op(dev, 0x64, cfg.mac, cfg.gw_mac, sgid, other, 1, mine);
	rc |= send_op(dev, 0x64, cfg.mac, cfg.gw_mac, sgid, sgid, want_dqpn, mine);
	if (rc) {
		fprintf(stderr, "forge: cannot send\n");
		return 1;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		sr_pmd_progress(dev);
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while (got_back == 0 && t.tv_sec - t0.tv_sec < 5);
	printf("forged 7 sent, good 1 sent, good %d came back\n", got_back);
	sr_pmd_dev_destroy(dev);
	return got_back == 1 ? 0 : 1;
}
