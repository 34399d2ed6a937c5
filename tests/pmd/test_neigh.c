/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_neigh.c — neighbour cache, ARP and ND on crafted frames, and the
 * receive classification.
 */
#include <errno.h>
#include <string.h>

#include "arp.h"
#include "classify.h"
#include "gid.h"
#include "nd.h"
#include "neigh.h"
#include "sr_check.h"

#define MS 1000000ull

static struct sr_pmd_addr self, peer;
static struct sr_neigh_cache cache;

static void setup(void)
{
	static const uint8_t gua[16] = { 0xfd, 0x00, 0x53, 0x52, [15] = 1 };
	static const uint8_t peer_gua[16] = { 0xfd, 0x00, 0x53, 0x52, [15] = 2 };

	memset(&self, 0, sizeof(self));
	memcpy(self.mac, (uint8_t[]){ 0x02, 0x53, 0x52, 0, 0, 1 }, 6);
	self.has_ipv4 = true;
	memcpy(self.ipv4, (uint8_t[]){ 10, 0, 0, 1 }, 4);
	sr_gid_link_local(self.ipv6[0], self.mac);
	memcpy(self.ipv6[1], gua, 16);
	self.n_ipv6 = 2;
	peer = self;
	peer.mac[5] = 2;
	peer.ipv4[3] = 2;
	sr_gid_link_local(peer.ipv6[0], peer.mac);
	memcpy(peer.ipv6[1], peer_gua, 16);
	sr_neigh_init(&cache);
}

static uint32_t n_sent;

static void count_send(void *ctx, const uint8_t ip[16])
{
	(void)ctx;
	(void)ip;
	n_sent++;
}

START_TEST(test_cache_tick_and_fail)
{
	uint8_t ip[16], mac[6];

	n_sent = 0;
	sr_neigh_ipv4_key(ip, peer.ipv4);
	ck_assert_int_eq(sr_neigh_resolve(&cache, ip, 0, mac), -EAGAIN);
	for (uint64_t t = 0; t <= 2000 * MS; t += 10 * MS)
		sr_neigh_tick(&cache, t, count_send, NULL);
	ck_assert_uint_eq(n_sent, cache.max_tries - 1);
	ck_assert_int_eq(sr_neigh_resolve(&cache, ip, 1500 * MS, mac),
			 -EHOSTUNREACH);
	/* After failed_ns it asks again. */
	ck_assert_int_eq(sr_neigh_resolve(&cache, ip, 4000 * MS, mac), -EAGAIN);
	sr_neigh_update(&cache, ip, peer.mac, 4001 * MS);
	ck_assert_int_eq(sr_neigh_resolve(&cache, ip, 4002 * MS, mac), 0);
	ck_assert_mem_eq(mac, peer.mac, 6);
}
END_TEST

START_TEST(test_cache_full_replaces_stale)
{
	uint8_t ip[16] = { 0 }, mac[6] = { 2 };

	for (uint32_t i = 0; i < 4 * SR_NEIGH_SLOTS; i++) {
		memcpy(ip + 12, &i, 4);
		sr_neigh_update(&cache, ip, mac, i);
		ck_assert_ptr_nonnull(sr_neigh_lookup(&cache, ip));
	}
	ck_assert_uint_le(cache.used, SR_NEIGH_SLOTS);
}
END_TEST

