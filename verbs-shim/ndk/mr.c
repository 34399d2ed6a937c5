/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mr.c — NDK_MR and NDK_MW: NdkRegisterMr (an MDL chain), NdkDeregisterMr,
 * NdkInitializeFastRegisterMr, the token getters, window tokens.  Every
 * check is lib/mr's; this file translates flags, MDLs and errors.
 */
#include <endian.h>
#include <stdlib.h>

#include "ndk_priv.h"

/* X(NDK_MR_FLAG_*, SR_ACCESS_*): one row per documented flag bit. */
#define SR_NDK_MR_FLAG_LIST(X)                                           \
	X(NDK_MR_FLAG_ALLOW_LOCAL_WRITE, SR_ACCESS_LOCAL_WRITE)          \
	X(NDK_MR_FLAG_ALLOW_REMOTE_READ, SR_ACCESS_REMOTE_READ)          \
	X(NDK_MR_FLAG_ALLOW_REMOTE_WRITE, SR_ACCESS_REMOTE_WRITE | SR_ACCESS_LOCAL_WRITE) \
	X(NDK_MR_FLAG_RDMA_READ_SINK, SR_ACCESS_READ_SINK)

#define SR_X(f, acc) | (f)
enum { SR_NDK_MR_FLAGS_ALL = 0 SR_NDK_MR_FLAG_LIST(SR_X) };
#undef SR_X

/* UINT32_MAX: unknown flag bits. */
uint32_t sr_ndk_access_from_mr_flags(ULONG flags)
{
	uint32_t acc = SR_ACCESS_MW_BIND;   /* NDK binds windows to any MR */

	if (flags & ~(ULONG)SR_NDK_MR_FLAGS_ALL)
		return UINT32_MAX;
#define SR_X(f, a) if ((flags & (f)) == (f)) acc |= (a);
	SR_NDK_MR_FLAG_LIST(SR_X)
#undef SR_X
	return acc;
}

static struct sr_ndk_mr *sr_ndk_mr_of(NDK_MR *p)
{
	return (struct sr_ndk_mr *)p;
}

struct sr_ndk_mr *sr_ndk_mr_create_(struct sr_ndk_pd *pd, bool fast, NTSTATUS *st)
{
	struct sr_ndk_mr *m = calloc(1, sizeof(*m));

	if (m == NULL) {
		*st = sr_ntstatus_from_errno(ENOMEM);
		return NULL;
	}
	m->mr = sr_mr_create(pd->pd, fast);
	if (m->mr == NULL) {
		*st = sr_ntstatus_from_errno(errno);
		free(m);
		return NULL;
	}
	sr_ndk_header_init(&m->iface.Header, NdkObjectTypeMr);
	m->iface.Dispatch = &sr_ndk_mr_dispatch;
	m->pd = pd;
	m->fast_register = fast;
	atomic_fetch_add(&pd->a->objects, 1);
	return m;
}

static NTSTATUS sr_ndk_mr_close_(NDK_OBJECT_HEADER *o)
{
	struct sr_ndk_mr *m = (struct sr_ndk_mr *)o;
	struct sr_ndk_adapter *a = m->pd->a;
	int rc = sr_mr_destroy(m->mr);

	if (rc)
		return sr_ntstatus_from_errno(rc);
	free(m);
	atomic_fetch_sub(&a->objects, 1);
	return STATUS_SUCCESS;
}

static NTSTATUS sr_ndk_close_mr(NDK_OBJECT_HEADER *o, NDK_FN_CLOSE_COMPLETION cb, PVOID ctx)
{
	struct sr_ndk_mr *m = (struct sr_ndk_mr *)o;

	if (o == NULL)
		return sr_ntstatus_from_errno(EINVAL);
	return sr_ndk_close(m->pd->a, sr_ndk_mr_close_, o, cb, ctx);
}

struct sr_ndk_reg_args {
	struct sr_ndk_mr *m;
	MDL *mdl;
	SIZE_T length;
	ULONG flags;
};

