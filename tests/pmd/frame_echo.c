/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * frame_echo — two-process check of a pmd link.  The echo side returns
 * every UDP/4791 frame to its sender; the send side resolves the peer with
 * ARP, sends N frames with sequence numbers and a payload pattern, and
 * checks them back: each once, intact.
 *
 *   frame_echo echo [--resolve IP ...] [--timeout-ms T]
 *   frame_echo send --peer A.B.C.D [--count N] [--size BYTES]
 *                   [--window W] [--min-ratio R] [--timeout-ms T]
 *
 * --window: frames in flight (32); more than the link's ring holds checks
 * that a full port holds the sender back instead of dropping.
 *
 * The device comes from the environment (SROCE_CONFIG / SROCE_NODE).
 * Exit 0 on success; prints one summary line and the device counters.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "frame.h"
#include "gid.h"
#include "pmd.h"

#define FE_WINDOW 32
#define FE_BYE 0x21455942u          /* "BYE!" */
#define FE_HDR (SR_ETH_HLEN + SR_IPV4_HLEN + SR_UDP_HLEN)

struct fe {
	struct sr_pmd_dev *dev;
	const struct sr_link_ops *ops;
	bool echo;
	bool bye;
	uint32_t count, size, window;
	uint8_t *seen;
	uint32_t received, dups, bad, echoed;
};

static void fe_nap(void)
{
	const struct timespec ts = { .tv_nsec = 20000 };

	nanosleep(&ts, NULL);
}

static uint8_t fe_pattern(uint32_t seq, uint32_t i)
{
	return (uint8_t)(seq * 7 + i);
}

/*
 * Echo: swap the Ethernet and IP addresses and send the frame straight
 * back.  The UDP checksum is zeroed: legal over IPv4, and over IPv6 the
 * link fills it in (a kernel peer's frames may carry a partial one).
 */
static void fe_echo(struct fe *fe, const uint8_t *frame, uint32_t len)
{
	uint32_t alen = 4, src = 12;
	struct sr_frame f;
	void *cookie;
	uint8_t *b;

	if (!sr_frame_layout(frame, len, &f) || f.l4 == 0)
		return;
	if (len >= f.l4 + SR_UDP_HLEN + SR_BTH_LEN + 4u &&
	    sr_get_be32(frame + f.l4 + SR_UDP_HLEN + SR_BTH_LEN) == FE_BYE) {
		fe->bye = true;
		return;
	}
	fe->received++;
	b = fe->ops->tx_alloc(sr_pmd_link(fe->dev), len, &cookie);
	if (b == NULL)                 /* our own port is full: not echoed */
		return;
	memcpy(b, frame, len);
	memcpy(b, frame + 6, 6);
	memcpy(b + 6, frame, 6);
	if (f.ip_version == 6) {
		alen = 16;
		src = 8;
	}
	memcpy(b + f.l3 + src, frame + f.l3 + src + alen, alen);
	memcpy(b + f.l3 + src + alen, frame + f.l3 + src, alen);
	sr_put_be16(b + f.l4 + 6, 0);
	fe->ops->tx_submit(sr_pmd_link(fe->dev), cookie, len);
	fe->echoed++;
}

static void fe_rx_one(void *ctx, const uint8_t *frame, uint32_t len)
{
	struct fe *fe = ctx;
	const uint8_t *pay = frame + FE_HDR + SR_BTH_LEN;
	uint32_t seq;

	if (fe->echo) {
		fe_echo(fe, frame, len);
		return;
	}
	if (len != fe->size) {
		fe->bad++;
		return;
	}
	seq = sr_get_be32(pay);
	if (seq >= fe->count) {
		fe->bad++;
		return;
	}
	for (uint32_t i = 4; i < len - FE_HDR - SR_BTH_LEN - SR_ICRC_LEN; i++)
		if (pay[i] != fe_pattern(seq, i)) {
			fe->bad++;
			return;
		}
	if (fe->seen[seq]) {
		fe->dups++;
		return;
	}
	fe->seen[seq] = 1;
	fe->received++;
}

static void fe_rx(void *ctx, const struct sr_link_frame *f, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++)
		fe_rx_one(ctx, f[i].data, f[i].len);
}

static int fe_send_one(struct fe *fe, const uint8_t peer_mac[6],
		       const uint8_t peer_ip[4], uint32_t seq, uint32_t magic)
{
	const struct sr_pmd_config *cfg = sr_pmd_config_of(fe->dev);
	uint8_t mac[6], *b, *bth, *pay;
	void *cookie;

	b = fe->ops->tx_alloc(sr_pmd_link(fe->dev), fe->size, &cookie);
	if (b == NULL)
		return -ENOBUFS;
	sr_pmd_mac(fe->dev, mac);
	sr_frame_put_udp4(b, peer_mac, mac, 0, cfg->ipv4, peer_ip,
			  (uint16_t)(0xc000 | (seq & 0x3fff)),
			  fe->size - FE_HDR);
	bth = b + FE_HDR;
	memset(bth, 0, SR_BTH_LEN);
	bth[0] = 0x04;                          /* RC SEND only */
	sr_put_be32(bth + 8, seq & 0xffffff);
	pay = bth + SR_BTH_LEN;
	sr_put_be32(pay, magic ? magic : seq);
	for (uint32_t i = 4; i < fe->size - FE_HDR - SR_BTH_LEN; i++)
		pay[i] = fe_pattern(seq, i);
	fe->ops->tx_submit(sr_pmd_link(fe->dev), cookie, fe->size);
	return 0;
}

