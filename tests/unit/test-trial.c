/* SPDX-License-Identifier: GPL-2.0-or-later */
/* nodeswap trial (issue 27): the allowance a run gets, the shuffle, the floor search fed with
 * recorded outcomes, the cgroup and node readers on files in the kernel's formats, the verdict,
 * table and JSON from recorded trials (tests/fixtures/trial). No process is started. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "plan/allowance.h"
#include "plan/trial.h"
#include "report/json.h"
#include "report/trial.h"

#define FX FIXTURES "/trial"

/* a == b within 1e-6; false for NaN (cmocka's assert_float_equal passes a NaN) */
#define assert_near(a, b) assert_true((a) - (b) < 1e-6 && (b) - (a) < 1e-6)

/* --- The allowance ---------------------------------------------------------------------------- */

static void allowance_is_the_kubelets_formula(void **state) {
        /* Against allowance_compute() itself, for a Burstable container 1 MiB below the limit. */
        const uint64_t mems[] = { 4 * GiB, UINT64_C(4038660096), UINT64_C(8245628) * 1024 };
        const uint64_t swaps[] = { 2 * GiB, UINT64_C(2147479552), 512 * MiB };
        const uint64_t limits[] = { 48 * MiB, 97 * MiB, 577 * MiB, 1536 * MiB };
        for (size_t i = 0; i < ELEMENTSOF(mems); i++)
                for (size_t k = 0; k < ELEMENTSOF(limits); k++) {
                        AllowanceInput in = {
                                .has_request = true, .request = limits[k] - MiB, .has_limit = true,
                                .limit = limits[k], .qos = POD_QOS_BURSTABLE,
                                .behavior = SWAP_BEHAVIOR_LIMITED_SWAP, .cgroup = CGROUP_V2,
                                .mem_total = mems[i], .swap_total = swaps[i],
                        };
                        uint64_t want, got;
                        AllowanceReason why;
                        assert_int_equal(allowance_compute(&in, &want, &why), 0);
                        assert_int_equal(why, ALLOWANCE_GRANTED);
                        assert_int_equal(trial_allowance(mems[i], swaps[i], limits[k], &got), 0);
                        assert_true(got == want);
                }
}

static void allowance_worked_by_hand(void **state) {
        uint64_t s;
        /* calcSwapForBurstablePods: int64(float64(request) / float64(MemTotal) × float64(SwapTotal)).
         * 97 MiB limit: request 96 MiB = 100663296; 100663296 / 4294967296 × 2147483648 = 50331648
         * (48 MiB), exactly. */
        assert_int_equal(trial_allowance(4 * GiB, 2 * GiB, 97 * MiB, &s), 0);
        assert_true(s == UINT64_C(50331648));
        /* A 4 GB Pi (MemTotal 3944004 kB = 4038660096 B, SwapTotal 2097148 kB = 2147479552 B), limit
         * 577 MiB: request 603979776; 603979776 / 4038660096 = 0.1495495440...; × 2147479552 =
         * 321154587.89...: truncated to 321154587. */
        assert_int_equal(trial_allowance(UINT64_C(4038660096), UINT64_C(2147479552), 577 * MiB, &s), 0);
        assert_true(s == UINT64_C(321154587));
        /* SwapTotal = MemTotal: the allowance is the request, the limit less 1 MiB */
        assert_int_equal(trial_allowance(4 * GiB, 4 * GiB, 577 * MiB, &s), 0);
        assert_true(s == 576 * MiB);
        /* no request below 1 MiB */
        assert_int_equal(trial_allowance(4 * GiB, 4 * GiB, MiB, &s), 0);
        assert_true(s == 0);
        assert_int_equal(trial_allowance(0, 4 * GiB, 64 * MiB, &s), -EINVAL);
}

