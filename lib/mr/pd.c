/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pd.c — protection domains: counted by the MRs, MWs and QPs on them;
 * deallocation is refused while any remain.
 */
#include <errno.h>
#include <stdlib.h>

#include "mr/mr_priv.h"

struct sr_pd *sr_pd_alloc(struct sr_mr_dev *d)
{
	struct sr_pd *pd;

	if (d == NULL) {
		errno = EINVAL;
		return NULL;
	}
	pthread_mutex_lock(&d->lock);
	if (d->n_pd >= d->limits.max_pd) {
		pthread_mutex_unlock(&d->lock);
		errno = ENOMEM;
		return NULL;
	}
	d->n_pd++;
	pthread_mutex_unlock(&d->lock);

	pd = calloc(1, sizeof(*pd));
	if (pd == NULL)
		goto out_uncount;
	pd->dev = d;
	pd->handle = atomic_fetch_add_explicit(&d->next_pd_handle, 1, memory_order_relaxed) + 1;
	return pd;

out_uncount:
	pthread_mutex_lock(&d->lock);
	d->n_pd--;
	pthread_mutex_unlock(&d->lock);
	errno = ENOMEM;
	return NULL;
}

int sr_pd_dealloc(struct sr_pd *pd)
{
	uint32_t idle = 0;
	struct sr_mr_dev *d;

	if (pd == NULL)
		return 0;
	if (!atomic_compare_exchange_strong_explicit(&pd->users, &idle, SR_PD_DEAD,
						     memory_order_acq_rel, memory_order_relaxed))
		return -EBUSY;
	d = pd->dev;
	free(pd);
	pthread_mutex_lock(&d->lock);
	d->n_pd--;
	pthread_mutex_unlock(&d->lock);
	return 0;
}

void sr_pd_get(struct sr_pd *pd)
{
	atomic_fetch_add_explicit(&pd->users, 1, memory_order_relaxed);
}

void sr_pd_put(struct sr_pd *pd)
{
	atomic_fetch_sub_explicit(&pd->users, 1, memory_order_release);
}

uint32_t sr_pd_users(const struct sr_pd *pd)
{
	return atomic_load_explicit(&pd->users, memory_order_acquire);
}

uint32_t sr_pd_handle(const struct sr_pd *pd)
{
	return pd->handle;
}

struct sr_mr_dev *sr_pd_dev(const struct sr_pd *pd)
{
	return pd->dev;
}
