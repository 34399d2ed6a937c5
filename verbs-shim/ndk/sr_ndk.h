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
 * default link) and a port.  The connection data (QP number, first PSN,
 * GID, read limits, private data) travels over sroce's side channel: a
 * Unix stream socket <SROCE_RUN_DIR>/ndk-<address>-<port>.sock that the
 * listener creates, both processes being on one machine as the memif
 * link requires.  The QP is then taken to RTS by the device (pmd/node.h).
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

/* What a connected QP learns of its peer. */
struct sr_ndk_peer {
	uint32_t qpn;
	uint32_t psn;
	uint8_t gid[16];
};

struct sr_ndk_backend_ops {
	/* One round of progress (inline engines); returns work done. */
	int (*progress)(void *ctx);
	/* Take qp (RESET or INIT) to RTS towards peer; 0 or -errno. */
	int (*qp_connect)(void *ctx, struct sr_qp *qp, uint32_t sq_psn,
			  const struct sr_ndk_peer *peer);
	/* Our GID for a peer address (IPv4-mapped for IPv4); 0 or -errno. */
	int (*gid)(void *ctx, const struct sockaddr *peer, uint8_t gid[16]);
	/* Release the device (after every object); 0 or -EBUSY. */
	int (*close)(void *ctx);
};

struct sr_ndk_backend {
	const struct sr_ndk_backend_ops *ops;
	void *ctx;
	struct sr_mr_dev *mr;
	struct sr_dev *dev;
	const char *run_dir;        /* side-channel sockets; NULL: SROCE_RUN_DIR or /run/sroce */
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
