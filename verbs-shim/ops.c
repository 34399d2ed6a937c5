/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ops.c — the dispatch tables verbs.h's inline helpers read.
 *
 * ibv_post_send, ibv_poll_cq, ibv_req_notify_cq, ... are inline and call
 * through ibv_context.ops; ibv_query_port, ibv_query_device_ex,
 * ibv_query_rt_values_ex, ibv_create_cq_ex, ibv_create_qp_ex, ibv_create_srq_ex, ibv_alloc_mw
 * and ibv_bind_mw go through struct verbs_context, found only when
 * abi_compat is __VERBS_ABI_IS_EXTENDED and sz covers the op (the
 * inline checks sz >= sizeof(struct verbs_context) - offsetof(op)).
 * ibv_alloc_parent_domain, ibv_alloc_td and ibv_dealloc_td likewise
 * (pd_parent.c), ibv_open_xrcd, ibv_close_xrcd, ibv_open_qp (xrcd.c),
 * ibv_get_srq_num (srq.c) and ibv_alloc_dm, ibv_free_dm, ibv_reg_dm_mr
 * (dm.c) likewise.  Ops left NULL make their inline helpers fail with
 * EOPNOTSUPP or ENOSYS (WQs, RSS, flows, counters, CQ moderation).  ibv_advise_mr goes to sr_ibv_advise_mr (mr.c).
 */
#include "shim.h"

static int sr_ibv_compat_query_device(struct ibv_context *c,
				      struct ibv_device_attr *attr)
{
	return ibv_query_device(c, attr);
}

static int sr_ibv_compat_query_port(struct ibv_context *c, uint8_t port,
				    struct _compat_ibv_port_attr *attr)
{
	return sr_ibv_query_port_ex(c, port, (struct ibv_port_attr *)attr,
				    offsetof(struct ibv_port_attr,
					     port_cap_flags2));
}

static const struct ibv_context_ops sr_ibv_context_ops = {
	._compat_query_device = sr_ibv_compat_query_device,
	._compat_query_port = sr_ibv_compat_query_port,
	.alloc_mw = sr_ibv_alloc_mw,
	.bind_mw = sr_ibv_bind_mw,
	.dealloc_mw = sr_ibv_dealloc_mw,
	.poll_cq = sr_ibv_poll_cq,
	.req_notify_cq = sr_ibv_req_notify_cq,
	.post_srq_recv = sr_ibv_post_srq_recv,
	.post_send = sr_ibv_post_send,
	.post_recv = sr_ibv_post_recv,
};

void sr_ibv_ctx_ops_init(struct sr_ibv_ctx *ctx)
{
	struct verbs_context *v = &ctx->vctx;

	v->context.ops = sr_ibv_context_ops;
	v->context.abi_compat = __VERBS_ABI_IS_EXTENDED;
	v->sz = sizeof(*v);
	v->query_port = sr_ibv_query_port_ex;
	v->query_device_ex = sr_ibv_query_device_ex;
	v->query_rt_values = sr_ibv_query_rt_values;
	v->create_cq_ex = sr_ibv_create_cq_ex;
	v->create_qp_ex = sr_ibv_create_qp_ex;
	v->create_srq_ex = sr_ibv_create_srq_ex;
	v->modify_qp_rate_limit = sr_ibv_modify_qp_rate_limit;
	v->alloc_parent_domain = sr_ibv_alloc_parent_domain;
	v->alloc_td = sr_ibv_alloc_td;
	v->dealloc_td = sr_ibv_dealloc_td;
	v->advise_mr = sr_ibv_advise_mr;
	v->get_srq_num = sr_ibv_get_srq_num;
	v->alloc_dm = sr_ibv_alloc_dm;
	v->free_dm = sr_ibv_free_dm;
	v->reg_dm_mr = sr_ibv_reg_dm_mr;
	sr_ibv_xrcd_ops_init(v);
}
