/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * sroce-stat — read a running sroce device's counters from its stats file
 * (<dir>/sroce-<pid>-<port>.stats) and change its fault rules while
 * traffic runs.
 *
 *   sroce-stat [-d DIR] [-p PID | -f FILE] [-a] [-q] [-w SECONDS]
 *   sroce-stat [-d DIR] [-p PID | -f FILE] -F RULE [-F RULE ...] [-s SEED]
 *   sroce-stat [-d DIR] [-p PID | -f FILE] -F off
 *   sroce-stat [-d DIR] -l
 *   sroce-stat [-d DIR] -c
 *   sroce-stat [-d DIR] [-p PID | -f FILE] --trace QPN [--count N]
 *              [--timeout SECONDS]
 *
 * Without -p / -f the one stats file in DIR (default /dev/shm) is used.
 * -a prints zero counters too, -q the per-QP slots, -w repeats.  The
 * link's counters come first, then the transport's (xport_*, parse_*),
 * which a node (pmd/node.h) copies in while it runs.
 * RULE is the config syntax (pmd/CONFIG.md), e.g. "tx drop prob=5%".
 * --trace (-t) follows one QP live, a line per protocol event, until
 * Ctrl-C, N events or the timeout (trace.c; docs/counters.md).
 * -c lists sroced's clients: pid, program, QPN block, QPs, listeners,
 * frames and bytes each way, forged frames (clients.c; docs/sroced.md).
 */
#include <errno.h>
#include <getopt.h>
#include <glob.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <signal.h>
#include <unistd.h>

#include "clients.h"
#include "core/counters.h"
#include "counters.h"
#include "fault.h"
#include "trace.h"
#include "wire/parse.h"

struct stat_opts {
	const char *dir, *file;
	int pid;
	bool all, qp, list, clients;
	unsigned int watch;
	struct sr_fault_set set;
	bool set_faults;
	bool trace;
	struct stat_trace_opts tr;
};

/* Pick the file: explicit, by pid, or the only one. */
static int stat_find(const struct stat_opts *o, char *path, size_t len)
{
	char pattern[PATH_MAX];
	glob_t g;
	int rc = 0;

	if (o->file) {
		snprintf(path, len, "%s", o->file);
		return 0;
	}
	if (o->pid)
		snprintf(pattern, sizeof(pattern), "%s/sroce-%d-*.stats",
			 o->dir, o->pid);
	else
		snprintf(pattern, sizeof(pattern), "%s/sroce-*-*.stats", o->dir);
	if (glob(pattern, 0, NULL, &g) != 0) {
		fprintf(stderr, "sroce-stat: no running sroce device (no stats file matches %s)\n",
			pattern);
		return -ENOENT;
	}
	if (g.gl_pathc > 1) {
		fprintf(stderr, "sroce-stat: %zu devices; pick one with -p or -f (see -l)\n",
			g.gl_pathc);
		rc = -EEXIST;
	} else {
		snprintf(path, len, "%s", g.gl_pathv[0]);
	}
	globfree(&g);
	return rc;
}

static void stat_list(const char *dir)
{
	char pattern[PATH_MAX];
	glob_t g;

	snprintf(pattern, sizeof(pattern), "%s/sroce-*-*.stats", dir);
	if (glob(pattern, 0, NULL, &g) != 0)
		return;
	for (size_t i = 0; i < g.gl_pathc; i++) {
		struct sr_stats_shm *s = sr_stats_open(g.gl_pathv[i], false);
		bool alive;

		if (s == NULL) {
			printf("%s: %s\n", g.gl_pathv[i], strerror(errno));
			continue;
		}
		alive = kill(s->pid, 0) == 0 || errno != ESRCH;
		printf("%s  pid %d%s  port %u  %s\n", g.gl_pathv[i], s->pid,
		       alive ? "" : " (gone)", s->port_id, s->port);
		stat_client_line(s, dir, "  ");
		sr_stats_close(s);
	}
	globfree(&g);
}

