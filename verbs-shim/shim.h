/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * shim.h — the drop-in libibverbs: its objects and what they wrap.
 *
 * verbs-shim only translates: every ibverbs object is a wrapper that holds
 * the lib/ object it stands for (a PD holds a struct sr_pd, a QP a struct
 * sr_qp, ...), and every verb converts arguments, calls lib/ or pmd/, and
 * converts the result back through sr_ibv_err().  No protocol runs here.
 *
 *   struct sr_ibv_dev    one configured device (sroce0, sroce1, ...): what
 *                        ibv_get_device_list() returns; lives as long as the
 *                        process (consumers keep pointers to it).
 *   struct sr_ibv_rt     the device's runtime, shared by every context that
 *                        opened it: configuration, GID table, MR engine,
 *                        and — brought up at the first CQ, QP or SRQ, not at
 *                        open — the pmd device and the transport device.
 *   struct sr_ibv_ctx    an ibv_context (in a verbs_context, so the inline
 *                        helpers of verbs.h find the extended ops).
 *
 * Progress: inline by default — poll_cq, post_send, post_recv run
 * sr_pmd_progress() — plus one helper thread per runtime (progress.c) that
 * progresses in the background, and spins while a completion channel is
 * armed, so ibv_get_cq_event() blocks on an eventfd and still completes.
 */
#ifndef SR_VERBS_SHIM_H
#define SR_VERBS_SHIM_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <sys/types.h>

#include <infiniband/verbs.h>

#include "config.h"
#include "core/dev.h"
#include "gid.h"
#include "mr/mr.h"
#include "xstats.h"
#include "qp/wr.h"

struct sr_pmd_dev;
struct sr_cm_host;
struct sr_ibv_map_entry;
struct sr_ibv_qp;
struct sr_ibv_tgt;
struct sr_ibv_xrcd;
struct sr_xrcd;
struct sr_dev;
struct sr_cq;
struct sr_qp;
struct sr_srq;

#define SR_IBV_DEV_MAX     8
#define SR_IBV_PORT        1       /* the one port of every device */
#define SR_IBV_VENDOR_ID   0x005352 /* "SR": documented in README.md */
#define SR_IBV_PART_ID     0x0001
#define SR_IBV_HW_VER      1
#define SR_IBV_FW_VER      "sroce 0.1.0"

#define sr_container_of(ptr, type, member) \
	((type *)(void *)((char *)(ptr) - offsetof(type, member)))

/* ---- device and runtime ---- */

struct sr_ibv_rt {
	pthread_mutex_t lock;             /* bring-up, object maps */
	unsigned int refs;                /* contexts open */
	struct sr_pmd_config cfg;
	int lock_fd;                      /* default link node lock, or -1 */
	uint8_t mac[6];
	struct sr_gid_table gids;
	struct sr_mr_dev *mr;
	/* Brought up by sr_ibv_rt_up(); NULL until then. */
	struct sr_pmd_dev *pmd;
	struct sr_dev *dev;
	struct sr_xstats xstats;          /* dev's counters for sroce-stat */
	struct sr_cm_host *cm;            /* QP1, at the first rdma_cm use */
	/* Helper progress thread (progress.c). */
	pthread_t helper;
	bool helper_started;
	atomic_bool helper_stop;
	atomic_uint waiters;              /* armed completion channels */
	_Atomic uint64_t inline_rounds;   /* the consumer's progress calls */
	unsigned int empty_polls;         /* in a row (progress.c; racy) */
	atomic_uint bell_sleepers;        /* consumers asleep on the daemon's
					   * doorbell (progress.c) */
	pthread_mutex_t wait_lock;
	/* Objects lib/ names by pointer only (async events): async.c. */
	pthread_mutex_t map_lock;
	struct sr_ibv_map_entry *map;
	unsigned int map_n, map_cap;
	struct sr_ibv_ctx *ctxs;          /* open contexts, under map_lock */
	/* A device of sroced's (pmd/daemon.h): the attachment, held open. */
	int daemon_fd;                    /* -1: the embedded device */
	pthread_mutex_t xrcd_lock;        /* xrcds (xrcd.c); before the lane locks */
	struct sr_ibv_xrcd *xrcds;        /* open XRC domains */
	struct sr_ibv_tgt *tgts;          /* XRC target QPs (xrcd_lock) */
	_Atomic size_t dm_used;           /* device memory handed out (dm.c) */
};

