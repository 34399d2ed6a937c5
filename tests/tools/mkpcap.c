/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mkpcap OUT.pcap — write a capture that mixes what sroce-pcap must handle:
 * IPv4 and IPv6, with and without 802.1Q, RC/UC/UD, a CM MAD on QP1, every
 * extension header, one frame with a bad ICRC, one malformed RoCEv2 frame,
 * and non-RoCE frames (ARP, TCP, UDP to another port).
 */
#include <pcap/pcap.h>
#include <stdio.h>
#include <string.h>

#include "wire/build.h"

static pcap_dumper_t *out;
static unsigned int tick;

static void dump(const uint8_t *f, uint32_t len)
{
	struct pcap_pkthdr h = { .caplen = len, .len = len };

	h.ts.tv_sec = 1700000000;
	h.ts.tv_usec = (int)(tick++ * 10);
	pcap_dump((u_char *)out, &h, f);
}

static uint8_t next_tclass;   /* traffic class of the next frame only */

static void base(struct sr_build *b, uint8_t opcode, bool v6, bool vlan)
{
	memset(b, 0, sizeof(*b));
	b->tclass = next_tclass;
	next_tclass = 0;
	memcpy(b->dmac, "\x02\x00\x00\x00\x00\x02", 6);
	memcpy(b->smac, "\x02\x00\x00\x00\x00\x01", 6);
	b->vlan = vlan;
	b->vlan_tci = 100;
	if (v6) {
		b->sgid[0] = 0xfe; b->sgid[1] = 0x80; b->sgid[15] = 1;
		b->dgid[0] = 0xfe; b->dgid[1] = 0x80; b->dgid[15] = 2;
	} else {
		b->sgid[10] = b->sgid[11] = 0xff;
		b->dgid[10] = b->dgid[11] = 0xff;
		memcpy(b->sgid + 12, "\x0a\x00\x00\x01", 4);
		memcpy(b->dgid + 12, "\x0a\x00\x00\x02", 4);
	}
	b->hop_limit = 64;
	b->ip_df = true;
	b->sport = 0xc001;
	b->opcode = opcode;
	b->pkey = 0xffff;
	b->dqpn = 0x12;
	b->psn = 100;
	b->ackreq = true;
	b->reth_va = 0x1000; b->reth_rkey = 0x1234; b->reth_len = 8;
	b->atm_va = 0x2000; b->atm_rkey = 0x4321; b->atm_swap_add = 5; b->atm_cmp = 7;
	b->aeth_syndrome = 0x1f; b->aeth_msn = 3;
	b->atmack_orig = 42; b->imm = 0xcafe; b->ieth_rkey = 0x777;
	b->deth_qkey = 0x80010000; b->deth_sqpn = 1;
}

static int make(uint8_t opcode, bool v6, bool vlan, uint32_t plen, uint8_t *f)
{
	static const uint8_t payload[256] = { 1, 2, 3 };
	struct sr_build b;

	base(&b, opcode, v6, vlan);
	return sr_build_frame(f, 2048, &b, payload, plen);
}

static void emit(uint8_t opcode, bool v6, bool vlan, uint32_t plen, uint8_t *f)
{
	int n = make(opcode, v6, vlan, plen, f);

	if (n > 0)
		dump(f, (uint32_t)n);
}

int main(int argc, char **argv)
{
	static const uint8_t arp[42] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 2, 0, 0, 0, 0, 1, 0x08, 0x06 };
	uint8_t f[2048], mad[256] = { 1, 7, 2, 3 };
	struct sr_build b;
	pcap_t *pd;
	int n;

	if (argc != 2)
		return 2;
	pd = pcap_open_dead(DLT_EN10MB, 65535);
	out = pcap_dump_open(pd, argv[1]);
	if (!out)
		return 2;
	dump(arp, sizeof(arp));
	emit(SR_OPCODE(RC, SEND_ONLY), false, false, 5, f);
	emit(SR_OPCODE(RC, WRITE_ONLY_IMM), true, false, 8, f);
	emit(SR_OPCODE(RC, READ_REQUEST), false, true, 0, f);
	next_tclass = 0x03;   /* CE-marked by a switch */
	emit(SR_OPCODE(RC, READ_RESPONSE_ONLY), true, true, 8, f);
	emit(SR_OPCODE(RC, COMPARE_SWAP), false, false, 0, f);
	emit(SR_OPCODE(RC, ATOMIC_ACKNOWLEDGE), false, false, 0, f);
	emit(SR_OPCODE(RC, SEND_ONLY_INV), false, false, 4, f);
	emit(SR_OPCODE(RC, FLUSH), false, false, 0, f);
	emit(SR_OPCODE(RC, ATOMIC_WRITE), false, false, 8, f);
	emit(SR_OPCODE(UC, WRITE_ONLY), true, false, 100, f);
	emit(SR_OPCODE(UD, SEND_ONLY_IMM), true, false, 64, f);
	/* A CNP as ConnectX sends it: BECN, PSN 0, 16 zero bytes, DSCP 48. */
	base(&b, SR_OPCODE_CNP, false, false);
	b.psn = 0;
	b.ackreq = false;
	b.fecn_becn = 0x40;
	b.tclass = 48 << 2;
	n = sr_build_frame(f, sizeof(f), &b, (const uint8_t[SR_CNP_PAYLOAD]){ 0 },
			   SR_CNP_PAYLOAD);
	dump(f, (uint32_t)n);
	/* A CM REQ MAD on QP1 over UD. */
	base(&b, SR_OPCODE(UD, SEND_ONLY), false, false);
	b.dqpn = 1;
	mad[16] = 0x00;
	mad[17] = 0x10;
	n = sr_build_frame(f, sizeof(f), &b, mad, 256);
	dump(f, (uint32_t)n);
	/* Bad ICRC. */
	n = make(SR_OPCODE(RC, ACKNOWLEDGE), false, false, 0, f);
	f[n - 1] ^= 0xff;
	dump(f, (uint32_t)n);
	/* Malformed: transport version 1. */
	n = make(SR_OPCODE(RC, SEND_ONLY), true, false, 4, f);
	f[14 + 40 + 8 + 1] |= 1;
	dump(f, (uint32_t)n);
	/* Not RoCE: the same frame to UDP port 4790, and as TCP. */
	n = make(SR_OPCODE(RC, SEND_ONLY), true, false, 4, f);
	f[14 + 40 + 3] = 0xb6;
	dump(f, (uint32_t)n);
	f[14 + 6] = 6;
	dump(f, (uint32_t)n);
	pcap_dump_close(out);
	pcap_close(pd);
	return 0;
}