static void swap_runs_refused_with_the_numbers(void **state) {
        TrialNode n = { .mem_total = 4 * GiB, .swap_total = 0, .swap_free = 0 };
        bool ok;
        uint64_t max;
        char *why;
        assert_int_equal(trial_swap_decide(&n, 256 * MiB, &ok, &max, &why), 0);
        assert_false(ok);
        assert_non_null(strstr(why, "SwapTotal 0"));
        free(why);

        n.swap_total = 4 * GiB;
        n.swap_free = 100 * MiB;
        assert_int_equal(trial_swap_decide(&n, 257 * MiB, &ok, &max, &why), 0);
        assert_false(ok);
        assert_true(max == 0);
        assert_non_null(strstr(why, "256.0 MiB, exceeds the free swap (SwapFree 100.0 MiB)"));
        free(why);

        /* 4 KiB of swap on 4 GiB: a 2 MiB limit's request (1 MiB) gets 1 byte... 64 KiB swap gets 0 */
        n.swap_total = n.swap_free = 1024;
        assert_int_equal(trial_swap_decide(&n, 2 * MiB, &ok, &max, &why), 0);
        assert_false(ok);
        assert_non_null(strstr(why, "is 0"));
        free(why);

        n.swap_total = n.swap_free = 4 * GiB;
        assert_int_equal(trial_swap_decide(&n, 257 * MiB, &ok, &max, &why), 0);
        assert_true(ok);
        assert_true(max == 256 * MiB);
        assert_null(why);
}

/* --- The order -------------------------------------------------------------------------------- */

static void shuffle_is_a_seeded_permutation(void **state) {
        TrialPoint a[16], b[16], c[16];
        for (size_t i = 0; i < 16; i++)
                a[i] = b[i] = c[i] = (TrialPoint) { .limit = i * MiB };
        trial_shuffle(a, 16, 1);
        trial_shuffle(b, 16, 1);
        trial_shuffle(c, 16, 2);
        bool seen[16] = {}, moved = false, differ = false;
        for (size_t i = 0; i < 16; i++) {
                assert_true(a[i].limit == b[i].limit);   /* the same seed, the same order */
                seen[a[i].limit / MiB] = true;
                moved |= a[i].limit != i * MiB;
                differ |= a[i].limit != c[i].limit;
        }
        for (size_t i = 0; i < 16; i++)
                assert_true(seen[i]);                     /* every point once */
        assert_true(moved);
        assert_true(differ);
}

static void limits_give_each_run_with_and_without_swap(void **state) {
        TrialNode n = { .mem_total = 4 * GiB, .swap_total = 4 * GiB, .swap_free = 4 * GiB };
        const uint64_t limits[] = { 48 * MiB, 96 * MiB };
        TrialPoint *p;
        TrialRefusal *rf;
        size_t np, nr;
        assert_int_equal(trial_points_for_limits(&n, limits, 2, 2, 7, &p, &np, &rf, &nr), 0);
        assert_int_equal(np, 8);
        assert_int_equal(nr, 0);
        unsigned swap = 0, at48 = 0;
        for (size_t i = 0; i < np; i++) {
                swap += p[i].swap;
                at48 += p[i].limit == 48 * MiB;
                if (p[i].swap)
                        assert_true(p[i].swap_max == p[i].limit - MiB);
                else
                        assert_true(p[i].swap_max == 0);
        }
        assert_int_equal(swap, 4);
        assert_int_equal(at48, 4);
        free(p);
        free(rf);

        /* no swap: the no-swap runs still, one refusal per limit */
        n.swap_total = n.swap_free = 0;
        assert_int_equal(trial_points_for_limits(&n, limits, 2, 1, 7, &p, &np, &rf, &nr), 0);
        assert_int_equal(np, 2);
        assert_int_equal(nr, 2);
        for (size_t i = 0; i < np; i++)
                assert_false(p[i].swap);
        for (size_t i = 0; i < nr; i++)
                free(rf[i].reason);
        free(p);
        free(rf);
}

/* --- The floor search, fed with outcomes ------------------------------------------------------ */

/* A workload that finishes without swap at >= need and with swap at >= need_swap; its peak
 * without a limit is peak. Returns the number of points run. */
static unsigned search(TrialFloor *f, uint64_t need, uint64_t need_swap, uint64_t peak) {
        TrialPoint p;
        unsigned n = 0;
        while (trial_floor_next(f, &p) > 0) {
                n++;
                assert_true(n < 100);
                bool ok = p.limit == TRIAL_MISSING || p.limit >= (p.swap ? need_swap : need);
                assert_int_equal(trial_floor_feed(f, ok, p.limit == TRIAL_MISSING ? peak : p.limit), 0);
        }
        return n;
}

