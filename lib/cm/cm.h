/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * cm.h — the communication manager (IBA chapter 12) as one table-driven
 * state machine, with no threads, no clock and no I/O of its own.
 *
 * The owner of QP1 (the device in-process, or sroced for a shared device)
 * feeds every CM MAD it receives to sr_cm_input() with the time and the
 * sender's address, calls sr_cm_poll() when sr_cm_next_deadline() passes,
 * and carries out the ops->send() calls (one 256-byte MAD to the peer's
 * QP1, Q_Key 0x80010000).  Consumers (the librdmacm drop-in, NDK/ND2
 * connectors) drive connections through the sr_cm_* calls below and learn
 * what happens through ops->event().  Times are nanoseconds of any
 * monotonic clock the owner chooses.
 *
 * Callbacks run inside sr_cm_input/sr_cm_poll/the sr_cm_* calls; from the
 * event callback a consumer may call any sr_cm_* function on the id
 * (accept from the REQ event, destroy it, ...).  Not thread-safe: the
 * owner serialises all calls on one struct sr_cm.
 */
#ifndef SR_CM_CM_H
#define SR_CM_CM_H

#include <stdbool.h>
#include <stdint.h>

#include "cm/mad.h"

#define SR_CM_STATES(X)  \
	X(IDLE)          \
	X(LISTEN)        \
	X(REQ_SENT)      \
	X(REQ_RCVD)      \
	X(MRA_REQ_SENT)  \
	X(MRA_REQ_RCVD)  \
	X(REP_SENT)      \
	X(REP_RCVD)      \
	X(MRA_REP_SENT)  \
	X(MRA_REP_RCVD)  \
	X(ESTABLISHED)   \
	X(DREQ_SENT)     \
	X(DREQ_RCVD)     \
	X(TIMEWAIT)      \
	X(SIDR_REQ_SENT) \
	X(SIDR_REQ_RCVD)

enum sr_cm_state {
#define SR_X(n) SR_CM_##n,
	SR_CM_STATES(SR_X)
#undef SR_X
	SR_CM_STATE_COUNT
};
extern const char *const sr_cm_state_name[SR_CM_STATE_COUNT];

/* REJ reasons (IBA table 112; Linux enum ib_cm_rej_reason). */
#define SR_CM_REJ_NO_QP               1u
#define SR_CM_REJ_NO_RESOURCES        3u
#define SR_CM_REJ_TIMEOUT             4u
#define SR_CM_REJ_UNSUPPORTED         5u
#define SR_CM_REJ_INVALID_COMM_ID     6u
#define SR_CM_REJ_INVALID_SERVICE_ID  8u
#define SR_CM_REJ_INVALID_TRANSPORT   9u
#define SR_CM_REJ_STALE_CONN         10u
#define SR_CM_REJ_CONSUMER_DEFINED   28u

/* SIDR_REP status (IBA 12.11.2). */
#define SR_CM_SIDR_SUCCESS     0u
#define SR_CM_SIDR_UNSUPPORTED 1u
#define SR_CM_SIDR_REJECT      2u

/* Events to the consumer: X(name). */
#define SR_CM_EVENTS(X)       \
	X(REQ_RCVD)           \
	X(REP_RCVD)           \
	X(ESTABLISHED)        \
	X(REJ_RCVD)           \
	X(MRA_RCVD)           \
	X(DREQ_RCVD)          \
	X(DISCONNECTED)       \
	X(TIMEWAIT_EXIT)      \
	X(SIDR_REQ_RCVD)      \
	X(SIDR_REP_RCVD)      \
	X(TIMEOUT)

enum sr_cm_event_type {
#define SR_X(n) SR_CM_EVENT_##n,
	SR_CM_EVENTS(SR_X)
#undef SR_X
	SR_CM_EVENT_COUNT
};
extern const char *const sr_cm_event_name[SR_CM_EVENT_COUNT];

/* A peer's QP1: its GID (RoCEv2: the IP in GID form) and the P_Key.
 * mac and lgid are QP1's owner's business (the peer's Ethernet address and
 * our GID it sent to, learnt from the frame that brought the MAD; for a
 * connect, what the consumer resolved); the CM only carries them along, so
 * every answer leaves from the address the peer used. */
struct sr_cm_addr {
	uint8_t gid[16];
	uint16_t pkey;
	uint8_t mac[6];
	uint8_t lgid[16];
};

struct sr_cm_id;

struct sr_cm_event {
	enum sr_cm_event_type type;
	/* The MAD that caused it (REQ, REP, REJ, DREQ, SIDR_*), NULL for
	 * timer events.  Private data: msg->pdata, msg->pdata_len. */
	const struct sr_cm_msg *msg;
	/* REQ_RCVD / SIDR_REQ_RCVD: the listener it arrived on. */
	struct sr_cm_id *listen_id;
	/* TIMEOUT: the message that went unanswered (SR_CM_MSG_*, or
	 * SR_CM_MSG_OTHER for DREQ and SIDR_REQ). */
	uint8_t timed_out;
};

