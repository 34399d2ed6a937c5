/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * hostnic.c — a host NIC shared with the kernel (hostnic.h): choosing and
 * setting up the port, the af_packet path's socket filter and nftables
 * rule, the interface's addresses, and peers through the kernel's tables.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/if_packet.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <rte_log.h>

#include "dev_priv.h"
#include "hostnic.h"
#include "netlink.h"
#include "qp/mcast.h"
#include "xdp.h"

#define SR_HOST_POLL_NS (5ull * 1000 * 1000)   /* address changes */
/*
 * How long a MAC the kernel gave is used before asking it again: the
 * kernel's answer is two netlink round trips (route, neighbour), and
 * sroced resolves every frame a client sends out of the port.
 */
#define SR_HOST_NEIGH_FRESH_NS (1000ull * 1000 * 1000)
#define SR_HOST_ADDRS_MAX 32
#define SR_HOST_FD_SCAN 4096                   /* af_packet sockets */
#define SR_ROCE_UDP_PORT 4791

struct sr_host {
	char ifname[IF_NAMESIZE];
	int ifindex;
	bool xdp;                   /* AF_XDP, else af_packet */
	bool nft;                   /* our nftables table is in place */
	int lock_fd;
	struct sr_nl req;           /* requests, answered synchronously */
	struct sr_nl ev;            /* address and link events, nonblocking */
	bool resync;                /* read the addresses again */
	uint32_t mtu_max;           /* IP MTU the port was set up for */
	pid_t owner;                /* the process that opened it */
};

/* ---- the interface ---- */

/* Flags of the interface (SIOCGIFFLAGS), or -errno. */
static int sr_host_ifflags(const char *name)
{
	struct ifreq ifr;
	int fd, rc;

	memset(&ifr, 0, sizeof(ifr));
	strcpy(ifr.ifr_name, name);
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	rc = ioctl(fd, SIOCGIFFLAGS, &ifr) == 0 ? ifr.ifr_flags : -errno;
	close(fd);
	return rc;
}

/*
 * One sroce process per interface: an flock on a file named by the
 * network namespace and the interface.  The kernel drops it when the
 * process dies, so whoever holds it knows a program of ours left attached
 * is stale.
 */
static int sr_host_lock(struct sr_host *h, const char *run_dir, char *err,
			size_t errlen)
{
	char path[SR_CONFIG_STR_MAX + 64];
	struct stat ns;

	if (stat("/proc/self/ns/net", &ns) != 0)
		ns.st_ino = 0;
	if (mkdir(run_dir, 0755) != 0 && errno != EEXIST) {
		snprintf(err, errlen, "%s: %s", run_dir, strerror(errno));
		return -errno;
	}
	snprintf(path, sizeof(path), "%s/iface-%lu-%s.lock", run_dir,
		 (unsigned long)ns.st_ino, h->ifname);
	h->lock_fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (h->lock_fd < 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -errno;
	}
	if (flock(h->lock_fd, LOCK_EX | LOCK_NB) != 0) {
		snprintf(err, errlen,
			 "interface '%s' is in use by another sroce process",
			 h->ifname);
		return -EBUSY;
	}
	return 0;
}

/* ---- nftables (af_packet path) ---- */

/* Run nft with a script on its stdin; 0 when it succeeded. */
static int sr_host_nft(const char *script)
{
	FILE *p = popen("nft -f - >/dev/null 2>&1", "w");

	if (p == NULL)
		return -errno;
	fputs(script, p);
	return pclose(p) == 0 ? 0 : -EIO;
}

/* Our table's name: sroce_ and the interface's name in [A-Za-z0-9_]. */
static void sr_host_nft_table(const struct sr_host *h, char *buf, size_t len)
{
	size_t n = (size_t)snprintf(buf, len, "sroce_%s", h->ifname);

	for (size_t i = 6; i < n && i < len; i++)
		if (!((buf[i] >= 'a' && buf[i] <= 'z') ||
		      (buf[i] >= 'A' && buf[i] <= 'Z') ||
		      (buf[i] >= '0' && buf[i] <= '9')))
			buf[i] = '_';
}

