/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ctl.c — sroced's control socket (sroced.h, proto.h): clients come and
 * go, each ATTACH opens a frame channel and hands out a QPN block.
 *
 * A block of a client that went away is quarantined for quarantine_ns
 * before it is handed out again, so that late packets for its dead QPs
 * (retransmissions of its peers) cannot reach a new QP with the same
 * number; meanwhile they are dropped as sw_drop_no_owner.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "counters.h"
#include "sroced.h"

static void srd_bell_close(struct srd_client *c);
static int srd_channel(struct sroced *d, const struct srd_device *dv,
		       uint32_t id, uint8_t mac[6], struct sr_pmd_dev **out);

int srd_ctl_open(struct sroced *d)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd;

	if (strlen(d->sock_path) >= sizeof(sa.sun_path))
		return -ENAMETOOLONG;
	strcpy(sa.sun_path, d->sock_path);
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	/* a socket file left by a daemon that died is ours to replace */
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0) {
		close(fd);
		return -EADDRINUSE;
	}
	unlink(sa.sun_path);
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) ||
	    chmod(sa.sun_path, 0660) || listen(fd, 64)) {
		int rc = -errno;

		close(fd);
		return rc;
	}
	d->listen_fd = fd;
	/*
	 * Interface 0 on the clients' socket, never removed: DPDK's memif
	 * closes a socket with its last interface only at a later event, so
	 * a socket whose interfaces come and go must never lose its last.
	 */
	unlink(d->memif_sock);
	if (srd_channel(d, &d->dev[0], 0, d->anchor_mac, &d->anchor)) {
		close(fd);
		unlink(d->sock_path);
		d->listen_fd = -1;
		return -EIO;
	}
	return 0;
}

static void srd_client_drop(struct sroced *d, unsigned int slot,
			    const char *why)
{
	struct srd_client *c = d->client[slot];
	unsigned int n;

	if (c->dev != NULL || d->verbose)   /* not the listing connections */
		srd_log("client %u (pid %d, %s) %s%s%s", c->id, (int)c->pid, c->comm,
		why, c->block ? "; QPN block quarantined" : "",
		c->forged ? "; it sent forged frames" : "");
	if (c->port != NULL && d->verbose) {   /* what its channel saw */
		const struct sr_stats_shm *st = sr_pmd_stats(c->port);

		for (unsigned int i = 0; i < SR_CTR_MAX; i++)
			if (st->dev[i])
				srd_log("client %u: %s %llu", c->id,
					sr_stats_dev_name(i),
					(unsigned long long)st->dev[i]);
	}
	srd_listen_drop_client(d, c);
	srd_mcast_drop_client(c);
	/* as the kernel's CM for a process that exits: a DREQ to each peer */
	n = srd_qp1_client_gone(c);
	if (n > 0)
		srd_log("client %u: %u connection%s disconnected for it (DREQ to each peer)",
			c->id, n, n == 1 ? "" : "s");
	if (c->block) {
		d->block[c->block].owner = NULL;
		d->block[c->block].free_at_ns = srd_now_ns() + d->quarantine_ns;
	}
	/* the channel goes: nothing of it is switched any more */
	sr_pmd_dev_destroy(c->port);
	srd_bell_close(c);
	close(c->fd);
	free(c->peers);
	srd_park_free(&c->park);
	free(c);
	d->client[slot] = NULL;
	srd_clients_changed(d);
}

void srd_ctl_close(struct sroced *d)
{
	for (unsigned int i = 0; i < SRD_CLIENTS_MAX; i++)
		if (d->client[i] != NULL)
			srd_client_drop(d, i, "left: the daemon stops");
	if (d->listen_fd >= 0) {
		close(d->listen_fd);
		unlink(d->sock_path);
		d->listen_fd = -1;
	}
	sr_pmd_dev_destroy(d->anchor);
	d->anchor = NULL;
}

/* A block that nobody owns and whose quarantine is over; 0: none. */
static uint32_t srd_block_take(struct sroced *d, struct srd_client *c)
{
	uint64_t now = srd_now_ns();

	for (uint32_t i = 0; i < d->nblocks - 1; i++) {
		uint32_t b = 1 + (d->next_block + i) % (d->nblocks - 1);

		if (d->block[b].owner == NULL && d->block[b].free_at_ns <= now) {
			d->block[b].owner = c;
			d->next_block = b % (d->nblocks - 1);
			return b;
		}
	}
	return 0;
}

