/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * peers.c — a client's connected peers (peers.h).
 */
#include <errno.h>
#include <string.h>

#include "sroced/peers.h"

static uint32_t srd_peer_hash(const struct srd_peer_key *k)
{
	uint32_t h = 2166136261u;   /* FNV-1a */

	for (unsigned int i = 0; i < 16; i++)
		h = (h ^ k->gid[i]) * 16777619u;
	for (unsigned int i = 0; i < 3; i++)
		h = (h ^ (uint8_t)(k->dqpn >> (8 * i))) * 16777619u;
	return h;
}

static bool srd_key_eq(const struct srd_peer_key *a,
		       const struct srd_peer_key *b)
{
	return a->dqpn == b->dqpn && memcmp(a->gid, b->gid, 16) == 0;
}

/* The slot holding key, or -1. */
static int srd_find(const struct srd_peers *p, const struct srd_peer_key *k)
{
	uint32_t h = srd_peer_hash(k);

	for (uint32_t i = 0; i < SRD_PEER_SLOTS; i++) {
		uint32_t s = (h + i) & (SRD_PEER_SLOTS - 1);

		if (!p->slot[s].used)
			return -1;
		if (p->slot[s].count && srd_key_eq(&p->slot[s].key, k))
			return (int)s;
	}
	return -1;
}

static void srd_add(struct srd_peers *p, const struct srd_peer_key *k)
{
	int s = srd_find(p, k);
	uint32_t h;

	if (s >= 0) {
		p->slot[s].count++;
		return;
	}
	h = srd_peer_hash(k);
	for (uint32_t i = 0; i < SRD_PEER_SLOTS; i++) {
		uint32_t t = (h + i) & (SRD_PEER_SLOTS - 1);

		if (p->slot[t].count == 0) {        /* empty or a tombstone */
			if (!p->slot[t].used)
				p->used++;
			p->slot[t].key = *k;
			p->slot[t].count = 1;
			p->slot[t].used = true;
			return;
		}
	}
}

/* Tombstones filled half the table: build it again from the QPs. */
static void srd_rebuild(struct srd_peers *p)
{
	memset(p->slot, 0, sizeof(p->slot));
	p->used = 0;
	for (uint32_t i = 0; i < SRD_QPN_BLOCK; i++)
		if (p->qp[i].on)
			srd_add(p, &p->qp[i].key);
}

int srd_peers_set(struct srd_peers *p, uint32_t idx, const uint8_t gid[16],
		  uint32_t dqpn, bool on)
{
	if (idx >= SRD_QPN_BLOCK)
		return -EINVAL;
	if (p->qp[idx].on) {                        /* its old peer goes */
		int s = srd_find(p, &p->qp[idx].key);

		if (s >= 0)
			p->slot[s].count--;
		p->qp[idx].on = false;
	}
	if (on) {
		memcpy(p->qp[idx].key.gid, gid, 16);
		p->qp[idx].key.dqpn = dqpn & 0xffffffu;
		p->qp[idx].on = true;
		if (p->used >= SRD_PEER_SLOTS / 2)
			srd_rebuild(p);
		srd_add(p, &p->qp[idx].key);
	}
	return 0;
}

bool srd_peers_has(const struct srd_peers *p, const uint8_t gid[16],
		   uint32_t dqpn)
{
	struct srd_peer_key k;

	memcpy(k.gid, gid, 16);
	k.dqpn = dqpn & 0xffffffu;
	return srd_find(p, &k) >= 0;
}
