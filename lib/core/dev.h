/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dev.h — the sroce device: one link, one MR engine, many QPs, CQs, SRQs.
 *
 * The device is the transport's face to a link (core/link.h): frames come
 * in through sr_dev_rx_burst(), frames go out through the link's ops, and the
 * link's clock drives every timer.  It never resolves addresses: the
 * caller (the pmd) puts the destination MAC into each address vector.
 *
 * Threading rules
 * ---------------
 * The ENGINE is whoever calls sr_dev_rx_burst() and sr_dev_poll(): one
 * poll thread, the consumer itself inline, or several engine threads, the
 * LANES, that share the QPs by shard (sr_dev_poll_shard(),
 * sr_dev_config.lanes).  Each lane has a lock of its own: a call runs under
 * the lock of the QPs it touches, so a QP's transport runs on one lane at a
 * time while the lanes run at once.  What lanes share has its own guard: a
 * CQ's producer side and an SRQ's consumer side a small lock each (taken
 * only with several lanes), device counters locked adds, a multicast
 * frame's fan-out every lane's lock.  Any number of other threads may,
 * concurrently with the engine:
 *   - post to a QP or SRQ (sr_qp_post_send/recv, sr_srq_post_recv): one
 *     thread per queue at a time; lock-free;
 *   - poll and arm a CQ (sr_cq_poll, sr_cq_req_notify): one thread per CQ
 *     at a time; lock-free;
 *   - create, modify, query and destroy objects (slow path): these take
 *     every lane's lock (core/lock.h), one of which the engine holds while
 *     it runs, so a modify is observed by the engine between two of its
 *     steps, never in the middle of one.
 * Callbacks (CQ notification, async events) run on an engine thread with a
 * lane lock held, on several lanes at once: they must not call slow-path
 * functions, and must be thread-safe; they may post, poll and arm.
 *
 * Errors: int functions return 0 or -errno as documented per function.
 */
#ifndef SR_CORE_DEV_H
#define SR_CORE_DEV_H

#include <stdbool.h>
#include <stdint.h>

#include "core/counters.h"
#include "core/link.h"
#include "wire/parse.h"

struct sr_dev;
struct sr_mr_dev;
struct sr_qp;
struct sr_cq;
struct sr_srq;

#define SR_GID_TABLE_LEN 16
/*
 * QPs a device can have at once (a table of pointers by QPN - qpn_base):
 * an MPI job's few hundred ranks per host, each with a QP to every rank,
 * need thousands.  A device may take fewer (sr_dev_config.max_qp): a
 * client of sroced has a block of 4096 QPNs.
 */
#define SR_MAX_QP        16384
#define SR_MAX_SRQ       4096   /* SRQ numbers 1 .. SR_MAX_SRQ */
/* Engine lanes a device's locks are split for (sr_dev_config.lanes). */
#define SR_DEV_LANES_MAX 8
#define SR_WINDOW_MIN    16     /* sr_dev_config.window's range */
#define SR_WINDOW_MAX    1024

/* X(name, ibv value): enum ibv_event_type, the ones this device raises. */
#define SR_EVENT_LIST(X)                                                \
	X(CQ_ERR, 0)                                                    \
	X(QP_FATAL, 1)                                                  \
	X(QP_REQ_ERR, 2)                                                \
	X(QP_ACCESS_ERR, 3)                                             \
	X(COMM_EST, 4)                                                  \
	X(SQ_DRAINED, 5)                                                \
	X(DEVICE_FATAL, 8)                                              \
	X(SRQ_ERR, 14)                                                  \
	X(SRQ_LIMIT_REACHED, 15)                                        \
	X(QP_LAST_WQE_REACHED, 16)

enum sr_event_type {
#define SR_X(n, v) SR_EVENT_##n = v,
	SR_EVENT_LIST(SR_X)
#undef SR_X
};

const char *sr_event_str(enum sr_event_type t);

