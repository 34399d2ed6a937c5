/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * daemon.c — a process's side of sroced's control protocol (daemon.h).
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "daemon.h"

const char *sr_pmd_daemon_socket(bool *required)
{
	const char *mode = getenv("SROCE_DAEMON");
	const char *sock = getenv("SROCE_DAEMON_SOCKET");
	const char *cfg = getenv("SROCE_CONFIG");

	if (sock == NULL || *sock == '\0')
		sock = SRD_SOCKET_DEFAULT;
	*required = false;
	if (mode == NULL || *mode == '\0') {
		if (cfg != NULL && *cfg != '\0')
			return NULL;
		return access(sock, F_OK) == 0 ? sock : NULL;
	}
	if (strcmp(mode, "off") == 0 || strcmp(mode, "0") == 0)
		return NULL;
	*required = true;
	if (strcmp(mode, "on") == 0 || strcmp(mode, "1") == 0)
		return sock;
	return mode;
}

static int sr_daemon_connect(const char *sock)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd;

	if (strlen(sock) >= sizeof(sa.sun_path))
		return -ENAMETOOLONG;
	strcpy(sa.sun_path, sock);
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		int rc = -errno;

		close(fd);
		return rc;
	}
	return fd;
}

/*
 * Send a request, wait (5 s at most) for its reply of up to cap bytes.
 * One call at a time in the process: replies come in order on fd.  A
 * reply may carry descriptors (ATTACH's doorbell): up to nfds go to fds,
 * -1 where none came; the rest are closed.  A signal does not end the
 * wait.  A daemon that has not answered in 5 s is taken for dead: the
 * connection is shut down (the engine then finds the device lost), since
 * its late reply would be read as the answer to the next request.
 */
static int sr_daemon_call_locked(int fd, const void *req, size_t len,
				 void *rep, size_t cap, int *fds,
				 unsigned int nfds);

static int sr_daemon_call_fds(int fd, const void *req, size_t len,
			      void *rep, size_t cap, int *fds,
			      unsigned int nfds)
{
	static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
	int rc;

	pthread_mutex_lock(&lock);
	rc = sr_daemon_call_locked(fd, req, len, rep, cap, fds, nfds);
	pthread_mutex_unlock(&lock);
	return rc;
}

static int sr_daemon_call(int fd, const void *req, size_t len, void *rep,
			  size_t cap)
{
	return sr_daemon_call_fds(fd, req, len, rep, cap, NULL, 0);
}

#define SR_DAEMON_FDS_MAX 4

/* The descriptors a message carried: the first nfds to fds, the rest closed. */
static void sr_daemon_take_fds(struct msghdr *mh, int *fds, unsigned int nfds)
{
	unsigned int k = 0;

	for (unsigned int i = 0; i < nfds; i++)
		fds[i] = -1;
	for (struct cmsghdr *c = CMSG_FIRSTHDR(mh); c != NULL;
	     c = CMSG_NXTHDR(mh, c)) {
		size_t n;

		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
			continue;
		n = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (size_t i = 0; i < n; i++) {
			int got;

			memcpy(&got, CMSG_DATA(c) + i * sizeof(int), sizeof(int));
			if (k < nfds)
				fds[k++] = got;
			else
				close(got);
		}
	}
}

#define SR_DAEMON_REPLY_MS 5000

/* poll() for the reply, SR_DAEMON_REPLY_MS in all, through signals. */
static int sr_daemon_wait(struct pollfd *p)
{
	struct timespec t0, t;
	long left = SR_DAEMON_REPLY_MS;
	int rc;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	while ((rc = poll(p, 1, (int)left)) < 0 && errno == EINTR) {
		clock_gettime(CLOCK_MONOTONIC, &t);
		left = SR_DAEMON_REPLY_MS - ((t.tv_sec - t0.tv_sec) * 1000 +
					     (t.tv_nsec - t0.tv_nsec) / 1000000);
		if (left <= 0)
			return 0;
	}
	return rc;
}

