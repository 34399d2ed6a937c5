/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * cm_table.c — the CM state machine: one [state][input] table (IBA 12.9,
 * the connection and SIDR state diagrams) and the actions it names.
 *
 * The table sets the next state before the action runs; an action that
 * chooses between states sets it itself.  Every action that tells the
 * consumer does so last, so the consumer may call back into the CM (or
 * destroy the id) from its event callback.
 */
#include <errno.h>
#include <string.h>

#include "cm/cm_priv.h"

/* ---- duplicates and stale messages ---- */

static void act_dup(struct sr_cm *cm, struct sr_cm_id *id, const struct sr_cm_in *in)
{
	(void)id;
	(void)in;
	cm->cnt.rx_dup++;
}

/* A duplicate REQ after our MRA, a duplicate REP after our RTU or MRA:
 * the answer was lost, send it again. */
static void act_resend_ans(struct sr_cm *cm, struct sr_cm_id *id,
			   const struct sr_cm_in *in)
{
	(void)in;
	if (!id->has_ans) {
		cm->cnt.rx_dup++;
		return;
	}
	cm->cnt.dup_answered++;
	sr_cm_tx(cm, &id->peer, id->ans);
}

/* A duplicate REQ after our REP: the REP was lost, send it again. */
static void act_resend_mad(struct sr_cm *cm, struct sr_cm_id *id,
			   const struct sr_cm_in *in)
{
	(void)in;
	cm->cnt.dup_answered++;
	sr_cm_tx(cm, &id->peer, id->mad);
}

/* A REQ for a connection in TIMEWAIT: REJ, stale connection. */
static void act_rej_stale(struct sr_cm *cm, struct sr_cm_id *id,
			  const struct sr_cm_in *in)
{
	cm->cnt.rej_stale++;
	sr_cm_send_rej(cm, &id->peer, in->msg->tid, id->local_id,
		       in->msg->local_comm_id, SR_CM_MSG_REQ,
		       SR_CM_REJ_STALE_CONN, NULL, 0);
}

/* A DREQ in TIMEWAIT: our DREP was lost (or our DREQ timed out). */
static void act_drep_again(struct sr_cm *cm, struct sr_cm_id *id,
			   const struct sr_cm_in *in)
{
	struct sr_cm_msg m;

	(void)in;
	if (id->has_ans) {
		cm->cnt.dup_answered++;
		sr_cm_tx(cm, &id->peer, id->ans);
		return;
	}
	sr_cm_msg_init(&m, id, SR_CM_ATTR_DREP, NULL, 0);
	cm->cnt.dup_answered++;
	sr_cm_send_msg(cm, id, &m, id->ans);
	id->has_ans = true;
}

/* ---- received messages ---- */

static void act_mra_rcvd(struct sr_cm *cm, struct sr_cm_id *id,
			 const struct sr_cm_in *in)
{
	uint8_t want = id->state == SR_CM_REQ_SENT ? SR_CM_MSG_REQ : SR_CM_MSG_REP;

	if (in->msg->msg_type != want) {
		cm->cnt.rx_stale++;
		return;
	}
	if (id->remote_id == 0)
		id->remote_id = in->msg->local_comm_id;
	id->state = want == SR_CM_MSG_REQ ? SR_CM_MRA_REQ_RCVD : SR_CM_MRA_REP_RCVD;
	/* Wait the service timeout, then go on retrying the message. */
	id->deadline = in->now + sr_cm_timeout_ns(in->msg->service_timeout) +
		       id->retry_ns;
	sr_cm_emit(cm, id, SR_CM_EVENT_MRA_RCVD, in->msg, 0);
}

static void act_rej_rcvd(struct sr_cm *cm, struct sr_cm_id *id,
			 const struct sr_cm_in *in)
{
	id->deadline = UINT64_MAX;
	if (id->state == SR_CM_TIMEWAIT)
		sr_cm_timewait(cm, id, in->now);
	sr_cm_emit(cm, id, SR_CM_EVENT_REJ_RCVD, in->msg, 0);
}

static void act_rep_rcvd(struct sr_cm *cm, struct sr_cm_id *id,
			 const struct sr_cm_in *in)
{
	id->deadline = UINT64_MAX;
	id->remote_id = in->msg->local_comm_id;
	id->remote_qpn = in->msg->qpn;
	sr_cm_emit(cm, id, SR_CM_EVENT_REP_RCVD, in->msg, 0);
}

