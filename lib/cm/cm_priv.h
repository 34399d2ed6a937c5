/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * cm_priv.h — what cm.c (ids, input, timers, consumer calls) and
 * cm_table.c (the [state][input] table and its actions) share.
 */
#ifndef SR_CM_CM_PRIV_H
#define SR_CM_CM_PRIV_H

#include <stdbool.h>

#include "cm/cm.h"

struct sr_cm_id {
	struct sr_cm *cm;
	enum sr_cm_state state;
	bool used;
	bool orphan;             /* destroyed in TIMEWAIT: freed at its end */
	bool sidr;
	bool has_ans;
	uint32_t local_id, remote_id, remote_qpn;
	uint32_t local_qpn;      /* our QP, as our REQ or REP named it (0: none) */
	uint64_t service_id, tid;
	struct sr_cm_addr peer;
	void *ctx;
	uint64_t deadline;       /* UINT64_MAX: no timer */
	uint64_t retry_ns;       /* interval of the retried message */
	uint8_t retries_left, max_retries;
	uint8_t peer_timeout;    /* REQ's local CM response timeout */
	uint8_t mad[SR_MAD_SIZE];   /* REQ/REP/DREQ/SIDR_REQ: retried */
	uint8_t ans[SR_MAD_SIZE];   /* MRA/RTU/DREP: answers duplicates */
};

struct sr_cm {
	struct sr_cm_cfg cfg;
	struct sr_cm_counters cnt;
	struct sr_cm_id *ids;
	uint32_t nids, in_use;
	uint16_t gen;
};

/* What drives the table: received messages, the timer, consumer calls. */
#define SR_CM_INPUTS(X) \
	X(RX_REQ) X(RX_MRA) X(RX_REJ) X(RX_REP) X(RX_RTU) X(RX_DREQ)        \
	X(RX_DREP) X(RX_SIDR_REP) X(TIMEOUT) X(API_ACCEPT) X(API_REJECT)    \
	X(API_MRA) X(API_RTU) X(API_ESTABLISH) X(API_DISCONNECT)            \
	X(API_DREP) X(API_SIDR_REP)

enum sr_cm_input {
#define SR_X(n) SR_CM_IN_##n,
	SR_CM_INPUTS(SR_X)
#undef SR_X
	SR_CM_IN_COUNT
};

struct sr_cm_in {
	uint64_t now;
	const struct sr_cm_msg *msg;         /* RX_* */
	const struct sr_cm_rep_param *rep;   /* API_ACCEPT */
	const uint8_t *pdata;
	uint8_t pdata_len;
	uint16_t reason;                     /* API_REJECT */
	uint8_t value;                       /* MRA service timeout, SIDR status */
	uint32_t qpn, qkey;                  /* API_SIDR_REP */
};

typedef void sr_cm_act_fn(struct sr_cm *cm, struct sr_cm_id *id,
			  const struct sr_cm_in *in);

#define SR_CM_KEEP 0xFFu

struct sr_cm_trans {
	sr_cm_act_fn *act;       /* NULL: the input is not valid here */
	uint8_t next;            /* state set before act runs, or SR_CM_KEEP */
};
extern const struct sr_cm_trans sr_cm_table[SR_CM_STATE_COUNT][SR_CM_IN_COUNT];

/* Run the table.  0, or -EPROTO if the input has no entry in the state. */
int sr_cm_dispatch(struct sr_cm *cm, struct sr_cm_id *id, enum sr_cm_input ev,
		   const struct sr_cm_in *in);

/* Helpers of cm.c the actions use. */
void sr_cm_tx(struct sr_cm *cm, const struct sr_cm_addr *to, const uint8_t *mad);
void sr_cm_emit(struct sr_cm *cm, struct sr_cm_id *id, enum sr_cm_event_type t,
		const struct sr_cm_msg *msg, uint8_t timed_out);
void sr_cm_msg_init(struct sr_cm_msg *m, const struct sr_cm_id *id,
		    enum sr_cm_attr attr, const uint8_t *pdata, uint8_t len);
/* Build m into buf (id->mad or id->ans) and send it to the peer. */
void sr_cm_send_msg(struct sr_cm *cm, struct sr_cm_id *id,
		    const struct sr_cm_msg *m, uint8_t *buf);
void sr_cm_send_rej(struct sr_cm *cm, const struct sr_cm_addr *to, uint64_t tid,
		    uint32_t local_id, uint32_t remote_id, uint8_t msg_type,
		    uint16_t reason, const uint8_t *pdata, uint8_t len);
void sr_cm_arm(struct sr_cm_id *id, uint64_t now, uint64_t ns, uint8_t retries);
void sr_cm_timewait(struct sr_cm *cm, struct sr_cm_id *id, uint64_t now);
void sr_cm_id_free(struct sr_cm *cm, struct sr_cm_id *id);

#endif /* SR_CM_CM_PRIV_H */
