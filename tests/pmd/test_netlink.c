/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_netlink.c — the rtnetlink message parsers of a host NIC
 * (pmd/netlink.h): addresses, links (MTU), routes and neighbours as the kernel sends
 * them, built here byte by byte, and malformed ones.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <string.h>

#include <linux/if_addr.h>
#include <linux/neighbour.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>

#include "netlink.h"
#include "sr_check.h"

/* A message under construction, aligned as the kernel's are. */
struct msg {
	union {
		struct nlmsghdr h;
		uint8_t buf[512];
	};
};

static void *msg_init(struct msg *m, uint16_t type, size_t body)
{
	memset(m, 0, sizeof(*m));
	m->h.nlmsg_type = type;
	m->h.nlmsg_len = (uint32_t)NLMSG_LENGTH(body);
	return NLMSG_DATA(&m->h);
}

static void msg_attr(struct msg *m, uint16_t type, const void *data,
		     uint16_t len)
{
	struct rtattr *a = (struct rtattr *)(m->buf +
					     NLMSG_ALIGN(m->h.nlmsg_len));

	a->rta_type = type;
	a->rta_len = (uint16_t)RTA_LENGTH(len);
	memcpy(RTA_DATA(a), data, len);
	m->h.nlmsg_len = NLMSG_ALIGN(m->h.nlmsg_len) + RTA_ALIGN(a->rta_len);
}

static const uint8_t mapped_pre[12] = { [10] = 0xff, 0xff };

START_TEST(test_addr_ipv4_local_wins)
{
	uint8_t local[4] = { 10, 0, 0, 1 }, peer[4] = { 10, 0, 0, 9 };
	struct sr_nl_addr a;
	struct ifaddrmsg *ifa;
	struct msg m;

	ifa = msg_init(&m, RTM_NEWADDR, sizeof(*ifa));
	ifa->ifa_family = AF_INET;
	ifa->ifa_prefixlen = 24;
	ifa->ifa_index = 7;
	msg_attr(&m, IFA_ADDRESS, peer, 4);
	msg_attr(&m, IFA_LOCAL, local, 4);
	ck_assert_int_eq(sr_nl_parse_addr(&m.h, m.h.nlmsg_len, &a), 1);
	ck_assert_mem_eq(a.ip, mapped_pre, 12);
	ck_assert_mem_eq(a.ip + 12, local, 4);
	ck_assert_uint_eq(a.prefix, 24);
	ck_assert_int_eq(a.ifindex, 7);
	ck_assert_uint_eq(a.family, AF_INET);
	/* RTM_DELADDR parses the same (an event) */
	m.h.nlmsg_type = RTM_DELADDR;
	ck_assert_int_eq(sr_nl_parse_addr(&m.h, m.h.nlmsg_len, &a), 1);
}
END_TEST

START_TEST(test_addr_ipv6_flags)
{
	uint8_t ip6[16];
	uint32_t flags = IFA_F_TENTATIVE | IFA_F_MANAGETEMPADDR;
	struct sr_nl_addr a;
	struct ifaddrmsg *ifa;
	struct msg m;

	inet_pton(AF_INET6, "fd81::1", ip6);
	ifa = msg_init(&m, RTM_NEWADDR, sizeof(*ifa));
	ifa->ifa_family = AF_INET6;
	ifa->ifa_prefixlen = 64;
	ifa->ifa_flags = IFA_F_TENTATIVE;
	ifa->ifa_index = 3;
	msg_attr(&m, IFA_ADDRESS, ip6, 16);
	msg_attr(&m, IFA_FLAGS, &flags, 4);
	ck_assert_int_eq(sr_nl_parse_addr(&m.h, m.h.nlmsg_len, &a), 1);
	ck_assert_mem_eq(a.ip, ip6, 16);
	ck_assert_uint_eq(a.flags, flags);     /* the 32-bit flags win */
}
END_TEST