struct sr_async_event {
	enum sr_event_type type;
	union {
		struct sr_qp *qp;
		struct sr_cq *cq;
		struct sr_srq *srq;
	};
};

typedef void (*sr_async_fn)(void *ctx, const struct sr_async_event *ev);

struct sr_dcqcn_params;   /* cc/dcqcn.h */
struct sr_trace_ring;     /* core/trace.h */

struct sr_dev_config {
	const struct sr_link_ops *link_ops;
	void *link;                          /* first argument of link_ops */
	struct sr_mr_dev *mr;                /* every memory access goes here */
	uint8_t mac[6];
	uint8_t gid[SR_GID_TABLE_LEN][16];   /* ::ffff:a.b.c.d for IPv4 */
	unsigned int gid_count;
	uint16_t pkey;                       /* 0: the default 0xffff */
	sr_async_fn async_cb;                /* may be NULL */
	void *async_ctx;
	const struct sr_dcqcn_params *cc;    /* NULL: congestion control off
					      * (no CNPs sent, CNPs dropped) */
	uint64_t line_bps;                   /* link rate for DCQCN (0: 100G) */
	bool line_paced;                     /* no QP sends above line_bps (a
					      * link slower than the port, as
					      * the configuration's line_rate) */
	uint8_t ecn;                         /* ECN of sent RoCEv2 packets: 0 the
					      * AV's traffic class as given,
					      * 2 ECT(0), 1 ECT(1); 3 refused */
	struct sr_trace_ring *trace;         /* live QP trace (core/trace.h),
					      * initialized; NULL: none */
	/*
	 * A shared device's daemon checks that a process sends RC/UC frames
	 * only to the peers of its QPs: peer_cb tells it, on the consumer's
	 * thread without the device lock, when an RC or UC QP is given its
	 * peer (modify to RTR: on, dgid, dqpn).  A destroyed QP's peer stays
	 * until its QPN gets a new one: frames queued before the destroy (a
	 * last ACK) still go out.  A non-zero return fails the modify with
	 * it.  NULL: none.
	 */
	int (*peer_cb)(void *ctx, uint32_t qpn, const uint8_t dgid[16],
		       uint32_t dqpn, bool on);
	void *peer_ctx;
	uint32_t max_qp;                     /* 0: SR_MAX_QP; at most that */
	uint32_t window;                     /* PSNs a requester may have
					      * unacknowledged: 0 = 128, as
					      * rxe; SR_WINDOW_MIN ..
					      * SR_WINDOW_MAX */
	uint32_t qpn_base;                   /* QPNs qpn_base .. + max_qp - 1;
					      * 0: 2 (a device of its own); a
					      * shared device's daemon hands out
					      * blocks (pmd/sroced) */
	uint32_t tx_ref_min;                 /* payloads of at least this many
					      * bytes go by reference from
					      * registered memory where the
					      * link can (link.h tx_alloc_ref);
					      * 0: always copied */
	unsigned int lanes;                  /* engine threads that will share
					      * the QPs by shard (poll_shard's
					      * nshards): a lock each; 0 or 1:
					      * one, at most SR_DEV_LANES_MAX */
	uint64_t sched_sweep_ns;             /* the engine's safety sweep of
					      * every QP (core/sched.h); 0: 10 ms,
					      * UINT64_MAX: never (tests) */
};

/* NULL on bad config (no ops, no MR engine) or no memory. */
struct sr_dev *sr_dev_create(const struct sr_dev_config *cfg);
/* Every QP, CQ and SRQ must be destroyed first. NULL is accepted. */
void sr_dev_destroy(struct sr_dev *dev);

/*
 * The device is lost (a shared device's daemon went away): every QP goes
 * to ERR (QP_FATAL each; the engine flushes their work requests with
 * flush errors), then one DEVICE_FATAL event (obj NULL).  Engine only,
 * once; later calls do nothing.
 */
