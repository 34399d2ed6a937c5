/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * sroce_private.h — the drop-in libibverbs' private interface to the
 * drop-in librdmacm (version node SROCE_PRIVATE_1; verbs-shim/cm.c).  Also
 * exported there: lib/cm's sr_cm_* and sr_cma_*, pmd's sr_cm_host_*.
 */
#ifndef SROCE_PRIVATE_H
#define SROCE_PRIVATE_H

#include <stdint.h>

#include <infiniband/verbs.h>

struct sr_cm_host;

/* The device's QP1 and CM (brings the port up).  NULL with errno. */
struct sr_cm_host *sroce_cm_host(struct ibv_context *context);

/* The MAC of ip (a GID: IPv4-mapped for IPv4) by ARP / ND; ours for one of
 * our own GIDs.  0, -ETIMEDOUT, -EHOSTUNREACH, -EINVAL. */
int sroce_resolve(struct ibv_context *context, const uint8_t ip[16],
		  uint8_t mac[6]);

/* 1 when the device is sroced's (this process its client), else 0. */
int sroce_dev_shared(struct ibv_context *context);

/* The port's active MTU (IBV_MTU_*), or -errno. */
int sroce_path_mtu(struct ibv_context *context);

/*
 * fn is called with every QP ibv_destroy_qp is about to destroy, before it
 * does: the drop-in librdmacm forgets it in its ids, because a consumer
 * may destroy an id's QP with verbs (rping does) while the CM still acts
 * on it (DISCONNECTED moves the id's QP to error).  One hook; NULL: none.
 */
void sroce_on_qp_destroy(void (*fn)(struct ibv_qp *qp));

#endif /* SROCE_PRIVATE_H */