/*
 * The af_packet socket sees a copy of every frame; the kernel's stack gets
 * the original and, with no UDP socket on 4791, answers each RoCEv2 frame
 * with ICMP port unreachable.  This rule drops those frames before the
 * stack, in prerouting (so before conntrack's work too) and only when they
 * are to a local address (a forwarding host keeps forwarding).  The table
 * is created, deleted and created again in one transaction: a table a
 * crashed process left is replaced, never doubled.
 */
static int sr_host_nft_add(struct sr_host *h)
{
	char table[IF_NAMESIZE + 8], script[1024];

	sr_host_nft_table(h, table, sizeof(table));
	snprintf(script, sizeof(script),
		 "table inet %s\n"
		 "delete table inet %s\n"
		 "table inet %s {\n"
		 "\tchain roce_in {\n"
		 "\t\ttype filter hook prerouting priority raw; policy accept;\n"
		 "\t\tiifname \"%s\" udp dport %u fib daddr type local drop\n"
		 "\t}\n"
		 "}\n", table, table, table, h->ifname, SR_ROCE_UDP_PORT);
	return sr_host_nft(script);
}

static void sr_host_nft_del(struct sr_host *h)
{
	char table[IF_NAMESIZE + 8], script[128];

	sr_host_nft_table(h, table, sizeof(table));
	/* create-then-delete: no error when there is none */
	snprintf(script, sizeof(script),
		 "table inet %s\ndelete table inet %s\n", table, table);
	sr_host_nft(script);
}

/* ---- af_packet's socket filter ---- */

/*
 * Classic BPF: accept UDP to port 4791 over IPv4 (not a fragment) or IPv6
 * (UDP the first next header), untagged or with one 802.1Q tag in the
 * frame; drop the rest.  (A tag the NIC stripped into metadata leaves the
 * frame untagged here; DPDK's af_packet puts it back.)  Offsets: Ethernet
 * type at 12, behind a tag at 16; the IP header at 14 or 18.
 */
#define SR_BPF_STMT(c, k) { (uint16_t)(c), 0, 0, (uint32_t)(k) }
#define SR_BPF_JUMP(c, k, t, f) { (uint16_t)(c), (uint8_t)(t), (uint8_t)(f), (uint32_t)(k) }

#define SR_BPF_L3(base)                                                      \
	/* +0 */ SR_BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0x0800, 0, 7),       \
	/* IPv4: UDP, not a fragment, then the UDP header after IHL words */ \
	SR_BPF_STMT(BPF_LD | BPF_B | BPF_ABS, (base) + 9),                   \
	SR_BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 17, 0, 11),                   \
	SR_BPF_STMT(BPF_LD | BPF_H | BPF_ABS, (base) + 6),                   \
	SR_BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, 0x3fff, 9, 0),              \
	SR_BPF_STMT(BPF_LDX | BPF_B | BPF_MSH, (base)),                      \
	SR_BPF_STMT(BPF_LD | BPF_H | BPF_IND, (base) + 2),                   \
	SR_BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SR_ROCE_UDP_PORT, 5, 6),      \
	/* +8 */ SR_BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0x86dd, 0, 5),       \
	/* IPv6: next header UDP, port right after the fixed header */      \
	SR_BPF_STMT(BPF_LD | BPF_B | BPF_ABS, (base) + 6),                   \
	SR_BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 17, 0, 3),                    \
	SR_BPF_STMT(BPF_LD | BPF_H | BPF_ABS, (base) + 40 + 2),              \
	SR_BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SR_ROCE_UDP_PORT, 0, 1),      \
	/* +13 */ SR_BPF_STMT(BPF_RET | BPF_K, 0x40000),                     \
	SR_BPF_STMT(BPF_RET | BPF_K, 0)

