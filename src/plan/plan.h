/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include "probe/host.h"
#include "plan/verdict.h"

typedef enum ActionKind {
        ACTION_MASK_UNIT,       /* runtime mask of a [Conflicts] unit (then daemon-reload) */
        ACTION_STOP_UNIT,       /* stop a masked conflict unit that is active, or nodeswap-writeback.timer */
        ACTION_ZRAM_CREATE,     /* algorithm, params, mem_limit, disksize, header, swapon */
        ACTION_FILE_CREATE,     /* new swap file, header, swapon */
        ACTION_FILE_MKSWAP,     /* rewrite the header of an existing file (page size, label, size) */
        ACTION_SWAPON,          /* an existing, correct swap area that is off */
        ACTION_SWAPOFF,         /* a swap area the policy no longer wants */
        ACTION_ZRAM_REMOVE,     /* reset + hot_remove of a zram device nodeswap created */
        ACTION_FILE_REMOVE,     /* delete nodeswap's swap file (revert --purge, resize) or its
                                 * zram writeback file */
        ACTION_SYSCTL,
        ACTION_ZSWAP_SET,       /* a zswap module parameter (plan/zswap.c) */
        ACTION_DROPIN_WRITE,
        ACTION_DROPIN_REMOVE,
        ACTION_RESTART_UNIT,    /* the kubelet unit */
        ACTION_UNMASK_UNIT,     /* revert */
        ACTION_START_UNIT,      /* revert: the distro's swap units nodeswap stopped; apply:
                                 * nodeswap-writeback.timer */
        ACTION_MARK_REVERTED,
        ACTION_CLEAR_REVERTED,
        _ACTION_KIND_MAX,
} ActionKind;
const char *action_kind_to_string(ActionKind k);

typedef struct Action {
        ActionKind kind;
        char *target;           /* unit, device or file path, sysctl name ("vm.swappiness") */
        char *now;              /* human readable current value, NULL = absent */
        char *want;             /* human readable wanted value, NULL = absent */
        char *reason;           /* why, in words */

        /* parameters for execute */
        uint64_t size;          /* ZRAM_CREATE, FILE_CREATE: bytes */
        uint64_t mem_limit;     /* ZRAM_CREATE */
        uint64_t used;          /* SWAPOFF: bytes in use on the device */
        int priority;           /* ZRAM_CREATE, FILE_CREATE, SWAPON */
        int zram_id;            /* ZRAM_REMOVE, SWAPOFF of a zram device; -1 otherwise */
        int value;              /* SYSCTL; ZSWAP_SET: 1 when it writes back the value saved before
                                 * nodeswap (then forgotten), 0 when the policy's; FILE_REMOVE: 1 for
                                 * a [Zram] Writeback= file (no swap header), 0 for a swap file */
        char *algorithm;        /* ZRAM_CREATE */
        char *content;          /* DROPIN_WRITE; ZSWAP_SET: the value to write */
} Action;

typedef struct Plan {
        Action *actions;
        size_t n_actions;
        Findings findings;      /* errors stop apply (the plan is still shown); warnings do not */
        uint64_t swap_total_now, swap_total_after;
} Plan;

typedef struct PlanOptions {
        bool revert;            /* plan against the built-in NoSwap policy */
        bool purge;             /* revert: also delete the swap file */
        bool boot;              /* apply --boot: never restart the kubelet */
        bool force;             /* swapoff even when the pages may not fit */
} PlanOptions;

/* Appends an action to p (target/now/want/reason copied), for the planners outside plan.c
 * (plan/zswap.c). NULL on ENOMEM. */
Action *plan_append(Plan *p, ActionKind kind, const char *target, const char *now, const char *want,
                    const char *reason);

/* A pure function of (policy, host, options): no I/O. */
int plan(const Policy *policy, const HostState *host, const PlanOptions *opts, Plan *ret);
void plan_done(Plan *p);
static inline bool plan_changes(const Plan *p) {
        return p->n_actions > 0;
}
static inline size_t plan_errors(const Plan *p) {
        return findings_count(&p->findings, SEVERITY_ERROR);
}
