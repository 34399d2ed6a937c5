/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rdmacm.h — the drop-in librdmacm: its objects.
 *
 * librdmacm is a consumer API on the device's CM (pmd/cm_host.h, reached
 * through the drop-in libibverbs' SROCE_PRIVATE_1 calls): an rdma_cm_id is
 * a wrapper around a lib/cm id, addresses become GIDs with lib/cm/cma.h,
 * and the QP is moved through its states here, in the consumer's thread,
 * as rdma-core's librdmacm does with the kernel's attributes.
 *
 *   struct sr_rcm_chan   an rdma_event_channel: a queue of CM happenings
 *                        and an eventfd that is readable while it is not
 *                        empty (the channel's pollable fd);
 *   struct sr_rcm_id     an rdma_cm_id, bound to one device (its CM host)
 *                        once it has an address;
 *   struct sr_rcm_evt    one queued happening; rdma_get_cm_event turns it
 *                        into the rdma_cm_event the consumer sees, doing
 *                        the work the event implies (QP to RTR/RTS and the
 *                        RTU after a REP) in the consumer's thread.
 *
 * Locks: the CM host's (held in its event callback) before a channel's.
 */
#ifndef SR_RDMACM_H
#define SR_RDMACM_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include <rdma/rdma_cma.h>
#include <rdma/rdma_verbs.h>

#include "cm/cm.h"
#include "cm/cma.h"
#include "cm_host.h"

struct sr_cm_host;
struct sr_rcm_id;

#define SR_RCM_MAX_DEVS 8

/* What happened, before rdma_get_cm_event turns it into an event. */
struct sr_rcm_evt {
	struct sr_rcm_evt *next;
	struct sr_rcm_id *id;
	enum sr_cm_event_type cm;      /* a CM event, or ... */
	int local;                     /* ... an rdma_cm event of our own */
	int status;
	uint8_t timed_out;
	bool has_msg;
	struct sr_cm_msg msg;          /* the MAD, when there was one */
	struct rdma_cm_event ev;       /* what the consumer gets */
};
#define SR_RCM_LOCAL_NONE (-1)

struct sr_rcm_chan {
	struct rdma_event_channel ch;  /* ch.fd: the eventfd; first */
	pthread_mutex_t lock;
	struct sr_rcm_evt *head, *tail;
	unsigned int queued;
	bool internal;                 /* a synchronous id's own */
	/* rdma_destroy_event_channel while another thread is inside
	 * rdma_get_cm_event (rping's CM thread at exit): the channel dies
	 * but its memory outlives the readers (see channel.c). */
	unsigned int readers;          /* threads inside read() */
	bool dead;                     /* destroyed by the consumer */
	bool dead_nonblock;            /* its fd was O_NONBLOCK then */
	struct sr_rcm_chan *grave_next;
	uint64_t dead_ns;              /* destroyed then (CLOCK_MONOTONIC) */
};

struct sr_rcm_id {
	struct rdma_cm_id id;          /* what the consumer sees; first */
	struct sr_rcm_chan *chan;
	int dev;                       /* index in the device list, -1 */
	struct sr_cm_host *host;
	struct sr_cm_id *cm;           /* connection or SIDR id */
	/* A listener: one CM listener per device it listens on. */
	struct sr_cm_id *lcm[SR_RCM_MAX_DEVS];
	struct sr_cm_host *lhost[SR_RCM_MAX_DEVS];
	/* rdma_create_ep on a listener: what each request's QP is made of. */
	struct ibv_qp_init_attr *ep_qp_attr;
	struct ibv_pd *ep_pd;
	/* CQs and channels rdma_create_qp made for the consumer. */
	bool own_cqs;
	struct sr_rcm_id *parent;      /* a request's listener */
	struct sr_rcm_id *prev, *next; /* every live id (id.c) */
	struct ibv_sa_path_rec path;
	struct sr_cma_route route;
	bool bound, listening, sync, connected, own_pd;
	bool reuseaddr;
	int afonly;
	uint8_t tos, ack_timeout;
	/* Active: the REQ we sent; passive: the REQ we got. */
	struct sr_cm_req_param req;
	uint8_t req_pdata[92];
	struct sr_cm_msg peer_req;
	struct sr_cm_rep_param rep;
	uint32_t qkey;                 /* UD */
	/* Events handed out and not acked (destroy waits for them). */
	unsigned int events_out;
	pthread_cond_t acked;
	struct sr_rcm_mc *mc;          /* groups joined (mcast.c) */
	/* Synchronous ids: the last event, acked at the next call. */
	struct rdma_cm_event *sync_event;
};

static inline struct sr_rcm_id *sr_rcm_id(struct rdma_cm_id *id)
{
	return (struct sr_rcm_id *)(void *)id;
}

static inline struct sr_rcm_chan *sr_rcm_chan(struct rdma_event_channel *c)
{
	return (struct sr_rcm_chan *)(void *)c;
}

/* ---- device list (id.c) ---- */
int sr_rcm_devs(struct ibv_context ***list);          /* count, or -errno */
/* The device that has addr as a GID, -1 if none; *gid_index set. */
int sr_rcm_dev_of_addr(const struct sockaddr *addr, int *gid_index);
/* A GID from an IP sockaddr (IPv4-mapped for AF_INET); -EAFNOSUPPORT. */
int sr_rcm_gid_of(const struct sockaddr *addr, uint8_t gid[16]);
/* A sockaddr from a GID and a port (host order). */
void sr_rcm_addr_of(const uint8_t gid[16], uint8_t ip_version, uint16_t port,
		    struct sockaddr_storage *out);
bool sr_rcm_addr_is_any(const struct sockaddr *addr);
/* 127.0.0.0/8 or ::1 (as a sockaddr, as a GID). */
bool sr_rcm_addr_is_loopback(const struct sockaddr *addr);
bool sr_rcm_gid_is_loopback(const uint8_t gid[16]);
uint16_t sr_rcm_addr_port(const struct sockaddr *addr);
/* Bind id to device dev (its CM host, id->verbs).  0 or -errno. */
int sr_rcm_bind_dev(struct sr_rcm_id *r, int dev);
/* A free local port of the port space (host order). */
uint16_t sr_rcm_ephemeral_port(void);
/* Fill the id's path record and route from r->route. */
void sr_rcm_route_publish(struct sr_rcm_id *r);

/* Every live id, so that process exit tells the peers (id.c). */
void sr_rcm_ids_add(struct sr_rcm_id *r);
void sr_rcm_ids_del(struct sr_rcm_id *r);
/* Serialises sr_rcm_cm_release with the list's removals (id.c). */
void sr_rcm_release_lock(void);
void sr_rcm_release_unlock(void);

/* ---- channels and events (channel.c) ---- */
struct sr_rcm_chan *sr_rcm_chan_new(bool internal);
void sr_rcm_chan_free(struct sr_rcm_chan *c);
struct sr_rcm_evt *sr_rcm_evt_new(struct sr_rcm_id *r);
void sr_rcm_evt_push(struct sr_rcm_chan *c, struct sr_rcm_evt *e);
/* An event of our own (address and route resolution, errors). */
int sr_rcm_post_local(struct sr_rcm_id *r, enum rdma_cm_event_type type,
		      int status);
/* Drop the queued happenings of an id (it is being destroyed). */
void sr_rcm_chan_purge(struct sr_rcm_chan *c, struct sr_rcm_id *r);
/* rdma_destroy_id: wait until every event of the id handed out is acked. */
void sr_rcm_wait_acked(struct sr_rcm_id *r);
/* Synchronous ids: wait for the next event of the id; 0 or -1 + errno. */
int sr_rcm_sync_wait(struct sr_rcm_id *r, enum rdma_cm_event_type want);

/* ---- the CM (conn.c) ---- */
/* The CM host's event callback. */
void sr_rcm_cm_event(void *ctx, struct sr_cm_id *cid,
		     const struct sr_cm_event *ev);
/* Turn a queued CM happening into its rdma_cm event (consumer thread).
 * false: nothing for the consumer (the happening is dropped). */
bool sr_rcm_cm_process(struct sr_rcm_evt *e);
/* Release the CM side of an id. */
void sr_rcm_cm_release(struct sr_rcm_id *r);

/* ---- the QP (qp.c) ---- */
/* Move id's QP to RTR and RTS with a; 0 or -errno. */
int sr_rcm_qp_connect(struct sr_rcm_id *r, const struct sr_cma_qp_attr *a);
int sr_rcm_qp_error(struct sr_rcm_id *r);
/* Held while an id's QP is read and used against its destroy (qp.c). */
void sr_rcm_qp_lock(void);
void sr_rcm_qp_unlock(void);
/* The responder resources / initiator depth the device allows. */
uint8_t sr_rcm_max_rd_atomic(struct ibv_context *ctx);
/* The ah_attr to reach the route's peer (UD). */
void sr_rcm_ah_attr(const struct sr_rcm_id *r, struct ibv_ah_attr *ah);

/* ---- multicast (mcast.c) ---- */
struct sr_rcm_mc;
/* A join event taken by the consumer: attach the QP.  false: left. */
bool sr_rcm_mc_joined(struct sr_rcm_evt *e);
/* rdma_destroy_id: leave every group. */
void sr_rcm_mc_release(struct sr_rcm_id *r);

/* ---- errors ---- */
static inline int sr_rcm_err(int rc)
{
	if (rc >= 0)
		return rc;
	errno = -rc;
	return -1;
}

#endif /* SR_RDMACM_H */