/* lib's counter and parse names (TX_PKTS) as the file's (tx_pkts). */
static const char *stat_lower(const char *name, char *buf, size_t len)
{
	size_t i;

	for (i = 0; name[i] && i + 1 < len; i++)
		buf[i] = (char)(name[i] >= 'A' && name[i] <= 'Z' ?
				name[i] - 'A' + 'a' : name[i]);
	buf[i] = '\0';
	return buf;
}

/* The transport's counters (the node copies them in): "xport_" + name. */
static void stat_print_xport(const uint64_t *c, uint32_t n, bool all,
			     const char *indent)
{
	char name[64];

	for (unsigned int i = 0; i < n && i < SR_CNT_MAX; i++)
		if (all || c[i])
			printf("%sxport_%-20s %llu\n", indent,
			       stat_lower(sr_counter_name(i), name, sizeof(name)),
			       (unsigned long long)c[i]);
}

static void stat_print(const struct sr_stats_shm *s, const struct stat_opts *o)
{
	char rule[160], name[64];

	printf("device pid %d port %u %s\n", s->pid, s->port_id, s->port);
	stat_client_line(s, o->dir, "  ");
	printf("  mac %02x:%02x:%02x:%02x:%02x:%02x ipv4 %u.%u.%u.%u mtu %u path_mtu %u\n",
	       s->mac[0], s->mac[1], s->mac[2], s->mac[3], s->mac[4], s->mac[5],
	       s->ipv4[0], s->ipv4[1], s->ipv4[2], s->ipv4[3], s->mtu,
	       s->path_mtu);
	for (unsigned int i = 0; i < s->n_dev_counters && i < SR_CTR_MAX; i++)
		if (o->all || s->dev[i])
			printf("  %-26s %llu\n", sr_stats_dev_name(i),
			       (unsigned long long)s->dev[i]);
	stat_print_xport(s->xport, s->n_xport_counters, o->all, "  ");
	for (unsigned int i = 1; i < s->n_parse_counters && i < SR_PARSE_MAX; i++)
		if (o->all || s->parse[i])
			printf("  parse_%-20s %llu\n",
			       stat_lower(sr_parse_result_name(i), name,
					  sizeof(name)),
			       (unsigned long long)s->parse[i]);
	for (uint32_t i = 0; i < s->fault.set.n && i < SR_FAULT_RULES_MAX; i++) {
		sr_fault_rule_format(&s->fault.set.rule[i], rule, sizeof(rule));
		printf("  fault %s\n", rule);
	}
	if (!o->qp)
		return;
	for (uint32_t q = 0; q < SR_STATS_QP_SLOTS; q++) {
		if (!s->qp[q].in_use)
			continue;
		printf("  qp %u:", s->qp[q].qpn);
		for (unsigned int i = 0; i < SR_QP_CTR_MAX; i++)
			printf(" %s=%llu", sr_stats_qp_name(i),
			       (unsigned long long)s->qp[q].c[i]);
		printf(" rate_mbps=%.1f\n", (double)s->qp[q].rate_bps / 1e6);
		stat_print_xport(s->qp[q].xport, s->n_xport_counters, o->all,
				 "    ");
	}
}

/* Publish and wait up to a second for the device to apply the rules. */
static int stat_faults(struct sr_stats_shm *s, const struct sr_fault_set *set)
{
	const struct timespec nap = { .tv_nsec = 10 * 1000 * 1000 };

	sr_stats_fault_publish(s, set);
	for (int i = 0; i < 100; i++) {
		if (__atomic_load_n(&s->fault.applied_gen, __ATOMIC_ACQUIRE) ==
		    __atomic_load_n(&s->fault.gen, __ATOMIC_ACQUIRE)) {
			printf("sroce-stat: %u fault rule(s) applied\n", set->n);
			return 0;
		}
		nanosleep(&nap, NULL);
	}
	fprintf(stderr, "sroce-stat: rules published, the device did not apply them within 1 s (not progressing?)\n");
	return 1;
}

