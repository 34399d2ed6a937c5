/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_neigh.c — neighbour cache, ARP and ND on crafted frames, IGMP and
 * MLD membership messages, and the receive classification.
 */
#include <errno.h>
#include <string.h>

#include "arp.h"
#include "classify.h"
#include "gid.h"
#include "igmp.h"
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

static const uint8_t group4[16] = { [10] = 0xff, [11] = 0xff,
				     239, 0x83, 82, 1 };
static const uint8_t group6[16] = { 0xff, 0x0e, [12] = 0x53, 0x52, 0, 1 };

START_TEST(test_igmp_report_leave)
{
	uint8_t fr[SR_IGMP_FRAME_MAX], g[16];
	const uint8_t *ip = fr + 14, *igmp = fr + 14 + 24;
	struct sr_frame f;
	unsigned int why;
	int n;

	n = sr_igmp_build(fr, &self, group4, true);
	ck_assert_int_eq(n, 60);
	/* to the group's MAC: 01:00:5e and its low 23 bits (0x83 -> 0x03) */
	ck_assert_mem_eq(fr, ((uint8_t[]){ 0x01, 0, 0x5e, 0x03, 82, 1 }), 6);
	ck_assert_mem_eq(fr + 6, self.mac, 6);
	ck_assert_uint_eq(ip[0], 0x46);                 /* with an option */
	ck_assert_uint_eq(ip[8], 1);                    /* TTL 1 */
	ck_assert_uint_eq(ip[9], SR_IPPROTO_IGMP);
	ck_assert_mem_eq(ip + 12, self.ipv4, 4);
	ck_assert_mem_eq(ip + 16, group4 + 12, 4);
	ck_assert_mem_eq(ip + 20, ((uint8_t[]){ 0x94, 4, 0, 0 }), 4);
	ck_assert_uint_eq(sr_csum_fold(sr_csum_add(0, ip, 24)), 0);
	ck_assert_uint_eq(igmp[0], 0x16);               /* v2 report */
	ck_assert_mem_eq(igmp + 4, group4 + 12, 4);
	ck_assert_uint_eq(sr_csum_fold(sr_csum_add(0, igmp, 8)), 0);
	/* a peer classifies it as IGMP and sees no query in it */
	ck_assert_int_eq(sr_rx_classify(&peer, fr, (uint32_t)n, &f, &why),
			 SR_RX_IGMP);
	ck_assert_int_eq(sr_igmp_query(fr, (uint32_t)n, &f, g), 0);
	/* a leave goes to all routers, naming the group */
	n = sr_igmp_build(fr, &self, group4, false);
	ck_assert_int_eq(n, 60);
	ck_assert_mem_eq(fr, ((uint8_t[]){ 0x01, 0, 0x5e, 0, 0, 2 }), 6);
	ck_assert_mem_eq(ip + 16, ((uint8_t[]){ 224, 0, 0, 2 }), 4);
	ck_assert_uint_eq(igmp[0], 0x17);
	ck_assert_mem_eq(igmp + 4, group4 + 12, 4);
	ck_assert_uint_eq(sr_csum_fold(sr_csum_add(0, igmp, 8)), 0);
	/* not multicast, or no address of the family */
	ck_assert_int_eq(sr_igmp_build(fr, &self, peer.ipv6[1], true), -EINVAL);
	memcpy(g, group4, 16);
	g[12] = 10;
	ck_assert_int_eq(sr_igmp_build(fr, &self, g, true), -EINVAL);
	self.has_ipv4 = false;
	ck_assert_int_eq(sr_igmp_build(fr, &self, group4, true), -EINVAL);
}
END_TEST

START_TEST(test_mld_report_done)
{
	uint8_t fr[SR_IGMP_FRAME_MAX], tail[8] = { 0 };
	const uint8_t *ip = fr + 14, *hbh = ip + 40, *mld = hbh + 8;
	uint32_t sum;
	int n;

	n = sr_igmp_build(fr, &self, group6, true);
	ck_assert_int_eq(n, 14 + 40 + 8 + 24);
	ck_assert_mem_eq(fr, ((uint8_t[]){ 0x33, 0x33, 0x53, 0x52, 0, 1 }), 6);
	ck_assert_uint_eq(ip[6], 0);                    /* hop-by-hop first */
	ck_assert_uint_eq(ip[7], 1);                    /* hop limit 1 */
	ck_assert_mem_eq(ip + 8, self.ipv6[0], 16);     /* link-local */
	ck_assert_mem_eq(ip + 24, group6, 16);
	ck_assert_uint_eq(sr_get_be16(ip + 4), 8 + 24);
	ck_assert_uint_eq(hbh[0], 58);
	ck_assert_mem_eq(hbh + 2, ((uint8_t[]){ 5, 2, 0, 0 }), 4); /* MLD alert */
	ck_assert_uint_eq(mld[0], 131);
	ck_assert_mem_eq(mld + 8, group6, 16);
	sr_put_be32(tail, 24);
	tail[7] = 58;
	sum = sr_csum_add(0, ip + 8, 32);
	sum = sr_csum_add(sum, tail, 8);
	sum = sr_csum_add(sum, mld, 24);
	ck_assert_uint_eq(sr_csum_fold(sum), 0);
	n = sr_igmp_build(fr, &self, group6, false);
	ck_assert_uint_eq(mld[0], 132);                 /* done ... */
	ck_assert_mem_eq(ip + 24, ((uint8_t[]){ 0xff, 2, [15] = 2 }), 16);
	self.n_ipv6 = 0;
	ck_assert_int_eq(sr_igmp_build(fr, &self, group6, true), -EINVAL);
}
END_TEST

