/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * eal.c — the EAL arguments a configuration implies, and the one EAL
 * initialisation of the process.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_log.h>

#include "dev_priv.h"

#define SR_EAL_ARGV_MAX 64

static bool sr_eal_up;

/* "0-1" style list of the CPUs this process may run on. */
static void sr_eal_cpu_list(char *buf, size_t len)
{
	cpu_set_t set;
	size_t off = 0;
	int first = -1;

	buf[0] = '\0';
	if (sched_getaffinity(0, sizeof(set), &set)) {
		snprintf(buf, len, "0");
		return;
	}
	for (int c = 0; c <= CPU_SETSIZE; c++) {
		bool in = c < CPU_SETSIZE && CPU_ISSET(c, &set);

		if (in && first < 0)
			first = c;
		if (!in && first >= 0) {
			off += snprintf(buf + off, off < len ? len - off : 0,
					"%s%d", off ? "," : "", first);
			if (c - 1 > first)
				off += snprintf(buf + off,
						off < len ? len - off : 0,
						"-%d", c - 1);
			first = -1;
		}
	}
}

/* True when the user's own EAL arguments already pick the lcores. */
static bool sr_eal_user_lcores(const char *eal)
{
	static const char *const opts[] = { "-l", "-c", "--lcores" };
	const char *p = eal;

	while (*p) {
		while (*p == ' ' || *p == '\t')
			p++;
		for (size_t i = 0; i < sizeof(opts) / sizeof(opts[0]); i++)
			if (strncmp(p, opts[i], strlen(opts[i])) == 0)
				return true;
		while (*p && *p != ' ' && *p != '\t')
			p++;
	}
	return false;
}

static int sr_eal_push(char **argv, int *argc, const char *arg)
{
	if (*argc >= SR_EAL_ARGV_MAX - 1)
		return -E2BIG;
	argv[*argc] = strdup(arg);
	if (argv[*argc] == NULL)
		return -ENOMEM;
	(*argc)++;
	return 0;
}

/* The argument vector; strings are strdup'ed into argv. */
static int sr_eal_args(const struct sr_pmd_config *cfg, char **argv,
		       int *argc)
{
	char buf[SR_CONFIG_STR_MAX + 1024], cpus[128];
	char *extra, *tok, *save = NULL;
	int rc = 0;

	*argc = 0;
	rc |= sr_eal_push(argv, argc, "sroce");
	/*
	 * Nothing shared on disk: --in-memory with hugepages; without them
	 * (--no-huge implies legacy memory, which --in-memory refuses)
	 * --no-shconf.
	 */
	if (cfg->no_huge) {
		rc |= sr_eal_push(argv, argc, "--no-huge");
		rc |= sr_eal_push(argv, argc, "--no-shconf");
		rc |= sr_eal_push(argv, argc, "-m");
		rc |= sr_eal_push(argv, argc, "512");
	} else {
		rc |= sr_eal_push(argv, argc, "--in-memory");
	}
	snprintf(buf, sizeof(buf), "--file-prefix=sroce%d", (int)getpid());
	rc |= sr_eal_push(argv, argc, buf);
	rc |= sr_eal_push(argv, argc, "--no-telemetry");
	rc |= sr_eal_push(argv, argc, "--log-level=warning");
	/* memif warns on every start that --no-shconf has no MP channel. */
	rc |= sr_eal_push(argv, argc, "--log-level=pmd.net.memif:error");
	if (!sr_eal_user_lcores(cfg->eal)) {
		if (cfg->lcores[0]) {
			snprintf(buf, sizeof(buf), "--lcores=%s", cfg->lcores);
		} else {
			size_t off;

			sr_eal_cpu_list(cpus, sizeof(cpus));
			off = (size_t)snprintf(buf, sizeof(buf),
					       "--lcores=0@(%s)", cpus);
			/* dedicated: lcores engine_lcore .. + engines - 1 */
			for (uint32_t i = 0; cfg->mode == SR_PMD_MODE_DEDICATED &&
			     i < cfg->engines && off < sizeof(buf); i++)
				off += (size_t)snprintf(buf + off,
							sizeof(buf) - off,
							",%u@(%s)",
							cfg->engine_lcore + i,
							cpus);
		}
		rc |= sr_eal_push(argv, argc, buf);
	}
	if (cfg->iface[0] != '\0') {
		/* a host NIC: its port is hot-plugged once chosen (hostnic.c) */
		rc |= sr_eal_push(argv, argc, "--no-pci");
	} else if (strncmp(cfg->port, "net_", 4) == 0) {
		rc |= sr_eal_push(argv, argc, "--no-pci");
		snprintf(buf, sizeof(buf), "--vdev=%s", cfg->port);
		rc |= sr_eal_push(argv, argc, buf);
	} else {
		rc |= sr_eal_push(argv, argc, "-a");
		rc |= sr_eal_push(argv, argc, cfg->port);
	}
	extra = strdup(cfg->eal);
	if (extra == NULL)
		return -ENOMEM;
	for (tok = strtok_r(extra, " \t", &save); tok;
	     tok = strtok_r(NULL, " \t", &save))
		rc |= sr_eal_push(argv, argc, tok);
	free(extra);
	argv[*argc] = NULL;
	return rc ? -E2BIG : 0;
}

