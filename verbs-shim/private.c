/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * private.c — IBVERBS_PRIVATE_34: the interface between libibverbs and its
 * provider libraries (libmlx5, libefa, ...).  Those libraries are linked
 * into consumers such as perftest and DPDK's mlx5 driver with immediate
 * binding, so every symbol must exist; sroce has no kernel device for them
 * to drive.  Provider registration is accepted and ignored; the kernel
 * commands fail with EOPNOTSUPP and never touch their arguments.
 *
 * ibv_query_gid_type, the one private verb a consumer calls (ibv_devinfo),
 * is implemented in query.c.
 */
#include <errno.h>
#include <stdbool.h>

#include "shim.h"

/* X(name, kind): INT returns EOPNOTSUPP, NEG -1 with errno, PTR NULL
 * with errno, ZERO 0, VOID nothing. */
#define SR_PRIVATE_LIST(X)                                     \
	X(__ioctl_final_num_attrs, ZERO)                       \
	X(__verbs_log, VOID)                                   \
	X(_verbs_init_and_alloc_context, PTR)                  \
	X(execute_ioctl, INT)                                  \
	X(ibv_cmd_advise_mr, INT) \
	X(ibv_cmd_alloc_dm, INT) \
	X(ibv_cmd_alloc_mw, INT) \
	X(ibv_cmd_alloc_pd, INT) \
	X(ibv_cmd_attach_mcast, INT) \
	X(ibv_cmd_close_xrcd, INT) \
	X(ibv_cmd_create_ah, INT) \
	X(ibv_cmd_create_counters, INT) \
	X(ibv_cmd_create_cq, INT) \
	X(ibv_cmd_create_cq_ex, INT) \
	X(ibv_cmd_create_flow, INT) \
	X(ibv_cmd_create_flow_action_esp, INT) \
	X(ibv_cmd_create_qp, INT) \
	X(ibv_cmd_create_qp_ex, INT) \
	X(ibv_cmd_create_qp_ex2, INT) \
	X(ibv_cmd_create_rwq_ind_table, INT) \
	X(ibv_cmd_create_srq, INT) \
	X(ibv_cmd_create_srq_ex, INT) \
	X(ibv_cmd_create_wq, INT) \
	X(ibv_cmd_dealloc_mw, INT) \
	X(ibv_cmd_dealloc_pd, INT) \
	X(ibv_cmd_dereg_mr, INT) \
	X(ibv_cmd_destroy_ah, INT) \
	X(ibv_cmd_destroy_counters, INT) \
	X(ibv_cmd_destroy_cq, INT) \
	X(ibv_cmd_destroy_flow, INT) \
	X(ibv_cmd_destroy_flow_action, INT) \
	X(ibv_cmd_destroy_qp, INT) \
	X(ibv_cmd_destroy_rwq_ind_table, INT) \
	X(ibv_cmd_destroy_srq, INT) \
	X(ibv_cmd_destroy_wq, INT) \
	X(ibv_cmd_detach_mcast, INT) \
	X(ibv_cmd_free_dm, INT) \
	X(ibv_cmd_get_context, INT) \
	X(ibv_cmd_modify_cq, INT) \
	X(ibv_cmd_modify_flow_action_esp, INT) \
	X(ibv_cmd_modify_qp, INT) \
	X(ibv_cmd_modify_qp_ex, INT) \
	X(ibv_cmd_modify_srq, INT) \
	X(ibv_cmd_modify_wq, INT) \
	X(ibv_cmd_open_qp, INT) \
	X(ibv_cmd_open_xrcd, INT) \
	X(ibv_cmd_poll_cq, INT) \
	X(ibv_cmd_post_recv, INT) \
	X(ibv_cmd_post_send, INT) \
	X(ibv_cmd_post_srq_recv, INT) \
	X(ibv_cmd_query_context, INT) \
	X(ibv_cmd_query_device_any, INT) \
	X(ibv_cmd_query_mr, INT) \
	X(ibv_cmd_query_port, INT) \
	X(ibv_cmd_query_qp, INT) \
	X(ibv_cmd_query_srq, INT) \
	X(ibv_cmd_read_counters, INT) \
	X(ibv_cmd_reg_dm_mr, INT) \
	X(ibv_cmd_reg_dmabuf_mr, INT) \
	X(ibv_cmd_reg_mr, INT) \
	X(ibv_cmd_req_notify_cq, INT) \
	X(ibv_cmd_rereg_mr, INT) \
	X(ibv_cmd_resize_cq, INT) \
	X(ibv_read_ibdev_sysfs_file, NEG)                      \
	X(verbs_init_cq, VOID)                                 \
	X(verbs_open_device, PTR)                              \
	X(verbs_register_driver_34, VOID)                      \
	X(verbs_set_ops, VOID)                                 \
	X(verbs_uninit_context, VOID)

#define SR_PRIV_TYPE_INT  int
#define SR_PRIV_TYPE_NEG  int
#define SR_PRIV_TYPE_PTR  void *
#define SR_PRIV_TYPE_ZERO unsigned int
#define SR_PRIV_TYPE_VOID void
#define SR_PRIV_BODY_INT  return EOPNOTSUPP;
#define SR_PRIV_BODY_NEG  errno = ENOENT; return -1;
#define SR_PRIV_BODY_PTR  errno = EOPNOTSUPP; return NULL;
#define SR_PRIV_BODY_ZERO return 0;
#define SR_PRIV_BODY_VOID

/* The arguments are left unread: on the x86-64 and AArch64 calling
 * conventions a callee that takes none ignores whatever the caller
 * passed, variadic callers included. */
#define SR_X(name, kind)                                       \
	SR_PRIV_TYPE_##kind name(void);                        \
	SR_PRIV_TYPE_##kind name(void)                         \
	{                                                      \
		SR_PRIV_BODY_##kind                            \
	}
SR_PRIVATE_LIST(SR_X)
#undef SR_X

/* Providers may read it; nothing here destroys on disassociation. */
extern bool verbs_allow_disassociate_destroy;
bool verbs_allow_disassociate_destroy;
