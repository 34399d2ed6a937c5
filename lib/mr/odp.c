/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * odp.c — on-demand paging: regions whose memory sroce reaches only
 * through the kernel, so that memory the process never mapped, or
 * unmapped after registering it, gives an error completion or a NAK and
 * never a SIGSEGV of the thread that runs the transport.
 *
 * sroce never pins memory: a normal region is read and written with
 * memcpy at its host address, which is safe because the application keeps
 * a registered range mapped (the IBTA's rule; ibverbs pins it on an RNIC).
 * An on-demand region makes no such promise, so each copy goes through
 * process_vm_readv / process_vm_writev on the own process.  The kernel
 * walks the page tables, faults pages in (anonymous memory never touched
 * gets its pages then: the "on demand"), honours the protections (a
 * read-only page refuses a write) and answers EFAULT for what is not
 * mapped, which becomes SR_MR_E_FAULT.  One system call per copy, that is
 * per packet payload or per SGE of it: docs/compat.md#on-demand-paging-odp
 * has the measured cost.  Regions without ON_DEMAND never come here.
 *
 * Atomics need the word itself: its page is faulted in writable with
 * madvise(MADV_POPULATE_WRITE), which fails for an unmapped or read-only
 * page, then the atomic runs in place.  A thread of the application that
 * unmaps the page in the instant between the two still faults: that
 * application unmaps memory under its own in-flight atomic (an RNIC would
 * write into whatever page the address names then).  process_vm_* and
 * the populate call leave errno as they found it.
 *
 * Prefetch (ibv_advise_mr): MADV_POPULATE_READ / _WRITE over the range's
 * pages.  NO_FAULT has nothing to do: sroce has no device page table in
 * which present pages would need to become visible.
 */
#include <errno.h>
#include <pthread.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <unistd.h>

#include "mr/mr_priv.h"

#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22
#endif
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

static pthread_once_t sr_odp_once = PTHREAD_ONCE_INIT;
static bool sr_odp_ok;
static _Atomic pid_t sr_odp_pid;
static uint64_t sr_odp_page = 4096;   /* the kernel's page size */
static uint64_t sr_odp_probe_word;

/* After fork the child is another process: copies name its pid. */
static void sr_odp_atfork_child(void)
{
	atomic_store_explicit(&sr_odp_pid, getpid(), memory_order_relaxed);
}

static void sr_odp_probe(void)
{
	uint64_t v = 0;
	struct iovec l = { .iov_base = &v, .iov_len = sizeof(v) };
	struct iovec r = { .iov_base = &sr_odp_probe_word, .iov_len = sizeof(v) };
	long ps = sysconf(_SC_PAGESIZE);
	int saved = errno;
	pid_t pid = getpid();

	if (ps > 0)
		sr_odp_page = (uint64_t)ps;
	atomic_store_explicit(&sr_odp_pid, pid, memory_order_relaxed);
	pthread_atfork(NULL, NULL, sr_odp_atfork_child);
	sr_odp_ok = process_vm_readv(pid, &l, 1, &r, 1, 0) == (ssize_t)sizeof(v) &&
		    process_vm_writev(pid, &l, 1, &r, 1, 0) == (ssize_t)sizeof(v) &&
		    madvise((void *)((uintptr_t)&sr_odp_probe_word & ~(uintptr_t)(sr_odp_page - 1)),
			    sr_odp_page, MADV_POPULATE_WRITE) == 0;
	errno = saved;
}

bool sr_mr_odp_supported(void)
{
	pthread_once(&sr_odp_once, sr_odp_probe);
	return sr_odp_ok;
}

enum sr_mr_err sr_odp_copy_(uint64_t host, uint8_t *buf, uint64_t len, bool to_mr)
{
	pid_t pid = atomic_load_explicit(&sr_odp_pid, memory_order_relaxed);
	enum sr_mr_err err = SR_MR_OK;
	int saved = errno;

	/* A short count means the next page failed; asking again says why
	 * (or goes on, where the kernel only split a long copy). */
	while (len > 0) {
		struct iovec l = { .iov_base = buf, .iov_len = len };
		struct iovec r = { .iov_base = (void *)(uintptr_t)host, .iov_len = len };
		ssize_t n = to_mr ? process_vm_writev(pid, &l, 1, &r, 1, 0)
				  : process_vm_readv(pid, &l, 1, &r, 1, 0);

		if (n <= 0) {
			if (n < 0 && errno == EINTR)
				continue;
			err = SR_MR_E_FAULT;
			break;
		}
		buf += n;
		host += (uint64_t)n;
		len -= (uint64_t)n;
	}
	errno = saved;
	return err;
}

/* Fault [host, host + len) in (writable: write); false if it cannot be. */
static bool sr_odp_populate(uint64_t host, uint64_t len, bool write)
{
	uint64_t first = host & ~(sr_odp_page - 1);
	uint64_t end = host + len;
	int saved = errno, rc;

	if (end < host || end > UINT64_MAX - sr_odp_page)
		return false;
	end = (end + sr_odp_page - 1) & ~(sr_odp_page - 1);
	do {
		rc = madvise((void *)(uintptr_t)first, end - first,
			     write ? MADV_POPULATE_WRITE : MADV_POPULATE_READ);
	} while (rc != 0 && errno == EINTR);
	errno = saved;
	return rc == 0;
}

enum sr_mr_err sr_mr_ref_word_odp_(const struct sr_mr_ref *ref, uint64_t va, uint64_t **word)
{
	if (ref->slot == NULL || va < ref->va || va - ref->va > ref->len ||
	    ref->len - (va - ref->va) < 8)
		return SR_MR_E_BOUNDS;

	uint64_t host = ref->host + ref->off + (va - ref->va);

	if (!sr_odp_populate(host, 8, true))
		return SR_MR_E_FAULT;
	*word = (uint64_t *)(uintptr_t)host;
	return SR_MR_OK;
}

/* ---- ibv_advise_mr ---- */

/* A validated snapshot of the on-demand region an lkey names. */
struct sr_odp_region {
	uint64_t iova, length, host;
	uint32_t access;
};

static int sr_odp_region(const struct sr_pd *pd, uint32_t lkey, struct sr_odp_region *out)
{
	const struct sr_mr_dev *d = pd->dev;
	uint32_t idx = lkey >> 8;

	if (idx == 0 || idx >= d->nslots)
		return -EINVAL;

	struct sr_mr_slot *s = &d->slots[idx];

	for (unsigned tries = 0; tries < SR_LOOKUP_RETRIES; tries++) {
		uint64_t w = atomic_load_explicit(&s->word, memory_order_acquire);

		if (SR_WORD_KEY(w) != lkey || SR_WORD_KIND(w) != SR_KIND_MR_ODP)
			return -EINVAL;
		if (SR_WORD_STATE(w) != SR_SLOT_VALID)
			continue;  /* being re-registered: look again */

		const struct sr_pd *spd = SR_LD(s->pd);

		out->iova = SR_LD(s->iova);
		out->length = SR_LD(s->length);
		out->host = SR_LD(s->host);
		out->access = SR_LD(s->access);
		atomic_thread_fence(memory_order_acquire);
		if (atomic_load_explicit(&s->word, memory_order_relaxed) != w)
			continue;
		return spd == pd ? 0 : -EINVAL;
	}
	return -EINVAL;
}

/* Checks of one range; *host gets its first byte's address. */
static int sr_odp_advise_check(const struct sr_pd *pd, unsigned advice,
			       const struct sr_mr_advise_sge *sg, uint64_t *host)
{
	struct sr_odp_region r;
	uint64_t off;
	int rc = sr_odp_region(pd, sg->lkey, &r);

	if (rc != 0)
		return rc;
	if (advice == SR_ADVISE_PREFETCH_WRITE && !(r.access & SR_ACCESS_LOCAL_WRITE))
		return -EPERM;
	off = sg->addr - r.iova;
	if (sg->addr < r.iova || off > r.length || sg->length > r.length - off)
		return -EFAULT;
	*host = r.host + off;
	return 0;
}

int sr_mr_advise(struct sr_pd *pd, unsigned advice, uint32_t flags,
		 const struct sr_mr_advise_sge *sg, uint32_t n)
{
	bool flush = (flags & SR_ADVISE_FLAG_FLUSH) != 0;
	uint64_t host;
	int rc;

	if (advice > SR_ADVISE_PREFETCH_NO_FAULT)
		return -EOPNOTSUPP;
	if ((flags & ~SR_ADVISE_FLAG_FLUSH) != 0 || pd == NULL || sg == NULL || n == 0)
		return -EINVAL;
	for (uint32_t i = 0; i < n; i++) {
		rc = sr_odp_advise_check(pd, advice, &sg[i], &host);
		if (rc != 0)
			return rc;
	}
	if (advice == SR_ADVISE_PREFETCH_NO_FAULT)
		return 0;
	for (uint32_t i = 0; i < n; i++) {
		if (sg[i].length == 0)
			continue;
		/* checked above; a concurrent re-registration is the caller's */
		if (sr_odp_advise_check(pd, advice, &sg[i], &host) != 0)
			return -EINVAL;
		if (!sr_odp_populate(host, sg[i].length, advice == SR_ADVISE_PREFETCH_WRITE) &&
		    flush)
			return -EFAULT;
	}
	return 0;
}