static const struct sock_filter sr_host_filter[] = {
	SR_BPF_STMT(BPF_LD | BPF_H | BPF_ABS, 12),
	SR_BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0x8100, 0, 2),
	SR_BPF_STMT(BPF_LD | BPF_H | BPF_ABS, 16),
	SR_BPF_JUMP(BPF_JA, 15, 0, 0),     /* to the tagged block */
	SR_BPF_L3(14),                     /* 15 instructions */
	SR_BPF_L3(18),
};

/*
 * DPDK's af_packet has no devarg for a filter, so sroce finds its sockets:
 * the AF_PACKET sockets of this process bound to the interface.  Returns
 * how many took the filter.
 */
static int sr_host_filter_attach(const struct sr_host *h)
{
	struct sock_fprog prog = {
		.len = sizeof(sr_host_filter) / sizeof(sr_host_filter[0]),
		.filter = (struct sock_filter *)sr_host_filter,
	};
	int n = 0;

	for (int fd = 0; fd < SR_HOST_FD_SCAN; fd++) {
		struct sockaddr_ll ll;
		socklen_t len = sizeof(ll);
		int domain;
		socklen_t dlen = sizeof(domain);

		if (getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &domain, &dlen) != 0 ||
		    domain != AF_PACKET)
			continue;
		if (getsockname(fd, (struct sockaddr *)&ll, &len) != 0 ||
		    ll.sll_ifindex != h->ifindex)
			continue;
		if (setsockopt(fd, SOL_SOCKET, SO_ATTACH_FILTER, &prog,
			       sizeof(prog)) == 0)
			n++;
	}
	return n;
}

/* ---- the port ---- */

/*
 * What DPDK and libbpf log while the AF_XDP port comes up is kept here:
 * when it fails, sroce says why in its one line instead.  Opened once,
 * never closed (an EAL thread could still hold it, as in eal.c).
 */
static char sr_host_log[2048];

static FILE *sr_host_log_open(void)
{
	static FILE *f;

	if (f == NULL) {
		f = fmemopen(sr_host_log, sizeof(sr_host_log) - 1, "w");
		if (f != NULL)
			setvbuf(f, NULL, _IONBF, 0);
	}
	memset(sr_host_log, 0, sizeof(sr_host_log));
	if (f != NULL)
		rewind(f);
	return f;
}

/* Why the AF_XDP port failed: libbpf's word, DPDK's first line, or err. */
static void sr_host_xdp_why(const char *err, char *why, size_t whylen)
{
	const char *msg = sr_xdp_last_msg();
	char *nl;

	if (msg[0] == '\0') {
		msg = sr_host_log;
		nl = strchr(sr_host_log, '\n');
		if (nl != NULL)
			*nl = '\0';
	}
	if (strncmp(msg, "libbpf: ", 8) == 0)
		msg += 8;
	snprintf(why, whylen, "%.200s", msg[0] ? msg : err);
}

static int sr_host_port_xdp(struct sr_pmd_dev *dev, struct sr_host *h,
			    char *why, size_t whylen)
{
	char prog[PATH_MAX], err[SR_CONFIG_ERR_MAX] = "";
	uint32_t queues = sr_xdp_queues(h->ifname);
	FILE *log;
	int rc, n;

	if (sr_xdp_prog_path(prog, sizeof(prog)) != 0) {
		snprintf(why, whylen,
			 "sroce's XDP program roce_redirect.bpf.o is not built or installed");
		return -ENOENT;
	}
	if (dev->nlanes > queues) {
		snprintf(why, whylen,
			 "engines = %u needs as many receive queues; the interface has %u",
			 dev->nlanes, queues);
		return -EINVAL;
	}
	rc = sr_xdp_detach_ours(h->ifindex, why, whylen);
	if (rc == -EBUSY)
		return rc;
	if (rc) {
		snprintf(why, whylen, "cannot query the interface's XDP program: %s",
			 strerror(-rc));
		return rc;
	}
	n = snprintf(dev->cfg.port, sizeof(dev->cfg.port),
		     "net_af_xdp%d,iface=%s,start_queue=0,queue_count=%u,xdp_prog=%s",
		     h->ifindex, h->ifname, dev->nlanes, prog);
	if (n < 0 || (size_t)n >= sizeof(dev->cfg.port)) {
		snprintf(why, whylen, "XDP program path too long: %.100s", prog);
		return -ENAMETOOLONG;
	}
	log = sr_host_log_open();
	if (log != NULL)
		rte_openlog_stream(log);
	rc = sr_port_setup(dev, err, sizeof(err));
	rte_openlog_stream(NULL);
	if (rc) {
		sr_host_xdp_why(err, why, whylen);
		sr_port_teardown(dev);
		sr_xdp_detach_ours(h->ifindex, err, sizeof(err));
		return rc;
	}
	h->xdp = true;
	return 0;
}

