/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * run.h — the tester: plays a scenario against the DUT over a sroce port
 * (pmd/) and through the agent (TCP), checking each step (checker.h).
 */
#ifndef SC_RUN_H
#define SC_RUN_H

#include <stdbool.h>
#include <stdint.h>

#include "checker.h"
#include "scenario.h"

struct sr_pmd_dev;
struct sc_tester;

enum sc_verdict { SC_PASS, SC_FAIL, SC_ERROR };

struct sc_result {
	enum sc_verdict verdict;
	int step;                /* the step that decided (-1: setup) */
	uint32_t frame;          /* its frame in the capture, 1-based; 0 none */
	uint32_t frames;         /* frames in the capture */
	char observed[512];      /* what happened, one line */
	char capture[512];       /* the capture's path, "" when not kept */
	double seconds;
};

struct sc_tester_opts {
	const char *agent_host;
	int agent_port;
	const char *out_dir;      /* captures and verdicts */
	uint32_t wait_ms;         /* how long an expect waits (2000) */
	uint32_t quiet_ms;        /* how long expect-none waits (300) */
	bool verbose;
};

/* Open the port (SROCE_CONFIG / SROCE_NODE) and connect to the agent. */
int sc_tester_create(const struct sc_tester_opts *o, struct sc_tester **out,
		     char *err, size_t cap);
void sc_tester_destroy(struct sc_tester *t);

/* The agent's device name (after create). */
const char *sc_tester_dut(const struct sc_tester *t);

/* Play one scenario; idx makes its tester QPN. */
void sc_run(struct sc_tester *t, const struct sc_scenario *sc,
	    unsigned int idx, struct sc_result *res);

/* Has the DUT ever answered (a frame to the tester) in this run? */
bool sc_tester_dut_answered(const struct sc_tester *t);

/*
 * Replay: play a scenario against a trace (OUT/NAME.trace, written by every
 * live run: the tester QPN, each agent answer, each frame the DUT sent and
 * each wait that ended without one) instead of a DUT.  The checkers see
 * exactly what they saw live; the unit tests feed them recorded good and
 * bad answers this way.  No port, no agent.
 */
struct sc_tester *sc_tester_replay_create(void);
void sc_run_replay(struct sc_tester *t, const struct sc_scenario *sc,
		   const char *trace, struct sc_result *r);

#endif /* SC_RUN_H */
