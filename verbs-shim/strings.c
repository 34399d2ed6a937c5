/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * strings.c — ibverbs' names and rate conversions, each from one table.
 */
#include "shim.h"

#define SR_N(a) (sizeof(a) / sizeof((a)[0]))

/* X(enum ibv_node_type, text) */
#define SR_IBV_NODE_LIST(X)                                    \
	X(IBV_NODE_CA, "InfiniBand channel adapter")           \
	X(IBV_NODE_SWITCH, "InfiniBand switch")                \
	X(IBV_NODE_ROUTER, "InfiniBand router")                \
	X(IBV_NODE_RNIC, "iWARP NIC")                          \
	X(IBV_NODE_USNIC, "usNIC")                             \
	X(IBV_NODE_USNIC_UDP, "usNIC UDP")                     \
	X(IBV_NODE_UNSPECIFIED, "unspecified")

/* X(enum ibv_port_state, text) */
#define SR_IBV_PORT_STATE_LIST(X)                              \
	X(IBV_PORT_NOP, "no state change (NOP)")               \
	X(IBV_PORT_DOWN, "down")                               \
	X(IBV_PORT_INIT, "init")                               \
	X(IBV_PORT_ARMED, "armed")                             \
	X(IBV_PORT_ACTIVE, "active")                           \
	X(IBV_PORT_ACTIVE_DEFER, "active defer")

/* X(enum ibv_event_type, text) */
#define SR_IBV_EVENT_LIST(X)                                                  \
	X(IBV_EVENT_CQ_ERR, "CQ error")                                       \
	X(IBV_EVENT_QP_FATAL, "local work queue catastrophic error")          \
	X(IBV_EVENT_QP_REQ_ERR, "invalid request local work queue error")     \
	X(IBV_EVENT_QP_ACCESS_ERR, "local access violation work queue error") \
	X(IBV_EVENT_COMM_EST, "communication established")                    \
	X(IBV_EVENT_SQ_DRAINED, "send queue drained")                         \
	X(IBV_EVENT_PATH_MIG, "path migrated")                                \
	X(IBV_EVENT_PATH_MIG_ERR, "path migration request error")             \
	X(IBV_EVENT_DEVICE_FATAL, "local catastrophic error")                 \
	X(IBV_EVENT_PORT_ACTIVE, "port active")                               \
	X(IBV_EVENT_PORT_ERR, "port error")                                   \
	X(IBV_EVENT_LID_CHANGE, "LID change")                                 \
	X(IBV_EVENT_PKEY_CHANGE, "P_Key change")                              \
	X(IBV_EVENT_SM_CHANGE, "SM change")                                   \
	X(IBV_EVENT_SRQ_ERR, "SRQ catastrophic error")                        \
	X(IBV_EVENT_SRQ_LIMIT_REACHED, "SRQ limit reached")                   \
	X(IBV_EVENT_QP_LAST_WQE_REACHED, "last WQE reached")                  \
	X(IBV_EVENT_CLIENT_REREGISTER, "client reregistration")               \
	X(IBV_EVENT_GID_CHANGE, "GID table change")                           \
	X(IBV_EVENT_WQ_FATAL, "WQ fatal")