static int sr_host_port_packet(struct sr_pmd_dev *dev, struct sr_host *h,
			       char *err, size_t errlen)
{
	struct sr_pmd_config *tmp;
	const char *why;
	int rc, n;

	tmp = malloc(sizeof(*tmp));
	if (tmp == NULL) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	/* ring slots for the interface's MTU (config.h) */
	*tmp = dev->cfg;
	if (tmp->mtu == 0)
		tmp->mtu = sr_pmd_config_mtu_limit(&dev->cfg, &why);
	n = snprintf(tmp->port, sizeof(tmp->port),
		     "net_af_packet%d,iface=%s,qpairs=%u", h->ifindex,
		     h->ifname, dev->nlanes);
	rc = n > 0 && (size_t)n < sizeof(tmp->port) ? 0 : -EINVAL;
	if (rc == 0)
		rc = sr_pmd_config_port_buffers(tmp, err, errlen);
	if (rc == 0)
		strcpy(dev->cfg.port, tmp->port);
	free(tmp);
	if (rc == 0)
		rc = sr_port_setup(dev, err, errlen);
	if (rc)
		return rc;
	if (sr_host_filter_attach(h) < (int)dev->nlanes) {
		snprintf(err, errlen,
			 "interface '%s': cannot attach the socket filter to af_packet's sockets",
			 h->ifname);
		return -EIO;
	}
	if (dev->cfg.iface_nft) {
		rc = sr_host_nft_add(h);
		if (rc) {
			snprintf(err, errlen,
				 "interface '%s': iface_nft: nft could not add table inet sroce_%s (nftables installed?)",
				 h->ifname, h->ifname);
			return rc;
		}
		h->nft = true;
	}
	return 0;
}

int sr_host_open(struct sr_pmd_dev *dev, char *err, size_t errlen)
{
	char why[SR_CONFIG_ERR_MAX] = "";
	struct sr_host *h;
	int flags, rc;

	h = calloc(1, sizeof(*h));
	if (h == NULL) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	h->lock_fd = h->req.fd = h->ev.fd = -1;
	h->owner = getpid();
	strcpy(h->ifname, dev->cfg.iface);
	dev->host = h;
	h->ifindex = (int)if_nametoindex(h->ifname);
	if (h->ifindex == 0) {
		snprintf(err, errlen, "interface '%s' does not exist",
			 h->ifname);
		return -ENODEV;
	}
	flags = sr_host_ifflags(h->ifname);
	if (flags >= 0 && !(flags & IFF_UP)) {
		snprintf(err, errlen, "interface '%s' is down (ip link set %s up)",
			 h->ifname, h->ifname);
		return -ENETDOWN;
	}
	if (flags >= 0 && (flags & IFF_LOOPBACK)) {
		snprintf(err, errlen,
			 "interface '%s' is a loopback; sroce needs an Ethernet interface",
			 h->ifname);
		return -EINVAL;
	}
	rc = sr_host_lock(h, dev->cfg.run_dir, err, errlen);
	if (rc)
		return rc;
	rc = sr_nl_open(&h->req, 0, false);
	if (rc == 0)
		rc = sr_nl_open(&h->ev, RTMGRP_IPV4_IFADDR | RTMGRP_IPV6_IFADDR |
					RTMGRP_LINK, true);
	if (rc) {
		snprintf(err, errlen, "rtnetlink: %s", strerror(-rc));
		return rc;
	}
	sr_xdp_quiet();
	/* a table a crashed run left: the kernel sees RoCEv2 again */
	sr_host_nft_del(h);
	if (dev->cfg.iface_mode != SR_PMD_IFACE_PACKET) {
		rc = sr_host_port_xdp(dev, h, why, sizeof(why));
		if (rc == 0)
			return 0;
		if (dev->cfg.iface_mode == SR_PMD_IFACE_XDP) {
			snprintf(err, errlen,
				 "interface '%s': AF_XDP did not start: %s",
				 h->ifname, why);
			return rc;
		}
		fprintf(stderr,
			"sroce: interface '%s': AF_XDP unavailable (%s); using af_packet with a socket filter\n",
			h->ifname, why);
	}
	return sr_host_port_packet(dev, h, err, errlen);
}

