/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ndsupport.h — the NetworkDirect helper entry points an application calls
 * to find and open an adapter, as documented for the NetworkDirect SPI:
 * NdStartup / NdCleanup, NdQueryAddressList, NdResolveAddress,
 * NdCheckAddress and NdOpenAdapter (an IND2Adapter by one of the
 * adapter's local IP addresses).  On sroce the one provider is sroce
 * itself: the addresses are those of the device the environment configures
 * (pmd/CONFIG.md; 10.0.0.1 for SROCE_NODE=0 and 10.0.0.2 for node 1 on
 * the default link), and an open adapter is shared by every NdOpenAdapter
 * of the process (each call adds a reference).  Version 1 adapters
 * (NdOpenV1Adapter) are not provided.
 */
#ifndef SR_NDSUPPORT_H
#define SR_NDSUPPORT_H

#include "ndspi.h"

#ifdef __cplusplus
extern "C" {
#endif

/* NdQueryAddressList flags */
#define ND_QUERY_EXCLUDE_EMULATOR_ADDRESSES 0x00000001
#define ND_QUERY_EXCLUDE_NDv1_ADDRESSES     0x00000002
#define ND_QUERY_EXCLUDE_NDv2_ADDRESSES     0x00000004

/* Initialise / release the helper (counted: one NdCleanup per NdStartup). */
HRESULT NdStartup(VOID);
HRESULT NdCleanup(VOID);

/* Forget cached provider state (nothing is cached beyond open adapters). */
VOID NdFlushProviders(VOID);

/*
 * The local addresses of every adapter: ND_SUCCESS, or ND_BUFFER_OVERFLOW
 * with *pcbAddressList set to the size needed (pAddressList may be NULL
 * when *pcbAddressList is 0).  ND_DEVICE_REMOVED: no device could be
 * opened.  ND_QUERY_EXCLUDE_NDv2_ADDRESSES leaves the list empty.
 */
HRESULT NdQueryAddressList(DWORD flags, SOCKET_ADDRESS_LIST *pAddressList,
			   SIZE_T *pcbAddressList);

/* The local address to reach a remote one from (the adapter's of its family). */
HRESULT NdResolveAddress(const struct sockaddr *pRemoteAddress, SIZE_T cbRemoteAddress,
			 struct sockaddr *pLocalAddress, SIZE_T *pcbLocalAddress);

/* ND_SUCCESS if the address is an adapter's, else ND_INVALID_ADDRESS. */
HRESULT NdCheckAddress(const struct sockaddr *pAddress, SIZE_T cbAddress);

/*
 * Open the adapter that owns a local address (the port is ignored) and
 * return its iid interface (IID_IND2Adapter).  ND_SUCCESS, ND_INVALID_ADDRESS
 * (no adapter has it), E_NOINTERFACE, ND_NO_MEMORY, ND_DEVICE_REMOVED (the
 * device could not be opened).
 */
HRESULT NdOpenAdapter(REFIID iid, const struct sockaddr *pAddress, SIZE_T cbAddress,
		      VOID **ppIAdapter);

#ifdef __cplusplus
}
#endif

#endif /* SR_NDSUPPORT_H */
