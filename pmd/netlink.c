/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * netlink.c — rtnetlink requests and events for a host NIC (netlink.h).
 * Message layout from the kernel's uapi headers (linux/rtnetlink.h,
 * linux/neighbour.h, linux/if_addr.h); every attribute's length is checked
 * before it is read.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <linux/if_addr.h>
#include <linux/neighbour.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>

#include "netlink.h"

#define SR_NL_BUF 32768
#define SR_NL_REQ 256
#define SR_NL_TIMEOUT_MS 1000   /* a request socket never waits longer */

/* ---- addresses in the 16-byte form ---- */

static void sr_nl_to16(uint8_t out[16], int family, const void *a)
{
	if (family == AF_INET) {
		memset(out, 0, 10);
		out[10] = 0xff;
		out[11] = 0xff;
		memcpy(out + 12, a, 4);
	} else {
		memcpy(out, a, 16);
	}
}

static bool sr_nl_is_v4(const uint8_t ip[16])
{
	static const uint8_t pre[12] = { [10] = 0xff, [11] = 0xff };

	return memcmp(ip, pre, sizeof(pre)) == 0;
}

/* The family of ip, and where its bytes in that family start. */
static int sr_nl_family(const uint8_t ip[16], const uint8_t **bytes,
			uint16_t *alen)
{
	if (sr_nl_is_v4(ip)) {
		*bytes = ip + 12;
		*alen = 4;
		return AF_INET;
	}
	*bytes = ip;
	*alen = 16;
	return AF_INET6;
}

static uint16_t sr_nl_alen(int family)
{
	return family == AF_INET ? 4 : family == AF_INET6 ? 16 : 0;
}

/* ---- socket ---- */

int sr_nl_open(struct sr_nl *nl, uint32_t groups, bool nonblock)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK, .nl_groups = groups };
	struct timeval tv = { .tv_usec = SR_NL_TIMEOUT_MS * 1000 };
	int fd, rc;

	nl->fd = -1;
	nl->seq = 0;
	/*
	 * The receive buffer is the socket's, not a thread's: 32 KiB of TLS
	 * would put the drop-in libibverbs's whole TLS block in the static
	 * TLS that dlopen cannot grow (UCX and libfabric dlopen it).
	 */
	nl->buf = malloc(SR_NL_BUF);
	if (nl->buf == NULL)
		return -ENOMEM;
	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC |
		    (nonblock ? SOCK_NONBLOCK : 0), NETLINK_ROUTE);
	if (fd < 0) {
		rc = -errno;
		free(nl->buf);
		nl->buf = NULL;
		return rc;
	}
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0) {
		rc = -errno;
		close(fd);
		free(nl->buf);
		nl->buf = NULL;
		return rc;
	}
	if (!nonblock)
		setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	nl->fd = fd;
	return 0;
}

void sr_nl_close(struct sr_nl *nl)
{
	if (nl->fd >= 0)
		close(nl->fd);
	nl->fd = -1;
	free(nl->buf);
	nl->buf = NULL;
}

/* ---- building requests ---- */

struct sr_nl_req {
	union {
		struct nlmsghdr h;
		uint8_t buf[SR_NL_REQ];
	};
};

static void *sr_nl_req_init(struct sr_nl_req *r, uint16_t type,
			    uint16_t flags, size_t body)
{
	memset(r, 0, sizeof(*r));
	r->h.nlmsg_len = (uint32_t)NLMSG_LENGTH(body);
	r->h.nlmsg_type = type;
	r->h.nlmsg_flags = (uint16_t)(NLM_F_REQUEST | flags);
	return NLMSG_DATA(&r->h);
}

static void sr_nl_req_attr(struct sr_nl_req *r, uint16_t type,
			   const void *data, uint16_t len)
{
	struct rtattr *a = (struct rtattr *)(r->buf +
					     NLMSG_ALIGN(r->h.nlmsg_len));

	a->rta_type = type;
	a->rta_len = (uint16_t)RTA_LENGTH(len);
	memcpy(RTA_DATA(a), data, len);
	r->h.nlmsg_len = NLMSG_ALIGN(r->h.nlmsg_len) + RTA_ALIGN(a->rta_len);
}

/*
 * Send a request and read its answer: each message of it goes to fn (a
 * return of 1 ends the wait: a single reply is complete), NLMSG_DONE ends a
 * dump, an NLMSG_ERROR gives its errno (0: an ACK).
 */
typedef int (*sr_nl_msg_fn)(void *ctx, const struct nlmsghdr *h, size_t len);