static int sr_daemon_call_locked(int fd, const void *req, size_t len,
				 void *rep, size_t cap, int *fds,
				 unsigned int nfds)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	const struct srd_hdr *rq = req;
	struct srd_hdr *h = rep;
	union {
		char buf[CMSG_SPACE(SR_DAEMON_FDS_MAX * sizeof(int))];
		struct cmsghdr align;
	} ctl;
	struct iovec iov = { .iov_base = rep, .iov_len = cap };
	struct msghdr mh = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = ctl.buf, .msg_controllen = sizeof(ctl.buf),
	};
	uint16_t type;
	ssize_t n;

	for (unsigned int i = 0; i < nfds; i++)
		fds[i] = -1;
	if (send(fd, req, len, MSG_NOSIGNAL) != (ssize_t)len)
		return -errno;
	if (sr_daemon_wait(&p) != 1) {
		fprintf(stderr, "sroce: sroced did not answer in %d ms: "
			"taken for dead\n", SR_DAEMON_REPLY_MS);
		shutdown(fd, SHUT_RDWR);
		return -ETIMEDOUT;
	}
	n = recvmsg(fd, &mh, MSG_CMSG_CLOEXEC);
	if (n > 0)
		sr_daemon_take_fds(&mh, fds, nfds);
	if (n == 0)
		return -ECONNRESET;
	if (n < 0)
		return -errno;
	if (srd_check(rep, (size_t)n, 1, &type) ||
	    type != (rq->type | SRD_REPLY)) {
		for (unsigned int i = 0; i < nfds; i++) {
			if (fds[i] >= 0)
				close(fds[i]);
			fds[i] = -1;
		}
		return -EPROTO;
	}
	return h->status;
}

static int sr_daemon_hello(int fd, uint32_t *ndevs)
{
	struct srd_hello req;
	struct srd_hello_reply rep;
	FILE *f = fopen("/proc/self/comm", "r");
	int rc;

	srd_hdr_init(&req.h, SRD_HELLO, sizeof(req));
	req.pid = (uint32_t)getpid();
	if (f != NULL) {
		if (fgets(req.comm, sizeof(req.comm), f) != NULL)
			req.comm[strcspn(req.comm, "\n")] = '\0';
		fclose(f);
	}
	req.comm[sizeof(req.comm) - 1] = '\0';
	rc = sr_daemon_call(fd, &req, sizeof(req), &rep, sizeof(rep));
	if (rc == 0)
		*ndevs = rep.ndevs;
	return rc;
}

int sr_pmd_daemon_list(const char *sock, struct srd_dev_info *devs,
		       unsigned int max)
{
	uint32_t ndevs = 0;
	int fd = sr_daemon_connect(sock), rc;

	if (fd < 0)
		return fd;
	rc = sr_daemon_hello(fd, &ndevs);
	for (uint32_t i = 0; rc == 0 && i < ndevs && i < max; i++) {
		struct srd_dev_req req;

		srd_hdr_init(&req.h, SRD_DEV_INFO, sizeof(req));
		req.index = i;
		rc = sr_daemon_call(fd, &req, sizeof(req), &devs[i],
				    sizeof(devs[i]));
	}
	close(fd);
	if (rc)
		return rc;
	return (int)(ndevs < max ? ndevs : max);
}

/* The channel's configuration from the daemon's answer. */
static int sr_daemon_cfg(const struct srd_attach_reply *r,
			 struct sr_pmd_config *cfg, char *err, size_t errlen)
{
	const struct srd_dev_info *d = &r->dev;
	int n;

	sr_pmd_config_init(cfg);
	n = snprintf(cfg->port, sizeof(cfg->port),
		     "net_memif_sroced%u,role=client,socket=%s,id=%u,rsize=%u",
		     r->client_id, r->memif_socket, r->memif_id,
		     SR_PMD_MEMIF_LOG2_RING);
	if (n < 0 || (size_t)n >= sizeof(cfg->port)) {
		snprintf(err, errlen, "sroced: socket path too long");
		return -EINVAL;
	}
	memcpy(cfg->mac, d->mac, 6);
	cfg->has_mac = true;
	cfg->has_ipv4 = d->has_ipv4 != 0;
	memcpy(cfg->ipv4, d->ipv4, 4);
	cfg->ipv4_prefix = d->ipv4_prefix;
	cfg->n_ipv6 = d->n_ipv6;
	for (uint32_t i = 0; i < d->n_ipv6; i++) {
		memcpy(cfg->ipv6[i], d->ipv6[i], 16);
		cfg->ipv6_prefix[i] = d->ipv6_prefix[i];
	}
	cfg->mtu = d->mtu;
	memcpy(cfg->gw_mac, r->gw_mac, 6);
	cfg->has_gw = true;
	/*
	 * A frame to or from a client waits for the daemon's turn on a CPU:
	 * milliseconds on a small machine, which 128 PSNs in flight turn into
	 * a cap of ~0.35 Gbit/s per QP (docs/performance.md, sroced).
	 */
	cfg->window = SR_PMD_DAEMON_WINDOW;
	return sr_pmd_config_port_buffers(cfg, err, errlen);
}

