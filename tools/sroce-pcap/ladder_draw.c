/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ladder_draw.c — a finished ladder layout onto an SVG or PNG with cairo.
 *
 * Geometry, top down: the title, the legend (the highlights the picture
 * uses, with their counts), a box per lifeline, then one band per row:
 * the arrow with its label above and the extension headers below, the
 * time at the left.  Lifelines are LADDER_COL apart.
 */
#include <cairo.h>
#include <cairo-svg.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ladder.h"

#define LADDER_LEFT   100.0     /* the time column */
#define LADDER_COL    420.0     /* between lifelines */
#define LADDER_RIGHT  220.0
#define LADDER_MIN_W  1080.0    /* the legend's width */
#define LADDER_ROW    38.0
#define LADDER_TOP    120.0     /* title, legend, lifeline boxes */
#define LADDER_FONT   11.0
#define LADDER_MAX_PX 32000.0   /* cairo's image surfaces stop at 32767 */

static void sr_draw_rgb(cairo_t *cr, uint32_t rgb)
{
	cairo_set_source_rgb(cr, (rgb >> 16 & 0xff) / 255.0,
			     (rgb >> 8 & 0xff) / 255.0, (rgb & 0xff) / 255.0);
}

static double sr_draw_x(uint32_t ep)
{
	return LADDER_LEFT + LADDER_RIGHT / 2 + ep * LADDER_COL;
}

static double sr_draw_y(double row)
{
	return LADDER_TOP + row * LADDER_ROW + LADDER_ROW / 2;
}

/* Text centred on x (anchor 0.5), left-aligned (0) or right-aligned (1). */
static void sr_draw_text(cairo_t *cr, const char *s, double x, double y,
			 double anchor)
{
	cairo_text_extents_t e;

	cairo_text_extents(cr, s, &e);
	cairo_move_to(cr, x - anchor * e.x_advance, y);
	cairo_show_text(cr, s);
}

static void sr_draw_legend(cairo_t *cr, const struct sr_ladder *l)
{
	double x = LADDER_LEFT;
	char s[64];

	cairo_set_font_size(cr, LADDER_FONT);
	for (int m = 0; m < SR_LADDER_MARK_MAX; m++) {
		cairo_text_extents_t e;

		snprintf(s, sizeof(s), "%s: %u", sr_ladder_mark_name(m),
			 l->marks[m]);
		sr_draw_rgb(cr, sr_ladder_mark_rgb(m));
		cairo_set_line_width(cr, m == SR_LADDER_NONE ? 1.2 : 3.0);
		cairo_move_to(cr, x, 50);
		cairo_line_to(cr, x + 24, 50);
		cairo_stroke(cr);
		cairo_text_extents(cr, s, &e);
		cairo_move_to(cr, x + 30, 54);
		cairo_show_text(cr, s);
		x += 30 + e.x_advance + 24;
	}
}

static void sr_draw_lifelines(cairo_t *cr, const struct sr_ladder *l,
			      double height)
{
	cairo_set_font_size(cr, LADDER_FONT + 1);
	for (uint32_t i = 0; i < l->nep; i++) {
		double x = sr_draw_x(i);
		const double dash[] = { 4.0, 3.0 };
		cairo_text_extents_t e;

		cairo_text_extents(cr, l->ep[i].name, &e);
		cairo_set_source_rgb(cr, 0.92, 0.94, 0.98);
		cairo_rectangle(cr, x - e.x_advance / 2 - 8, 72, e.x_advance + 16, 26);
		cairo_fill_preserve(cr);
		cairo_set_source_rgb(cr, 0.3, 0.3, 0.4);
		cairo_set_line_width(cr, 1);
		cairo_stroke(cr);
		sr_draw_text(cr, l->ep[i].name, x, 90, 0.5);
		cairo_set_dash(cr, dash, 2, 0);
		cairo_move_to(cr, x, 98);
		cairo_line_to(cr, x, height - 10);
		cairo_stroke(cr);
		cairo_set_dash(cr, NULL, 0, 0);
	}
}