static int sr_nl_talk(struct sr_nl *nl, struct sr_nl_req *r, sr_nl_msg_fn fn,
		      void *ctx)
{
	uint8_t *buf = nl->buf;
	uint32_t seq = ++nl->seq;

	r->h.nlmsg_seq = seq;
	if (send(nl->fd, r->buf, r->h.nlmsg_len, 0) < 0)
		return -errno;
	for (;;) {
		ssize_t n = recv(nl->fd, buf, SR_NL_BUF, 0);
		int left;

		if (n < 0)
			return errno == EAGAIN ? -ETIMEDOUT : -errno;
		left = (int)n;
		for (struct nlmsghdr *h = (struct nlmsghdr *)buf;
		     NLMSG_OK(h, left); h = NLMSG_NEXT(h, left)) {
			int rc;

			if (h->nlmsg_seq != seq)
				continue;       /* a late answer to an old request */
			if (h->nlmsg_type == NLMSG_DONE)
				return 0;
			if (h->nlmsg_type == NLMSG_ERROR) {
				const struct nlmsgerr *e = NLMSG_DATA(h);

				if (h->nlmsg_len < NLMSG_LENGTH(sizeof(*e)))
					return -EINVAL;
				return e->error;
			}
			rc = fn(ctx, h, h->nlmsg_len);
			if (rc != 0)
				return rc < 0 ? rc : 0;
		}
	}
}

/* ---- parsing ---- */

/* The attributes after a fixed header of hdrlen bytes, or -EINVAL. */
static int sr_nl_attrs(const struct nlmsghdr *h, size_t len, size_t hdrlen,
		       const struct rtattr **first, int *rlen)
{
	if (len < sizeof(*h) || h->nlmsg_len > len ||
	    h->nlmsg_len < NLMSG_LENGTH(hdrlen))
		return -EINVAL;
	*first = (const struct rtattr *)((const uint8_t *)NLMSG_DATA(h) +
					 NLMSG_ALIGN(hdrlen));
	*rlen = (int)h->nlmsg_len - (int)NLMSG_SPACE(hdrlen);
	if (*rlen < 0)
		*rlen = 0;
	return 0;
}

int sr_nl_parse_link(const struct nlmsghdr *h, size_t len, int *ifindex,
		     uint32_t *mtu)
{
	const struct ifinfomsg *ifi = NLMSG_DATA(h);
	const struct rtattr *a;
	int rlen;

	if (h->nlmsg_type != RTM_NEWLINK)
		return 0;
	if (sr_nl_attrs(h, len, sizeof(*ifi), &a, &rlen))
		return -EINVAL;
	*ifindex = ifi->ifi_index;
	*mtu = 0;
	for (; RTA_OK(a, rlen); a = RTA_NEXT(a, rlen)) {
		if (a->rta_type != IFLA_MTU)
			continue;
		if (RTA_PAYLOAD(a) != sizeof(*mtu))
			return -EINVAL;
		memcpy(mtu, RTA_DATA(a), sizeof(*mtu));
	}
	return 1;
}

int sr_nl_parse_addr(const struct nlmsghdr *h, size_t len,
		     struct sr_nl_addr *out)
{
	const struct ifaddrmsg *ifa = NLMSG_DATA(h);
	const void *local = NULL, *addr = NULL;
	const struct rtattr *a;
	uint32_t flags;
	uint16_t alen;
	int rlen;

	if (sr_nl_attrs(h, len, sizeof(*ifa), &a, &rlen))
		return -EINVAL;
	if (h->nlmsg_type != RTM_NEWADDR && h->nlmsg_type != RTM_DELADDR)
		return 0;
	alen = sr_nl_alen(ifa->ifa_family);
	if (alen == 0)
		return 0;
	flags = ifa->ifa_flags;
	for (; RTA_OK(a, rlen); a = RTA_NEXT(a, rlen)) {
		size_t plen = RTA_PAYLOAD(a);

		switch (a->rta_type) {
		case IFA_ADDRESS:
		case IFA_LOCAL:
			if (plen != alen)
				return -EINVAL;
			if (a->rta_type == IFA_LOCAL)
				local = RTA_DATA(a);
			else
				addr = RTA_DATA(a);
			break;
		case IFA_FLAGS:     /* the 32-bit flags (ifa_flags holds 8) */
			if (plen != sizeof(flags))
				return -EINVAL;
			memcpy(&flags, RTA_DATA(a), sizeof(flags));
			break;
		default:
			break;
		}
	}
	if (local == NULL)
		local = addr;
	if (local == NULL)
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	sr_nl_to16(out->ip, ifa->ifa_family, local);
	out->prefix = ifa->ifa_prefixlen;
	out->family = ifa->ifa_family;
	out->flags = flags;
	out->ifindex = (int)ifa->ifa_index;
	return 1;
}

