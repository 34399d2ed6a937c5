/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * cc-rate-plot — each QP's rate over time, one panel per case, as a PNG.
 *
 *   cc-rate-plot RATES.csv OUT.png [TITLE]
 *
 * RATES.csv (bench/cc/cc_report.py --csv): a header line, then
 *   panel,qp,t_s,rate_mbps,paced_mbps
 * one line per QP and sample: the QP's acknowledged payload rate over the
 * sample interval ending at t_s.  Panels in the order they first appear
 * (at most 4), up to 8 QPs each; the y axis is shared.  Draws the
 * measured rate as a line per QP; the paced rate is not drawn (it says
 * what the QP was allowed, not what it delivered).
 */
#include <cairo.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_PANELS 4
#define MAX_QPS    8
#define MAX_PTS    4096
#define W          960
#define PANEL_H    300
#define LEFT       70
#define RIGHT      170
#define TOP        50
#define GAP        40

struct series {
	char name[64];
	int n;
	double t[MAX_PTS], v[MAX_PTS];
};

struct panel {
	char name[64];
	int nq;
	struct series q[MAX_QPS];
};

static struct panel panels[MAX_PANELS];
static int npanels;

static const unsigned int colors[MAX_QPS] = {
	0x1f77b4, 0xd62728, 0x2ca02c, 0xff7f0e,
	0x9467bd, 0x8c564b, 0xe377c2, 0x17becf,
};

static void rgb(cairo_t *cr, unsigned int c)
{
	cairo_set_source_rgb(cr, (c >> 16 & 0xff) / 255.0, (c >> 8 & 0xff) / 255.0,
			     (c & 0xff) / 255.0);
}

static struct series *find(const char *panel, const char *qp)
{
	struct panel *p = NULL;

	for (int i = 0; i < npanels; i++)
		if (strcmp(panels[i].name, panel) == 0)
			p = &panels[i];
	if (p == NULL) {
		if (npanels == MAX_PANELS)
			return NULL;
		p = &panels[npanels++];
		snprintf(p->name, sizeof(p->name), "%s", panel);
	}
	for (int i = 0; i < p->nq; i++)
		if (strcmp(p->q[i].name, qp) == 0)
			return &p->q[i];
	if (p->nq == MAX_QPS)
		return NULL;
	snprintf(p->q[p->nq].name, sizeof(p->q[0].name), "%s", qp);
	return &p->q[p->nq++];
}

static int load(const char *path)
{
	char line[256], panel[64], qp[64];
	double t, v;
	FILE *f = fopen(path, "r");
	int n = 0;

	if (f == NULL)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		struct series *s;

		if (sscanf(line, "%63[^,],%63[^,],%lf,%lf", panel, qp, &t, &v) != 4)
			continue;              /* the header, or a bad line */
		s = find(panel, qp);
		if (s == NULL || s->n == MAX_PTS)
			continue;
		s->t[s->n] = t;
		s->v[s->n++] = v;
		n++;
	}
	fclose(f);
	return n;
}

/* A round axis end: the next multiple of the largest power of ten <= x. */
static double nice_max(double x)
{
	double p = 1;

	if (x <= 0)
		return 1;
	while (p * 10 <= x)
		p *= 10;
	while (p > x)
		p /= 10;
	double k = (double)(long long)(x / p);

	return p * (k < x / p ? k + 1 : k);
}

static void text(cairo_t *cr, const char *s, double x, double y, double anchor)
{
	cairo_text_extents_t e;

	cairo_text_extents(cr, s, &e);
	cairo_move_to(cr, x - anchor * e.x_advance, y);
	cairo_show_text(cr, s);
}

