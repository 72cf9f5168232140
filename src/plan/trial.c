/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "plan/trial.h"

#include <math.h>

#include "plan/allowance.h"

int trial_allowance(uint64_t mem_total, uint64_t swap_total, uint64_t limit, uint64_t *ret_swap) {
        if (mem_total == 0)
                return -EINVAL;
        if (limit <= TRIAL_REQUEST_BELOW_LIMIT) {
                *ret_swap = 0;
                return 0;
        }
        /* a Burstable container whose request is just below its limit */
        uint64_t swap;
        AllowanceReason reason;
        int r = allowance_burstable(mem_total, swap_total, limit - TRIAL_REQUEST_BELOW_LIMIT, limit, &swap, &reason);
        if (r < 0)
                return r;
        *ret_swap = reason == ALLOWANCE_GRANTED ? swap : 0;
        return 0;
}

int trial_swap_decide(const TrialNode *n, uint64_t limit, bool *ret_allowed, uint64_t *ret_swap_max,
                      char **ret_reason) {
        char a[FORMAT_BYTES_MAX], b[FORMAT_BYTES_MAX], c[FORMAT_BYTES_MAX];
        uint64_t swap = 0;
        char *reason = NULL;

        if (n->swap_total == 0)
                reason = strdup("the node has no swap (SwapTotal 0)");
        else if (limit == TRIAL_MISSING || limit <= TRIAL_REQUEST_BELOW_LIMIT)
                reason = strdup("a limit of 1 MiB or less leaves no request below it");
        else {
                int r = trial_allowance(n->mem_total, n->swap_total, limit, &swap);
                if (r < 0)
                        return r;
                if (swap == 0)
                        reason = strdup_printf("the allowance at %s is 0 (request %s / MemTotal %s × SwapTotal %s)",
                                               format_bytes(a, sizeof a, limit),
                                               format_bytes(b, sizeof b, limit - TRIAL_REQUEST_BELOW_LIMIT),
                                               format_bytes(c, sizeof c, n->mem_total),
                                               format_bytes((char[FORMAT_BYTES_MAX]) {}, FORMAT_BYTES_MAX, n->swap_total));
                else if (swap > n->swap_free)
                        reason = strdup_printf("the allowance at %s, %s, exceeds the free swap (SwapFree %s)",
                                               format_bytes(a, sizeof a, limit), format_bytes(b, sizeof b, swap),
                                               format_bytes(c, sizeof c, n->swap_free));
                else {
                        *ret_allowed = true;
                        *ret_swap_max = swap;
                        *ret_reason = NULL;
                        return 0;
                }
        }
        if (!reason)
                return -ENOMEM;
        *ret_allowed = false;
        *ret_swap_max = 0;
        *ret_reason = reason;
        return 0;
}

/* splitmix64 (Steele, Lea, Flood 2014): a full-period 64-bit generator, enough for an order. */
static uint64_t splitmix64(uint64_t *state) {
        uint64_t z = (*state += UINT64_C(0x9e3779b97f4a7c15));
        z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
        z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
        return z ^ (z >> 31);
}

void trial_shuffle(TrialPoint *p, size_t n, uint64_t seed) {
        uint64_t state = seed;
        for (size_t i = n; i > 1; i--) {
                /* j uniform in [0, i): reject the top of the range that would bias it */
                uint64_t bound = UINT64_MAX - UINT64_MAX % i, x;
                do
                        x = splitmix64(&state);
                while (x >= bound);
                size_t j = (size_t) (x % i);
                TrialPoint t = p[i - 1];
                p[i - 1] = p[j];
                p[j] = t;
        }
}

int trial_points_for_limits(const TrialNode *n, const uint64_t *limits, size_t n_limits, unsigned runs,
                            uint64_t seed, TrialPoint **ret, size_t *ret_n, TrialRefusal **ret_refusals,
                            size_t *ret_n_refusals) {
        if (runs == 0 || n_limits == 0)
                return -EINVAL;
        TrialPoint *p = calloc(n_limits * 2 * runs, sizeof *p);
        TrialRefusal *rf = calloc(n_limits, sizeof *rf);
        size_t np = 0, nr = 0;
        int r = 0;
        if (!p || !rf) {
                r = -ENOMEM;
                goto fail;
        }
        for (size_t i = 0; i < n_limits; i++) {
                bool allowed;
                uint64_t swap_max;
                char *reason;
                r = trial_swap_decide(n, limits[i], &allowed, &swap_max, &reason);
                if (r < 0)
                        goto fail;
                for (unsigned k = 0; k < runs; k++) {
                        p[np++] = (TrialPoint) { .limit = limits[i] };
                        if (allowed)
                                p[np++] = (TrialPoint) { .limit = limits[i], .swap = true, .swap_max = swap_max };
                }
                if (!allowed)
                        rf[nr++] = (TrialRefusal) { .limit = limits[i], .reason = reason };
        }
        trial_shuffle(p, np, seed);
        *ret = p;
        *ret_n = np;
        *ret_refusals = rf;
        *ret_n_refusals = nr;
        return 0;
fail:
        for (size_t i = 0; i < nr; i++)
                free(rf[i].reason);
        free(rf);
        free(p);
        return r;
}