static int srd_send(int fd, const void *msg, size_t len)
{
	return send(fd, msg, len, MSG_NOSIGNAL) == (ssize_t)len ? 0 : -errno;
}

/* A message with descriptors (SCM_RIGHTS). */
static int srd_send_fds(int fd, const void *msg, size_t len, const int *fds,
			unsigned int nfds)
{
	union {
		char buf[CMSG_SPACE(3 * sizeof(int))];
		struct cmsghdr align;
	} ctl;
	struct iovec iov = { .iov_base = (void *)(uintptr_t)msg, .iov_len = len };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
	struct cmsghdr *c;

	if (nfds == 0 || nfds > 3)
		return srd_send(fd, msg, len);
	memset(&ctl, 0, sizeof(ctl));
	mh.msg_control = ctl.buf;
	mh.msg_controllen = CMSG_SPACE(nfds * sizeof(int));
	c = CMSG_FIRSTHDR(&mh);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(nfds * sizeof(int));
	memcpy(CMSG_DATA(c), fds, nfds * sizeof(int));
	return sendmsg(fd, &mh, MSG_NOSIGNAL) == (ssize_t)len ? 0 : -errno;
}

/*
 * The channel's doorbell (sroced/proto.h): a page of shared memory and an
 * eventfd, both handed to the client with ATTACH's reply.  On failure the
 * channel works without (the daemon then naps, as for a port it cannot
 * wait on); *page_fd is the page's descriptor to send, closed after.
 */
static void srd_bell_open(struct srd_client *c, int *page_fd)
{
	int fd = memfd_create("sroce-bell", MFD_CLOEXEC);
	void *p = MAP_FAILED;

	*page_fd = -1;
	c->bell = NULL;
	c->bell_efd = -1;
	if (fd < 0)
		return;
	if (ftruncate(fd, sizeof(struct srd_bell)) == 0)
		p = mmap(NULL, sizeof(struct srd_bell), PROT_READ | PROT_WRITE,
			 MAP_SHARED, fd, 0);
	c->bell_efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	c->wake_efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (p == MAP_FAILED || c->bell_efd < 0 || c->wake_efd < 0) {
		if (p != MAP_FAILED)
			munmap(p, sizeof(struct srd_bell));
		if (c->bell_efd >= 0)
			close(c->bell_efd);
		if (c->wake_efd >= 0)
			close(c->wake_efd);
		c->bell_efd = -1;
		c->wake_efd = -1;
		close(fd);
		return;
	}
	c->bell = p;
	*page_fd = fd;
	/* frames the channel gives the client wake it when it sleeps */
	sr_pmd_set_peer_bell(c->port, &c->bell->client_asleep, c->wake_efd);
}

static void srd_bell_close(struct srd_client *c)
{
	if (c->bell != NULL)
		munmap(c->bell, sizeof(*c->bell));
	if (c->bell_efd >= 0)
		close(c->bell_efd);
	if (c->wake_efd >= 0)
		close(c->wake_efd);
	c->bell = NULL;
	c->bell_efd = -1;
	c->wake_efd = -1;
}

static int srd_reply_err(int fd, uint16_t type, int status)
{
	struct srd_hdr h;

	srd_hdr_init(&h, (uint16_t)(type | SRD_REPLY), sizeof(h));
	h.status = status;
	return srd_send(fd, &h, sizeof(h));
}

/*
 * A frame channel: a net_memif server interface of ours on the clients'
 * socket, with id and a locally administered MAC 02:53:44:<id>.
 */
static int srd_channel(struct sroced *d, const struct srd_device *dv,
		       uint32_t id, uint8_t mac[6], struct sr_pmd_dev **out)
{
	struct sr_pmd_config cfg;
	char err[SR_CONFIG_ERR_MAX] = "";
	int rc;

	sr_pmd_config_init(&cfg);
	cfg.no_huge = dv->cfg.no_huge;
	memcpy(cfg.eal, dv->cfg.eal, sizeof(cfg.eal));
	snprintf(cfg.port, sizeof(cfg.port),
		 "net_memif_c%u,role=server,socket=%s,id=%u,rsize=%u", id,
		 d->memif_sock, id, SR_PMD_MEMIF_LOG2_RING);
	mac[0] = 0x02;
	mac[1] = 0x53;
	mac[2] = 0x44;
	mac[3] = (uint8_t)(id >> 16);
	mac[4] = (uint8_t)(id >> 8);
	mac[5] = (uint8_t)id;
	memcpy(cfg.mac, mac, 6);
	cfg.has_mac = true;
	cfg.mtu = dv->info.mtu;
	cfg.any_ip = true;
	cfg.mbufs = id ? 2047 : 1023;
	cfg.rx_desc = 512;
	cfg.tx_desc = 512;
	cfg.cc = false;
	memcpy(cfg.stats_dir, dv->cfg.stats_dir, sizeof(cfg.stats_dir));
	rc = sr_pmd_config_port_buffers(&cfg, err, sizeof(err));
	if (rc == 0)
		rc = sr_pmd_dev_create(&cfg, -1, out, err, sizeof(err));
	if (rc)
		srd_log("channel %u: %s", id, err);
	return rc;
}