static NTSTATUS sr_ndk_register_(const void *p)
{
	const struct sr_ndk_reg_args *r = p;
	struct sr_mdl_pages mp;
	struct sr_page_list pl;
	uint32_t access = sr_ndk_access_from_mr_flags(r->flags);
	int rc;

	if (access == UINT32_MAX || r->length == 0)
		return sr_ntstatus_from_errno(EINVAL);
	rc = sr_mdl_flatten(r->mdl, &mp);
	if (rc)
		return sr_ntstatus_from_errno(rc);
	if (r->length > mp.bytes) {
		sr_mdl_pages_free(&mp);
		return sr_ntstatus_from_errno(EINVAL);
	}
	pl = (struct sr_page_list){
		.pages = mp.pages,
		.npages = ADDRESS_AND_SIZE_TO_SPAN_PAGES(mp.fbo, r->length),
		.fbo = mp.fbo,
		.length = r->length,
	};
	rc = sr_mr_register_pages(r->m->mr, &pl, mp.va, access);
	sr_mdl_pages_free(&mp);
	return sr_ntstatus_from_errno(rc);
}

static NTSTATUS sr_ndk_register_mr(NDK_MR *p, MDL *Mdl, SIZE_T Length, ULONG Flags,
				   NDK_FN_REQUEST_COMPLETION cb, PVOID ctx)
{
	struct sr_ndk_mr *m = sr_ndk_mr_of(p);
	struct sr_ndk_adapter *a;
	struct sr_ndk_reg_args r = { .m = m, .mdl = Mdl, .length = Length, .flags = Flags };

	if (m == NULL || Mdl == NULL)
		return sr_ntstatus_from_errno(EINVAL);
	if (m->fast_register)
		return sr_ntstatus_from_errno(EPERM);
	a = m->pd->a;
	return sr_ndk_request(a, a->async_all || Length >= a->async_threshold,
			      sr_ndk_register_, &r, sizeof(r), cb, ctx);
}

static NTSTATUS sr_ndk_deregister_(const void *p)
{
	struct sr_ndk_mr *m = *(struct sr_ndk_mr *const *)p;

	return sr_ntstatus_from_errno(sr_mr_deregister(m->mr));
}

static NTSTATUS sr_ndk_deregister_mr(NDK_MR *p, NDK_FN_REQUEST_COMPLETION cb, PVOID ctx)
{
	struct sr_ndk_mr *m = sr_ndk_mr_of(p);

	if (m == NULL)
		return sr_ntstatus_from_errno(EINVAL);
	return sr_ndk_request(m->pd->a, m->pd->a->async_all, sr_ndk_deregister_, &m,
			      sizeof(m), cb, ctx);
}

struct sr_ndk_frmr_args {
	struct sr_ndk_mr *m;
	ULONG count;
	BOOLEAN remote;
};

static NTSTATUS sr_ndk_frmr_init_(const void *p)
{
	const struct sr_ndk_frmr_args *f = p;
	int rc = sr_frmr_init(f->m->mr, f->count, f->remote != 0);

	if (rc == 0) {
		f->m->frmr_ready = true;
		f->m->remote_access = f->remote != 0;
		f->m->token = sr_mr_lkey(f->m->mr);
		f->m->token_remote = false;
	}
	return sr_ntstatus_from_errno(rc);
}

static NTSTATUS sr_ndk_initialize_fast_register_mr(NDK_MR *p, ULONG AdapterPageCount,
						   BOOLEAN RemoteAccess,
						   NDK_FN_REQUEST_COMPLETION cb, PVOID ctx)
{
	struct sr_ndk_mr *m = sr_ndk_mr_of(p);
	struct sr_ndk_frmr_args f = { .m = m, .count = AdapterPageCount,
				      .remote = RemoteAccess };

	if (m == NULL)
		return sr_ntstatus_from_errno(EINVAL);
	return sr_ndk_request(m->pd->a, m->pd->a->async_all, sr_ndk_frmr_init_, &f,
			      sizeof(f), cb, ctx);
}

