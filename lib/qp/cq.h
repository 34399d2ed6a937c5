/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * cq.h — completion queues.
 *
 * The engine is the only producer, one consumer thread polls (ring.h).  A
 * CQ that is full when the engine has a completion for it overflows: the
 * completion is lost, SR_CNT_CQ_OVERFLOW counts it, sr_cq_overflowed()
 * turns true for good and an SR_EVENT_CQ_ERR async event is raised once.
 * The QPs feeding it are not moved to ERR by the transport: the consumer
 * (or the verbs shim) decides, as ibverbs leaves it to the application.
 *
 * Notification: sr_cq_req_notify() arms the CQ for the next completion, or
 * only the next solicited one (a receive of a message with the SE bit or
 * an error completion).  When an armed CQ gets such a completion the
 * notify callback runs once (on the engine thread) and the CQ is disarmed.
 * The verbs shim turns this callback into a completion channel.
 */
#ifndef SR_QP_CQ_H
#define SR_QP_CQ_H

#include <stdbool.h>
#include <stdint.h>

#include "qp/wr.h"

struct sr_dev;
struct sr_cq;

typedef void (*sr_cq_notify_fn)(struct sr_cq *cq, void *ctx);

/*
 * cqe: at least this many entries, at most the device's max_cq_depth
 * (mr/limits.h).  NULL: 0 or too big, or no memory.
 */
struct sr_cq *sr_cq_create(struct sr_dev *dev, uint32_t cqe,
			   sr_cq_notify_fn notify, void *notify_ctx);
/* 0, -EBUSY (a QP or SRQ still uses it).  NULL is accepted. */
int sr_cq_destroy(struct sr_cq *cq);
/* A QP or SRQ uses it (sr_cq_destroy would say EBUSY).  Slow path. */
bool sr_cq_in_use(struct sr_cq *cq);
/*
 * Give the CQ room for at least cqe entries, keeping the completions it
 * holds, in order.  The consumer thread, not while it polls elsewhere (as
 * ibv_resize_cq).  0; -EINVAL: cqe 0, above max_cq_depth, or fewer than
 * the completions it holds; -ENOMEM.
 */
int sr_cq_resize(struct sr_cq *cq, uint32_t cqe);

/* Take up to n completions.  Returns how many.  Consumer thread. */
int sr_cq_poll(struct sr_cq *cq, int n, struct sr_wc *wc);

/*
 * Remove the completions of QP number qpn that the CQ holds and the
 * consumer has not taken: a QP moved to RESET leaves nothing behind in its
 * CQs (as mlx4/mlx5 clean theirs), so a consumer that resets a QP in error
 * and uses it again does not poll the old flush errors.  Every lane lock
 * must be held (no engine can push meanwhile); the consumer may poll
 * meanwhile, an entry it already took stays taken.  Returns how many.
 */
unsigned int sr_cq_clean(struct sr_cq *cq, uint32_t qpn);

/* Arm: next completion (solicited_only false) or next solicited one. 0. */
int sr_cq_req_notify(struct sr_cq *cq, bool solicited_only);

/*
 * Stamp every completion from now on with the device's clock (sr_wc's
 * timestamp, read as the completion is pushed: ibverbs' completion
 * timestamp).  Set before QPs use the CQ; off by default, where it costs
 * nothing.
 */
void sr_cq_stamp(struct sr_cq *cq, bool on);
/* The clock completions are stamped with: ns since the device started. */
uint64_t sr_cq_clock_ns(const struct sr_cq *cq);

/* No completion waits to be polled.  Any thread (a snapshot, ordered
 * after an arm: sr_cq_req_notify then sr_cq_empty misses nothing). */
bool sr_cq_empty(const struct sr_cq *cq);
bool sr_cq_overflowed(const struct sr_cq *cq);
/* The notify_ctx given at creation: the way back to a wrapper object. */
void *sr_cq_context(const struct sr_cq *cq);
uint32_t sr_cq_depth(const struct sr_cq *cq);

#endif /* SR_QP_CQ_H */