static void sr_draw_arrow(cairo_t *cr, const struct sr_ladder_arrow *a)
{
	double x0 = sr_draw_x(a->from), x1 = sr_draw_x(a->to);
	double y = sr_draw_y(a->y), mid = (x0 + x1) / 2;
	double dir = x1 >= x0 ? 1 : -1;
	char label[SR_LADDER_LABEL_MAX + 40], t[32];

	if (a->from == a->to) {        /* to itself: a short loop */
		x1 = x0 + 40;
		dir = -1;
		mid = x0 + 60;
	}
	sr_draw_rgb(cr, sr_ladder_mark_rgb(a->mark));
	cairo_set_line_width(cr, a->mark == SR_LADDER_NONE ? 1.2 : 2.6);
	cairo_move_to(cr, x0, y);
	cairo_line_to(cr, a->from == a->to ? x1 : x1 - dir * 8, y);
	cairo_stroke(cr);
	cairo_move_to(cr, a->from == a->to ? x0 : x1, y);
	cairo_rel_line_to(cr, -dir * 10, -4);
	cairo_rel_line_to(cr, 0, 8);
	cairo_close_path(cr);
	cairo_fill(cr);

	cairo_set_font_size(cr, LADDER_FONT);
	if (a->mark != SR_LADDER_NONE)
		snprintf(label, sizeof(label), "%s  [%s]", a->label,
			 sr_ladder_mark_name(a->mark));
	else
		snprintf(label, sizeof(label), "%s", a->label);
	sr_draw_text(cr, label, mid, y - 4, a->from == a->to ? 0 : 0.5);
	cairo_set_font_size(cr, LADDER_FONT - 1.5);
	if (a->detail[0])
		sr_draw_text(cr, a->detail, mid, y + 12, a->from == a->to ? 0 : 0.5);
	cairo_set_source_rgb(cr, 0.45, 0.45, 0.45);
	snprintf(t, sizeof(t), "%.6f s", a->t);
	sr_draw_text(cr, t, LADDER_LEFT - 10, y + 3, 1.0);
}

static void sr_draw_all(cairo_t *cr, const struct sr_ladder *l,
			const char *title, double w, double h)
{
	cairo_set_source_rgb(cr, 1, 1, 1);
	cairo_rectangle(cr, 0, 0, w, h);
	cairo_fill(cr);
	cairo_select_font_face(cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL,
			       CAIRO_FONT_WEIGHT_BOLD);
	cairo_set_font_size(cr, LADDER_FONT + 3);
	cairo_set_source_rgb(cr, 0, 0, 0);
	sr_draw_text(cr, title, 12, 24, 0);
	cairo_select_font_face(cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL,
			       CAIRO_FONT_WEIGHT_NORMAL);
	sr_draw_legend(cr, l);
	sr_draw_lifelines(cr, l, h);
	cairo_select_font_face(cr, "monospace", CAIRO_FONT_SLANT_NORMAL,
			       CAIRO_FONT_WEIGHT_NORMAL);
	for (uint32_t i = 0; i < l->narrow; i++)
		sr_draw_arrow(cr, l->arrow[i]);
}

static void sr_draw_escape(FILE *f, const char *s)
{
	for (; *s; s++)
		switch (*s) {
		case '<':
			fputs("&lt;", f);
			break;
		case '>':
			fputs("&gt;", f);
			break;
		case '&':
			fputs("&amp;", f);
			break;
		default:
			fputc(*s, f);
		}
}

