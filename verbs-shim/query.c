/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * query.c — device, port, GID and P_Key queries.
 *
 * What is advertised is exactly what works: the limits are lib/'s (MR
 * engine limits, QP/CQ/SRQ maxima), the capability flags those of the
 * transport, the port an Ethernet port (RoCEv2) whose GIDs are the pmd's
 * GID table, all of type RoCEv2.  One P_Key: the default 0xffff.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "pmd.h"
#include "qp/mcast.h"
#include "qp/qp.h"
#include "shim.h"

#define SR_IBV_PKEY          0xffff
#define SR_IBV_MAX_CQ        SR_MAX_QP
#define SR_IBV_MAX_SRQ       1024
#define SR_IBV_MAX_AH        65536
#define SR_IBV_MAX_MSG       (1u << 31)

/* RoCE reports its rate as width x speed: 4X x 25 Gb/s (EDR). */
#define SR_IBV_WIDTH_4X      2
#define SR_IBV_SPEED_EDR     32

/* Capabilities the transport implements. */
#define SR_IBV_DEV_CAPS                                                   \
	(IBV_DEVICE_RC_RNR_NAK_GEN | IBV_DEVICE_SYS_IMAGE_GUID |         \
	 IBV_DEVICE_PORT_ACTIVE_EVENT | IBV_DEVICE_MEM_WINDOW |            \
	 IBV_DEVICE_MEM_WINDOW_TYPE_2B | IBV_DEVICE_N_NOTIFY_CQ |          \
	 IBV_DEVICE_MEM_MGT_EXTENSIONS | IBV_DEVICE_XRC)

/* The device's QPs at once: SR_MAX_QP, or sroced's block for its client. */
static int sr_ibv_max_qp(const struct sr_ibv_rt *rt)
{
	if (rt->dev != NULL)
		return (int)sr_dev_max_qp(rt->dev);
	return rt->cfg.has_gw && rt->cfg.max_qp ? (int)rt->cfg.max_qp
						: SR_MAX_QP;
}

static void sr_ibv_fill_device(const struct sr_ibv_rt *rt,
			       struct ibv_device_attr *a)
{
	const struct sr_dev_limits *l = sr_mr_dev_limits(rt->mr);

	memset(a, 0, sizeof(*a));
	snprintf(a->fw_ver, sizeof(a->fw_ver), "%s", SR_IBV_FW_VER);
	a->node_guid = sr_ibv_guid(rt->mac);
	a->sys_image_guid = a->node_guid;
	a->max_mr_size = l->max_registration_size;
	a->page_size_cap = ~(SR_PAGE_SIZE - 1);
	a->vendor_id = SR_IBV_VENDOR_ID;
	a->vendor_part_id = SR_IBV_PART_ID;
	a->hw_ver = SR_IBV_HW_VER;
	a->max_qp = sr_ibv_max_qp(rt);
	a->max_qp_wr = (int)SR_QP_MAX_WR;
	a->device_cap_flags = SR_IBV_DEV_CAPS;
	a->max_sge = SR_QP_MAX_SGE;
	a->max_sge_rd = SR_QP_MAX_SGE;
	a->max_cq = SR_IBV_MAX_CQ;
	a->max_cqe = (int)l->max_cq_depth;
	a->max_mr = (int)l->max_mr;
	a->max_pd = (int)l->max_pd;
	a->max_qp_rd_atom = SR_QP_MAX_RD_ATOMIC;
	a->max_res_rd_atom = SR_QP_MAX_RD_ATOMIC * a->max_qp;
	a->max_qp_init_rd_atom = SR_QP_MAX_RD_ATOMIC;
	a->atomic_cap = IBV_ATOMIC_HCA;
	a->max_mw = (int)l->max_mw;
	a->max_ah = SR_IBV_MAX_AH;
	a->max_mcast_grp = SR_MAX_MCAST_GRP;
	a->max_mcast_qp_attach = SR_MAX_MCAST_QP_ATTACH;
	a->max_total_mcast_qp_attach = SR_MAX_MCAST_GRP * SR_MAX_MCAST_QP_ATTACH;
	a->max_srq = SR_IBV_MAX_SRQ;
	a->max_srq_wr = (int)l->max_srq_depth;
	a->max_srq_sge = SR_QP_MAX_SGE;
	a->max_pkeys = 1;
	a->local_ca_ack_delay = 15;
	a->phys_port_cnt = 1;
}