int sr_nl_parse_route(const struct nlmsghdr *h, size_t len,
		      struct sr_nl_route *out)
{
	const struct rtmsg *rt = NLMSG_DATA(h);
	const struct rtattr *a;
	int rlen;

	if (sr_nl_attrs(h, len, sizeof(*rt), &a, &rlen))
		return -EINVAL;
	if (h->nlmsg_type != RTM_NEWROUTE || sr_nl_alen(rt->rtm_family) == 0)
		return 0;
	memset(out, 0, sizeof(*out));
	for (; RTA_OK(a, rlen); a = RTA_NEXT(a, rlen)) {
		size_t plen = RTA_PAYLOAD(a);
		const uint8_t *d = RTA_DATA(a);

		switch (a->rta_type) {
		case RTA_GATEWAY:
			if (plen != sr_nl_alen(rt->rtm_family))
				return -EINVAL;
			sr_nl_to16(out->gw, rt->rtm_family, d);
			out->has_gw = true;
			break;
		case RTA_VIA: {
			/* an IPv4 route through an IPv6 gateway (RFC 5549) */
			struct rtvia via;
			uint16_t vlen;

			if (plen < sizeof(via))
				return -EINVAL;
			memcpy(&via, d, sizeof(via));
			vlen = sr_nl_alen(via.rtvia_family);
			if (vlen == 0 || plen < sizeof(via) + vlen)
				return -EINVAL;
			sr_nl_to16(out->gw, via.rtvia_family, d + sizeof(via));
			out->has_gw = true;
			break;
		}
		case RTA_OIF:
			if (plen != sizeof(int))
				return -EINVAL;
			memcpy(&out->oif, d, sizeof(int));
			break;
		default:
			break;
		}
	}
	return 1;
}

int sr_nl_parse_neigh(const struct nlmsghdr *h, size_t len,
		      struct sr_nl_neigh *out)
{
	const struct ndmsg *nd = NLMSG_DATA(h);
	const struct rtattr *a;
	bool has_dst = false;
	int rlen;

	if (sr_nl_attrs(h, len, sizeof(*nd), &a, &rlen))
		return -EINVAL;
	if (h->nlmsg_type != RTM_NEWNEIGH || sr_nl_alen(nd->ndm_family) == 0)
		return 0;
	memset(out, 0, sizeof(*out));
	for (; RTA_OK(a, rlen); a = RTA_NEXT(a, rlen)) {
		size_t plen = RTA_PAYLOAD(a);

		switch (a->rta_type) {
		case NDA_DST:
			if (plen != sr_nl_alen(nd->ndm_family))
				return -EINVAL;
			sr_nl_to16(out->ip, nd->ndm_family, RTA_DATA(a));
			has_dst = true;
			break;
		case NDA_LLADDR:
			/* Ethernet only; other lengths are not ours to use */
			if (plen == 6) {
				memcpy(out->mac, RTA_DATA(a), 6);
				out->has_mac = true;
			}
			break;
		default:
			break;
		}
	}
	if (!has_dst)
		return -EINVAL;
	out->state = nd->ndm_state;
	out->ifindex = nd->ndm_ifindex;
	return 1;
}

/* ---- requests ---- */

struct sr_nl_addr_dump {
	int ifindex;
	struct sr_nl_addr *out;
	uint32_t n, max;
};

static int sr_nl_addr_one(void *ctx, const struct nlmsghdr *h, size_t len)
{
	struct sr_nl_addr_dump *d = ctx;
	struct sr_nl_addr a;

	if (sr_nl_parse_addr(h, len, &a) != 1 || a.ifindex != d->ifindex ||
	    h->nlmsg_type != RTM_NEWADDR)
		return 0;
	/* not yet ours (DAD running) or never (DAD failed) */
	if (a.flags & (IFA_F_TENTATIVE | IFA_F_DADFAILED))
		return 0;
	if (d->n < d->max)
		d->out[d->n++] = a;
	return 0;
}

int sr_nl_addrs(struct sr_nl *nl, int ifindex, struct sr_nl_addr *out,
		uint32_t max)
{
	struct sr_nl_addr_dump d = { .ifindex = ifindex, .out = out,
				     .max = max };
	struct sr_nl_req r;
	struct ifaddrmsg *ifa;
	int rc;

	ifa = sr_nl_req_init(&r, RTM_GETADDR, NLM_F_DUMP, sizeof(*ifa));
	ifa->ifa_family = AF_UNSPEC;
	ifa->ifa_index = (uint32_t)ifindex;
	rc = sr_nl_talk(nl, &r, sr_nl_addr_one, &d);
	return rc < 0 ? rc : (int)d.n;
}