/* cairo draws letters as outlines: put every arrow as text in a <desc>. */
static int sr_draw_svg_desc(const struct sr_ladder *l, const char *path,
			    const char *title)
{
	char *svg = NULL, *end;
	size_t len = 0;
	FILE *f = fopen(path, "r");
	int rc = -EIO;

	if (f == NULL)
		return -EIO;
	svg = malloc(1);
	for (size_t n; svg; len += n) {
		char *more = realloc(svg, len + 65537);

		if (more == NULL)
			break;
		svg = more;
		if ((n = fread(svg + len, 1, 65536, f)) == 0)
			break;
	}
	fclose(f);
	if (svg == NULL)
		return -ENOMEM;
	svg[len] = '\0';
	end = strstr(svg, "</svg>");
	if (end == NULL || (f = fopen(path, "w")) == NULL)
		goto out_free;
	fwrite(svg, 1, (size_t)(end - svg), f);
	fputs("<desc>\n", f);
	sr_draw_escape(f, title);
	fputc('\n', f);
	for (uint32_t i = 0; i < l->narrow; i++) {
		const struct sr_ladder_arrow *a = l->arrow[i];

		fprintf(f, "%.6f ", a->t);
		sr_draw_escape(f, l->ep[a->from].name);
		fputs(" -> ", f);
		sr_draw_escape(f, l->ep[a->to].name);
		fputs(": ", f);
		sr_draw_escape(f, a->label);
		fputc(' ', f);
		sr_draw_escape(f, a->detail);
		if (a->mark != SR_LADDER_NONE)
			fprintf(f, " [%s]", sr_ladder_mark_name(a->mark));
		fputc('\n', f);
	}
	fputs("</desc>\n", f);
	fputs(end, f);
	rc = fclose(f) == 0 ? 0 : -EIO;
out_free:
	free(svg);
	return rc;
}

static bool sr_draw_ends(const char *s, const char *ext)
{
	size_t n = strlen(s), e = strlen(ext);

	return n > e && strcasecmp(s + n - e, ext) == 0;
}

bool sr_ladder_can_draw(void)
{
	return true;
}

int sr_ladder_draw(const struct sr_ladder *l, const char *path,
		   const char *title, char *err, size_t errlen)
{
	bool svg = sr_draw_ends(path, ".svg");
	double w = LADDER_LEFT + LADDER_RIGHT +
		   (l->nep ? l->nep - 1 : 0) * LADDER_COL;
	double h = LADDER_TOP + (l->rows ? l->rows : 1) * LADDER_ROW + 20;
	cairo_status_t st = CAIRO_STATUS_SUCCESS;
	cairo_surface_t *s;
	cairo_t *cr;

	if (w < LADDER_MIN_W)
		w = LADDER_MIN_W;
	if (!svg && !sr_draw_ends(path, ".png")) {
		snprintf(err, errlen, "%s: the name must end in .svg or .png", path);
		return -EINVAL;
	}
	if (h > LADDER_MAX_PX || w > LADDER_MAX_PX) {
		snprintf(err, errlen,
			 "%u packets make a picture %.0f pixels high (at most %u fit%s); draw fewer (--max, --qp, --psn, --time)",
			 l->narrow, h,
			 (unsigned int)((LADDER_MAX_PX - LADDER_TOP - 20) / LADDER_ROW),
			 l->truncated ? ", and --max left out more" : "");
		return -EINVAL;
	}
	s = svg ? cairo_svg_surface_create(path, w, h) :
		  cairo_image_surface_create(CAIRO_FORMAT_RGB24, (int)w, (int)h);
	cr = cairo_create(s);
	sr_draw_all(cr, l, title, w, h);
	cairo_destroy(cr);
	if (!svg)
		st = cairo_surface_write_to_png(s, path);
	cairo_surface_finish(s);
	if (st == CAIRO_STATUS_SUCCESS)
		st = cairo_surface_status(s);
	cairo_surface_destroy(s);
	if (st != CAIRO_STATUS_SUCCESS) {
		snprintf(err, errlen, "%s: %s", path, cairo_status_to_string(st));
		return -EIO;
	}
	if (svg && sr_draw_svg_desc(l, path, title)) {
		snprintf(err, errlen, "%s: could not add the text description", path);
		return -EIO;
	}
	return 0;
}