int ibv_query_device(struct ibv_context *context,
		     struct ibv_device_attr *device_attr)
{
	if (context == NULL || device_attr == NULL)
		return EINVAL;
	sr_ibv_fill_device(sr_ctx(context)->rt, device_attr);
	return 0;
}

int sr_ibv_query_device_ex(struct ibv_context *c,
			   const struct ibv_query_device_ex_input *in,
			   struct ibv_device_attr_ex *attr, size_t len)
{
	struct ibv_device_attr_ex a;

	if (in && in->comp_mask)
		return EINVAL;
	if (len < sizeof(attr->orig_attr))
		return EINVAL;
	memset(&a, 0, sizeof(a));
	sr_ibv_fill_device(sr_ctx(c)->rt, &a.orig_attr);
	/* On-demand paging where lib/mr can do it (odp.c): explicit and
	 * implicit regions, every RC and XRC operation and SRQ, UD send and
	 * receive (UC works the same way but is not advertised, as on mlx5). */
	if (sr_mr_odp_supported()) {
		a.odp_caps.general_caps = IBV_ODP_SUPPORT | IBV_ODP_SUPPORT_IMPLICIT;
		a.odp_caps.per_transport_caps.rc_odp_caps =
			IBV_ODP_SUPPORT_SEND | IBV_ODP_SUPPORT_RECV | IBV_ODP_SUPPORT_WRITE |
			IBV_ODP_SUPPORT_READ | IBV_ODP_SUPPORT_ATOMIC | IBV_ODP_SUPPORT_SRQ_RECV;
		a.odp_caps.per_transport_caps.ud_odp_caps =
			IBV_ODP_SUPPORT_SEND | IBV_ODP_SUPPORT_RECV;
		a.xrc_odp_caps = IBV_ODP_SUPPORT_SEND | IBV_ODP_SUPPORT_WRITE |
			IBV_ODP_SUPPORT_READ | IBV_ODP_SUPPORT_ATOMIC |
			IBV_ODP_SUPPORT_SRQ_RECV;
	}
	/* Completion timestamps: the device clock, in ns (a 1 GHz "core
	 * clock"), 64 bits wide (cq_ex.c). */
	a.completion_timestamp_mask = UINT64_MAX;
	a.hca_core_clock = SR_IBV_CORE_CLOCK_KHZ;
	a.max_dm_size = SR_IBV_DM_MAX;      /* dm.c */
	/* No TSO, RSS, tag matching, CQ moderation or PCI atomics: all
	 * zero. */
	a.phys_port_cnt_ex = 1;
	if (len > sizeof(a))
		memset(attr, 0, len);
	memcpy(attr, &a, len < sizeof(a) ? len : sizeof(a));
	return 0;
}

/*
 * The device clock completions are stamped with (ibv_query_rt_values_ex):
 * ns since the device started, as mlx5 reports its cycles: all in
 * tv_nsec, tv_sec 0.  Brings the device up (its clock starts with it).
 */
int sr_ibv_query_rt_values(struct ibv_context *c, struct ibv_values_ex *v)
{
	struct sr_ibv_rt *rt = sr_ctx(c)->rt;
	int rc;

	if (v == NULL)
		return EINVAL;
	/* what was asked and is known comes back in comp_mask, as on mlx5 */
	v->comp_mask &= IBV_VALUES_MASK_RAW_CLOCK;
	if (v->comp_mask & IBV_VALUES_MASK_RAW_CLOCK) {
		rc = sr_ibv_rt_up(rt);
		if (rc) {
			v->comp_mask = 0;
			return sr_ibv_err(rc);
		}
		v->raw_clock.tv_sec = 0;
		v->raw_clock.tv_nsec = (long)sr_pmd_now_ns(rt->pmd);
	}
	return 0;
}

