/* SPDX-License-Identifier: GPL-2.0-or-later */
/* trial-svg-render FIXTURES OUTDIR: nodeswap trial's charts (report/trial.c trial_svg(),
 * trial_compare_svg()) from the recorded trials of tests/fixtures/trial into OUTDIR: limits.svg
 * (20261201T100000Z, a --limits trial on zram), floor.svg (20261201T150000Z, a --find-floor
 * trial), density.svg (a density record with figures shaped after the e2e: 40 MiB
 * replicas, 12 without swap and 17 with), compare.svg (the make trials on zram and the file) and
 * density-compare.svg (tests/fixtures/trial/density: the density trials of the idle replicas on
 * zram and on the file, side by side).
 * One line per chart on stdout: "NAME WIDTH HEIGHT", the size each declares. test-trial-svg.sh
 * renders them with rsvg-convert and checks the pictures. */
#include <stdio.h>

#include "report/trial.h"

static int load_from(const char *fx, const char *root, const char *id, TrialRecord *t) {
        _cleanup_free_ char *path = strdup_printf("%s/trial/%s/var/lib/nodeswap/trials/%s.json", fx, root, id);
        _cleanup_free_ char *text = NULL, *why = NULL;
        if (!path || read_full_file(path, TRIAL_RECORD_MAX, &text) < 0 || trial_record_parse(text, t, &why) < 0) {
                fprintf(stderr, "cannot read %s: %s\n", strempty(path), strempty(why));
                return -1;
        }
        return 0;
}

static int load(const char *fx, const char *id, TrialRecord *t) {
        return load_from(fx, "root", id, t);
}

static int put(const char *dir, const char *name, char *svg, unsigned w, unsigned h) {
        _cleanup_free_ char *path = strdup_printf("%s/%s.svg", dir, name);
        int r = svg && path ? write_file_atomic(path, svg, 0644) : -ENOMEM;
        free(svg);
        if (r < 0) {
                fprintf(stderr, "cannot write %s: %s\n", strempty(path), strerror(-r));
                return -1;
        }
        printf("%s %u %u\n", name, w, h);
        return 0;
}

static TrialDensityPoint point(unsigned n, bool swap, const char *gave_out, double settle_s, double stall_pct) {
        return (TrialDensityPoint) {
                .replicas = n, .swap = swap, .repeat = 1, .gave_out = strdup(gave_out),
                .settle_max_usec = settle_s < 0 ? TRIAL_MISSING : (uint64_t) (settle_s * 1e6),
                .hold_usec = stall_pct < 0 ? 0 : 3000000,
                .stall_full_usec = stall_pct < 0 ? TRIAL_MISSING : (uint64_t) (stall_pct * 30000),
        };
}

/* the density records of the idle replicas, zram and file, and the hot replicas' (another command) */
static int density_compare(const char *fx, const char *dir) {
        TrialRecord d[3] = {};
        unsigned w = 0, h = 0;
        int r = -1;
        if (load_from(fx, "density", "20261203T200400Z", &d[0]) >= 0 &&
            load_from(fx, "density", "20261203T200600Z", &d[1]) >= 0 &&
            load_from(fx, "density", "20261203T200900Z", &d[2]) >= 0) {
                char *svg = trial_density_compare_svg(d, 3, d[0].command, &w, &h);
                r = put(dir, "density-compare", svg, w, h);
        }
        for (size_t i = 0; i < ELEMENTSOF(d); i++)
                trial_record_done(&d[i]);
        return r;
}

int main(int argc, char **argv) {
        if (argc != 3) {
                fprintf(stderr, "usage: trial-svg-render FIXTURES OUTDIR\n");
                return 2;
        }
        TrialRecord t[3] = {};
        unsigned w = 0, h = 0;
        int ret = 1;
        if (load(argv[1], "20261201T100000Z", &t[0]) < 0 || load(argv[1], "20261201T120000Z", &t[1]) < 0 ||
            load(argv[1], "20261201T150000Z", &t[2]) < 0)
                goto finish;
        char *svg = trial_svg(&t[0], &w, &h);
        if (put(argv[2], "limits", svg, w, h) < 0)
                goto finish;
        svg = trial_svg(&t[2], &w, &h);
        if (put(argv[2], "floor", svg, w, h) < 0)
                goto finish;
        svg = trial_compare_svg(t, 2, NULL, &w, &h);
        if (put(argv[2], "compare", svg, w, h) < 0)
                goto finish;

        TrialDensity *d = calloc(1, sizeof *d);
        TrialDensityPoint *p = calloc(8, sizeof *p);
        if (!d || !p) {
                free(d);
                free(p);
                goto finish;
        }
        p[0] = point(1, false, "held", 1.2, 0);
        p[1] = point(12, false, "held", 2.9, 0.4);
        p[2] = point(13, false, "held", 3.1, 1.2);
        p[3] = point(14, false, "oom", -1, -1);
        p[4] = point(19, true, "stall", 6.0, 14.5);
        p[5] = point(18, true, "slow", 4.4, 6.1);
        p[6] = point(17, true, "held", 3.4, 2.2);
        p[7] = point(16, true, "held", 3.3, 1.0);
        *d = (TrialDensity) { .request = 24 * MiB, .limit = 48 * MiB, .density_no_swap = 13, .density_swap = 17,
                              .points = p, .n_points = 8 };
        TrialRecord dr = { .id = strdup("20261203T200000Z"), .density = d };
        dr.command = strv_split_ws("/usr/local/lib/nodeswap-e2e/replica idle 40");
        dr.node.backend = strdup("zram");
        svg = trial_svg(&dr, &w, &h);
        int r = put(argv[2], "density", svg, w, h);
        trial_record_done(&dr);
        if (r >= 0)
                r = density_compare(argv[1], argv[2]);
        if (r >= 0)
                ret = 0;
finish:
        for (size_t i = 0; i < ELEMENTSOF(t); i++)
                trial_record_done(&t[i]);
        return ret;
}
