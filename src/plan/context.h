/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* What the parts of plan() share, and nothing outside plan/ includes: the context every planner
 * gets (the policy, the host, the options, the plan so far, which swap areas stay), the one way to
 * add an action or a finding, and the planners each file of plan/ contributes. plan.c calls them
 * in the order apply carries actions out; a backend is one file with up to three of them and a
 * row in plan.c's backend table (ARCHITECTURE.md, "How to add a backend"). */

#include <inttypes.h>

#include "plan/plan.h"

/* A byte count in words, for now/want/reason texts: a temporary that lives to the end of the
 * full expression it is in. */
#define B(x) format_bytes((char[FORMAT_BYTES_MAX]) {}, FORMAT_BYTES_MAX, (x))

/* What becomes of each swap area of h->swaps. */
enum {
        KEEP_UNDECIDED = 0,
        KEEP_ON,                /* stays on after the plan */
        KEEP_REPLACED,          /* replaced in place by another action (a resized swap file) */
};

typedef struct PlanContext {
        const Policy *p;
        const HostState *h;
        const PlanOptions *o;
        Plan *plan;
        uint8_t *keep;          /* per h->swaps: KEEP_* */
        uint64_t new_swap;      /* usable bytes of swap areas the plan brings up */
} PlanContext;

/* Usable size of a swap area of `size` bytes: the first page holds the header. */
static inline uint64_t swap_usable(uint64_t size, uint64_t page_size) {
        return size > page_size ? size - page_size : 0;
}

/* Appends an action to the plan (target/now/want/reason copied; the kind's payload zeroed for the
 * caller to fill). NULL on ENOMEM. */
Action *plan_add(Plan *p, ActionKind kind, const char *target, const char *now, const char *want,
                 const char *reason);

/* A finding of the plan (verdict.h): the policy key behind it (-1: none) and its value as written,
 * a hint (taken over, may be NULL) and the message. */
int plan_find(Plan *pl, Verdict v, const Policy *p, int key, const char *value, char *hint, const char *fmt, ...)
        _printf_(7, 8);

/* The index of the plan's action of kind for target, or -1. */
int plan_find_action(const Plan *p, ActionKind kind, const char *target);