/* ---- port ---- */

static enum ibv_mtu sr_ibv_mtu_enum(uint32_t bytes)
{
	enum ibv_mtu m = IBV_MTU_256;

	while (m < IBV_MTU_4096 && (256u << (m - IBV_MTU_256 + 1)) <= bytes)
		m++;
	return m;
}

int sr_ibv_query_port_ex(struct ibv_context *c, uint8_t port,
			 struct ibv_port_attr *attr, size_t len)
{
	struct sr_ibv_rt *rt = sr_ctx(c)->rt;
	struct ibv_port_attr a;
	const char *why;
	uint32_t mtu, lim;

	if (port != SR_IBV_PORT || attr == NULL)
		return EINVAL;
	memset(&a, 0, sizeof(a));
	/* A virtual link is up as soon as the device exists: the transport
	 * retransmits until the peer answers. */
	a.state = IBV_PORT_ACTIVE;
	a.phys_state = 5;                   /* LinkUp */
	a.max_mtu = IBV_MTU_4096;
	/* what the port carries: the device's own once up, else foreseen */
	if (rt->pmd != NULL) {
		mtu = sr_pmd_path_mtu_of(rt->pmd);
	} else {
		mtu = rt->cfg.mtu ? rt->cfg.mtu : 1500;
		lim = sr_pmd_config_mtu_limit(&rt->cfg, &why);
		mtu = sr_pmd_path_mtu(lim && lim < mtu ? lim : mtu);
	}
	a.active_mtu = sr_ibv_mtu_enum(mtu ? mtu : 1024);
	/* the table's size, as a kernel device reports it: a slot not in use
	 * reads as the zero GID, ibv_query_gid_ex says ENODATA */
	a.gid_tbl_len = SR_GID_TABLE_MAX;
	a.port_cap_flags = IBV_PORT_CM_SUP;
	a.max_msg_sz = SR_IBV_MAX_MSG;
	a.pkey_tbl_len = 1;
	a.max_vl_num = 1;
	a.active_width = SR_IBV_WIDTH_4X;
	a.active_speed = SR_IBV_SPEED_EDR;
	a.link_layer = IBV_LINK_LAYER_ETHERNET;
	if (len > sizeof(a))
		memset(attr, 0, len);
	memcpy(attr, &a, len < sizeof(a) ? len : sizeof(a));
	return 0;
}

/* The exported symbol: the layout before port_cap_flags2 (rdma-core's
 * _compat_ibv_port_attr); verbs.h's inline goes to sr_ibv_query_port_ex. */
#undef ibv_query_port
int ibv_query_port(struct ibv_context *context, uint8_t port_num,
		   struct _compat_ibv_port_attr *port_attr)
{
	if (context == NULL)
		return EINVAL;
	return sr_ibv_query_port_ex(context, port_num,
				    (struct ibv_port_attr *)port_attr,
				    offsetof(struct ibv_port_attr,
					     port_cap_flags2));
}

/* ---- GIDs and P_Keys ---- */

static int sr_ibv_gid_entry(struct sr_ibv_rt *rt, uint32_t port,
			    uint32_t index, struct sr_gid_entry *e)
{
	if (port != SR_IBV_PORT)
		return EINVAL;
	return sr_gid_query(&rt->gids, index, e) ? EINVAL : 0;
}

int ibv_query_gid(struct ibv_context *context, uint8_t port_num, int index,
		  union ibv_gid *gid)
{
	struct sr_gid_entry e;
	int rc;

	if (context == NULL || gid == NULL || index < 0)
		return -1;
	rc = sr_ibv_gid_entry(sr_ctx(context)->rt, port_num, (uint32_t)index,
			      &e);
	if (rc) {
		/* An empty slot reads as the zero GID, as on a kernel. */
		if ((uint32_t)index < SR_GID_TABLE_MAX) {
			memset(gid, 0, sizeof(*gid));
			return 0;
		}
		return -1;
	}
	memcpy(gid->raw, e.gid, sizeof(gid->raw));
	return 0;
}

