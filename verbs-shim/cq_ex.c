/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * cq_ex.c — extended CQ polling (ibv_start_poll / ibv_next_poll /
 * ibv_end_poll and ibv_wc_read_*): one lib completion at a time, held in
 * the wrapper between start/next and the reads.  A CQ created with
 * IBV_WC_EX_WITH_COMPLETION_TIMESTAMP(_WALLCLOCK) has lib stamp each
 * completion with the device clock (sr_cq_stamp).
 */
#include <errno.h>

#include "qp/cq.h"
#include "shim.h"

static struct sr_ibv_cq *sr_cqx(struct ibv_cq_ex *cq)
{
	return sr_container_of(cq, struct sr_ibv_cq, ibcq);
}

static int sr_cqx_take(struct sr_ibv_cq *w)
{
	struct sr_wc wc;

	if (sr_cq_poll(w->cq, 1, &wc) != 1)
		return ENOENT;
	sr_ibv_wc_from_sr(&w->cur, &wc);
	w->cur_ts = wc.timestamp;
	w->ibcq.status = w->cur.status;
	w->ibcq.wr_id = w->cur.wr_id;
	return 0;
}

static int sr_cqx_start_poll(struct ibv_cq_ex *cq, struct ibv_poll_cq_attr *attr)
{
	struct sr_ibv_cq *w = sr_cqx(cq);
	int work, rc;

	if (attr && attr->comp_mask)
		return EINVAL;
	/*
	 * What the CQ holds first, the engine only when it is empty: a
	 * consumer woken by a completion event re-arms and then starts a
	 * poll, and a round run here could make (and signal) another
	 * completion that this poll takes too, leaving the next event with
	 * nothing behind it (ibv_rc_pingpong -e -t fails on ENOENT after an
	 * event).
	 */
	if (sr_cqx_take(w) == 0)
		return 0;
	work = sr_ibv_progress_work(w->rt);
	rc = sr_cqx_take(w);
	sr_ibv_poll_after(w->rt, work == 0 && rc == ENOENT);
	return rc;
}

static int sr_cqx_next_poll(struct ibv_cq_ex *cq)
{
	return sr_cqx_take(sr_cqx(cq));
}

static void sr_cqx_end_poll(struct ibv_cq_ex *cq)
{
	(void)cq;
}

static enum ibv_wc_opcode sr_cqx_opcode(struct ibv_cq_ex *cq)
{
	return sr_cqx(cq)->cur.opcode;
}

static uint32_t sr_cqx_vendor_err(struct ibv_cq_ex *cq)
{
	return sr_cqx(cq)->cur.vendor_err;
}

static uint32_t sr_cqx_byte_len(struct ibv_cq_ex *cq)
{
	return sr_cqx(cq)->cur.byte_len;
}

static __be32 sr_cqx_imm_data(struct ibv_cq_ex *cq)
{
	return sr_cqx(cq)->cur.imm_data;
}

static uint32_t sr_cqx_qp_num(struct ibv_cq_ex *cq)
{
	return sr_cqx(cq)->cur.qp_num;
}

static uint32_t sr_cqx_src_qp(struct ibv_cq_ex *cq)
{
	return sr_cqx(cq)->cur.src_qp;
}

static unsigned int sr_cqx_wc_flags(struct ibv_cq_ex *cq)
{
	return sr_cqx(cq)->cur.wc_flags;
}

static uint32_t sr_cqx_slid(struct ibv_cq_ex *cq)
{
	return sr_cqx(cq)->cur.slid;
}

static uint8_t sr_cqx_sl(struct ibv_cq_ex *cq)
{
	return sr_cqx(cq)->cur.sl;
}

static uint8_t sr_cqx_dlid_path_bits(struct ibv_cq_ex *cq)
{
	return sr_cqx(cq)->cur.dlid_path_bits;
}

/* The device clock in ns: hca_core_clock says 1 GHz (query.c). */
static uint64_t sr_cqx_completion_ts(struct ibv_cq_ex *cq)
{
	return sr_cqx(cq)->cur_ts;
}

static uint64_t sr_cqx_completion_wallclock_ns(struct ibv_cq_ex *cq)
{
	struct sr_ibv_cq *w = sr_cqx(cq);

	return (uint64_t)((int64_t)w->cur_ts + w->wall_off);
}

void sr_ibv_cq_ex_init(struct sr_ibv_cq *w)
{
	struct ibv_cq_ex *c = &w->ibcq;

	c->start_poll = sr_cqx_start_poll;
	c->next_poll = sr_cqx_next_poll;
	c->end_poll = sr_cqx_end_poll;
	c->read_opcode = sr_cqx_opcode;
	c->read_vendor_err = sr_cqx_vendor_err;
	c->read_byte_len = sr_cqx_byte_len;
	c->read_imm_data = sr_cqx_imm_data;
	c->read_qp_num = sr_cqx_qp_num;
	c->read_src_qp = sr_cqx_src_qp;
	c->read_wc_flags = sr_cqx_wc_flags;
	c->read_slid = sr_cqx_slid;
	c->read_sl = sr_cqx_sl;
	c->read_dlid_path_bits = sr_cqx_dlid_path_bits;
	c->read_completion_ts = sr_cqx_completion_ts;
	c->read_completion_wallclock_ns = sr_cqx_completion_wallclock_ns;
	/* CVLAN, flow tag, TM: refused at creation */
}