START_TEST(test_addr_malformed)
{
	uint8_t ip6[16] = { 0xfd }, v4[4] = { 1, 2, 3, 4 };
	struct sr_nl_addr a;
	struct ifaddrmsg *ifa;
	struct msg m;

	/* an IPv4 address of IPv6 length */
	ifa = msg_init(&m, RTM_NEWADDR, sizeof(*ifa));
	ifa->ifa_family = AF_INET;
	msg_attr(&m, IFA_LOCAL, ip6, 16);
	ck_assert_int_eq(sr_nl_parse_addr(&m.h, m.h.nlmsg_len, &a), -EINVAL);
	/* no address at all */
	ifa = msg_init(&m, RTM_NEWADDR, sizeof(*ifa));
	ifa->ifa_family = AF_INET;
	ck_assert_int_eq(sr_nl_parse_addr(&m.h, m.h.nlmsg_len, &a), -EINVAL);
	/* the message claims more than the buffer holds */
	msg_attr(&m, IFA_LOCAL, v4, 4);
	ck_assert_int_eq(sr_nl_parse_addr(&m.h, m.h.nlmsg_len - 1, &a),
			 -EINVAL);
	/* shorter than its fixed header */
	m.h.nlmsg_len = NLMSG_LENGTH(2);
	ck_assert_int_eq(sr_nl_parse_addr(&m.h, sizeof(m), &a), -EINVAL);
	/* another family, another kind */
	ifa = msg_init(&m, RTM_NEWADDR, sizeof(*ifa));
	ifa->ifa_family = AF_PACKET;
	msg_attr(&m, IFA_ADDRESS, v4, 4);
	ck_assert_int_eq(sr_nl_parse_addr(&m.h, m.h.nlmsg_len, &a), 0);
	m.h.nlmsg_type = RTM_NEWLINK;
	ck_assert_int_eq(sr_nl_parse_addr(&m.h, m.h.nlmsg_len, &a), 0);
	/* an attribute running past the message is not read */
	ifa = msg_init(&m, RTM_NEWADDR, sizeof(*ifa));
	ifa->ifa_family = AF_INET;
	msg_attr(&m, IFA_LOCAL, v4, 4);
	m.h.nlmsg_len -= 2;
	ck_assert_int_eq(sr_nl_parse_addr(&m.h, m.h.nlmsg_len, &a), -EINVAL);
}
END_TEST

START_TEST(test_link_mtu)
{
	uint32_t mtu = 1000, bad = 7;
	char name[] = "veth0";
	struct ifinfomsg *ifi;
	struct msg m;
	int idx;

	ifi = msg_init(&m, RTM_NEWLINK, sizeof(*ifi));
	ifi->ifi_index = 5;
	msg_attr(&m, IFLA_IFNAME, name, sizeof(name));
	msg_attr(&m, IFLA_MTU, &mtu, 4);
	mtu = 0;
	ck_assert_int_eq(sr_nl_parse_link(&m.h, m.h.nlmsg_len, &idx, &mtu), 1);
	ck_assert_int_eq(idx, 5);
	ck_assert_uint_eq(mtu, 1000);
	/* no IFLA_MTU: 0 */
	ifi = msg_init(&m, RTM_NEWLINK, sizeof(*ifi));
	ifi->ifi_index = 5;
	ck_assert_int_eq(sr_nl_parse_link(&m.h, m.h.nlmsg_len, &idx, &mtu), 1);
	ck_assert_uint_eq(mtu, 0);
	/* an MTU of the wrong size, a message past its buffer, another kind */
	msg_attr(&m, IFLA_MTU, &bad, 2);
	ck_assert_int_eq(sr_nl_parse_link(&m.h, m.h.nlmsg_len, &idx, &mtu),
			 -EINVAL);
	ck_assert_int_eq(sr_nl_parse_link(&m.h, m.h.nlmsg_len - 1, &idx, &mtu),
			 -EINVAL);
	m.h.nlmsg_type = RTM_NEWADDR;
	ck_assert_int_eq(sr_nl_parse_link(&m.h, m.h.nlmsg_len, &idx, &mtu), 0);
}
END_TEST

START_TEST(test_route_gateway)
{
	uint8_t gw[4] = { 10, 82, 1, 254 }, dst[4] = { 10, 82, 2, 1 };
	int oif = 5;
	struct sr_nl_route r;
	struct rtmsg *rt;
	struct msg m;

	rt = msg_init(&m, RTM_NEWROUTE, sizeof(*rt));
	rt->rtm_family = AF_INET;
	rt->rtm_dst_len = 32;
	msg_attr(&m, RTA_DST, dst, 4);
	msg_attr(&m, RTA_OIF, &oif, sizeof(oif));
	msg_attr(&m, RTA_GATEWAY, gw, 4);
	ck_assert_int_eq(sr_nl_parse_route(&m.h, m.h.nlmsg_len, &r), 1);
	ck_assert(r.has_gw);
	ck_assert_mem_eq(r.gw, mapped_pre, 12);
	ck_assert_mem_eq(r.gw + 12, gw, 4);
	ck_assert_int_eq(r.oif, 5);

	/* on the link: no gateway */
	rt = msg_init(&m, RTM_NEWROUTE, sizeof(*rt));
	rt->rtm_family = AF_INET;
	msg_attr(&m, RTA_OIF, &oif, sizeof(oif));
	ck_assert_int_eq(sr_nl_parse_route(&m.h, m.h.nlmsg_len, &r), 1);
	ck_assert(!r.has_gw);

	/* a gateway of the wrong length */
	msg_attr(&m, RTA_GATEWAY, gw, 3);
	ck_assert_int_eq(sr_nl_parse_route(&m.h, m.h.nlmsg_len, &r), -EINVAL);
}
END_TEST