/* enum ibv_gid_type_sysfs (driver.h), for ibv_query_gid_type. */
enum { SR_GID_SYSFS_IB_ROCE_V1 = 0, SR_GID_SYSFS_ROCE_V2 = 1 };

int ibv_query_gid_type(struct ibv_context *context, uint8_t port_num,
		       unsigned int index, int *type);
int ibv_query_gid_type(struct ibv_context *context, uint8_t port_num,
		       unsigned int index, int *type)
{
	struct sr_gid_entry e;

	if (context == NULL || type == NULL)
		return EINVAL;
	if (sr_ibv_gid_entry(sr_ctx(context)->rt, port_num, index, &e))
		return EINVAL;
	*type = e.type == SR_GID_TYPE_ROCE_V2 ? SR_GID_SYSFS_ROCE_V2 :
						SR_GID_SYSFS_IB_ROCE_V1;
	return 0;
}

static void sr_ibv_fill_gid_entry(const struct sr_gid_entry *e,
				  uint32_t index, struct ibv_gid_entry *out,
				  size_t entry_size)
{
	struct ibv_gid_entry g = {
		.gid_index = index,
		.port_num = SR_IBV_PORT,
		.gid_type = e->type == SR_GID_TYPE_ROCE_V2 ?
				    IBV_GID_TYPE_ROCE_V2 :
				    IBV_GID_TYPE_ROCE_V1,
		.ndev_ifindex = 0,
	};

	memcpy(g.gid.raw, e->gid, sizeof(g.gid.raw));
	memcpy(out, &g, entry_size < sizeof(g) ? entry_size : sizeof(g));
}

int _ibv_query_gid_ex(struct ibv_context *context, uint32_t port_num,
		      uint32_t gid_index, struct ibv_gid_entry *entry,
		      uint32_t flags, size_t entry_size)
{
	struct sr_gid_entry e;

	if (context == NULL || entry == NULL || flags ||
	    entry_size < offsetof(struct ibv_gid_entry, ndev_ifindex))
		return EINVAL;
	if (port_num != SR_IBV_PORT)
		return EINVAL;
	if (sr_gid_query(&sr_ctx(context)->rt->gids, gid_index, &e))
		return ENODATA;
	sr_ibv_fill_gid_entry(&e, gid_index, entry, entry_size);
	return 0;
}

ssize_t _ibv_query_gid_table(struct ibv_context *context,
			     struct ibv_gid_entry *entries, size_t max_entries,
			     uint32_t flags, size_t entry_size)
{
	struct sr_ibv_rt *rt;
	struct sr_gid_entry e;
	size_t n = 0;

	if (context == NULL || flags ||
	    entry_size < offsetof(struct ibv_gid_entry, ndev_ifindex))
		return -EINVAL;
	rt = sr_ctx(context)->rt;
	for (uint32_t i = 0; i < SR_GID_TABLE_MAX; i++) {
		if (sr_gid_query(&rt->gids, i, &e))
			continue;
		if (n == max_entries)
			return -EINVAL;
		sr_ibv_fill_gid_entry(&e, i,
				      (struct ibv_gid_entry *)(void *)((char *)entries +
								       n * entry_size),
				      entry_size);
		n++;
	}
	return (ssize_t)n;
}

int ibv_query_pkey(struct ibv_context *context, uint8_t port_num, int index,
		   __be16 *pkey)
{
	if (context == NULL || pkey == NULL || port_num != SR_IBV_PORT ||
	    index < 0)
		return -1;
	*pkey = index == 0 ? htobe16(SR_IBV_PKEY) : 0;
	return 0;
}

int ibv_get_pkey_index(struct ibv_context *context, uint8_t port_num,
		       __be16 pkey)
{
	if (context == NULL || port_num != SR_IBV_PORT)
		return -EINVAL;
	/* Full and limited membership of the default partition. */
	if ((be16toh(pkey) & 0x7fff) == (SR_IBV_PKEY & 0x7fff))
		return 0;
	return -ENOENT;
}
