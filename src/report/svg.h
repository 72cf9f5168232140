/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include "shared/util.h"

/* A self-contained SVG line chart (SVG 1.1, no script, no external reference, no font file: text
 * in the generic sans-serif family): one or more panels side by side, each with its title, its
 * axes (ticks at 1, 2 or 5 × 10^k, the labels with their units) and its series, and one legend
 * naming every series. Pure: it renders into a string. */

typedef enum SvgMarker {
        SVG_MARKER_DOT,                 /* a filled circle: a point that held / finished */
        SVG_MARKER_CROSS,               /* a cross: a point that gave out / did not finish */
} SvgMarker;

typedef struct SvgPoint {
        double x, y;
        SvgMarker marker;
        const char *label;              /* a word beside the marker ("oom"); NULL: none */
} SvgPoint;

typedef struct SvgSeries {
        const char *name;               /* in the legend */
        SvgPoint *points;               /* drawn in this order, joined by a line */
        size_t n_points;
        bool dashed;
} SvgSeries;

typedef struct SvgPanel {
        const char *title;
        const char *x_label, *y_label;  /* with their units: "limit (MiB)" */
        SvgSeries *series;
        size_t n_series;
} SvgPanel;

#define SVG_PANEL_WIDTH 480
#define SVG_PANEL_HEIGHT 360
#define SVG_LEGEND_HEIGHT 24            /* a legend row */

/* The chart: width SVG_PANEL_WIDTH × the panels, height SVG_PANEL_HEIGHT + a title row + the
 * legend's rows; the colour of a series is its index over all panels' series. *ret_width and
 * *ret_height (may be NULL): the declared size. NULL on ENOMEM. */
char *svg_render(const char *title, const SvgPanel *panels, size_t n_panels, unsigned *ret_width,
                 unsigned *ret_height);
