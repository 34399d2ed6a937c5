/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * report.h — what a run says: a line per scenario on the terminal, a
 * verdict paragraph per scenario (OUT/NAME.txt, beside its capture), a
 * summary, and a JUnit XML file.
 */
#ifndef SC_REPORT_H
#define SC_REPORT_H

#include <stdio.h>

#include "run.h"
#include "scfile.h"

/* The verdict paragraph: expected, observed, which frame shows it. */
void sc_report_verdict(FILE *f, const struct sc_scenario *sc,
		       const struct sc_result *r, const char *dut);

/* One terminal line. */
void sc_report_line(FILE *f, const struct sc_scenario *sc,
		    const struct sc_result *r);

/* The summary; by area and level. */
void sc_report_summary(FILE *f, const struct sc_list *l,
		       const struct sc_result *res, const bool *ran,
		       const char *dut);

/* JUnit XML: one testsuite per area, one testcase per scenario. 0/-errno. */
int sc_report_junit(const char *path, const struct sc_list *l,
		    const struct sc_result *res, const bool *ran,
		    const char *dut);

#endif /* SC_REPORT_H */