static void act_established(struct sr_cm *cm, struct sr_cm_id *id,
			    const struct sr_cm_in *in)
{
	id->deadline = UINT64_MAX;
	sr_cm_emit(cm, id, SR_CM_EVENT_ESTABLISHED, in->msg, 0);
}

static void act_dreq_rcvd(struct sr_cm *cm, struct sr_cm_id *id,
			  const struct sr_cm_in *in)
{
	id->deadline = UINT64_MAX;
	id->has_ans = false;
	sr_cm_emit(cm, id, SR_CM_EVENT_DREQ_RCVD, in->msg, 0);
}

static void act_drep_rcvd(struct sr_cm *cm, struct sr_cm_id *id,
			  const struct sr_cm_in *in)
{
	sr_cm_timewait(cm, id, in->now);
	sr_cm_emit(cm, id, SR_CM_EVENT_DISCONNECTED, in->msg, 0);
}

static void act_sidr_rep_rcvd(struct sr_cm *cm, struct sr_cm_id *id,
			      const struct sr_cm_in *in)
{
	id->deadline = UINT64_MAX;
	id->remote_qpn = in->msg->qpn;
	sr_cm_emit(cm, id, SR_CM_EVENT_SIDR_REP_RCVD, in->msg, 0);
}

/* ---- the timer ---- */

static void act_retry(struct sr_cm *cm, struct sr_cm_id *id,
		      const struct sr_cm_in *in)
{
	static const uint8_t retried_state[SR_CM_STATE_COUNT] = {
		[SR_CM_MRA_REQ_RCVD] = SR_CM_REQ_SENT,
		[SR_CM_MRA_REP_RCVD] = SR_CM_REP_SENT,
	};
	uint8_t what;

	if (retried_state[id->state] != 0)
		id->state = retried_state[id->state];
	if (id->retries_left > 0) {
		id->retries_left--;
		cm->cnt.retransmits++;
		id->deadline = in->now + id->retry_ns;
		sr_cm_tx(cm, &id->peer, id->mad);
		return;
	}
	cm->cnt.timeouts++;
	switch (id->state) {
	case SR_CM_DREQ_SENT:
		/* The peer never answered: the connection is gone anyway. */
		sr_cm_timewait(cm, id, in->now);
		sr_cm_emit(cm, id, SR_CM_EVENT_DISCONNECTED, NULL, 0);
		return;
	case SR_CM_REQ_SENT:
		what = SR_CM_MSG_REQ;
		break;
	case SR_CM_REP_SENT:
		what = SR_CM_MSG_REP;
		break;
	default:
		what = SR_CM_MSG_OTHER;
		break;
	}
	id->state = SR_CM_IDLE;
	id->deadline = UINT64_MAX;
	sr_cm_emit(cm, id, SR_CM_EVENT_TIMEOUT, NULL, what);
}

static void act_timewait_exit(struct sr_cm *cm, struct sr_cm_id *id,
			      const struct sr_cm_in *in)
{
	(void)in;
	if (id->orphan) {
		sr_cm_id_free(cm, id);
		return;
	}
	sr_cm_emit(cm, id, SR_CM_EVENT_TIMEWAIT_EXIT, NULL, 0);
}

/* ---- consumer calls ---- */

static void act_send_rep(struct sr_cm *cm, struct sr_cm_id *id,
			 const struct sr_cm_in *in)
{
	const struct sr_cm_rep_param *p = in->rep;
	struct sr_cm_msg m;

	sr_cm_msg_init(&m, id, SR_CM_ATTR_REP, p->pdata, p->pdata_len);
	m.qkey = p->qkey;
	m.qpn = p->qpn;
	id->local_qpn = p->qpn;
	m.psn = p->psn;
	m.responder_resources = p->responder_resources;
	m.initiator_depth = p->initiator_depth;
	m.target_ack_delay = p->target_ack_delay;
	m.rnr_retry_count = p->rnr_retry_count;
	m.srq = p->srq;
	m.ca_guid = cm->cfg.ca_guid;
	id->has_ans = false;
	sr_cm_send_msg(cm, id, &m, id->mad);
	sr_cm_arm(id, in->now, sr_cm_timeout_ns(id->peer_timeout), id->max_retries);
}