/* An IGMP query from 10.0.0.2 (v2: 8 bytes; v3: 12 and more). */
static uint32_t igmp_query(uint8_t *fr, const uint8_t group[4], uint32_t len)
{
	uint8_t *ip = fr + 14, *q = ip + 20;

	memset(fr, 0, 128);
	memcpy(fr, ((uint8_t[]){ 0x01, 0, 0x5e, 0, 0, 1 }), 6);
	memcpy(fr + 6, peer.mac, 6);
	sr_put_be16(fr + 12, 0x0800);
	ip[0] = 0x45;
	sr_put_be16(ip + 2, (uint16_t)(20 + len));
	ip[8] = 1;
	ip[9] = 2;
	memcpy(ip + 12, peer.ipv4, 4);
	memcpy(ip + 16, ((uint8_t[]){ 224, 0, 0, 1 }), 4);
	sr_put_be16(ip + 10, sr_csum_fold(sr_csum_add(0, ip, 20)));
	q[0] = 0x11;
	q[1] = 100;
	memcpy(q + 4, group, 4);
	sr_put_be16(q + 2, sr_csum_fold(sr_csum_add(0, q, len)));
	return 14 + 20 + (len < 26 ? 26 : len);
}

START_TEST(test_igmp_query)
{
	static const uint8_t any[4];
	uint8_t fr[128], g[16];
	struct sr_frame f;
	unsigned int why;
	uint32_t len;

	len = igmp_query(fr, any, 8);
	ck_assert_int_eq(sr_rx_classify(&self, fr, len, &f, &why), SR_RX_IGMP);
	ck_assert_int_eq(sr_igmp_query(fr, len, &f, g), 1);
	len = igmp_query(fr, group4 + 12, 12);           /* v3, one group */
	ck_assert_int_eq(sr_rx_classify(&self, fr, len, &f, &why), SR_RX_IGMP);
	ck_assert_int_eq(sr_igmp_query(fr, len, &f, g), 2);
	ck_assert_mem_eq(g, group4, 16);
	/* hostile: a wrong checksum, a length past the frame, a short one */
	fr[14 + 20 + 1] ^= 1;
	ck_assert_int_eq(sr_igmp_query(fr, len, &f, g), -EINVAL);
	len = igmp_query(fr, any, 8);
	sr_put_be16(fr + 14 + 2, 200);
	ck_assert_int_eq(sr_igmp_query(fr, len, &f, g), -EINVAL);
	len = igmp_query(fr, any, 8);
	sr_put_be16(fr + 14 + 2, 20 + 4);
	ck_assert_int_eq(sr_igmp_query(fr, len, &f, g), -EINVAL);
}
END_TEST

/* RoCEv2 to a group passes the address check; the transport decides. */
START_TEST(test_classify_multicast)
{
	static const uint8_t grp[4] = { 239, 0x83, 82, 1 };
	uint8_t fr[128], mac[6] = { 0x01, 0, 0x5e, 0x03, 82, 1 };
	struct sr_frame f;
	unsigned int why = 0;
	uint32_t len;

	len = sr_frame_put_udp4(fr, mac, peer.mac, 0, peer.ipv4, grp, 1000,
				12 + 4 + 8) + 24;
	ck_assert_int_eq(sr_rx_classify(&self, fr, len, &f, &why), SR_RX_ROCE);
	/* a unicast IP not ours is still dropped, multicast MAC or not */
	fr[14 + 16] = 10;
	ck_assert_int_eq(sr_rx_classify(&self, fr, len, &f, &why), SR_RX_DROP);
	ck_assert_uint_eq(why, SR_CTR_DROP_IP);
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
	tcase_add_test(tc, test_igmp_report_leave);
	tcase_add_test(tc, test_mld_report_done);
	tcase_add_test(tc, test_igmp_query);
	tcase_add_test(tc, test_classify_multicast);
	suite_add_tcase(s, tc);
	return s;
}

SR_CHECK_MAIN(neigh_suite)