START_TEST(test_route_via_ipv6)
{
	uint8_t buf[2 + 16];
	struct rtvia via = { .rtvia_family = AF_INET6 };
	struct sr_nl_route r;
	struct rtmsg *rt;
	struct msg m;

	memcpy(buf, &via, sizeof(via));
	inet_pton(AF_INET6, "fe80::1", buf + sizeof(via));
	rt = msg_init(&m, RTM_NEWROUTE, sizeof(*rt));
	rt->rtm_family = AF_INET;
	msg_attr(&m, RTA_VIA, buf, sizeof(buf));
	ck_assert_int_eq(sr_nl_parse_route(&m.h, m.h.nlmsg_len, &r), 1);
	ck_assert(r.has_gw);
	ck_assert_mem_eq(r.gw, buf + sizeof(via), 16);
	/* truncated */
	rt = msg_init(&m, RTM_NEWROUTE, sizeof(*rt));
	rt->rtm_family = AF_INET;
	msg_attr(&m, RTA_VIA, buf, 10);
	ck_assert_int_eq(sr_nl_parse_route(&m.h, m.h.nlmsg_len, &r), -EINVAL);
}
END_TEST

START_TEST(test_neigh)
{
	uint8_t ip6[16], mac[6] = { 0x02, 0, 0, 0, 0, 0x42 };
	struct sr_nl_neigh n;
	struct ndmsg *nd;
	struct msg m;

	inet_pton(AF_INET6, "fd81::2", ip6);
	nd = msg_init(&m, RTM_NEWNEIGH, sizeof(*nd));
	nd->ndm_family = AF_INET6;
	nd->ndm_ifindex = 9;
	nd->ndm_state = NUD_STALE;
	msg_attr(&m, NDA_DST, ip6, 16);
	msg_attr(&m, NDA_LLADDR, mac, 6);
	ck_assert_int_eq(sr_nl_parse_neigh(&m.h, m.h.nlmsg_len, &n), 1);
	ck_assert_mem_eq(n.ip, ip6, 16);
	ck_assert(n.has_mac);
	ck_assert_mem_eq(n.mac, mac, 6);
	ck_assert_int_eq(n.ifindex, 9);
	ck_assert(n.state & SR_NL_NUD_VALID);

	/* resolving: no MAC yet, a state that is not valid */
	nd = msg_init(&m, RTM_NEWNEIGH, sizeof(*nd));
	nd->ndm_family = AF_INET6;
	nd->ndm_state = NUD_INCOMPLETE;
	msg_attr(&m, NDA_DST, ip6, 16);
	ck_assert_int_eq(sr_nl_parse_neigh(&m.h, m.h.nlmsg_len, &n), 1);
	ck_assert(!n.has_mac);
	ck_assert(!(n.state & SR_NL_NUD_VALID));
	ck_assert(!(NUD_FAILED & SR_NL_NUD_VALID));

	/* no destination, or one of the wrong length */
	nd = msg_init(&m, RTM_NEWNEIGH, sizeof(*nd));
	nd->ndm_family = AF_INET;
	msg_attr(&m, NDA_LLADDR, mac, 6);
	ck_assert_int_eq(sr_nl_parse_neigh(&m.h, m.h.nlmsg_len, &n), -EINVAL);
	msg_attr(&m, NDA_DST, ip6, 16);
	ck_assert_int_eq(sr_nl_parse_neigh(&m.h, m.h.nlmsg_len, &n), -EINVAL);
}
END_TEST

static Suite *netlink_suite(void)
{
	Suite *s = suite_create("pmd/netlink");
	TCase *tc = tcase_create("parse");

	tcase_add_test(tc, test_addr_ipv4_local_wins);
	tcase_add_test(tc, test_addr_ipv6_flags);
	tcase_add_test(tc, test_addr_malformed);
	tcase_add_test(tc, test_link_mtu);
	tcase_add_test(tc, test_route_gateway);
	tcase_add_test(tc, test_route_via_ipv6);
	tcase_add_test(tc, test_neigh);
	suite_add_tcase(s, tc);
	return s;
}

SR_CHECK_MAIN(netlink_suite)
