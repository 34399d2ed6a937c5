/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * reader.c — how a lookup holds a region without an atomic
 * read-modify-write: per-thread hazard slots with an asymmetric barrier.
 *
 * Each thread that looks up gets a reader record (registered on its first
 * lookup, released at thread exit) with SR_READER_HAZARDS hazard slots.  A
 * lookup publishes the slot it is about to use in one of them with a
 * plain store and re-reads the slot's word; put clears it.  A writer that
 * must wait for the data path (dereg, rereg, FRMR re-init) first changes
 * the word, then runs membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED), which
 * puts a full barrier into every running thread of the process, then
 * scans the records.  Either a reader's re-read saw the new word (and it
 * backs off), or its hazard store was visible to the scan (and the writer
 * waits): the store/load pair of the reader and of the writer is ordered
 * by the barrier, so the reader needs none (the Dekker pattern of
 * liburcu's membarrier flavour).  Where membarrier is missing, readers
 * issue the full fence themselves.  A thread out of hazard slots falls
 * back to the slot's atomic reference count.
 *
 * The process registers for the expedited barrier when the library is
 * loaded, not at the first lookup: in a process that already runs several
 * threads, registering waits for an RCU grace period, and on a loaded
 * machine that took seconds — inside a round of the engine, holding it,
 * while the peer's requests timed out (sroced_two_hosts on 2 CPUs).  At
 * load time the process has usually one thread, and registering costs a
 * system call.
 */
#include <errno.h>
#include <linux/membarrier.h>
#include <sched.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "mr/mr_priv.h"

_Thread_local struct sr_mr_reader *sr_mr_reader_tls_ SR_TLS_MODEL;
bool sr_mr_reader_fence_;

static pthread_mutex_t sr_readers_lock = PTHREAD_MUTEX_INITIALIZER;
static struct sr_mr_reader *sr_readers;          /* all records, under the lock */
static pthread_once_t sr_readers_once = PTHREAD_ONCE_INIT;
static pthread_key_t sr_readers_key;
static bool sr_membarrier_ok;
static bool sr_membarrier_registered;   /* at load (sr_readers_register) */
static bool sr_membarrier_refused;   /* tests: exercise the fence mode */
static bool sr_readers_inited;       /* under the lock */

static void sr_reader_exit(void *arg)
{
	struct sr_mr_reader *r = arg, **pp;

	pthread_mutex_lock(&sr_readers_lock);
	for (pp = &sr_readers; *pp != NULL; pp = &(*pp)->link) {
		if (*pp == r) {
			*pp = r->link;
			break;
		}
	}
	pthread_mutex_unlock(&sr_readers_lock);
	sr_mr_reader_tls_ = NULL;
	free(r);
}

__attribute__((constructor))
static void sr_readers_register(void)
{
	long cmds = syscall(__NR_membarrier, MEMBARRIER_CMD_QUERY, 0, 0);

	sr_membarrier_registered = cmds > 0 &&
		(cmds & MEMBARRIER_CMD_PRIVATE_EXPEDITED) &&
		syscall(__NR_membarrier,
			MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0, 0) == 0;
}

static void sr_readers_init(void)
{
	bool refused;

	pthread_mutex_lock(&sr_readers_lock);
	refused = sr_membarrier_refused;
	sr_readers_inited = true;
	pthread_mutex_unlock(&sr_readers_lock);
	sr_membarrier_ok = !refused && sr_membarrier_registered;
	/* Without it, every reader fences (set before any record exists). */
	sr_mr_reader_fence_ = !sr_membarrier_ok;
	if (pthread_key_create(&sr_readers_key, sr_reader_exit) != 0)
		sr_readers_key = 0;
}

int sr_mr_readers_use_fences_(void)
{
	int rc = -EBUSY;

	pthread_mutex_lock(&sr_readers_lock);
	if (!sr_readers_inited) {
		sr_membarrier_refused = true;
		rc = 0;
	}
	pthread_mutex_unlock(&sr_readers_lock);
	return rc;
}

struct sr_mr_reader *sr_mr_reader_attach_(void)
{
	struct sr_mr_reader *r;

	pthread_once(&sr_readers_once, sr_readers_init);
	r = calloc(1, sizeof(*r));
	if (r == NULL)
		return NULL;
	pthread_mutex_lock(&sr_readers_lock);
	r->link = sr_readers;
	sr_readers = r;
	pthread_mutex_unlock(&sr_readers_lock);
	pthread_setspecific(sr_readers_key, r);
	sr_mr_reader_tls_ = r;
	return r;
}

_Atomic(struct sr_mr_slot *) *sr_mr_hazard_slow_(struct sr_mr_reader *r)
{
	for (unsigned k = 1; k < SR_READER_HAZARDS; k++) {
		unsigned i = (r->next + k) & (SR_READER_HAZARDS - 1);

		if (atomic_load_explicit(&r->haz[i], memory_order_relaxed) == NULL) {
			r->next = (i + 1) & (SR_READER_HAZARDS - 1);
			return &r->haz[i];
		}
	}
	return NULL;
}

/*
 * Make every reader's hazard stores visible to the caller.  Needless when
 * the caller is the only reader: a reader that registers later takes the
 * list lock after our word change, so it sees the change.
 */
void sr_mr_readers_sync_(void)
{
	bool alone;

	pthread_mutex_lock(&sr_readers_lock);
	alone = sr_readers == NULL ||
		(sr_readers == sr_mr_reader_tls_ && sr_readers->link == NULL);
	pthread_mutex_unlock(&sr_readers_lock);
	if (!alone && sr_membarrier_ok)
		syscall(__NR_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0);
	atomic_thread_fence(memory_order_seq_cst);
}

unsigned sr_mr_hazards_on_(const struct sr_mr_slot *first, const struct sr_mr_slot *end)
{
	unsigned n = 0;

	pthread_mutex_lock(&sr_readers_lock);
	for (const struct sr_mr_reader *r = sr_readers; r != NULL; r = r->link) {
		for (unsigned i = 0; i < SR_READER_HAZARDS; i++) {
			const struct sr_mr_slot *h =
				atomic_load_explicit(&r->haz[i], memory_order_seq_cst);

			n += h != NULL && h >= first && h < end;
		}
	}
	pthread_mutex_unlock(&sr_readers_lock);
	return n;
}