static void floor_bisects_then_tries_fractions_with_swap(void **state) {
        TrialFloor f;
        assert_int_equal(trial_floor_init(&f, 4 * GiB, 0, 0), 0);
        unsigned n = search(&f, 300 * MiB, 150 * MiB, 700 * MiB + 12345);
        assert_string_equal(f.upper_source, "peak");
        assert_true(f.upper == 701 * MiB);      /* the peak rounded up to 1 MiB, kept */
        assert_true(f.resolution == 22 * MiB);  /* 701 MiB / 32 = 21.9: rounded up to 22 MiB */
        assert_true(f.floor_no_swap >= 300 * MiB);
        assert_true(f.floor_no_swap - 300 * MiB <= f.resolution);
        /* with swap: the smallest fraction of the floor at or above 150 MiB */
        const uint64_t fr[][2] = TRIAL_FLOOR_FRACTIONS;
        uint64_t want = TRIAL_MISSING;
        for (size_t i = 0; i < ELEMENTSOF(fr); i++) {
                uint64_t l = f.floor_no_swap / fr[i][1] * fr[i][0] / MiB * MiB;
                if (l < 150 * MiB)
                        break;
                want = l;
        }
        assert_true(f.floor_swap == want);
        assert_true(f.floor_swap < f.floor_no_swap);
        assert_true(n < 20);
        assert_null(f.end_reason);
        trial_floor_done(&f);
}

static void floor_without_a_finishing_run_ends_and_says_why(void **state) {
        TrialFloor f;
        TrialPoint p;
        assert_int_equal(trial_floor_init(&f, 4 * GiB, 0, 0), 0);
        assert_int_equal(trial_floor_next(&f, &p), 1);
        assert_true(p.limit == TRIAL_MISSING);
        assert_int_equal(trial_floor_feed(&f, false, 100 * MiB), 0);
        assert_int_equal(trial_floor_next(&f, &p), 0);
        assert_true(f.floor_no_swap == TRIAL_MISSING);
        assert_non_null(f.end_reason);
        assert_int_equal(trial_floor_feed(&f, true, 0), -EINVAL);  /* nothing to feed */
        trial_floor_done(&f);
}

static void floor_bounds_from_limits_and_memtotal_fallback(void **state) {
        TrialFloor f;
        TrialPoint p;
        /* --limits 64M,128M for a workload that needs 200 MiB: 128 MiB fails, MemTotal is run */
        assert_int_equal(trial_floor_init(&f, 1 * GiB, 64 * MiB, 128 * MiB), 0);
        assert_string_equal(f.upper_source, "--limits");
        assert_int_equal(trial_floor_next(&f, &p), 1);
        assert_true(p.limit == 128 * MiB && !p.swap);
        assert_int_equal(trial_floor_feed(&f, false, 128 * MiB), 0);
        assert_int_equal(trial_floor_next(&f, &p), 1);
        assert_true(p.limit == 1 * GiB);
        assert_string_equal(f.upper_source, "MemTotal");
        assert_true(f.upper == 1 * GiB);
        trial_floor_done(&f);

        /* the peak of the unlimited run unknown (no memory.peak): MemTotal, not run again */
        assert_int_equal(trial_floor_init(&f, 1 * GiB, 0, 0), 0);
        assert_int_equal(trial_floor_next(&f, &p), 1);
        assert_int_equal(trial_floor_feed(&f, true, TRIAL_MISSING), 0);
        assert_string_equal(f.upper_source, "MemTotal");
        assert_int_equal(trial_floor_next(&f, &p), 1);
        assert_true(p.limit < 1 * GiB);         /* straight to bisection */
        trial_floor_done(&f);

        assert_int_equal(trial_floor_init(&f, 1 * GiB, 128 * MiB, 64 * MiB), -EINVAL);
}

static void floor_swap_refused_ends_the_swap_phase(void **state) {
        TrialFloor f;
        TrialPoint p;
        assert_int_equal(trial_floor_init(&f, 4 * GiB, 0, 0), 0);
        while (trial_floor_next(&f, &p) > 0) {
                if (p.swap) {
                        assert_int_equal(trial_floor_swap_refused(&f, "the node has no swap (SwapTotal 0)"), 0);
                        continue;
                }
                assert_int_equal(trial_floor_feed(&f, p.limit == TRIAL_MISSING || p.limit >= 100 * MiB, 120 * MiB), 0);
        }
        assert_true(f.floor_no_swap != TRIAL_MISSING);
        assert_true(f.floor_swap == TRIAL_MISSING);
        assert_string_equal(f.end_reason, "the node has no swap (SwapTotal 0)");
        trial_floor_done(&f);
}

