/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * neigh.h — the device's own addresses and the neighbour cache shared by
 * ARP (arp.c) and IPv6 ND (nd.c): IP address -> MAC, with resolution
 * retries.  IPv4 addresses are kept IPv4-mapped (::ffff:a.b.c.d), so one
 * table serves both.  Pure C, no DPDK; time comes in as now_ns.
 */
#ifndef SR_PMD_NEIGH_H
#define SR_PMD_NEIGH_H

#include <stdbool.h>
#include <stdint.h>

#define SR_NEIGH_SLOTS 256       /* power of two */
#define SR_NEIGH_PROBE 16        /* slots probed per address */
#define SR_ADDR_IPV6_MAX 5       /* link-local + configured */

/* What the link answers for. */
struct sr_pmd_addr {
	uint8_t mac[6];
	uint16_t vlan;           /* 0 = untagged */
	uint8_t vlan_prio;
	bool has_ipv4;
	uint8_t ipv4[4];
	uint32_t n_ipv6;         /* [0] is the link-local address */
	uint8_t ipv6[SR_ADDR_IPV6_MAX][16];
	bool any_ip;             /* a switch port: every destination IP */
};

/* True when ip6 is one of self's IPv6 addresses. */
bool sr_pmd_addr_has_ipv6(const struct sr_pmd_addr *self,
			  const uint8_t ip6[16]);

enum sr_neigh_state {
	SR_NEIGH_FREE = 0,
	SR_NEIGH_INCOMPLETE,     /* request sent, no answer yet */
	SR_NEIGH_REACHABLE,
	SR_NEIGH_FAILED,         /* retries exhausted */
};

struct sr_neigh_entry {
	uint8_t ip[16];
	uint8_t mac[6];
	uint8_t state;           /* enum sr_neigh_state */
	uint8_t tries;
	uint64_t updated_ns;     /* last answer, or when it failed */
	uint64_t next_ns;        /* INCOMPLETE: when to ask again */
};

struct sr_neigh_cache {
	uint64_t retry_ns;       /* between requests */
	uint64_t reachable_ns;   /* an answer stays valid this long */
	uint64_t failed_ns;      /* a failure is remembered this long */
	uint32_t max_tries;
	uint32_t used;
	struct sr_neigh_entry slot[SR_NEIGH_SLOTS];
};

/* Defaults: retry every 200 ms, 5 tries, valid 5 min, failure 1 s. */
void sr_neigh_init(struct sr_neigh_cache *c);

/* The entry of ip, or NULL. */
struct sr_neigh_entry *sr_neigh_lookup(struct sr_neigh_cache *c,
				       const uint8_t ip[16]);

/* Record that ip is at mac (an answer or a request from it). */
void sr_neigh_update(struct sr_neigh_cache *c, const uint8_t ip[16],
		     const uint8_t mac[6], uint64_t now_ns);

/*
 * Resolve ip.  Returns 0 with *mac filled when known; -EAGAIN when a request
 * must be sent now (the caller sends it; *mac untouched); -EINPROGRESS when
 * one is outstanding; -EHOSTUNREACH after max_tries unanswered requests
 * (for failed_ns, then it starts over); -ENOSPC when the cache is full of
 * outstanding requests.
 */
int sr_neigh_resolve(struct sr_neigh_cache *c, const uint8_t ip[16],
		     uint64_t now_ns, uint8_t mac[6]);

/*
 * Advance retries: for each outstanding request that is due, call send(ctx,
 * ip) and count a try, or mark it FAILED after max_tries.  Returns the
 * number of requests sent.
 */
uint32_t sr_neigh_tick(struct sr_neigh_cache *c, uint64_t now_ns,
		       void (*send)(void *ctx, const uint8_t ip[16]),
		       void *ctx);

static inline void sr_neigh_ipv4_key(uint8_t key[16], const uint8_t ipv4[4])
{
	for (int i = 0; i < 10; i++)
		key[i] = 0;
	key[10] = 0xff;
	key[11] = 0xff;
	key[12] = ipv4[0];
	key[13] = ipv4[1];
	key[14] = ipv4[2];
	key[15] = ipv4[3];
}

#endif /* SR_PMD_NEIGH_H */
