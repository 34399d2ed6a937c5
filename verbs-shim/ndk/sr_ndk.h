/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * sr_ndk.h — what sroce adds to NDKPI: how an adapter is opened and
 * closed, what its logical addresses are, how connections are set up, and
 * the knobs that make requests complete asynchronously.
 *
 * Opening.  sr_ndk_open_adapter("sroce0", &adapter) opens the device the
 * environment configures (pmd/CONFIG.md: SROCE_CONFIG, SROCE_NODE,
 * SROCE_RUN_DIR; by default one end of the memif link) and returns an
 * NDK_ADAPTER whose Dispatch is the NDK_ADAPTER_DISPATCH table.  It is
 * the one entry point (Windows' NDIS OpenNdkAdapter handler has no Linux
 * counterpart); sr_ndk_close_adapter() is its CloseNdkAdapter.
 *
 * Adapter logical addresses (NDK_LOGICAL_ADDRESS, NDK_SGE.LogicalAddress,
 * AdapterPageArray, MDL page frames) are process virtual addresses, as
 * DPDK's IOVA-as-VA: the logical address of a byte is its pointer.  A page
 * array entry is a page-aligned pointer; NdkBuildLAM returns the pages of
 * an MDL.  Memory is never pinned: it must stay allocated while the
 * adapter may touch it.
 *
 * Threads and callbacks.  Every adapter has one thread of its own, the
 * adapter thread.  It runs asynchronous creations, registrations and
 * closes, CQ and SRQ notification callbacks, connection events and their
 * completions, and drives the device's progress while a CQ is armed or a
 * connection is being set up.  Callbacks therefore never run inside the
 * caller's call, as in the kernel, and may call any NDK function.
 *
 * Connections.  NdkConnect / NdkListen take the peer's and our IPv4 or
 * IPv6 socket address (the device's addresses, 10.0.0.1 / 10.0.0.2 on the
 * default link) and a port.  They run over the device's communication
 * manager on QP1 as Linux's rdma_cm does (docs/rdma-cm.md): a listener's
 * port is the RDMA_PS_TCP service ID 0x0000000001060000 | port, the REQ
 * carries rdma_cm's 36-byte addressing header before the caller's private
 * data, so an NDK or ND2 program and a Linux rdma_cm program (rping,
 * rdma_client, ...) connect to each other.  Private data: 56 bytes in a
 * REQ (MaxCallerData), 196 in a REP (MaxCalleeData), 148 in a REJ; the
 * receiver sees the whole field (the CM does not carry a length), zero
 * padded, as with rdma_cm.  The QP goes to RTS with ib_cm's attributes.
 *
 * Tokens.  Local tokens are the engine's keys (host order); remote tokens
 * (NdkGetRemoteTokenFromMr/Mw, and the RemoteToken arguments of NdkRead,
 * NdkWrite and NdkSendAndInvalidate) are in network byte order, as ND2
 * requires, so a token goes on the wire to a peer unchanged.
 */
#ifndef SR_NDK_H
#define SR_NDK_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

#include "ndkpi.h"

struct sr_mr_dev;
struct sr_dev;
struct sr_qp;

/* Open / close an adapter by device name ("sroce0"; NULL is "sroce0"). */
NTSTATUS sr_ndk_open_adapter(PCSTR DeviceName, NDK_ADAPTER **ppNdkAdapter);

/*
 * Close: STATUS_SUCCESS, or STATUS_DEVICE_BUSY (closing nothing) while
 * objects of the adapter remain open.
 */
NTSTATUS sr_ndk_close_adapter(NDK_ADAPTER *pNdkAdapter);

/*
 * Asynchronous completion.  A registration (NdkRegisterMr, and the OFW
 * calls) of threshold bytes or more returns STATUS_PENDING and completes
 * on the adapter thread through its completion callback; with all, every
 * call that has a completion callback (creations, registrations, FRMR
 * initialisation, deregistration, closes, CQ resize, SRQ modify) does.
 * Default: threshold from SROCE_NDK_ASYNC_BYTES, else 1 GiB; all off.
 */
VOID sr_ndk_set_async(NDK_ADAPTER *pNdkAdapter, SIZE_T Threshold, BOOLEAN All);

/* Objects of the adapter alive (PDs, CQs, MRs, MWs, QPs, SRQs, connectors, listeners). */
ULONG sr_ndk_object_count(NDK_ADAPTER *pNdkAdapter);

/* ---------------------------------------------------------------------
 * Backends: what an adapter is made on (the pmd node for
 * sr_ndk_open_adapter; tests bring their own link).
 * ------------------------------------------------------------------ */

struct sr_cm;
struct sr_cm_id;
struct sr_cm_event;
struct sr_cma_route;
struct sr_cma_qp_attr;

/* The CM's event callback: runs with the CM locked, records only. */
typedef void sr_ndk_cm_event_fn(void *arg, struct sr_cm_id *id,
				const struct sr_cm_event *ev);

/*
 * The device's communication manager (QP1, lib/cm): connections are IB CM
 * exchanges with rdma_cm's addressing (RDMA_PS_TCP service IDs, its
 * private-data header), so the peer may be any rdma_cm program.
 */
struct sr_ndk_cm_ops {
	/* Deliver the CM's events to fn; 0 or -EBUSY (another consumer). */
	int (*attach)(void *ctx, sr_ndk_cm_event_fn *fn, void *arg);
	/* The CM for sr_cm_* calls, locked; and its release. */
	struct sr_cm *(*lock)(void *ctx);
	void (*unlock)(void *ctx);
	/* The CM's clock, ns. */
	uint64_t (*now)(void *ctx);
	/* Put the MADs sent so far on the wire (not with the CM locked). */
	void (*flush)(void *ctx);
	/*
	 * The route to a peer's GID: our GID for it (sgid), the peer's MAC
	 * (ARP/ND, waiting for the link), the path MTU; ip_version, ports
	 * and the rest are the caller's.  0, -ENOENT (no address of that
	 * family), -EHOSTUNREACH, -ETIMEDOUT.
	 */
	int (*route)(void *ctx, const uint8_t dgid[16], struct sr_cma_route *r);
	/* Take qp to RTS with the CM's attributes along route r. */
	int (*qp_connect)(void *ctx, struct sr_qp *qp, const struct sr_cma_qp_attr *a,
			  const struct sr_cma_route *r);
};

struct sr_ndk_backend_ops {
	/* One round of progress (inline engines); returns work done. */
	int (*progress)(void *ctx);
	/* Release the device (after every object); 0 or -EBUSY. */
	int (*close)(void *ctx);
	/* The device's CM; NULL: connections fail with STATUS_NOT_SUPPORTED. */
	const struct sr_ndk_cm_ops *cm;
};

struct sr_ndk_backend {
	const struct sr_ndk_backend_ops *ops;
	void *ctx;
	struct sr_mr_dev *mr;
	struct sr_dev *dev;
	struct sockaddr_storage addr[4];  /* the adapter's addresses */
	unsigned int naddr;
};

/* Make an adapter on a backend (copied).  NTSTATUS of the table. */
NTSTATUS sr_ndk_adapter_create(const struct sr_ndk_backend *be, NDK_ADAPTER **ppNdkAdapter);

/* The adapter's backend (its addresses, engine objects). */
const struct sr_ndk_backend *sr_ndk_adapter_backend(NDK_ADAPTER *pNdkAdapter);

/* Run one round of the backend's progress now (inline engines). */
VOID sr_ndk_progress(NDK_ADAPTER *pNdkAdapter);

#endif /* SR_NDK_H */