struct sr_cm_ops {
	/* Send one MAD (SR_MAD_SIZE bytes) to the peer's QP1. */
	void (*send)(void *ctx, const struct sr_cm_addr *to, const uint8_t *mad);
	void (*event)(void *ctx, struct sr_cm_id *id, const struct sr_cm_event *ev);
	/* Optional: a listener on service_id comes (on) or goes.  A CM that
	 * shares its port with other processes' (sroced) registers its
	 * service IDs with the port's owner, which routes REQs and SIDR_REQs
	 * by them; -errno refuses the listen (-EADDRINUSE: another process
	 * listens there).  Called from sr_cm_listen, sr_cm_id_destroy and
	 * sr_cm_destroy. */
	int (*listen)(void *ctx, uint64_t service_id, bool on);
	void *ctx;
};

struct sr_cm_cfg {
	struct sr_cm_ops ops;
	uint32_t max_ids;        /* ids, listeners included; 0 = 1024 */
	uint64_t ca_guid;        /* local CA GUID in REQ and REP */
	uint64_t timewait_ns;    /* 0 = 4.096 us << 18 (about 1.07 s) */
	uint32_t comm_id_seed;   /* randomises the local communication IDs */
	/* 0, or the block of communication IDs this CM owns on a port it
	 * shares with other processes (1 .. SR_CM_COMM_ID_BLOCKS - 1, given
	 * by the port's owner): its local IDs then carry the block in their
	 * top bits (cm/route.h) and max_ids is at most SR_CM_BLOCK_IDS. */
	uint32_t comm_id_block;
};

/* Communication IDs of a shared port: block << 20 | generation << 10 | slot. */
#define SR_CM_COMM_ID_BLOCK_SHIFT 20
#define SR_CM_COMM_ID_BLOCKS      4096u
#define SR_CM_BLOCK_IDS           1024u

static inline uint32_t sr_cm_comm_id_block(uint32_t comm_id)
{
	return comm_id >> SR_CM_COMM_ID_BLOCK_SHIFT;
}

/* Counters: X(name, text).  Every MAD the CM drops is counted once. */
#define SR_CM_COUNTERS(X)                                                  \
	X(rx,               "MADs received")                               \
	X(tx,               "MADs sent, retransmissions included")         \
	X(retransmits,      "REQ/REP/DREQ/SIDR_REQ sent again on timeout") \
	X(timeouts,         "retries exhausted")                           \
	X(rx_malformed,     "dropped by the parser (see rx_err)")          \
	X(rx_unknown_id,    "names a communication ID we do not have")    \
	X(rx_remote_mismatch, "remote ID or sender differs from the id's") \
	X(rx_stale,         "message not valid in the id's state")         \
	X(rx_dup,           "duplicate, dropped")                          \
	X(dup_answered,     "duplicate answered with MRA/REP/RTU/DREP")    \
	X(rej_no_listener,  "REQ rejected: invalid service ID (8)")        \
	X(rej_stale,        "REQ rejected: stale connection (10)")         \
	X(rej_transport,    "REQ rejected: RD or reserved transport (9)")  \
	X(rej_no_resources, "REQ/SIDR_REQ refused: no free id")            \
	X(sidr_unsupported, "SIDR_REQ answered: service not supported")    \
	X(get_resp,         "Get/Set answered: unsupported attribute")     \
	X(lap_refused,      "LAP answered with APR: not supported")        \
	X(drep_unknown,     "DREQ for no connection answered with DREP")   \
	X(apr_dropped,      "APR dropped (we never send LAP)")

struct sr_cm_counters {
#define SR_X(n, t) uint64_t n;
	SR_CM_COUNTERS(SR_X)
#undef SR_X
	uint64_t rx_err[SR_MAD_ERR_COUNT];
};

/* NULL on a bad cfg (no send or event op) or no memory. */
struct sr_cm *sr_cm_create(const struct sr_cm_cfg *cfg);
/* Frees every id without sending anything.  NULL is accepted. */
void sr_cm_destroy(struct sr_cm *cm);

/* Receive one MAD (len bytes, the DETH payload of a QP1 datagram). */
void sr_cm_input(struct sr_cm *cm, uint64_t now, const struct sr_cm_addr *from,
		 const uint8_t *mad, uint32_t len);
/* Earliest time sr_cm_poll has work, UINT64_MAX if none. */
uint64_t sr_cm_next_deadline(const struct sr_cm *cm);
/* Run every timer due at now: retransmissions, timeouts, timewait exits. */
void sr_cm_poll(struct sr_cm *cm, uint64_t now);

const struct sr_cm_counters *sr_cm_counters(const struct sr_cm *cm);
/* The MADs the CM dropped, every reason summed (the stats file's cm_drop). */
static inline uint64_t sr_cm_counters_dropped(const struct sr_cm_counters *c)
{
	return c->rx_malformed + c->rx_unknown_id + c->rx_remote_mismatch +
	       c->rx_stale + c->rx_dup + c->apr_dropped;
}
uint32_t sr_cm_ids_in_use(const struct sr_cm *cm);

/* The CM response timeout encoding: 4.096 us * 2^t (t 0..31). */
static inline uint64_t sr_cm_timeout_ns(uint8_t t)
{
	return 4096ull << (t & 31u);
}