/* --- --find-floor --------------------------------------------------------------------------- */

static const struct {
        unsigned num, den;
} fractions[] = TRIAL_FLOOR_FRACTIONS;

static uint64_t round_up_mib(uint64_t v) {
        return (v + MiB - 1) / MiB * MiB;
}

static void set_resolution(TrialFloor *f) {
        uint64_t r = f->hi / 32;
        if (r < TRIAL_FLOOR_RESOLUTION)
                r = TRIAL_FLOOR_RESOLUTION;
        f->resolution = round_up_mib(r);
}

int trial_floor_init(TrialFloor *f, uint64_t mem_total, uint64_t lower, uint64_t upper) {
        if (mem_total == 0)
                return -EINVAL;
        if (lower == 0)
                lower = TRIAL_FLOOR_LOWER;
        if (upper && lower >= upper)
                return -EINVAL;
        *f = (TrialFloor) {
                .mem_total = mem_total,
                .lower = lower,
                .lo = lower,
                .hi = upper,
                .floor_no_swap = TRIAL_MISSING,
                .floor_swap = TRIAL_MISSING,
        };
        if (upper) {
                f->upper = upper;
                f->phase = TRIAL_FLOOR_UPPER;
                f->upper_source = "--limits";
                set_resolution(f);
        } else
                f->phase = TRIAL_FLOOR_PROBE;
        return 0;
}

static int end_with(TrialFloor *f, const char *reason) {
        f->phase = TRIAL_FLOOR_DONE;
        if (reason && !f->end_reason) {
                f->end_reason = strdup(reason);
                if (!f->end_reason)
                        return -ENOMEM;
        }
        return 0;
}

static uint64_t swap_point(const TrialFloor *f) {
        return f->floor_no_swap / fractions[f->fraction].den * fractions[f->fraction].num / MiB * MiB;
}

int trial_floor_next(TrialFloor *f, TrialPoint *ret) {
        switch (f->phase) {
        case TRIAL_FLOOR_PROBE:
                f->current = (TrialPoint) { .limit = TRIAL_MISSING };
                break;
        case TRIAL_FLOOR_UPPER:
                f->current = (TrialPoint) { .limit = f->hi };
                break;
        case TRIAL_FLOOR_UPPER_MEMTOTAL:
                f->current = (TrialPoint) { .limit = f->hi };
                break;
        case TRIAL_FLOOR_BISECT:
                if (f->hi - f->lo <= f->resolution) {
                        f->floor_no_swap = f->hi;
                        f->phase = TRIAL_FLOOR_SWAP;
                        f->fraction = 0;
                        return trial_floor_next(f, ret);
                }
                f->current = (TrialPoint) { .limit = (f->lo + (f->hi - f->lo) / 2) / MiB * MiB };
                if (f->current.limit <= f->lo)
                        f->current.limit = f->lo + MiB;
                break;
        case TRIAL_FLOOR_SWAP:
                if (f->fraction >= ELEMENTSOF(fractions) || swap_point(f) < f->lower ||
                    swap_point(f) <= TRIAL_REQUEST_BELOW_LIMIT) {
                        f->phase = TRIAL_FLOOR_DONE;
                        return 0;
                }
                f->current = (TrialPoint) { .limit = swap_point(f), .swap = true };
                break;
        case TRIAL_FLOOR_DONE:
                return 0;
        }
        *ret = f->current;
        return 1;
}