/* --- The readers ------------------------------------------------------------------------------ */

static void cgroup_6_12_has_peaks_and_psi_but_no_pswp(void **state) {
        TrialCgroupSample s;
        assert_int_equal(trial_cgroup_read(FX "/cgroup-6.12", &s), 0);
        assert_true(s.memory_peak == 201326592);
        assert_true(s.swap_peak == 104857600);
        assert_true(s.oom_kill == 0);
        assert_true(s.user_usec == 11000000 && s.system_usec == 1500000);
        assert_true(s.full_total_usec == 2345678);
        assert_true(s.pswpin == TRIAL_MISSING && s.pswpout == TRIAL_MISSING);     /* not in 6.12 */
        assert_true(s.zswpout == 0);
}

static void cgroup_6_1_lacks_swap_peak_and_psi(void **state) {
        TrialCgroupSample s;
        assert_int_equal(trial_cgroup_read(FX "/cgroup-6.1", &s), 0);
        assert_true(s.memory_peak == 98566144);
        assert_true(s.swap_peak == TRIAL_MISSING);       /* memory.swap.peak: Linux 6.5 */
        assert_true(s.full_total_usec == TRIAL_MISSING); /* psi=0 */
        assert_true(s.oom_kill == 1);
        assert_true(s.zswpout == TRIAL_MISSING);
}

static void density_replica_footprint_and_node_stall(void **state) {
        uint64_t m, sw;
        assert_int_equal(trial_cgroup_footprint(FX "/replica", &m, &sw), 0);
        assert_true(m == 41943040 && sw == 9437184);
        assert_int_equal(trial_cgroup_footprint(FX "/replica-noswap", &m, &sw), 0);
        assert_true(m == 50331648 && sw == TRIAL_MISSING);
        assert_int_equal(trial_cgroup_footprint(FX "/cgroup-6.1", &m, &sw), -ENOENT);
        assert_true(trial_node_stall_full(FX "/node") == 45678901);
        assert_true(trial_node_stall_full(FX "/cgroup-6.1") == TRIAL_MISSING);
}

static void cgroup_after_6_12_counts_pswp(void **state) {
        TrialCgroupSample s;
        assert_int_equal(trial_cgroup_read(FX "/cgroup-6.13", &s), 0);
        assert_true(s.pswpin == 6000 && s.pswpout == 25600);
        assert_int_equal(trial_cgroup_read(FX "/no-such-cgroup", &s), -ENOENT);
}

static void node_counters_and_block_stat(void **state) {
        TrialNodeSample s;
        const int zram[] = { 0 };
        assert_int_equal(trial_node_read(FX "/node", "vda", zram, 1, &s), 0);
        assert_true(s.pswpin == 7000 && s.pswpout == 30000);
        assert_true(s.disk_read_sectors == 6543210);
        assert_true(s.disk_written_sectors == 2345678);
        assert_true(s.zram_mem_used == 29360128);
        /* a disk and a zram device the node does not have: missing, not 0 */
        const int zram1[] = { 1 };
        assert_int_equal(trial_node_read(FX "/node", "sdz", zram1, 1, &s), 0);
        assert_true(s.disk_written_sectors == TRIAL_MISSING);
        assert_true(s.zram_mem_used == TRIAL_MISSING);
        assert_int_equal(trial_node_read(FX "/cgroup-6.1", NULL, NULL, 0, &s), 0);
        assert_true(s.pswpout == TRIAL_MISSING);

        uint64_t rd, wr;
        /* Documentation/block/stat.rst: 11 fields before 4.18, 15 up to 5.4, 17 since */
        assert_int_equal(trial_parse_block_stat("1 2 3 4 5 6 7 8 9 10 11\n", &rd, &wr), 0);
        assert_true(rd == 3 && wr == 7);
        assert_int_equal(trial_parse_block_stat("1 2 3 4 5 6\n", &rd, &wr), -EINVAL);
        assert_int_equal(trial_parse_block_stat("1 2 x 4 5 6 7\n", &rd, &wr), -EINVAL);
}

static void executable_lookup(void **state) {
        char *p;
        assert_int_equal(trial_find_executable("sh", "/nonexistent:/bin:/usr/bin", "/", &p), 0);
        assert_true(endswith(p, "/sh"));
        free(p);
        assert_int_equal(trial_find_executable("no-such-command-here", "/bin:/usr/bin", "/", &p), -ENOENT);
        assert_int_equal(trial_find_executable("/etc/passwd", NULL, "/", &p), -EACCES);
        assert_int_equal(trial_find_executable("", NULL, "/", &p), -EINVAL);
}

