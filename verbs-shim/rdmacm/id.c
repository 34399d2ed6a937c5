/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * id.c — rdma_cm_ids and their addresses: the device list, binding,
 * address and route resolution (a GID lookup, the device's ARP / ND, the
 * port's MTU), options, migration between channels.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include "rdmacm.h"
#include "sroce_private.h"

static pthread_once_t sr_rcm_devs_once = PTHREAD_ONCE_INIT;
static struct ibv_context *sr_rcm_ctx[SR_RCM_MAX_DEVS + 1];
static int sr_rcm_ndevs;

static void sr_rcm_qp_gone(struct ibv_qp *qp);

/* Like rdma-core, every device is opened once and stays open. */
static void sr_rcm_devs_open(void)
{
	struct ibv_device **list = ibv_get_device_list(NULL);

	sroce_on_qp_destroy(sr_rcm_qp_gone);
	if (list == NULL)
		return;
	for (int i = 0; list[i] != NULL && sr_rcm_ndevs < SR_RCM_MAX_DEVS; i++) {
		struct ibv_context *c = ibv_open_device(list[i]);

		if (c != NULL)
			sr_rcm_ctx[sr_rcm_ndevs++] = c;
	}
	ibv_free_device_list(list);
}

int sr_rcm_devs(struct ibv_context ***list)
{
	pthread_once(&sr_rcm_devs_once, sr_rcm_devs_open);
	if (list != NULL)
		*list = sr_rcm_ctx;
	return sr_rcm_ndevs > 0 ? sr_rcm_ndevs : -ENODEV;
}

struct ibv_context **rdma_get_devices(int *num_devices)
{
	struct ibv_context **all, **out;
	int n = sr_rcm_devs(&all);

	if (n < 0)
		n = 0;
	out = calloc((size_t)n + 1, sizeof(*out));
	if (out == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	memcpy(out, all, (size_t)n * sizeof(*out));
	if (num_devices != NULL)
		*num_devices = n;
	return out;
}

void rdma_free_devices(struct ibv_context **list)
{
	free(list);
}

int sr_rcm_gid_of(const struct sockaddr *addr, uint8_t gid[16])
{
	if (addr->sa_family == AF_INET) {
		const struct sockaddr_in *in = (const void *)addr;

		sr_cma_ipv4_gid(gid, (const uint8_t *)&in->sin_addr);
		return 0;
	}
	if (addr->sa_family == AF_INET6) {
		memcpy(gid, &((const struct sockaddr_in6 *)(const void *)addr)
				     ->sin6_addr, 16);
		return 0;
	}
	return -EAFNOSUPPORT;
}

void sr_rcm_addr_of(const uint8_t gid[16], uint8_t ip_version, uint16_t port,
		    struct sockaddr_storage *out)
{
	memset(out, 0, sizeof(*out));
	if (ip_version == 4) {
		struct sockaddr_in *in = (void *)out;

		in->sin_family = AF_INET;
		in->sin_port = htons(port);
		memcpy(&in->sin_addr, gid + 12, 4);
	} else {
		struct sockaddr_in6 *in6 = (void *)out;

		in6->sin6_family = AF_INET6;
		in6->sin6_port = htons(port);
		memcpy(&in6->sin6_addr, gid, 16);
	}
}

bool sr_rcm_addr_is_any(const struct sockaddr *addr)
{
	static const uint8_t zero[16];

	if (addr->sa_family == AF_INET)
		return ((const struct sockaddr_in *)(const void *)addr)
			       ->sin_addr.s_addr == 0;
	return memcmp(&((const struct sockaddr_in6 *)(const void *)addr)
			       ->sin6_addr, zero, 16) == 0;
}

bool sr_rcm_gid_is_loopback(const uint8_t gid[16])
{
	static const uint8_t v4[12] = { [10] = 0xff, [11] = 0xff };
	static const uint8_t one[16] = { [15] = 1 };

	return (memcmp(gid, v4, 12) == 0 && gid[12] == 127) ||
	       memcmp(gid, one, 16) == 0;
}

bool sr_rcm_addr_is_loopback(const struct sockaddr *addr)
{
	uint8_t gid[16];

	return sr_rcm_gid_of(addr, gid) == 0 && sr_rcm_gid_is_loopback(gid);
}

uint16_t sr_rcm_addr_port(const struct sockaddr *addr)
{
	if (addr->sa_family == AF_INET)
		return ntohs(((const struct sockaddr_in *)(const void *)addr)->sin_port);
	return ntohs(((const struct sockaddr_in6 *)(const void *)addr)->sin6_port);
}

static socklen_t sr_rcm_addr_len(const struct sockaddr *addr)
{
	return addr->sa_family == AF_INET ? sizeof(struct sockaddr_in)
					  : sizeof(struct sockaddr_in6);
}

int sr_rcm_dev_of_addr(const struct sockaddr *addr, int *gid_index)
{
	struct ibv_context **ctx;
	uint8_t gid[16];
	union ibv_gid g;
	int n = sr_rcm_devs(&ctx);

	if (n < 0 || sr_rcm_gid_of(addr, gid) != 0)
		return -1;
	for (int d = 0; d < n; d++)
		for (int i = 0; i < 16; i++)
			if (ibv_query_gid(ctx[d], 1, i, &g) == 0 &&
			    memcmp(g.raw, gid, 16) == 0) {
				if (gid_index != NULL)
					*gid_index = i;
				return d;
			}
	return -1;
}

/* Our GID on device dev to reach dgid from: IPv4 for IPv4, link-local for
 * a link-local peer, else the first global IPv6 address. */
static int sr_rcm_sgid_for(int dev, const uint8_t dgid[16], uint8_t sgid[16])
{
	static const uint8_t v4pfx[12] = { [10] = 0xff, [11] = 0xff };
	bool want4 = memcmp(dgid, v4pfx, 12) == 0;
	bool want_ll = dgid[0] == 0xfe && (dgid[1] & 0xc0) == 0x80;
	struct ibv_context **ctx;
	union ibv_gid g;

	sr_rcm_devs(&ctx);
	for (int i = 0; i < 16; i++) {
		bool is4, is_ll;

		if (ibv_query_gid(ctx[dev], 1, i, &g) != 0)
			continue;
		is4 = memcmp(g.raw, v4pfx, 12) == 0;
		is_ll = g.raw[0] == 0xfe && (g.raw[1] & 0xc0) == 0x80;
		if (is4 == want4 && (want4 || is_ll == want_ll)) {
			memcpy(sgid, g.raw, 16);
			return 0;
		}
	}
	return -EADDRNOTAVAIL;
}

int sr_rcm_bind_dev(struct sr_rcm_id *r, int dev)
{
	struct ibv_context **ctx;
	struct sr_cm_host *h;

	if (sr_rcm_devs(&ctx) <= dev || dev < 0)
		return -ENODEV;
	h = sroce_cm_host(ctx[dev]);
	if (h == NULL)
		return -errno;
	if (sr_cm_host_attach(h, sr_rcm_cm_event, NULL) != 0)
		return -EBUSY;
	r->dev = dev;
	r->host = h;
	r->id.verbs = ctx[dev];
	r->id.port_num = 1;
	return 0;
}

uint16_t sr_rcm_ephemeral_port(void)
{
	static _Atomic uint32_t next;
	uint32_t v = atomic_load(&next);

	if (v == 0) {
		uint16_t seed = 0;

		if (getrandom(&seed, sizeof(seed), 0) != sizeof(seed))
			seed = (uint16_t)getpid();
		atomic_compare_exchange_strong(&next, &v, seed | 1u);
	}
	/* 32768..60999, as Linux's ip_local_port_range */
	return (uint16_t)(32768u + atomic_fetch_add(&next, 1) % 28232u);
}

static pthread_mutex_t sr_rcm_ids_lock = PTHREAD_MUTEX_INITIALIZER;
static struct sr_rcm_id *sr_rcm_ids;

/*
 * Releases (sr_rcm_cm_release) are serialised, and an id leaves the list
 * of live ids under the same lock: a program that calls exit() from one
 * thread while another destroys its ids (rping's CM thread exits on a REJ
 * while main destroys the id) runs the exit's release (sr_rcm_fini) and
 * rdma_destroy_id at once, and each must find the id either still listed
 * and whole, or gone.  Recursive: rdma_destroy_id and sr_rcm_fini hold it
 * around their list change and the release.
 */
static pthread_mutex_t sr_rcm_release_mutex =
	PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;

void sr_rcm_release_lock(void)
{
	pthread_mutex_lock(&sr_rcm_release_mutex);
}

void sr_rcm_release_unlock(void)
{
	pthread_mutex_unlock(&sr_rcm_release_mutex);
}

void sr_rcm_ids_add(struct sr_rcm_id *r)
{
	pthread_mutex_lock(&sr_rcm_ids_lock);
	r->prev = NULL;
	r->next = sr_rcm_ids;
	if (sr_rcm_ids != NULL)
		sr_rcm_ids->prev = r;
	sr_rcm_ids = r;
	pthread_mutex_unlock(&sr_rcm_ids_lock);
}

void sr_rcm_ids_del(struct sr_rcm_id *r)
{
	pthread_mutex_lock(&sr_rcm_ids_lock);
	if (r->prev != NULL)
		r->prev->next = r->next;
	else if (sr_rcm_ids == r)
		sr_rcm_ids = r->next;
	if (r->next != NULL)
		r->next->prev = r->prev;
	r->prev = r->next = NULL;
	pthread_mutex_unlock(&sr_rcm_ids_lock);
}

/* ibv_destroy_qp is about to destroy qp: no id acts on it from now on. */
static void sr_rcm_qp_gone(struct ibv_qp *qp)
{
	sr_rcm_qp_lock();
	pthread_mutex_lock(&sr_rcm_ids_lock);
	for (struct sr_rcm_id *r = sr_rcm_ids; r != NULL; r = r->next)
		if (r->id.qp == qp)
			r->id.qp = NULL;
	pthread_mutex_unlock(&sr_rcm_ids_lock);
	sr_rcm_qp_unlock();
}

/*
 * Process exit: the kernel's rdma_cm destroys what a process left (its
 * file closes) and the peers hear a DREP, DREQ or REJ.  Programs rely on
 * it (qperf's server never destroys its connection's id, and its client
 * waits for the DREP), so do the same: release the CM side of every id
 * still alive, then put the MADs on the wire (sr_rcm_cm_release).
 */
__attribute__((destructor)) static void sr_rcm_fini(void)
{
	for (;;) {
		struct sr_rcm_id *r;

		sr_rcm_release_lock();
		pthread_mutex_lock(&sr_rcm_ids_lock);
		r = sr_rcm_ids;
		if (r != NULL) {
			sr_rcm_ids = r->next;
			if (sr_rcm_ids != NULL)
				sr_rcm_ids->prev = NULL;
			r->next = NULL;
		}
		pthread_mutex_unlock(&sr_rcm_ids_lock);
		/* not the QP: a consumer may have destroyed it with verbs */
		if (r != NULL)
			sr_rcm_cm_release(r);
		sr_rcm_release_unlock();
		if (r == NULL)
			break;
	}
}

int rdma_create_id(struct rdma_event_channel *channel, struct rdma_cm_id **id,
		   void *context, enum rdma_port_space ps)
{
	struct sr_rcm_id *r;

	if (id == NULL || (ps != RDMA_PS_TCP && ps != RDMA_PS_UDP &&
			   ps != RDMA_PS_IB && ps != RDMA_PS_IPOIB)) {
		errno = EINVAL;
		return -1;
	}
	if (ps == RDMA_PS_IPOIB) {
		errno = EPROTONOSUPPORT;   /* IPoIB has no meaning on RoCE */
		return -1;
	}
	r = calloc(1, sizeof(*r));
	if (r == NULL) {
		errno = ENOMEM;
		return -1;
	}
	if (channel == NULL) {
		r->chan = sr_rcm_chan_new(true);
		r->sync = true;
		if (r->chan == NULL) {
			free(r);
			errno = ENOMEM;
			return -1;
		}
	} else {
		r->chan = sr_rcm_chan(channel);
	}
	pthread_cond_init(&r->acked, NULL);
	r->dev = -1;
	r->id.channel = &r->chan->ch;
	r->id.context = context;
	r->id.ps = ps;
	r->id.qp_type = ps == RDMA_PS_UDP ? IBV_QPT_UD : IBV_QPT_RC;
	r->id.route.path_rec = &r->path;
	r->afonly = -1;
	sr_rcm_ids_add(r);
	*id = &r->id;
	return 0;
}

int rdma_destroy_id(struct rdma_cm_id *id)
{
	struct sr_rcm_id *r;

	if (id == NULL) {
		errno = EINVAL;
		return -1;
	}
	r = sr_rcm_id(id);
	if (r->sync_event != NULL) {
		rdma_ack_cm_event(r->sync_event);
		r->sync_event = NULL;
	}
	sr_rcm_release_lock();          /* against an exit's release */
	sr_rcm_ids_del(r);
	sr_rcm_mc_release(r);
	sr_rcm_cm_release(r);
	sr_rcm_release_unlock();
	sr_rcm_chan_purge(r->chan, r);
	sr_rcm_wait_acked(r);
	if (r->chan->internal)
		sr_rcm_chan_free(r->chan);
	pthread_cond_destroy(&r->acked);
	free(r);
	return 0;
}

int rdma_bind_addr(struct rdma_cm_id *id, struct sockaddr *addr)
{
	struct sr_rcm_id *r;
	struct sockaddr_storage ss;
	uint16_t port;
	int dev, rc;

	if (id == NULL || addr == NULL) {
		errno = EINVAL;
		return -1;
	}
	r = sr_rcm_id(id);
	if (addr->sa_family != AF_INET && addr->sa_family != AF_INET6) {
		errno = EAFNOSUPPORT;
		return -1;
	}
	if (r->bound) {
		errno = EINVAL;
		return -1;
	}
	port = sr_rcm_addr_port(addr);
	/*
	 * A loopback address binds, to no device yet: the id then listens
	 * on every device, and a consumer that asks finds no device on it
	 * (libfabric's verbs provider binds its passive endpoints to
	 * "localhost" and then offers the devices' own addresses).
	 */
	if (!sr_rcm_addr_is_any(addr) && !(sr_rcm_addr_is_loopback(addr) &&
					   sr_rcm_dev_of_addr(addr, NULL) < 0 &&
					   sr_rcm_devs(NULL) > 0)) {
		dev = sr_rcm_dev_of_addr(addr, NULL);
		if (dev < 0) {
			errno = EADDRNOTAVAIL;
			return -1;
		}
		rc = sr_rcm_bind_dev(r, dev);
		if (rc)
			return sr_rcm_err(rc);
	} else if (sr_rcm_addr_is_any(addr)) {
		/*
		 * Bound to every device.  A server often tells its peer the
		 * port before it listens (qperf sends it over TCP, then calls
		 * rdma_listen), so rdma_listen must be quick.  A device still
		 * starting then (an AF_XDP port attaching) loses the peer's
		 * first REQ, sent again after the CM's 4-second timeout; a
		 * device of sroced would have the daemon's CM answer it with
		 * a REJ (nobody listens yet), and the peer fail.  So sroced's
		 * devices come up now, ports and CMs, as the kernel's are
		 * always up.  Not the others: a default link's port waits for
		 * its peer process, which may be the one waiting for the port.
		 */
		struct ibv_context **ctx;
		int n = sr_rcm_devs(&ctx);

		for (int d = 0; d < n; d++)
			if (sroce_dev_shared(ctx[d]))
				(void)sroce_cm_host(ctx[d]);
	}
	memset(&ss, 0, sizeof(ss));
	memcpy(&ss, addr, sr_rcm_addr_len(addr));
	if (port == 0)
		port = sr_rcm_ephemeral_port();
	if (ss.ss_family == AF_INET)
		((struct sockaddr_in *)(void *)&ss)->sin_port = htons(port);
	else
		((struct sockaddr_in6 *)(void *)&ss)->sin6_port = htons(port);
	memcpy(&id->route.addr.src_storage, &ss, sizeof(ss));
	r->route.sport = port;
	r->route.ip_version = addr->sa_family == AF_INET ? 4 : 6;
	sr_rcm_gid_of(addr, r->route.sgid);
	r->bound = true;
	return 0;
}

/* The device to reach dgid: the one that has it (loopback), else the
 * first with an address of its family. */
static int sr_rcm_dev_for_peer(const struct sockaddr *dst)
{
	uint8_t dgid[16], sgid[16];
	int n = sr_rcm_devs(NULL);
	int d = sr_rcm_dev_of_addr(dst, NULL);

	if (d >= 0)
		return d;
	if (sr_rcm_gid_of(dst, dgid) != 0)
		return -1;
	for (d = 0; d < n; d++)
		if (sr_rcm_sgid_for(d, dgid, sgid) == 0)
			return d;
	return -1;
}

int rdma_resolve_addr(struct rdma_cm_id *id, struct sockaddr *src_addr,
		      struct sockaddr *dst_addr, int timeout_ms)
{
	struct sockaddr_storage any;
	struct sr_rcm_id *r;
	int dev, rc;

	(void)timeout_ms;
	if (id == NULL || dst_addr == NULL ||
	    (dst_addr->sa_family != AF_INET && dst_addr->sa_family != AF_INET6)) {
		errno = EINVAL;
		return -1;
	}
	r = sr_rcm_id(id);
	if (!r->bound) {
		memset(&any, 0, sizeof(any));
		if (src_addr != NULL)
			memcpy(&any, src_addr, sr_rcm_addr_len(src_addr));
		else
			any.ss_family = dst_addr->sa_family;
		if (rdma_bind_addr(id, (struct sockaddr *)&any) != 0)
			return -1;
	}
	if (r->dev < 0) {
		dev = sr_rcm_dev_for_peer(dst_addr);
		if (dev < 0) {
			errno = EADDRNOTAVAIL;
			return -1;
		}
		rc = sr_rcm_bind_dev(r, dev);
		if (rc)
			return sr_rcm_err(rc);
	}
	sr_rcm_gid_of(dst_addr, r->route.dgid);
	r->route.dport = sr_rcm_addr_port(dst_addr);
	r->route.ip_version = dst_addr->sa_family == AF_INET ? 4 : 6;
	if (sr_rcm_addr_is_any(&id->route.addr.src_addr) ||
	    id->route.addr.src_addr.sa_family != dst_addr->sa_family ||
	    sr_rcm_dev_of_addr(&id->route.addr.src_addr, NULL) < 0) {
		if (sr_rcm_sgid_for(r->dev, r->route.dgid, r->route.sgid) != 0) {
			errno = EADDRNOTAVAIL;
			return -1;
		}
		sr_rcm_addr_of(r->route.sgid, r->route.ip_version,
			       r->route.sport, &id->route.addr.src_storage);
	}
	/* a loopback destination is this device itself, as the kernel's
	 * cma_resolve_loopback makes it (libfabric resolves 127.0.0.1),
	 * unless the device's own address is a loopback one too (a link
	 * between processes of one host numbered 127.0.0.x) */
	if (sr_rcm_addr_is_loopback(dst_addr) &&
	    !sr_rcm_gid_is_loopback(r->route.sgid))
		memcpy(r->route.dgid, r->route.sgid, 16);
	memset(&id->route.addr.dst_storage, 0, sizeof(id->route.addr.dst_storage));
	memcpy(&id->route.addr.dst_storage, dst_addr, sr_rcm_addr_len(dst_addr));
	rc = sroce_resolve(id->verbs, r->route.dgid, r->route.dmac);
	sr_rcm_route_publish(r);
	rc = sr_rcm_post_local(r, rc ? RDMA_CM_EVENT_ADDR_ERROR
				     : RDMA_CM_EVENT_ADDR_RESOLVED, rc);
	if (rc)
		return sr_rcm_err(rc);
	return r->sync ? sr_rcm_sync_wait(r, RDMA_CM_EVENT_ADDR_RESOLVED) : 0;
}

void sr_rcm_route_publish(struct sr_rcm_id *r)
{
	struct ibv_sa_path_rec *p = &r->path;
	int mtu = r->id.verbs ? sroce_path_mtu(r->id.verbs) : IBV_MTU_1024;

	if (r->route.path_mtu == 0)
		r->route.path_mtu = (uint8_t)(mtu > 0 ? mtu : IBV_MTU_1024);
	if (r->route.hop_limit == 0)
		r->route.hop_limit = SR_CMA_HOP_LIMIT;
	r->route.tclass = r->tos;
	r->route.ack_timeout = r->ack_timeout;
	memset(p, 0, sizeof(*p));
	memcpy(p->dgid.raw, r->route.dgid, 16);
	memcpy(p->sgid.raw, r->route.sgid, 16);
	p->flow_label = htonl(sr_cma_flow_label(r->route.sport, r->route.dport));
	p->hop_limit = r->route.hop_limit;
	p->traffic_class = r->route.tclass;
	p->reversible = htonl(1);
	p->numb_path = 1;
	p->pkey = htons(0xFFFF);
	p->mtu_selector = 2;
	p->mtu = r->route.path_mtu;
	p->rate_selector = 2;
	p->rate = IBV_RATE_MAX;
	p->packet_life_time_selector = 2;
	p->packet_life_time = SR_CMA_PACKET_LIFE_TIME;
	memcpy(r->id.route.addr.addr.ibaddr.sgid.raw, r->route.sgid, 16);
	memcpy(r->id.route.addr.addr.ibaddr.dgid.raw, r->route.dgid, 16);
	r->id.route.addr.addr.ibaddr.pkey = htons(0xFFFF);
}

int rdma_resolve_route(struct rdma_cm_id *id, int timeout_ms)
{
	struct sr_rcm_id *r;
	int rc;

	(void)timeout_ms;
	if (id == NULL || id->verbs == NULL) {
		errno = EINVAL;
		return -1;
	}
	r = sr_rcm_id(id);
	r->route.path_mtu = 0;
	sr_rcm_route_publish(r);
	id->route.num_paths = 1;
	rc = sr_rcm_post_local(r, RDMA_CM_EVENT_ROUTE_RESOLVED, 0);
	if (rc)
		return sr_rcm_err(rc);
	return r->sync ? sr_rcm_sync_wait(r, RDMA_CM_EVENT_ROUTE_RESOLVED) : 0;
}

__be16 rdma_get_src_port(struct rdma_cm_id *id)
{
	return htons(sr_rcm_addr_port(&id->route.addr.src_addr));
}

__be16 rdma_get_dst_port(struct rdma_cm_id *id)
{
	return htons(sr_rcm_addr_port(&id->route.addr.dst_addr));
}

int rdma_set_option(struct rdma_cm_id *id, int level, int optname,
		    void *optval, size_t optlen)
{
	struct sr_rcm_id *r;

	if (id == NULL || optval == NULL) {
		errno = EINVAL;
		return -1;
	}
	r = sr_rcm_id(id);
	if (level == RDMA_OPTION_ID) {
		switch (optname) {
		case RDMA_OPTION_ID_TOS:
			if (optlen != sizeof(uint8_t))
				break;
			r->tos = *(uint8_t *)optval;
			return 0;
		case RDMA_OPTION_ID_REUSEADDR:
			if (optlen != sizeof(int))
				break;
			r->reuseaddr = *(int *)optval != 0;
			return 0;
		case RDMA_OPTION_ID_AFONLY:
			if (optlen != sizeof(int))
				break;
			r->afonly = *(int *)optval != 0;
			return 0;
		case RDMA_OPTION_ID_ACK_TIMEOUT:
			if (optlen != sizeof(uint8_t) || *(uint8_t *)optval > 31)
				break;
			r->ack_timeout = *(uint8_t *)optval;
			return 0;
		default:
			errno = ENOSYS;
			return -1;
		}
		errno = EINVAL;
		return -1;
	}
	errno = ENOSYS;          /* RDMA_OPTION_IB_PATH: no SA on RoCE */
	return -1;
}

int rdma_migrate_id(struct rdma_cm_id *id, struct rdma_event_channel *channel)
{
	struct sr_rcm_chan *old, *c;
	struct sr_rcm_id *r;

	if (id == NULL) {
		errno = EINVAL;
		return -1;
	}
	r = sr_rcm_id(id);
	/* A synchronous id's last event is ours to ack (rdma-core does). */
	if (r->sync_event != NULL) {
		rdma_ack_cm_event(r->sync_event);
		r->sync_event = NULL;
		id->event = NULL;
	}
	old = r->chan;
	c = channel != NULL ? sr_rcm_chan(channel) : sr_rcm_chan_new(true);
	if (c == NULL) {
		errno = ENOMEM;
		return -1;
	}
	/* Events still queued on the old channel stay there (rdma-core
	 * waits for them to be acked; ours are skipped). */
	if (r->host != NULL)
		sr_cm_host_lock(r->host);
	sr_rcm_chan_purge(old, r);
	r->chan = c;
	r->sync = channel == NULL;
	id->channel = &c->ch;
	if (r->host != NULL)
		sr_cm_host_unlock(r->host);
	sr_rcm_wait_acked(r);
	if (old->internal)
		sr_rcm_chan_free(old);
	return 0;
}

int rdma_notify(struct rdma_cm_id *id, enum ibv_event_type event)
{
	struct sr_rcm_id *r;
	int rc = 0;

	if (id == NULL) {
		errno = EINVAL;
		return -1;
	}
	r = sr_rcm_id(id);
	if (event != IBV_EVENT_COMM_EST)
		return 0;
	if (r->cm == NULL) {
		errno = EINVAL;
		return -1;
	}
	sr_cm_host_lock(r->host);
	if (sr_cm_id_state(r->cm) == SR_CM_REP_SENT ||
	    sr_cm_id_state(r->cm) == SR_CM_MRA_REP_RCVD)
		rc = sr_cm_established(r->cm, sr_cm_host_now(r->host));
	sr_cm_host_unlock(r->host);
	return sr_rcm_err(rc);
}
