/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * main.c — sroced: one sroce device per host, shared by every process
 * (sroced.h, docs/sroced.md).
 *
 *   sroced [--foreground] [--config FILE]... [--socket PATH]
 *          [--run-dir DIR] [--quarantine-ms MS] [--qpn-blocks N]
 *          [--cm-hold-ms MS]
 *          [--idle-spin-us US] [--idle-yield-us US] [--idle-nap-us US]
 *          [--no-sleep] [--nice N]
 *          [--verbose]
 *
 * Devices: each --config FILE (pmd/CONFIG.md), else every
 * /etc/sroce/NAME.conf in name order; named sroce0, sroce1, ... in that
 * order.  SIGTERM and SIGINT stop it cleanly: clients see their channel
 * and their control connection close (IBV_EVENT_DEVICE_FATAL).
 */
#include <errno.h>
#include <glob.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "gid.h"
#include "sroced.h"

static volatile sig_atomic_t srd_stop;

static void srd_on_signal(int sig)
{
	(void)sig;
	srd_stop = 1;
}

void srd_log(const char *fmt, ...)
{
	va_list ap;

	fputs("sroced: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

uint64_t srd_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* What clients are told of a device, from its port once it is up. */
static void srd_dev_describe(struct srd_device *dv)
{
	const struct sr_gid_table *g = sr_pmd_gids(dv->pmd);
	struct srd_dev_info *in = &dv->info;

	srd_hdr_init(&in->h, SRD_DEV_INFO | SRD_REPLY, sizeof(*in));
	snprintf(in->name, sizeof(in->name), "%s", dv->name);
	sr_pmd_mac(dv->pmd, in->mac);
	in->mtu = sr_pmd_mtu(dv->pmd);
	dv->nip = 0;
	for (uint32_t i = 0; i < g->n && dv->nip < SR_GID_TABLE_MAX; i++) {
		const uint8_t *gid = g->entry[i].gid;
		static const uint8_t v4[12] = { [10] = 0xff, [11] = 0xff };

		if (!g->entry[i].valid)
			continue;
		memcpy(dv->ip[dv->nip++], gid, 16);
		if (memcmp(gid, v4, 12) == 0) {
			memcpy(in->ipv4, gid + 12, 4);
			in->has_ipv4 = 1;
			in->ipv4_prefix = dv->cfg.has_ipv4 ? dv->cfg.ipv4_prefix : 32;
		} else if (!(gid[0] == 0xfe && (gid[1] & 0xc0) == 0x80) &&
			   in->n_ipv6 < SRD_IPV6_MAX) {
			memcpy(in->ipv6[in->n_ipv6], gid, 16);
			in->ipv6_prefix[in->n_ipv6++] = 64;
		}
	}
}

/*
 * UCX (uct_ib) takes only devices that have a character device at
 * /dev/infiniband/NAME.  A device in user space has none, so its daemon,
 * like systemd-tmpfiles at boot for an installed sroce
 * (tools/sroce-run/sroce-tmpfiles.conf), makes a stand-in with /dev/null's
 * numbers, read by nobody, when there is none.  Left in place at stop:
 * another sroce (embedded, or the next daemon) names its devices the same.
 */
static void srd_dev_node(const struct srd_device *dv)
{
	char path[64];

	snprintf(path, sizeof(path), "/dev/infiniband/%s", dv->name);
	if (access(path, F_OK) == 0 || geteuid() != 0)
		return;
	if ((mkdir("/dev/infiniband", 0755) && errno != EEXIST) ||
	    mknod(path, S_IFCHR | 0666, makedev(1, 3)) ||
	    chmod(path, 0666))
		srd_log("%s: %s (UCX will not list %s)", path, strerror(errno),
			dv->name);
}

static int srd_dev_open(struct sroced *d, struct srd_device *dv,
			unsigned int index, const char *path)
{
	char err[SR_CONFIG_ERR_MAX] = "";
	int rc;

	snprintf(dv->name, sizeof(dv->name), "sroce%u", index);
	snprintf(dv->path, sizeof(dv->path), "%s", path);
	sr_pmd_config_init(&dv->cfg);
	/* a switch's buffers, unless the file says otherwise (sroced.h) */
	dv->cfg.rx_desc = SRD_PORT_RX_DESC;
	dv->cfg.mbufs = SRD_PORT_MBUFS;
	rc = sr_pmd_config_parse_file(&dv->cfg, path, err, sizeof(err));
	if (rc == 0 && dv->cfg.default_link) {
		snprintf(err, sizeof(err), "%s: port = default is the embedded link; give sroced a port of its own", path);
		rc = -EINVAL;
	}
	dv->cfg.mode = SR_PMD_MODE_INLINE;   /* this thread progresses it */
	if (rc == 0)
		rc = sr_pmd_config_port_buffers(&dv->cfg, err, sizeof(err));
	if (rc == 0)
		rc = sr_pmd_dev_create(&dv->cfg, -1, &dv->pmd, err, sizeof(err));
	if (rc) {
		srd_log("%s", err);
		return rc;
	}
	srd_dev_describe(dv);
	rc = srd_qp1_open(d, dv);
	if (rc) {
		srd_log("%s: QP1: %s", dv->name, strerror(-rc));
		return rc;
	}
	sr_pmd_set_rx_handler(dv->pmd, srd_switch_from_port, dv);
	srd_dev_node(dv);
	srd_log("%s: %s, port %s, MTU %u", dv->name, path,
		dv->cfg.iface[0] ? dv->cfg.iface : dv->cfg.port, dv->info.mtu);
	return 0;
}

static void srd_usage(void)
{
	fprintf(stderr,
		"usage: sroced [--foreground] [--config FILE]... [--socket PATH]\n"
		"              [--run-dir DIR] [--quarantine-ms MS] [--qpn-blocks N]\n"
		"              [--cm-hold-ms MS]\n"
		"              [--idle-spin-us US] [--idle-yield-us US]\n"
		"              [--idle-nap-us US] [--no-sleep] [--nice N] [--verbose]\n");
}

/*
 * A client came or went: what the others are told, and the daemon's share
 * of a busy CPU.
 *
 * Every frame between a client and the NIC, or between two clients,
 * passes through this one thread.  Where clients outnumber CPUs and poll,
 * a fair share (one part in clients + 1) starves them all, each waiting
 * for frames the daemon has not had the CPU to move.  So:
 *  - each client learns whether others share the daemon (srd_bell.shared):
 *    then its empty CQ polls sleep until the daemon rings it instead of
 *    polling (pmd/dev.c, sr_pmd_daemon_sleep);
 *  - the daemon asks for one share per client it serves: the nice value
 *    whose weight is about n times that of the nice it was started with
 *    (the kernel's weights grow 1.25 times per step), down to --nice (-10
 *    by default; 0: never).  One client keeps the starting nice: there
 *    the daemon and the client need the CPU in turn, and a heavier daemon
 *    only preempts the client more often (ib_write_bw 64 KiB through two
 *    daemons: 2.3 -> 1.9 Gbit/s at a fixed -10).
 * On 2 CPUs, 8 pairs through two daemons: the aggregate from 65-76 % to
 * 79-101 % of one pair's (docs/performance.md).  Runs on this (the
 * switch's) thread; without CAP_SYS_NICE the daemon says so once.
 */
void srd_clients_changed(struct sroced *d)
{
	unsigned int n = 0, k = 0;
	uint64_t w = 1024;
	int want;

	for (unsigned int i = 0; i < SRD_CLIENTS_MAX; i++)
		if (d->client[i] != NULL && d->client[i]->port != NULL)
			n++;
	for (unsigned int i = 0; i < SRD_CLIENTS_MAX; i++)
		if (d->client[i] != NULL && d->client[i]->bell != NULL)
			__atomic_store_n(&d->client[i]->bell->shared, n > 1,
					 __ATOMIC_RELAXED);
	if (d->nice_max >= 0 || d->nice_denied)
		return;
	while (n > 1 && w < (uint64_t)n * 1024 && k < 20) {
		w = w * 5 / 4;
		k++;
	}
	want = d->nice_base - (int)k;
	if (want < d->nice_max)
		want = d->nice_max < d->nice_base ? d->nice_max : d->nice_base;
	if (want == d->nice)
		return;
	if (setpriority(PRIO_PROCESS, 0, want) != 0) {
		srd_log("cannot take nice %d for %u clients (%s): the daemon "
			"keeps nice %d", want, n, strerror(errno), d->nice);
		d->nice_denied = true;
		return;
	}
	if (d->verbose)
		srd_log("nice %d for %u client%s", want, n, n == 1 ? "" : "s");
	d->nice = want;
}

/* One round of every port: the devices' and the clients' channels. */
int srd_round(struct sroced *d)
{
	int work = 0;

	for (unsigned int i = 0; i < d->ndevs; i++) {
		struct srd_device *dv = &d->dev[i];

		if (dv->park != NULL && dv->park->n != 0)
			work += srd_park_retry_port(dv, srd_now_ns());
		work += sr_pmd_progress(dv->pmd);
	}
	for (unsigned int i = 0; i < SRD_CLIENTS_MAX; i++) {
		struct srd_client *c = d->client[i];

		if (c == NULL || c->port == NULL)
			continue;
		if (c->park != NULL && c->park->n != 0)
			work += srd_park_retry_client(c, srd_now_ns());
		work += sr_pmd_progress(c->port);
	}
	return work;
}

/* The loop: every port each round; the control socket every millisecond
 * or when a sleep saw it readable. */
static void srd_run(struct sroced *d)
{
	uint64_t idle_since = 0, ctl_next = 0, now;
	bool idle = false;

	while (!srd_stop) {
		int work = srd_round(d);

		now = sr_pmd_now_ns(d->dev[0].pmd);
		if (work) {
			idle = false;
		} else if (!idle) {
			idle = true;
			idle_since = now;
		} else if (srd_idle(d, now - idle_since)) {
			ctl_next = 0;
		}
		if (now >= ctl_next) {
			srd_ctl_poll(d);
			for (unsigned int i = 0; i < d->ndevs; i++)
				srd_qp1_poll(&d->dev[i], srd_now_ns());
			ctl_next = sr_pmd_now_ns(d->dev[0].pmd) + 1000000;
		}
	}
}

/* The idle times set in microseconds (idle.c): the field of option a, and
 * the least it takes; NULL if a is none of them. */
static uint64_t *srd_idle_opt(struct sroced *d, const char *a,
			      unsigned long *least)
{
	static const struct {
		const char *opt;
		size_t off;
		unsigned long least;
	} t[] = {
		{ "--idle-spin-us", offsetof(struct sroced, idle_spin_ns), 0 },
		{ "--idle-yield-us", offsetof(struct sroced, idle_yield_ns), 0 },
		{ "--idle-nap-us", offsetof(struct sroced, idle_nap_ns), 1 },
	};

	for (size_t k = 0; k < sizeof(t) / sizeof(t[0]); k++)
		if (strcmp(a, t[k].opt) == 0) {
			*least = t[k].least;
			return (uint64_t *)((char *)d + t[k].off);
		}
	return NULL;
}

int main(int argc, char **argv)
{
	static struct sroced d = { .listen_fd = -1 };
	const char *configs[SRD_DEVS_MAX];
	unsigned int nconfigs = 0;
	bool foreground = false;
	glob_t gl = { 0 };
	int rc = 0;

	d.sock_path = getenv("SROCE_DAEMON_SOCKET");
	if (d.sock_path == NULL || *d.sock_path == '\0')
		d.sock_path = SRD_SOCKET_DEFAULT;
	snprintf(d.run_dir, sizeof(d.run_dir), "/run/sroce");
	d.quarantine_ns = 10000000000ull;
	d.cm_hold_ns = SRD_CM_HOLD_MS * 1000000ull;
	d.nblocks = SRD_BLOCKS;
	srd_idle_defaults(&d);
	d.nice_max = SRD_NICE_MAX;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		unsigned long least;
		uint64_t *idle;

		if (strcmp(a, "--foreground") == 0) {
			foreground = true;
		} else if (strcmp(a, "--verbose") == 0) {
			d.verbose = true;
		} else if (strcmp(a, "--no-sleep") == 0) {
			d.no_sleep = true;
		} else if (v && strcmp(a, "--config") == 0 && nconfigs < SRD_DEVS_MAX) {
			configs[nconfigs++] = v;
			i++;
		} else if (v && strcmp(a, "--socket") == 0) {
			d.sock_path = v;
			i++;
		} else if (v && strcmp(a, "--run-dir") == 0) {
			snprintf(d.run_dir, sizeof(d.run_dir), "%s", v);
			i++;
		} else if (v && (idle = srd_idle_opt(&d, a, &least)) != NULL) {
			char *end;
			unsigned long us = strtoul(v, &end, 0);

			if (*v == '\0' || *end != '\0' || us > 100000 ||
			    us < least) {
				fprintf(stderr, "sroced: %s: 0 .. 100000 (the nap at least 1)\n", a);
				return 2;
			}
			*idle = us * 1000;
			i++;
		} else if (v && strcmp(a, "--nice") == 0) {
			char *end;
			long n = strtol(v, &end, 0);

			if (*v == '\0' || *end != '\0' || n < -20 || n > 0) {
				fprintf(stderr, "sroced: --nice: -20 .. 0\n");
				return 2;
			}
			d.nice_max = (int)n;
			i++;
		} else if (v && strcmp(a, "--cm-hold-ms") == 0) {
			char *end;
			unsigned long ms = strtoul(v, &end, 0);

			if (*v == '\0' || *end != '\0' || ms > 10000) {
				fprintf(stderr, "sroced: --cm-hold-ms: 0 .. 10000\n");
				return 2;
			}
			d.cm_hold_ns = ms * 1000000ull;
			i++;
		} else if (v && strcmp(a, "--quarantine-ms") == 0) {
			d.quarantine_ns = strtoull(v, NULL, 0) * 1000000ull;
			i++;
		} else if (v && strcmp(a, "--qpn-blocks") == 0) {
			unsigned long n = strtoul(v, NULL, 0);

			if (n < 2 || n > SRD_BLOCKS) {
				fprintf(stderr, "sroced: --qpn-blocks: 2 .. %u\n", SRD_BLOCKS);
				return 2;
			}
			d.nblocks = (uint32_t)n + 1;   /* block 0 is ours */
			if (d.nblocks > SRD_BLOCKS)
				d.nblocks = SRD_BLOCKS;
			i++;
		} else {
			srd_usage();
			return 2;
		}
	}
	if (nconfigs == 0) {
		if (glob("/etc/sroce/*.conf", 0, NULL, &gl) == 0)
			for (size_t i = 0; i < gl.gl_pathc && nconfigs < SRD_DEVS_MAX; i++)
				configs[nconfigs++] = gl.gl_pathv[i];
		if (nconfigs == 0) {
			srd_log("no devices: no --config and no /etc/sroce/*.conf");
			return 1;
		}
	}
	if (mkdir(d.run_dir, 0755) && errno != EEXIST) {
		srd_log("%s: %s", d.run_dir, strerror(errno));
		return 1;
	}
	if (strlen(d.run_dir) + sizeof("/clients.sock") > sizeof(d.memif_sock)) {
		srd_log("--run-dir %s: too long for a socket path", d.run_dir);
		return 1;
	}
	strcpy(d.memif_sock, d.run_dir);
	strcat(d.memif_sock, "/clients.sock");
	srd_switch_init(&d);
	errno = 0;
	d.nice_base = getpriority(PRIO_PROCESS, 0);   /* srd_clients_changed */
	if (errno != 0)
		d.nice_base = 0;
	d.nice = d.nice_base;
	prctl(PR_SET_TIMERSLACK, 1000UL);   /* srd_idle's sleeps: 1 us */
	signal(SIGPIPE, SIG_IGN);
	signal(SIGTERM, srd_on_signal);
	signal(SIGINT, srd_on_signal);
	for (unsigned int i = 0; i < nconfigs && rc == 0; i++) {
		rc = srd_dev_open(&d, &d.dev[i], i, configs[i]);
		if (rc == 0)
			d.ndevs++;
	}
	if (rc == 0) {
		rc = srd_ctl_open(&d);
		if (rc)
			srd_log("%s: %s", d.sock_path, strerror(-rc));
	}
	if (rc == 0) {
		srd_log("serving %u device(s) on %s (pid %d; idle: spins %llu us, "
			"polls yielding %llu us, then %s)",
			d.ndevs, d.sock_path, (int)getpid(),
			(unsigned long long)(d.idle_spin_ns / 1000),
			(unsigned long long)(d.idle_yield_ns / 1000),
			srd_idle_how(&d));
		if (!foreground && daemon(0, 1) != 0)
			srd_log("cannot go to the background: %s", strerror(errno));
		srd_run(&d);
		srd_log("stopping");
	}
	srd_ctl_close(&d);
	for (unsigned int i = 0; i < d.ndevs; i++) {
		srd_qp1_close(&d.dev[i]);
		srd_mcast_close(&d.dev[i]);
		srd_park_free(&d.dev[i].park);
		sr_pmd_dev_destroy(d.dev[i].pmd);
	}
	globfree(&gl);
	return rc ? 1 : 0;
}