/* --- Records: verdict, table, JSON ------------------------------------------------------------ */

static void load(const char *id, TrialRecord *t) {
        _cleanup_free_ char *path = strdup_printf(FX "/root/var/lib/nodeswap/trials/%s.json", id), *text = NULL, *why = NULL;
        assert_true(read_full_file(path, TRIAL_RECORD_MAX, &text) >= 0);
        assert_int_equal(trial_record_parse(text, t, &why), 0);
        TrialVerdict v;
        assert_int_equal(trial_verdict(t, &v), 0);
        t->verdict = v;
}

static const TrialGroup *group(const TrialRecord *t, uint64_t limit, bool swap) {
        for (size_t i = 0; i < t->verdict.n_groups; i++)
                if (t->verdict.groups[i].limit == limit && t->verdict.groups[i].swap == swap)
                        return &t->verdict.groups[i];
        return NULL;
}

static void verdict_from_recorded_runs(void **state) {
        TrialRecord z = {}, f = {};
        load("20261201T100000Z", &z);
        load("20261201T120000Z", &f);

        assert_true(z.verdict.floor_no_swap == 576 * MiB);
        assert_true(z.verdict.floor_swap == 288 * MiB);
        assert_true(z.verdict.roomiest_wall_usec == 1500 * USEC_PER_SEC);
        assert_int_equal(z.verdict.n_groups, 6);
        assert_true(z.verdict.groups[0].limit == 1152 * MiB);       /* highest first */
        const TrialGroup *g = group(&z, 288 * MiB, true);
        assert_non_null(g);
        assert_near(g->slowdown, 1750.0 / 1500.0);
        /* (5950 - 5800) CPU s over 30 GiB: lz4's 5 s a GiB */
        assert_near(g->cpu_s_per_gib_out, 5.0);
        assert_true(g->zram_ram_peak == 210 * MiB);
        assert_true(isnan(g->runs_per_drive_life));    /* no --drive-tbw */
        g = group(&z, 432 * MiB, false);
        assert_int_equal(g->result, TRIAL_RESULT_OOM);
        assert_true(isnan(g->slowdown));
        /* an OOM-killed run's CPU is cut short: no (negative) cost a GiB from it */
        g = group(&z, 256 * MiB, true);
        assert_int_equal(g->ok, 0);
        assert_true(isnan(g->cpu_s_per_gib_out));

        g = group(&f, 288 * MiB, true);
        assert_near(g->cpu_s_per_gib_out, 3.0);
        assert_true(g->disk_written_per_run == UINT64_C(40000000000));
        assert_near(g->runs_per_drive_life, 600e12 / 40e9);
        assert_true(g->zram_ram_peak == TRIAL_MISSING);
        trial_record_done(&z);
        trial_record_done(&f);
}

static void table_dashes_and_footnotes(void **state) {
        TrialRecord f = {};
        load("20261201T120000Z", &f);
        char *buf = NULL;
        size_t len = 0;
        FILE *m = open_memstream(&buf, &len);
        assert_non_null(m);
        trial_print(m, &f);
        fclose(m);
        /* zram RAM is missing on a file node: a dash and the footnote naming mm_stat */
        assert_non_null(strstr(buf, "\u2014 zram RAM: no zram swap device (/sys/block/zramN/mm_stat"));
        assert_non_null(strstr(buf, "288.0 MiB  287.0 MiB"));
        assert_non_null(strstr(buf, "floor without swap: 576.0 MiB; with swap: 288.0 MiB (0.50 of the floor without swap)"));
        assert_non_null(strstr(buf, "15000 runs in the drive's 600 TBW"));
        assert_non_null(strstr(buf, "/proc/vmstat"));  /* the swap counters' source said */
        free(buf);
        trial_record_done(&f);
}