static int fe_resolve(struct fe *fe, const uint8_t ip4[4], uint8_t mac[6],
		      uint64_t deadline)
{
	uint8_t key[16];
	int rc;

	sr_gid_from_ipv4(key, ip4);
	while ((rc = sr_pmd_resolve(fe->dev, key, mac)) == -EAGAIN ||
	       rc == -EHOSTUNREACH) {
		if (sr_pmd_now_ns(fe->dev) > deadline)
			return -ETIMEDOUT;
		for (int i = 0; i < 100; i++) {
			sr_pmd_progress(fe->dev);
			fe_nap();
		}
	}
	return rc;
}

/* An IPv4 (as ::ffff:a.b.c.d) or IPv6 address. */
static int fe_parse_ip(const char *s, uint8_t ip[16])
{
	uint8_t v4[4];

	if (inet_pton(AF_INET, s, v4) == 1) {
		sr_gid_from_ipv4(ip, v4);
		return 0;
	}
	return inet_pton(AF_INET6, s, ip) == 1 ? 0 : -EINVAL;
}

/* Resolve a neighbour with ARP / ND and print its MAC. */
static int fe_resolve_ip(struct fe *fe, const uint8_t ip[16],
			 uint64_t deadline)
{
	char text[INET6_ADDRSTRLEN];
	uint8_t mac[6];
	int rc;

	if (sr_gid_is_ipv4(ip))
		inet_ntop(AF_INET, ip + 12, text, sizeof(text));
	else
		inet_ntop(AF_INET6, ip, text, sizeof(text));
	while ((rc = sr_pmd_resolve(fe->dev, ip, mac)) == -EAGAIN ||
	       rc == -EHOSTUNREACH) {
		if (sr_pmd_now_ns(fe->dev) > deadline)
			break;
		for (int i = 0; i < 100; i++) {
			sr_pmd_progress(fe->dev);
			fe_nap();
		}
	}
	if (rc) {
		fprintf(stderr, "frame_echo: %s did not resolve (%s)\n", text,
			strerror(-rc));
		return 1;
	}
	printf("frame_echo: resolved %s at %02x:%02x:%02x:%02x:%02x:%02x\n",
	       text, mac[0], mac[1], mac[2], mac[3], mac[4], mac[5]);
	fflush(stdout);
	return 0;
}

static void fe_counters(struct sr_pmd_dev *dev)
{
	const struct sr_stats_shm *s = sr_pmd_stats(dev);

	for (unsigned int i = 0; i < SR_CTR_MAX; i++)
		if (s->dev[i])
			printf("  %-24s %llu\n", sr_stats_dev_name(i),
			       (unsigned long long)s->dev[i]);
}

/* Keep progressing for ms milliseconds. */
static void fe_linger(struct fe *fe, uint32_t ms)
{
	uint64_t end = sr_pmd_now_ns(fe->dev) + (uint64_t)ms * 1000000;

	while (sr_pmd_now_ns(fe->dev) < end)
		if (sr_pmd_progress(fe->dev) == 0)
			fe_nap();
}

static int fe_run_send(struct fe *fe, const uint8_t peer[4], double min_ratio,
		       uint64_t deadline)
{
	uint8_t peer_mac[6];
	uint32_t next = 0, last_rx = 0, stall = 0;
	int rc;

	rc = fe_resolve(fe, peer, peer_mac, deadline);
	if (rc) {
		fprintf(stderr, "frame_echo: cannot resolve peer (%s)\n",
			strerror(-rc));
		return 1;
	}
	while (fe->received + fe->dups < fe->count &&
	       sr_pmd_now_ns(fe->dev) < deadline) {
		/* Keep a window in flight; on a stall, count it lost. */
		while (next < fe->count &&
		       next - (fe->received + stall) < fe->window &&
		       fe_send_one(fe, peer_mac, peer, next, 0) == 0)
			next++;
		if (sr_pmd_progress(fe->dev) > 0) {
			last_rx = 0;
			continue;
		}
		fe_nap();
		if (++last_rx > 2000) {      /* ~50 ms quiet */
			if (next == fe->count)
				break;
			stall = next - fe->received;
			last_rx = 0;
		}
	}
	for (int i = 0; i < 3; i++)
		fe_send_one(fe, peer_mac, peer, 0, FE_BYE);
	/*
	 * Linger: a memif server loses what it had not read when the client
	 * leaves, so give the echo side time to take the BYEs.
	 */
	fe_linger(fe, 200);
	printf("frame_echo: sent %u received %u lost %u dup %u bad %u size %u mtu %u path_mtu %u\n",
	       next, fe->received, next - fe->received, fe->dups, fe->bad,
	       fe->size, sr_pmd_mtu(fe->dev), sr_pmd_path_mtu_of(fe->dev));
	fe_counters(fe->dev);
	if (fe->bad || next != fe->count ||
	    fe->received < (uint32_t)(min_ratio * fe->count))
		return 1;
	if (min_ratio >= 1.0 && fe->dups)
		return 1;
	return 0;
}