struct sr_ibv_dev {
	struct ibv_device ibdev;          /* what consumers see; first */
	unsigned int index;
	char config_path[SR_CONFIG_STR_MAX]; /* "" = the default link */
	const char *daemon_sock;          /* a device of sroced's, else NULL */
	uint8_t daemon_mac[6];            /* its MAC, as sroced listed it */
	struct sr_ibv_rt rt;
};

/* The device list (device.c): built once, never freed. */
struct sr_ibv_dev *sr_ibv_dev_of(struct ibv_device *ibdev);

/*
 * Runtime: load the configuration and build the GID table and the MR
 * engine (open, no EAL unless the MAC is only known from the port) /
 * bring up the pmd and transport devices (first CQ, QP or SRQ) / drop a
 * context's reference.  0 or -errno.
 */
int sr_ibv_rt_get(struct sr_ibv_dev *d);
int sr_ibv_rt_up(struct sr_ibv_rt *rt);
/*
 * What creating a CQ, QP or SRQ starts with: bring the device's port and
 * engine up, then a zeroed wrapper of size bytes.  NULL with errno set.
 */
void *sr_ibv_obj_new(struct sr_ibv_rt *rt, size_t size);
void sr_ibv_rt_put(struct sr_ibv_dev *d);

/* Node GUID: the modified EUI-64 of the MAC. */
__be64 sr_ibv_guid(const uint8_t mac[6]);

/*
 * The MAC of a peer's IP (16 bytes, IPv4-mapped) by ARP / ND on the
 * progress thread, this thread progressing meanwhile (ah.c).  Not from
 * inside a progress round.  0 or -errno (-ETIMEDOUT, -EHOSTUNREACH).
 */
int sr_ibv_resolve(struct sr_ibv_rt *rt, const uint8_t ip[16], uint8_t mac[6]);
/* CLOCK_MONOTONIC in nanoseconds (the shim's deadlines). */
uint64_t sr_ibv_now_ns(void);

/* ---- context ---- */

struct sr_ibv_ctx {
	struct verbs_context vctx;        /* ends with the ibv_context */
	struct sr_ibv_dev *d;
	struct sr_ibv_rt *rt;
	/* Async events (async.c): queue read through ibv_context.async_fd. */
	pthread_mutex_t ev_lock;
	struct ibv_async_event *ev_ring;
	unsigned int ev_head, ev_count, ev_size;
	struct sr_ibv_ctx *next;          /* in rt->ctxs (port_event.c) */
};

static inline struct sr_ibv_ctx *sr_ctx(struct ibv_context *c)
{
	return sr_container_of(c, struct sr_ibv_ctx, vctx.context);
}

/* Fill ibv_context_ops and the verbs_context ops (ops.c). */
void sr_ibv_ctx_ops_init(struct sr_ibv_ctx *ctx);

/* ---- objects ---- */

/*
 * A PD, or a parent domain (pd_parent.c): then pd is its protection
 * domain's (one user of it, counted), and the rest is what the consumer
 * gave: the thread domain and the allocators.
 */
struct sr_ibv_pd {
	struct ibv_pd ibpd;
	struct sr_pd *pd;
	struct ibv_pd *protection;    /* parent domain: its PD, else NULL */
	struct ibv_td *td;
	void *(*alloc)(struct ibv_pd *pd, void *pd_context, size_t size,
		       size_t alignment, uint64_t resource_type);
	void (*free)(struct ibv_pd *pd, void *pd_context, void *ptr,
		     uint64_t resource_type);
	void *pd_context;
};

/* pd_parent.c: parent and thread domains (verbs_context ops). */
struct ibv_pd *sr_ibv_alloc_parent_domain(struct ibv_context *c,
					  struct ibv_parent_domain_init_attr *a);
int sr_ibv_dealloc_parent_domain(struct sr_ibv_pd *p);
struct ibv_td *sr_ibv_alloc_td(struct ibv_context *c,
			       struct ibv_td_init_attr *a);
int sr_ibv_dealloc_td(struct ibv_td *td);
/* The parent domain pd is, or NULL when pd is a plain PD (or NULL). */
struct sr_ibv_pd *sr_ibv_parent_domain(struct ibv_pd *pd);

struct sr_ibv_dm;

struct sr_ibv_mr {
	struct ibv_mr ibmr;
	struct sr_mr *mr;
	struct sr_ibv_dm *dm;             /* registered on device memory (dm.c) */
};

struct sr_ibv_mw {
	struct ibv_mw ibmw;
	struct sr_mw *mw;
};