int trial_floor_feed(TrialFloor *f, bool all_ok, uint64_t peak) {
        switch (f->phase) {
        case TRIAL_FLOOR_PROBE:
                f->probed = true;
                if (!all_ok)
                        return end_with(f, "the run without a limit did not finish: no limit makes it finish");
                if (peak == TRIAL_MISSING || peak == 0) {
                        f->hi = f->mem_total;
                        f->upper_source = "MemTotal";
                } else {
                        f->hi = round_up_mib(peak);
                        f->upper_source = "peak";
                        if (f->hi > f->mem_total) {
                                f->hi = f->mem_total;
                                f->upper_source = "MemTotal";
                        }
                }
                f->upper = f->hi;
                if (f->hi <= f->lo)
                        return end_with(f, "the upper bound is not above the lower bound");
                set_resolution(f);
                /* A known-good MemTotal needs no second run. */
                f->phase = streq(f->upper_source, "MemTotal") ? TRIAL_FLOOR_BISECT : TRIAL_FLOOR_UPPER;
                return 0;
        case TRIAL_FLOOR_UPPER:
                if (all_ok) {
                        f->phase = TRIAL_FLOOR_BISECT;
                        return 0;
                }
                f->lo = f->hi;
                f->hi = f->mem_total;
                if (f->hi <= f->lo)
                        return end_with(f, "the upper bound (MemTotal) did not finish without swap");
                f->upper_source = "MemTotal";
                f->upper = f->hi;
                set_resolution(f);
                /* After the run without a limit, MemTotal is known to finish; after --limits it
                 * is not, and runs first. */
                f->phase = f->probed ? TRIAL_FLOOR_BISECT : TRIAL_FLOOR_UPPER_MEMTOTAL;
                return 0;
        case TRIAL_FLOOR_UPPER_MEMTOTAL:
                if (!all_ok)
                        return end_with(f, "it did not finish without swap even at MemTotal");
                f->phase = TRIAL_FLOOR_BISECT;
                return 0;
        case TRIAL_FLOOR_BISECT:
                if (all_ok)
                        f->hi = f->current.limit;
                else
                        f->lo = f->current.limit;
                return 0;
        case TRIAL_FLOOR_SWAP:
                if (!all_ok) {
                        f->phase = TRIAL_FLOOR_DONE;
                        return 0;
                }
                f->floor_swap = f->current.limit;
                f->fraction++;
                return 0;
        case TRIAL_FLOOR_DONE:
                break;
        }
        return -EINVAL;
}

int trial_floor_swap_refused(TrialFloor *f, const char *reason) {
        if (f->phase != TRIAL_FLOOR_SWAP)
                return -EINVAL;
        return end_with(f, reason);
}

void trial_floor_done(TrialFloor *f) {
        free(f->end_reason);
        f->end_reason = NULL;
}

/* --- The verdict ---------------------------------------------------------------------------- */

static bool group_is(const TrialGroup *g, const TrialRun *r) {
        return g->limit == r->limit && g->swap == r->swap;
}

/* Highest limit first (no limit highest), the no-swap group before the swap group. */
static int group_cmp(const void *a, const void *b) {
        const TrialGroup *x = a, *y = b;
        if (x->limit != y->limit)
                return x->limit > y->limit ? -1 : 1;
        return (int) x->swap - (int) y->swap;
}