static int fe_run_echo(struct fe *fe, uint64_t deadline)
{
	while (!fe->bye && sr_pmd_now_ns(fe->dev) < deadline)
		if (sr_pmd_progress(fe->dev) == 0)
			fe_nap();
	for (int i = 0; i < 100; i++)
		sr_pmd_progress(fe->dev);
	printf("frame_echo: received %u echoed %u%s\n", fe->received, fe->echoed,
	       fe->bye ? "" : " (timed out)");
	fe_counters(fe->dev);
	return fe->bye ? 0 : 1;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "peer", required_argument, NULL, 'p' },
		{ "count", required_argument, NULL, 'n' },
		{ "size", required_argument, NULL, 's' },
		{ "window", required_argument, NULL, 'w' },
		{ "min-ratio", required_argument, NULL, 'r' },
		{ "timeout-ms", required_argument, NULL, 't' },
		{ "resolve", required_argument, NULL, 'R' },
		{ 0 },
	};
	struct fe fe = { .count = 1000, .size = 128, .window = FE_WINDOW };
	uint32_t timeout_ms = 20000;
	double min_ratio = 1.0;
	uint8_t peer[4] = { 0 }, resolve[4][16];
	uint32_t n_resolve = 0;
	uint64_t deadline;
	int c, rc;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'p':
			if (inet_pton(AF_INET, optarg, peer) != 1) {
				fprintf(stderr, "frame_echo: bad --peer\n");
				return 2;
			}
			break;
		case 'n':
			fe.count = (uint32_t)strtoul(optarg, NULL, 0);
			break;
		case 's':
			fe.size = (uint32_t)strtoul(optarg, NULL, 0);
			break;
		case 'w':
			fe.window = (uint32_t)strtoul(optarg, NULL, 0);
			break;
		case 'r':
			min_ratio = strtod(optarg, NULL);
			break;
		case 't':
			timeout_ms = (uint32_t)strtoul(optarg, NULL, 0);
			break;
		case 'R':
			if (n_resolve == 4 || fe_parse_ip(optarg, resolve[n_resolve])) {
				fprintf(stderr, "frame_echo: bad --resolve\n");
				return 2;
			}
			n_resolve++;
			break;
		default:
			return 2;
		}
	}
	if (optind >= argc || (strcmp(argv[optind], "send") &&
			       strcmp(argv[optind], "echo"))) {
		fprintf(stderr, "usage: frame_echo send|echo [options]\n");
		return 2;
	}
	fe.echo = strcmp(argv[optind], "echo") == 0;
	if (fe.size < FE_HDR + SR_BTH_LEN + 8 + SR_ICRC_LEN)
		fe.size = FE_HDR + SR_BTH_LEN + 8 + SR_ICRC_LEN;
	fe.seen = calloc(fe.count ? fe.count : 1, 1);
	if (fe.seen == NULL)
		return 2;
	if (sr_pmd_open(&fe.dev))
		return 2;
	fe.ops = sr_pmd_link_ops();
	sr_pmd_set_rx_handler(fe.dev, fe_rx, &fe);
	deadline = sr_pmd_now_ns(fe.dev) + (uint64_t)timeout_ms * 1000000;
	if (sr_pmd_link_wait(fe.dev, timeout_ms)) {
		fprintf(stderr, "frame_echo: link did not come up\n");
		rc = 1;
		goto out;
	}
	if (fe.size > sr_pmd_mtu(fe.dev) + SR_ETH_HLEN) {
		fprintf(stderr, "frame_echo: size %u exceeds the MTU %u\n",
			fe.size, sr_pmd_mtu(fe.dev));
		rc = 1;
		goto out;
	}
	for (uint32_t i = 0; i < n_resolve; i++) {
		rc = fe_resolve_ip(&fe, resolve[i], deadline);
		if (rc)
			goto out;
	}
	rc = fe.echo ? fe_run_echo(&fe, deadline) :
		       fe_run_send(&fe, peer, min_ratio, deadline);
out:
	sr_pmd_dev_destroy(fe.dev);
	free(fe.seen);
	return rc;
}