struct sr_ibv_cq {
	struct ibv_cq_ex ibcq;            /* ibv_cq first: both APIs */
	struct sr_cq *cq;
	struct sr_ibv_rt *rt;
	uint32_t ev_read;                 /* async events read (async.c) */
	bool ex;                          /* created by ibv_create_cq_ex */
	uint64_t wc_flags;                /* ibv_create_cq_wc_flags */
	/* Channel delivery (channel.c). */
	unsigned int ev_pending;          /* fired, not yet taken */
	bool ev_queued;
	struct sr_ibv_cq *ev_next;
	atomic_bool armed;
	atomic_bool arm_solicited;        /* how the consumer last armed it */
	bool dying;                       /* being destroyed (channel lock) */
	struct sr_ibv_cq *ch_next;        /* its channel's CQs (channel lock) */
	/* Extended polling (cq_ex.c): the current completion. */
	struct ibv_wc cur;
	uint64_t cur_ts;                  /* its timestamp, device clock */
	int64_t wall_off;                 /* CLOCK_REALTIME - device clock */
	int cur_left;
};

static inline struct sr_ibv_cq *sr_cq_of(struct ibv_cq *cq)
{
	return sr_container_of(cq, struct sr_ibv_cq, ibcq);
}

struct sr_ibv_channel {
	struct ibv_comp_channel ch;
	pthread_mutex_t lock;
	struct sr_ibv_cq *head, *tail;    /* CQs with events pending */
	struct sr_ibv_cq *cqs;            /* every CQ on it (ch_next) */
};

struct sr_ibv_srq {
	struct ibv_srq ibsrq;
	struct sr_srq *srq;
	struct sr_ibv_rt *rt;
	uint32_t ev_read;                 /* async events read (async.c) */
};

/* An XRC domain (xrcd.c): one per inode opened, or private (fd -1). */
struct sr_ibv_xrcd {
	struct ibv_xrcd ibxrcd;
	struct sr_xrcd *xrcd;
	struct sr_ibv_rt *rt;
	bool shared;                      /* of the inode below */
	dev_t st_dev;
	ino_t st_ino;
	unsigned int refs;                /* opens not closed (xrcd_lock) */
	struct sr_ibv_xrcd *next;         /* in rt->xrcds */
};

static inline struct sr_ibv_xrcd *sr_xrcd_of(struct ibv_xrcd *x)
{
	return sr_container_of(x, struct sr_ibv_xrcd, ibxrcd);
}

/* ibv_open_xrcd, ibv_close_xrcd and ibv_open_qp in the verbs_context
 * (xrcd.c). */
void sr_ibv_xrcd_ops_init(struct verbs_context *v);
/* A new XRC target QP's record, its creator the first handle: 0 or
 * -ENOMEM.  Forgetting it is for its last handle's destroy. */
int sr_ibv_tgt_add(struct sr_ibv_qp *w, struct ibv_xrcd *xrcd);
/*
 * Destroy one handle of an XRC target: true when others remain (the QP
 * stays; xrcd_lock is released), false for the last one (the caller
 * destroys the QP, then calls sr_ibv_tgt_done with the lock still held).
 */
bool sr_ibv_tgt_put(struct sr_ibv_qp *w);
void sr_ibv_tgt_done(struct sr_ibv_qp *w, bool destroyed);
/* ibv_get_srq_num (srq.c). */
int sr_ibv_get_srq_num(struct ibv_srq *srq, uint32_t *srq_num);

struct sr_ibv_ah {
	struct ibv_ah ibah;
	struct sr_av av;
};

/* The ibv_qp_ex of rdma-core 45+, which adds wr_flush after 44's last op. */
struct sr_ibv_qp_ex_flush {
	struct ibv_qp_ex base;
	void (*wr_flush)(struct ibv_qp_ex *qp, uint32_t rkey,
			 uint64_t remote_addr, size_t len, uint8_t type,
			 uint8_t level);
};

/*
 * An XRC target QP and its handles (xrcd.c): the one ibv_create_qp made
 * and those ibv_open_qp opened, in this process.  The QP lives until its
 * last handle is destroyed, as the kernel's shared QPs do.
 */
struct sr_ibv_tgt {
	struct sr_qp *qp;
	struct ibv_xrcd *xrcd;            /* the domain it was created in */
	unsigned int handles;             /* rt->xrcd_lock */
	struct sr_ibv_tgt *next;          /* in rt->tgts */
};

