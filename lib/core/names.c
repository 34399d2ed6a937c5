/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * names.c — name strings of the transport's enums, from their X-macros.
 */
#include "core/counters.h"
#include "core/dev.h"
#include "qp/qp.h"
#include "qp/wr.h"

const char *sr_wc_status_str(enum sr_wc_status s)
{
	switch (s) {
#define SR_X(n, v, t) case SR_WC_##n: return t;
	SR_WC_STATUS_LIST(SR_X)
#undef SR_X
	default:
		return "unknown";
	}
}

const char *sr_wr_opcode_str(enum sr_wr_opcode op)
{
	switch (op) {
#define SR_X(n, v, wc) case SR_WR_##n: return #n;
	SR_WR_OPCODE_LIST(SR_X)
#undef SR_X
	default:
		return "unknown";
	}
}

const char *sr_qp_state_str(enum sr_qp_state s)
{
	switch (s) {
#define SR_X(n, v) case SR_QPS_##n: return #n;
	SR_QP_STATE_LIST(SR_X)
#undef SR_X
	default:
		return "unknown";
	}
}

const char *sr_event_str(enum sr_event_type t)
{
	switch (t) {
#define SR_X(n, v) case SR_EVENT_##n: return #n;
	SR_EVENT_LIST(SR_X)
#undef SR_X
	default:
		return "unknown";
	}
}

static const char *const sr_counter_names[SR_CNT_MAX] = {
#define SR_X(n, t) [SR_CNT_##n] = #n,
	SR_COUNTER_LIST(SR_X)
#undef SR_X
};

static const char *const sr_counter_texts[SR_CNT_MAX] = {
#define SR_X(n, t) [SR_CNT_##n] = t,
	SR_COUNTER_LIST(SR_X)
#undef SR_X
};

const char *sr_counter_name(enum sr_counter c)
{
	return (unsigned int)c < SR_CNT_MAX ? sr_counter_names[c] : "unknown";
}

const char *sr_counter_text(enum sr_counter c)
{
	return (unsigned int)c < SR_CNT_MAX ? sr_counter_texts[c] : "unknown";
}