static void act_send_rej(struct sr_cm *cm, struct sr_cm_id *id,
			 const struct sr_cm_in *in)
{
	/* in->value: the message rejected, from the state before the call. */
	id->deadline = UINT64_MAX;
	sr_cm_send_rej(cm, &id->peer, id->tid, id->local_id, id->remote_id,
		       in->value, in->reason, in->pdata, in->pdata_len);
}

static void act_send_mra(struct sr_cm *cm, struct sr_cm_id *id,
			 const struct sr_cm_in *in)
{
	struct sr_cm_msg m;

	sr_cm_msg_init(&m, id, SR_CM_ATTR_MRA, in->pdata, in->pdata_len);
	m.msg_type = id->state == SR_CM_MRA_REQ_SENT ? SR_CM_MSG_REQ : SR_CM_MSG_REP;
	m.service_timeout = in->value;
	sr_cm_send_msg(cm, id, &m, id->ans);
	id->has_ans = true;
}

static void act_send_rtu(struct sr_cm *cm, struct sr_cm_id *id,
			 const struct sr_cm_in *in)
{
	struct sr_cm_msg m;

	sr_cm_msg_init(&m, id, SR_CM_ATTR_RTU, in->pdata, in->pdata_len);
	sr_cm_send_msg(cm, id, &m, id->ans);
	id->has_ans = true;
}

static void act_nothing(struct sr_cm *cm, struct sr_cm_id *id,
			const struct sr_cm_in *in)
{
	(void)cm;
	(void)id;
	(void)in;
}

static void act_send_dreq(struct sr_cm *cm, struct sr_cm_id *id,
			  const struct sr_cm_in *in)
{
	struct sr_cm_msg m;

	sr_cm_msg_init(&m, id, SR_CM_ATTR_DREQ, in->pdata, in->pdata_len);
	m.qpn = id->remote_qpn;
	sr_cm_send_msg(cm, id, &m, id->mad);
	sr_cm_arm(id, in->now, id->retry_ns ? id->retry_ns
					    : sr_cm_timeout_ns(id->peer_timeout),
		  id->max_retries);
}

static void act_send_drep(struct sr_cm *cm, struct sr_cm_id *id,
			  const struct sr_cm_in *in)
{
	struct sr_cm_msg m;

	sr_cm_msg_init(&m, id, SR_CM_ATTR_DREP, in->pdata, in->pdata_len);
	sr_cm_send_msg(cm, id, &m, id->ans);
	id->has_ans = true;
	sr_cm_timewait(cm, id, in->now);
}

static void act_send_sidr_rep(struct sr_cm *cm, struct sr_cm_id *id,
			      const struct sr_cm_in *in)
{
	struct sr_cm_msg m;

	sr_cm_msg_init(&m, id, SR_CM_ATTR_SIDR_REP, in->pdata, in->pdata_len);
	m.local_comm_id = id->remote_id;   /* the request ID is the asker's */
	m.status = in->value;
	m.qpn = in->qpn;
	m.qkey = in->qkey;
	m.service_id = id->service_id;
	sr_cm_send_msg(cm, id, &m, id->ans);
}

/* ---- the table ---- */

#define T(a, n) { .act = act_##a, .next = SR_CM_##n }
#define K(a)    { .act = act_##a, .next = SR_CM_KEEP }
#define IN(x)   [SR_CM_IN_##x]

