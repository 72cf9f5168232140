/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "report/svg.h"

#include <math.h>     /* isnan, isinf, INFINITY: macros, no libm */
#include <stdio.h>

/* Colours a reader with the commonest colour blindness still tells apart (the Okabe-Ito set). */
static const char *const colours[] = { "#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000" };

#define TITLE_H 32
#define MARGIN_L 72
#define MARGIN_R 20
#define MARGIN_T 30
#define MARGIN_B 52
#define LEGEND_ENTRY_W 240

static void put_text(FILE *f, const char *s) {
        for (; s && *s; s++)
                switch (*s) {
                case '&': fputs("&amp;", f); break;
                case '<': fputs("&lt;", f); break;
                case '>': fputs("&gt;", f); break;
                case '"': fputs("&quot;", f); break;
                default: fputc(*s, f);
                }
}

/* floor and ceil of x for |x| < 2^63, without libm (the library links none) */
static double floor_(double x) {
        double t = (double) (int64_t) x;
        return t > x ? t - 1 : t;
}

static double ceil_(double x) {
        double t = (double) (int64_t) x;
        return t < x ? t + 1 : t;
}

/* 1, 2 or 5 × 10^k, the first at least span / 5 */
static double nice_step(double span) {
        double raw = span / 5, p = 1;
        while (p * 10 <= raw)
                p *= 10;
        while (p > raw)
                p /= 10;
        double m = raw / p;
        return (m <= 1 ? 1 : m <= 2 ? 2 : m <= 5 ? 5 : 10) * p;
}

typedef struct Range {
        double lo, hi, step;
} Range;

static Range axis(double lo, double hi, bool from_zero) {
        if (from_zero && lo > 0)
                lo = 0;
        if (!(hi > lo))
                hi = lo + 1;
        Range r = { .step = nice_step(hi - lo) };
        r.lo = floor_(lo / r.step) * r.step;
        r.hi = ceil_(hi / r.step) * r.step;
        return r;
}

/* The index of name among the distinct names of all panels' series, in order of first use. */
static size_t name_index(const SvgPanel *panels, size_t n_panels, const char *name) {
        size_t k = 0;
        for (size_t p = 0; p < n_panels; p++)
                for (size_t s = 0; s < panels[p].n_series; s++) {
                        const char *n = panels[p].series[s].name;
                        bool earlier = false;
                        for (size_t q = 0; q <= p && !earlier; q++)
                                for (size_t t = 0; t < (q == p ? s : panels[q].n_series) && !earlier; t++)
                                        earlier = streq_ptr(panels[q].series[t].name, n);
                        if (earlier)
                                continue;
                        if (streq_ptr(n, name))
                                return k;
                        k++;
                }
        return k;
}

static const SvgSeries *nth_name(const SvgPanel *panels, size_t n_panels, size_t want) {
        for (size_t p = 0; p < n_panels; p++)
                for (size_t s = 0; s < panels[p].n_series; s++)
                        if (name_index(panels, n_panels, panels[p].series[s].name) == want)
                                return &panels[p].series[s];
        return NULL;
}

static void marker(FILE *f, double x, double y, SvgMarker m, const char *colour) {
        if (m == SVG_MARKER_DOT)
                fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4\" fill=\"%s\"/>\n", x, y, colour);
        else
                fprintf(f, "<path d=\"M%.1f %.1fl10 10m0 -10l-10 10\" stroke=\"%s\" stroke-width=\"2\" fill=\"none\"/>\n",
                        x - 5, y - 5, colour);
}

