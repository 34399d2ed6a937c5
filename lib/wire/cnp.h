/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * cnp.h — ECN in the IP header, and the RoCEv2 CNP (IBTA Annex A17.9.3).
 *
 * ECN is the low two bits of the IPv4 TOS / IPv6 traffic class (RFC 3168).
 * The ICRC masks that byte, so a switch marking CE keeps the ICRC valid.
 *
 * A CNP is BTH opcode 0x81 (SE 0, M 0, PadCnt 0, TVer 0), FECN 0, BECN 1,
 * DestQP = the QP that sent the CE-marked packet, AckReq 0, PSN 0, then 16
 * reserved bytes (sent as zero, ignored on receive) and the ICRC.  A
 * ConnectX CNP in the wild: 81 00 ff ff 40 00 00 d2 00 00 00 00, 16 x 00,
 * ICRC.  It is sent Not-ECT, with the DSCP of cnp_dscp.
 */
#ifndef SR_WIRE_CNP_H
#define SR_WIRE_CNP_H

#include <stdint.h>

#include "wire/build.h"
#include "wire/parse.h"

enum sr_ecn {
	SR_ECN_NOT_ECT = 0,
	SR_ECN_ECT1 = 1,
	SR_ECN_ECT0 = 2,
	SR_ECN_CE = 3,
};

#define SR_ECN_MASK 0x3u
#define SR_BTH_FECN 0x80u
#define SR_BTH_BECN 0x40u

/* The IPv4 TOS / IPv6 traffic class of an accepted packet. */
static inline uint8_t sr_pkt_tclass(const struct sr_pkt *p)
{
	const uint8_t *ip = sr_pkt_l3(p);

	return p->ipv6 ? (uint8_t)((ip[0] & 0x0f) << 4 | ip[1] >> 4) : ip[1];
}

static inline enum sr_ecn sr_pkt_ecn(const struct sr_pkt *p)
{
	return (enum sr_ecn)(sr_pkt_tclass(p) & SR_ECN_MASK);
}

/* A traffic class with its ECN bits replaced. */
static inline uint8_t sr_tclass_with_ecn(uint8_t tclass, enum sr_ecn ecn)
{
	return (uint8_t)((tclass & ~SR_ECN_MASK) | ((unsigned int)ecn & SR_ECN_MASK));
}

/*
 * Describe the CNP answering the CE-marked packet ce, for the QP whose
 * packets it was: addresses swapped (MACs, GIDs, VLAN kept), the UDP
 * source port of ce, P_Key of ce, DestQP = dqpn (the sender's QP number,
 * known from the receiving QP's context, not from ce), traffic class
 * dscp << 2 (Not-ECT), hop limit 64.
 */
void sr_cnp_describe(struct sr_build *b, const struct sr_pkt *ce,
		     uint32_t dqpn, uint8_t dscp);

/* Build the frame of b (a CNP description): length or -errno as
 * sr_build_frame(). */
int sr_cnp_build(uint8_t *buf, uint32_t cap, const struct sr_build *b);

#endif /* SR_WIRE_CNP_H */
