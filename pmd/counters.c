/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * counters.c — counter names and the stats shared-memory file.
 */
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <signal.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/counters.h"
#include "counters.h"
#include "wire/parse.h"

_Static_assert(SR_CNT_MAX <= SR_STATS_XPORT_MAX,
	       "the stats file has room for every transport counter");
_Static_assert(SR_PARSE_MAX <= SR_STATS_PARSE_MAX,
	       "the stats file has room for every parse result");

static const char *const sr_dev_names[SR_CTR_MAX] = {
#define SR_CTR_NAME(e, s) [SR_CTR_##e] = s,
	SR_DEV_COUNTERS(SR_CTR_NAME)
#undef SR_CTR_NAME
};

static const char *const sr_qp_names[SR_QP_CTR_MAX] = {
#define SR_QP_CTR_NAME(e, s) [SR_QP_CTR_##e] = s,
	SR_QP_COUNTERS(SR_QP_CTR_NAME)
#undef SR_QP_CTR_NAME
};

const char *sr_stats_dev_name(unsigned int id)
{
	return id < SR_CTR_MAX ? sr_dev_names[id] : "?";
}

const char *sr_stats_qp_name(unsigned int id)
{
	return id < SR_QP_CTR_MAX ? sr_qp_names[id] : "?";
}

static void sr_stats_header(struct sr_stats_shm *s, int pid, uint16_t port)
{
	memset(s, 0, sizeof(*s));
	s->version = SR_STATS_VERSION;
	s->size = sizeof(*s);
	s->n_dev_counters = SR_CTR_MAX;
	s->n_qp_counters = SR_QP_CTR_MAX;
	s->n_qp_slots = SR_STATS_QP_SLOTS;
	s->n_xport_counters = SR_CNT_MAX;
	s->n_parse_counters = SR_PARSE_MAX;
	s->pid = pid;
	s->port_id = port;
	sr_trace_ring_init(&s->trace.ring);
	/* Magic last: a reader never sees a half-made header as valid. */
	__atomic_store_n(&s->magic, SR_STATS_MAGIC, __ATOMIC_RELEASE);
}

unsigned int sr_stats_prune(const char *dir)
{
	char pattern[PATH_MAX];
	unsigned int n = 0;
	glob_t g;

	if (snprintf(pattern, sizeof(pattern), "%s/sroce-*-*.stats", dir) >=
	    (int)sizeof(pattern) || glob(pattern, 0, NULL, &g) != 0)
		return 0;
	for (size_t i = 0; i < g.gl_pathc; i++) {
		const char *base = strrchr(g.gl_pathv[i], '/');
		long pid = strtol(base ? base + 7 : "", NULL, 10);

		if (pid > 0 && kill((pid_t)pid, 0) != 0 && errno == ESRCH &&
		    unlink(g.gl_pathv[i]) == 0)
			n++;
	}
	globfree(&g);
	return n;
}

