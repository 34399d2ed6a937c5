/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gid.c — the GID table.
 */
#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "gid.h"

void sr_gid_eui64(uint8_t eui[8], const uint8_t mac[6])
{
	eui[0] = mac[0] ^ 0x02;
	eui[1] = mac[1];
	eui[2] = mac[2];
	eui[3] = 0xff;
	eui[4] = 0xfe;
	eui[5] = mac[3];
	eui[6] = mac[4];
	eui[7] = mac[5];
}

void sr_gid_link_local(uint8_t gid[16], const uint8_t mac[6])
{
	memset(gid, 0, 16);
	gid[0] = 0xfe;
	gid[1] = 0x80;
	sr_gid_eui64(gid + 8, mac);
}

int sr_gid_table_build(struct sr_gid_table *t, const uint8_t mac[6],
		       const uint8_t *ipv4, const uint8_t (*ipv6)[16],
		       uint32_t n_ipv6)
{
	memset(t, 0, sizeof(*t));
	if (n_ipv6 > SR_GID_TABLE_MAX - 2)
		return -E2BIG;
	sr_gid_link_local(t->entry[0].gid, mac);
	t->entry[0].valid = 1;
	if (ipv4) {
		sr_gid_from_ipv4(t->entry[1].gid, ipv4);
		t->entry[1].valid = 1;
	}
	for (uint32_t i = 0; i < n_ipv6; i++) {
		memcpy(t->entry[2 + i].gid, ipv6[i], 16);
		t->entry[2 + i].valid = 1;
	}
	t->n = 2 + n_ipv6;
	for (uint32_t i = 0; i < t->n; i++)
		t->entry[i].type = SR_GID_TYPE_ROCE_V2;
	return 0;
}

static bool sr_gid_is_link_local(const uint8_t gid[16])
{
	return gid[0] == 0xfe && (gid[1] & 0xc0) == 0x80;
}

uint32_t sr_gid_table_host(struct sr_gid_table *t, const uint8_t mac[6],
			   const uint8_t (*ip)[16], uint32_t n)
{
	bool used[n ? n : 1];
	uint32_t left = 0, k = 2;

	memset(t, 0, sizeof(*t));
	memset(used, 0, sizeof(used));
	sr_gid_link_local(t->entry[0].gid, mac);
	t->entry[0].valid = 1;
	for (uint32_t i = 0; i < n; i++)
		if (!sr_gid_is_ipv4(ip[i]) && sr_gid_is_link_local(ip[i])) {
			memcpy(t->entry[0].gid, ip[i], 16);
			used[i] = true;
			break;
		}
	for (uint32_t i = 0; i < n; i++)
		if (sr_gid_is_ipv4(ip[i])) {
			memcpy(t->entry[1].gid, ip[i], 16);
			t->entry[1].valid = 1;
			used[i] = true;
			break;
		}
	/* IPv6 (pass 0), then IPv4 (pass 1) */
	for (int pass = 0; pass < 2; pass++)
		for (uint32_t i = 0; i < n; i++) {
			if (used[i] || sr_gid_is_ipv4(ip[i]) != (pass == 1))
				continue;
			if (k == SR_GID_TABLE_MAX) {
				left++;
				continue;
			}
			memcpy(t->entry[k].gid, ip[i], 16);
			t->entry[k++].valid = 1;
		}
	t->n = k;
	for (uint32_t i = 0; i < t->n; i++)
		t->entry[i].type = SR_GID_TYPE_ROCE_V2;
	return left;
}

int sr_gid_query(const struct sr_gid_table *t, uint32_t idx,
		 struct sr_gid_entry *out)
{
	if (idx >= t->n || !t->entry[idx].valid)
		return -EINVAL;
	*out = t->entry[idx];
	return 0;
}

int sr_gid_find(const struct sr_gid_table *t, const uint8_t gid[16])
{
	for (uint32_t i = 0; i < t->n; i++)
		if (t->entry[i].valid && memcmp(t->entry[i].gid, gid, 16) == 0)
			return (int)i;
	return -ENOENT;
}
