/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * nd2_priv.h — the ND2 shim's objects.  Each embeds its IND2 interface
 * first (the pointer the consumer holds is the object) and wraps the NDK
 * object of its kind; nothing here is protocol.  Every object holds a
 * reference on its adapter, so the adapter (and its NDK adapter) goes
 * last.
 *
 * Locks: an object's lock is never held across a call into the NDK
 * connection objects (their callbacks take the object's lock on the
 * adapter thread while the NDK connections' lock is held).
 */
#ifndef SR_ND2_PRIV_H
#define SR_ND2_PRIV_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>

#include "ndk_priv.h"
#include "sr_nd2.h"

#define SR_ND2_MAX_WAITERS 64   /* pending GetConnectionRequest / incoming per listener */

struct sr_nd2_adapter;

/* An overlapped file: completions of its objects' pending requests count here. */
struct sr_nd2_file {
	struct sr_nd2_adapter *a;
	int fd;                      /* eventfd; -1 for the adapter's default file */
	struct sr_nd2_file *next;
};

struct sr_nd2_adapter {
	IND2Adapter iface;
	atomic_uint refs;
	atomic_uint objects;
	atomic_bool removed;
	NDK_ADAPTER *ndk;
	NDK_PD *pd;
	ND2_ADAPTER_INFO info;
	pthread_mutex_t ov_lock;     /* OVERLAPPED completion and waits, files */
	pthread_cond_t ov_cond;
	struct sr_nd2_file dflt;
	struct sr_nd2_file *files;
	void (*on_destroy)(struct sr_nd2_adapter *a);
};

struct sr_nd2_mr {
	IND2MemoryRegion iface;
	atomic_uint refs;
	struct sr_nd2_adapter *a;
	struct sr_nd2_file *f;
	pthread_mutex_t lock;        /* ndk creation */
	NDK_MR *ndk;                 /* made by the first Register */
};

struct sr_nd2_mw {
	IND2MemoryWindow iface;
	atomic_uint refs;
	struct sr_nd2_adapter *a;
	NDK_MW *ndk;
};

struct sr_nd2_cq {
	IND2CompletionQueue iface;
	atomic_uint refs;
	struct sr_nd2_adapter *a;
	struct sr_nd2_file *f;
	NDK_CQ *ndk;
	pthread_mutex_t lock;        /* the Notify requests outstanding */
	OVERLAPPED **notify;
	unsigned int nnotify, cap;
	bool notify_any;
};

struct sr_nd2_srq {
	IND2SharedReceiveQueue iface;
	atomic_uint refs;
	struct sr_nd2_adapter *a;
	struct sr_nd2_file *f;
	NDK_SRQ *ndk;
	pthread_mutex_t lock;        /* the Notify requests outstanding */
	OVERLAPPED **notify;
	unsigned int nnotify, cap;
};

struct sr_nd2_qp {
	IND2QueuePair iface;
	atomic_uint refs;
	struct sr_nd2_adapter *a;
	struct sr_nd2_cq *rcq, *icq;
	struct sr_nd2_srq *srq;      /* NULL: the QP's own receive queue */
	NDK_QP *ndk;
};

struct sr_nd2_conn {
	IND2Connector iface;
	atomic_uint refs;
	struct sr_nd2_adapter *a;
	struct sr_nd2_file *f;
	pthread_mutex_t lock;
	NDK_CONNECTOR *ndk;          /* active: made by Connect; passive: by the listener */
	struct sr_nd2_qp *qp;        /* referenced by Connect / Accept */
	struct sockaddr_storage bound;
	OVERLAPPED *op;              /* Connect / Accept outstanding */
	OVERLAPPED *notify;          /* NotifyDisconnect outstanding */
	bool waiting;                /* given to GetConnectionRequest */
	bool connected, disconnected;
};

struct sr_nd2_listener {
	IND2Listener iface;
	atomic_uint refs;
	struct sr_nd2_adapter *a;
	struct sr_nd2_file *f;
	pthread_mutex_t lock;
	NDK_LISTENER *ndk;
	struct sockaddr_storage bound;
	bool listening;
	NDK_CONNECTOR *incoming[SR_ND2_MAX_WAITERS];  /* requests nobody asked for yet */
	unsigned int nincoming;
	struct {
		struct sr_nd2_conn *c;
		OVERLAPPED *ov;
	} waiting[SR_ND2_MAX_WAITERS];                /* GetConnectionRequest outstanding */
	unsigned int nwaiting;
};

/* adapter.c */
HRESULT sr_nd2_adapter_wrap(NDK_ADAPTER *ndk, REFIID iid, VOID **out,
			    void (*on_destroy)(struct sr_nd2_adapter *a));
void sr_nd2_adapter_get(struct sr_nd2_adapter *a);
void sr_nd2_adapter_put(struct sr_nd2_adapter *a);
/*
 * Wait until the adapter thread has finished what it was doing: a
 * notification it collected for a closed NDK object has been delivered.
 */
void sr_nd2_adapter_barrier(struct sr_nd2_adapter *a);
/* ND_DEVICE_REMOVED after surprise removal, else ND_SUCCESS. */
HRESULT sr_nd2_alive(const struct sr_nd2_adapter *a);
/* The file of a handle (NULL: the default file); NULL if not one of a's. */
struct sr_nd2_file *sr_nd2_file_of(struct sr_nd2_adapter *a, HANDLE h);
/* A new object of a came to be / went away. */
void sr_nd2_object_add(struct sr_nd2_adapter *a);
void sr_nd2_object_del(struct sr_nd2_adapter *a);
/* QueryInterface of an object that answers to IUnknown, iid and maybe IND2Overlapped. */
HRESULT sr_nd2_query(void *This, REFIID riid, VOID **ppv, REFIID own, bool overlapped,
		     ULONG (*add_ref)(void *This));

/* overlapped.c: OVERLAPPED.Internal is the status, InternalHigh the file while pending */
void sr_nd2_ov_start(struct sr_nd2_file *f, OVERLAPPED *ov);
void sr_nd2_ov_complete(OVERLAPPED *ov, HRESULT hr);
/* A request that finished at once: Internal = hr; returns hr. */
HRESULT sr_nd2_ov_done_now(OVERLAPPED *ov, HRESULT hr);
HRESULT sr_nd2_ov_result(struct sr_nd2_adapter *a, OVERLAPPED *ov, BOOL wait);
/* The CPUs notifications run on (CQ and SRQ GetNotifyAffinity). */
HRESULT sr_nd2_notify_affinity(USHORT *pGroup, KAFFINITY *pAffinity);
/* NDK_FN_REQUEST_COMPLETION whose context is the OVERLAPPED. */
VOID sr_nd2_ov_ndk_done(PVOID ctx, NTSTATUS st);
int sr_nd2_file_open(struct sr_nd2_file *f);
void sr_nd2_file_close(struct sr_nd2_file *f);

/* mr.c */
HRESULT sr_nd2_mr_create(struct sr_nd2_adapter *a, struct sr_nd2_file *f, VOID **out);
HRESULT sr_nd2_mw_create(struct sr_nd2_adapter *a, VOID **out);
struct sr_nd2_mr *sr_nd2_mr_from(IUnknown *p);
struct sr_nd2_mw *sr_nd2_mw_from(IUnknown *p);
/* cq.c */
HRESULT sr_nd2_cq_create(struct sr_nd2_adapter *a, struct sr_nd2_file *f, ULONG depth,
			 VOID **out);
struct sr_nd2_cq *sr_nd2_cq_from(IUnknown *p);
void sr_nd2_cq_get(struct sr_nd2_cq *c);
void sr_nd2_cq_put(struct sr_nd2_cq *c);
/* qp.c */
/* srq: NULL, or the shared receive queue (rq_depth and rsge then unused). */
HRESULT sr_nd2_qp_create(struct sr_nd2_adapter *a, IUnknown *rcq, IUnknown *icq,
			 IUnknown *srq, VOID *context, ULONG rq_depth, ULONG iq_depth,
			 ULONG rsge, ULONG isge, ULONG inline_size, VOID **out);
/* qp.c: an ND2 SGL as NDK's; a post's NDK status as ND2's. */
HRESULT sr_nd2_sgl(const ND2_SGE *sge, ULONG n, NDK_SGE *out);
HRESULT sr_nd2_post_status(NTSTATUS st);

/* srq.c */
HRESULT sr_nd2_srq_create(struct sr_nd2_adapter *a, struct sr_nd2_file *f, ULONG depth,
			  ULONG max_sge, ULONG threshold, VOID **out);
struct sr_nd2_srq *sr_nd2_srq_from(IUnknown *p);
void sr_nd2_srq_get(struct sr_nd2_srq *s);
void sr_nd2_srq_put(struct sr_nd2_srq *s);
struct sr_nd2_qp *sr_nd2_qp_from(IUnknown *p);
void sr_nd2_qp_get(struct sr_nd2_qp *qp);
void sr_nd2_qp_put(struct sr_nd2_qp *qp);
/* conn.c */
HRESULT sr_nd2_conn_create(struct sr_nd2_adapter *a, struct sr_nd2_file *f, VOID **out);
HRESULT sr_nd2_listener_create(struct sr_nd2_adapter *a, struct sr_nd2_file *f, VOID **out);

#endif /* SR_ND2_PRIV_H */
