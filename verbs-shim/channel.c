/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * channel.c — completion channels: an eventfd per channel (the pollable
 * ibv_comp_channel.fd) and a FIFO of the CQs whose notification fired.
 *
 * ibv_req_notify_cq arms the transport CQ (sr_cq_req_notify) and counts a
 * waiter for the helper thread (progress.c); when the armed CQ gets a
 * completion (or only a solicited one) the transport calls
 * sr_ibv_cq_notify on the engine thread, which queues the CQ on its
 * channel and signals the eventfd; ibv_get_cq_event reads one event (and
 * passes over one whose completions were already polled).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "qp/cq.h"
#include "shim.h"

static struct sr_ibv_channel *sr_ch_of(struct ibv_comp_channel *ch)
{
	return sr_container_of(ch, struct sr_ibv_channel, ch);
}

struct ibv_comp_channel *ibv_create_comp_channel(struct ibv_context *context)
{
	struct sr_ibv_channel *c;

	if (context == NULL) {
		errno = EINVAL;
		return NULL;
	}
	c = calloc(1, sizeof(*c));
	if (c == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	c->ch.fd = eventfd(0, EFD_CLOEXEC | EFD_SEMAPHORE);
	if (c->ch.fd < 0) {
		free(c);
		return NULL;
	}
	c->ch.context = context;
	pthread_mutex_init(&c->lock, NULL);
	return &c->ch;
}

int ibv_destroy_comp_channel(struct ibv_comp_channel *channel)
{
	struct sr_ibv_channel *c;

	if (channel == NULL)
		return EINVAL;
	c = sr_ch_of(channel);
	if (channel->refcnt)
		return EBUSY;
	close(channel->fd);
	pthread_mutex_destroy(&c->lock);
	free(c);
	return 0;
}

/* Engine thread: the armed CQ got its completion. */
void sr_ibv_cq_notify(struct sr_cq *cq, void *arg)
{
	struct sr_ibv_cq *w = arg;
	struct ibv_comp_channel *ch = w->ibcq.channel;
	struct sr_ibv_channel *c;
	uint64_t one = 1;

	(void)cq;
	if (atomic_exchange(&w->armed, false))
		sr_ibv_waiter_del(w->rt);
	if (ch == NULL)
		return;
	c = sr_ch_of(ch);
	pthread_mutex_lock(&c->lock);
	if (w->dying) {                 /* ibv_destroy_cq has begun */
		pthread_mutex_unlock(&c->lock);
		return;
	}
	w->ev_pending++;
	if (!w->ev_queued) {
		w->ev_queued = true;
		w->ev_next = NULL;
		if (c->tail)
			c->tail->ev_next = w;
		else
			c->head = w;
		c->tail = w;
	}
	pthread_mutex_unlock(&c->lock);
	if (write(ch->fd, &one, sizeof(one)) < 0) {
		/* cannot overflow */
	}
}

void sr_ibv_channel_join(struct sr_ibv_cq *w)
{
	struct sr_ibv_channel *c = sr_ch_of(w->ibcq.channel);

	pthread_mutex_lock(&c->lock);
	w->ch_next = c->cqs;
	c->cqs = w;
	pthread_mutex_unlock(&c->lock);
}

/*
 * Drop a CQ's pending events from its channel, and take no more: its
 * destroy has begun (before the lib CQ goes, so that ibv_get_cq_event,
 * which looks at it under the channel lock, never sees it gone).
 */
void sr_ibv_channel_forget(struct sr_ibv_cq *w)
{
	struct sr_ibv_channel *c;
	struct sr_ibv_cq **pp;
	uint64_t n;

	if (w->ibcq.channel == NULL)
		return;
	c = sr_ch_of(w->ibcq.channel);
	pthread_mutex_lock(&c->lock);
	w->dying = true;
	for (pp = &c->cqs; *pp; pp = &(*pp)->ch_next)
		if (*pp == w) {
			*pp = w->ch_next;
			break;
		}
	if (w->ev_queued) {
		for (pp = &c->head; *pp; pp = &(*pp)->ev_next) {
			if (*pp != w)
				continue;
			*pp = w->ev_next;
			break;
		}
		c->tail = NULL;
		for (struct sr_ibv_cq *i = c->head; i; i = i->ev_next)
			c->tail = i;
		/* take the eventfd counts back, without blocking */
		for (unsigned int i = 0; i < w->ev_pending; i++) {
			int fl = fcntl(c->ch.fd, F_GETFL);

			fcntl(c->ch.fd, F_SETFL, fl | O_NONBLOCK);
			if (read(c->ch.fd, &n, sizeof(n)) < 0) {
				/* already consumed */
			}
			fcntl(c->ch.fd, F_SETFL, fl);
		}
		w->ev_queued = false;
		w->ev_pending = 0;
	}
	pthread_mutex_unlock(&c->lock);
}

/* Every CQ of the channel is empty (channel lock held). */
static bool sr_ibv_channel_empty(const struct sr_ibv_channel *c)
{
	for (const struct sr_ibv_cq *i = c->cqs; i != NULL; i = i->ch_next)
		if (!sr_cq_empty(i->cq))
			return false;
	return true;
}

/*
 * An event with nothing behind it: the consumer re-armed the CQ after its
 * last event and then polled the completion that fired this one (the
 * engine makes completions while the consumer polls, on its own thread or
 * the helper's), and no CQ of the channel holds anything.  Such an event
 * leads a consumer to empty CQs, and some take that for an error:
 * ibv_rc_pingpong -e -t fails when ibv_start_poll answers ENOENT after an
 * event.  So it is not delivered, and its CQ is armed again as the
 * consumer had armed it (the arm was spent on a completion it has seen),
 * unless a completion came meanwhile: then the event stands.
 *
 * Any CQ of the channel, not only the event's: a consumer may take an
 * event as a wake-up and poll another CQ of the channel (perftest's
 * send_lat -e polls its receive CQ after whichever event comes), so an
 * event is held back only when there is nothing anywhere to wake up for.
 * Under the channel lock, which ibv_destroy_cq takes before the lib CQ
 * goes (sr_ibv_channel_forget).
 *
 * The price: a consumer that polled the fd readable and then calls a
 * blocking ibv_get_cq_event waits for the next completion instead of
 * returning at once with an event it has no use for.
 */
static bool sr_ibv_event_stale(struct sr_ibv_channel *c, struct sr_ibv_cq *w)
{
	if (!sr_ibv_channel_empty(c))
		return false;
	if (sr_ibv_req_notify_cq(ibv_cq_ex_to_cq(&w->ibcq),
				 atomic_load(&w->arm_solicited)))
		return false;
	/* armed, then looked at: a completion pushed meanwhile is either
	 * seen here or signalled (the fence in sr_cq_push) */
	return sr_ibv_channel_empty(c);
}

int ibv_get_cq_event(struct ibv_comp_channel *channel, struct ibv_cq **cq,
		     void **cq_context)
{
	struct sr_ibv_channel *c;
	struct sr_ibv_cq *w;
	bool stale;
	uint64_t n;

	if (channel == NULL || cq == NULL) {
		errno = EINVAL;
		return -1;
	}
	c = sr_ch_of(channel);
	/*
	 * A plain read of the eventfd, as of the kernel's channel fd: it
	 * blocks (the helper thread progresses meanwhile), answers EAGAIN on
	 * a non-blocking fd, and returns EINTR when a signal interrupts it
	 * (unless the handler has SA_RESTART) — qperf ends its event loops
	 * with SIGALRM.
	 */
	for (;;) {
		if (read(channel->fd, &n, sizeof(n)) != sizeof(n))
			return -1;
		pthread_mutex_lock(&c->lock);
		w = c->head;
		if (w == NULL) {
			pthread_mutex_unlock(&c->lock);
			errno = EAGAIN;
			return -1;
		}
		if (--w->ev_pending == 0) {
			c->head = w->ev_next;
			if (c->head == NULL)
				c->tail = NULL;
			w->ev_queued = false;
		}
		stale = sr_ibv_event_stale(c, w);
		pthread_mutex_unlock(&c->lock);
		if (!stale)
			break;
	}
	*cq = ibv_cq_ex_to_cq(&w->ibcq);
	if (cq_context)
		*cq_context = w->ibcq.cq_context;
	return 0;
}

void ibv_ack_cq_events(struct ibv_cq *cq, unsigned int nevents)
{
	if (cq == NULL)
		return;
	pthread_mutex_lock(&cq->mutex);
	cq->comp_events_completed += nevents;
	pthread_cond_broadcast(&cq->cond);
	pthread_mutex_unlock(&cq->mutex);
}

int sr_ibv_req_notify_cq(struct ibv_cq *cq, int solicited_only)
{
	struct sr_ibv_cq *w = sr_cq_of(cq);
	int rc;

	if (cq->channel && !atomic_exchange(&w->armed, true)) {
		rc = sr_ibv_waiter_add(w->rt);
		if (rc) {
			atomic_store(&w->armed, false);
			return sr_ibv_err(rc);
		}
	}
	atomic_store(&w->arm_solicited, solicited_only != 0);
	rc = sr_cq_req_notify(w->cq, solicited_only != 0);
	return sr_ibv_err(rc);
}
