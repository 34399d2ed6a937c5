/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_conform.c — sroce-conform's own correctness (suite conform).
 *
 * (The scenario files' own tests are in test_scfile.c.)
 *
 * replay: every scenario's checkers against a recorded good answer (the
 * trace of a live run against sroce, tests/data/conform/sroce/NAME.trace)
 * must pass, and against a bad answer — the same trace with its last
 * observation damaged (the DUT's frame with another PSN, syndrome and
 * payload; a frame where none came; another completion status; other
 * memory bytes; another QP state) — must fail.
 *
 * rxe: the traces of a live run against Linux rxe in the rxe-vm lab
 * (tests/data/conform/rxe) are recorded answers of another device: each
 * replays to the verdict it had live — FAIL for rxe's five findings (real bad
 * answers: tests/interop/conform_rxe_findings.txt), PASS for the rest.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../unit/sr_check.h"
#include "run.h"
#include "scfile.h"
#include "wire/build.h"
#include "wire/parse.h"

static struct sc_list shipped;

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf;
	long n;

	if (f == NULL)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = malloc((size_t)n + 1);
	if (buf != NULL && fread(buf, 1, (size_t)n, f) != (size_t)n) {
		free(buf);
		buf = NULL;
	}
	if (buf != NULL)
		buf[n] = '\0';
	fclose(f);
	return buf;
}

/* ---- the bad answer: the trace's last observation damaged ---- */

static void hex_out(char *dst, const uint8_t *p, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		sprintf(dst + 2 * i, "%02x", p[i]);
}

static uint32_t hex_in(uint8_t *dst, const char *s, uint32_t cap)
{
	uint32_t n = 0;
	unsigned int v;

	while (n < cap && sscanf(s + 2 * n, "%2x", &v) == 1)
		dst[n++] = (uint8_t)v;
	return n;
}

/* A frame the DUT did not send: its PSN +3, AETH flipped, payload damaged. */
static void damage_frame(const char *line, char *out, size_t cap)
{
	static uint8_t in[9216], fr[9216], pay[4096];
	struct sr_build b;
	struct sr_pkt p;
	unsigned int no;
	uint32_t n;
	int len;

	ck_assert_int_eq(sscanf(line, "F %u ", &no), 1);
	n = hex_in(in, strchr(line + 2, ' ') + 1, sizeof(in));
	ck_assert_int_eq(sr_parse_eth(in, n, 0, &p), SR_PARSE_OK);
	sr_build_from_pkt(&b, &p);
	b.psn = (b.psn + 3) & 0xffffff;
	b.aeth_syndrome = (b.aeth_syndrome & SR_AETH_TYPE_MASK) == SR_AETH_ACK ?
				  (SR_AETH_NAK | SR_NAK_PSN_SEQ_ERR) : 0x1f;
	memcpy(pay, sr_pkt_payload(&p), p.payload_len);
	if (p.payload_len)
		pay[0] ^= 0xff;
	len = sr_build_frame(fr, sizeof(fr), &b, pay, p.payload_len);
	ck_assert_int_gt(len, 0);
	ck_assert_uint_lt(2 * (size_t)len + 16, cap);
	n = (uint32_t)sprintf(out, "F %u ", no);
	hex_out(out + n, fr, (uint32_t)len);
}

/* An ACK to the tester's QP where the DUT sent nothing. */
static void unexpected_frame(unsigned int tqpn, char *out)
{
	struct sr_build b = {
		.opcode = SR_OPCODE(RC, ACKNOWLEDGE), .pkey = 0xffff,
		.dqpn = tqpn, .psn = 1, .hop_limit = 64, .sport = 0xc000,
		.aeth_syndrome = 0x1f,
		.sgid = { [10] = 0xff, [11] = 0xff, 10, 0, 0, 1 },
		.dgid = { [10] = 0xff, [11] = 0xff, 10, 0, 0, 2 },
	};
	uint8_t fr[256];
	int len = sr_build_frame(fr, sizeof(fr), &b, NULL, 0);

	ck_assert_int_gt(len, 0);
	hex_out(out + sprintf(out, "F 99 "), fr, (uint32_t)len);
}

