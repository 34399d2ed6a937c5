/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * clients.c — sroce-stat -c: the clients of sroced, one line each.
 *
 * sroced writes a stats file per client channel (the daemon's pid, the
 * channel's port) with the client's identity (struct sr_stats_client:
 * pid, program, QPN block, listeners) and its frame counters: frames and
 * bytes each way (rcvd_* came from the client, sent_* went to it), frames
 * it forged (sw_drop_forged).  The QPs it owns are counted in the
 * client's own stats file, which its transport writes.
 */
#include <errno.h>
#include <glob.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>

#include "clients.h"

static int stat_count_qps(const char *pattern)
{
	glob_t g;
	int n = -1;

	if (glob(pattern, 0, NULL, &g) != 0)
		return -1;
	for (size_t i = 0; i < g.gl_pathc; i++) {
		struct sr_stats_shm *s = sr_stats_open(g.gl_pathv[i], false);

		if (s == NULL)
			continue;
		if (n < 0)
			n = 0;
		for (uint32_t q = 0; q < SR_STATS_QP_SLOTS; q++)
			n += s->qp[q].in_use != 0;
		sr_stats_close(s);
	}
	globfree(&g);
	return n;
}

int stat_client_qps(const char *dir, int pid)
{
	char pattern[PATH_MAX];
	int n;

	snprintf(pattern, sizeof(pattern), "%s/sroce-%d-*.stats", dir, pid);
	n = stat_count_qps(pattern);
	if (n < 0) {
		snprintf(pattern, sizeof(pattern), "/dev/shm/sroce-%d-*.stats", pid);
		n = stat_count_qps(pattern);
	}
	return n;
}

static const struct sr_stats_client *stat_client(const struct sr_stats_shm *s)
{
	return __atomic_load_n(&s->client.valid, __ATOMIC_ACQUIRE) == 1 ?
		       &s->client : NULL;
}

void stat_client_line(const struct sr_stats_shm *s, const char *dir,
		      const char *indent)
{
	const struct sr_stats_client *c = stat_client(s);
	char qps[16];
	int n;

	if (c == NULL)
		return;
	n = stat_client_qps(dir, c->pid);
	if (n < 0)
		snprintf(qps, sizeof(qps), "?");
	else
		snprintf(qps, sizeof(qps), "%d", n);
	printf("%ssroced client %u: pid %d (%.15s)%s, QPNs %#x-%#x, %s QPs, %u listening\n",
	       indent, c->id, c->pid, c->comm,
	       kill(c->pid, 0) == 0 || errno != ESRCH ? "" : " gone",
	       c->qpn_base, c->qpn_base + 0xfff, qps, c->listeners);
}

int stat_clients(const char *dir)
{
	char pattern[PATH_MAX];
	glob_t g;
	int shown = 0;

	snprintf(pattern, sizeof(pattern), "%s/sroce-*-*.stats", dir);
	if (glob(pattern, 0, NULL, &g) != 0) {
		fprintf(stderr, "sroce-stat: no stats file in %s\n", dir);
		return 1;
	}
	printf("%-6s %-8s %-15s %-17s %5s %6s %10s %10s %12s %12s %7s\n",
	       "client", "pid", "program", "QPNs", "QPs", "listen",
	       "frames_in", "frames_out", "bytes_in", "bytes_out", "forged");
	for (size_t i = 0; i < g.gl_pathc; i++) {
		struct sr_stats_shm *s = sr_stats_open(g.gl_pathv[i], false);
		const struct sr_stats_client *c;
		char qpns[24];
		int n;

		if (s == NULL)
			continue;
		c = stat_client(s);
		if (c != NULL) {
			n = stat_client_qps(dir, c->pid);
			snprintf(qpns, sizeof(qpns), "%#x-%#x", c->qpn_base,
				 c->qpn_base + 0xfff);
			/* in: from the client (the channel received), out: to it */
			printf("%-6u %-8d %-15.15s %-17s %5d %6u %10llu %10llu %12llu %12llu %7llu\n",
			       c->id, c->pid, c->comm, qpns, n, c->listeners,
			       (unsigned long long)s->dev[SR_CTR_RCVD_PKTS],
			       (unsigned long long)s->dev[SR_CTR_SENT_PKTS],
			       (unsigned long long)s->dev[SR_CTR_RCVD_BYTES],
			       (unsigned long long)s->dev[SR_CTR_SENT_BYTES],
			       (unsigned long long)s->dev[SR_CTR_SW_DROP_FORGED]);
			shown++;
		}
		sr_stats_close(s);
	}
	globfree(&g);
	if (shown == 0)
		printf("(no sroced client in %s)\n", dir);
	return 0;
}