void sr_host_exit(struct sr_pmd_dev *dev)
{
	struct sr_host *h = dev->host;
	char why[SR_CONFIG_ERR_MAX];

	/* a child forked with the device open is not its owner: what is
	 * on the interface stays for the process that put it there */
	if (h == NULL || h->owner != getpid())
		return;
	if (h->xdp)
		sr_xdp_detach_ours(h->ifindex, why, sizeof(why));
	if (h->nft)
		sr_host_nft_del(h);
	h->nft = false;
}

void sr_host_close(struct sr_pmd_dev *dev)
{
	struct sr_host *h = dev->host;
	char why[SR_CONFIG_ERR_MAX];

	if (h == NULL)
		return;
	/* DPDK detaches it when the port closes; make sure. */
	if (h->xdp)
		sr_xdp_detach_ours(h->ifindex, why, sizeof(why));
	if (h->nft)
		sr_host_nft_del(h);
	sr_nl_close(&h->req);
	sr_nl_close(&h->ev);
	if (h->lock_fd >= 0)
		close(h->lock_fd);
	free(h);
	dev->host = NULL;
}

/* ---- addresses ---- */

/* The interface's addresses as a GID table and as what the link answers. */
static int sr_host_read_addrs(struct sr_pmd_dev *dev, struct sr_gid_table *t,
			      struct sr_pmd_addr *a)
{
	struct sr_host *h = dev->host;
	struct sr_nl_addr list[SR_HOST_ADDRS_MAX];
	uint8_t ip[SR_HOST_ADDRS_MAX][16];
	int n = sr_nl_addrs(&h->req, h->ifindex, list, SR_HOST_ADDRS_MAX);

	if (n < 0)
		return n;
	for (int i = 0; i < n; i++)
		memcpy(ip[i], list[i].ip, 16);
	sr_gid_table_host(t, dev->addr.mac, (const uint8_t(*)[16])ip,
			  (uint32_t)n);
	*a = dev->addr;
	/* RoCEv2 on a VLAN beside the kernel's traffic: the tag is the
	 * configuration's (the XDP program looks through one tag) */
	a->vlan = dev->cfg.vlan;
	a->vlan_prio = dev->cfg.vlan_prio;
	a->has_ipv4 = t->entry[1].valid;
	memcpy(a->ipv4, t->entry[1].gid + 12, 4);
	a->n_ipv6 = 0;
	for (uint32_t i = 0; i < t->n && a->n_ipv6 < SR_ADDR_IPV6_MAX; i++)
		if (t->entry[i].valid && !sr_gid_is_ipv4(t->entry[i].gid))
			memcpy(a->ipv6[a->n_ipv6++], t->entry[i].gid, 16);
	return 0;
}

/* The XDP program's view of our addresses: those of the GID table and
 * the multicast groups our QPs joined (mcast.c). */
