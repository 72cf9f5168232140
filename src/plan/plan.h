/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include "probe/host.h"
#include "plan/features.h"
#include "plan/verdict.h"

/* Every kind of action, in one list: its enum suffix, its name in C (the payload member of
 * Action, and the stem of the functions execute/ and report/ give each kind) and its name in ids
 * and JSON. execute/execute.c and report/report.c build their tables from this list, so a kind
 * added here without its functions there does not compile. */
#define FOREACH_ACTION_KIND(X)                                                                     \
        X(MASK_UNIT, mask_unit, "mask-unit")                                                       \
        X(STOP_UNIT, stop_unit, "stop-unit")                                                       \
        X(ZRAM_CREATE, zram_create, "zram-create")                                                 \
        X(FILE_CREATE, file_create, "file-create")                                                 \
        X(FILE_MKSWAP, file_mkswap, "file-mkswap")                                                 \
        X(SWAPON, swapon, "swapon")                                                                \
        X(SWAPOFF, swapoff, "swapoff")                                                             \
        X(ZRAM_REMOVE, zram_remove, "zram-remove")                                                 \
        X(FILE_REMOVE, file_remove, "file-remove")                                                 \
        X(SYSCTL, sysctl, "sysctl")                                                                \
        X(ZSWAP_SET, zswap_set, "zswap-set")                                                       \
        X(DROPIN_WRITE, dropin_write, "dropin-write")                                              \
        X(DROPIN_REMOVE, dropin_remove, "dropin-remove")                                           \
        X(RESTART_UNIT, restart_unit, "restart-unit")                                              \
        X(UNMASK_UNIT, unmask_unit, "unmask-unit")                                                 \
        X(START_UNIT, start_unit, "start-unit")                                                    \
        X(MARK_REVERTED, mark_reverted, "mark-reverted")                                           \
        X(CLEAR_REVERTED, clear_reverted, "clear-reverted")                                        \
        X(UNIT_SWAP_MAX, unit_swap_max, "unit-swap-max")                                           \
        X(IO_LATENCY, io_latency, "io-latency")                                                    \
        X(FEATURES_WRITE, features_write, "features-write")                                        \
        X(FEATURES_REMOVE, features_remove, "features-remove")

typedef enum ActionKind {
#define ACTION_KIND_ENUM(K, name, string) ACTION_##K,
        FOREACH_ACTION_KIND(ACTION_KIND_ENUM)
#undef ACTION_KIND_ENUM
        _ACTION_KIND_MAX,
} ActionKind;
const char *action_kind_to_string(ActionKind k);

/* Which unit a start or stop is for: a conflict unit (its stop is recorded, revert starts it
 * again) or nodeswap's own writeback timer (never recorded). */
typedef enum ActionUnit {
        ACTION_UNIT_CONFLICT,
        ACTION_UNIT_WRITEBACK_TIMER,
} ActionUnit;

/* The sysctls nodeswap sets; the action's target is the name ("vm.swappiness"). */
typedef enum PlanSysctl {
        PLAN_SYSCTL_SWAPPINESS,
        PLAN_SYSCTL_PAGE_CLUSTER,
        PLAN_SYSCTL_MIN_FREE_KBYTES,
        PLAN_SYSCTL_WATERMARK_SCALE_FACTOR,
        _PLAN_SYSCTL_MAX,
} PlanSysctl;

/* Which file a file-remove deletes, and so how it is checked before: the policy's swap file, a
 * swap file only the state names as nodeswap's (it must still carry nodeswap's label), or a
 * [Zram] Writeback= file nodeswap made (no swap header). */
typedef enum ActionFileRole {
        ACTION_FILE_POLICY_SWAP_FILE,
        ACTION_FILE_RECORDED_SWAP_FILE,
        ACTION_FILE_WRITEBACK,
} ActionFileRole;

/* The parameters each kind carries for execute, one struct per kind (kinds without any have
 * none): the member of Action's union named like the kind. */