/* X(enum ibv_rate, multiple of 2.5 Gb/s (0: none), Mb/s) */
#define SR_IBV_RATE_LIST(X)                    \
	X(IBV_RATE_2_5_GBPS, 1, 2500)          \
	X(IBV_RATE_5_GBPS, 2, 5000)            \
	X(IBV_RATE_10_GBPS, 4, 10000)          \
	X(IBV_RATE_20_GBPS, 8, 20000)          \
	X(IBV_RATE_30_GBPS, 12, 30000)         \
	X(IBV_RATE_40_GBPS, 16, 40000)         \
	X(IBV_RATE_60_GBPS, 24, 60000)         \
	X(IBV_RATE_80_GBPS, 32, 80000)         \
	X(IBV_RATE_120_GBPS, 48, 120000)       \
	X(IBV_RATE_14_GBPS, 0, 14062)          \
	X(IBV_RATE_56_GBPS, 0, 56250)          \
	X(IBV_RATE_112_GBPS, 0, 112500)        \
	X(IBV_RATE_168_GBPS, 0, 168750)        \
	X(IBV_RATE_25_GBPS, 0, 25781)          \
	X(IBV_RATE_100_GBPS, 0, 103125)        \
	X(IBV_RATE_200_GBPS, 0, 206250)        \
	X(IBV_RATE_300_GBPS, 0, 309375)        \
	X(IBV_RATE_28_GBPS, 0, 28125)          \
	X(IBV_RATE_50_GBPS, 0, 53125)          \
	X(IBV_RATE_400_GBPS, 0, 425000)        \
	X(IBV_RATE_600_GBPS, 0, 637500)        \
	X(IBV_RATE_800_GBPS, 0, 850000)        \
	X(IBV_RATE_1200_GBPS, 0, 1275000)

static const char *const sr_node_str[] = {
#define SR_X(v, t) [v] = t,
	SR_IBV_NODE_LIST(SR_X)
#undef SR_X
};

static const char *const sr_port_state_str[] = {
#define SR_X(v, t) [v] = t,
	SR_IBV_PORT_STATE_LIST(SR_X)
#undef SR_X
};

static const char *const sr_event_type_str[] = {
#define SR_X(v, t) [v] = t,
	SR_IBV_EVENT_LIST(SR_X)
#undef SR_X
};

/* enum ibv_wc_status is lib's enum sr_wc_status value for value. */
static const char *const sr_wc_str[] = {
#define SR_X(n, v, t) [v] = t,
	SR_WC_STATUS_LIST(SR_X)
#undef SR_X
};

static const struct {
	enum ibv_rate rate;
	int mult;
	int mbps;
} sr_rates[] = {
#define SR_X(r, m, b) { .rate = r, .mult = m, .mbps = b },
	SR_IBV_RATE_LIST(SR_X)
#undef SR_X
};

static const char *sr_lookup(const char *const *t, size_t n, int v)
{
	if (v < 0 || (size_t)v >= n || t[v] == NULL)
		return "unknown";
	return t[v];
}

const char *ibv_node_type_str(enum ibv_node_type t)
{
	return sr_lookup(sr_node_str, SR_N(sr_node_str), t);
}

const char *ibv_port_state_str(enum ibv_port_state s)
{
	return sr_lookup(sr_port_state_str, SR_N(sr_port_state_str), s);
}

const char *ibv_event_type_str(enum ibv_event_type e)
{
	return sr_lookup(sr_event_type_str, SR_N(sr_event_type_str), e);
}

const char *ibv_wc_status_str(enum ibv_wc_status s)
{
	return sr_lookup(sr_wc_str, SR_N(sr_wc_str), s);
}

int ibv_rate_to_mult(enum ibv_rate rate)
{
	for (size_t i = 0; i < SR_N(sr_rates); i++)
		if (sr_rates[i].rate == rate)
			return sr_rates[i].mult ? sr_rates[i].mult : -1;
	return -1;
}

enum ibv_rate mult_to_ibv_rate(int mult)
{
	for (size_t i = 0; i < SR_N(sr_rates); i++)
		if (sr_rates[i].mult && sr_rates[i].mult == mult)
			return sr_rates[i].rate;
	return IBV_RATE_MAX;
}

int ibv_rate_to_mbps(enum ibv_rate rate)
{
	for (size_t i = 0; i < SR_N(sr_rates); i++)
		if (sr_rates[i].rate == rate)
			return sr_rates[i].mbps;
	return -1;
}

enum ibv_rate mbps_to_ibv_rate(int mbps)
{
	for (size_t i = 0; i < SR_N(sr_rates); i++)
		if (sr_rates[i].mbps == mbps)
			return sr_rates[i].rate;
	return IBV_RATE_MAX;
}