struct sr_ibv_qp {
	struct sr_ibv_qp_ex_flush qpx;    /* ibv_qp first */
	struct sr_qp *qp;
	struct sr_ibv_rt *rt;
	struct sr_ibv_tgt *tgt;           /* XRC targets only */
	uint32_t ev_read;                 /* async events read (async.c) */
	bool ex;                          /* ibv_qp_to_qp_ex() allowed */
	/* New post-send API (wr_api.c): WRs built between wr_start and
	 * wr_complete. */
	struct sr_ibv_wr_batch *batch;
	_Atomic unsigned int posts_unsent; /* posts not followed by progress */
};

static inline struct sr_ibv_qp *sr_qp_of(struct ibv_qp *qp)
{
	return sr_container_of(qp, struct sr_ibv_qp, qpx.base.qp_base);
}

/* ---- exported entry points that verbs.h does not declare (driver.h's) ---- */

int ibv_dontfork_range(void *base, size_t size);
int ibv_dofork_range(void *base, size_t size);
const char *ibv_get_sysfs_path(void);
int ibv_read_sysfs_file(const char *dir, const char *file, char *buf,
			size_t size);

/* ---- shared helpers ---- */

/* lib/ -errno (or 0) to the positive errno ibverbs returns (err.c). */
int sr_ibv_err(int rc);

/* Access flags (flags.c): 0 or -EINVAL for a flag sroce lacks. */
int sr_ibv_access_to_sr(unsigned int ibv, uint32_t *out);
/* The same for a memory window's rights (mw_access_flags). */
int sr_ibv_mw_access_to_sr(unsigned int ibv, uint32_t *out);
unsigned int sr_ibv_access_from_sr(uint32_t sr);

/* Inline progress on a runtime that is up (progress.c). */
void sr_ibv_progress(struct sr_ibv_rt *rt);
/* The same, with the work it did (frames, work items; 0: idle). */
int sr_ibv_progress_work(struct sr_ibv_rt *rt);
/*
 * After a poll: idle when neither its progress nor the CQ had anything.
 * A client of sroced whose polls keep finding nothing gives its CPU away
 * now and then (progress.c).
 */
void sr_ibv_poll_after(struct sr_ibv_rt *rt, bool idle);
/*
 * After a post to w's send queue, which had `outstanding` WQEs before it:
 * progress now, or leave the WQE to the consumer's next poll (progress.c).
 */
void sr_ibv_progress_post(struct sr_ibv_qp *w, uint32_t outstanding);
/* The helper thread: start (rt_up) / stop; a waiter comes / goes. */
int sr_ibv_helper_start(struct sr_ibv_rt *rt);
int sr_ibv_waiter_add(struct sr_ibv_rt *rt);
void sr_ibv_waiter_del(struct sr_ibv_rt *rt);
void sr_ibv_helper_stop(struct sr_ibv_rt *rt);

/* Tell the drop-in librdmacm that a QP goes (cm.c, sroce_on_qp_destroy). */
void sr_ibv_qp_destroy_notify(struct ibv_qp *qp);

/* Object map for async events: lib pointer -> wrapper (async.c). */
int sr_ibv_map_add(struct sr_ibv_rt *rt, const void *lib, void *wrapper,
		   struct sr_ibv_ctx *ctx);
/*
 * The wrapper's object is being destroyed: no event for it from now on,
 * its unread ones dropped, and back only when the consumer has acked every
 * one it read.  kind: any event type of the object's (IBV_EVENT_QP_FATAL
 * for a QP, IBV_EVENT_CQ_ERR, IBV_EVENT_SRQ_ERR).
 */
void sr_ibv_map_del(struct sr_ibv_rt *rt, const void *lib, void *wrapper,
		    enum ibv_event_type kind);
void sr_ibv_async_cb(void *rt, const struct sr_async_event *ev);
int sr_ibv_async_init(struct sr_ibv_ctx *ctx);
void sr_ibv_async_fini(struct sr_ibv_ctx *ctx);
/* Queue an event on ctx's async_fd (async.c). */
void sr_ibv_ev_push(struct sr_ibv_ctx *ctx, const struct ibv_async_event *ev);

/*
 * Port events (port_event.c): the contexts that get them (open / close),
 * one event to each, and a host NIC's GID change — the pmd's callback
 * (sr_pmd_gid_change_fn; arg is the runtime) — and, when the transport
 * comes up, its GIDs made the runtime's.
 */
