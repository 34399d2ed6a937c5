/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * provider.c — ndsupport.h: the process's one provider (sroce).  The
 * provider keeps a weak pointer to the open adapter, so every
 * NdOpenAdapter of the process shares it (one reference each); when none
 * is open it opens one through the provider's open function
 * (sr_nd2_set_provider) and, for NdQueryAddressList, keeps it until
 * NdCleanup or the next NdOpenAdapter takes it over.
 */
#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>

#include "nd2_priv.h"
#include "ndsupport.h"

static struct {
	pthread_mutex_t lock;
	sr_nd2_open_fn open;
	struct sr_nd2_adapter *live;   /* weak: the open adapter */
	IND2Adapter *held;             /* a reference the provider holds */
	unsigned int started;
} sr_nd2_prov = { .lock = PTHREAD_MUTEX_INITIALIZER };

VOID sr_nd2_set_provider(sr_nd2_open_fn Open)
{
	pthread_mutex_lock(&sr_nd2_prov.lock);
	sr_nd2_prov.open = Open;
	pthread_mutex_unlock(&sr_nd2_prov.lock);
}

static void sr_nd2_prov_forget(struct sr_nd2_adapter *a)
{
	pthread_mutex_lock(&sr_nd2_prov.lock);
	if (sr_nd2_prov.live == a)
		sr_nd2_prov.live = NULL;
	pthread_mutex_unlock(&sr_nd2_prov.lock);
}

/*
 * The live adapter with a new reference, opening one if none is (lock
 * held).  The provider keeps a reference of its own on an adapter it
 * opened until NdOpenAdapter hands it over or NdCleanup drops it, so
 * queries do not open and close the device each time.
 */
static HRESULT sr_nd2_prov_get(struct sr_nd2_adapter **out)
{
	IND2Adapter *p;
	HRESULT hr;

	if (sr_nd2_prov.live && atomic_load(&sr_nd2_prov.live->refs) > 0) {
		sr_nd2_adapter_get(sr_nd2_prov.live);
		*out = sr_nd2_prov.live;
		return ND_SUCCESS;
	}
	if (sr_nd2_prov.open == NULL)
		return sr_hresult_from_errno(ENODEV);
	hr = sr_nd2_prov.open(&p);
	if (FAILED(hr))
		return hr;
	*out = (struct sr_nd2_adapter *)p;
	(*out)->on_destroy = sr_nd2_prov_forget;
	sr_nd2_prov.live = *out;
	sr_nd2_prov.held = p;
	sr_nd2_adapter_get(*out);
	return ND_SUCCESS;
}

/* sr_nd2_prov_get() under the lock. */
static HRESULT sr_nd2_prov_ref(struct sr_nd2_adapter **out)
{
	HRESULT hr;

	pthread_mutex_lock(&sr_nd2_prov.lock);
	hr = sr_nd2_prov_get(out);
	pthread_mutex_unlock(&sr_nd2_prov.lock);
	return hr;
}

static bool sr_nd2_addr_match(const struct sockaddr_storage *ss, const struct sockaddr *sa)
{
	if (ss->ss_family != sa->sa_family)
		return false;
	if (sa->sa_family == AF_INET)
		return ((const struct sockaddr_in *)ss)->sin_addr.s_addr ==
		       ((const struct sockaddr_in *)sa)->sin_addr.s_addr;
	return memcmp(&((const struct sockaddr_in6 *)ss)->sin6_addr,
		      &((const struct sockaddr_in6 *)sa)->sin6_addr, 16) == 0;
}

/* The index of sa among a's addresses, or -1. */
static int sr_nd2_addr_find(struct sr_nd2_adapter *a, const struct sockaddr *sa, SIZE_T len)
{
	const struct sr_ndk_backend *be = sr_ndk_adapter_backend(a->ndk);

	if (sa == NULL || len < sizeof(struct sockaddr_in) ||
	    (sa->sa_family == AF_INET6 && len < sizeof(struct sockaddr_in6)))
		return -1;
	for (unsigned int i = 0; i < be->naddr; i++)
		if (sr_nd2_addr_match(&be->addr[i], sa))
			return (int)i;
	return -1;
}

HRESULT NdStartup(VOID)
{
	pthread_mutex_lock(&sr_nd2_prov.lock);
	sr_nd2_prov.started++;
	pthread_mutex_unlock(&sr_nd2_prov.lock);
	return ND_SUCCESS;
}

HRESULT NdCleanup(VOID)
{
	IND2Adapter *held;

	pthread_mutex_lock(&sr_nd2_prov.lock);
	if (sr_nd2_prov.started)
		sr_nd2_prov.started--;
	held = sr_nd2_prov.started ? NULL : sr_nd2_prov.held;
	if (held)
		sr_nd2_prov.held = NULL;
	pthread_mutex_unlock(&sr_nd2_prov.lock);
	if (held)
		held->lpVtbl->Release(held);
	return ND_SUCCESS;
}

