/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * counters.h — device and per-QP counters, and the shared-memory file that
 * exports them (with the fault control block) to tools/sroce-stat while
 * traffic runs: <stats_dir>/sroce-<pid>-<port>.stats, a fixed layout with a
 * magic and a version.
 *
 * One writer: the thread that runs the device's progress.  Counters are
 * naturally aligned 64-bit words, so readers in other processes see whole
 * values.  Pure C, no DPDK.
 */
#ifndef SR_PMD_COUNTERS_H
#define SR_PMD_COUNTERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/trace.h"
#include "fault.h"

/*
 * Device counters: X(enum suffix, name).  The first block keeps the names
 * Linux rxe exposes in its hw_counters; then link, neighbour, drop-reason
 * and fault counters.  Append only: the order is the file layout.
 */
#define SR_DEV_COUNTERS(X)                                  \
	X(SENT_PKTS, "sent_pkts")                           \
	X(RCVD_PKTS, "rcvd_pkts")                           \
	X(DUP_REQ, "duplicate_request")                     \
	X(OUT_OF_SEQ_REQ, "out_of_seq_request")             \
	X(RCVD_RNR, "rcvd_rnr_err")                         \
	X(SEND_RNR, "send_rnr_err")                         \
	X(RCVD_SEQ_ERR, "rcvd_seq_err")                     \
	X(ACK_DEFERRED, "ack_deferred")                     \
	X(RETRY_EXCEEDED, "retry_exceeded_err")             \
	X(RNR_RETRY_EXCEEDED, "retry_rnr_exceeded_err")     \
	X(COMP_RETRY, "completer_retry_err")                \
	X(SEND_ERR, "send_err")                             \
	X(LINK_DOWNED, "link_downed")                       \
	X(RDMA_SENDS, "rdma_sends")                         \
	X(RDMA_RECVS, "rdma_recvs")                         \
	X(RETRIES, "retries")                               \
	X(TIMEOUTS, "timeouts")                             \
	X(ICRC_ERR, "icrc_err")                             \
	X(SENT_BYTES, "sent_bytes")                         \
	X(RCVD_BYTES, "rcvd_bytes")                         \
	X(ARP_RX, "arp_rx")                                 \
	X(ARP_TX, "arp_tx")                                 \
	X(ND_RX, "nd_rx")                                   \
	X(ND_TX, "nd_tx")                                   \
	X(NEIGH_FAIL, "neigh_unresolved")                   \
	X(DROP_SHORT, "drop_short")                         \
	X(DROP_ETHERTYPE, "drop_ethertype")                 \
	X(DROP_VLAN, "drop_vlan")                           \
	X(DROP_MAC, "drop_not_our_mac")                     \
	X(DROP_IP, "drop_not_our_ip")                       \
	X(DROP_PROTO, "drop_ip_proto")                      \
	X(DROP_PORT, "drop_udp_port")                       \
	X(DROP_NEIGH, "drop_bad_arp_nd")                    \
	X(DROP_NO_HANDLER, "drop_no_handler")               \
	X(RX_STEERED, "rx_steered")                         \
	X(DROP_STEER, "drop_steer_full")                    \
	X(DROP_TOO_LONG, "drop_too_long")                   \
	X(TX_NOBUF, "tx_nobuf")                             \
	X(TX_FULL, "tx_full")                               \
	X(TX_WAIT, "tx_wait")                               \
	X(FAULT_DROP, "fault_drop")                         \
	X(FAULT_DUP, "fault_dup")                           \
	X(FAULT_REORDER, "fault_reorder")                   \
	X(FAULT_DELAY, "fault_delay")                       \
	X(FAULT_CORRUPT, "fault_corrupt")                   \
	X(FAULT_CE, "fault_ce")                             \
	X(CAPTURE_ERR, "capture_err")                       \
	X(CM_RX, "cm_rx")                                   \
	X(CM_TX, "cm_tx")                                   \
	X(CM_RETRANSMITS, "cm_retransmits")                 \
	X(CM_TIMEOUTS, "cm_timeouts")                       \
	X(CM_DROP, "cm_drop")                               \
	X(GSI_DROP, "gsi_drop")                             \
	X(SW_TO_NIC, "sw_to_nic")                           \
	X(SW_TO_CLIENT, "sw_to_client")                     \
	X(SW_LOCAL, "sw_client_to_client")                  \
	X(SW_DROP_FORGED, "sw_drop_forged")                 \
	X(SW_DROP_NO_OWNER, "sw_drop_no_owner")             \
	X(SW_DROP_NEIGH, "sw_drop_neigh_wait")              \
	X(SW_DROP_GSI, "sw_drop_qp1")                       \
	X(SW_DROP_FULL, "sw_drop_full")                     \
	X(IGMP_RX, "igmp_rx")                               \
	X(IGMP_TX, "igmp_tx")                               \
	X(MCAST_JOIN_ERR, "mcast_join_err")                 \
	X(PORT_RX_MISSED, "port_rx_missed")                 \
	X(PORT_RX_ERRORS, "port_rx_errors")                 \
	X(PORT_RX_NOMBUF, "port_rx_nombuf")                 \
	X(PORT_TX_ERRORS, "port_tx_errors")                 \
	X(SW_BELL_RUNG, "sw_bell_rung")                     \
	X(SW_BELL_WAKEUPS, "sw_bell_wakeups")                 \
	X(SW_CLIENT_SLEEPS, "sw_client_sleeps")             \
	X(TX_BY_REF, "tx_by_ref")                           \
	X(TX_REF_COPIED, "tx_ref_copied")                   \
	X(SW_CM_HELD, "sw_cm_held")                         \
	X(SW_PARKED, "sw_parked")