/* The client's frame channel. */
static int srd_channel_open(struct sroced *d, struct srd_client *c)
{
	int rc = srd_channel(d, c->dev, c->id, c->gw_mac, &c->port);

	if (rc == 0)
		sr_pmd_set_rx_handler(c->port, srd_switch_from_client, c);
	return rc;
}

static int srd_attach(struct sroced *d, struct srd_client *c, uint32_t index)
{
	struct srd_attach_reply r;
	int page_fd, rc;

	if (c->dev != NULL)
		return srd_reply_err(c->fd, SRD_ATTACH, -EISCONN);
	if (index >= d->ndevs)
		return srd_reply_err(c->fd, SRD_ATTACH, -ENODEV);
	c->peers = calloc(1, sizeof(*c->peers));
	if (c->peers == NULL)
		return srd_reply_err(c->fd, SRD_ATTACH, -ENOMEM);
	c->dev = &d->dev[index];
	c->block = srd_block_take(d, c);
	if (c->block == 0) {
		srd_log("client %u (pid %d, %s): no QPN block free (all in use or quarantined)",
			c->id, (int)c->pid, c->comm);
		c->dev = NULL;
		return srd_reply_err(c->fd, SRD_ATTACH, -EAGAIN);
	}
	rc = srd_channel_open(d, c);
	if (rc) {
		d->block[c->block].owner = NULL;
		c->block = 0;
		c->dev = NULL;
		return srd_reply_err(c->fd, SRD_ATTACH, rc);
	}
	srd_hdr_init(&r.h, SRD_ATTACH | SRD_REPLY, sizeof(r));
	r.dev = c->dev->info;
	snprintf(r.memif_socket, sizeof(r.memif_socket), "%s", d->memif_sock);
	r.memif_id = c->id;
	memcpy(r.gw_mac, c->gw_mac, 6);
	r.qpn_base = c->block << SRD_QPN_SHIFT;
	r.client_id = c->id;
	if (sr_pmd_stats(c->port) != NULL) {   /* for sroce-stat */
		struct sr_stats_client *sc = &sr_pmd_stats(c->port)->client;

		sc->pid = (int32_t)c->pid;
		sc->id = c->id;
		sc->qpn_base = r.qpn_base;
		memcpy(sc->comm, c->comm, sizeof(sc->comm));
		sc->comm[sizeof(sc->comm) - 1] = '\0';
		__atomic_store_n(&sc->valid, 1, __ATOMIC_RELEASE);
	}
	srd_log("client %u (pid %d, %s) attached to %s: QPNs %#x-%#x", c->id,
		(int)c->pid, c->comm, c->dev->name, r.qpn_base,
		r.qpn_base + SRD_QPN_BLOCK - 1);
	srd_bell_open(c, &page_fd);
	srd_clients_changed(d);
	if (page_fd >= 0) {
		int fds[3] = { page_fd, c->bell_efd, c->wake_efd };

		rc = srd_send_fds(c->fd, &r, sizeof(r), fds, 3);
		close(page_fd);
		return rc;
	}
	return srd_send(c->fd, &r, sizeof(r));
}