VOID NdFlushProviders(VOID)
{
}

HRESULT NdQueryAddressList(DWORD flags, SOCKET_ADDRESS_LIST *pAddressList,
			   SIZE_T *pcbAddressList)
{
	struct sr_nd2_adapter *a;
	ULONG len;
	HRESULT hr;

	if (pcbAddressList == NULL)
		return sr_hresult_from_errno(EINVAL);
	if (flags & ND_QUERY_EXCLUDE_NDv2_ADDRESSES) {   /* sroce is v2 only */
		if (pAddressList == NULL || *pcbAddressList < sizeof(SOCKET_ADDRESS_LIST)) {
			*pcbAddressList = sizeof(SOCKET_ADDRESS_LIST);
			return sr_hresult_from_errno(EOVERFLOW);
		}
		pAddressList->iAddressCount = 0;
		*pcbAddressList = sizeof(SOCKET_ADDRESS_LIST);
		return ND_SUCCESS;
	}
	hr = sr_nd2_prov_ref(&a);
	if (FAILED(hr))
		return hr;
	len = *pcbAddressList > UINT32_MAX ? UINT32_MAX : (ULONG)*pcbAddressList;
	hr = a->iface.lpVtbl->QueryAddressList(&a->iface, pAddressList, &len);
	*pcbAddressList = len;
	sr_nd2_adapter_put(a);
	return hr;
}

HRESULT NdCheckAddress(const struct sockaddr *pAddress, SIZE_T cbAddress)
{
	struct sr_nd2_adapter *a;
	HRESULT hr;

	hr = sr_nd2_prov_ref(&a);
	if (FAILED(hr))
		return hr;
	hr = sr_nd2_addr_find(a, pAddress, cbAddress) < 0 ? sr_hresult_from_errno(EADDRNOTAVAIL)
							   : ND_SUCCESS;
	sr_nd2_adapter_put(a);
	return hr;
}

HRESULT NdResolveAddress(const struct sockaddr *pRemoteAddress, SIZE_T cbRemoteAddress,
			 struct sockaddr *pLocalAddress, SIZE_T *pcbLocalAddress)
{
	const struct sr_ndk_backend *be;
	struct sr_nd2_adapter *a;
	HRESULT hr;

	if (pRemoteAddress == NULL || pcbLocalAddress == NULL ||
	    cbRemoteAddress < sizeof(struct sockaddr_in))
		return sr_hresult_from_errno(EINVAL);
	hr = sr_nd2_prov_ref(&a);
	if (FAILED(hr))
		return hr;
	be = sr_ndk_adapter_backend(a->ndk);
	hr = sr_hresult_from_errno(EHOSTUNREACH);
	for (unsigned int i = 0; i < be->naddr; i++) {
		SIZE_T need = be->addr[i].ss_family == AF_INET6 ? sizeof(struct sockaddr_in6)
							       : sizeof(struct sockaddr_in);

		if (be->addr[i].ss_family != pRemoteAddress->sa_family)
			continue;
		if (pLocalAddress == NULL || *pcbLocalAddress < need) {
			hr = sr_hresult_from_errno(EOVERFLOW);
		} else {
			memcpy(pLocalAddress, &be->addr[i], need);
			hr = ND_SUCCESS;
		}
		*pcbLocalAddress = need;
		break;
	}
	sr_nd2_adapter_put(a);
	return hr;
}

HRESULT NdOpenAdapter(REFIID iid, const struct sockaddr *pAddress, SIZE_T cbAddress,
		      VOID **ppIAdapter)
{
	struct sr_nd2_adapter *a;
	IND2Adapter *held = NULL;
	HRESULT hr;

	if (ppIAdapter == NULL || iid == NULL)
		return sr_hresult_from_errno(EINVAL);
	*ppIAdapter = NULL;
	if (!IsEqualIID(iid, &IID_IND2Adapter) && !IsEqualIID(iid, &IID_IUnknown))
		return E_NOINTERFACE;
	pthread_mutex_lock(&sr_nd2_prov.lock);
	hr = sr_nd2_prov_get(&a);
	if (SUCCEEDED(hr) && sr_nd2_addr_find(a, pAddress, cbAddress) < 0) {
		hr = sr_hresult_from_errno(EADDRNOTAVAIL);
		sr_nd2_adapter_put(a);   /* the provider still holds one */
	} else if (SUCCEEDED(hr)) {
		held = sr_nd2_prov.held;   /* the caller's reference keeps it now */
		sr_nd2_prov.held = NULL;
		*ppIAdapter = &a->iface;
	}
	pthread_mutex_unlock(&sr_nd2_prov.lock);
	if (held)
		held->lpVtbl->Release(held);
	return hr;
}