void sr_dev_fatal(struct sr_dev *dev);
bool sr_dev_is_fatal(const struct sr_dev *dev);

/*
 * Receive a burst of frames (Ethernet first); dev is a struct sr_dev *.
 * Matches sr_link_rx_fn: the link passes the device as handler_ctx.  Each
 * frame is parsed without a lock, then handled under its destination QP's
 * lane lock, taken once for a run of frames of one lane.  Engine only.
 */
void sr_dev_rx_burst(void *dev, const struct sr_link_frame *frames,
		     unsigned int n);
/* One frame: a burst of one. */
void sr_dev_rx(struct sr_dev *dev, const uint8_t *frame, uint32_t len);

/*
 * QP1 (the GSI): frames whose destination QPN is 1 go to fn, parsed, with
 * QPN 1's lane lock held, instead of being dropped as an unknown QPN.  The
 * owner of QP1 (lib/cm/gsi.h) checks and consumes them.  fn NULL: dropped
 * again.  Slow path.
 */
struct sr_pkt;
typedef void sr_dev_gsi_fn(void *ctx, const struct sr_pkt *pkt);
void sr_dev_set_gsi(struct sr_dev *dev, sr_dev_gsi_fn *fn, void *ctx);

/*
 * Run the engine: requesters (send new work, retransmit), responders
 * (pending READ responses, coalesced ACKs), completers, timers and error
 * flushes, up to about budget packets.  Returns the work done (0: idle).
 */
unsigned int sr_dev_poll(struct sr_dev *dev, unsigned int budget);

/*
 * The same for the QPs of one shard when nshards engine threads share the
 * device: a QP belongs to shard sr_dev_qpn_shard(qpn, nshards).  A link
 * with one queue per engine hands each received frame to the engine of
 * its destination QP's shard, so one engine builds all of a QP's frames
 * and they leave on one queue, in order.  With nshards the device's lanes
 * the call takes that shard's lock only; any other nshards takes them all
 * (correct, but the lanes then take turns).
 */
unsigned int sr_dev_poll_shard(struct sr_dev *dev, unsigned int budget,
			       unsigned int shard, unsigned int nshards);

static inline unsigned int sr_dev_qpn_shard(uint32_t qpn, unsigned int nshards)
{
	return nshards > 1 ? qpn % nshards : 0;
}

/*
 * Nanoseconds until the earliest armed timer from now, 0 if some work is
 * ready now, UINT64_MAX if nothing is armed.  Lets a link (or a simulated
 * clock) sleep exactly as long as it may.
 */
uint64_t sr_dev_next_timer_ns(struct sr_dev *dev);

/* Change a GID table entry (slow path).  0, -EINVAL (index). */
int sr_dev_set_gid(struct sr_dev *dev, unsigned int index,
		   const uint8_t gid[16]);

/*
 * Trace one QP's events into the config's trace ring (core/trace.h), or
 * stop.  Slow path.  0, -ENOENT (no such QPN), -ENOTSUP (no ring).
 */
int sr_dev_trace_qp(struct sr_dev *dev, uint32_t qpn, bool on);

/* Copy the device counters (sums over its QPs plus device-only ones). */
void sr_dev_counters(const struct sr_dev *dev, uint64_t out[SR_CNT_MAX]);
/* Frames refused by the parser, by reason. */
void sr_dev_parse_drops(const struct sr_dev *dev, uint64_t out[SR_PARSE_MAX]);

/* Live objects, for leak checks at teardown. */
unsigned int sr_dev_qp_count(const struct sr_dev *dev);
/* sr_dev_config.max_qp: how many QPs it may have at once. */
unsigned int sr_dev_max_qp(const struct sr_dev *dev);
unsigned int sr_dev_cq_count(const struct sr_dev *dev);
unsigned int sr_dev_srq_count(const struct sr_dev *dev);

struct sr_mr_dev *sr_dev_mr(const struct sr_dev *dev);

#endif /* SR_CORE_DEV_H */