/* Per-QP counters (the transport fills a slot per QP). */
#define SR_QP_COUNTERS(X)                                   \
	X(SENT_PKTS, "sent_pkts")                           \
	X(RCVD_PKTS, "rcvd_pkts")                           \
	X(DUP_REQ, "duplicate_request")                     \
	X(OUT_OF_SEQ_REQ, "out_of_seq_request")             \
	X(RCVD_RNR, "rcvd_rnr_err")                         \
	X(SEND_RNR, "send_rnr_err")                         \
	X(RETRIES, "retries")                               \
	X(TIMEOUTS, "timeouts")

enum sr_dev_counter {
#define SR_CTR_ENUM(e, s) SR_CTR_##e,
	SR_DEV_COUNTERS(SR_CTR_ENUM)
#undef SR_CTR_ENUM
	SR_CTR_MAX
};

enum sr_qp_counter {
#define SR_QP_CTR_ENUM(e, s) SR_QP_CTR_##e,
	SR_QP_COUNTERS(SR_QP_CTR_ENUM)
#undef SR_QP_CTR_ENUM
	SR_QP_CTR_MAX
};

#define SR_STATS_MAGIC 0x5354535245434f52ull   /* "ROCERSTS" */
#define SR_STATS_VERSION 11
#define SR_STATS_QP_SLOTS 256

/*
 * Room for the transport's own counters (lib/core/counters.h, named by
 * sr_counter_name()) and its parser drops (wire/parse.h, named by
 * sr_parse_result_name()), copied in whole by the node (node.h); the
 * header says how many are used.
 */
#define SR_STATS_XPORT_MAX 64
#define SR_STATS_PARSE_MAX 32

struct sr_stats_qp {
	uint32_t qpn;
	uint32_t in_use;
	uint64_t c[SR_QP_CTR_MAX];
	uint64_t xport[SR_STATS_XPORT_MAX];   /* the QP's transport counters */
	uint64_t rate_bps;    /* the requester's current rate (pacer or line) */
};

/*
 * Fault control: the tool writes rules under a sequence count (odd while
 * writing), the device picks them up between polls and echoes the count in
 * applied_gen.
 */
struct sr_stats_fault_ctl {
	uint32_t gen;
	uint32_t applied_gen;
	struct sr_fault_set set;
};

/*
 * Trace control (sroce-stat --trace): the tool asks for one QP's trace on
 * or off under a sequence count (odd while writing), as for the fault
 * rules; the device applies it between polls, writes the result and echoes
 * the count in applied_gen.  The events go to the ring (core/trace.h), one
 * reader at a time.
 */
struct sr_stats_trace_ctl {
	uint32_t gen;
	uint32_t applied_gen;
	uint32_t qpn;
	uint32_t on;                  /* 1: trace the QP, 0: stop */
	int32_t result;               /* 0, -ENOENT (no such QP), -ENOTSUP */
	uint32_t reserved[11];
	struct sr_trace_ring ring;
};

/*
 * A client channel of sroced (its file is the daemon's): who is on the
 * other side, for sroce-stat's client view.  Appended in version 7.
 */
struct sr_stats_client {
	uint32_t valid;               /* 1: a channel of sroced, filled */
	int32_t pid;                  /* the client process */
	uint32_t id;                  /* the daemon's client number */
	uint32_t qpn_base;            /* its QPN block */
	char comm[16];                /* its program */
	uint32_t listeners;           /* service IDs its CM listens on */
	uint32_t reserved[7];
};