static void panel(FILE *f, const SvgPanel *pn, const SvgPanel *all, size_t n_all, double ox, double oy) {
        double x0 = ox + MARGIN_L, x1 = ox + SVG_PANEL_WIDTH - MARGIN_R;
        double y0 = oy + SVG_PANEL_HEIGHT - MARGIN_B, y1 = oy + MARGIN_T;
        double xmin = INFINITY, xmax = -INFINITY, ymax = -INFINITY;
        for (size_t s = 0; s < pn->n_series; s++)
                for (size_t i = 0; i < pn->series[s].n_points; i++) {
                        const SvgPoint *p = &pn->series[s].points[i];
                        if (isnan(p->x) || isnan(p->y))
                                continue;
                        xmin = p->x < xmin ? p->x : xmin;
                        xmax = p->x > xmax ? p->x : xmax;
                        ymax = p->y > ymax ? p->y : ymax;
                }
        if (isinf(xmin))
                xmin = 0, xmax = 1, ymax = 1;
        Range rx = axis(xmin, xmax, false), ry = axis(0, ymax, true);
#define PX(v) (x0 + ((v) - rx.lo) / (rx.hi - rx.lo) * (x1 - x0))
#define PY(v) (y0 - ((v) - ry.lo) / (ry.hi - ry.lo) * (y0 - y1))

        fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" font-size=\"14\">", (x0 + x1) / 2, oy + 18);
        put_text(f, pn->title);
        fputs("</text>\n", f);
        /* the grid and the ticks */
        for (double v = ry.lo; v <= ry.hi + ry.step / 2; v += ry.step) {
                fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#dddddd\"/>\n", x0, PY(v), x1, PY(v));
                fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\" font-size=\"11\">%g</text>\n", x0 - 6, PY(v) + 4, v);
        }
        for (double v = rx.lo; v <= rx.hi + rx.step / 2; v += rx.step) {
                fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#dddddd\"/>\n", PX(v), y0, PX(v), y1);
                fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" font-size=\"11\">%g</text>\n", PX(v), y0 + 16, v);
        }
        /* the axes and their labels */
        fprintf(f, "<path d=\"M%.1f %.1fV%.1fH%.1f\" stroke=\"#000000\" fill=\"none\"/>\n", x0, y1, y0, x1);
        fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" font-size=\"12\">", (x0 + x1) / 2, y0 + 38);
        put_text(f, pn->x_label);
        fputs("</text>\n", f);
        fprintf(f, "<text transform=\"translate(%.1f %.1f) rotate(-90)\" text-anchor=\"middle\" font-size=\"12\">",
                ox + 18, (y0 + y1) / 2);
        put_text(f, pn->y_label);
        fputs("</text>\n", f);
        /* the series */
        for (size_t s = 0; s < pn->n_series; s++) {
                const SvgSeries *se = &pn->series[s];
                const char *c = colours[name_index(all, n_all, se->name) % ELEMENTSOF(colours)];
                bool first = true;
                fprintf(f, "<path fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\"%s d=\"", c,
                        se->dashed ? " stroke-dasharray=\"6 4\"" : "");
                for (size_t i = 0; i < se->n_points; i++) {
                        const SvgPoint *p = &se->points[i];
                        if (isnan(p->x) || isnan(p->y))
                                continue;
                        fprintf(f, "%s%.1f %.1f", first ? "M" : "L", PX(p->x), PY(p->y));
                        first = false;
                }
                fputs("\"/>\n", f);
                for (size_t i = 0; i < se->n_points; i++) {
                        const SvgPoint *p = &se->points[i];
                        if (isnan(p->x) || isnan(p->y))
                                continue;
                        marker(f, PX(p->x), PY(p->y), p->marker, c);
                        if (p->label) {
                                fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"10\" fill=\"%s\">", PX(p->x) + 7,
                                        PY(p->y) - 6, c);
                                put_text(f, p->label);
                                fputs("</text>\n", f);
                        }
                }
        }
#undef PX
#undef PY
}

char *svg_render(const char *title, const SvgPanel *panels, size_t n_panels, unsigned *ret_width,
                 unsigned *ret_height) {
        char *buf = NULL;
        size_t len = 0;
        unsigned width = SVG_PANEL_WIDTH * (unsigned) (n_panels ?: 1);
        size_t n_names = name_index(panels, n_panels, NULL);     /* NULL matches none: the count */
        unsigned per_row = width / LEGEND_ENTRY_W ?: 1;
        unsigned rows = (unsigned) ((n_names + per_row - 1) / per_row) + 1;      /* + the markers' key */
        unsigned height = TITLE_H + SVG_PANEL_HEIGHT + rows * SVG_LEGEND_HEIGHT + 8;
        FILE *f = open_memstream(&buf, &len);
        if (!f)
                return NULL;
        fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                   "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"%u\" height=\"%u\" "
                   "viewBox=\"0 0 %u %u\" font-family=\"sans-serif\">\n",
                width, height, width, height);
        fprintf(f, "<title>");
        put_text(f, title);
        fprintf(f, "</title>\n<rect width=\"%u\" height=\"%u\" fill=\"#ffffff\"/>\n", width, height);
        fprintf(f, "<text x=\"%u\" y=\"22\" text-anchor=\"middle\" font-size=\"16\">", width / 2);
        put_text(f, title);
        fputs("</text>\n", f);
        for (size_t p = 0; p < n_panels; p++)
                panel(f, &panels[p], panels, n_panels, (double) (p * SVG_PANEL_WIDTH), TITLE_H);
        /* the legend: every series by name, then what the markers mean */
        double ly = TITLE_H + SVG_PANEL_HEIGHT + 16;
        for (size_t k = 0; k < n_names; k++) {
                const SvgSeries *se = nth_name(panels, n_panels, k);
                double lx = 16 + (double) (k % per_row) * LEGEND_ENTRY_W, y = ly + (double) (k / per_row) * SVG_LEGEND_HEIGHT;
                const char *c = colours[k % ELEMENTSOF(colours)];
                fprintf(f, "<path d=\"M%.1f %.1fh24\" stroke=\"%s\" stroke-width=\"2\"%s/>\n", lx, y - 4, c,
                        se && se->dashed ? " stroke-dasharray=\"6 4\"" : "");
                fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"12\">", lx + 30, y);
                put_text(f, se ? se->name : "");
                fputs("</text>\n", f);
        }
        double ky = ly + (double) (rows - 1) * SVG_LEGEND_HEIGHT;
        marker(f, 20, ky - 4, SVG_MARKER_DOT, "#000000");
        fprintf(f, "<text x=\"30\" y=\"%.1f\" font-size=\"12\">held / finished</text>\n", ky);
        marker(f, 156, ky - 4, SVG_MARKER_CROSS, "#000000");
        fprintf(f, "<text x=\"168\" y=\"%.1f\" font-size=\"12\">gave out / did not finish (what gave out beside it)</text>\n", ky);
        fputs("</svg>\n", f);
        if (fclose(f) != 0) {
                free(buf);
                return NULL;
        }
        if (ret_width)
                *ret_width = width;
        if (ret_height)
                *ret_height = height;
        return buf;
}