static void find_floor_record_keeps_the_searchs_floors(void **state) {
        TrialRecord t = {};
        load("20261201T150000Z", &t);
        assert_true(t.find_floor);
        /* the search's floors, from the record: the groups alone would say the same here, and a
         * smaller limit that finished once below one that did not would not count */
        assert_true(t.verdict.floor_no_swap == 84 * MiB);
        assert_true(t.verdict.floor_swap == 52 * MiB);
        assert_true(t.verdict.groups[0].limit == TRIAL_MISSING);        /* no limit: the roomiest */
        assert_true(t.verdict.roomiest_wall_usec == 2100000);
        char *buf = NULL;
        size_t len = 0;
        FILE *m = open_memstream(&buf, &len);
        assert_non_null(m);
        trial_print(m, &t);
        fclose(m);
        assert_non_null(strstr(buf, "the search: from 16.0 MiB up to 88.0 MiB (the peak of the run without a limit)"));
        assert_non_null(strstr(buf, "floor without swap: 84.0 MiB; with swap: 52.0 MiB (0.62 of the floor without swap)"));
        assert_non_null(strstr(buf, "none       no          ok"));
        free(buf);
        trial_record_done(&t);
}

static void json_round_trip_keeps_missing_as_null(void **state) {
        TrialRecord z = {}, back = {};
        load("20261201T100000Z", &z);
        /* a figure the kernel did not give */
        z.runs[0].stall_full_usec = TRIAL_MISSING;
        z.runs[0].swap_peak = TRIAL_MISSING;
        _cleanup_json_ json_object *o = NULL;
        assert_int_equal(trial_record_to_json(&z, &o), 0);
        json_object *runs, *r0, *v;
        assert_true(json_object_object_get_ex(o, "runs", &runs));
        r0 = json_object_array_get_idx(runs, 0);
        assert_true(json_object_object_get_ex(r0, "stall_full_us", &v));
        assert_null(v);                                 /* null, not 0 */
        const char *keys[] = { "limit_bytes", "swap_max_bytes", "result", "wall_s", "cpu_s", "swapped_out_bytes",
                               "disk_written_bytes", "oom_kills" };
        for (size_t i = 0; i < ELEMENTSOF(keys); i++)
                assert_true(json_object_object_get_ex(r0, keys[i], &v));
        assert_true(json_object_object_get_ex(o, "verdict", &v));
        assert_true(json_object_object_get_ex(o, "node", &v));

        _cleanup_free_ char *why = NULL;
        assert_int_equal(trial_record_parse(json_object_to_json_string(o), &back, &why), 0);
        assert_int_equal(back.n_runs, z.n_runs);
        for (size_t i = 0; i < z.n_runs; i++) {
                assert_int_equal(back.runs[i].result, z.runs[i].result);
                assert_true(back.runs[i].limit == z.runs[i].limit);
                assert_true(back.runs[i].swap_max == z.runs[i].swap_max);
                assert_true(back.runs[i].wall_usec == z.runs[i].wall_usec);
                assert_true(back.runs[i].swapped_out == z.runs[i].swapped_out);
                assert_true(back.runs[i].stall_full_usec == z.runs[i].stall_full_usec);
                assert_true(back.runs[i].swap_peak == z.runs[i].swap_peak);
        }
        assert_string_equal(back.node.zram_algorithm, "lz4");
        trial_record_done(&z);
        trial_record_done(&back);
}

/* A density record (issue 39) as the trial leaves it: its JSON shape (the stable keys, null for
 * what was not measured), the text table and the verdict's sentences, and that it reads back as a
 * density record with its figures, which --compare sets side by side. */