/* The file: fixed layout; readers check magic, version and size. */
struct sr_stats_shm {
	uint64_t magic;
	uint32_t version;
	uint32_t size;
	uint32_t n_dev_counters;
	uint32_t n_qp_counters;
	uint32_t n_qp_slots;
	uint32_t n_xport_counters;        /* SR_CNT_MAX of the writer */
	uint32_t n_parse_counters;        /* SR_PARSE_MAX of the writer */
	int32_t pid;
	uint16_t port_id;
	uint16_t mtu;
	uint32_t path_mtu;
	uint8_t mac[6];
	uint8_t ipv4[4];
	uint8_t reserved[6];
	char port[128];
	struct sr_stats_fault_ctl fault;
	uint64_t dev[SR_CTR_MAX];
	uint64_t xport[SR_STATS_XPORT_MAX];   /* device transport counters */
	uint64_t parse[SR_STATS_PARSE_MAX];   /* frames refused, by reason */
	struct sr_stats_qp qp[SR_STATS_QP_SLOTS];
	struct sr_stats_trace_ctl trace;      /* appended in version 4 */
	struct sr_stats_client client;        /* appended in version 7 */
};

/* Names, or "?" past the end. */
const char *sr_stats_dev_name(unsigned int id);
const char *sr_stats_qp_name(unsigned int id);

/* Set a counter to a value copied from elsewhere (single writer). */
static inline void sr_stats_set(uint64_t *c, uint64_t v)
{
	__atomic_store_n(c, v, __ATOMIC_RELAXED);
}

/*
 * Add n to a device counter.  Every lane and the slow path write them, so
 * an atomic add; it is paid per burst, not per frame.
 */
static inline void sr_stats_add(struct sr_stats_shm *s, unsigned int id,
				uint64_t n)
{
	__atomic_fetch_add(&s->dev[id], n, __ATOMIC_RELAXED);
}

/*
 * Add n to a counter that one thread at a time writes (a QP's, under its
 * lane lock; a single lane's, under its progress lock): a plain load
 * and store, whole 64-bit words for the reader, and no locked add, which
 * would wait for the writer's store buffer.
 */
static inline void sr_stats_add_1w(uint64_t *c, uint64_t n)
{
	__atomic_store_n(c, __atomic_load_n(c, __ATOMIC_RELAXED) + n,
			 __ATOMIC_RELAXED);
}

static inline void sr_stats_qp_add(struct sr_stats_qp *q, unsigned int id,
				   uint64_t n)
{
	sr_stats_add_1w(&q->c[id], n);
}

/*
 * Create the file <dir>/sroce-<pid>-<port>.stats (path written to path,
 * PATH_MAX bytes) and map it; with dir NULL or "" the block is private
 * memory and path is "".  Files left in dir by processes that no longer
 * exist are removed first (sr_stats_prune).  Returns the block or NULL
 * (errno set).
 */
struct sr_stats_shm *sr_stats_create(const char *dir, int pid,
				     uint16_t port, char *path);

/*
 * Remove <dir>/sroce-<pid>-*.stats files whose process is gone (a killed
 * device never unlinked its file).  Returns how many were removed.
 */
unsigned int sr_stats_prune(const char *dir);

/* Unmap, and unlink path when it is not "".  Accepts NULL. */
void sr_stats_destroy(struct sr_stats_shm *s, const char *path);

/*
 * Map an existing file for reading (and writing the fault control when
 * writable).  Returns the block or NULL with errno set (EPROTO for a wrong
 * magic, version or size).
 */
struct sr_stats_shm *sr_stats_open(const char *path, bool writable);

/* Unmap a block from sr_stats_open.  Accepts NULL. */
void sr_stats_close(struct sr_stats_shm *s);

/* Claim a QP slot for qpn.  Returns it, or NULL when all are in use. */
struct sr_stats_qp *sr_stats_qp_get(struct sr_stats_shm *s, uint32_t qpn);

/* Release a slot from sr_stats_qp_get.  Accepts NULL. */
void sr_stats_qp_put(struct sr_stats_qp *q);

/* Slots in use (teardown checks that nothing leaked). */
uint32_t sr_stats_qp_in_use(const struct sr_stats_shm *s);

/* Tool side: publish a new fault rule set. */
void sr_stats_fault_publish(struct sr_stats_shm *s,
			    const struct sr_fault_set *set);

/*
 * Device side: when a newer complete rule set was published, copy it into
 * *set, acknowledge it and return true.
 */
bool sr_stats_fault_poll(struct sr_stats_shm *s, struct sr_fault_set *set);

/*
 * Tool side: ask for qpn's trace on or off and wait up to wait_ms for the
 * device.  Returns the device's answer (0, -ENOENT, -ENOTSUP) or
 * -ETIMEDOUT (the device is not progressing).
 */
int sr_stats_trace_request(struct sr_stats_shm *s, uint32_t qpn, bool on,
			   unsigned int wait_ms);

/*
 * Device side: when a new complete request was published, return true with
 * its *gen, *qpn and *on; the device answers with sr_stats_trace_done().
 */
bool sr_stats_trace_poll(struct sr_stats_shm *s, uint32_t *gen, uint32_t *qpn,
			 bool *on);
void sr_stats_trace_done(struct sr_stats_shm *s, uint32_t gen, int result);

#endif /* SR_PMD_COUNTERS_H */
