/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * report.c — the reports of a run (report.h).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"

static const char *const verdict_names[] = {
	[SC_PASS] = "PASS", [SC_FAIL] = "FAIL", [SC_ERROR] = "ERROR",
};

void sc_report_verdict(FILE *f, const struct sc_scenario *sc,
		       const struct sc_result *r, const char *dut)
{
	fprintf(f, "%s (%s, %s; %s) against %s: %s.\n", sc->name, sc->area,
		sc->mandatory ? "mandatory" : "optional", sc->ref, dut,
		verdict_names[r->verdict]);
	fprintf(f, "What it tests: %s.\n", sc->title[0] ? sc->title : sc->name);
	fprintf(f, "Expected: %s.\n",
		sc->expect[0] ? sc->expect : "every step as written in the scenario");
	if (r->verdict == SC_PASS)
		fprintf(f, "Observed: every step as expected; the last frame checked: %s.\n",
			r->observed);
	else if (r->step < 0)
		fprintf(f, "Observed: at setup (line %u of %s): %s.\n",
			sc->line, sc->file, r->observed);
	else
		fprintf(f, "Observed: at step %d (line %u of %s): %s.\n",
			r->step + 1, sc->step[r->step].line, sc->file,
			r->observed);
	if (r->frame && r->capture[0])
		fprintf(f, "Frame #%u of %s shows it (%u frames in the capture).\n",
			r->frame, r->capture, r->frames);
	else if (r->frame)
		fprintf(f, "Frame #%u of its capture shows it (%u frames; not kept: rerun with --only '^%s$' to keep it).\n",
			r->frame, r->frames, sc->name);
	else if (r->capture[0])
		fprintf(f, "Capture: %s (%u frames).\n", r->capture, r->frames);
}

void sc_report_line(FILE *f, const struct sc_scenario *sc,
		    const struct sc_result *r)
{
	fprintf(f, "%-5s %-34s %-9s %-10s %5.2fs", verdict_names[r->verdict],
		sc->name, sc->mandatory ? "mandatory" : "optional", sc->area,
		r->seconds);
	if (r->verdict != SC_PASS && r->step < 0)
		fprintf(f, "  setup: %s", r->observed);
	else if (r->verdict != SC_PASS)
		fprintf(f, "  step %d: %s", r->step + 1, r->observed);
	fputc('\n', f);
}

void sc_report_summary(FILE *f, const struct sc_list *l,
		       const struct sc_result *res, const bool *ran,
		       const char *dut)
{
	unsigned int n[2][3] = { { 0 } };

	for (size_t i = 0; i < l->n; i++)
		if (ran[i])
			n[l->sc[i].mandatory][res[i].verdict]++;
	fprintf(f, "\nsroce-conform against %s: mandatory %u/%u pass (%u fail, %u error); optional %u/%u pass (%u fail, %u error)\n",
		dut, n[1][SC_PASS], n[1][0] + n[1][1] + n[1][2], n[1][SC_FAIL],
		n[1][SC_ERROR], n[0][SC_PASS], n[0][0] + n[0][1] + n[0][2],
		n[0][SC_FAIL], n[0][SC_ERROR]);
	if (l->nerrors)
		fprintf(f, "%zu scenario(s) left out for errors in their files:\n",
			l->nerrors);
	for (size_t i = 0; i < l->nerrors; i++)
		fprintf(f, "  %s\n", l->errors[i]);
}

static void sc_xml(FILE *f, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '&': fputs("&amp;", f); break;
		case '"': fputs("&quot;", f); break;
		default:
			if ((unsigned char)*s >= 0x20 || *s == '\n')
				fputc(*s, f);
		}
	}
}

int sc_report_junit(const char *path, const struct sc_list *l,
		    const struct sc_result *res, const bool *ran,
		    const char *dut)
{
	FILE *f = fopen(path, "w");

	if (f == NULL)
		return -errno;
	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"sroce-conform ");
	sc_xml(f, dut);
	fprintf(f, "\">\n");
	for (size_t i = 0; i < l->n; i++) {
		const char *area = l->sc[i].area;
		unsigned int tests = 0, fails = 0, errs = 0;
		bool first = true;

		for (size_t j = 0; j < i; j++)
			if (strcmp(l->sc[j].area, area) == 0)
				first = false;
		if (!first)
			continue;
		for (size_t j = i; j < l->n; j++)
			if (strcmp(l->sc[j].area, area) == 0 && ran[j]) {
				tests++;
				fails += res[j].verdict == SC_FAIL;
				errs += res[j].verdict == SC_ERROR;
			}
		fprintf(f, " <testsuite name=\"%s\" tests=\"%u\" failures=\"%u\" errors=\"%u\">\n",
			area, tests, fails, errs);
		for (size_t j = i; j < l->n; j++) {
			const struct sc_scenario *sc = &l->sc[j];
			char *buf = NULL;
			size_t len = 0;
			FILE *m;

			if (strcmp(sc->area, area) != 0 || !ran[j])
				continue;
			fprintf(f, "  <testcase classname=\"%s.%s\" name=\"%s\" time=\"%.3f\">\n",
				area, sc->mandatory ? "mandatory" : "optional",
				sc->name, res[j].seconds);
			m = open_memstream(&buf, &len);
			if (m != NULL) {
				sc_report_verdict(m, sc, &res[j], dut);
				fclose(m);
			}
			if (res[j].verdict != SC_PASS) {
				fprintf(f, "   <%s message=\"",
					res[j].verdict == SC_FAIL ? "failure" : "error");
				sc_xml(f, res[j].observed);
				fprintf(f, "\">");
				if (buf)
					sc_xml(f, buf);
				fprintf(f, "</%s>\n",
					res[j].verdict == SC_FAIL ? "failure" : "error");
			} else if (buf) {
				fprintf(f, "   <system-out>");
				sc_xml(f, buf);
				fprintf(f, "</system-out>\n");
			}
			free(buf);
			fprintf(f, "  </testcase>\n");
		}
		fprintf(f, " </testsuite>\n");
	}
	fprintf(f, "</testsuites>\n");
	return fclose(f) == 0 ? 0 : -EIO;
}
