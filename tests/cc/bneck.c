/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * bneck — a small switch for congestion-control tests: N ports (AF_PACKET
 * sockets on veth ends inside a namespace), MAC learning, one FIFO per
 * egress port drained at a set rate (token bucket), RED-style CE marking of
 * ECN-capable IP packets by queue depth at enqueue (Kmin, Kmax, Pmax, as
 * the DCQCN paper configures its switches) and tail drop at the queue
 * limit.  Why not the kernel: docs/congestion.md.
 *
 *   bneck -p IF [-p IF ...] [-r Mbit/s] [-q bytes] [-k Kmin] [-K Kmax]
 *         [-P Pmax%] [-t seconds] [-s stats-file] [-l log-file [-i ms]]
 *
 * Runs until -t seconds pass or SIGINT/SIGTERM, then prints per port:
 * rx/tx frames and bytes, CE marked, tail drops, the largest queue and the
 * mean queue seen by departing frames (bytes).  -s writes the same lines
 * once a second (a file the test reads while it runs).  -l appends, every
 * -i milliseconds (100), one line per port with the monotonic clock's time
 * (the clock every namespace shares) and its counters so far:
 *   L <t_ns> <port> <tx_frames> <tx_bytes> <marked> <dropped> <qsum> <qmax>
 * qmax there is the largest queue since the previous line, so a benchmark
 * can take any window's drops, bytes, mean queue (qsum / tx) and largest
 * queue.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define MAX_PORTS 8
#define SLOT 9216           /* largest frame */
#define SLOTS 4096          /* frames a queue holds at most */
#define MACS 64

struct frame {
	uint32_t len;
	uint8_t data[SLOT];
};

struct port {
	const char *name;
	int fd;
	struct frame *q;        /* ring of SLOTS */
	uint32_t head, n;       /* first queued, frames queued */
	uint64_t qbytes;
	double credit;          /* bytes the port may send now */
	uint64_t rx, rx_bytes, tx, tx_bytes, marked, dropped, big;
	uint64_t qmax, qsum;    /* queue bytes: largest, summed over departures */
	uint64_t qmax_log;      /* largest queue since the last -l line */
};

static struct port ports[MAX_PORTS];
static int nports;
static struct { uint8_t mac[6]; int port; } macs[MACS];
static int nmacs;
static double rate_Bps = 100e6 / 8;
static uint64_t qlimit = 256 * 1024, kmin = 20 * 1024, kmax = 80 * 1024;
static double pmax = 0.2;
static volatile sig_atomic_t stop;
static uint64_t rng = 88172645463325252ull;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static double uniform(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (double)(rng >> 11) / 9007199254740992.0;
}

static int open_port(struct port *p)
{
	struct sockaddr_ll sll = { .sll_family = AF_PACKET,
				   .sll_protocol = htons(ETH_P_ALL) };
	int one = 1;

	p->fd = socket(AF_PACKET, SOCK_RAW | SOCK_NONBLOCK, htons(ETH_P_ALL));
	if (p->fd < 0)
		return -errno;
	sll.sll_ifindex = (int)if_nametoindex(p->name);
	if (sll.sll_ifindex == 0 || bind(p->fd, (struct sockaddr *)&sll, sizeof(sll)))
		return -errno;
	/* Our own transmissions are not input. */
	setsockopt(p->fd, SOL_PACKET, PACKET_IGNORE_OUTGOING, &one, sizeof(one));
	p->q = calloc(SLOTS, sizeof(struct frame));
	return p->q ? 0 : -ENOMEM;
}

static int lookup(const uint8_t *mac)
{
	for (int i = 0; i < nmacs; i++)
		if (memcmp(macs[i].mac, mac, 6) == 0)
			return macs[i].port;
	return -1;
}

static void learn(const uint8_t *mac, int port)
{
	if (mac[0] & 1)
		return;
	for (int i = 0; i < nmacs; i++) {
		if (memcmp(macs[i].mac, mac, 6) == 0) {
			macs[i].port = port;
			return;
		}
	}
	if (nmacs < MACS) {
		memcpy(macs[nmacs].mac, mac, 6);
		macs[nmacs++].port = port;
	}
}

/* The IP header of an IPv4 or IPv6 frame (untagged or 802.1Q), or NULL. */
static uint8_t *ip_header(uint8_t *f, uint32_t len, bool *v6)
{
	uint32_t off = 12;
	uint16_t et;

	if (len < 14)
		return NULL;
	et = (uint16_t)(f[off] << 8 | f[off + 1]);
	if (et == 0x8100) {
		off += 4;
		if (len < off + 2)
			return NULL;
		et = (uint16_t)(f[off] << 8 | f[off + 1]);
	}
	off += 2;
	if (et == 0x0800 && len >= off + 20) {
		*v6 = false;
		return f + off;
	}
	if (et == 0x86dd && len >= off + 40) {
		*v6 = true;
		return f + off;
	}
	return NULL;
}