/* Peer asks for our IPv4: we answer and learn it. */
START_TEST(test_arp_request_reply)
{
	uint8_t req[SR_ARP_FRAME_MAX], reply[SR_ARP_FRAME_MAX], key[16], mac[6];
	struct sr_frame f;
	unsigned int why;
	int n;

	n = sr_arp_build_request(req, &peer, self.ipv4);
	ck_assert_int_eq(n, 60);
	ck_assert_int_eq(sr_rx_classify(&self, req, (uint32_t)n, &f, &why),
			 SR_RX_ARP);
	n = sr_arp_input(&cache, &self, req, (uint32_t)n, &f, 5, reply);
	ck_assert_int_eq(n, 60);
	ck_assert_mem_eq(reply, peer.mac, 6);              /* unicast back */
	ck_assert_uint_eq(sr_get_be16(reply + 20), 2);     /* op reply */
	ck_assert_mem_eq(reply + 22, self.mac, 6);         /* sha */
	ck_assert_mem_eq(reply + 28, self.ipv4, 4);        /* spa */
	ck_assert_mem_eq(reply + 38, peer.ipv4, 4);        /* tpa */
	sr_neigh_ipv4_key(key, peer.ipv4);
	ck_assert_int_eq(sr_neigh_resolve(&cache, key, 6, mac), 0);
	ck_assert_mem_eq(mac, peer.mac, 6);

	/* The reply, fed to the peer, resolves us there. */
	struct sr_neigh_cache pc;
	uint8_t out[SR_ARP_FRAME_MAX];

	sr_neigh_init(&pc);
	sr_neigh_ipv4_key(key, self.ipv4);
	ck_assert_int_eq(sr_neigh_resolve(&pc, key, 0, mac), -EAGAIN);
	ck_assert(sr_frame_layout(reply, 60, &f));
	ck_assert_int_eq(sr_arp_input(&pc, &peer, reply, 60, &f, 1, out), 0);
	ck_assert_int_eq(sr_neigh_resolve(&pc, key, 2, mac), 0);
	ck_assert_mem_eq(mac, self.mac, 6);
}
END_TEST

START_TEST(test_arp_not_for_us)
{
	uint8_t req[SR_ARP_FRAME_MAX], reply[SR_ARP_FRAME_MAX], key[16];
	uint8_t other[4] = { 10, 0, 0, 9 };
	struct sr_frame f;

	sr_arp_build_request(req, &peer, other);
	ck_assert(sr_frame_layout(req, 60, &f));
	ck_assert_int_eq(sr_arp_input(&cache, &self, req, 60, &f, 1, reply), 0);
	sr_neigh_ipv4_key(key, peer.ipv4);
	ck_assert_ptr_null(sr_neigh_lookup(&cache, key));
	req[14 + 4] = 8;   /* hardware length */
	ck_assert_int_eq(sr_arp_input(&cache, &self, req, 60, &f, 1, reply),
			 -EINVAL);
}
END_TEST

/* NS for each of our addresses (link-local included) gets an NA. */
START_TEST(test_nd_ns_na)
{
	uint8_t ns[SR_ND_FRAME_MAX], na[SR_ND_FRAME_MAX], mac[6];
	struct sr_neigh_cache pc;
	struct sr_frame f;
	unsigned int why;
	int n, m;

	sr_neigh_init(&pc);
	for (uint32_t a = 0; a < self.n_ipv6; a++) {
		ck_assert_int_eq(sr_neigh_resolve(&pc, self.ipv6[a], 0, mac),
				 -EAGAIN);
		n = sr_nd_build_ns(ns, &peer, self.ipv6[a]);
		ck_assert_int_gt(n, 0);
		ck_assert_uint_eq(ns[0], 0x33);             /* multicast */
		ck_assert_int_eq(sr_rx_classify(&self, ns, (uint32_t)n, &f, &why),
				 SR_RX_ND);
		m = sr_nd_input(&cache, &self, ns, (uint32_t)n, &f, 1, na);
		ck_assert_int_eq(m, n);
		ck_assert_mem_eq(na, peer.mac, 6);
		ck_assert_uint_eq(na[14 + 40], SR_ICMPV6_NA);
		ck_assert(sr_frame_layout(na, (uint32_t)m, &f));
		ck_assert_uint_eq(sr_nd_icmp6_csum(na + 14, f.l4_len), 0);
		ck_assert_int_eq(sr_nd_input(&pc, &peer, na, (uint32_t)m, &f, 2,
					     ns), 0);
		ck_assert_int_eq(sr_neigh_resolve(&pc, self.ipv6[a], 3, mac), 0);
		ck_assert_mem_eq(mac, self.mac, 6);
	}
	/* We learned the solicitor. */
	ck_assert_int_eq(sr_neigh_resolve(&cache, peer.ipv6[0], 4, mac), 0);
}
END_TEST

