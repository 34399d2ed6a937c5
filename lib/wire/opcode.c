/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * opcode.c — the 256-entry opcode table, expanded from SR_OPS per transport.
 */
#include "wire/opcode.h"

#include <assert.h>
#include <stddef.h>

/* DETH for every UD packet; XRCETH for XRC requests (IBA 9.2, 14.x). */
#define SR_TT_HDRS_RC(hdrs, flags)  (hdrs)
#define SR_TT_HDRS_UC(hdrs, flags)  (hdrs)
#define SR_TT_HDRS_UD(hdrs, flags)  ((hdrs) | SR_HDR(DETH))
#define SR_TT_HDRS_XRC(hdrs, flags) \
	((hdrs) | (((flags) & SR_OPF_REQ) ? SR_HDR(XRCETH) : 0u))

/*
 * Where header k of mask h starts, from the BTH (0: absent): the BTH, then
 * the headers of h before k, in wire order.  The builder and the parser
 * take a packet's layout from the table instead of working it out.
 */
#define SR_EXT_OFF(h, k) ((((h) >> (k)) & 1u) ? \
	SR_BTH_LEN + SR_EXT_MASK_LEN((h) & ((1u << (k)) - 1u)) : 0)
#define SR_EXT_OFFS(h) {                                                      \
		[SR_EXT_RDETH] = SR_EXT_OFF(h, SR_EXT_RDETH),                \
		[SR_EXT_DETH] = SR_EXT_OFF(h, SR_EXT_DETH),                  \
		[SR_EXT_XRCETH] = SR_EXT_OFF(h, SR_EXT_XRCETH),              \
		[SR_EXT_FETH] = SR_EXT_OFF(h, SR_EXT_FETH),                  \
		[SR_EXT_RETH] = SR_EXT_OFF(h, SR_EXT_RETH),                  \
		[SR_EXT_ATMETH] = SR_EXT_OFF(h, SR_EXT_ATMETH),              \
		[SR_EXT_AETH] = SR_EXT_OFF(h, SR_EXT_AETH),                  \
		[SR_EXT_ATMACK] = SR_EXT_OFF(h, SR_EXT_ATMACK),              \
		[SR_EXT_IMMDT] = SR_EXT_OFF(h, SR_EXT_IMMDT),                \
		[SR_EXT_IETH] = SR_EXT_OFF(h, SR_EXT_IETH),                  \
	}
static_assert(SR_EXT_MAX == 10, "SR_EXT_OFFS names every header");

#define SR_ENTRY(tt, op, code, nm, kd, ps, hd, fl, in)                       \
	[SR_TT_##tt | (code)] = {                                            \
		.name = ((in) & SR_IN_##tt) ? nm : NULL,                     \
		.kind = SR_KIND_##kd,                                        \
		.pos = SR_POS_##ps,                                          \
		.flags = (fl),                                               \
		.hdrs = SR_TT_HDRS_##tt(hd, fl),                             \
		.hdr_len = SR_BTH_LEN + SR_EXT_MASK_LEN(SR_TT_HDRS_##tt(hd, fl)), \
		.ext = SR_EXT_OFFS(SR_TT_HDRS_##tt(hd, fl)),                 \
	},

#define SR_X_RC(...)  SR_ENTRY(RC, __VA_ARGS__)
#define SR_X_UC(...)  SR_ENTRY(UC, __VA_ARGS__)
#define SR_X_UD(...)  SR_ENTRY(UD, __VA_ARGS__)
#define SR_X_XRC(...) SR_ENTRY(XRC, __VA_ARGS__)

const struct sr_opcode_info sr_opcode_table[256] = {
	SR_OPS(SR_X_RC)
	SR_OPS(SR_X_UC)
	SR_OPS(SR_X_UD)
	SR_OPS(SR_X_XRC)
	[SR_OPCODE_CNP] = {
		.name = "CNP",
		.kind = SR_KIND_CNP,
		.pos = SR_POS_ONLY,
		.flags = SR_OPF_PAYLOAD,
		.hdrs = 0,
		.hdr_len = SR_BTH_LEN,
	},
};

static_assert(SR_EXT_MAX <= 16, "header mask is 16 bits");

const char *sr_transport_name(uint8_t opcode)
{
	switch (opcode & SR_TT_MASK) {
#define SR_X_CASE(n, base, str) case base: return str;
	SR_TRANSPORTS(SR_X_CASE)
#undef SR_X_CASE
	}
	return "?";
}

const char *sr_ext_name(enum sr_ext ext)
{
	static const char *const names[SR_EXT_MAX] = {
#define SR_X_NAME(n, len, s, a) [SR_EXT_##n] = #n,
		SR_EXT_HDRS(SR_X_NAME, _)
#undef SR_X_NAME
	};

	return (unsigned int)ext < SR_EXT_MAX ? names[ext] : "?";
}
