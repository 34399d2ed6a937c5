/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * neigh.c — the neighbour cache: open addressing over a bounded probe
 * window; when the window is full the stalest settled entry is replaced.
 */
#include <errno.h>
#include <string.h>

#include "neigh.h"

bool sr_pmd_addr_has_ipv6(const struct sr_pmd_addr *self,
			  const uint8_t ip6[16])
{
	for (uint32_t i = 0; i < self->n_ipv6; i++)
		if (memcmp(self->ipv6[i], ip6, 16) == 0)
			return true;
	return false;
}

void sr_neigh_init(struct sr_neigh_cache *c)
{
	memset(c, 0, sizeof(*c));
	c->retry_ns = 200ull * 1000 * 1000;
	c->reachable_ns = 300ull * 1000 * 1000 * 1000;
	c->failed_ns = 1000ull * 1000 * 1000;
	c->max_tries = 5;
}

static uint32_t sr_neigh_hash(const uint8_t ip[16])
{
	uint32_t h = 2166136261u;   /* FNV-1a */

	for (int i = 0; i < 16; i++)
		h = (h ^ ip[i]) * 16777619u;
	return h;
}

struct sr_neigh_entry *sr_neigh_lookup(struct sr_neigh_cache *c,
				       const uint8_t ip[16])
{
	uint32_t h = sr_neigh_hash(ip);

	for (uint32_t i = 0; i < SR_NEIGH_PROBE; i++) {
		struct sr_neigh_entry *e = &c->slot[(h + i) % SR_NEIGH_SLOTS];

		if (e->state == SR_NEIGH_FREE)
			return NULL;
		if (memcmp(e->ip, ip, 16) == 0)
			return e;
	}
	return NULL;
}

/* The entry of ip, creating it (state FREE -> caller sets) if needed. */
static struct sr_neigh_entry *sr_neigh_get(struct sr_neigh_cache *c,
					   const uint8_t ip[16])
{
	struct sr_neigh_entry *victim = NULL;
	uint32_t h = sr_neigh_hash(ip);

	for (uint32_t i = 0; i < SR_NEIGH_PROBE; i++) {
		struct sr_neigh_entry *e = &c->slot[(h + i) % SR_NEIGH_SLOTS];

		if (e->state == SR_NEIGH_FREE) {
			victim = e;
			c->used++;
			break;
		}
		if (memcmp(e->ip, ip, 16) == 0)
			return e;
		if (e->state != SR_NEIGH_INCOMPLETE &&
		    (victim == NULL || e->updated_ns < victim->updated_ns))
			victim = e;
	}
	if (victim == NULL)
		return NULL;
	memset(victim, 0, sizeof(*victim));
	memcpy(victim->ip, ip, 16);
	victim->state = SR_NEIGH_INCOMPLETE;
	return victim;
}

void sr_neigh_update(struct sr_neigh_cache *c, const uint8_t ip[16],
		     const uint8_t mac[6], uint64_t now_ns)
{
	struct sr_neigh_entry *e = sr_neigh_get(c, ip);

	if (e == NULL)
		return;
	memcpy(e->mac, mac, 6);
	e->state = SR_NEIGH_REACHABLE;
	e->tries = 0;
	e->updated_ns = now_ns;
}

int sr_neigh_resolve(struct sr_neigh_cache *c, const uint8_t ip[16],
		     uint64_t now_ns, uint8_t mac[6])
{
	struct sr_neigh_entry *e = sr_neigh_lookup(c, ip);

	if (e && e->state == SR_NEIGH_REACHABLE &&
	    now_ns - e->updated_ns < c->reachable_ns) {
		memcpy(mac, e->mac, 6);
		return 0;
	}
	if (e && e->state == SR_NEIGH_INCOMPLETE)
		return -EINPROGRESS;
	if (e && e->state == SR_NEIGH_FAILED &&
	    now_ns - e->updated_ns < c->failed_ns)
		return -EHOSTUNREACH;
	if (e == NULL) {
		e = sr_neigh_get(c, ip);
		if (e == NULL)
			return -ENOSPC;
	}
	/* New, expired or forgotten failure: ask (again). */
	e->state = SR_NEIGH_INCOMPLETE;
	e->tries = 1;
	e->next_ns = now_ns + c->retry_ns;
	return -EAGAIN;
}

uint32_t sr_neigh_tick(struct sr_neigh_cache *c, uint64_t now_ns,
		       void (*send)(void *ctx, const uint8_t ip[16]),
		       void *ctx)
{
	uint32_t sent = 0;

	for (uint32_t i = 0; i < SR_NEIGH_SLOTS; i++) {
		struct sr_neigh_entry *e = &c->slot[i];

		if (e->state != SR_NEIGH_INCOMPLETE ||
		    (int64_t)(now_ns - e->next_ns) < 0)
			continue;
		if (e->tries >= c->max_tries) {
			e->state = SR_NEIGH_FAILED;
			e->updated_ns = now_ns;
			continue;
		}
		e->tries++;
		e->next_ns = now_ns + c->retry_ns;
		send(ctx, e->ip);
		sent++;
	}
	return sent;
}
