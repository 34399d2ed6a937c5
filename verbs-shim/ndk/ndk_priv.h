/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ndk_priv.h — the NDK shim's objects.  Each embeds its NDK_* interface
 * first, so the NDK pointer the consumer holds is the object.  Nothing
 * here is protocol: lib/ does registration, keys and the transport; these
 * hold what the NDK API needs beyond lib (completion contexts, the tokens
 * handed out, deferred requests, connection state).
 */
#ifndef SR_NDK_PRIV_H
#define SR_NDK_PRIV_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>

#include "core/dev.h"
#include "mr/mr.h"
#include "qp/cq.h"
#include "qp/qp.h"
#include "qp/srq.h"
#include "sr_ndk.h"
#include "sr_status.h"

#define SR_NDK_VERSION_MAJOR 1
#define SR_NDK_VERSION_MINOR 2
#define SR_NDK_MAX_SGE       SR_QP_MAX_SGE
#define SR_NDK_DEFER_MAX     64     /* deferred requests held per QP */

struct sr_ndk_adapter;

/* A piece of work for the adapter thread. */
struct sr_ndk_work {
	struct sr_ndk_work *next;
	void (*run)(struct sr_ndk_work *w);   /* runs, then frees w */
};

struct sr_ndk_cm;   /* conn.c */

struct sr_ndk_adapter {
	NDK_ADAPTER iface;
	struct sr_ndk_backend be;
	NDK_ADAPTER_INFO info;
	struct sr_ndk_qp *qpn_map[SR_MAX_QP + 2];   /* completions -> QPContext */
	pthread_mutex_t lock;                        /* qpn_map, CM lists */
	/* adapter thread */
	pthread_t thread;
	pthread_mutex_t wlock;
	pthread_cond_t wcond;
	struct sr_ndk_work *work_head, *work_tail;
	bool stop;
	atomic_uint busy;        /* armed CQs + CM operations: drive progress */
	atomic_uint cm_watch;    /* listeners + connections: receive the CM's MADs */
	atomic_uint objects;
	struct sr_ndk_cq *cqs;   /* CQs whose notifications the thread delivers */
	struct sr_ndk_cm *cm;    /* the CM's events (conn.c) */
	SIZE_T async_threshold;
	bool async_all;
	pthread_mutex_t progress_lock;
};

struct sr_ndk_pd {
	NDK_PD iface;
	struct sr_ndk_adapter *a;
	struct sr_pd *pd;
};

struct sr_ndk_mr {
	NDK_MR iface;
	struct sr_ndk_pd *pd;
	struct sr_mr *mr;
	bool fast_register;
	bool frmr_ready;         /* NdkInitializeFastRegisterMr done */
	bool remote_access;      /* ... with RemoteAccess */
	uint32_t token;          /* fast-register: key handed out last (host) */
	bool token_remote;       /* ... granting remote rights */
};

struct sr_ndk_mw {
	NDK_MW iface;
	struct sr_ndk_pd *pd;
	struct sr_mw *mw;
	uint32_t token;          /* rkey handed out last (host order) */
};

struct sr_ndk_cq {
	NDK_CQ iface;
	struct sr_ndk_adapter *a;
	struct sr_cq *cq;
	NDK_FN_CQ_NOTIFICATION_CALLBACK notify;
	PVOID notify_ctx;
	atomic_int armed;        /* NdkArmCq type + 1, 0 when not armed */
	atomic_int fired;        /* the engine signalled: deliver the callback */
	struct sr_ndk_cq *next;  /* adapter's list */
};

struct sr_ndk_srq {
	NDK_SRQ iface;
	struct sr_ndk_pd *pd;
	struct sr_srq *srq;
	NDK_FN_SRQ_NOTIFICATION_CALLBACK notify;
	PVOID notify_ctx;
	ULONG max_sge;
};

/* Page arrays of fast-register requests: lib reads them when it runs the WR. */
struct sr_ndk_pages {
	uint64_t *pages;
	uint32_t cap;
};

struct sr_ndk_qp {
	NDK_QP iface;
	struct sr_ndk_pd *pd;
	struct sr_qp *qp;
	PVOID context;
	struct sr_ndk_cq *rcq, *icq;
	struct sr_ndk_srq *srq;
	uint32_t max_isge, max_rsge, max_inline, sq_depth;
	uint32_t sq_psn;
	/* requests posted with NDK_OP_FLAG_DEFER, not yet given to the engine */
	struct sr_send_wr defer[SR_NDK_DEFER_MAX];
	struct sr_sge defer_sge[SR_NDK_DEFER_MAX][SR_NDK_MAX_SGE];
	unsigned int ndefer;
	/* fast-register page arrays, one slot per send-queue entry + 1 */
	struct sr_ndk_pages *pages;
	uint64_t posted;         /* send WRs handed to the engine */
	pthread_mutex_t lock;    /* posting (NDK allows any thread) */
	struct sr_ndk_conn *conn;
};

/* adapter.c */
void sr_ndk_header_init(NDK_OBJECT_HEADER *h, NDK_OBJECT_TYPE type);
struct sr_ndk_adapter *sr_ndk_adapter_of(NDK_ADAPTER *p);
NTSTATUS sr_ndk_query_extension(NDK_OBJECT_HEADER *o, GUID *id, NDK_VERSION v,
				NDK_EXTENSION_INTERFACE *ext);
void sr_ndk_progress_(struct sr_ndk_adapter *a);
void sr_ndk_qpn_set(struct sr_ndk_adapter *a, uint32_t qpn, struct sr_ndk_qp *qp);
struct sr_ndk_qp *sr_ndk_qpn_get(struct sr_ndk_adapter *a, uint32_t qpn);