static void density_record_json_and_text(void **state) {
        TrialRecord t = {};
        load("20261201T100000Z", &t);
        TrialDensity *d = calloc(1, sizeof *d);
        TrialDensityPoint *p = calloc(2, sizeof *p);
        assert_non_null(d);
        assert_non_null(p);
        p[0] = (TrialDensityPoint) { .replicas = 10, .swap = false, .repeat = 1, .gave_out = strdup("held"),
                                     .settle_max_usec = 2500000, .settle_mean_usec = 2000000, .hold_usec = 10000000,
                                     .stall_full_usec = 50000, .replicas_stall_full_usec = 30000, .memory = 400 * MiB,
                                     .swapped = 0, .swapped_out = 0, .swapped_in = 0, .disk_written = TRIAL_MISSING,
                                     .zram_ram_peak = TRIAL_MISSING, .wall_usec = 14000000 };
        p[1] = (TrialDensityPoint) { .replicas = 18, .swap = true, .repeat = 1, .gave_out = strdup("oom"), .oom = 2,
                                     .settle_max_usec = TRIAL_MISSING, .settle_mean_usec = TRIAL_MISSING,
                                     .stall_full_usec = TRIAL_MISSING, .replicas_stall_full_usec = TRIAL_MISSING,
                                     .memory = TRIAL_MISSING, .swapped = TRIAL_MISSING, .swapped_out = 2 * GiB,
                                     .swapped_in = GiB, .disk_written = 2000000000, .zram_ram_peak = TRIAL_MISSING,
                                     .wall_usec = 9000000 };
        *d = (TrialDensity) { .request = 32 * MiB, .limit = 64 * MiB, .swap_max = 16 * MiB,
                              .kubelet_mem_total = 4 * GiB, .kubelet_swap_total = 2 * GiB, .replicas_max = 64,
                              .hold_usec = 10000000, .settle_timeout_usec = 300000000, .mem_available = 3 * GiB,
                              .lone_settle_usec = 1000000, .lone_footprint = 40 * MiB, .predicted_no_swap = 10,
                              .predicted_swap = 18, .density_no_swap = 10, .density_swap = 17, .ceiling = 1.5,
                              .ceiling_zram = NAN, .allocatable = 4 * GiB - 100 * MiB, .eviction_hard = 100 * MiB,
                              .admitted = 124, .request_for_swap = 234 * MiB, .points = p, .n_points = 2 };
        d->eviction_source = strdup("the kubelet's default");
        t.density = d;
        t.drive_tbw = 600;
        _cleanup_json_ json_object *o = NULL;
        assert_int_equal(trial_record_to_json(&t, &o), 0);
        json_object *D, *v, *pts, *p1, *sch;
        assert_true(json_object_object_get_ex(o, "mode", &v));
        assert_string_equal(json_object_get_string(v), "density");
        assert_true(json_object_object_get_ex(o, "density", &D));
        assert_true(json_object_object_get_ex(D, "ratio", &v));
        assert_true(json_object_get_double(v) == 1.7);  /* 17 / 10 */
        assert_true(json_object_object_get_ex(D, "ceiling_zram", &v));
        assert_null(v);
        assert_true(json_object_object_get_ex(D, "around", &v));
        assert_null(v);
        assert_true(json_object_object_get_ex(D, "scheduler", &sch));
        assert_true(json_object_object_get_ex(sch, "request_for_density_swap_bytes", &v));
        assert_true(json_object_get_int64(v) == 234 * (int64_t) MiB);
        /* no pod's overhead measured, and the record says so */
        assert_true(json_object_object_get_ex(D, "pod_overhead_bytes", &v));
        assert_null(v);
        assert_true(json_object_object_get_ex(D, "pod_overhead", &v));
        assert_non_null(strstr(json_object_get_string(v), "leave out what a pod adds on a node"));
        assert_true(json_object_object_get_ex(D, "points", &pts));
        assert_int_equal(json_object_array_length(pts), 2);
        p1 = json_object_array_get_idx(pts, 1);
        const char *keys[] = { "replicas", "swap", "repeat", "result", "oom_killed", "failed", "unsettled",
                               "settle_max_s", "settle_mean_s", "hold_s", "node_stall_full_s",
                               "node_stall_full_percent", "budget_stall_full_s", "replicas_stall_full_s", "memory_bytes", "swap_bytes",
                               "swapped_out_bytes", "swapped_in_bytes", "disk_written_bytes",
                               "points_per_drive_life", "zram_ram_peak_bytes", "wall_s" };
        for (size_t i = 0; i < ELEMENTSOF(keys); i++)
                assert_true(json_object_object_get_ex(p1, keys[i], &v));
        assert_true(json_object_object_get_ex(p1, "hold_s", &v));
        assert_null(v);                                 /* it gave out before the hold */
        assert_true(json_object_object_get_ex(p1, "points_per_drive_life", &v));
        assert_true(json_object_get_double(v) == 300000); /* 600 TB / 2 GB */
        assert_true(json_object_object_get_ex(json_object_array_get_idx(pts, 0), "node_stall_full_percent", &v));
        assert_true(json_object_get_double(v) == 0.5);  /* 0.05 s of a 10 s hold */

        char *buf = NULL;
        size_t len = 0;
        FILE *m = open_memstream(&buf, &len);
        assert_non_null(m);
        trial_print(m, &t);
        fclose(m);
        assert_non_null(strstr(buf, "held without swap: 10 replicas (predicted 10); with swap: 17 (predicted 18)"));
        assert_non_null(strstr(buf, "swap fits 1.7× as many replicas here; the scheduler admits them at this request"));
        assert_non_null(strstr(buf, "the ceiling 1 + swap/RAM: 1.50×\n"));
        assert_non_null(strstr(buf, "it admits 124 more of request 32.0 MiB"));
        assert_non_null(strstr(buf, "transient units, not pods"));
        free(buf);

        TrialRecord back = {};
        _cleanup_free_ char *why = NULL;
        assert_int_equal(trial_record_parse(json_object_to_json_string(o), &back, &why), 0);
        assert_true(back.density_mode);
        /* --compare reads the figures back */
        assert_non_null(back.density);
        assert_int_equal(back.density->density_no_swap, 10);
        assert_int_equal(back.density->density_swap, 17);
        assert_int_equal(back.density->admitted, 124);
        assert_true(back.density->request_for_swap == 234 * MiB);
        assert_true(back.density->swap_max == 16 * MiB);
        assert_true(back.density->ceiling == 1.5);
        assert_true(isnan(back.density->ceiling_zram));
        assert_int_equal(back.density->n_points, 2);
        assert_string_equal(back.density->points[1].gave_out, "oom");
        assert_int_equal(back.density->points[1].oom, 2);
        assert_true(back.density->points[1].hold_usec == 0);
        assert_true(back.density->points[1].swapped_out == 2 * GiB);
        assert_true(back.density->points[1].settle_max_usec == TRIAL_MISSING);
        assert_true(back.density->points[0].stall_full_usec == 50000);
        assert_true(back.density->points[0].disk_written == TRIAL_MISSING);
        trial_record_done(&back);
        trial_record_done(&t);
}