/*
 * What the EAL logs while it initialises is kept here, so that a failure
 * is one line of ours: getopt's complaints are off, what it prints to
 * stdout (usage) and stderr (a FATAL line that its log repeats) goes to
 * /dev/null, and its log lines are collected (and replayed on stderr when
 * it succeeds).  The stream is never closed: an EAL
 * thread could still hold it.
 */
static char sr_eal_log[4096];

/*
 * After a successful start, what the EAL logged goes to stderr, but for
 * the note that one hugepage size has no free pages: with 2 MiB pages
 * reserved and no 1 GiB ones, every start said so.
 */
static void sr_eal_log_replay(void)
{
	for (char *line = sr_eal_log; *line != '\0';) {
		size_t n = strcspn(line, "\n");

		if (!(strstr(line, "No free ") != NULL &&
		      strstr(line, " hugepages reported") != NULL &&
		      strstr(line, " hugepages reported") < line + n))
			fprintf(stderr, "%.*s\n", (int)n, line);
		line += n + (line[n] == '\n');
	}
}

static int sr_eal_quiet_init(int argc, char **argv)
{
	static FILE *log;
	int saved_opterr = opterr, out = -1, errfd = -1, null, rc;

	if (log == NULL)
		log = fmemopen(sr_eal_log, sizeof(sr_eal_log) - 1, "w");
	if (log != NULL) {
		setvbuf(log, NULL, _IONBF, 0);
		rte_openlog_stream(log);
	}
	fflush(stdout);
	fflush(stderr);
	null = open("/dev/null", O_WRONLY | O_CLOEXEC);
	if (null >= 0) {
		out = dup(STDOUT_FILENO);
		errfd = dup(STDERR_FILENO);
		dup2(null, STDOUT_FILENO);
		dup2(null, STDERR_FILENO);
		close(null);
	}
	opterr = 0;
	rc = rte_eal_init(argc, argv);
	opterr = saved_opterr;
	fflush(stdout);
	fflush(stderr);
	if (out >= 0) {
		dup2(out, STDOUT_FILENO);
		close(out);
	}
	if (errfd >= 0) {
		dup2(errfd, STDERR_FILENO);
		close(errfd);
	}
	rte_openlog_stream(NULL);
	if (rc >= 0)
		sr_eal_log_replay();
	return rc;
}