/* worker.c: the adapter thread */
int sr_ndk_worker_start(struct sr_ndk_adapter *a);
void sr_ndk_worker_stop(struct sr_ndk_adapter *a);
void sr_ndk_work_queue(struct sr_ndk_adapter *a, struct sr_ndk_work *w);
void sr_ndk_worker_kick(struct sr_ndk_adapter *a);

/*
 * Run a creation now or on the adapter thread.  fn creates from args
 * (copied, args_len bytes) and returns the object's header or NULL with
 * *st set.  Synchronous: *out = the object; else STATUS_PENDING and cb
 * later.
 */
typedef NDK_OBJECT_HEADER *(*sr_ndk_create_fn)(const void *args, NTSTATUS *st);
NTSTATUS sr_ndk_create(struct sr_ndk_adapter *a, bool async, sr_ndk_create_fn fn,
		       const void *args, size_t args_len,
		       NDK_FN_CREATE_COMPLETION cb, PVOID ctx, void **out);

/* The same for a request that completes with a status only. */
typedef NTSTATUS (*sr_ndk_request_fn)(const void *args);
NTSTATUS sr_ndk_request(struct sr_ndk_adapter *a, bool async, sr_ndk_request_fn fn,
			const void *args, size_t args_len,
			NDK_FN_REQUEST_COMPLETION cb, PVOID ctx);

/* A close: fn releases (returns NTSTATUS); async: STATUS_PENDING then cb. */
typedef NTSTATUS (*sr_ndk_close_fn)(NDK_OBJECT_HEADER *o);
NTSTATUS sr_ndk_close(struct sr_ndk_adapter *a, sr_ndk_close_fn fn, NDK_OBJECT_HEADER *o,
		      NDK_FN_CLOSE_COMPLETION cb, PVOID ctx);

/* mdl.c: flatten an MDL chain (NDK: one virtually contiguous region). */
struct sr_mdl_pages {
	uint64_t *pages;
	uint32_t npages;
	uint32_t fbo;
	uint64_t va;       /* virtual address of the first byte */
	uint64_t bytes;    /* bytes the chain describes */
};
int sr_mdl_flatten(const MDL *mdl, struct sr_mdl_pages *out);
void sr_mdl_pages_free(struct sr_mdl_pages *p);

/* pd.c */
extern const NDK_PD_DISPATCH sr_ndk_pd_dispatch;
/* mr.c */
extern const NDK_MR_DISPATCH sr_ndk_mr_dispatch;
extern const NDK_MW_DISPATCH sr_ndk_mw_dispatch;
uint32_t sr_ndk_access_from_mr_flags(ULONG flags);
struct sr_ndk_mr *sr_ndk_mr_create_(struct sr_ndk_pd *pd, bool fast, NTSTATUS *st);
struct sr_ndk_mw *sr_ndk_mw_create_(struct sr_ndk_pd *pd, NTSTATUS *st);
/* cq.c */
extern const NDK_CQ_DISPATCH sr_ndk_cq_dispatch;
NDK_OBJECT_HEADER *sr_ndk_cq_create_(const void *args, NTSTATUS *st);
void sr_ndk_cq_deliver(struct sr_ndk_adapter *a);
/* qp.c, srq.c */
extern const NDK_QP_DISPATCH sr_ndk_qp_dispatch;
extern const NDK_SRQ_DISPATCH sr_ndk_srq_dispatch;
struct sr_ndk_qp *sr_ndk_qp_create_(struct sr_ndk_pd *pd, struct sr_ndk_cq *rcq,
				    struct sr_ndk_cq *icq, struct sr_ndk_srq *srq,
				    PVOID ctx, ULONG rq_depth, ULONG iq_depth,
				    ULONG rsge, ULONG isge, ULONG inline_size, NTSTATUS *st);
struct sr_ndk_srq *sr_ndk_srq_create_(struct sr_ndk_pd *pd, ULONG depth, ULONG sge,
				      ULONG threshold,
				      NDK_FN_SRQ_NOTIFICATION_CALLBACK cb, PVOID ctx,
				      NTSTATUS *st);
void sr_ndk_srq_event(struct sr_ndk_adapter *a, struct sr_srq *srq);
bool sr_ndk_qp_connected(const struct sr_ndk_qp *qp);
/* conn.c */
extern const NDK_CONNECTOR_DISPATCH sr_ndk_connector_dispatch;
extern const NDK_LISTENER_DISPATCH sr_ndk_listener_dispatch;
NTSTATUS sr_ndk_create_connector(NDK_ADAPTER *p, NDK_FN_CREATE_COMPLETION cb,
				 PVOID ctx, NDK_CONNECTOR **out);
NTSTATUS sr_ndk_create_listener(NDK_ADAPTER *p, NDK_FN_CONNECT_EVENT_CALLBACK ev,
				PVOID evctx, NDK_FN_CREATE_COMPLETION cb, PVOID ctx,
				NDK_LISTENER **out);
int sr_ndk_cm_init(struct sr_ndk_adapter *a);
void sr_ndk_cm_fini(struct sr_ndk_adapter *a);
/* Wait up to timeout_ms for CM events and deliver them; returns work done. */
int sr_ndk_cm_poll(struct sr_ndk_adapter *a, int timeout_ms);
void sr_ndk_qp_disconnected(struct sr_ndk_qp *qp);

#endif /* SR_NDK_PRIV_H */
