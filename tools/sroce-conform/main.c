/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * sroce-conform — RoCEv2 conformance scenarios against a device under test
 * (docs/conformance.md).
 *
 *   sroce-conform [--agent HOST[:PORT]] [--scenarios DIR|FILE]...
 *                 [--only REGEX] [--area AREA] [--out DIR] [--junit FILE]
 *                 [--keep-captures] [--wait-ms N] [--quiet-ms N] [--list]
 *
 * Without --scenarios, the scenario files of the build tree, else the
 * installed ones (<datadir>/sroce/conform).
 * The port is sroce's (SROCE_CONFIG, else the default link; SROCE_NODE);
 * the DUT's agent (sroce-conform-agent) listens on HOST:PORT (7471).
 * --only reruns the scenarios whose names match, with their captures kept.
 *
 * Exit status: 0 every mandatory scenario run passed; else the sum of
 *   1  a mandatory scenario failed
 *   4  a scenario could not be played (agent gone, setup refused)
 *   8  a scenario file has an error (those scenarios were left out)
 *  16  the DUT never sent a frame
 * and 2 alone for bad usage or a port that does not open.
 */
#include <errno.h>
#include <getopt.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "report.h"
#include "run.h"
#include "scfile.h"

#ifndef SC_SCENARIO_DIR
#define SC_SCENARIO_DIR "scenarios"
#endif

static int usage(const char *p)
{
	fprintf(stderr,
		"usage: %s [--agent HOST[:PORT]] [--scenarios DIR|FILE]... [--only REGEX]\n"
		"          [--area AREA] [--out DIR] [--junit FILE] [--keep-captures]\n"
		"          [--wait-ms N] [--quiet-ms N] [--list]\n", p);
	return 2;
}

