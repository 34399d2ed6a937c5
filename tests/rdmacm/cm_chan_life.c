/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * cm_chan_life — an event channel destroyed while another thread is in
 * rdma_get_cm_event, as rping does at exit (its CM thread still waits
 * when main destroys the channel).  rdma-core's reader goes on waiting
 * on the kernel's file; the drop-in's must too, and must not touch freed
 * memory (meson runs tests with MALLOC_PERTURB_, so freed memory is
 * garbage):
 *   - a reader blocked in rdma_get_cm_event stays blocked after the
 *     destroy, even when a count the destroy purged wakes its read()
 *     (rping: the DISCONNECTED of an id destroyed meanwhile); a signal
 *     then makes it return -1/EINTR, and the eventfd is closed once it
 *     has left;
 *   - a thread that calls rdma_get_cm_event on the channel just after the
 *     destroy gets -1/EAGAIN on a non-blocking channel;
 *   - destroying the channel twice is harmless;
 *   - 200 rounds of rping's pattern (a reader thread looping on
 *     get/ack, main destroying the channel under it), then, once the
 *     tombstones have aged (2 s), 100 more channels destroyed so they
 *     are recycled.
 * Needs no device and no peer.  Prints "ok: <what>"; exits 1 at the first
 * failure.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <rdma/rdma_cma.h>

#define CHECK(cond, what)                                                \
	do {                                                             \
		if (!(cond)) {                                           \
			fprintf(stderr, "FAIL %s: %s (%s)\n", __func__,  \
				what, strerror(errno));                  \
			exit(1);                                         \
		}                                                        \
	} while (0)

struct reader {
	struct rdma_event_channel *ch;
	pthread_t th;
	atomic_int inside;             /* 1 while in rdma_get_cm_event */
	atomic_int done;
	int rc, err;
	bool loop;                     /* rping: get, ack, get again */
};

static void on_usr1(int sig)
{
	(void)sig;
}

static void *reader_main(void *arg)
{
	struct reader *r = arg;
	struct rdma_cm_event *ev;

	do {
		atomic_store(&r->inside, 1);
		r->rc = rdma_get_cm_event(r->ch, &ev);
		r->err = errno;
		atomic_store(&r->inside, 0);
		if (r->rc == 0)
			rdma_ack_cm_event(ev);
	} while (r->loop && r->rc == 0);
	atomic_store(&r->done, 1);
	return NULL;
}

static void nap(long us)
{
	struct timespec ts = { us / 1000000, (us % 1000000) * 1000 };

	nanosleep(&ts, NULL);
}

/* Signals the reader until it has returned (a signal sent before it
 * reached its wait would be lost otherwise). */
static void stop_reader(struct reader *r)
{
	for (int i = 0; i < 5000 && !atomic_load(&r->done); i++) {
		pthread_kill(r->th, SIGUSR1);
		nap(1000);
	}
	CHECK(atomic_load(&r->done), "reader left on a signal");
	pthread_join(r->th, NULL);
}

static void blocked_reader(void)
{
	struct reader r = { 0 };
	const uint64_t one = 1;
	int fd, wake;

	r.ch = rdma_create_event_channel();
	CHECK(r.ch != NULL, "create_event_channel");
	fd = r.ch->fd;
	CHECK(pthread_create(&r.th, NULL, reader_main, &r) == 0, "thread");
	while (!atomic_load(&r.inside))
		nap(100);
	nap(20000);                    /* into read() */
	wake = dup(fd);                /* the file the reader waits on */
	CHECK(wake >= 0, "dup");
	rdma_destroy_event_channel(r.ch);
	nap(50000);
	CHECK(!atomic_load(&r.done), "reader still waits after the destroy");
	CHECK(write(wake, &one, sizeof(one)) == sizeof(one), "wake");
	nap(50000);
	CHECK(!atomic_load(&r.done), "a stale count does not end the wait");
	close(wake);
	stop_reader(&r);
	CHECK(r.rc == -1 && r.err == EINTR, "a signal ends the wait: EINTR");
	errno = 0;
	CHECK(fcntl(fd, F_GETFD) == -1 && errno == EBADF,
	      "the eventfd is closed once the reader has left");
	printf("ok: blocked reader outlives the destroy\n");
}

static void late_reader(void)
{
	struct rdma_event_channel *ch = rdma_create_event_channel();
	struct rdma_cm_event *ev;
	int fl;

	CHECK(ch != NULL, "create_event_channel");
	fl = fcntl(ch->fd, F_GETFL);
	CHECK(fcntl(ch->fd, F_SETFL, fl | O_NONBLOCK) == 0, "O_NONBLOCK");
	rdma_destroy_event_channel(ch);
	errno = 0;
	CHECK(rdma_get_cm_event(ch, &ev) == -1 && errno == EAGAIN,
	      "get_cm_event after the destroy: EAGAIN");
	rdma_destroy_event_channel(ch);    /* twice */
	printf("ok: late reader and a second destroy\n");
}

/* rping's exit: the CM thread loops on get/ack while main destroys its
 * id and then the channel.  With no id the channel carries no events;
 * what is exercised is the reader in or around read() while the channel
 * dies, in every interleaving 200 rounds give. */
static void rping_pattern(void)
{
	struct reader r[200];
	struct rdma_cm_id *id;
	int i;

	for (i = 0; i < 200; i++) {
		memset(&r[i], 0, sizeof(r[i]));
		r[i].loop = true;
		r[i].ch = rdma_create_event_channel();
		CHECK(r[i].ch != NULL, "create_event_channel");
		CHECK(rdma_create_id(r[i].ch, &id, NULL, RDMA_PS_TCP) == 0,
		      "create_id");
		CHECK(pthread_create(&r[i].th, NULL, reader_main, &r[i]) == 0,
		      "thread");
		while (!atomic_load(&r[i].inside))
			nap(10);
		if (i % 2)
			nap(i % 7 * 100);
		CHECK(rdma_destroy_id(id) == 0, "destroy_id");
		rdma_destroy_event_channel(r[i].ch);
	}
	for (i = 0; i < 200; i++)
		stop_reader(&r[i]);
	/* tombstones stay 2 s at the least (channel.c): let them age */
	nap(2100000);
	for (i = 0; i < 100; i++)
		rdma_destroy_event_channel(rdma_create_event_channel());
	printf("ok: 200 rounds of rping's exit\n");
}

int main(void)
{
	struct sigaction sa = { .sa_handler = on_usr1 };

	setvbuf(stdout, NULL, _IONBF, 0);
	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR1, &sa, NULL);     /* no SA_RESTART: read gives EINTR */
	blocked_reader();
	late_reader();
	rping_pattern();
	return 0;
}
