/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * compat.c — the entry points sroce keeps only so that every consumer
 * links: the IBVERBS_1.0 ABI of 2006 (non-default versions, name@IBVERBS_1.0,
 * with the old structure layouts), ibv_register_driver@IBVERBS_1.1, fork
 * control and the sysfs helpers.
 *
 * The 1.0 ABI is not supported: its calls fail with EOPNOTSUPP (NULL and
 * errno for pointer results) and never touch their arguments.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "shim.h"

/* X(name, kind): kind INT (returns EOPNOTSUPP), PTR (NULL, errno), VOID,
 * U64 (0). */
#define SR_COMPAT_1_0_LIST(X)                                  \
	X(ibv_ack_async_event, VOID)                           \
	X(ibv_ack_cq_events, VOID)                             \
	X(ibv_alloc_pd, PTR)                                   \
	X(ibv_attach_mcast, INT)                               \
	X(ibv_close_device, INT)                               \
	X(ibv_create_ah, PTR)                                  \
	X(ibv_create_cq, PTR)                                  \
	X(ibv_create_qp, PTR)                                  \
	X(ibv_create_srq, PTR)                                 \
	X(ibv_dealloc_pd, INT)                                 \
	X(ibv_dereg_mr, INT)                                   \
	X(ibv_destroy_ah, INT)                                 \
	X(ibv_destroy_cq, INT)                                 \
	X(ibv_destroy_qp, INT)                                 \
	X(ibv_destroy_srq, INT)                                \
	X(ibv_detach_mcast, INT)                               \
	X(ibv_free_device_list, VOID)                          \
	X(ibv_get_async_event, INT)                            \
	X(ibv_get_cq_event, INT)                               \
	X(ibv_get_device_guid, U64)                            \
	X(ibv_get_device_list, PTR)                            \
	X(ibv_get_device_name, PTR)                            \
	X(ibv_modify_qp, INT)                                  \
	X(ibv_modify_srq, INT)                                 \
	X(ibv_open_device, PTR)                                \
	X(ibv_query_device, INT)                               \
	X(ibv_query_gid, INT)                                  \
	X(ibv_query_pkey, INT)                                 \
	X(ibv_query_port, INT)                                 \
	X(ibv_query_qp, INT)                                   \
	X(ibv_query_srq, INT)                                  \
	X(ibv_reg_mr, PTR)                                     \
	X(ibv_resize_cq, INT)

#define SR_COMPAT_TYPE_INT  int
#define SR_COMPAT_TYPE_PTR  void *
#define SR_COMPAT_TYPE_VOID void
#define SR_COMPAT_TYPE_U64  uint64_t
#define SR_COMPAT_BODY_INT  return EOPNOTSUPP;
#define SR_COMPAT_BODY_PTR  errno = EOPNOTSUPP; return NULL;
#define SR_COMPAT_BODY_VOID
#define SR_COMPAT_BODY_U64  return 0;

#define SR_X(name, kind)                                                    \
	SR_COMPAT_TYPE_##kind sr_compat_##name##_1_0(void);                 \
	SR_COMPAT_TYPE_##kind sr_compat_##name##_1_0(void)                  \
	{                                                                   \
		SR_COMPAT_BODY_##kind                                       \
	}                                                                   \
	__asm__(".symver sr_compat_" #name "_1_0, " #name "@IBVERBS_1.0");
SR_COMPAT_1_0_LIST(SR_X)
#undef SR_X

/* Providers of the 1.1 era registered here: accepted and ignored. */
void sr_compat_ibv_register_driver_1_1(const char *name, void *init);
void sr_compat_ibv_register_driver_1_1(const char *name, void *init)
{
	(void)name;
	(void)init;
}
__asm__(".symver sr_compat_ibv_register_driver_1_1, ibv_register_driver@IBVERBS_1.1");

/* ---- fork: sroce never pins memory, so fork needs no care ---- */

int ibv_fork_init(void)
{
	return 0;
}

enum ibv_fork_status ibv_is_fork_initialized(void)
{
	return IBV_FORK_UNNEEDED;
}

int ibv_dontfork_range(void *base, size_t size)
{
	(void)base;
	(void)size;
	return 0;
}

int ibv_dofork_range(void *base, size_t size)
{
	(void)base;
	(void)size;
	return 0;
}

/* ---- sysfs: sroce devices have none; plain file reads still work ---- */

const char *ibv_get_sysfs_path(void)
{
	return "/sys";
}

int ibv_read_sysfs_file(const char *dir, const char *file, char *buf,
			size_t size)
{
	char path[IBV_SYSFS_PATH_MAX * 2];
	ssize_t len;
	int fd;

	if (size == 0)
		return -1;
	snprintf(path, sizeof(path), "%s/%s", dir, file);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	len = read(fd, buf, size);
	close(fd);
	if (len <= 0)
		return -1;
	if ((size_t)len == size)
		len--;
	buf[len] = '\0';
	if (len > 0 && buf[len - 1] == '\n')
		buf[--len] = '\0';
	return (int)len;
}