struct sr_stats_shm *sr_stats_create(const char *dir, int pid,
				     uint16_t port, char *path)
{
	struct sr_stats_shm *s;
	int fd, err;

	path[0] = '\0';
	if (dir == NULL || dir[0] == '\0') {
		s = mmap(NULL, sizeof(*s), PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (s == MAP_FAILED)
			return NULL;
		sr_stats_header(s, pid, port);
		return s;
	}
	sr_stats_prune(dir);
	if (snprintf(path, PATH_MAX, "%s/sroce-%d-%u.stats", dir, pid,
		     port) >= PATH_MAX) {
		path[0] = '\0';
		errno = ENAMETOOLONG;
		return NULL;
	}
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		goto out_clear;
	if (ftruncate(fd, sizeof(*s)))
		goto out_unlink;
	s = mmap(NULL, sizeof(*s), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (s == MAP_FAILED)
		goto out_unlink;
	close(fd);
	sr_stats_header(s, pid, port);
	return s;
out_unlink:
	err = errno;
	close(fd);
	unlink(path);
	errno = err;
out_clear:
	path[0] = '\0';
	return NULL;
}

void sr_stats_destroy(struct sr_stats_shm *s, const char *path)
{
	if (s == NULL)
		return;
	munmap(s, sizeof(*s));
	if (path && path[0])
		unlink(path);
}

struct sr_stats_shm *sr_stats_open(const char *path, bool writable)
{
	struct sr_stats_shm *s;
	struct stat st;
	int fd;

	fd = open(path, (writable ? O_RDWR : O_RDONLY) | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) || (size_t)st.st_size != sizeof(*s)) {
		close(fd);
		errno = EPROTO;
		return NULL;
	}
	s = mmap(NULL, sizeof(*s), PROT_READ | (writable ? PROT_WRITE : 0),
		 MAP_SHARED, fd, 0);
	close(fd);
	if (s == MAP_FAILED)
		return NULL;
	if (__atomic_load_n(&s->magic, __ATOMIC_ACQUIRE) != SR_STATS_MAGIC ||
	    s->version != SR_STATS_VERSION || s->size != sizeof(*s)) {
		munmap(s, sizeof(*s));
		errno = EPROTO;
		return NULL;
	}
	return s;
}

void sr_stats_close(struct sr_stats_shm *s)
{
	if (s)
		munmap(s, sizeof(*s));
}

struct sr_stats_qp *sr_stats_qp_get(struct sr_stats_shm *s, uint32_t qpn)
{
	for (uint32_t i = 0; i < SR_STATS_QP_SLOTS; i++) {
		struct sr_stats_qp *q = &s->qp[i];

		if (q->in_use)
			continue;
		memset(q->c, 0, sizeof(q->c));
		memset(q->xport, 0, sizeof(q->xport));
		q->qpn = qpn;
		__atomic_store_n(&q->in_use, 1, __ATOMIC_RELEASE);
		return q;
	}
	return NULL;
}

void sr_stats_qp_put(struct sr_stats_qp *q)
{
	if (q)
		__atomic_store_n(&q->in_use, 0, __ATOMIC_RELEASE);
}

uint32_t sr_stats_qp_in_use(const struct sr_stats_shm *s)
{
	uint32_t n = 0;

	for (uint32_t i = 0; i < SR_STATS_QP_SLOTS; i++)
		n += s->qp[i].in_use != 0;
	return n;
}

void sr_stats_fault_publish(struct sr_stats_shm *s,
			    const struct sr_fault_set *set)
{
	struct sr_stats_fault_ctl *c = &s->fault;
	uint32_t gen = __atomic_load_n(&c->gen, __ATOMIC_RELAXED);

	/* Odd while writing. */
	__atomic_store_n(&c->gen, gen | 1, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	memcpy(&c->set, set, sizeof(*set));
	__atomic_store_n(&c->gen, (gen | 1) + 1, __ATOMIC_RELEASE);
}

bool sr_stats_fault_poll(struct sr_stats_shm *s, struct sr_fault_set *set)
{
	struct sr_stats_fault_ctl *c = &s->fault;
	uint32_t gen = __atomic_load_n(&c->gen, __ATOMIC_ACQUIRE);

	if (gen == c->applied_gen || (gen & 1))
		return false;
	memcpy(set, &c->set, sizeof(*set));
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	if (__atomic_load_n(&c->gen, __ATOMIC_RELAXED) != gen)
		return false;                /* torn: retry next poll */
	if (set->n > SR_FAULT_RULES_MAX)
		set->n = SR_FAULT_RULES_MAX;
	__atomic_store_n(&c->applied_gen, gen, __ATOMIC_RELEASE);
	return true;
}

int sr_stats_trace_request(struct sr_stats_shm *s, uint32_t qpn, bool on,
			   unsigned int wait_ms)
{
	const struct timespec nap = { .tv_nsec = 1000 * 1000 };
	struct sr_stats_trace_ctl *c = &s->trace;
	uint32_t gen = __atomic_load_n(&c->gen, __ATOMIC_RELAXED);

	__atomic_store_n(&c->gen, gen | 1, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	__atomic_store_n(&c->qpn, qpn, __ATOMIC_RELAXED);
	__atomic_store_n(&c->on, on ? 1u : 0u, __ATOMIC_RELAXED);
	gen = (gen | 1) + 1;
	__atomic_store_n(&c->gen, gen, __ATOMIC_RELEASE);
	for (unsigned int i = 0; i < wait_ms; i++) {
		if (__atomic_load_n(&c->applied_gen, __ATOMIC_ACQUIRE) == gen)
			return __atomic_load_n(&c->result, __ATOMIC_RELAXED);
		nanosleep(&nap, NULL);
	}
	return -ETIMEDOUT;
}

bool sr_stats_trace_poll(struct sr_stats_shm *s, uint32_t *gen_out,
			 uint32_t *qpn, bool *on)
{
	struct sr_stats_trace_ctl *c = &s->trace;
	uint32_t gen = __atomic_load_n(&c->gen, __ATOMIC_ACQUIRE);

	if (gen == __atomic_load_n(&c->applied_gen, __ATOMIC_RELAXED) ||
	    (gen & 1))
		return false;
	*qpn = __atomic_load_n(&c->qpn, __ATOMIC_RELAXED);
	*on = __atomic_load_n(&c->on, __ATOMIC_RELAXED) != 0;
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	*gen_out = gen;
	return __atomic_load_n(&c->gen, __ATOMIC_RELAXED) == gen;
}

void sr_stats_trace_done(struct sr_stats_shm *s, uint32_t gen, int result)
{
	struct sr_stats_trace_ctl *c = &s->trace;

	__atomic_store_n(&c->result, result, __ATOMIC_RELAXED);
	__atomic_store_n(&c->applied_gen, gen, __ATOMIC_RELEASE);
}