/* Damage the last observation of a trace; returns the new trace. */
static char *damage(const char *trace, char *what, size_t wcap)
{
	size_t n = strlen(trace), cap = 2 * n + 65536;
	char *out = malloc(cap), *copy = strdup(trace), *lines[4096];
	unsigned int nl = 0, tqpn = 0;
	char *repl = malloc(2 * 9216 + 64);
	int at = -1;

	ck_assert_ptr_nonnull(out);
	for (char *s = strtok(copy, "\n"); s && nl < 4096; s = strtok(NULL, "\n"))
		lines[nl++] = s;
	for (unsigned int i = 0; i < nl; i++)
		if (lines[i][0] == 'C')
			sscanf(lines[i], "C %u", &tqpn);
	for (int i = (int)nl - 1; i >= 0 && at < 0; i--) {
		char *l = lines[i];
		int s, o;
		unsigned int len, imm;

		if (l[0] == 'F') {
			damage_frame(l, repl, 2 * 9216 + 64);
			snprintf(what, wcap, "the frame of line %d damaged", i + 1);
		} else if (strcmp(l, "T") == 0) {
			unexpected_frame(tqpn, repl);
			snprintf(what, wcap, "a frame where none came (line %d)", i + 1);
		} else if (sscanf(l, "A CQE %d %d %u %u", &s, &o, &len, &imm) == 4) {
			sprintf(repl, "A CQE %d %d %u %u", s == 0 ? 12 : 0, o, len, imm);
			snprintf(what, wcap, "another completion status (line %d)", i + 1);
		} else if (strcmp(l, "A NONE") == 0) {
			strcpy(repl, "A CQE 0 128 16 0");
			snprintf(what, wcap, "a completion where none came (line %d)", i + 1);
		} else if (strncmp(l, "A DATA ", 7) == 0) {
			strcpy(repl, l);
			repl[7] = repl[7] == 'f' ? '0' : 'f';
			snprintf(what, wcap, "other memory bytes (line %d)", i + 1);
		} else if (strncmp(l, "A STATE ", 8) == 0) {
			sprintf(repl, "A STATE %s", strcmp(l + 8, "RTS") ? "RTS" : "ERR");
			snprintf(what, wcap, "another QP state (line %d)", i + 1);
		} else {
			continue;
		}
		at = i;
	}
	ck_assert_msg(at >= 0, "no observation to damage");
	out[0] = '\0';
	for (unsigned int i = 0; i < nl; i++) {
		strcat(out, (int)i == at ? repl : lines[i]);
		strcat(out, "\n");
	}
	free(repl);
	free(copy);
	return out;
}

START_TEST(replay_good_and_bad)
{
	const struct sc_scenario *sc = &shipped.sc[_i];
	struct sc_tester *t = sc_tester_replay_create();
	struct sc_result r;
	char path[512], what[128];
	char *good, *bad;

	snprintf(path, sizeof(path), "%s/%s.trace", SC_TRACE_DIR, sc->name);
	good = slurp(path);
	ck_assert_msg(good != NULL, "no recorded answer %s", path);
	sc_run_replay(t, sc, good, &r);
	ck_assert_msg(r.verdict == SC_PASS, "%s: good answer: %s", sc->name,
		      r.observed);
	bad = damage(good, what, sizeof(what));
	sc_run_replay(t, sc, bad, &r);
	ck_assert_msg(r.verdict == SC_FAIL, "%s: bad answer (%s) not told apart: verdict %d, %s",
		      sc->name, what, r.verdict, r.observed);
	free(good);
	free(bad);
	sc_tester_destroy(t);
}
END_TEST

static const char *const rxe_findings[] = {
	"resp.dup_read_middle", "resp.uc_gap_drops_message", "req.ghost_ack",
	"resp.send_too_long", "mkey.mw_write_outside",
};

START_TEST(replay_rxe)
{
	const struct sc_scenario *sc = &shipped.sc[_i];
	struct sc_tester *t;
	struct sc_result r;
	bool finding = false;
	char path[512];
	char *trace;

	snprintf(path, sizeof(path), "%s/../rxe/%s.trace", SC_TRACE_DIR,
		 sc->name);
	trace = slurp(path);
	if (trace == NULL)       /* not run against rxe (the lab's MTU) */
		return;
	for (size_t k = 0; k < sizeof(rxe_findings) / sizeof(*rxe_findings); k++)
		finding |= strcmp(rxe_findings[k], sc->name) == 0;
	t = sc_tester_replay_create();
	sc_run_replay(t, sc, trace, &r);
	ck_assert_msg(r.verdict == (finding ? SC_FAIL : SC_PASS),
		      "%s: rxe's recorded answer: verdict %d (%s)", sc->name,
		      r.verdict, r.observed);
	free(trace);
	sc_tester_destroy(t);
}
END_TEST

/* A trace that stops early is an error of the replay, not a pass. */
START_TEST(short_trace_is_an_error)
{
	const struct sc_scenario *sc = &shipped.sc[0];
	struct sc_tester *t = sc_tester_replay_create();
	struct sc_result r;

	sc_run_replay(t, sc, "C 49152\nA OK qpn=1 va=0 rkey=1 gid=00000000000000000000ffff0a000001\n", &r);
	ck_assert_int_eq(r.verdict, SC_ERROR);
	sc_tester_destroy(t);
}
END_TEST

static Suite *conform_suite(void)
{
	Suite *s = suite_create("conform");
	TCase *tc;

	sc_dir_read(&shipped, SC_SCENARIO_DIR);
	tc = tcase_create("replay");
	tcase_add_loop_test(tc, replay_good_and_bad, 0, (int)shipped.n);
	tcase_add_test(tc, short_trace_is_an_error);
	tcase_add_loop_test(tc, replay_rxe, 0, (int)shipped.n);
	suite_add_tcase(s, tc);
	return s;
}

SR_CHECK_MAIN(conform_suite)
