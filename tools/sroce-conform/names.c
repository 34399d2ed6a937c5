/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * names.c — names of the agent's work requests, and of libibverbs' work
 * completion statuses and opcodes by their ABI values (the agent reports
 * numbers; the tester links no libibverbs).
 */
#include <stddef.h>
#include <string.h>

#include "scenario.h"

static const char *const wr_names[SC_WR_MAX] = {
#define SC_X(n, s) [SC_WR_##n] = s,
	SC_WR_OPS(SC_X)
#undef SC_X
};

/* enum ibv_wc_status, rdma-core's values */
static const char *const wc_status[] = {
	[0] = "SUCCESS", [1] = "LOC_LEN_ERR", [2] = "LOC_QP_OP_ERR",
	[3] = "LOC_EEC_OP_ERR", [4] = "LOC_PROT_ERR", [5] = "WR_FLUSH_ERR",
	[6] = "MW_BIND_ERR", [7] = "BAD_RESP_ERR", [8] = "LOC_ACCESS_ERR",
	[9] = "REM_INV_REQ_ERR", [10] = "REM_ACCESS_ERR", [11] = "REM_OP_ERR",
	[12] = "RETRY_EXC_ERR", [13] = "RNR_RETRY_EXC_ERR",
	[14] = "LOC_RDD_VIOL_ERR", [15] = "REM_INV_RD_REQ_ERR",
	[16] = "REM_ABORT_ERR", [17] = "INV_EECN_ERR",
	[18] = "INV_EEC_STATE_ERR", [19] = "FATAL_ERR",
	[20] = "RESP_TIMEOUT_ERR", [21] = "GENERAL_ERR",
};

/* enum ibv_wc_opcode */
static const struct {
	int op;
	const char *name;
} wc_ops[] = {
	{ .op = 0, .name = "SEND" }, { .op = 1, .name = "RDMA_WRITE" }, { .op = 2, .name = "RDMA_READ" },
	{ .op = 3, .name = "COMP_SWAP" }, { .op = 4, .name = "FETCH_ADD" }, { .op = 5, .name = "BIND_MW" },
	{ .op = 6, .name = "LOCAL_INV" }, { .op = 128, .name = "RECV" }, { .op = 129, .name = "RECV_RDMA_WITH_IMM" },
};

static const char *const kind_names[] = {
	[SC_SEND] = "send", [SC_EXPECT] = "expect",
	[SC_EXPECT_NONE] = "expect-none", [SC_RECV] = "recv",
	[SC_POST] = "post", [SC_CQE] = "cqe", [SC_CQE_NONE] = "cqe-none",
	[SC_MEM] = "mem", [SC_FILL] = "fill", [SC_QPSTATE] = "qpstate",
	[SC_WAIT] = "wait", [SC_BIND] = "bind",
};

const char *sc_step_kind_name(enum sc_step_kind k)
{
	return (unsigned int)k < sizeof(kind_names) / sizeof(kind_names[0]) ?
		       kind_names[k] : "?";
}

const char *sc_wr_op_name(int op)
{
	return op >= 0 && op < SC_WR_MAX ? wr_names[op] : "?";
}

int sc_wr_op_parse(const char *s)
{
	for (int i = 0; i < SC_WR_MAX; i++)
		if (strcmp(s, wr_names[i]) == 0)
			return i;
	return -1;
}

const char *sc_wc_status_name(int status)
{
	if (status >= 0 &&
	    status < (int)(sizeof(wc_status) / sizeof(wc_status[0])))
		return wc_status[status];
	return "?";
}

int sc_wc_status_parse(const char *s)
{
	for (size_t i = 0; i < sizeof(wc_status) / sizeof(wc_status[0]); i++)
		if (strcmp(s, wc_status[i]) == 0)
			return (int)i;
	return -1;
}

const char *sc_wc_opcode_name(int op)
{
	for (size_t i = 0; i < sizeof(wc_ops) / sizeof(wc_ops[0]); i++)
		if (wc_ops[i].op == op)
			return wc_ops[i].name;
	return "?";
}

int sc_wc_opcode_parse(const char *s)
{
	for (size_t i = 0; i < sizeof(wc_ops) / sizeof(wc_ops[0]); i++)
		if (strcmp(s, wc_ops[i].name) == 0)
			return wc_ops[i].op;
	return -1;
}
