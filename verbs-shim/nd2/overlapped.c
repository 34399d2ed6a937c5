/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * overlapped.c — IND2Overlapped semantics on Linux.  A request's status
 * lives in OVERLAPPED.Internal (ND_PENDING while outstanding); while it is
 * outstanding InternalHigh points to the overlapped file of the object
 * that started it, whose adapter's condition variable wakes waiters and
 * whose eventfd (if any) counts the completion.  The completing thread
 * clears InternalHigh before it publishes the status, so the caller may
 * reuse the OVERLAPPED as soon as it sees the status.
 */
#include <sched.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "nd2_priv.h"

static ULONG_PTR sr_nd2_ov_load(OVERLAPPED *ov)
{
	return __atomic_load_n(&ov->Internal, __ATOMIC_ACQUIRE);
}

void sr_nd2_ov_start(struct sr_nd2_file *f, OVERLAPPED *ov)
{
	ov->InternalHigh = (ULONG_PTR)f;
	__atomic_store_n(&ov->Internal, (ULONG_PTR)(ULONG)ND_PENDING, __ATOMIC_RELEASE);
}

void sr_nd2_ov_complete(OVERLAPPED *ov, HRESULT hr)
{
	struct sr_nd2_file *f = (struct sr_nd2_file *)ov->InternalHigh;
	struct sr_nd2_adapter *a = f->a;
	uint64_t one = 1;

	pthread_mutex_lock(&a->ov_lock);
	ov->InternalHigh = 0;
	__atomic_store_n(&ov->Internal, (ULONG_PTR)(ULONG)hr, __ATOMIC_RELEASE);
	pthread_cond_broadcast(&a->ov_cond);
	if (f->fd >= 0 && write(f->fd, &one, sizeof(one)) < 0) {
		/* the counter is saturated: the file is readable anyway */
	}
	pthread_mutex_unlock(&a->ov_lock);
}

HRESULT sr_nd2_ov_done_now(OVERLAPPED *ov, HRESULT hr)
{
	if (ov) {
		ov->InternalHigh = 0;
		__atomic_store_n(&ov->Internal, (ULONG_PTR)(ULONG)hr, __ATOMIC_RELEASE);
	}
	return hr;
}

/*
 * The device progresses while a request is outstanding, as hardware would:
 * a poll runs one round of the backend's progress (inline engines), a wait
 * keeps the adapter thread progressing until the request completes.
 */
HRESULT sr_nd2_ov_result(struct sr_nd2_adapter *a, OVERLAPPED *ov, BOOL wait)
{
	struct sr_ndk_adapter *ka = sr_ndk_adapter_of(a->ndk);
	ULONG_PTR v;

	if (ov == NULL)
		return sr_hresult_from_errno(EINVAL);
	v = sr_nd2_ov_load(ov);
	if ((HRESULT)(ULONG)v != ND_PENDING)
		return (HRESULT)(ULONG)v;
	if (!wait) {
		if (pthread_mutex_trylock(&ka->progress_lock) == 0) {
			sr_ndk_progress_(ka);
			pthread_mutex_unlock(&ka->progress_lock);
		}
		return (HRESULT)(ULONG)sr_nd2_ov_load(ov);
	}
	atomic_fetch_add(&ka->busy, 1);
	sr_ndk_worker_kick(ka);
	pthread_mutex_lock(&a->ov_lock);
	while ((HRESULT)(ULONG)(v = sr_nd2_ov_load(ov)) == ND_PENDING)
		pthread_cond_wait(&a->ov_cond, &a->ov_lock);
	pthread_mutex_unlock(&a->ov_lock);
	atomic_fetch_sub(&ka->busy, 1);
	return (HRESULT)(ULONG)v;
}

VOID sr_nd2_ov_ndk_done(PVOID ctx, NTSTATUS st)
{
	sr_nd2_ov_complete(ctx, sr_hresult_from_ntstatus(st));
}

int sr_nd2_file_open(struct sr_nd2_file *f)
{
	f->fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	return f->fd < 0 ? -errno : 0;
}

void sr_nd2_file_close(struct sr_nd2_file *f)
{
	if (f->fd >= 0)
		close(f->fd);
	f->fd = -1;
}

/*
 * GetNotifyAffinity of CQs and SRQs: notifications run on the adapter
 * thread, which may run on any CPU of the process.
 */
HRESULT sr_nd2_notify_affinity(USHORT *pGroup, KAFFINITY *pAffinity)
{
	cpu_set_t set;
	KAFFINITY mask = 0;

	if (pGroup == NULL || pAffinity == NULL)
		return sr_hresult_from_errno(EINVAL);
	if (sched_getaffinity(0, sizeof(set), &set) == 0)
		for (unsigned int i = 0; i < 8 * sizeof(KAFFINITY); i++)
			if (CPU_ISSET(i, &set))
				mask |= (KAFFINITY)1 << i;
	*pGroup = 0;
	*pAffinity = mask;
	return ND_SUCCESS;
}