/* The first thing the EAL complained about, without its "EAL: " tag. */
static const char *sr_eal_log_first(void)
{
	char *line = sr_eal_log, *nl;

	if (strncmp(line, "EAL: ", 5) == 0)
		line += 5;
	nl = strchr(line, '\n');
	if (nl)
		*nl = '\0';
	for (size_t n = strlen(line); n > 0 && line[n - 1] == '.'; n--)
		line[n - 1] = '\0';
	return line[0] ? line : rte_strerror(rte_errno);
}

/*
 * Whether a memif server listens on the port string's socket: its path
 * (socket=, else memif's default) among the host's unix sockets, with an
 * '@' in front when abstract (memif's default).  Looked up, not connected
 * to, so the server sees nothing.
 */
static bool sr_eal_memif_server_up(const char *port)
{
	const char *s = strstr(port, "socket=");
	char want[160], line[512];
	bool found = false;
	size_t n;
	FILE *f;

	s = s != NULL ? s + strlen("socket=") : "/run/memif.sock";
	n = strcspn(s, ",");
	if (snprintf(want, sizeof(want), "%s%.*s",
		     strstr(port, "socket-abstract=no") ? "" : "@", (int)n,
		     s) >= (int)sizeof(want))
		return true;              /* cannot tell: do not wait */
	f = fopen("/proc/net/unix", "r");
	if (f == NULL)
		return true;
	while (!found && fgets(line, sizeof(line), f) != NULL) {
		char *path = strrchr(line, ' ');

		line[strcspn(line, "\n")] = '\0';
		found = path != NULL && strcmp(path + 1, want) == 0;
	}
	fclose(f);
	return found;
}

/*
 * A memif client in zero-copy mode that comes up before its server never
 * connects (DPDK 22.11: the server's mmap of the client's memory fails
 * with ENODEV on every attempt), so it waits for the server's socket, up
 * to 15 s, before the EAL probes the port.
 */
static void sr_eal_memif_zc_wait(const char *port)
{
	const struct timespec nap = { .tv_nsec = 50 * 1000 * 1000 };

	if (strncmp(port, "net_memif", 9) != 0 ||
	    strstr(port, "role=client") == NULL ||
	    strstr(port, "zero-copy=yes") == NULL)
		return;
	for (int i = 0; i < 300 && !sr_eal_memif_server_up(port); i++)
		nanosleep(&nap, NULL);
}

int sr_eal_init(const struct sr_pmd_config *cfg, char *err, size_t errlen)
{
	char *argv[SR_EAL_ARGV_MAX] = { 0 }, *copy[SR_EAL_ARGV_MAX];
	int argc = 0, rc;

	if (sr_eal_up)
		return 0;
	rc = sr_eal_args(cfg, argv, &argc);
	if (rc) {
		snprintf(err, errlen, "too many EAL arguments");
		goto out_free;
	}
	memcpy(copy, argv, sizeof(copy));   /* rte_eal_init permutes */
	sr_eal_memif_zc_wait(cfg->port);
	if (getenv("SROCE_EAL_DEBUG")) {
		for (int i = 0; i < argc; i++)
			fprintf(stderr, "%s ", argv[i]);
		fprintf(stderr, "\n");
	}
	rc = sr_eal_quiet_init(argc, copy);
	if (rc < 0) {
		rc = -EIO;
		if (rte_errno == ENODEV)
			snprintf(err, errlen,
				 "EAL initialisation failed: port '%s' did not probe (no such driver or device)",
				 cfg->port);
		else
			snprintf(err, errlen,
				 "EAL initialisation failed: %s; check the eal%s%s%s, lcores and port keys",
				 sr_eal_log_first(), cfg->eal[0] ? " ('" : "",
				 cfg->eal, cfg->eal[0] ? "')" : "");
		goto out_free;
	}
	sr_eal_up = true;
	/* The EAL may keep pointers into its arguments: they live on. */
	return 0;
out_free:
	for (int i = 0; i < argc; i++)
		free(argv[i]);
	return rc;
}