void sr_ibv_ctx_link(struct sr_ibv_ctx *ctx);
void sr_ibv_ctx_unlink(struct sr_ibv_ctx *ctx);
void sr_ibv_port_event(struct sr_ibv_rt *rt, enum ibv_event_type type);
void sr_ibv_gid_changed(void *arg, unsigned int index,
			const struct sr_gid_entry *e);
void sr_ibv_gids_sync(struct sr_ibv_rt *rt);

/* Completion notification from the transport (channel.c). */
void sr_ibv_cq_notify(struct sr_cq *cq, void *arg);


/* The address vector of an ibv_ah_attr: resolves the MAC (ah.c). */
int sr_ibv_av_from_attr(struct sr_ibv_rt *rt, const struct ibv_ah_attr *a,
			struct sr_av *av);

/* Verbs the context ops point at (one file each). */
int sr_ibv_query_port_ex(struct ibv_context *c, uint8_t port,
			 struct ibv_port_attr *attr, size_t len);
/* Completion timestamps count ns: a 1 GHz clock (query.c). */
#define SR_IBV_CORE_CLOCK_KHZ 1000000u
int sr_ibv_query_rt_values(struct ibv_context *c, struct ibv_values_ex *v);
int sr_ibv_query_device_ex(struct ibv_context *c,
			   const struct ibv_query_device_ex_input *in,
			   struct ibv_device_attr_ex *attr, size_t len);
struct ibv_mw *sr_ibv_alloc_mw(struct ibv_pd *pd, enum ibv_mw_type type);
/* An MR with no bytes: a key that every access fails (mr.c). */
struct ibv_mr *sr_ibv_mr_empty(struct ibv_pd *pd);

/* Device memory (dm.c): SR_IBV_DM_MAX bytes per device. */
#define SR_IBV_DM_MAX (256u * 1024u)
struct ibv_dm *sr_ibv_alloc_dm(struct ibv_context *c,
			       struct ibv_alloc_dm_attr *attr);
int sr_ibv_free_dm(struct ibv_dm *dm);
struct ibv_mr *sr_ibv_reg_dm_mr(struct ibv_pd *pd, struct ibv_dm *dm,
				uint64_t offset, size_t length,
				unsigned int access);
/* An MR registered on d is gone. */
void sr_ibv_dm_mr_gone(struct sr_ibv_dm *d);
int sr_ibv_advise_mr(struct ibv_pd *pd, enum ibv_advise_mr_advice advice,
		     uint32_t flags, struct ibv_sge *sg_list, uint32_t num_sge);
int sr_ibv_dealloc_mw(struct ibv_mw *mw);
int sr_ibv_bind_mw(struct ibv_qp *qp, struct ibv_mw *mw,
		   struct ibv_mw_bind *bind);
int sr_ibv_poll_cq(struct ibv_cq *cq, int n, struct ibv_wc *wc);
int sr_ibv_req_notify_cq(struct ibv_cq *cq, int solicited_only);
struct ibv_cq_ex *sr_ibv_create_cq_ex(struct ibv_context *c,
				      struct ibv_cq_init_attr_ex *attr);
int sr_ibv_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr,
		     struct ibv_send_wr **bad);
int sr_ibv_post_recv(struct ibv_qp *qp, struct ibv_recv_wr *wr,
		     struct ibv_recv_wr **bad);
int sr_ibv_post_srq_recv(struct ibv_srq *srq, struct ibv_recv_wr *wr,
			 struct ibv_recv_wr **bad);
struct ibv_qp *sr_ibv_create_qp_ex(struct ibv_context *c,
				   struct ibv_qp_init_attr_ex *attr);
int sr_ibv_modify_qp_rate_limit(struct ibv_qp *qp,
				struct ibv_qp_rate_limit_attr *attr);
struct ibv_srq *sr_ibv_create_srq_ex(struct ibv_context *c,
				     struct ibv_srq_init_attr_ex *attr);
void sr_ibv_cq_ex_init(struct sr_ibv_cq *cq);
/* One lib completion as an ibverbs one (cq.c). */
void sr_ibv_wc_from_sr(struct ibv_wc *out, const struct sr_wc *in);
/* A CQ made with a channel joins the channel's list (channel.c). */
void sr_ibv_channel_join(struct sr_ibv_cq *w);
/* Drop a CQ's undelivered events and leave its channel (channel.c). */
void sr_ibv_channel_forget(struct sr_ibv_cq *w);
int sr_ibv_qp_ex_init(struct sr_ibv_qp *qp);
void sr_ibv_qp_ex_fini(struct sr_ibv_qp *qp);

#endif /* SR_VERBS_SHIM_H */
