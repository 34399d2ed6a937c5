/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ctl_fuzz.c — hostile control messages to a running sroced: random
 * bytes, truncated and stretched messages, bad magic / version / type /
 * length / status, strings without their NUL, requests out of order
 * (ATTACH twice, indexes past the device list), on many connections, from
 * a seeded generator (reproducible).  Each answer that comes must be a
 * well-formed error reply or a close.  At the end a well-behaved client
 * must still be served.
 *
 *   ctl_fuzz SOCKET [ITERATIONS] [SEED]
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "sroced/proto.h"

static uint64_t rng;

static uint32_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)(rng >> 11);
}

static int dial(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);

	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		perror("ctl_fuzz: connect");
		exit(1);
	}
	return fd;
}

/* Read what comes within 1 s: 1 a reply (checked), 0 closed, -1 none. */
static int answer(int fd, int *bad)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	uint8_t buf[1024];
	uint16_t type;
	ssize_t n;

	if (poll(&p, 1, 1000) != 1)
		return -1;
	n = recv(fd, buf, sizeof(buf), MSG_DONTWAIT);
	if (n <= 0)
		return 0;
	if (srd_check(buf, (size_t)n, 1, &type)) {
		fprintf(stderr, "ctl_fuzz: malformed reply of %zd bytes\n", n);
		(*bad)++;
	}
	return 1;
}

/* A valid request of a random type, then mutated. */
static size_t make(uint8_t *m, size_t cap)
{
	size_t len;
	uint32_t what = rnd() % 10;

	switch (rnd() % 3) {
	case 0: {
		struct srd_hello *h = (void *)m;

		srd_hdr_init(&h->h, SRD_HELLO, sizeof(*h));
		strcpy(h->comm, "fuzz");
		len = sizeof(*h);
		break;
	}
	default: {
		struct srd_dev_req *r = (void *)m;

		srd_hdr_init(&r->h, rnd() & 1 ? SRD_DEV_INFO : SRD_ATTACH,
			     sizeof(*r));
		r->index = rnd() & 1 ? rnd() % 3 : rnd();
		len = sizeof(*r);
		break;
	}
	}
	switch (what) {
	case 0:                               /* random bytes */
		len = rnd() % cap;
		for (size_t i = 0; i < len; i++)
			m[i] = (uint8_t)rnd();
		break;
	case 1:                               /* truncated */
		len = rnd() % len;
		break;
	case 2:                               /* stretched */
		len += 1 + rnd() % 64;
		((struct srd_hdr *)m)->len = (uint32_t)len;
		break;
	case 3:
		((struct srd_hdr *)m)->magic ^= 1u << (rnd() % 32);
		break;
	case 4:
		((struct srd_hdr *)m)->version = (uint16_t)rnd();
		break;
	case 5:
		((struct srd_hdr *)m)->type = (uint16_t)rnd();
		break;
	case 6:
		((struct srd_hdr *)m)->status = (int32_t)rnd();
		break;
	case 7:                               /* bytes flipped anywhere */
		for (int k = 0; k < 4; k++)
			m[rnd() % len] ^= (uint8_t)(1u << (rnd() % 8));
		break;
	case 8:                               /* no NUL in the name */
		if (((struct srd_hdr *)m)->type == SRD_HELLO)
			memset(((struct srd_hello *)m)->comm, 'x', SRD_NAME_MAX);
		break;
	default:                              /* as it is */
		break;
	}
	return len;
}

int main(int argc, char **argv)
{
	unsigned long iters = argc > 2 ? strtoul(argv[2], NULL, 0) : 2000;
	uint8_t msg[1024];
	int fd, bad = 0, replies = 0, closes = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: ctl_fuzz SOCKET [ITERATIONS] [SEED]\n");
		return 2;
	}
	rng = argc > 3 ? strtoull(argv[3], NULL, 0) : 0x5eed5eedull;
	if (rng == 0)
		rng = 1;
	fd = dial(argv[1]);
	for (unsigned long i = 0; i < iters; i++) {
		size_t len = make(msg, sizeof(msg));
		int r;

		if (send(fd, msg, len, MSG_NOSIGNAL) < 0) {
			close(fd);
			fd = dial(argv[1]);
			closes++;
			continue;
		}
		r = answer(fd, &bad);
		if (r == 1)
			replies++;
		if (r == 0 || rnd() % 16 == 0) {   /* closed, or start again */
			close(fd);
			fd = dial(argv[1]);
			closes += r == 0;
		}
	}
	close(fd);
	/* a good client after all that */
	{
		struct srd_hello h;
		struct srd_dev_req r;
		uint8_t buf[1024];
		uint16_t type;
		ssize_t n;

		fd = dial(argv[1]);
		srd_hdr_init(&h.h, SRD_HELLO, sizeof(h));
		strcpy(h.comm, "after-fuzz");
		srd_hdr_init(&r.h, SRD_DEV_INFO, sizeof(r));
		r.index = 0;
		if (send(fd, &h, sizeof(h), 0) != sizeof(h) ||
		    (n = recv(fd, buf, sizeof(buf), 0)) <= 0 ||
		    srd_check(buf, (size_t)n, 1, &type) || type != (SRD_HELLO | SRD_REPLY) ||
		    send(fd, &r, sizeof(r), 0) != sizeof(r) ||
		    (n = recv(fd, buf, sizeof(buf), 0)) <= 0 ||
		    srd_check(buf, (size_t)n, 1, &type) ||
		    ((struct srd_hdr *)buf)->status != 0) {
			fprintf(stderr, "ctl_fuzz: the daemon no longer serves a good client\n");
			return 1;
		}
		close(fd);
	}
	printf("ctl_fuzz: %lu messages, %d replies, %d closes by the daemon, %d malformed replies\n",
	       iters, replies, closes, bad);
	return bad ? 1 : 0;
}