static int sc_load(struct sc_list *l, const char *path)
{
	struct stat st;

	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
		return sc_dir_read(l, path);
	return sc_file_read(l, path);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "agent", required_argument, NULL, 'a' },
		{ "scenarios", required_argument, NULL, 's' },
		{ "only", required_argument, NULL, 'o' },
		{ "area", required_argument, NULL, 'A' },
		{ "out", required_argument, NULL, 'O' },
		{ "junit", required_argument, NULL, 'j' },
		{ "keep-captures", no_argument, NULL, 'k' },
		{ "wait-ms", required_argument, NULL, 'w' },
		{ "quiet-ms", required_argument, NULL, 'q' },
		{ "list", no_argument, NULL, 'l' },
		{ NULL, 0, NULL, 0 },
	};
	struct sc_tester_opts o = {
		.agent_host = "127.0.0.1", .agent_port = 7471,
		.out_dir = "conform-out", .wait_ms = 2000, .quiet_ms = 300,
	};
	const char *only = NULL, *area = NULL, *junit = NULL;
	struct sc_list l = { 0 };
	struct sc_tester *t = NULL;
	struct sc_result *res;
	bool keep = false, list = false, loaded = false, *ran;
	char host[256], err[512], path[1024];
	regex_t re;
	int c, status = 0;

	while ((c = getopt_long(argc, argv, "a:s:o:A:O:j:kw:q:l", opts,
				NULL)) != -1) {
		switch (c) {
		case 'a': {
			char *colon;

			snprintf(host, sizeof(host), "%s", optarg);
			colon = strrchr(host, ':');
			if (colon != NULL) {
				*colon = '\0';
				o.agent_port = atoi(colon + 1);
			}
			o.agent_host = host;
			break;
		}
		case 's':
			if (sc_load(&l, optarg) < 0)
				status |= 8;
			loaded = true;
			break;
		case 'o': only = optarg; keep = true; break;
		case 'A': area = optarg; break;
		case 'O': o.out_dir = optarg; break;
		case 'j': junit = optarg; break;
		case 'k': keep = true; break;
		case 'w': o.wait_ms = (uint32_t)atoi(optarg); break;
		case 'q': o.quiet_ms = (uint32_t)atoi(optarg); break;
		case 'l': list = true; break;
		default: return usage(argv[0]);
		}
	}
	if (optind != argc)
		return usage(argv[0]);
	if (!loaded) {
		struct stat st;
		const char *dir = SC_SCENARIO_DIR;

#ifdef SC_SCENARIO_INSTALL_DIR
		/* the build tree's, else the installed copy */
		if (stat(dir, &st) != 0)
			dir = SC_SCENARIO_INSTALL_DIR;
#endif
		if (sc_load(&l, dir) < 0)
			status |= 8;
	}
	if (l.nerrors)
		status |= 8;
	for (size_t i = 0; i < l.nerrors; i++)
		fprintf(stderr, "sroce-conform: %s\n", l.errors[i]);
	if (only != NULL && regcomp(&re, only, REG_EXTENDED | REG_NOSUB) != 0) {
		fprintf(stderr, "sroce-conform: --only: bad regular expression\n");
		return 2;
	}
	ran = calloc(l.n + 1, sizeof(*ran));
	res = calloc(l.n + 1, sizeof(*res));
	if (ran == NULL || res == NULL)
		return 2;
	for (size_t i = 0; i < l.n; i++)
		ran[i] = (only == NULL || regexec(&re, l.sc[i].name, 0, NULL, 0) == 0) &&
			 (area == NULL || strcmp(area, l.sc[i].area) == 0);
	if (list) {
		for (size_t i = 0; i < l.n; i++)
			if (ran[i])
				printf("%-34s %-10s %-9s %s — %s\n", l.sc[i].name,
				       l.sc[i].area,
				       l.sc[i].mandatory ? "mandatory" : "optional",
				       l.sc[i].ref, l.sc[i].title);
		sc_list_free(&l);
		return status;
	}
	if (mkdir(o.out_dir, 0755) != 0 && errno != EEXIST) {
		fprintf(stderr, "sroce-conform: cannot make %s: %s\n", o.out_dir,
			strerror(errno));
		return 2;
	}
	if (sc_tester_create(&o, &t, err, sizeof(err)) != 0) {
		fprintf(stderr, "sroce-conform: %s\n", err);
		return 2;
	}
	printf("sroce-conform: DUT %s (agent %s:%d), %zu scenarios\n",
	       sc_tester_dut(t), o.agent_host, o.agent_port, l.n);
	for (size_t i = 0; i < l.n; i++) {
		FILE *f;

		if (!ran[i])
			continue;
		sc_run(t, &l.sc[i], (unsigned int)i, &res[i]);
		if (res[i].verdict == SC_FAIL && l.sc[i].mandatory)
			status |= 1;
		if (res[i].verdict == SC_ERROR)
			status |= 4;
		if (res[i].verdict == SC_PASS && !keep && res[i].capture[0]) {
			unlink(res[i].capture);
			res[i].capture[0] = '\0';
		}
		sc_report_line(stdout, &l.sc[i], &res[i]);
		fflush(stdout);
		snprintf(path, sizeof(path), "%s/%s.txt", o.out_dir,
			 l.sc[i].name);
		f = fopen(path, "w");
		if (f != NULL) {
			sc_report_verdict(f, &l.sc[i], &res[i], sc_tester_dut(t));
			fclose(f);
		}
	}
	for (size_t i = 0; i < l.n; i++)
		if (ran[i] && !sc_tester_dut_answered(t)) {
			status |= 16;
			break;
		}
	sc_report_summary(stdout, &l, res, ran, sc_tester_dut(t));
	snprintf(path, sizeof(path), "%s/junit.xml", o.out_dir);
	if (sc_report_junit(junit ? junit : path, &l, res, ran,
			    sc_tester_dut(t)) != 0)
		fprintf(stderr, "sroce-conform: cannot write %s\n",
			junit ? junit : path);
	printf("reports in %s (a verdict per scenario, captures of the failures%s, junit.xml)\n",
	       o.out_dir, keep ? " and of every scenario" : "");
	sc_tester_destroy(t);
	if (only != NULL)
		regfree(&re);
	free(ran);
	free(res);
	sc_list_free(&l);
	return status;
}