static UINT32 sr_ndk_get_remote_token_from_mr(NDK_MR *p)
{
	struct sr_ndk_mr *m = sr_ndk_mr_of(p);

	if (m->fast_register)
		return m->remote_access ? htobe32(m->token) : 0;
	return sr_mr_rkey_be(m->mr);
}

static UINT32 sr_ndk_get_local_token_from_mr(NDK_MR *p)
{
	struct sr_ndk_mr *m = sr_ndk_mr_of(p);

	return m->fast_register ? m->token : sr_mr_lkey(m->mr);
}

static NTSTATUS sr_ndk_mr_query_extension(NDK_OBJECT_HEADER *o, GUID *id, NDK_VERSION v,
					  NDK_EXTENSION_INTERFACE *e)
{
	return sr_ndk_query_extension(o, id, v, e);
}

const NDK_MR_DISPATCH sr_ndk_mr_dispatch = {
	.NdkCloseMr = sr_ndk_close_mr,
	.NdkQueryExtension = sr_ndk_mr_query_extension,
	.NdkRegisterMr = sr_ndk_register_mr,
	.NdkDeregisterMr = sr_ndk_deregister_mr,
	.NdkInitializeFastRegisterMr = sr_ndk_initialize_fast_register_mr,
	.NdkGetRemoteTokenFromMr = sr_ndk_get_remote_token_from_mr,
	.NdkGetLocalTokenFromMr = sr_ndk_get_local_token_from_mr,
};

/* ------------------------------------------------------------- windows */

struct sr_ndk_mw *sr_ndk_mw_create_(struct sr_ndk_pd *pd, NTSTATUS *st)
{
	struct sr_ndk_mw *w = calloc(1, sizeof(*w));

	if (w == NULL) {
		*st = sr_ntstatus_from_errno(ENOMEM);
		return NULL;
	}
	w->mw = sr_mw_alloc(pd->pd, SR_MW_TYPE_2);
	if (w->mw == NULL) {
		*st = sr_ntstatus_from_errno(errno);
		free(w);
		return NULL;
	}
	sr_ndk_header_init(&w->iface.Header, NdkObjectTypeMw);
	w->iface.Dispatch = &sr_ndk_mw_dispatch;
	w->pd = pd;
	w->token = sr_mw_rkey(w->mw);
	atomic_fetch_add(&pd->a->objects, 1);
	return w;
}

static NTSTATUS sr_ndk_mw_close_(NDK_OBJECT_HEADER *o)
{
	struct sr_ndk_mw *w = (struct sr_ndk_mw *)o;
	struct sr_ndk_adapter *a = w->pd->a;

	sr_mw_dealloc(w->mw);
	free(w);
	atomic_fetch_sub(&a->objects, 1);
	return STATUS_SUCCESS;
}

static NTSTATUS sr_ndk_close_mw(NDK_OBJECT_HEADER *o, NDK_FN_CLOSE_COMPLETION cb, PVOID ctx)
{
	struct sr_ndk_mw *w = (struct sr_ndk_mw *)o;

	if (o == NULL)
		return sr_ntstatus_from_errno(EINVAL);
	return sr_ndk_close(w->pd->a, sr_ndk_mw_close_, o, cb, ctx);
}

static UINT32 sr_ndk_get_remote_token_from_mw(NDK_MW *p)
{
	return htobe32(((struct sr_ndk_mw *)p)->token);
}

static NTSTATUS sr_ndk_mw_query_extension(NDK_OBJECT_HEADER *o, GUID *id, NDK_VERSION v,
					  NDK_EXTENSION_INTERFACE *e)
{
	return sr_ndk_query_extension(o, id, v, e);
}

const NDK_MW_DISPATCH sr_ndk_mw_dispatch = {
	.NdkCloseMw = sr_ndk_close_mw,
	.NdkQueryExtension = sr_ndk_mw_query_extension,
	.NdkGetRemoteTokenFromMw = sr_ndk_get_remote_token_from_mw,
};
