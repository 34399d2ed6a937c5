/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * conn_priv.h — the NDK shim's connections over the device's CM, shared by
 * cm.c (the CM's events, turned into NDK callbacks on the adapter thread),
 * conn.c (NDK_CONNECTOR) and listener.c (NDK_LISTENER).
 *
 * Locks: a->cm->lock (recursive) serialises everything a connection does
 * on the consumer's threads and the adapter thread; the CM's own lock
 * (sr_ndk_cm_lock) is taken inside it, around sr_cm_* calls only; qlock
 * (the event queue) is taken under the CM's lock by its callback.
 */
#ifndef SR_NDK_CONN_PRIV_H
#define SR_NDK_CONN_PRIV_H

#include <sys/socket.h>

#include "cm/cma.h"
#include "ndk_priv.h"

enum sr_ndk_conn_state {
	SR_CONN_IDLE,
	SR_CONN_REQ_RCVD,      /* ConnectEvent delivered: accept or reject */
	SR_CONN_CONNECTING,    /* REQ sent, waiting for REP */
	SR_CONN_REP_RCVD,      /* Connect completed: CompleteConnect next */
	SR_CONN_ACCEPTING,     /* REP sent, waiting for RTU */
	SR_CONN_CONNECTED,
	SR_CONN_REJECTED,      /* our REQ was refused: the REJ's data readable */
	SR_CONN_CLOSED,        /* disconnected or failed */
};

struct sr_ndk_conn {
	NDK_CONNECTOR iface;
	struct sr_ndk_adapter *a;
	struct sr_cm_id *cm;
	enum sr_ndk_conn_state state;
	bool was_connected;
	struct sr_ndk_qp *qp;
	struct sr_cma_route route;
	struct sr_cm_req_param req;        /* active side: the REQ we sent */
	uint8_t req_pdata[92];
	struct sr_cm_msg peer;             /* the REQ, REP or REJ received */
	const uint8_t *pdata;              /* the peer's data in peer */
	uint8_t pdata_len;
	struct sockaddr_storage local, remote;
	NDK_FN_REQUEST_COMPLETION cb;      /* Connect / Accept completion */
	PVOID cb_ctx;
	NDK_FN_DISCONNECT_EVENT_CALLBACK disc;
	PVOID disc_ctx;
	struct sr_ndk_conn *next;
};

struct sr_ndk_listener {
	NDK_LISTENER iface;
	struct sr_ndk_adapter *a;
	struct sr_cm_id *cm;
	struct sockaddr_storage addr;
	NDK_FN_CONNECT_EVENT_CALLBACK ev;
	PVOID ev_ctx;
	bool paused;
	struct sr_ndk_listener *next;
};

/* One CM event, queued by the CM's callback for the adapter thread. */
struct sr_ndk_cm_evt {
	struct sr_ndk_cm_evt *next;
	enum sr_cm_event_type type;
	struct sr_cm_id *id;               /* REQ_RCVD: the new id */
	struct sr_ndk_conn *conn;          /* its connector (not REQ_RCVD) */
	struct sr_ndk_listener *listener;  /* REQ_RCVD */
	bool has_msg;
	struct sr_cm_msg msg;
};

struct sr_ndk_cm {
	int efd;
	pthread_mutex_t lock;   /* recursive: event processing vs. closes */
	struct sr_ndk_conn *conns;
	struct sr_ndk_listener *listeners;
	/* events from the CM's callback (qlock: taken under the CM's lock) */
	pthread_mutex_t qlock;
	struct sr_ndk_cm_evt *head, *tail;
	const struct sr_ndk_cm_ops *ops;
	void *ctx;
};

/* cm.c */
struct sr_cm *sr_ndk_cm_lock(struct sr_ndk_adapter *a);
void sr_ndk_cm_unlock(struct sr_ndk_adapter *a);
uint64_t sr_ndk_cm_now(struct sr_ndk_adapter *a);
/* Refuse a request nobody will see (the CM's lock not held). */
void sr_ndk_cm_refuse(struct sr_ndk_adapter *a, struct sr_cm_id *id, uint16_t reason);
/* Drop the queued events of a connector or listener being closed. */
void sr_ndk_cm_purge(struct sr_ndk_adapter *a, void *who);

/* conn.c: addresses */
socklen_t sr_ndk_sa_len(const struct sockaddr *sa);
int sr_ndk_sa_check(const struct sockaddr *sa, ULONG len);
uint16_t sr_ndk_sa_port(const struct sockaddr *sa);
void sr_ndk_sa_set_port(struct sockaddr_storage *ss, uint16_t port);
/* A port of the ephemeral range (32768..60999), at random. */
uint16_t sr_ndk_ephemeral_port(void);
void sr_ndk_sa_gid(const struct sockaddr *sa, uint8_t gid[16]);
void sr_ndk_gid_sa(const uint8_t gid[16], uint8_t ip_version, uint16_t port,
		   struct sockaddr_storage *ss);
void sr_ndk_sa_resolve_any(struct sr_ndk_adapter *a, struct sockaddr_storage *ss);
NTSTATUS sr_ndk_copy_sa(const struct sockaddr_storage *ss, PSOCKADDR out, ULONG *len);

/* conn.c: connectors */
struct sr_ndk_conn *sr_ndk_conn_new(struct sr_ndk_adapter *a);
void sr_ndk_conn_set_state(struct sr_ndk_conn *c, enum sr_ndk_conn_state s);
/* Connect or Accept ends: its completion callback with st. */
void sr_ndk_conn_op_done(struct sr_ndk_conn *c, NTSTATUS st);
void sr_ndk_conn_qp_err(struct sr_ndk_conn *c);
void sr_ndk_conn_qp_release(struct sr_ndk_conn *c);
/* Release the CM id: what the peer must learn (REJ, DREQ) is sent. */
void sr_ndk_conn_drop_id(struct sr_ndk_conn *c);
NTSTATUS sr_ndk_conn_close_(NDK_OBJECT_HEADER *o);

#endif /* SR_NDK_CONN_PRIV_H */