const struct sr_cm_trans sr_cm_table[SR_CM_STATE_COUNT][SR_CM_IN_COUNT] = {
	[SR_CM_REQ_SENT] = {
		IN(RX_MRA) = K(mra_rcvd),
		IN(RX_REJ) = T(rej_rcvd, IDLE),
		IN(RX_REP) = T(rep_rcvd, REP_RCVD),
		IN(TIMEOUT) = K(retry),
	},
	[SR_CM_MRA_REQ_RCVD] = {
		IN(RX_MRA) = K(dup),
		IN(RX_REJ) = T(rej_rcvd, IDLE),
		IN(RX_REP) = T(rep_rcvd, REP_RCVD),
		IN(TIMEOUT) = K(retry),
	},
	[SR_CM_REQ_RCVD] = {
		IN(RX_REQ) = K(dup),
		IN(RX_REJ) = T(rej_rcvd, IDLE),
		IN(API_ACCEPT) = T(send_rep, REP_SENT),
		IN(API_REJECT) = T(send_rej, IDLE),
		IN(API_MRA) = T(send_mra, MRA_REQ_SENT),
	},
	[SR_CM_MRA_REQ_SENT] = {
		IN(RX_REQ) = K(resend_ans),
		IN(RX_REJ) = T(rej_rcvd, IDLE),
		IN(API_ACCEPT) = T(send_rep, REP_SENT),
		IN(API_REJECT) = T(send_rej, IDLE),
	},
	[SR_CM_REP_SENT] = {
		IN(RX_REQ) = K(resend_mad),
		IN(RX_MRA) = K(mra_rcvd),
		IN(RX_REJ) = T(rej_rcvd, IDLE),
		IN(RX_RTU) = T(established, ESTABLISHED),
		IN(RX_DREQ) = T(dreq_rcvd, DREQ_RCVD),
		IN(TIMEOUT) = K(retry),
		IN(API_ESTABLISH) = T(established, ESTABLISHED),
	},
	[SR_CM_MRA_REP_RCVD] = {
		IN(RX_REQ) = K(resend_mad),
		IN(RX_MRA) = K(dup),
		IN(RX_REJ) = T(rej_rcvd, IDLE),
		IN(RX_RTU) = T(established, ESTABLISHED),
		IN(RX_DREQ) = T(dreq_rcvd, DREQ_RCVD),
		IN(TIMEOUT) = K(retry),
		IN(API_ESTABLISH) = T(established, ESTABLISHED),
	},
	[SR_CM_REP_RCVD] = {
		IN(RX_REP) = K(dup),
		IN(RX_REJ) = T(rej_rcvd, IDLE),
		IN(API_REJECT) = T(send_rej, IDLE),
		IN(API_MRA) = T(send_mra, MRA_REP_SENT),
		IN(API_RTU) = T(send_rtu, ESTABLISHED),
	},
	[SR_CM_MRA_REP_SENT] = {
		IN(RX_REP) = K(resend_ans),
		IN(RX_REJ) = T(rej_rcvd, IDLE),
		IN(API_REJECT) = T(send_rej, IDLE),
		IN(API_RTU) = T(send_rtu, ESTABLISHED),
	},
	[SR_CM_ESTABLISHED] = {
		IN(RX_REQ) = K(dup),
		IN(RX_REP) = K(resend_ans),
		IN(RX_RTU) = K(dup),
		IN(RX_REJ) = T(rej_rcvd, TIMEWAIT),
		IN(RX_DREQ) = T(dreq_rcvd, DREQ_RCVD),
		IN(API_ESTABLISH) = K(nothing),
		IN(API_DISCONNECT) = T(send_dreq, DREQ_SENT),
	},
	[SR_CM_DREQ_SENT] = {
		IN(RX_REP) = K(dup),
		IN(RX_RTU) = K(dup),
		IN(RX_REJ) = T(rej_rcvd, TIMEWAIT),
		IN(RX_DREQ) = T(dreq_rcvd, DREQ_RCVD),
		IN(RX_DREP) = T(drep_rcvd, TIMEWAIT),
		IN(TIMEOUT) = K(retry),
	},
	[SR_CM_DREQ_RCVD] = {
		IN(RX_DREQ) = K(dup),
		IN(RX_RTU) = K(dup),
		IN(RX_REJ) = T(rej_rcvd, TIMEWAIT),
		IN(API_DREP) = T(send_drep, TIMEWAIT),
	},
	[SR_CM_TIMEWAIT] = {
		IN(RX_REQ) = K(rej_stale),
		IN(RX_REP) = K(dup),
		IN(RX_RTU) = K(dup),
		IN(RX_REJ) = K(dup),
		IN(RX_DREQ) = K(drep_again),
		IN(RX_DREP) = K(dup),
		IN(TIMEOUT) = T(timewait_exit, IDLE),
	},
	[SR_CM_SIDR_REQ_SENT] = {
		IN(RX_SIDR_REP) = T(sidr_rep_rcvd, IDLE),
		IN(TIMEOUT) = K(retry),
	},
	[SR_CM_SIDR_REQ_RCVD] = {
		IN(API_SIDR_REP) = T(send_sidr_rep, IDLE),
	},
};

int sr_cm_dispatch(struct sr_cm *cm, struct sr_cm_id *id, enum sr_cm_input ev,
		   const struct sr_cm_in *in)
{
	const struct sr_cm_trans *t = &sr_cm_table[id->state][ev];

	if (t->act == NULL)
		return -EPROTO;
	if (t->next != SR_CM_KEEP)
		id->state = (enum sr_cm_state)t->next;
	t->act(cm, id, in);
	return 0;
}