void sr_host_xdp_addrs(struct sr_pmd_dev *dev)
{
	/* lane 0 (address changes) and joining threads: one writer at once */
	static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
	uint8_t (*ip)[16];
	uint32_t n = 0;

	if (dev->host == NULL || !dev->host->xdp)
		return;
	ip = malloc((SR_GID_TABLE_MAX + SR_MAX_MCAST_GRP) * sizeof(*ip));
	if (ip == NULL)
		return;
	for (uint32_t i = 0; i < dev->gids.n; i++)
		if (dev->gids.entry[i].valid)
			memcpy(ip[n++], dev->gids.entry[i].gid, 16);
	n += sr_dev_mcast_groups(dev, ip + n, SR_MAX_MCAST_GRP);
	pthread_mutex_lock(&lock);
	sr_xdp_addrs_set(dev->host->ifindex, (const uint8_t(*)[16])ip, n);
	pthread_mutex_unlock(&lock);
	free(ip);
}

int sr_host_addresses(struct sr_pmd_dev *dev)
{
	struct sr_pmd_addr a;
	struct sr_gid_table t;
	int rc = sr_host_read_addrs(dev, &t, &a);

	if (rc)
		return rc;
	dev->addr = a;
	dev->gids = t;
	dev->host->mtu_max = dev->mtu;
	sr_host_xdp_addrs(dev);
	return 0;
}

/*
 * The interface's MTU changed: the device's follows (what ibv_query_port
 * reports as active_mtu, new QPs' path MTU), up to what the port's
 * buffers were set up for at start.
 */
static void sr_host_mtu(struct sr_pmd_dev *dev, uint32_t ifmtu)
{
	uint32_t mtu = ifmtu < dev->host->mtu_max ? ifmtu : dev->host->mtu_max;

	if (mtu == dev->mtu)
		return;
	dev->mtu = mtu;
	dev->path_mtu = sr_pmd_path_mtu(mtu);
	if (dev->stats) {
		dev->stats->mtu = (uint16_t)mtu;
		dev->stats->path_mtu = dev->path_mtu;
	}
}

void sr_host_poll(struct sr_pmd_dev *dev, uint64_t now_ns)
{
	struct sr_host *h = dev->host;
	bool changed[SR_GID_TABLE_MAX] = { false };
	struct sr_gid_table t;
	struct sr_pmd_addr a;
	uint32_t mtu = 0;
	int rc;

	dev->host_next_ns = now_ns + SR_HOST_POLL_NS;
	rc = sr_nl_events(&h->ev, h->ifindex, &mtu);
	if (mtu != 0)
		sr_host_mtu(dev, mtu);
	if (rc == 0 && !h->resync)
		return;
	/* Read them all again (also after an overrun, -ENOBUFS). */
	h->resync = sr_host_read_addrs(dev, &t, &a) != 0;
	if (h->resync)
		return;
	dev->addr = a;
	for (uint32_t i = 0; i < SR_GID_TABLE_MAX; i++) {
		struct sr_gid_entry *e = &dev->gids.entry[i];

		if (memcmp(e, &t.entry[i], sizeof(*e)) == 0)
			continue;
		/* valid last: a reader never sees a half-written GID as valid */
		e->valid = 0;
		__atomic_thread_fence(__ATOMIC_RELEASE);
		memcpy(e->gid, t.entry[i].gid, 16);
		e->type = t.entry[i].type;
		__atomic_thread_fence(__ATOMIC_RELEASE);
		e->valid = t.entry[i].valid;
		changed[i] = true;
	}
	if (t.n > dev->gids.n)
		dev->gids.n = t.n;      /* gone entries stay, invalid */
	if (dev->stats)
		memcpy(dev->stats->ipv4, a.ipv4, 4);
	sr_host_xdp_addrs(dev);
	for (uint32_t i = 0; i < SR_GID_TABLE_MAX; i++)
		if (changed[i] && dev->gid_cb != NULL)
			dev->gid_cb(dev->gid_ctx, i, &dev->gids.entry[i]);
}

