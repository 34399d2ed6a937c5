/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * parse.h — the one RoCEv2 frame parser.
 *
 * sr_parse_eth() checks every length, the IP and UDP framing, the transport
 * version, the P_Key, the pad count and (unless told not to) the ICRC
 * before anything reads a field, and records where each header is.  After it
 * returns SR_PARSE_OK the accessors of hdr.h may be used on the pointers it
 * hands out (sr_pkt_bth(), sr_pkt_ext()) without further checks.
 *
 * A frame is either RoCEv2 (UDP destination port 4791), or "not RoCE"
 * (another EtherType, another IP protocol, another UDP port), which a
 * caller skips; a RoCEv2 frame that breaks a rule is malformed and the
 * result says why.
 */
#ifndef SR_WIRE_PARSE_H
#define SR_WIRE_PARSE_H

#include <stdbool.h>
#include <stdint.h>

#include "wire/hdr.h"
#include "wire/opcode.h"

/* X(name, is_roce, text): why a frame was not accepted. */
#define SR_PARSE_RESULTS(X)                                                \
	X(OK, true, "ok")                                                  \
	X(NOT_IP, false, "not IPv4 or IPv6")                               \
	X(NOT_UDP, false, "IP protocol is not UDP")                        \
	X(NOT_ROCE_PORT, false, "UDP destination port is not 4791")        \
	X(RUNT, true, "frame shorter than its headers")                    \
	X(OVERSIZE, true, "payload longer than the largest path MTU")     \
	X(IP_VERSION, true, "IP version does not match the EtherType")    \
	X(IPV4_OPTIONS, true, "IPv4 header with options")                 \
	X(IPV4_LEN, true, "IPv4 total length inconsistent")                \
	X(IPV4_FRAGMENT, true, "IPv4 fragment")                            \
	X(IPV4_CSUM, true, "IPv4 header checksum bad")                     \
	X(IPV6_EXT, true, "IPv6 extension header")                         \
	X(IPV6_LEN, true, "IPv6 payload length inconsistent")              \
	X(IPV6_MAPPED, true, "IPv4-mapped address in an IPv6 header")      \
	X(UDP_LEN, true, "UDP length inconsistent")                        \
	X(TVER, true, "BTH transport version is not 0")                    \
	X(OPCODE, true, "unknown or reserved opcode")                      \
	X(PKEY, true, "invalid P_Key")                                     \
	X(HDR_TRUNC, true, "extension headers past the end of the packet") \
	X(PAD, true, "pad count larger than the payload")                  \
	X(PAYLOAD_LEN, true, "payload length not allowed for the opcode") \
	X(ICRC, true, "ICRC mismatch")

enum sr_parse_result {
#define SR_X_ENUM(n, roce, text) SR_PARSE_##n,
	SR_PARSE_RESULTS(SR_X_ENUM)
#undef SR_X_ENUM
	SR_PARSE_MAX
};

const char *sr_parse_result_name(enum sr_parse_result r);
const char *sr_parse_result_text(enum sr_parse_result r);
/* True when the frame was RoCEv2 (accepted or malformed), false when not. */
bool sr_parse_result_is_roce(enum sr_parse_result r);

/* Largest payload of a packet: the largest IBA path MTU. */
#define SR_MAX_PAYLOAD 4096

/* Options of sr_parse_eth(). */
#define SR_PARSE_NO_ICRC 0x1u /* the ICRC was checked elsewhere (offload) */

/* Where each part of an accepted frame is; offsets count from frame. */
struct sr_pkt {
	const uint8_t *frame;
	uint32_t frame_len;         /* as given; may include Ethernet padding */
	uint16_t l3;                /* IP header */
	uint16_t l4;                /* UDP header */
	uint16_t bth;               /* BTH */
	uint16_t payload;           /* first payload byte */
	uint32_t payload_len;       /* payload bytes, pad excluded */
	uint32_t end;               /* offset of the ICRC */
	uint16_t vlan_tci;          /* valid when has_vlan */
	bool has_vlan;
	bool ipv6;
	uint8_t opcode;
	uint8_t pad;
	uint8_t ext[SR_EXT_MAX];    /* offset of each extension header from bth */
	const struct sr_opcode_info *op;
};

/* Parse a frame that starts with an Ethernet header (optionally 802.1Q). */
enum sr_parse_result sr_parse_eth(const uint8_t *frame, uint32_t len,
				  unsigned int flags, struct sr_pkt *pkt);

/* Parse a packet that starts with its IP header (no link header). */
enum sr_parse_result sr_parse_ip(const uint8_t *packet, uint32_t len,
				 unsigned int flags, struct sr_pkt *pkt);

static inline const struct sr_bth *sr_pkt_bth(const struct sr_pkt *p)
{
	return (const struct sr_bth *)(p->frame + p->bth);
}

/* The extension header ext, or NULL when the opcode has none. */
static inline const void *sr_pkt_ext(const struct sr_pkt *p, enum sr_ext ext)
{
	return p->ext[ext] ? p->frame + p->bth + p->ext[ext] : NULL;
}

static inline const uint8_t *sr_pkt_payload(const struct sr_pkt *p)
{
	return p->frame + p->payload;
}

static inline const uint8_t *sr_pkt_l3(const struct sr_pkt *p)
{
	return p->frame + p->l3;
}

static inline const struct sr_udp *sr_pkt_udp(const struct sr_pkt *p)
{
	return (const struct sr_udp *)(p->frame + p->l4);
}

/* The ICRC carried by the packet, and the one its bytes give. */
uint32_t sr_pkt_icrc_stored(const struct sr_pkt *p);
uint32_t sr_pkt_icrc_calc(const struct sr_pkt *p);

/* Source and destination addresses as 16-byte GIDs (IPv4 mapped). */
void sr_pkt_sgid(const struct sr_pkt *p, uint8_t gid[16]);
void sr_pkt_dgid(const struct sr_pkt *p, uint8_t gid[16]);

#endif /* SR_WIRE_PARSE_H */
