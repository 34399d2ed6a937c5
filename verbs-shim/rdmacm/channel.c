/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * channel.c — event channels: a queue and an eventfd in semaphore mode,
 * one count per queued happening, so the fd is readable (poll, select,
 * epoll) exactly while rdma_get_cm_event has something, and a channel whose
 * fd the consumer made non-blocking returns EAGAIN when empty, as
 * rdma-core's does.
 *
 * A consumer channel destroyed while a thread still waits in
 * rdma_get_cm_event (rping's CM thread when main exits) behaves as the
 * kernel's ucma file does for rdma-core: the waiting thread goes on
 * waiting, and nothing is delivered any more.  So its memory may not go
 * with rdma_destroy_event_channel: the fd stays open until the last
 * thread inside read() leaves, and the structure stays as a tombstone
 * among the last SR_RCM_GRAVES destroyed channels, and for at least
 * SR_RCM_GRAVE_NS, so a thread that re-enters just after the destroy
 * finds it dead rather than freed — even one preempted on its way in
 * while the process destroyed many more channels (cm_chan_life's 200
 * rounds once hung a reader on a freed channel's lock in a full test
 * run when the count alone bounded the graves).
 */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "rdmacm.h"

#define SR_RCM_GRAVES 64
#define SR_RCM_GRAVE_NS 2000000000ull

static uint64_t sr_rcm_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static pthread_mutex_t sr_rcm_ack_lock = PTHREAD_MUTEX_INITIALIZER;

/* Destroyed consumer channels, oldest first. */
static pthread_mutex_t sr_rcm_grave_lock = PTHREAD_MUTEX_INITIALIZER;
static struct sr_rcm_chan *sr_rcm_graves;
static unsigned int sr_rcm_ngraves;

struct sr_rcm_chan *sr_rcm_chan_new(bool internal)
{
	struct sr_rcm_chan *c = calloc(1, sizeof(*c));

	if (c == NULL)
		return NULL;
	c->ch.fd = eventfd(0, EFD_SEMAPHORE | EFD_CLOEXEC);
	if (c->ch.fd < 0) {
		free(c);
		return NULL;
	}
	pthread_mutex_init(&c->lock, NULL);
	c->internal = internal;
	return c;
}

void sr_rcm_chan_free(struct sr_rcm_chan *c)
{
	struct sr_rcm_evt *e, *n;

	if (c == NULL)
		return;
	for (e = c->head; e != NULL; e = n) {
		n = e->next;
		free(e);
	}
	close(c->ch.fd);
	pthread_mutex_destroy(&c->lock);
	free(c);
}

struct rdma_event_channel *rdma_create_event_channel(void)
{
	struct sr_rcm_chan *c = sr_rcm_chan_new(false);

	if (c == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	return &c->ch;
}

/* Frees the oldest tombstones beyond SR_RCM_GRAVES that no thread is
 * reading and that died SR_RCM_GRAVE_NS ago; the caller holds
 * sr_rcm_grave_lock. */
static void sr_rcm_graves_trim(void)
{
	struct sr_rcm_chan **pp = &sr_rcm_graves, *g;
	uint64_t now = sr_rcm_now_ns();
	bool idle;

	while (sr_rcm_ngraves > SR_RCM_GRAVES && *pp != NULL) {
		g = *pp;
		if (now - g->dead_ns < SR_RCM_GRAVE_NS)
			break;             /* oldest first: the rest are younger */
		pthread_mutex_lock(&g->lock);
		idle = g->readers == 0;
		pthread_mutex_unlock(&g->lock);
		if (!idle) {
			pp = &g->grave_next;
			continue;
		}
		*pp = g->grave_next;
		sr_rcm_ngraves--;
		pthread_mutex_destroy(&g->lock);
		free(g);
	}
}

void rdma_destroy_event_channel(struct rdma_event_channel *channel)
{
	struct sr_rcm_chan *c, **pp;
	struct sr_rcm_evt *e, *n;
	int fl;

	if (channel == NULL)
		return;
	c = sr_rcm_chan(channel);
	if (c->internal) {
		sr_rcm_chan_free(c);
		return;
	}
	pthread_mutex_lock(&c->lock);
	if (c->dead) {                 /* twice: a no-op, not a double free */
		pthread_mutex_unlock(&c->lock);
		return;
	}
	c->dead = true;
	for (e = c->head; e != NULL; e = n) {
		n = e->next;
		free(e);
	}
	c->head = c->tail = NULL;
	c->queued = 0;
	fl = fcntl(c->ch.fd, F_GETFL);
	c->dead_nonblock = fl >= 0 && (fl & O_NONBLOCK) != 0;
	if (c->readers == 0) {
		close(c->ch.fd);
		c->ch.fd = -1;
	}
	pthread_mutex_unlock(&c->lock);

	pthread_mutex_lock(&sr_rcm_grave_lock);
	c->dead_ns = sr_rcm_now_ns();
	c->grave_next = NULL;
	for (pp = &sr_rcm_graves; *pp != NULL; pp = &(*pp)->grave_next)
		;
	*pp = c;
	sr_rcm_ngraves++;
	sr_rcm_graves_trim();
	pthread_mutex_unlock(&sr_rcm_grave_lock);
}

struct sr_rcm_evt *sr_rcm_evt_new(struct sr_rcm_id *r)
{
	struct sr_rcm_evt *e = calloc(1, sizeof(*e));

	if (e == NULL)
		return NULL;
	e->id = r;
	e->local = SR_RCM_LOCAL_NONE;
	return e;
}

void sr_rcm_evt_push(struct sr_rcm_chan *c, struct sr_rcm_evt *e)
{
	const uint64_t one = 1;

	pthread_mutex_lock(&c->lock);
	if (c->dead) {                 /* nobody will ever read it */
		pthread_mutex_unlock(&c->lock);
		free(e);
		return;
	}
	e->next = NULL;
	if (c->tail != NULL)
		c->tail->next = e;
	else
		c->head = e;
	c->tail = e;
	c->queued++;
	pthread_mutex_unlock(&c->lock);
	if (write(c->ch.fd, &one, sizeof(one)) != sizeof(one))
		abort();             /* an eventfd below its maximum */
}

int sr_rcm_post_local(struct sr_rcm_id *r, enum rdma_cm_event_type type,
		      int status)
{
	struct sr_rcm_evt *e = sr_rcm_evt_new(r);

	if (e == NULL)
		return -ENOMEM;
	e->local = (int)type;
	e->status = status;
	sr_rcm_evt_push(r->chan, e);
	return 0;
}

/* Happenings of a destroyed id stay queued (their fd counts with them)
 * and are skipped when their turn comes. */
void sr_rcm_chan_purge(struct sr_rcm_chan *c, struct sr_rcm_id *r)
{
	pthread_mutex_lock(&c->lock);
	for (struct sr_rcm_evt *e = c->head; e != NULL; e = e->next)
		if (e->id == r)
			e->id = NULL;
	pthread_mutex_unlock(&c->lock);
}

static struct sr_rcm_evt *sr_rcm_chan_pop(struct sr_rcm_chan *c)
{
	struct sr_rcm_evt *e;

	pthread_mutex_lock(&c->lock);
	e = c->head;
	if (e != NULL) {
		c->head = e->next;
		if (c->head == NULL)
			c->tail = NULL;
		c->queued--;
	}
	pthread_mutex_unlock(&c->lock);
	return e;
}

/* One local event into its rdma_cm_event. */
static bool sr_rcm_local_process(struct sr_rcm_evt *e)
{
	if (e->local == RDMA_CM_EVENT_MULTICAST_JOIN && !sr_rcm_mc_joined(e))
		return false;
	e->ev.event = (enum rdma_cm_event_type)e->local;
	e->ev.status = e->status;
	e->ev.id = &e->id->id;
	return true;
}

/* A destroyed channel never delivers again: a blocking reader waits as
 * it would on rdma-core's, until a signal or the process ends. */
static int sr_rcm_dead_wait(bool nonblock)
{
	if (nonblock) {
		errno = EAGAIN;
		return -1;
	}
	pause();
	errno = EINTR;
	return -1;
}

/* One count from the eventfd; false when the read failed or the channel
 * died meanwhile (*dead then says which).  The last reader out of a dead
 * channel closes its fd. */
static bool sr_rcm_chan_read(struct sr_rcm_chan *c, bool *dead, bool *nb)
{
	uint64_t v;
	ssize_t n;
	int err;

	pthread_mutex_lock(&c->lock);
	if (c->dead) {
		*dead = true;
		*nb = c->dead_nonblock;
		pthread_mutex_unlock(&c->lock);
		return false;
	}
	c->readers++;
	pthread_mutex_unlock(&c->lock);
	n = read(c->ch.fd, &v, sizeof(v));
	err = errno;
	pthread_mutex_lock(&c->lock);
	c->readers--;
	*dead = c->dead;
	*nb = c->dead_nonblock;
	if (c->dead && c->readers == 0 && c->ch.fd >= 0) {
		close(c->ch.fd);
		c->ch.fd = -1;
	}
	pthread_mutex_unlock(&c->lock);
	errno = err;
	return !*dead && n == sizeof(v);
}

int rdma_get_cm_event(struct rdma_event_channel *channel,
		      struct rdma_cm_event **event)
{
	struct sr_rcm_chan *c;
	struct sr_rcm_evt *e;
	bool keep, dead, nb;

	if (channel == NULL || event == NULL) {
		errno = EINVAL;
		return -1;
	}
	c = sr_rcm_chan(channel);
	for (;;) {
		if (!sr_rcm_chan_read(c, &dead, &nb)) {
			if (dead)
				return sr_rcm_dead_wait(nb);
			return -1;   /* errno: EAGAIN (non-blocking), EINTR */
		}
		e = sr_rcm_chan_pop(c);
		if (e == NULL)
			continue;
		if (e->id == NULL) {
			free(e);     /* its id is gone */
			continue;
		}
		keep = e->local != SR_RCM_LOCAL_NONE ? sr_rcm_local_process(e)
						     : sr_rcm_cm_process(e);
		if (!keep) {
			free(e);
			continue;
		}
		pthread_mutex_lock(&sr_rcm_ack_lock);
		sr_rcm_id(e->ev.id)->events_out++;
		pthread_mutex_unlock(&sr_rcm_ack_lock);
		*event = &e->ev;
		return 0;
	}
}

int rdma_ack_cm_event(struct rdma_cm_event *event)
{
	struct sr_rcm_evt *e;
	struct sr_rcm_id *r;

	if (event == NULL) {
		errno = EINVAL;
		return -1;
	}
	e = (struct sr_rcm_evt *)(void *)((char *)event -
					  offsetof(struct sr_rcm_evt, ev));
	r = sr_rcm_id(event->id);
	pthread_mutex_lock(&sr_rcm_ack_lock);
	if (r->events_out > 0)
		r->events_out--;
	pthread_cond_broadcast(&r->acked);
	pthread_mutex_unlock(&sr_rcm_ack_lock);
	free(e);
	return 0;
}

/* rdma_destroy_id: every event of the id handed out has been acked. */
void sr_rcm_wait_acked(struct sr_rcm_id *r)
{
	pthread_mutex_lock(&sr_rcm_ack_lock);
	while (r->events_out > 0)
		pthread_cond_wait(&r->acked, &sr_rcm_ack_lock);
	pthread_mutex_unlock(&sr_rcm_ack_lock);
}

int sr_rcm_sync_wait(struct sr_rcm_id *r, enum rdma_cm_event_type want)
{
	struct rdma_cm_event *ev;

	if (r->sync_event != NULL) {
		rdma_ack_cm_event(r->sync_event);
		r->sync_event = NULL;
	}
	if (rdma_get_cm_event(&r->chan->ch, &ev) != 0)
		return -1;
	r->sync_event = ev;
	r->id.event = ev;
	if (ev->event == want && ev->status == 0)
		return 0;
	switch (ev->event) {
	case RDMA_CM_EVENT_REJECTED:
		errno = ECONNREFUSED;
		break;
	case RDMA_CM_EVENT_UNREACHABLE:
	case RDMA_CM_EVENT_ADDR_ERROR:
	case RDMA_CM_EVENT_ROUTE_ERROR:
		errno = ev->status < 0 ? -ev->status : EHOSTUNREACH;
		break;
	default:
		errno = ev->status < 0 ? -ev->status : EPROTO;
	}
	return -1;
}

const char *rdma_event_str(enum rdma_cm_event_type event)
{
	static const char *const names[] = {
		[RDMA_CM_EVENT_ADDR_RESOLVED] = "RDMA_CM_EVENT_ADDR_RESOLVED",
		[RDMA_CM_EVENT_ADDR_ERROR] = "RDMA_CM_EVENT_ADDR_ERROR",
		[RDMA_CM_EVENT_ROUTE_RESOLVED] = "RDMA_CM_EVENT_ROUTE_RESOLVED",
		[RDMA_CM_EVENT_ROUTE_ERROR] = "RDMA_CM_EVENT_ROUTE_ERROR",
		[RDMA_CM_EVENT_CONNECT_REQUEST] = "RDMA_CM_EVENT_CONNECT_REQUEST",
		[RDMA_CM_EVENT_CONNECT_RESPONSE] = "RDMA_CM_EVENT_CONNECT_RESPONSE",
		[RDMA_CM_EVENT_CONNECT_ERROR] = "RDMA_CM_EVENT_CONNECT_ERROR",
		[RDMA_CM_EVENT_UNREACHABLE] = "RDMA_CM_EVENT_UNREACHABLE",
		[RDMA_CM_EVENT_REJECTED] = "RDMA_CM_EVENT_REJECTED",
		[RDMA_CM_EVENT_ESTABLISHED] = "RDMA_CM_EVENT_ESTABLISHED",
		[RDMA_CM_EVENT_DISCONNECTED] = "RDMA_CM_EVENT_DISCONNECTED",
		[RDMA_CM_EVENT_DEVICE_REMOVAL] = "RDMA_CM_EVENT_DEVICE_REMOVAL",
		[RDMA_CM_EVENT_MULTICAST_JOIN] = "RDMA_CM_EVENT_MULTICAST_JOIN",
		[RDMA_CM_EVENT_MULTICAST_ERROR] = "RDMA_CM_EVENT_MULTICAST_ERROR",
		[RDMA_CM_EVENT_ADDR_CHANGE] = "RDMA_CM_EVENT_ADDR_CHANGE",
		[RDMA_CM_EVENT_TIMEWAIT_EXIT] = "RDMA_CM_EVENT_TIMEWAIT_EXIT",
	};

	if ((unsigned int)event < sizeof(names) / sizeof(names[0]) &&
	    names[event] != NULL)
		return names[event];
	return "UNKNOWN EVENT";
}
