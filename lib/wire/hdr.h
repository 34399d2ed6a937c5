/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * hdr.h — RoCEv2 frame headers: one struct each, bytes only, no bitfields.
 *
 * Every struct is made of bytes so that it has alignment 1 and may sit at
 * any offset of a frame; fields are read and written through the typed
 * accessors below (endian.h does the loads).  Sizes are asserted.
 */
#ifndef SR_WIRE_HDR_H
#define SR_WIRE_HDR_H

#include <assert.h>
#include <stdbool.h>
#include <stdint.h>

#include "wire/endian.h"
#include "wire/opcode.h"

#define SR_ETHERTYPE_IPV4 0x0800
#define SR_ETHERTYPE_IPV6 0x86dd
#define SR_ETHERTYPE_VLAN 0x8100
#define SR_ETHERTYPE_ARP  0x0806
#define SR_IPPROTO_UDP    17
#define SR_ROCE_PORT      4791
#define SR_BTH_TVER       0
#define SR_PKEY_DEFAULT   0xffff

struct sr_eth {
	uint8_t dst[6];
	uint8_t src[6];
	uint8_t type[2];
};

struct sr_vlan {
	uint8_t tci[2];
	uint8_t type[2];
};

struct sr_ipv4 {
	uint8_t ver_ihl;
	uint8_t tos;
	uint8_t tot_len[2];
	uint8_t id[2];
	uint8_t frag[2];
	uint8_t ttl;
	uint8_t proto;
	uint8_t csum[2];
	uint8_t src[4];
	uint8_t dst[4];
};

struct sr_ipv6 {
	uint8_t ver_tc_fl[4]; /* version 4, traffic class 8, flow label 20 */
	uint8_t plen[2];
	uint8_t next;
	uint8_t hop_limit;
	uint8_t src[16];
	uint8_t dst[16];
};

struct sr_udp {
	uint8_t sport[2];
	uint8_t dport[2];
	uint8_t len[2];
	uint8_t csum[2];
};

/* Base transport header (IBA 9.2). */
struct sr_bth {
	uint8_t opcode;
	uint8_t se_m_pad_tver; /* SE 1, MigReq 1, PadCnt 2, TVer 4 */
	uint8_t pkey[2];
	uint8_t fecn_becn;     /* FECN 1, BECN 1 (RoCEv2: reserved), resv 6 */
	uint8_t dqpn[3];
	uint8_t ack_req;       /* AckReq 1, resv 7 */
	uint8_t psn[3];
};

struct sr_rdeth { uint8_t resv; uint8_t eecn[3]; };
struct sr_deth { uint8_t qkey[4]; uint8_t resv; uint8_t sqpn[3]; };
struct sr_xrceth { uint8_t resv; uint8_t srqn[3]; };
struct sr_feth { uint8_t bits[4]; /* resv 26, selectivity 2, placement 4 */ };
struct sr_reth { uint8_t va[8]; uint8_t rkey[4]; uint8_t len[4]; };
struct sr_atmeth {
	uint8_t va[8];
	uint8_t rkey[4];
	uint8_t swap_add[8];
	uint8_t cmp[8];
};
struct sr_aeth { uint8_t syndrome; uint8_t msn[3]; };
struct sr_atmack { uint8_t orig[8]; };
struct sr_immdt { uint8_t imm[4]; };
struct sr_ieth { uint8_t rkey[4]; };

