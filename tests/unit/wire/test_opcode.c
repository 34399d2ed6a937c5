/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The opcode table checked against the IBA opcode table (IBA 9.2, table 38
 * and the header lists of 9.3), typed here independently of SR_OPS.
 */
#include <stdio.h>
#include <string.h>

#include "sr_check.h"
#include "wire/hdr.h"
#include "wire/opcode.h"

struct iba_op {
	uint8_t code;
	const char *name;
	const char *hdrs; /* extension headers in wire order */
	uint8_t hdr_len;  /* BTH + extension headers */
};

/* RC operations (IBA 9.2; FLUSH and ATOMIC WRITE from IBTA 1.5). */
static const struct iba_op iba_rc[] = {
	{ 0x00, "SEND_FIRST", "", 12 },
	{ 0x01, "SEND_MIDDLE", "", 12 },
	{ 0x02, "SEND_LAST", "", 12 },
	{ 0x03, "SEND_LAST_WITH_IMMEDIATE", "IMMDT", 16 },
	{ 0x04, "SEND_ONLY", "", 12 },
	{ 0x05, "SEND_ONLY_WITH_IMMEDIATE", "IMMDT", 16 },
	{ 0x06, "WRITE_FIRST", "RETH", 28 },
	{ 0x07, "WRITE_MIDDLE", "", 12 },
	{ 0x08, "WRITE_LAST", "", 12 },
	{ 0x09, "WRITE_LAST_WITH_IMMEDIATE", "IMMDT", 16 },
	{ 0x0a, "WRITE_ONLY", "RETH", 28 },
	{ 0x0b, "WRITE_ONLY_WITH_IMMEDIATE", "RETH IMMDT", 32 },
	{ 0x0c, "READ_REQUEST", "RETH", 28 },
	{ 0x0d, "READ_RESPONSE_FIRST", "AETH", 16 },
	{ 0x0e, "READ_RESPONSE_MIDDLE", "", 12 },
	{ 0x0f, "READ_RESPONSE_LAST", "AETH", 16 },
	{ 0x10, "READ_RESPONSE_ONLY", "AETH", 16 },
	{ 0x11, "ACKNOWLEDGE", "AETH", 16 },
	{ 0x12, "ATOMIC_ACKNOWLEDGE", "AETH ATMACK", 24 },
	{ 0x13, "COMPARE_SWAP", "ATMETH", 40 },
	{ 0x14, "FETCH_ADD", "ATMETH", 40 },
	{ 0x16, "SEND_LAST_WITH_INVALIDATE", "IETH", 16 },
	{ 0x17, "SEND_ONLY_WITH_INVALIDATE", "IETH", 16 },
	{ 0x1c, "FLUSH", "FETH RETH", 32 },
	{ 0x1d, "ATOMIC_WRITE", "RETH", 28 },
};

/* UC has the SEND and RDMA WRITE operations of RC, 0x00..0x0b. */
#define UC_COUNT 12

static const struct iba_op iba_ud[] = {
	{ 0x04, "SEND_ONLY", "DETH", 20 },
	{ 0x05, "SEND_ONLY_WITH_IMMEDIATE", "DETH IMMDT", 24 },
};

/* Which opcodes the table must accept. */
static int expected_index(uint8_t opcode, const struct iba_op **op)
{
	unsigned int i;
	uint8_t tt = opcode & SR_TT_MASK, code = opcode & 0x1f;

	*op = NULL;
	for (i = 0; i < sizeof(iba_rc) / sizeof(iba_rc[0]); i++) {
		if (iba_rc[i].code != code)
			continue;
		if (tt == SR_TT_RC || tt == SR_TT_XRC ||
		    (tt == SR_TT_UC && code < UC_COUNT))
			*op = &iba_rc[i];
	}
	for (i = 0; i < sizeof(iba_ud) / sizeof(iba_ud[0]); i++)
		if (tt == SR_TT_UD && iba_ud[i].code == code)
			*op = &iba_ud[i];
	return *op != NULL;
}

/* The header list the table gives, as "RETH IMMDT". */
static void table_hdrs(const struct sr_opcode_info *info, char *buf, size_t n)
{
	unsigned int k;

	buf[0] = '\0';
	for (k = 0; k < SR_EXT_MAX; k++) {
		if (!(info->hdrs & 1u << k))
			continue;
		if (buf[0])
			strncat(buf, " ", n - strlen(buf) - 1);
		strncat(buf, sr_ext_name((enum sr_ext)k), n - strlen(buf) - 1);
	}
}