int trial_verdict(const TrialRecord *t, TrialVerdict *ret) {
        TrialVerdict v = {
                .floor_no_swap = TRIAL_MISSING,
                .floor_swap = TRIAL_MISSING,
                .roomiest_wall_usec = TRIAL_MISSING,
        };
        v.groups = calloc(t->n_runs ?: 1, sizeof *v.groups);
        if (!v.groups)
                return -ENOMEM;

        /* the roomiest ok run: the highest limit, without swap before with */
        const TrialRun *roomiest = NULL, *base = NULL;
        for (size_t i = 0; i < t->n_runs; i++) {
                const TrialRun *r = &t->runs[i];
                if (r->result != TRIAL_RESULT_OK || r->wall_usec == TRIAL_MISSING)
                        continue;
                if (!roomiest || r->limit > roomiest->limit || (r->limit == roomiest->limit && !r->swap && roomiest->swap))
                        roomiest = r;
                if (!r->swap && (!base || r->limit > base->limit))
                        base = r;
        }
        if (roomiest)
                v.roomiest_wall_usec = roomiest->wall_usec;
        double base_cpu = NAN;
        if (base && base->cpu_user_usec != TRIAL_MISSING && base->cpu_system_usec != TRIAL_MISSING)
                base_cpu = (double) (base->cpu_user_usec + base->cpu_system_usec) / 1e6;

        for (size_t i = 0; i < t->n_runs; i++) {
                const TrialRun *r = &t->runs[i];
                size_t g;
                for (g = 0; g < v.n_groups; g++)
                        if (group_is(&v.groups[g], r))
                                break;
                if (g == v.n_groups)
                        v.groups[v.n_groups++] = (TrialGroup) { .limit = r->limit, .swap = r->swap, .swap_max = r->swap_max };
        }
        qsort(v.groups, v.n_groups, sizeof *v.groups, group_cmp);

        for (size_t g = 0; g < v.n_groups; g++) {
                TrialGroup *G = &v.groups[g];
                double wall = 0, out = 0, written = 0;
                double ok_cpu = 0, ok_out = 0;  /* over the ok runs: a run cut short costs less */
                unsigned n_wall = 0, n_out = 0, n_written = 0, n_ok_both = 0;
                G->zram_ram_peak = TRIAL_MISSING;
                for (size_t i = 0; i < t->n_runs; i++) {
                        const TrialRun *r = &t->runs[i];
                        if (!group_is(G, r))
                                continue;
                        G->runs++;
                        if (r->result != TRIAL_RESULT_OK && G->result == TRIAL_RESULT_OK)
                                G->result = r->result;
                        if (r->result == TRIAL_RESULT_OK) {
                                G->ok++;
                                if (r->wall_usec != TRIAL_MISSING) {
                                        wall += (double) r->wall_usec;
                                        n_wall++;
                                }
                        }
                        if (r->result == TRIAL_RESULT_OK && r->cpu_user_usec != TRIAL_MISSING &&
                            r->cpu_system_usec != TRIAL_MISSING && r->swapped_out != TRIAL_MISSING) {
                                ok_cpu += (double) (r->cpu_user_usec + r->cpu_system_usec) / 1e6;
                                ok_out += (double) r->swapped_out;
                                n_ok_both++;
                        }
                        if (r->swapped_out != TRIAL_MISSING) {
                                out += (double) r->swapped_out;
                                n_out++;
                        }
                        if (r->disk_written != TRIAL_MISSING) {
                                written += (double) r->disk_written;
                                n_written++;
                        }
                        if (r->zram_ram_peak != TRIAL_MISSING &&
                            (G->zram_ram_peak == TRIAL_MISSING || r->zram_ram_peak > G->zram_ram_peak))
                                G->zram_ram_peak = r->zram_ram_peak;
                }
                G->wall_usec = n_wall ? (uint64_t) (wall / n_wall) : TRIAL_MISSING;
                G->slowdown = n_wall && v.roomiest_wall_usec != TRIAL_MISSING && v.roomiest_wall_usec > 0
                                      ? wall / n_wall / (double) v.roomiest_wall_usec
                                      : NAN;
                G->disk_written_per_run = n_written ? (uint64_t) (written / n_written) : TRIAL_MISSING;
                G->swapped_out = n_out ? (uint64_t) (out / n_out) : TRIAL_MISSING;
                G->runs_per_drive_life = t->drive_tbw > 0 && n_written && G->disk_written_per_run > 0
                                                 ? t->drive_tbw * 1e12 / (double) G->disk_written_per_run
                                                 : NAN;
                /* The CPU a GiB swapped out cost: the ok runs' CPU above the roomiest ok run
                 * without swap, over the GiB they swapped out; unknown (never negative) when no ok
                 * run swapped or their CPU is not above the baseline's. */
                G->cpu_s_per_gib_out = NAN;
                if (n_ok_both && ok_out > 0 && !isnan(base_cpu) && ok_cpu / n_ok_both > base_cpu)
                        G->cpu_s_per_gib_out = (ok_cpu / n_ok_both - base_cpu) / (ok_out / n_ok_both / (double) GiB);
                /* A floor: the smallest limit whose runs all finished. */
                if (G->runs > 0 && G->ok == G->runs && G->limit != TRIAL_MISSING) {
                        uint64_t *floor = G->swap ? &v.floor_swap : &v.floor_no_swap;
                        if (*floor == TRIAL_MISSING || G->limit < *floor)
                                *floor = G->limit;
                }
        }
        /* The search's own floors where it ran (a smaller limit that finished once, below one that
         * did not, is no floor). */
        if (t->find_floor) {
                v.floor_no_swap = t->search_floor_no_swap;
                v.floor_swap = t->search_floor_swap;
        }
        *ret = v;
        return 0;
}