static_assert(sizeof(struct sr_eth) == 14, "eth");
static_assert(sizeof(struct sr_vlan) == 4, "vlan");
static_assert(sizeof(struct sr_ipv4) == 20, "ipv4");
static_assert(sizeof(struct sr_ipv6) == 40, "ipv6");
static_assert(sizeof(struct sr_udp) == 8, "udp");
static_assert(sizeof(struct sr_bth) == SR_BTH_LEN, "bth");
#define SR_X_SIZE(n, len, s, a) \
	static_assert(sizeof(struct sr_##s) == len, #n);
SR_EXT_HDRS(SR_X_SIZE, _)
#undef SR_X_SIZE

/* BTH */
#define SR_BTH_SE    0x80u
#define SR_BTH_MIG   0x40u
#define SR_BTH_ACK   0x80u

static inline uint8_t sr_bth_opcode(const struct sr_bth *b) { return b->opcode; }
static inline bool sr_bth_se(const struct sr_bth *b) { return b->se_m_pad_tver & SR_BTH_SE; }
static inline bool sr_bth_mig(const struct sr_bth *b) { return b->se_m_pad_tver & SR_BTH_MIG; }
static inline uint8_t sr_bth_pad(const struct sr_bth *b) { return b->se_m_pad_tver >> 4 & 3; }
static inline uint8_t sr_bth_tver(const struct sr_bth *b) { return b->se_m_pad_tver & 0xf; }
static inline uint16_t sr_bth_pkey(const struct sr_bth *b) { return sr_get_be16(b->pkey); }
static inline uint8_t sr_bth_fecn_becn(const struct sr_bth *b) { return b->fecn_becn; }
static inline uint32_t sr_bth_dqpn(const struct sr_bth *b) { return sr_get_be24(b->dqpn); }
static inline bool sr_bth_ackreq(const struct sr_bth *b) { return b->ack_req & SR_BTH_ACK; }
static inline uint32_t sr_bth_psn(const struct sr_bth *b) { return sr_get_be24(b->psn); }

/* DETH, RDETH, XRCETH, FETH */
static inline uint32_t sr_deth_qkey(const struct sr_deth *d) { return sr_get_be32(d->qkey); }
static inline uint32_t sr_deth_sqpn(const struct sr_deth *d) { return sr_get_be24(d->sqpn); }
static inline uint32_t sr_rdeth_eecn(const struct sr_rdeth *r) { return sr_get_be24(r->eecn); }
static inline uint32_t sr_xrceth_srqn(const struct sr_xrceth *x) { return sr_get_be24(x->srqn); }
static inline uint32_t sr_feth_bits(const struct sr_feth *f) { return sr_get_be32(f->bits); }
static inline uint8_t sr_feth_placement(const struct sr_feth *f) { return f->bits[3] & 0xf; }
static inline uint8_t sr_feth_selectivity(const struct sr_feth *f) { return f->bits[3] >> 4 & 3; }

/* RETH */
static inline uint64_t sr_reth_va(const struct sr_reth *r) { return sr_get_be64(r->va); }
static inline uint32_t sr_reth_rkey(const struct sr_reth *r) { return sr_get_be32(r->rkey); }
static inline uint32_t sr_reth_len(const struct sr_reth *r) { return sr_get_be32(r->len); }

/* AtomicETH */
static inline uint64_t sr_atmeth_va(const struct sr_atmeth *a) { return sr_get_be64(a->va); }
static inline uint32_t sr_atmeth_rkey(const struct sr_atmeth *a) { return sr_get_be32(a->rkey); }
static inline uint64_t sr_atmeth_swap_add(const struct sr_atmeth *a) { return sr_get_be64(a->swap_add); }
static inline uint64_t sr_atmeth_cmp(const struct sr_atmeth *a) { return sr_get_be64(a->cmp); }

/* AETH, AtomicAckETH, ImmDt, IETH */
static inline uint8_t sr_aeth_syndrome(const struct sr_aeth *a) { return a->syndrome; }
static inline uint32_t sr_aeth_msn(const struct sr_aeth *a) { return sr_get_be24(a->msn); }
static inline uint64_t sr_atmack_orig(const struct sr_atmack *a) { return sr_get_be64(a->orig); }
static inline uint32_t sr_immdt_imm(const struct sr_immdt *i) { return sr_get_be32(i->imm); }
static inline uint32_t sr_ieth_rkey(const struct sr_ieth *i) { return sr_get_be32(i->rkey); }

/*
 * AETH syndrome (IBA 9.7.5.1): bits 6..5 say ACK, RNR NAK or NAK; bits 4..0
 * carry the credit count, the RNR timer or the NAK code.
 */
#define SR_AETH_TYPE_MASK 0x60u
#define SR_AETH_ACK       0x00u
#define SR_AETH_RNR_NAK   0x20u
#define SR_AETH_NAK       0x60u
#define SR_AETH_VALUE(s)  ((s) & 0x1fu)
#define SR_AETH_CREDITS_INVALID 0x1fu /* rxe's and most RNICs' ACKs */

/* NAK codes: X(name, code, text). */
#define SR_NAK_CODES(X)                                           \
	X(PSN_SEQ_ERR, 0, "PSN sequence error")                   \
	X(INVALID_REQ, 1, "invalid request")                      \
	X(REMOTE_ACCESS, 2, "remote access error")                \
	X(REMOTE_OP, 3, "remote operational error")               \
	X(INVALID_RD_REQ, 4, "invalid RD request")

enum sr_nak_code {
#define SR_X_ENUM(n, c, t) SR_NAK_##n = c,
	SR_NAK_CODES(SR_X_ENUM)
#undef SR_X_ENUM
};

const char *sr_aeth_syndrome_str(uint8_t syndrome, char *buf, unsigned int len);

/* Is a GID (16 bytes) an IPv4-mapped address ::ffff:a.b.c.d? */
static inline bool sr_gid_is_v4(const uint8_t gid[16])
{
	static const uint8_t prefix[12] = { [10] = 0xff, [11] = 0xff };

	return memcmp(gid, prefix, sizeof(prefix)) == 0;
}

#endif /* SR_WIRE_HDR_H */
