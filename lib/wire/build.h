/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * build.h — the one RoCEv2 frame builder.
 *
 * A caller fills struct sr_build (addressing, BTH and whichever extension
 * headers the opcode has; the opcode table decides which are written) and
 * gets a frame: Ethernet (optional 802.1Q), IPv4 or IPv6 (chosen by the
 * GIDs: an IPv4-mapped GID means IPv4), UDP, BTH, extension headers,
 * payload, pad and ICRC.  Lengths, pad count and IPv4 checksum are computed.
 *
 * Two steps for callers that place the payload themselves (zero copy from
 * registered memory): sr_build_hdrs() writes every header and returns the
 * payload offset; the caller writes payload_len bytes there;
 * sr_build_finish() writes the pad and the ICRC.
 *
 * A connection's packets share most of their header bytes.  Built once
 * into a template (sr_build_tmpl_init), they are copied, and only what
 * changes from packet to packet is written: lengths, the IPv4 ID and
 * checksum, the BTH and the extension headers.  The bytes are those of
 * the description without a template.
 */
#ifndef SR_WIRE_BUILD_H
#define SR_WIRE_BUILD_H

#include <stdbool.h>
#include <stdint.h>

#include "wire/parse.h"

/* Ethernet with 802.1Q, IPv6, UDP: the longest template. */
#define SR_BUILD_TMPL_MAX (18 + 40 + 8)

/*
 * The header bytes a connection's packets share, from the Ethernet header
 * up to the BTH, which every packet writes whole.  A template fixes the
 * Ethernet addresses and VLAN, the GIDs, traffic class, hop limit and
 * flow label, IPv4 DF, the UDP ports and checksum.
 */
struct sr_build_tmpl {
	uint8_t hdr[SR_BUILD_TMPL_MAX];
	uint8_t l3;         /* IP header */
	uint8_t l4;         /* UDP header */
	uint8_t bth;        /* BTH */
	bool ipv6;
	bool vlan;
	uint16_t vlan_tci;
	uint32_t ip_sum;    /* IPv4: the header's words but length, ID, checksum */
};

struct sr_build {
	/* Ethernet */
	uint8_t dmac[6];
	uint8_t smac[6];
	bool vlan;
	uint16_t vlan_tci;
	/* IP: GIDs, IPv4 mapped (::ffff:a.b.c.d) for IPv4 */
	uint8_t sgid[16];
	uint8_t dgid[16];
	uint8_t tclass;      /* IPv4 TOS (DSCP and ECN) / IPv6 traffic class */
	uint8_t hop_limit;   /* IPv4 TTL / IPv6 hop limit */
	uint32_t flow_label; /* IPv6 */
	uint16_t ip_id;      /* IPv4 identification */
	bool ip_df;          /* IPv4 don't fragment */
	/* UDP */
	uint16_t sport;
	uint16_t udp_csum;   /* written as given; RoCEv2 senders use 0 */
	/* BTH */
	uint8_t opcode;
	bool se;
	bool mig;
	uint16_t pkey;
	uint8_t fecn_becn;   /* the whole byte, FECN/BECN and reserved */
	uint32_t dqpn;
	bool ackreq;
	uint32_t psn;
	/* extension headers: only those of the opcode are written */
	uint32_t rdeth_eecn;
	uint32_t deth_qkey;
	uint32_t deth_sqpn;
	uint32_t xrc_srqn;
	uint32_t feth;
	uint64_t reth_va;
	uint32_t reth_rkey;
	uint32_t reth_len;
	uint64_t atm_va;
	uint32_t atm_rkey;
	uint64_t atm_swap_add;
	uint64_t atm_cmp;
	uint8_t aeth_syndrome;
	uint32_t aeth_msn;
	uint64_t atmack_orig;
	uint32_t imm;
	uint32_t ieth_rkey;
	/*
	 * Optional: a template made (sr_build_tmpl_init) from a description
	 * whose fixed fields (struct sr_build_tmpl) are this one's; the
	 * builder then takes them from the template.
	 */
	const struct sr_build_tmpl *tmpl;
};

/* Make t from the fixed fields of b (any valid opcode). */
void sr_build_tmpl_init(struct sr_build_tmpl *t, const struct sr_build *b);

/* Bytes a frame of this description and payload length takes. */
uint32_t sr_build_frame_len(const struct sr_build *b, uint32_t payload_len);

/*
 * Write all headers for a payload of payload_len bytes into buf (cap
 * bytes).  Returns the payload offset, or -EINVAL (unknown opcode, payload
 * not allowed or too long) or -ENOSPC (cap too small).  pkt, when not
 * NULL, is filled as the parser would fill it.
 */
int sr_build_hdrs(uint8_t *buf, uint32_t cap, const struct sr_build *b,
		  uint32_t payload_len, struct sr_pkt *pkt);

/*
 * After the payload is in place: write the pad bytes and the ICRC.
 * Returns the frame length.
 */
uint32_t sr_build_finish(uint8_t *buf, const struct sr_pkt *pkt);

/*
 * The payload by reference (it stays in registered memory; the link sends
 * three pieces): sr_build_hdrs_ref() writes the headers into buf, which
 * need only hold them (cap), and returns their length, where the payload
 * would start.  sr_build_finish_ref() sums the ICRC over the headers in
 * hdr and the payload_len bytes at payload, writes the pad and the ICRC
 * into tail (at most 3 + 4 bytes) and returns the tail's length.  The
 * bytes on the wire are those of sr_build_hdrs() and sr_build_finish().
 */
int sr_build_hdrs_ref(uint8_t *buf, uint32_t cap, const struct sr_build *b,
		      uint32_t payload_len, struct sr_pkt *pkt);
uint32_t sr_build_finish_ref(const uint8_t *hdr, const struct sr_pkt *pkt,
			     const uint8_t *payload, uint8_t *tail);
#define SR_BUILD_TAIL_MAX 7

/* Both steps, copying payload.  Returns the frame length or -errno. */
int sr_build_frame(uint8_t *buf, uint32_t cap, const struct sr_build *b,
		   const void *payload, uint32_t payload_len);

/* The description a parsed packet was built from (inverse of the builder). */
void sr_build_from_pkt(struct sr_build *b, const struct sr_pkt *pkt);

#endif /* SR_WIRE_BUILD_H */
