/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * roce_redirect.bpf.c — the XDP program sroce attaches to a host NIC it
 * shares with the kernel (port = iface:NAME, pmd/CONFIG.md).  It hands
 * sroce's AF_XDP sockets only RoCEv2 frames addressed to this host:
 *   Ethernet, untagged or with one 802.1Q tag, unicast destination MAC
 *   (the NIC's own filter made it ours), or a multicast one when the IP
 *   destination is a multicast group (broadcast and every other multicast
 *   frame are the kernel's: ARP, ND, IGMP, ...), then
 *   IPv4 (any header length, not a fragment) or IPv6 (UDP as the first
 *   next header: RoCEv2 sends no extension headers), then
 *   UDP destination port 4791,
 *   and an IP destination in sroce_addrs when user space has filled it
 *   (pmd/xdp.c writes the interface's addresses there, and the groups
 *   sroce's QPs joined; while it is empty, every such frame counts as
 *   ours).
 * Everything else is XDP_PASS: the kernel's traffic is never touched.
 *
 * DPDK's net_af_xdp (22.11) loads it from the xdp_prog= devarg, finds the
 * XSKMAP by the name xsks_map and puts the socket of queue q at key q; so
 * the key is the receive queue.  A queue without a socket (sroce stopped,
 * or crashed before it detached the program) fails the redirect, and its
 * flags' low bits, XDP_PASS, make that a pass: the frame goes to the
 * kernel rather than nowhere.
 *
 * Built by meson with clang -O2 -g -target bpf (pmd/meson.build).
 */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/udp.h>

#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>

#define SR_XDP_QUEUES_MAX 64
#define SR_XDP_ADDRS_MAX 512     /* addresses and multicast groups */
#define SR_ROCE_PORT 4791
#define SR_VLAN_HLEN 4

struct {
	__uint(type, BPF_MAP_TYPE_XSKMAP);
	__uint(max_entries, SR_XDP_QUEUES_MAX);
	__type(key, __u32);
	__type(value, __u32);
} xsks_map SEC(".maps");

/* The host's addresses, IPv4 as ::ffff:a.b.c.d; the value is unused. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, SR_XDP_ADDRS_MAX);
	__type(key, struct in6_addr);
	__type(value, __u8);
} sroce_addrs SEC(".maps");

/* [0] frames redirected, [1] RoCE frames to an address not ours. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 2);
	__type(key, __u32);
	__type(value, __u64);
} sroce_stats SEC(".maps");

static __always_inline void sr_count(__u32 k)
{
	__u64 *v = bpf_map_lookup_elem(&sroce_stats, &k);

	if (v)
		*v += 1;
}

/* True when dst is one of ours, or when user space has said nothing yet. */
static __always_inline int sr_addr_ours(const struct in6_addr *dst)
{
	struct in6_addr any = {};
	__u8 *v;

	if (bpf_map_lookup_elem(&sroce_addrs, dst))
		return 1;
	/* The all-zero key is sroce's "filled" mark (xdp.c). */
	v = bpf_map_lookup_elem(&sroce_addrs, &any);
	return v == NULL;
}

SEC("xdp")
int sroce_redirect(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *end = (void *)(long)ctx->data_end;
	struct ethhdr *eth = data;
	struct in6_addr dst = {};
	struct udphdr *udp;
	__u16 proto;
	int group;
	void *l3;

	if ((void *)(eth + 1) > end)
		return XDP_PASS;
	group = eth->h_dest[0] & 1;
	proto = eth->h_proto;
	l3 = eth + 1;
	if (proto == bpf_htons(ETH_P_8021Q)) {
		if (l3 + SR_VLAN_HLEN > end)
			return XDP_PASS;
		proto = *(__be16 *)(l3 + 2);
		l3 += SR_VLAN_HLEN;
	}
	if (proto == bpf_htons(ETH_P_IP)) {
		struct iphdr *ip = l3;

		if ((void *)(ip + 1) > end || ip->ihl < 5 ||
		    ip->protocol != IPPROTO_UDP ||
		    (ip->frag_off & bpf_htons(0x3fff)) != 0)
			return XDP_PASS;
		udp = l3 + ip->ihl * 4;
		dst.s6_addr[10] = 0xff;
		dst.s6_addr[11] = 0xff;
		__builtin_memcpy(&dst.s6_addr[12], &ip->daddr, 4);
	} else if (proto == bpf_htons(ETH_P_IPV6)) {
		struct ipv6hdr *ip6 = l3;

		if ((void *)(ip6 + 1) > end || ip6->nexthdr != IPPROTO_UDP)
			return XDP_PASS;
		udp = (void *)(ip6 + 1);
		__builtin_memcpy(&dst, &ip6->daddr, sizeof(dst));
	} else {
		return XDP_PASS;
	}
	if ((void *)(udp + 1) > end || udp->dest != bpf_htons(SR_ROCE_PORT))
		return XDP_PASS;
	/* a multicast MAC carries only a group's datagrams to us */
	if (group && dst.s6_addr[0] != 0xff &&
	    !(dst.s6_addr[10] == 0xff && (dst.s6_addr[12] & 0xf0) == 0xe0))
		return XDP_PASS;
	if (!sr_addr_ours(&dst)) {
		sr_count(1);
		return XDP_PASS;
	}
	sr_count(0);
	return bpf_redirect_map(&xsks_map, ctx->rx_queue_index, XDP_PASS);
}

char _license[] SEC("license") = "Dual BSD/GPL";
