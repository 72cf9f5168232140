/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "plan/density.h"

#include <math.h>

#include "plan/allowance.h"
#include "policy/size.h"

static const char *const gave_out_table[_DENSITY_GAVE_OUT_MAX] = {
        [DENSITY_HELD] = "held",
        [DENSITY_GAVE_OUT_OOM] = "oom",
        [DENSITY_GAVE_OUT_EXIT] = "exit",
        [DENSITY_GAVE_OUT_SETTLE] = "settle",
        [DENSITY_GAVE_OUT_SLOW] = "slow",
        [DENSITY_GAVE_OUT_STALL] = "stall",
};

const char *density_gave_out_to_string(DensityGaveOut g) {
        return g >= 0 && g < _DENSITY_GAVE_OUT_MAX ? gave_out_table[g] : NULL;
}

DensityGaveOut density_judge(const DensityOutcome *o, uint64_t lone_settle_usec) {
        if (o->oom > 0)
                return DENSITY_GAVE_OUT_OOM;
        if (o->failed > 0)
                return DENSITY_GAVE_OUT_EXIT;
        if (o->unsettled > 0)
                return DENSITY_GAVE_OUT_SETTLE;
        double share = o->replicas > (o->cpus ?: 1) ? (double) o->replicas / (double) (o->cpus ?: 1) : 1.0;
        uint64_t ref = lone_settle_usec > DENSITY_SETTLE_FLOOR_USEC ? lone_settle_usec : DENSITY_SETTLE_FLOOR_USEC;
        if (lone_settle_usec > 0 && (double) o->settle_max_usec > DENSITY_SLOWDOWN_MAX * share * (double) ref)
                return DENSITY_GAVE_OUT_SLOW;
        if (o->hold_usec > 0 && o->stall_full_usec != TRIAL_MISSING &&
            (double) o->stall_full_usec * 100.0 >= DENSITY_STALL_MAX * (double) o->hold_usec)
                return DENSITY_GAVE_OUT_STALL;
        return DENSITY_HELD;
}

int density_allowance(uint64_t mem_total, uint64_t swap_total, uint64_t page_size, uint64_t request,
                      uint64_t limit, uint64_t *ret_swap, const char **ret_reason) {
        if (mem_total == 0 || request > limit)
                return -EINVAL;
        /* a request of zero gets 0 from the formula itself */
        uint64_t swap;
        AllowanceReason why;
        int r = allowance_burstable(mem_total, swap_total, request, limit, &swap, &why);
        if (r < 0)
                return r;
        if (why != ALLOWANCE_GRANTED)
                swap = 0;
        if (page_size > 0)
                swap -= swap % page_size;
        *ret_swap = swap;
        if (ret_reason)
                *ret_reason = swap > 0 ? NULL
                              : request == 0 ? "a request of zero gets no swap"
                              : why != ALLOWANCE_GRANTED ? allowance_reason_to_string(why)
                                                         : "the allowance rounds down to less than a page";
        return 0;
}

unsigned density_predict(uint64_t mem_available, uint64_t swap_free, uint64_t footprint, uint64_t allowance,
                         uint64_t page_size, bool swap, unsigned max) {
        uint64_t n;
        if (footprint == 0)
                n = max;
        else if (!swap || allowance == 0)
                n = mem_available / footprint;
        else {
                uint64_t ram = footprint > allowance ? footprint - allowance : 0;
                if (ram < (page_size ?: 4096))
                        ram = page_size ?: 4096;
                uint64_t by_ram = mem_available / ram;
                uint64_t by_total = (mem_available + swap_free) / footprint;
                n = by_ram < by_total ? by_ram : by_total;
        }
        if (n < 1)
                n = 1;
        return n > max ? max : (unsigned) n;
}

void density_search_init(DensitySearch *s, unsigned start, unsigned max, unsigned around) {
        if (max < 1)
                max = 1;
        start = start < 1 ? 1 : start > max ? max : start;
        *s = (DensitySearch) { .start = start, .max = max, .around = around, .step = 1 };
}

static unsigned top(const DensitySearch *s) {
        if (s->around == 0 || s->start + s->around > s->max)
                return s->max;
        return s->start + s->around;
}

int density_search_next(DensitySearch *s, unsigned *ret) {
        unsigned n;
        if (s->done)
                return 0;
        if (s->held == 0 && s->failed == 0)
                n = s->start;
        else if (s->failed == 0) {
                /* only holds so far: up */
                if (s->held >= top(s)) {
                        s->at_least = true;
                        s->done = true;
                        return 0;
                }
                n = s->held + s->step < top(s) ? s->held + s->step : top(s);
                s->step *= 2;
        } else if (s->held == 0) {
                /* only failures so far: down (1 is the least; when it fails the search ends) */
                if (s->failed == 1) {
                        s->done = true;
                        return 0;
                }
                n = s->failed > s->step ? s->failed - s->step : 1;
                s->step *= 2;
        } else {
                if (s->failed - s->held <= 1) {
                        s->done = true;
                        return 0;
                }
                n = s->held + (s->failed - s->held) / 2;
        }
        s->current = n;
        *ret = n;
        return 1;
}

int density_search_feed(DensitySearch *s, bool held) {
        if (s->current == 0)
                return -EINVAL;
        unsigned n = s->current;
        s->current = 0;
        if (held) {
                if (n > s->held)
                        s->held = n;
        } else if (s->failed == 0 || n < s->failed)
                s->failed = n;
        /* a switch of direction restarts the gallop */
        if (s->held > 0 && s->failed > 0)
                s->step = 1;
        return 0;
}

int density_eviction_bytes(const char *threshold, uint64_t capacity, uint64_t *ret) {
        size_t l = threshold ? strlen(threshold) : 0;
        if (l == 0)
                return -EINVAL;
        if (threshold[l - 1] == '%') {
                /* pkg/kubelet/eviction/api GetThresholdQuantity: int64(float64(capacity) × percentage) */
                char *end;
                errno = 0;
                double p = strtod(threshold, &end);
                if (errno || end != threshold + l - 1 || !(p >= 0) || p > 100)
                        return -EINVAL;
                *ret = (uint64_t) ((double) capacity * (p / 100.0));
                return 0;
        }
        return quantity_parse(threshold, ret);
}

int density_scheduler(DensityScheduler *s, uint64_t request) {
        if (request == 0)
                return -EINVAL;
        uint64_t reserved = s->kube_reserved + s->system_reserved + s->eviction_hard;
        s->allocatable = s->capacity > reserved ? s->capacity - reserved : 0;
        uint64_t room = s->allocatable > s->requests_on_node ? s->allocatable - s->requests_on_node : 0;
        uint64_t by_mem = room / request;
        unsigned max_pods = s->max_pods ?: (unsigned) KUBELET_DEFAULT_MAX_PODS;
        unsigned by_pods = max_pods > s->pods_on_node ? max_pods - s->pods_on_node : 0;
        s->by_max_pods = by_pods < by_mem;
        s->admitted = s->by_max_pods ? by_pods : (unsigned) by_mem;
        return 0;
}

uint64_t density_request_for(const DensityScheduler *s, unsigned n) {
        unsigned max_pods = s->max_pods ?: (unsigned) KUBELET_DEFAULT_MAX_PODS;
        if (n == 0 || s->pods_on_node + n > max_pods || s->allocatable <= s->requests_on_node)
                return 0;
        uint64_t r = (s->allocatable - s->requests_on_node) / n;
        return r - r % MiB;
}