/* ---- consumer calls.  Each returns 0 or -errno:
 *   -EINVAL  bad argument (private data too long, NULL where required)
 *   -EPROTO  the call is not valid in the id's state (id unchanged)
 *   -ENOMEM  no free id
 *   -EADDRINUSE  (listen) the service ID already has a listener */

int sr_cm_listen(struct sr_cm *cm, uint64_t service_id, void *ctx,
		 struct sr_cm_id **out);

struct sr_cm_req_param {
	uint64_t service_id;
	struct sr_cm_addr peer;
	struct sr_cm_path path;          /* primary path */
	uint32_t qpn, psn, qkey;
	uint8_t transport;               /* SR_CM_TRANSPORT_* */
	uint8_t responder_resources, initiator_depth;
	uint8_t retry_count, rnr_retry_count, path_mtu, srq;
	uint8_t remote_cm_timeout;       /* how long we wait for the REP */
	uint8_t local_cm_timeout;        /* how long the peer waits for us */
	uint8_t max_cm_retries;
	const uint8_t *pdata;
	uint8_t pdata_len;               /* at most 92 */
};
int sr_cm_connect(struct sr_cm *cm, uint64_t now,
		  const struct sr_cm_req_param *p, void *ctx,
		  struct sr_cm_id **out);

struct sr_cm_rep_param {
	uint32_t qpn, psn, qkey;
	uint8_t responder_resources, initiator_depth;
	uint8_t target_ack_delay, rnr_retry_count, srq;
	const uint8_t *pdata;
	uint8_t pdata_len;               /* at most 196 */
};
/* REQ_RCVD or MRA_REQ_SENT -> REP_SENT. */
int sr_cm_accept(struct sr_cm_id *id, uint64_t now, const struct sr_cm_rep_param *p);
/* Refuse a REQ (REQ_RCVD, MRA_REQ_SENT) or a REP (REP_RCVD, MRA_REP_SENT). */
int sr_cm_reject(struct sr_cm_id *id, uint64_t now, uint16_t reason,
		 const uint8_t *pdata, uint8_t pdata_len);
/* Ask the peer for more time: REQ_RCVD -> MRA_REQ_SENT, REP_RCVD -> MRA_REP_SENT. */
int sr_cm_mra(struct sr_cm_id *id, uint64_t now, uint8_t service_timeout,
	      const uint8_t *pdata, uint8_t pdata_len);
/* Active side: REP_RCVD or MRA_REP_SENT -> ESTABLISHED. */
int sr_cm_rtu(struct sr_cm_id *id, uint64_t now, const uint8_t *pdata,
	      uint8_t pdata_len);
/* Passive side: the QP saw the first packet (communication established). */
int sr_cm_established(struct sr_cm_id *id, uint64_t now);
/* ESTABLISHED -> DREQ_SENT. */
int sr_cm_disconnect(struct sr_cm_id *id, uint64_t now, const uint8_t *pdata,
		     uint8_t pdata_len);
/* DREQ_RCVD -> TIMEWAIT. */
int sr_cm_drep(struct sr_cm_id *id, uint64_t now, const uint8_t *pdata,
	       uint8_t pdata_len);

struct sr_cm_sidr_param {
	uint64_t service_id;
	struct sr_cm_addr peer;
	uint8_t timeout;                 /* CM response timeout encoding */
	uint8_t max_retries;
	const uint8_t *pdata;
	uint8_t pdata_len;               /* at most 216 */
};
int sr_cm_sidr_req(struct sr_cm *cm, uint64_t now,
		   const struct sr_cm_sidr_param *p, void *ctx,
		   struct sr_cm_id **out);
/* SIDR_REQ_RCVD -> IDLE. */
int sr_cm_sidr_rep(struct sr_cm_id *id, uint64_t now, uint8_t status,
		   uint32_t qpn, uint32_t qkey, const uint8_t *pdata,
		   uint8_t pdata_len);

/*
 * Release an id.  What the peer must learn is sent first: a REJ (timeout
 * on the active side, consumer-defined on the passive side) before the
 * connection is up, a DREQ once it is.  An id in TIMEWAIT stays, answering
 * stale messages, until the timewait ends, then goes silently.  NULL is
 * accepted.
 */
void sr_cm_id_destroy(struct sr_cm_id *id, uint64_t now);

enum sr_cm_state sr_cm_id_state(const struct sr_cm_id *id);
void *sr_cm_id_ctx(const struct sr_cm_id *id);
void sr_cm_id_set_ctx(struct sr_cm_id *id, void *ctx);
uint32_t sr_cm_id_local(const struct sr_cm_id *id);
uint32_t sr_cm_id_remote(const struct sr_cm_id *id);
/* The peer's QPN (from its REQ or REP), 0 before. */
uint32_t sr_cm_id_remote_qpn(const struct sr_cm_id *id);
/* The peer's QP1 address (from its REQ, or the one connect was given). */
const struct sr_cm_addr *sr_cm_id_peer(const struct sr_cm_id *id);

#endif /* SR_CM_CM_H */
