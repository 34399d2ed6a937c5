/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * worker.c — the adapter thread: asynchronous creations, requests and
 * closes (STATUS_PENDING, then the caller's completion callback), CQ
 * notification delivery, the CM's events (connections), and the device's
 * progress while anything waits on it (an armed CQ, a connection being
 * made: at once; a listener or a connection that is up: every
 * millisecond, so that the CM's MADs are received).
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ndk_priv.h"

static void sr_ndk_work_run_all(struct sr_ndk_adapter *a)
{
	struct sr_ndk_work *w;

	for (;;) {
		pthread_mutex_lock(&a->wlock);
		w = a->work_head;
		if (w) {
			a->work_head = w->next;
			if (a->work_head == NULL)
				a->work_tail = NULL;
		}
		pthread_mutex_unlock(&a->wlock);
		if (w == NULL)
			return;
		w->run(w);
	}
}

static void *sr_ndk_worker_main(void *arg)
{
	struct sr_ndk_adapter *a = arg;

	for (;;) {
		bool busy, watch;
		int done;

		pthread_mutex_lock(&a->wlock);
		if (a->stop && a->work_head == NULL) {
			pthread_mutex_unlock(&a->wlock);
			break;
		}
		pthread_mutex_unlock(&a->wlock);
		sr_ndk_work_run_all(a);
		busy = atomic_load(&a->busy) != 0;
		watch = atomic_load(&a->cm_watch) != 0;
		done = sr_ndk_cm_poll(a, busy ? 0 : watch ? 1 : 5);
		if (busy || watch) {
			pthread_mutex_lock(&a->progress_lock);
			sr_ndk_progress_(a);
			pthread_mutex_unlock(&a->progress_lock);
			sr_ndk_cq_deliver(a);
			if (busy && done == 0) {
				struct timespec ts = { .tv_nsec = 20000 };

				nanosleep(&ts, NULL);
			}
		}
	}
	return NULL;
}

int sr_ndk_worker_start(struct sr_ndk_adapter *a)
{
	return -pthread_create(&a->thread, NULL, sr_ndk_worker_main, a);
}

void sr_ndk_worker_stop(struct sr_ndk_adapter *a)
{
	pthread_mutex_lock(&a->wlock);
	a->stop = true;
	pthread_mutex_unlock(&a->wlock);
	sr_ndk_worker_kick(a);
	pthread_join(a->thread, NULL);
}

void sr_ndk_work_queue(struct sr_ndk_adapter *a, struct sr_ndk_work *w)
{
	w->next = NULL;
	pthread_mutex_lock(&a->wlock);
	if (a->work_tail)
		a->work_tail->next = w;
	else
		a->work_head = w;
	a->work_tail = w;
	pthread_mutex_unlock(&a->wlock);
	sr_ndk_worker_kick(a);
}

/* ------------------------------------------------------------ creations */

struct sr_ndk_create_work {
	struct sr_ndk_work w;
	sr_ndk_create_fn fn;
	NDK_FN_CREATE_COMPLETION cb;
	PVOID ctx;
	max_align_t args[];
};

static void sr_ndk_create_run(struct sr_ndk_work *w)
{
	struct sr_ndk_create_work *cw = (struct sr_ndk_create_work *)w;
	NTSTATUS st = STATUS_SUCCESS;
	NDK_OBJECT_HEADER *o = cw->fn(cw->args, &st);

	cw->cb(cw->ctx, o ? STATUS_SUCCESS : st, o);
	free(cw);
}

NTSTATUS sr_ndk_create(struct sr_ndk_adapter *a, bool async, sr_ndk_create_fn fn,
		       const void *args, size_t args_len,
		       NDK_FN_CREATE_COMPLETION cb, PVOID ctx, void **out)
{
	struct sr_ndk_create_work *cw;
	NDK_OBJECT_HEADER *o;
	NTSTATUS st = STATUS_SUCCESS;

	if (!async || cb == NULL) {
		o = fn(args, &st);
		if (o == NULL)
			return st;
		*out = o;
		return STATUS_SUCCESS;
	}
	cw = malloc(sizeof(*cw) + args_len);
	if (cw == NULL)
		return sr_ntstatus_from_errno(ENOMEM);
	cw->w.run = sr_ndk_create_run;
	cw->fn = fn;
	cw->cb = cb;
	cw->ctx = ctx;
	memcpy(cw->args, args, args_len);
	sr_ndk_work_queue(a, &cw->w);
	return STATUS_PENDING;
}

/* ------------------------------------------------------------- requests */

struct sr_ndk_request_work {
	struct sr_ndk_work w;
	sr_ndk_request_fn fn;
	NDK_FN_REQUEST_COMPLETION cb;
	PVOID ctx;
	max_align_t args[];
};

static void sr_ndk_request_run(struct sr_ndk_work *w)
{
	struct sr_ndk_request_work *rw = (struct sr_ndk_request_work *)w;
	NTSTATUS st = rw->fn(rw->args);

	rw->cb(rw->ctx, st);
	free(rw);
}

NTSTATUS sr_ndk_request(struct sr_ndk_adapter *a, bool async, sr_ndk_request_fn fn,
			const void *args, size_t args_len,
			NDK_FN_REQUEST_COMPLETION cb, PVOID ctx)
{
	struct sr_ndk_request_work *rw;

	if (!async || cb == NULL)
		return fn(args);
	rw = malloc(sizeof(*rw) + args_len);
	if (rw == NULL)
		return sr_ntstatus_from_errno(ENOMEM);
	rw->w.run = sr_ndk_request_run;
	rw->fn = fn;
	rw->cb = cb;
	rw->ctx = ctx;
	memcpy(rw->args, args, args_len);
	sr_ndk_work_queue(a, &rw->w);
	return STATUS_PENDING;
}

/* --------------------------------------------------------------- closes */

struct sr_ndk_close_work {
	struct sr_ndk_work w;
	sr_ndk_close_fn fn;
	NDK_OBJECT_HEADER *o;
	NDK_FN_CLOSE_COMPLETION cb;
	PVOID ctx;
};

static void sr_ndk_close_run(struct sr_ndk_work *w)
{
	struct sr_ndk_close_work *cw = (struct sr_ndk_close_work *)w;

	cw->fn(cw->o);
	cw->cb(cw->ctx);
	free(cw);
}

NTSTATUS sr_ndk_close(struct sr_ndk_adapter *a, sr_ndk_close_fn fn, NDK_OBJECT_HEADER *o,
		      NDK_FN_CLOSE_COMPLETION cb, PVOID ctx)
{
	struct sr_ndk_close_work *cw;

	if (o == NULL)
		return sr_ntstatus_from_errno(EINVAL);
	if (!a->async_all || cb == NULL)
		return fn(o);
	cw = malloc(sizeof(*cw));
	if (cw == NULL)
		return fn(o);
	cw->w.run = sr_ndk_close_run;
	cw->fn = fn;
	cw->o = o;
	cw->cb = cb;
	cw->ctx = ctx;
	sr_ndk_work_queue(a, &cw->w);
	return STATUS_PENDING;
}