typedef struct ActionStopUnit {
        ActionUnit unit;
        uint64_t used;          /* bytes in use on the swap the stop takes off */
} ActionStopUnit;
typedef struct ActionZramCreate {
        uint64_t size;          /* disksize, bytes */
        uint64_t mem_limit;
        int priority;
        char *algorithm;        /* NULL: the first of the policy's the kernel offers, chosen by execute */
} ActionZramCreate;
typedef struct ActionFileCreate {
        uint64_t size;          /* bytes */
        int priority;
        bool encrypt;           /* an encrypted swap file ([File] Encrypt=), swapped on through its mapping */
} ActionFileCreate;
typedef struct ActionFileMkswap {
        uint64_t size;          /* the file's size the header covers */
} ActionFileMkswap;
typedef struct ActionSwapon {
        int priority;
        bool policy_file;       /* the policy's swap file: swapped on with [File] Discard= */
        bool encrypted;         /* an encrypted swap file: its mapping is made with a new key first */
} ActionSwapon;
typedef struct ActionSwapoff {
        uint64_t used;          /* bytes in use on the area */
        bool encrypted;         /* an encrypted swap file (target is the file): its mapping goes too */
} ActionSwapoff;
typedef struct ActionZramRemove {
        int zram_id;
} ActionZramRemove;
typedef struct ActionFileRemove {
        ActionFileRole role;
        bool overwrite;         /* a swap file that held pages in clear, removed under Encrypt=yes: its
                                 * blocks are overwritten before the unlink */
} ActionFileRemove;
typedef struct ActionSysctl {
        PlanSysctl name;
        int value;
} ActionSysctl;
typedef struct ActionZswapSet {
        ZswapParam param;
        char *value;            /* the bytes to write */
        bool restore;           /* writes back the value saved before nodeswap (then forgotten) */
} ActionZswapSet;
typedef struct ActionDropinWrite {
        char *content;          /* the drop-in's whole text */
} ActionDropinWrite;
typedef struct ActionFeaturesWrite {
        FeatureInput in;        /* the labels (plan/features.h); execute renders the file from them */
} ActionFeaturesWrite;
typedef struct ActionStartUnit {
        ActionUnit unit;
} ActionStartUnit;
/* [Kubelet] NoSwapUnits= (plan/noswap.c): keep a unit out of swap, or stop doing so. */
typedef struct ActionUnitSwapMax {
        bool restore;           /* false: MemorySwapMax=0 (SetUnitProperties, runtime), recorded in the
                                 * state first; true: nodeswap's setting taken away (a daemon-reload
                                 * after removing its control drop-in) and forgotten */
        bool remove_control;    /* restore: the control drop-in is nodeswap's (recorded) and there */
} ActionUnitSwapMax;

/* [Kubelet] IOLatencyTargetSec= (plan/iolatency.c): system.slice's io.latency target on one disk,
 * set or taken away; the action's target is IO_LATENCY_SLICE. */
typedef struct ActionIoLatency {
        unsigned major, minor;  /* the whole disk */
        uint64_t usec;          /* the target; restore: the one recorded */
        bool restore;           /* false: IODeviceLatencyTargetUSec=(/dev/block/MAJ:MIN, usec) with
                                 * SetUnitProperties (runtime), recorded in the state first; true: the
                                 * target set to infinity (the kernel's "target=max" removes it), the
                                 * record forgotten, nodeswap's control drop-in removed, systemd reloaded */
} ActionIoLatency;

typedef struct Action {
        ActionKind kind;
        char *target;           /* unit, device or file path, sysctl name ("vm.swappiness") */
        char *now;              /* human readable current value, NULL = absent */
        char *want;             /* human readable wanted value, NULL = absent */
        char *reason;           /* why, in words */

        /* The parameters for execute: the member named like kind (FOREACH_ACTION_KIND). */
        union {
                ActionStopUnit stop_unit;
                ActionZramCreate zram_create;
                ActionFileCreate file_create;
                ActionFileMkswap file_mkswap;
                ActionSwapon swapon;
                ActionSwapoff swapoff;
                ActionZramRemove zram_remove;
                ActionFileRemove file_remove;
                ActionSysctl sysctl;
                ActionZswapSet zswap_set;
                ActionDropinWrite dropin_write;
                ActionStartUnit start_unit;
                ActionUnitSwapMax unit_swap_max;
                ActionIoLatency io_latency;
                ActionFeaturesWrite features_write;
        };
} Action;

typedef struct Plan {
        Action *actions;
        size_t n_actions;
        Findings findings;      /* errors stop apply (the plan is still shown); warnings do not */
        bool revert;            /* planned as a revert (PlanOptions.revert), whatever its actions */
        uint64_t swap_total_now, swap_total_after;
} Plan;

typedef struct PlanOptions {
        bool revert;            /* plan against the built-in NoSwap policy */
        bool purge;             /* revert: also delete the swap file */
        bool boot;              /* apply --boot: never restart the kubelet */
        bool force;             /* swapoff even when the pages may not fit */
} PlanOptions;

/* A pure function of (policy, host, options): no I/O. */
int plan(const Policy *policy, const HostState *host, const PlanOptions *opts, Plan *ret);
void plan_done(Plan *p);
static inline bool plan_changes(const Plan *p) {
        return p->n_actions > 0;
}
static inline size_t plan_errors(const Plan *p) {
        return findings_count(&p->findings, SEVERITY_ERROR);
}