static void draw_panel(cairo_t *cr, const struct panel *p, double y0,
		       double tmax, double vmax)
{
	const double pw = W - LEFT - RIGHT, ph = PANEL_H - GAP;
	char buf[64];

	cairo_set_line_width(cr, 1);
	for (int k = 0; k <= 5; k++) {          /* grid and labels */
		double y = y0 + ph - ph * k / 5, x = LEFT + pw * k / 5;

		cairo_set_source_rgb(cr, 0.88, 0.88, 0.88);
		cairo_move_to(cr, LEFT, y);
		cairo_line_to(cr, LEFT + pw, y);
		cairo_move_to(cr, x, y0);
		cairo_line_to(cr, x, y0 + ph);
		cairo_stroke(cr);
		cairo_set_source_rgb(cr, 0.2, 0.2, 0.2);
		snprintf(buf, sizeof(buf), "%g", vmax * k / 5);
		text(cr, buf, LEFT - 6, y + 4, 1);
		snprintf(buf, sizeof(buf), "%g", tmax * k / 5);
		text(cr, buf, x, y0 + ph + 15, 0.5);
	}
	cairo_set_source_rgb(cr, 0, 0, 0);
	cairo_rectangle(cr, LEFT, y0, pw, ph);
	cairo_stroke(cr);
	text(cr, p->name, LEFT + 6, y0 - 8, 0);
	cairo_save(cr);                          /* the unit, up the y axis */
	cairo_translate(cr, 18, y0 + ph / 2);
	cairo_rotate(cr, -1.5708);
	text(cr, "Mbit/s", 0, 0, 0.5);
	cairo_restore(cr);
	text(cr, "s", LEFT + pw + 10, y0 + ph + 15, 0);
	cairo_save(cr);
	cairo_rectangle(cr, LEFT, y0, pw, ph);
	cairo_clip(cr);
	cairo_set_line_width(cr, 1.6);
	for (int i = 0; i < p->nq; i++) {
		const struct series *s = &p->q[i];

		rgb(cr, colors[i]);
		for (int k = 0; k < s->n; k++) {
			double x = LEFT + pw * s->t[k] / tmax;
			double y = y0 + ph - ph * s->v[k] / vmax;

			if (k == 0)
				cairo_move_to(cr, x, y);
			else
				cairo_line_to(cr, x, y);
		}
		cairo_stroke(cr);
	}
	cairo_restore(cr);
	for (int i = 0; i < p->nq; i++) {       /* legend */
		double y = y0 + 14 + 18 * i;

		rgb(cr, colors[i]);
		cairo_move_to(cr, LEFT + pw + 12, y - 4);
		cairo_line_to(cr, LEFT + pw + 34, y - 4);
		cairo_stroke(cr);
		cairo_set_source_rgb(cr, 0, 0, 0);
		text(cr, p->q[i].name, LEFT + pw + 40, y, 0);
	}
}

int main(int argc, char **argv)
{
	double tmax = 0, vmax = 0;
	cairo_surface_t *sf;
	cairo_t *cr;
	int h;

	if (argc < 3 || argc > 4) {
		fprintf(stderr, "usage: cc-rate-plot RATES.csv OUT.png [TITLE]\n");
		return 2;
	}
	if (load(argv[1]) <= 0) {
		fprintf(stderr, "cc-rate-plot: %s: no samples\n", argv[1]);
		return 1;
	}
	for (int i = 0; i < npanels; i++)
		for (int j = 0; j < panels[i].nq; j++)
			for (int k = 0; k < panels[i].q[j].n; k++) {
				if (panels[i].q[j].t[k] > tmax)
					tmax = panels[i].q[j].t[k];
				if (panels[i].q[j].v[k] > vmax)
					vmax = panels[i].q[j].v[k];
			}
	tmax = nice_max(tmax);
	vmax = nice_max(vmax);
	h = TOP + npanels * PANEL_H;
	sf = cairo_image_surface_create(CAIRO_FORMAT_RGB24, W, h);
	cr = cairo_create(sf);
	cairo_set_source_rgb(cr, 1, 1, 1);
	cairo_paint(cr);
	cairo_select_font_face(cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL,
			       CAIRO_FONT_WEIGHT_NORMAL);
	cairo_set_font_size(cr, 13);
	cairo_set_source_rgb(cr, 0, 0, 0);
	text(cr, argc == 4 ? argv[3] : "each QP's acknowledged WRITE rate",
	     W / 2.0, 24, 0.5);
	cairo_set_font_size(cr, 11);
	for (int i = 0; i < npanels; i++)
		draw_panel(cr, &panels[i], TOP + i * PANEL_H + 10, tmax, vmax);
	cairo_destroy(cr);
	if (cairo_surface_write_to_png(sf, argv[2]) != CAIRO_STATUS_SUCCESS) {
		fprintf(stderr, "cc-rate-plot: cannot write %s\n", argv[2]);
		cairo_surface_destroy(sf);
		return 1;
	}
	cairo_surface_destroy(sf);
	return 0;
}
