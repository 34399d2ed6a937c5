/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * backend_pmd.c — sr_nd2_open_adapter(): an IND2Adapter on the NDK adapter
 * of the pmd node the environment configures (sr_ndk_open_adapter), and
 * that as the provider behind NdOpenAdapter / NdQueryAddressList.
 */
#include "nd2_priv.h"

HRESULT sr_nd2_open_adapter(PCSTR DeviceName, REFIID iid, VOID **ppAdapter)
{
	NDK_ADAPTER *ndk;
	NTSTATUS st;
	HRESULT hr;

	if (ppAdapter == NULL || iid == NULL)
		return sr_hresult_from_errno(EINVAL);
	*ppAdapter = NULL;
	if (!IsEqualIID(iid, &IID_IND2Adapter) && !IsEqualIID(iid, &IID_IUnknown))
		return E_NOINTERFACE;
	st = sr_ndk_open_adapter(DeviceName, &ndk);
	if (st == STATUS_INVALID_PARAMETER || st == STATUS_INSUFFICIENT_RESOURCES)
		return sr_hresult_from_ntstatus(st);
	if (!NT_SUCCESS(st))
		return sr_hresult_from_errno(ENODEV);
	hr = sr_nd2_adapter_wrap(ndk, iid, ppAdapter, NULL);
	if (FAILED(hr))
		sr_ndk_close_adapter(ndk);
	return hr;
}

static HRESULT sr_nd2_pmd_provider_open(IND2Adapter **pp)
{
	return sr_nd2_open_adapter("sroce0", &IID_IND2Adapter, (VOID **)pp);
}

__attribute__((constructor)) static void sr_nd2_pmd_provider(void)
{
	sr_nd2_set_provider(sr_nd2_pmd_provider_open);
}