static void records_read_skips_and_names_a_bad_one(void **state) {
        TrialRecord *t;
        size_t n;
        char **skipped;
        assert_int_equal(trial_records_read(FX "/root", &t, &n, &skipped), 0);
        assert_int_equal(n, 4);
        assert_string_equal(t[0].id, "20261201T100000Z");       /* oldest first */
        assert_string_equal(t[3].id, "20261201T150000Z");
        assert_non_null(skipped);
        assert_non_null(strstr(skipped[0], "20261201T140000Z.json: not a version 1 trial record"));
        strv_free(skipped);
        trial_records_free(t, n);
        assert_int_equal(trial_records_read(FX "/node", &t, &n, &skipped), 0);
        assert_int_equal(n, 0);

        TrialRecord r;
        char *why;
        assert_int_equal(trial_record_parse("[1]", &r, &why), -EINVAL);
        free(why);
        assert_int_equal(trial_record_parse("{\"version\":1,\"id\":\"x\",\"command\":[\"/bin/true\"],"
                                            "\"runs\":[{\"result\":\"exploded\"}]}", &r, &why), -EINVAL);
        assert_non_null(strstr(why, "result"));
        free(why);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(allowance_is_the_kubelets_formula),
                cmocka_unit_test(allowance_worked_by_hand),
                cmocka_unit_test(swap_runs_refused_with_the_numbers),
                cmocka_unit_test(shuffle_is_a_seeded_permutation),
                cmocka_unit_test(limits_give_each_run_with_and_without_swap),
                cmocka_unit_test(floor_bisects_then_tries_fractions_with_swap),
                cmocka_unit_test(floor_without_a_finishing_run_ends_and_says_why),
                cmocka_unit_test(floor_bounds_from_limits_and_memtotal_fallback),
                cmocka_unit_test(floor_swap_refused_ends_the_swap_phase),
                cmocka_unit_test(cgroup_6_12_has_peaks_and_psi_but_no_pswp),
                cmocka_unit_test(cgroup_6_1_lacks_swap_peak_and_psi),
                cmocka_unit_test(cgroup_after_6_12_counts_pswp),
                cmocka_unit_test(node_counters_and_block_stat),
                cmocka_unit_test(density_replica_footprint_and_node_stall),
                cmocka_unit_test(executable_lookup),
                cmocka_unit_test(verdict_from_recorded_runs),
                cmocka_unit_test(table_dashes_and_footnotes),
                cmocka_unit_test(find_floor_record_keeps_the_searchs_floors),
                cmocka_unit_test(json_round_trip_keeps_missing_as_null),
                cmocka_unit_test(records_read_skips_and_names_a_bad_one),
                cmocka_unit_test(density_record_json_and_text),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