START_TEST(every_opcode_matches_iba)
{
	unsigned int opc;
	int checked = 0;

	for (opc = 0; opc < 256; opc++) {
		const struct sr_opcode_info *info = sr_opcode_info((uint8_t)opc);
		const struct iba_op *exp;
		char got[96], want[96];
		uint8_t tt = opc & SR_TT_MASK;

		if (opc == SR_OPCODE_CNP) {
			ck_assert_ptr_nonnull(info);
			ck_assert_uint_eq(info->hdr_len, SR_BTH_LEN);
			continue;
		}
		if (!expected_index((uint8_t)opc, &exp)) {
			ck_assert_msg(info == NULL, "opcode 0x%02x should be invalid", opc);
			continue;
		}
		ck_assert_msg(info != NULL, "opcode 0x%02x missing", opc);
		ck_assert_str_eq(info->name, exp->name);
		table_hdrs(info, got, sizeof(got));
		snprintf(want, sizeof(want), "%s", exp->hdrs);
		if (tt == SR_TT_XRC && (info->flags & SR_OPF_REQ))
			snprintf(want, sizeof(want), "XRCETH%s%s",
				 exp->hdrs[0] ? " " : "", exp->hdrs);
		ck_assert_msg(strcmp(got, want) == 0, "0x%02x %s: headers '%s' want '%s'",
			      opc, info->name, got, want);
		ck_assert_uint_eq(info->hdr_len,
				  exp->hdr_len + (strncmp(want, "XRCETH", 6) == 0 ? 4 : 0));
		checked++;
	}
	/* RC 25 + UC 12 + UD 2 + XRC 25 */
	ck_assert_int_eq(checked, 64);
}
END_TEST

/* Offsets follow wire order: the IBA's fixed positions of each header. */
START_TEST(layout_offsets)
{
	uint8_t off[SR_EXT_MAX];

	sr_ext_layout(sr_opcode_info(SR_OPCODE(RC, WRITE_ONLY_IMM))->hdrs, off);
	ck_assert_uint_eq(off[SR_EXT_RETH], 12);
	ck_assert_uint_eq(off[SR_EXT_IMMDT], 28);
	sr_ext_layout(sr_opcode_info(SR_OPCODE(RC, ATOMIC_ACKNOWLEDGE))->hdrs, off);
	ck_assert_uint_eq(off[SR_EXT_AETH], 12);
	ck_assert_uint_eq(off[SR_EXT_ATMACK], 16);
	sr_ext_layout(sr_opcode_info(SR_OPCODE(UD, SEND_ONLY_IMM))->hdrs, off);
	ck_assert_uint_eq(off[SR_EXT_DETH], 12);
	ck_assert_uint_eq(off[SR_EXT_IMMDT], 20);
	sr_ext_layout(sr_opcode_info(SR_OPCODE(RC, FLUSH))->hdrs, off);
	ck_assert_uint_eq(off[SR_EXT_FETH], 12);
	ck_assert_uint_eq(off[SR_EXT_RETH], 16);
	sr_ext_layout(sr_opcode_info(SR_OPCODE(XRC, WRITE_ONLY_IMM))->hdrs, off);
	ck_assert_uint_eq(off[SR_EXT_XRCETH], 12);
	ck_assert_uint_eq(off[SR_EXT_RETH], 16);
	ck_assert_uint_eq(off[SR_EXT_IMMDT], 32);
	ck_assert_uint_eq(off[SR_EXT_AETH], 0);
}
END_TEST

/* The table's layouts, worked out by the compiler, are sr_ext_layout's. */
START_TEST(layout_table_matches)
{
	int checked = 0;

	for (unsigned int opc = 0; opc < 256; opc++) {
		const struct sr_opcode_info *op = sr_opcode_info((uint8_t)opc);
		uint8_t off[SR_EXT_MAX];

		if (op == NULL)
			continue;
		sr_ext_layout(op->hdrs, off);
		ck_assert_mem_eq(op->ext, off, SR_EXT_MAX);
		checked++;
	}
	ck_assert_int_ge(checked, 65);
}
END_TEST

START_TEST(names_and_kinds)
{
	const struct sr_opcode_info *i = sr_opcode_info(0x11);

	ck_assert_str_eq(sr_transport_name(0x11), "RC");
	ck_assert_str_eq(sr_transport_name(0x64), "UD");
	ck_assert_str_eq(sr_transport_name(0xa0), "XRC");
	ck_assert_int_eq(i->kind, SR_KIND_ACK);
	ck_assert(i->flags & SR_OPF_RESP);
	i = sr_opcode_info(SR_OPCODE(UC, SEND_LAST_IMM));
	ck_assert(i->flags & SR_OPF_IMM);
	ck_assert(i->flags & SR_OPF_CONSUME);
	ck_assert_int_eq(i->pos, SR_POS_LAST);
	ck_assert_ptr_null(sr_opcode_info(0x15)); /* RESYNC: RD only */
	ck_assert_ptr_null(sr_opcode_info(SR_OPCODE(UC, READ_REQUEST)));
}
END_TEST

static Suite *opcode_suite(void)
{
	Suite *s = suite_create("wire_opcode");
	TCase *tc = tcase_create("table");

	tcase_add_test(tc, every_opcode_matches_iba);
	tcase_add_test(tc, layout_offsets);
	tcase_add_test(tc, layout_table_matches);
	tcase_add_test(tc, names_and_kinds);
	suite_add_tcase(s, tc);
	return s;
}

SR_CHECK_MAIN(opcode_suite)