/* One request; -errno closes the connection. */
static int srd_request(struct sroced *d, struct srd_client *c,
		       const uint8_t *msg, size_t len)
{
	const struct srd_dev_req *req = (const void *)msg;
	uint16_t type;

	if (srd_check(msg, len, 0, &type)) {
		srd_log("client %u (pid %d): malformed request (%zu bytes): closing",
			c->id, (int)c->pid, len);
		(void)srd_reply_err(c->fd, SRD_UNKNOWN, -EPROTO);
		return -EPROTO;
	}
	switch (type) {
	case SRD_HELLO: {
		const struct srd_hello *h = (const void *)msg;
		struct srd_hello_reply r;

		memcpy(c->comm, h->comm, sizeof(c->comm));
		srd_hdr_init(&r.h, SRD_HELLO | SRD_REPLY, sizeof(r));
		r.ndevs = d->ndevs;
		r.client_id = c->id;
		return srd_send(c->fd, &r, sizeof(r));
	}
	case SRD_DEV_INFO:
		if (req->index >= d->ndevs)
			return srd_reply_err(c->fd, SRD_DEV_INFO, -ENODEV);
		return srd_send(c->fd, &d->dev[req->index].info,
				sizeof(d->dev[req->index].info));
	case SRD_ATTACH:
		return srd_attach(d, c, req->index);
	case SRD_QP_PEER: {
		const struct srd_qp_peer *q = (const void *)msg;

		/* only an attached client, only its own QPs */
		if (c->dev == NULL || c->block == 0 ||
		    q->qpn >> SRD_QPN_SHIFT != c->block)
			return srd_reply_err(c->fd, SRD_QP_PEER, -EPERM);
		(void)srd_peers_set(c->peers, q->qpn & (SRD_QPN_BLOCK - 1),
				    q->dgid, q->dqpn, q->on != 0);
		return srd_reply_err(c->fd, SRD_QP_PEER, 0);
	}
	case SRD_LISTEN: {
		const struct srd_listen_req *l = (const void *)msg;

		int rc = c->dev == NULL || c->block == 0 ? -EPERM :
			 srd_listen_set(d, c, l->service_id, l->on != 0);

		if (d->verbose)
			srd_log("client %u: listen on service ID 0x%016llx %s: %s",
				c->id, (unsigned long long)l->service_id,
				l->on ? "on" : "off", rc ? strerror(-rc) : "ok");
		return srd_reply_err(c->fd, SRD_LISTEN, rc);
	}
	case SRD_MCAST: {
		const struct srd_mcast_req *m = (const void *)msg;
		int rc = srd_mcast_set(c, m->gid, m->on != 0);

		if (d->verbose)
			srd_log("client %u: multicast group %s: %s", c->id,
				m->on ? "joined" : "left",
				rc ? strerror(-rc) : "ok");
		return srd_reply_err(c->fd, SRD_MCAST, rc);
	}
	default:
		return -EPROTO;
	}
}

static void srd_accept(struct sroced *d)
{
	struct ucred cred;
	socklen_t cl = sizeof(cred);
	struct srd_client *c;
	unsigned int slot;
	int fd;

	while ((fd = accept4(d->listen_fd, NULL, NULL,
			     SOCK_NONBLOCK | SOCK_CLOEXEC)) >= 0) {
		for (slot = 0; slot < SRD_CLIENTS_MAX; slot++)
			if (d->client[slot] == NULL)
				break;
		c = slot < SRD_CLIENTS_MAX ? calloc(1, sizeof(*c)) : NULL;
		if (c == NULL) {
			srd_log("refusing a client: %d connected", SRD_CLIENTS_MAX);
			(void)srd_reply_err(fd, SRD_HELLO, -EUSERS);
			close(fd);
			continue;
		}
		c->fd = fd;
		c->bell_efd = -1;
		c->wake_efd = -1;
		c->id = ++d->next_id;
		if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &cl) == 0) {
			c->pid = cred.pid;
			c->uid = cred.uid;
		}
		strcpy(c->comm, "?");
		d->client[slot] = c;
		if (d->verbose)
			srd_log("connection %u from pid %d (uid %u)", c->id,
				(int)c->pid, (unsigned int)c->uid);
	}
}

void srd_ctl_poll(struct sroced *d)
{
	uint8_t buf[512];

	srd_accept(d);
	for (unsigned int i = 0; i < SRD_CLIENTS_MAX; i++) {
		struct srd_client *c = d->client[i];
		ssize_t n = -1;

		if (c == NULL)
			continue;
		while (d->client[i] != NULL &&
		       (n = recv(c->fd, buf, sizeof(buf), MSG_DONTWAIT)) != 0) {
			if (n < 0) {
				if (errno == EAGAIN || errno == EINTR)
					break;
				srd_client_drop(d, i, "left (connection error)");
				break;
			}
			if (srd_request(d, c, buf, (size_t)n) < 0)
				srd_client_drop(d, i, "was closed: bad request");
		}
		if (d->client[i] != NULL && n == 0)
			srd_client_drop(d, i, c->dev ? "left" : "went away");
	}
}
