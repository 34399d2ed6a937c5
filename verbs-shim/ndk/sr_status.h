/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * sr_status.h — the one error table of the NDK, OFW and ND2 shims.
 *
 * lib/ and the shims' internals speak -errno; at the API boundary each
 * errno class becomes the NTSTATUS of the NDK/OFW calls or the ND_*
 * HRESULT of the ND2 calls, through SR_ERRNO_STATUS_LIST and nothing else.
 * The first eight rows are lib/mr/mr.h's table; the rest are the shims'
 * own classes.
 *
 * Completions: SR_WC_NTSTATUS_LIST turns a transport completion status
 * (lib/qp/wr.h) into NDK_RESULT.Status / ND2_RESULT.Status.
 */
#ifndef SR_STATUS_H
#define SR_STATUS_H

#include <errno.h>

#include "ndstatus.h"
#include "qp/wr.h"
#include "sr_wintypes.h"

/* X(errno, NTSTATUS, ND2 HRESULT, meaning) */
#define SR_ERRNO_STATUS_LIST(X)                                                      \
	X(0,            STATUS_SUCCESS,                ND_SUCCESS,                   \
	  "success")                                                                 \
	X(EINVAL,       STATUS_INVALID_PARAMETER,      ND_INVALID_PARAMETER,         \
	  "invalid parameter, over a device limit")                                  \
	X(E2BIG,        STATUS_IMPLEMENTATION_LIMIT,   ND_INVALID_PARAMETER,         \
	  "implementation limit (FRMR pages over FRMRPageCount)")                    \
	X(EACCES,       STATUS_ACCESS_VIOLATION,       ND_ACCESS_VIOLATION,          \
	  "rights or PD do not allow it")                                            \
	X(EFAULT,       STATUS_ACCESS_VIOLATION,       ND_ACCESS_VIOLATION,          \
	  "bad buffer")                                                              \
	X(EBUSY,        STATUS_DEVICE_BUSY,            ND_DEVICE_BUSY,               \
	  "windows bound, object in use, already registered")                        \
	X(ENOMEM,       STATUS_INSUFFICIENT_RESOURCES, ND_INSUFFICIENT_RESOURCES,    \
	  "table or queue full, no memory")                                          \
	X(EPERM,        STATUS_INVALID_DEVICE_STATE,   ND_INVALID_DEVICE_STATE,      \
	  "not allowed in this object's kind or state")                              \
	X(ENOTCONN,     STATUS_CONNECTION_INVALID,     ND_CONNECTION_INVALID,        \
	  "the queue pair is not connected")                                         \
	X(ENODEV,       STATUS_DEVICE_REMOVED,         ND_DEVICE_REMOVED,            \
	  "the device is gone")                                                      \
	X(EINPROGRESS,  STATUS_PENDING,                ND_PENDING,                   \
	  "completes later")                                                         \
	X(ENOTSUP,      STATUS_NOT_SUPPORTED,          ND_NOT_SUPPORTED,             \
	  "not supported (see AdapterFlags)")                                        \
	X(EOVERFLOW,    STATUS_BUFFER_TOO_SMALL,       ND_BUFFER_OVERFLOW,           \
	  "output buffer too small")                                                 \
	X(EMSGSIZE,     STATUS_INVALID_BUFFER_SIZE,    ND_INVALID_BUFFER_SIZE,       \
	  "buffer size not valid (zero-byte registration, private data too long)")   \
	X(ECONNREFUSED, STATUS_CONNECTION_REFUSED,     ND_CONNECTION_REFUSED,        \
	  "the peer rejected or nobody listens")                                     \
	X(EISCONN,      STATUS_CONNECTION_ACTIVE,      ND_CONNECTION_ACTIVE,         \
	  "already connected or connecting")                                         \
	X(EADDRINUSE,   STATUS_ADDRESS_ALREADY_EXISTS, ND_ADDRESS_ALREADY_EXISTS,    \
	  "address in use")                                                          \
	X(EADDRNOTAVAIL, STATUS_INVALID_ADDRESS,       ND_INVALID_ADDRESS,           \
	  "not an address of this adapter")                                          \
	X(EHOSTUNREACH, STATUS_HOST_UNREACHABLE,       ND_HOST_UNREACHABLE,          \
	  "the peer did not answer ARP/ND")                                          \
	X(ENETUNREACH,  STATUS_NETWORK_UNREACHABLE,    ND_NETWORK_UNREACHABLE,       \
	  "no route to the peer's network")                                          \
	X(ECONNABORTED, STATUS_CONNECTION_ABORTED,     ND_CONNECTION_ABORTED,        \
	  "the connection was torn down")                                            \
	X(ETIMEDOUT,    STATUS_IO_TIMEOUT,             ND_IO_TIMEOUT,                \
	  "timed out")                                                               \
	X(ECANCELED,    STATUS_CANCELLED,              ND_CANCELED,                  \
	  "cancelled")                                                               \
	X(EBADF,        STATUS_INVALID_HANDLE,         ND_INVALID_HANDLE,            \
	  "not an object of this kind")

/* errno (either sign) -> NTSTATUS; unknown -> STATUS_UNSUCCESSFUL. */
NTSTATUS sr_ntstatus_from_errno(int err);
/* errno (either sign) -> ND_* HRESULT; unknown -> ND_UNSUCCESSFUL. */
HRESULT sr_hresult_from_errno(int err);
/* NTSTATUS -> ND_* HRESULT through the same rows (ND2 over NDK). */
HRESULT sr_hresult_from_ntstatus(NTSTATUS s);
/* Completion status -> NTSTATUS (NDK_RESULT.Status, ND2_RESULT.Status). */
NTSTATUS sr_ntstatus_from_wc(enum sr_wc_status s);

#endif /* SR_STATUS_H */