/* Mark CE; for IPv4 update the checksum (RFC 1624: HC' = ~(~HC + ~m + m')). */
static bool mark_ce(uint8_t *f, uint32_t len)
{
	bool v6;
	uint8_t *ip = ip_header(f, len, &v6);
	uint32_t sum;
	uint16_t old, new;

	if (ip == NULL)
		return false;
	if (v6) {
		uint8_t ecn = (ip[1] >> 4) & 3;

		if (ecn == 0)
			return false;
		ip[1] |= 0x30;
		return true;
	}
	if ((ip[1] & 3) == 0)
		return false;
	old = (uint16_t)(ip[0] << 8 | ip[1]);
	ip[1] |= 3;
	new = (uint16_t)(ip[0] << 8 | ip[1]);
	sum = (uint16_t)~(ip[10] << 8 | ip[11]);
	sum += (uint16_t)~old;
	sum += new;
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	sum = (uint16_t)~sum;
	ip[10] = (uint8_t)(sum >> 8);
	ip[11] = (uint8_t)sum;
	return true;
}

static bool ecn_capable(uint8_t *f, uint32_t len)
{
	bool v6;
	uint8_t *ip = ip_header(f, len, &v6);

	if (ip == NULL)
		return false;
	return v6 ? ((ip[1] >> 4) & 3) != 0 : (ip[1] & 3) != 0;
}

static void enqueue(struct port *p, const uint8_t *f, uint32_t len)
{
	struct frame *slot;

	if (p->n == SLOTS || p->qbytes + len > qlimit) {
		p->dropped++;
		return;
	}
	slot = &p->q[(p->head + p->n) % SLOTS];
	memcpy(slot->data, f, len);
	slot->len = len;
	if (ecn_capable(slot->data, len)) {
		bool m = p->qbytes >= kmax;

		if (!m && p->qbytes > kmin)
			m = uniform() < pmax * (double)(p->qbytes - kmin) /
					(double)(kmax - kmin);
		if (m && mark_ce(slot->data, len))
			p->marked++;
	}
	p->n++;
	p->qbytes += len;
	if (p->qbytes > p->qmax)
		p->qmax = p->qbytes;
	if (p->qbytes > p->qmax_log)
		p->qmax_log = p->qbytes;
}

static void drain(struct port *p, double dt)
{
	p->credit += dt * rate_Bps;
	if (p->n == 0 && p->credit > SLOT)
		p->credit = SLOT;           /* an idle port saves one frame */
	while (p->n > 0 && p->credit >= p->q[p->head].len) {
		struct frame *f = &p->q[p->head];

		if (send(p->fd, f->data, f->len, 0) < 0 && errno == EAGAIN)
			break;                  /* veth full: try next round */
		p->qsum += p->qbytes;
		p->credit -= f->len;
		p->tx++;
		p->tx_bytes += f->len;
		p->qbytes -= f->len;
		p->head = (p->head + 1) % SLOTS;
		p->n--;
	}
}

static void receive(int in)
{
	static uint8_t buf[65536];
	struct port *p = &ports[in];

	for (int k = 0; k < 64; k++) {
		ssize_t n = recv(p->fd, buf, sizeof(buf), 0);
		int out;

		if (n <= 0)
			return;
		p->rx++;
		p->rx_bytes += (uint64_t)n;
		if (n > SLOT) {
			p->big++;
			continue;
		}
		learn(buf + 6, in);
		out = (buf[0] & 1) ? -1 : lookup(buf);
		if (out == in)
			continue;
		if (out >= 0) {
			enqueue(&ports[out], buf, (uint32_t)n);
			continue;
		}
		for (int o = 0; o < nports; o++)
			if (o != in)
				enqueue(&ports[o], buf, (uint32_t)n);
	}
}

static void report(FILE *f, double elapsed)
{
	fprintf(f, "elapsed %.3f rate_mbps %.1f kmin %llu kmax %llu pmax %.3f qlimit %llu\n",
		elapsed, rate_Bps * 8 / 1e6, (unsigned long long)kmin,
		(unsigned long long)kmax, pmax, (unsigned long long)qlimit);
	for (int i = 0; i < nports; i++) {
		struct port *p = &ports[i];

		fprintf(f, "port %s rx %llu rx_bytes %llu tx %llu tx_bytes %llu "
			"marked %llu dropped %llu oversize %llu qmax %llu qmean %llu\n",
			p->name, (unsigned long long)p->rx,
			(unsigned long long)p->rx_bytes, (unsigned long long)p->tx,
			(unsigned long long)p->tx_bytes,
			(unsigned long long)p->marked,
			(unsigned long long)p->dropped, (unsigned long long)p->big,
			(unsigned long long)p->qmax,
			(unsigned long long)(p->tx ? p->qsum / p->tx : 0));
	}
	fflush(f);
}

