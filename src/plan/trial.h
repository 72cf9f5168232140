/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include "probe/trial.h"

/* nodeswap trial's decisions (pure: no I/O, no clock; the seed comes from the caller): the swap a
 * run gets, the order of the runs, the floor search, the verdict. */

/* The swap a Burstable container whose memory request is 1 MiB below limit gets under LimitedSwap
 * on a node with mem_total and swap_total: allowance_compute() (the kubelet's
 * calcSwapForBurstablePods). A limit of 1 MiB or less has no such request: 0. */
#define TRIAL_REQUEST_BELOW_LIMIT MiB
int trial_allowance(uint64_t mem_total, uint64_t swap_total, uint64_t limit, uint64_t *ret_swap);

/* Whether a swap run at limit may go ahead on this node, and with which MemorySwapMax=: refused
 * (false, *ret_reason a sentence naming the numbers) on a node without swap, when the allowance
 * is 0, or when it exceeds SwapFree. ret_reason NULL on success; -ENOMEM. */
int trial_swap_decide(const TrialNode *n, uint64_t limit, bool *ret_allowed, uint64_t *ret_swap_max,
                      char **ret_reason);

typedef struct TrialPoint {
        uint64_t limit;                 /* TRIAL_MISSING: no limit */
        bool swap;
        uint64_t swap_max;
} TrialPoint;

/* Fisher-Yates with splitmix64 seeded by seed: the same seed, the same order. */
void trial_shuffle(TrialPoint *p, size_t n, uint64_t seed);

/* --limits: each limit without swap, and with swap where trial_swap_decide() allows it, each
 * `runs` times, shuffled with seed. Refused swap runs go to *ret_refusals (one per limit). */
int trial_points_for_limits(const TrialNode *n, const uint64_t *limits, size_t n_limits, unsigned runs,
                            uint64_t seed, TrialPoint **ret, size_t *ret_n, TrialRefusal **ret_refusals,
                            size_t *ret_n_refusals);

/* --- --find-floor ------------------------------------------------------------------------------
 *
 * A state machine fed with outcomes (no processes): trial_floor_next() says which point to run
 * next, the caller runs it `runs` times (stopping at the first run that does not finish ok) and
 * feeds back whether all finished ok (and the highest peak of them) with trial_floor_feed().
 *
 *   1. Without bounds from --limits, the first point is a run without limit (and without swap):
 *      its peak memory, rounded up to the resolution and at most MemTotal, is the upper bound
 *      ("peak"); when it does not finish, the search ends without a floor. With --limits LO,HI,
 *      HI is the upper bound ("--limits"); the default lower bound is TRIAL_FLOOR_LOWER.
 *   2. The upper bound is run without swap; if it does not finish, MemTotal becomes the upper
 *      bound (known to finish from step 1; with --limits, it is run).
 *   3. Bisection without swap: mid = (lo + hi) / 2 rounded down to 1 MiB, while hi - lo is more
 *      than the resolution, max(TRIAL_FLOOR_RESOLUTION, upper bound / 32) rounded up to 1 MiB;
 *      ok: hi = mid, else lo = mid. The floor without swap is hi.
 *   4. With swap (when the node allows it at that limit): at TRIAL_FLOOR_FRACTIONS of the floor,
 *      in order, until a point does not finish or falls below the lower bound; the floor with swap
 *      is the last that finished. */
#define TRIAL_FLOOR_LOWER (16 * MiB)
#define TRIAL_FLOOR_RESOLUTION (4 * MiB)
/* 3/4, 5/8, 1/2, 3/8, 1/4, 3/16, 1/8 (the published experiment ran 3/4, 5/9 and 1/2 of its floor) */
#define TRIAL_FLOOR_FRACTIONS { { 3, 4 }, { 5, 8 }, { 1, 2 }, { 3, 8 }, { 1, 4 }, { 3, 16 }, { 1, 8 } }

typedef enum TrialFloorPhase {
        TRIAL_FLOOR_PROBE,              /* the run without limit */
        TRIAL_FLOOR_UPPER,              /* the upper bound */
        TRIAL_FLOOR_UPPER_MEMTOTAL,     /* MemTotal, after the upper bound did not finish (--limits) */
        TRIAL_FLOOR_BISECT,
        TRIAL_FLOOR_SWAP,
        TRIAL_FLOOR_DONE,
} TrialFloorPhase;

typedef struct TrialFloor {
        TrialFloorPhase phase;
        uint64_t mem_total;
        uint64_t lower;                 /* the lower bound: no point below it */
        uint64_t upper;                 /* the upper bound, once known (0 before) */
        uint64_t lo, hi, resolution;
        const char *upper_source;       /* "peak", "MemTotal", "--limits" */
        uint64_t floor_no_swap, floor_swap;     /* TRIAL_MISSING until found */
        size_t fraction;                /* the next of TRIAL_FLOOR_FRACTIONS */
        bool probed;                    /* the run without a limit finished: MemTotal finishes */
        TrialPoint current;
        char *end_reason;               /* why it ended without a floor; NULL */
} TrialFloor;

/* lower/upper: the bounds from --limits (upper 0: none). -EINVAL for lower >= upper. */
int trial_floor_init(TrialFloor *f, uint64_t mem_total, uint64_t lower, uint64_t upper);
/* 1 and *ret: the next point to run (its swap_max 0; for a swap point the caller fills it from
 * trial_swap_decide() and, when refused, feeds trial_floor_swap_refused()); 0: done. */
int trial_floor_next(TrialFloor *f, TrialPoint *ret);
/* The outcome of the current point: all its runs finished ok; peak the highest memory.peak
 * (TRIAL_MISSING: unknown). -EINVAL when there is no current point; -ENOMEM. */
int trial_floor_feed(TrialFloor *f, bool all_ok, uint64_t peak);
/* The node refused swap at the current swap point: the swap phase ends there. */
int trial_floor_swap_refused(TrialFloor *f, const char *reason);
void trial_floor_done(TrialFloor *f);

/* --- The verdict ------------------------------------------------------------------------------- */
/* From the record's runs (and drive_tbw): the floors, the roomiest ok run, and one group per limit
 * × swap. With --limits a floor is the smallest limit whose runs all finished; in find-floor mode
 * it is the search's (search_floor_*: a limit that finished below one that did not is no floor).
 * -ENOMEM. */
int trial_verdict(const TrialRecord *t, TrialVerdict *ret);
