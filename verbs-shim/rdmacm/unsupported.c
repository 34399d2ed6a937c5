/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * unsupported.c — what the drop-in librdmacm exports so that programs
 * linked against rdma-core's load, and refuses:
 *   rsockets (rsocket, rsend, riomap, ...): out of scope (README);
 *   ECE (enhanced connection establishment): no options to offer.
 * Each fails with errno ENOSYS (EOPNOTSUPP for ECE), -1 or NULL.
 */
#include <errno.h>
#include <sys/types.h>

#include "rdmacm.h"

#define SR_RCM_NOSYS(name)                     \
	int name(void);                         \
	int name(void)                          \
	{                                       \
		errno = ENOSYS;                 \
		return -1;                      \
	}

SR_RCM_NOSYS(rsocket)
SR_RCM_NOSYS(rbind)
SR_RCM_NOSYS(rlisten)
SR_RCM_NOSYS(raccept)
SR_RCM_NOSYS(rconnect)
SR_RCM_NOSYS(rshutdown)
SR_RCM_NOSYS(rclose)
SR_RCM_NOSYS(rrecv)
SR_RCM_NOSYS(rrecvfrom)
SR_RCM_NOSYS(rrecvmsg)
SR_RCM_NOSYS(rsend)
SR_RCM_NOSYS(rsendto)
SR_RCM_NOSYS(rsendmsg)
SR_RCM_NOSYS(rread)
SR_RCM_NOSYS(rreadv)
SR_RCM_NOSYS(rwrite)
SR_RCM_NOSYS(rwritev)
SR_RCM_NOSYS(rpoll)
SR_RCM_NOSYS(rselect)
SR_RCM_NOSYS(rgetpeername)
SR_RCM_NOSYS(rgetsockname)
SR_RCM_NOSYS(rsetsockopt)
SR_RCM_NOSYS(rgetsockopt)
SR_RCM_NOSYS(rfcntl)
SR_RCM_NOSYS(riounmap)
SR_RCM_NOSYS(riowrite)

off_t riomap(int socket, void *buf, size_t len, int prot, int flags,
	     off_t offset);
off_t riomap(int socket, void *buf, size_t len, int prot, int flags,
	     off_t offset)
{
	(void)socket; (void)buf; (void)len; (void)prot; (void)flags;
	(void)offset;
	errno = ENOSYS;
	return -1;
}

int rdma_set_local_ece(struct rdma_cm_id *id, struct ibv_ece *ece)
{
	(void)id; (void)ece;
	errno = EOPNOTSUPP;
	return -1;
}

int rdma_get_remote_ece(struct rdma_cm_id *id, struct ibv_ece *ece)
{
	(void)id; (void)ece;
	errno = EOPNOTSUPP;
	return -1;
}