static void write_stats(const char *path, double elapsed)
{
	char tmp[512];
	FILE *f;

	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	f = fopen(tmp, "w");
	if (f == NULL)
		return;
	report(f, elapsed);
	fclose(f);
	rename(tmp, path);
}

static void write_log(FILE *f)
{
	struct timespec ts;
	unsigned long long t;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	t = (unsigned long long)ts.tv_sec * 1000000000ull + (unsigned long long)ts.tv_nsec;
	for (int i = 0; i < nports; i++) {
		struct port *p = &ports[i];

		fprintf(f, "L %llu %s %llu %llu %llu %llu %llu %llu\n", t, p->name,
			(unsigned long long)p->tx, (unsigned long long)p->tx_bytes,
			(unsigned long long)p->marked,
			(unsigned long long)p->dropped,
			(unsigned long long)p->qsum,
			(unsigned long long)p->qmax_log);
		p->qmax_log = p->qbytes;
	}
	fflush(f);
}

static int usage(void)
{
	fprintf(stderr, "usage: bneck -p IF [-p IF ...] [-r Mbit/s] [-q bytes] "
		"[-k Kmin] [-K Kmax] [-P Pmax%%] [-t seconds] [-s stats-file] "
		"[-l log-file [-i ms]]\n");
	return 2;
}

int main(int argc, char **argv)
{
	const char *stats = NULL;
	FILE *log = NULL;
	double duration = 0, log_every = 0.1, t0, last, last_stats, last_log;
	struct pollfd pfd[MAX_PORTS];
	int c;

	while ((c = getopt(argc, argv, "p:r:q:k:K:P:t:s:l:i:")) != -1) {
		switch (c) {
		case 'p':
			if (nports == MAX_PORTS)
				return usage();
			ports[nports++].name = optarg;
			break;
		case 'r': rate_Bps = atof(optarg) * 1e6 / 8; break;
		case 'q': qlimit = strtoull(optarg, NULL, 0); break;
		case 'k': kmin = strtoull(optarg, NULL, 0); break;
		case 'K': kmax = strtoull(optarg, NULL, 0); break;
		case 'P': pmax = atof(optarg) / 100; break;
		case 't': duration = atof(optarg); break;
		case 's': stats = optarg; break;
		case 'l':
			log = fopen(optarg, "a");
			if (log == NULL) {
				fprintf(stderr, "bneck: %s: %s\n", optarg, strerror(errno));
				return 1;
			}
			break;
		case 'i': log_every = atof(optarg) / 1000; break;
		default: return usage();
		}
	}
	if (nports < 2 || rate_Bps <= 0 || kmax <= kmin || qlimit < SLOT ||
	    log_every <= 0)
		return usage();
	for (int i = 0; i < nports; i++) {
		int rc = open_port(&ports[i]);

		if (rc) {
			fprintf(stderr, "bneck: %s: %s\n", ports[i].name, strerror(-rc));
			return 1;
		}
		pfd[i] = (struct pollfd){ .fd = ports[i].fd, .events = POLLIN };
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	t0 = last = last_stats = last_log = now_s();
	if (log)
		write_log(log);
	while (!stop) {
		double t;
		bool busy = false;

		for (int i = 0; i < nports; i++)
			busy |= ports[i].n > 0;
		/* Idle: sleep in poll; busy: spin so departures keep the rate. */
		int ready = poll(pfd, (nfds_t)nports, busy ? 0 : 10);

		/*
		 * Departures first: after the switch lost its core for a
		 * while, the port has sent meanwhile, and the frames that
		 * arrived meanwhile must not find a queue that a real port
		 * would have emptied.
		 */
		t = now_s();
		for (int i = 0; i < nports; i++)
			drain(&ports[i], t - last);
		last = t;
		if (ready > 0)
			for (int i = 0; i < nports; i++)
				if (pfd[i].revents & POLLIN)
					receive(i);
		if (stats && t - last_stats >= 1.0) {
			write_stats(stats, t - t0);
			last_stats = t;
		}
		if (log && t - last_log >= log_every) {
			write_log(log);
			last_log = t;
		}
		if (duration > 0 && t - t0 >= duration)
			break;
	}
	if (log) {
		write_log(log);
		fclose(log);
	}
	if (stats)
		write_stats(stats, now_s() - t0);
	report(stdout, now_s() - t0);
	return 0;
}