static int stat_parse(int argc, char **argv, struct stat_opts *o)
{
	static const struct option longopts[] = {
		{ .name = "trace", .has_arg = required_argument, .val = 't' },
		{ .name = "count", .has_arg = required_argument, .val = 'n' },
		{ .name = "timeout", .has_arg = required_argument, .val = 'T' },
		{ 0 },
	};
	char err[160], *end;
	unsigned long v;
	int c;

	while ((c = getopt_long(argc, argv, "d:p:f:aqw:F:s:lcht:n:T:", longopts,
				NULL)) != -1) {
		switch (c) {
		case 't':
			v = strtoul(optarg, &end, 0);
			if (*optarg == '\0' || *end != '\0' || v > 0xffffff) {
				fprintf(stderr, "sroce-stat: --trace %s: not a QP number (24 bits, decimal or 0x hex)\n",
					optarg);
				return 2;
			}
			o->trace = true;
			o->tr.qpn = (uint32_t)v;
			break;
		case 'n':
			o->tr.count = strtoul(optarg, NULL, 0);
			break;
		case 'T':
			o->tr.timeout_s = (unsigned int)atoi(optarg);
			break;
		case 'd':
			o->dir = optarg;
			break;
		case 'p':
			o->pid = atoi(optarg);
			break;
		case 'f':
			o->file = optarg;
			break;
		case 'a':
			o->all = true;
			break;
		case 'q':
			o->qp = true;
			break;
		case 'w':
			o->watch = (unsigned int)atoi(optarg);
			break;
		case 'l':
			o->list = true;
			break;
		case 'c':
			o->clients = true;
			break;
		case 's':
			o->set.seed = strtoull(optarg, NULL, 0);
			break;
		case 'F':
			o->set_faults = true;
			if (strcmp(optarg, "off") == 0)
				break;
			if (o->set.n == SR_FAULT_RULES_MAX) {
				fprintf(stderr, "sroce-stat: at most %d rules\n",
					SR_FAULT_RULES_MAX);
				return 2;
			}
			if (sr_fault_rule_parse(&o->set.rule[o->set.n], optarg,
						err, sizeof(err))) {
				fprintf(stderr, "sroce-stat: %s\n", err);
				return 2;
			}
			o->set.n++;
			break;
		default:
			fprintf(stderr, "usage: sroce-stat [-d DIR] [-p PID | -f FILE] [-a] [-q] [-w SEC] [-F RULE|off ...] [-s SEED] [-l] [-c]\n"
				"       sroce-stat [-d DIR] [-p PID | -f FILE] --trace QPN [--count N] [--timeout SEC]\n");
			return 2;
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct stat_opts o = { .dir = "/dev/shm" };
	struct sr_stats_shm *s;
	char path[PATH_MAX];
	int rc;

	rc = stat_parse(argc, argv, &o);
	if (rc)
		return rc;
	if (o.list) {
		stat_list(o.dir);
		return 0;
	}
	if (o.clients)
		return stat_clients(o.dir);
	if (stat_find(&o, path, sizeof(path)))
		return 1;
	s = sr_stats_open(path, o.set_faults || o.trace);
	if (s == NULL) {
		fprintf(stderr, "sroce-stat: %s: %s\n", path,
			errno == EPROTO ? "not a sroce stats file of this version" :
					  strerror(errno));
		return 1;
	}
	if (o.trace) {
		rc = stat_trace(s, &o.tr);
	} else if (o.set_faults) {
		rc = stat_faults(s, &o.set);
	} else {
		do {
			stat_print(s, &o);
			if (o.watch)
				sleep(o.watch);
		} while (o.watch);
	}
	sr_stats_close(s);
	return rc;
}
