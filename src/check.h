/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include "host.h"

/* nodeswap check: what is wrong or risky with this node's swap, from Policy and HostState alone
 * (pure, no I/O). Each finding has a stable id that scripts may match on; nodeswap(8) lists them. */

typedef enum Severity {
        SEVERITY_INFO,
        SEVERITY_WARNING,
        SEVERITY_ERROR,
        _SEVERITY_MAX,
} Severity;
const char *severity_to_string(Severity s);     /* "info", "warning", "error" */

typedef struct Finding {
        Severity severity;
        const char *id;         /* static, e.g. "cgroup-v1-limitedswap" */
        char *message;          /* what it means */
        char *hint;             /* what to do */
} Finding;

void findings_free(Finding *f, size_t n);

/* Every finding, in a fixed order (the order of the rules in check.c). *ret_n may be 0. */
int check_run(const Policy *p, const HostState *h, Finding **ret, size_t *ret_n);

/* The swapBehavior the rules look at: the policy's when it sets one (apply will write it),
 * else the kubelet's effective one (every file it reads, merged). */
SwapBehavior check_swap_behavior(const Policy *p, const HostState *h);