int sr_pmd_daemon_attach(const char *sock, unsigned int index,
			 struct sr_pmd_config *cfg,
			 struct sr_pmd_daemon_att *att, char *err,
			 size_t errlen)
{
	struct srd_dev_req req;
	struct srd_attach_reply *rep;
	int bell[3] = { -1, -1, -1 };
	uint32_t ndevs = 0;
	int fd = sr_daemon_connect(sock), rc;

	if (fd < 0) {
		snprintf(err, errlen, "sroced at %s: %s", sock, strerror(-fd));
		return fd;
	}
	rep = calloc(1, sizeof(*rep));
	rc = rep ? sr_daemon_hello(fd, &ndevs) : -ENOMEM;
	if (rc == 0 && index >= ndevs)
		rc = -ENODEV;
	if (rc == 0) {
		srd_hdr_init(&req.h, SRD_ATTACH, sizeof(req));
		req.index = index;
		rc = sr_daemon_call_fds(fd, &req, sizeof(req), rep,
					sizeof(*rep), bell, 3);
	}
	if (rc == 0)
		rc = sr_daemon_cfg(rep, cfg, err, errlen);
	else
		snprintf(err, errlen, "sroced at %s: device %u: %s%s", sock,
			 index, strerror(-rc),
			 rc == -EAGAIN ? " (no QPN block free: try again)" : "");
	if (rc == 0) {
		cfg->daemon_fd = fd;
		/* without its doorbell the channel works, woken by timers */
		cfg->bell_fd = bell[0];
		cfg->bell_efd = bell[1];
		cfg->wake_efd = bell[2];
		bell[0] = bell[1] = bell[2] = -1;
		cfg->qpn_base = rep->qpn_base;
		cfg->max_qp = SRD_QPN_BLOCK;
		att->fd = fd;
		att->qpn_base = rep->qpn_base;
		att->client_id = rep->client_id;
	} else {
		close(fd);
	}
	for (unsigned int i = 0; i < 3; i++)
		if (bell[i] >= 0)
			close(bell[i]);
	free(rep);
	return rc;
}

struct srd_bell *sr_pmd_daemon_bell_map(int fd)
{
	void *p;

	if (fd < 0)
		return NULL;
	p = mmap(NULL, sizeof(struct srd_bell), PROT_READ | PROT_WRITE,
		 MAP_SHARED, fd, 0);
	close(fd);
	return p == MAP_FAILED ? NULL : p;
}

bool sr_pmd_daemon_bell_ring(uint32_t *asleep, int efd)
{
	uint64_t one = 1;

	/* the frames' store to the ring before the load of the flag */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (!__atomic_load_n(asleep, __ATOMIC_RELAXED) ||
	    !__atomic_exchange_n(asleep, 0, __ATOMIC_ACQ_REL))
		return false;
	return write(efd, &one, sizeof(one)) == (ssize_t)sizeof(one);
}

void sr_pmd_daemon_bell_unmap(struct srd_bell *bell)
{
	if (bell != NULL)
		munmap(bell, sizeof(*bell));
}

int sr_pmd_daemon_qp_peer(int fd, uint32_t qpn, const uint8_t dgid[16],
			  uint32_t dqpn, bool on)
{
	struct srd_qp_peer req;
	struct srd_hdr rep;
	int rc;

	srd_hdr_init(&req.h, SRD_QP_PEER, sizeof(req));
	req.qpn = qpn;
	req.dqpn = dqpn & 0xffffffu;
	memcpy(req.dgid, dgid, 16);
	req.on = on;
	rc = sr_daemon_call(fd, &req, sizeof(req), &rep, sizeof(rep));
	return rc;
}

int sr_pmd_daemon_listen(int fd, uint64_t service_id, bool on)
{
	struct srd_listen_req req;
	struct srd_hdr rep;
	int rc;

	srd_hdr_init(&req.h, SRD_LISTEN, sizeof(req));   /* zeroes req */
	req.service_id = service_id;
	req.on = on;
	rc = sr_daemon_call(fd, &req, sizeof(req), &rep, sizeof(rep));
	return rc;
}

int sr_pmd_daemon_mcast(int fd, const uint8_t gid[16], bool on)
{
	struct srd_mcast_req req;
	struct srd_hdr rep;

	srd_hdr_init(&req.h, SRD_MCAST, sizeof(req));     /* zeroes req */
	memcpy(req.gid, gid, 16);
	req.on = on;
	return sr_daemon_call(fd, &req, sizeof(req), &rep, sizeof(rep));
}

bool sr_pmd_daemon_alive(int fd)
{
	char c;
	ssize_t n = recv(fd, &c, 1, MSG_DONTWAIT | MSG_PEEK);

	return n > 0 || (n < 0 && (errno == EAGAIN || errno == EINTR));
}
