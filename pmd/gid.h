/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gid.h — the device's GID table, all entries of RoCEv2 type:
 *   index 0  IPv6 link-local fe80::/64 with the EUI-64 of the MAC
 *   index 1  the IPv4-mapped address ::ffff:a.b.c.d
 *   index 2+ the configured IPv6 addresses, in configuration order
 * Pure C, no DPDK.
 */
#ifndef SR_PMD_GID_H
#define SR_PMD_GID_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "wire/hdr.h"

#define SR_GID_TABLE_MAX 8
#define SR_GID_LEN 16

/* GID types, numbered as the kernel's ib_gid_type. */
enum sr_gid_type {
	SR_GID_TYPE_IB = 0,
	SR_GID_TYPE_ROCE_V1 = 1,
	SR_GID_TYPE_ROCE_V2 = 2,
};

struct sr_gid_entry {
	uint8_t gid[SR_GID_LEN];
	uint8_t type;     /* enum sr_gid_type */
	uint8_t valid;
};

struct sr_gid_table {
	uint32_t n;
	struct sr_gid_entry entry[SR_GID_TABLE_MAX];
};

/*
 * Build the table from the MAC, the IPv4 address (network order bytes, or
 * NULL for none: index 1 then stays invalid) and n_ipv6 IPv6 addresses.
 * Returns 0 or -E2BIG when they do not fit.
 */
int sr_gid_table_build(struct sr_gid_table *t, const uint8_t mac[6],
		       const uint8_t *ipv4, const uint8_t (*ipv6)[16],
		       uint32_t n_ipv6);

/*
 * The table of a host NIC (port = iface:NAME) from the interface's
 * addresses ip[0..n) in the kernel's order (IPv4 as ::ffff:a.b.c.d):
 *   index 0  its first IPv6 link-local address, else the EUI-64 of mac
 *   index 1  its first IPv4 address (invalid when it has none)
 *   index 2+ its other IPv6 addresses, then its other IPv4 addresses
 * so the layout is the one above.  Returns how many addresses did not fit.
 */
uint32_t sr_gid_table_host(struct sr_gid_table *t, const uint8_t mac[6],
			   const uint8_t (*ip)[16], uint32_t n);

/* Copy entry idx.  Returns 0, or -EINVAL past the end or for a hole. */
int sr_gid_query(const struct sr_gid_table *t, uint32_t idx,
		 struct sr_gid_entry *out);

/* Index of a GID, or -ENOENT. */
int sr_gid_find(const struct sr_gid_table *t, const uint8_t gid[16]);

/* The modified EUI-64 of mac (the universal/local bit flipped, ff:fe in
 * the middle): the interface ID of the link-local GID and the device's
 * node GUID. */
void sr_gid_eui64(uint8_t eui[8], const uint8_t mac[6]);

/* fe80::/64 with the modified EUI-64 of mac. */
void sr_gid_link_local(uint8_t gid[16], const uint8_t mac[6]);

/* ::ffff:a.b.c.d */
static inline void sr_gid_from_ipv4(uint8_t gid[16], const uint8_t ipv4[4])
{
	memset(gid, 0, 10);
	gid[10] = 0xff;
	gid[11] = 0xff;
	memcpy(gid + 12, ipv4, 4);
}

/* True when gid is IPv4-mapped (its IPv4 address is in bytes 12..15). */
static inline bool sr_gid_is_ipv4(const uint8_t gid[16])
{
	return sr_gid_is_v4(gid);    /* lib/wire's test */
}

#endif /* SR_PMD_GID_H */