static int sr_nl_route_one(void *ctx, const struct nlmsghdr *h, size_t len)
{
	int rc = sr_nl_parse_route(h, len, ctx);

	return rc == 1 ? 1 : rc;
}

int sr_nl_route_get(struct sr_nl *nl, const uint8_t ip[16], int oif,
		    struct sr_nl_route *out)
{
	struct sr_nl_req r;
	struct rtmsg *rt;
	const uint8_t *bytes;
	uint16_t alen;
	int family = sr_nl_family(ip, &bytes, &alen), rc;

	rt = sr_nl_req_init(&r, RTM_GETROUTE, 0, sizeof(*rt));
	rt->rtm_family = (uint8_t)family;
	rt->rtm_dst_len = (uint8_t)(alen * 8);
	sr_nl_req_attr(&r, RTA_DST, bytes, alen);
	if (oif)
		sr_nl_req_attr(&r, RTA_OIF, &oif, sizeof(oif));
	memset(out, 0, sizeof(*out));
	out->oif = -1;
	rc = sr_nl_talk(nl, &r, sr_nl_route_one, out);
	if (rc == 0 && out->oif == -1)
		return -EHOSTUNREACH;   /* no reply came */
	return rc;
}

static int sr_nl_neigh_one(void *ctx, const struct nlmsghdr *h, size_t len)
{
	int rc = sr_nl_parse_neigh(h, len, ctx);

	return rc == 1 ? 1 : rc;
}

int sr_nl_neigh_get(struct sr_nl *nl, int ifindex, const uint8_t ip[16],
		    struct sr_nl_neigh *out)
{
	struct sr_nl_req r;
	struct ndmsg *nd;
	const uint8_t *bytes;
	uint16_t alen;
	int family = sr_nl_family(ip, &bytes, &alen), rc;

	nd = sr_nl_req_init(&r, RTM_GETNEIGH, 0, sizeof(*nd));
	nd->ndm_family = (uint8_t)family;
	nd->ndm_ifindex = ifindex;
	sr_nl_req_attr(&r, NDA_DST, bytes, alen);
	memset(out, 0, sizeof(*out));
	out->ifindex = -1;
	rc = sr_nl_talk(nl, &r, sr_nl_neigh_one, out);
	if (rc == 0 && out->ifindex == -1)
		return -ENOENT;
	return rc;
}

/* An answer to a request that only wants its ACK. */
static int sr_nl_ignore(void *ctx, const struct nlmsghdr *h, size_t len)
{
	(void)ctx;
	(void)h;
	(void)len;
	return 0;
}

int sr_nl_neigh_probe(struct sr_nl *nl, int ifindex, const uint8_t ip[16])
{
	struct sr_nl_req r;
	struct ndmsg *nd;
	const uint8_t *bytes;
	uint16_t alen;
	int family = sr_nl_family(ip, &bytes, &alen);

	/*
	 * NTF_USE makes the kernel act as if it had a packet for ip: it
	 * creates the entry when there is none (NLM_F_CREATE) and starts its
	 * own ARP / ND resolution with its own retries; a valid entry is left
	 * as it is.
	 */
	nd = sr_nl_req_init(&r, RTM_NEWNEIGH, NLM_F_CREATE | NLM_F_ACK,
			    sizeof(*nd));
	nd->ndm_family = (uint8_t)family;
	nd->ndm_ifindex = ifindex;
	nd->ndm_state = NUD_NONE;
	nd->ndm_flags = NTF_USE;
	sr_nl_req_attr(&r, NDA_DST, bytes, alen);
	return sr_nl_talk(nl, &r, sr_nl_ignore, NULL);
}

int sr_nl_events(struct sr_nl *nl, int ifindex, uint32_t *mtu)
{
	uint8_t *buf = nl->buf;
	int count = 0;

	for (;;) {
		ssize_t n = recv(nl->fd, buf, SR_NL_BUF, MSG_DONTWAIT);
		int left;

		if (n < 0) {
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				return count;
			if (errno == EINTR)
				continue;
			return -errno;  /* ENOBUFS: messages were lost */
		}
		left = (int)n;
		for (struct nlmsghdr *h = (struct nlmsghdr *)buf;
		     NLMSG_OK(h, left); h = NLMSG_NEXT(h, left)) {
			struct sr_nl_addr a;
			uint32_t m;
			int idx;

			if (sr_nl_parse_addr(h, h->nlmsg_len, &a) == 1 &&
			    a.ifindex == ifindex)
				count++;
			else if (sr_nl_parse_link(h, h->nlmsg_len, &idx, &m) == 1 &&
				 idx == ifindex && m != 0)
				*mtu = m;
		}
	}
}