START_TEST(test_nd_bad_checksum_and_foreign)
{
	uint8_t ns[SR_ND_FRAME_MAX], na[SR_ND_FRAME_MAX];
	uint8_t other[16] = { 0xfd, [15] = 9 };
	struct sr_frame f;
	int n;

	n = sr_nd_build_ns(ns, &peer, other);
	ck_assert(sr_frame_layout(ns, (uint32_t)n, &f));
	ck_assert_int_eq(sr_nd_input(&cache, &self, ns, (uint32_t)n, &f, 1, na), 0);
	n = sr_nd_build_ns(ns, &peer, self.ipv6[1]);
	ns[n - 1] ^= 1;
	ck_assert(sr_frame_layout(ns, (uint32_t)n, &f));
	ck_assert_int_eq(sr_nd_input(&cache, &self, ns, (uint32_t)n, &f, 1, na),
			 -EINVAL);
}
END_TEST

/* One frame per drop reason. */
START_TEST(test_classify_drops)
{
	uint8_t fr[128];
	struct sr_frame f;
	unsigned int why = 0;
	uint32_t len;

	len = sr_frame_put_udp4(fr, self.mac, peer.mac, 0, peer.ipv4, self.ipv4,
				1000, 12 + 4 + 8) + 24;
	ck_assert_int_eq(sr_rx_classify(&self, fr, len, &f, &why), SR_RX_ROCE);
	ck_assert_int_eq(sr_rx_classify(&self, fr, 20, &f, &why), SR_RX_DROP);
	ck_assert_uint_eq(why, SR_CTR_DROP_SHORT);
	fr[0] = 0x02, fr[5] = 0x77;
	ck_assert_int_eq(sr_rx_classify(&self, fr, len, &f, &why), SR_RX_DROP);
	ck_assert_uint_eq(why, SR_CTR_DROP_MAC);
	fr[5] = self.mac[5];
	fr[14 + 19] = 7;
	ck_assert_int_eq(sr_rx_classify(&self, fr, len, &f, &why), SR_RX_DROP);
	ck_assert_uint_eq(why, SR_CTR_DROP_IP);
	fr[14 + 19] = self.ipv4[3];
	sr_put_be16(fr + 14 + 20 + 2, 53);
	ck_assert_int_eq(sr_rx_classify(&self, fr, len, &f, &why), SR_RX_DROP);
	ck_assert_uint_eq(why, SR_CTR_DROP_PORT);
	sr_put_be16(fr + 14 + 20 + 2, 4791);
	fr[14 + 9] = 6;
	ck_assert_int_eq(sr_rx_classify(&self, fr, len, &f, &why), SR_RX_DROP);
	ck_assert_uint_eq(why, SR_CTR_DROP_PROTO);
	fr[14 + 9] = 17;
	sr_put_be16(fr + 12, 0x88cc);
	ck_assert_int_eq(sr_rx_classify(&self, fr, len, &f, &why), SR_RX_DROP);
	ck_assert_uint_eq(why, SR_CTR_DROP_ETHERTYPE);
	/* Tagged frame on an untagged device. */
	len = sr_frame_put_udp4(fr, self.mac, peer.mac, 5, peer.ipv4, self.ipv4,
				1000, 24) + 24;
	ck_assert_int_eq(sr_rx_classify(&self, fr, len, &f, &why), SR_RX_DROP);
	ck_assert_uint_eq(why, SR_CTR_DROP_VLAN);
	self.vlan = 5;
	ck_assert_int_eq(sr_rx_classify(&self, fr, len, &f, &why), SR_RX_ROCE);
}
END_TEST

static Suite *neigh_suite(void)
{
	Suite *s = suite_create("pmd/neigh");
	TCase *tc = tcase_create("arp_nd");

	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_add_test(tc, test_cache_tick_and_fail);
	tcase_add_test(tc, test_cache_full_replaces_stale);
	tcase_add_test(tc, test_arp_request_reply);
	tcase_add_test(tc, test_arp_not_for_us);
	tcase_add_test(tc, test_nd_ns_na);
	tcase_add_test(tc, test_nd_bad_checksum_and_foreign);
	tcase_add_test(tc, test_classify_drops);
	suite_add_tcase(s, tc);
	return s;
}

SR_CHECK_MAIN(neigh_suite)