/* ---- peers ---- */

/*
 * The kernel's next hop towards ip (the gateway when the peer is off the
 * link) and its MAC: 0; -EAGAIN when the kernel has no valid MAC for it;
 * -EHOSTUNREACH when no route leaves by this interface.
 */
static int sr_host_lookup(struct sr_host *h, const uint8_t ip[16],
			  uint8_t hop[16], uint8_t mac[6])
{
	bool ll = !sr_gid_is_ipv4(ip) && ip[0] == 0xfe && (ip[1] & 0xc0) == 0x80;
	struct sr_nl_neigh n;
	struct sr_nl_route r;

	/* a link-local peer is on this link: say which */
	if (sr_nl_route_get(&h->req, ip, ll ? h->ifindex : 0, &r) != 0 ||
	    r.oif != h->ifindex)
		return -EHOSTUNREACH;
	memcpy(hop, r.has_gw ? r.gw : ip, 16);
	if (sr_nl_neigh_get(&h->req, h->ifindex, hop, &n) == 0 && n.has_mac &&
	    (n.state & SR_NL_NUD_VALID)) {
		memcpy(mac, n.mac, 6);
		return 0;
	}
	return -EAGAIN;
}

void sr_host_solicit(struct sr_pmd_dev *dev, const uint8_t ip[16])
{
	uint8_t hop[16], mac[6];
	int rc = sr_host_lookup(dev->host, ip, hop, mac);

	if (rc == 0)
		sr_neigh_update(&dev->neigh, ip, mac, sr_dev_now_ns(dev));
	else if (rc == -EAGAIN)
		sr_nl_neigh_probe(&dev->host->req, dev->host->ifindex, hop);
}

int sr_host_ifindex(const struct sr_pmd_dev *dev)
{
	return dev->host != NULL ? dev->host->ifindex : 0;
}

/*
 * The kernel's tables answer; sroce's neighbour cache only keeps the
 * retries and the verdict, so the consumer sees what the ARP path gives:
 * -EAGAIN while the kernel resolves (asked again every retry_ns), and
 * -EHOSTUNREACH after max_tries unanswered (remembered failed_ns).  A
 * MAC the kernel gave is used for SR_HOST_NEIGH_FRESH_NS before asking
 * again, so a change in the kernel's tables is seen within that.
 */
int sr_host_resolve(struct sr_pmd_dev *dev, const uint8_t ip[16],
		    uint8_t mac[6])
{
	uint64_t now = sr_dev_now_ns(dev);
	struct sr_neigh_entry *e = sr_neigh_lookup(&dev->neigh, ip);
	uint8_t hop[16];
	int rc;

	if (e != NULL && e->state == SR_NEIGH_REACHABLE &&
	    now - e->updated_ns < SR_HOST_NEIGH_FRESH_NS) {
		memcpy(mac, e->mac, 6);
		return 0;
	}
	rc = sr_host_lookup(dev->host, ip, hop, mac);
	if (rc == 0) {
		sr_neigh_update(&dev->neigh, ip, mac, now);
		return 0;
	}
	if (rc == -EAGAIN) {
		/* the kernel lost it: what we kept is stale, ask again */
		e = sr_neigh_lookup(&dev->neigh, ip);
		if (e != NULL && e->state == SR_NEIGH_REACHABLE) {
			e->state = SR_NEIGH_FAILED;
			e->updated_ns = now - dev->neigh.failed_ns;
		}
		rc = sr_neigh_resolve(&dev->neigh, ip, now, mac);
	}
	if (rc == -EAGAIN) {
		sr_nl_neigh_probe(&dev->host->req, dev->host->ifindex, hop);
	} else if (rc == -EINPROGRESS) {
		rc = -EAGAIN;
	} else if (rc == -EHOSTUNREACH || rc == -ENOSPC) {
		sr_stats_add(dev->stats, SR_CTR_NEIGH_FAIL, 1);
		rc = -EHOSTUNREACH;
	}
	return rc;
}
