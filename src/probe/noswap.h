/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* [Kubelet] NoSwapUnits=: the units nodeswap keeps out of swap (MemorySwapMax=0) on a node whose
 * pods get swap, and what the node says of each: who set MemorySwapMax= where, and the cgroup's
 * memory.swap.max.
 *
 * Kubernetes' advice (KEP-2400 "Best practices", the "Swap memory management" page of the docs)
 * is to keep the kubelet and the container runtime out of swap so that a node under memory
 * pressure still answers; on k3s both run in k3s-agent.service.
 *
 * How nodeswap sets it, from systemd's source (src/core/dbus-cgroup.c, bus_cgroup_set_property()
 * for "MemorySwapMax", and src/core/unit.c, unit_write_setting(), which names the file with
 * src/shared/dropin.c's drop_in_file() at level 50): Manager.SetUnitProperties(unit, runtime=true,
 * MemorySwapMax=0) applies the value to the unit's cgroup at once (the unit's cgroup is invalidated
 * and realized again) and writes NO_SWAP_CONTROL_DIR/UNIT.d/NO_SWAP_CONTROL_DROPIN
 * ("[Service]\nMemorySwapMax=0"), gone at the next boot with /run. For the boot, the generator
 * writes NO_SWAP_GENERATOR_DIR/UNIT.d/NO_SWAP_GENERATOR_DROPIN (systemd.generator(7): the normal
 * directory; systemd.unit(5): every UNIT.d/\*.conf of every unit directory is read), so the value
 * holds before the unit first starts. On cgroup v1 systemd has no memory.swap.max to write
 * (systemd.resource-control(5): MemorySwapMax= is unified-hierarchy only). */

#include "probe/state.h"
#include "policy/policy.h"

#define NO_SWAP_CONTROL_DIR "/run/systemd/system.control"
#define NO_SWAP_CONTROL_DROPIN "50-MemorySwapMax.conf"
#define NO_SWAP_GENERATOR_DIR "/run/systemd/generator"
#define NO_SWAP_GENERATOR_DROPIN "50-nodeswap-no-swap.conf"

/* memory.swap.max's "max". */
#define NO_SWAP_MAX UINT64_MAX

typedef struct NoSwapUnit {
        char *name;
        bool listed;            /* in the policy's NoSwapUnits= ("kubelet" resolved) */
        bool kubelet;           /* the kubelet's unit (probed whatever the list says: check judges it) */
        bool recorded;          /* no_swap_unit= in nodeswap's state: the control drop-in is nodeswap's */
        bool control_dropin;    /* NO_SWAP_CONTROL_DIR/UNIT.d/NO_SWAP_CONTROL_DROPIN exists */
        bool control_zero;      /* ... and says MemorySwapMax=0 */
        bool generator_dropin;  /* the generator's drop-in exists (this boot's generator run) */
        char *operator_where;   /* "PATH:LINE" of the MemorySwapMax= that counts among the unit's own
                                 * files and drop-ins (nodeswap's left out), NULL: none */
        char *operator_value;   /* its value as written */
        char *cgroup;           /* below /sys/fs/cgroup: systemd's ControlGroup, or where systemd puts
                                 * the unit by default (system.slice/UNIT; a slice's parents) */
        int cgroup_read;        /* 1: memory.swap.max read, 0: no such file (no cgroup: not running), -1 unreadable */
        uint64_t cgroup_swap_max; /* bytes, NO_SWAP_MAX for "max" */
        int loaded;             /* systemd's LoadState: 1 loaded, 0 not-found (SetUnitProperties
                                 * refuses such a unit), -1 unknown (systemd not asked) */
        bool property_known;    /* systemd was asked (probe_systemd()) */
        uint64_t property;      /* its MemorySwapMax property, NO_SWAP_MAX for infinity */
} NoSwapUnit;

/* The list with "kubelet" replaced by kubelet_unit (left out when NULL), without duplicates. */
int no_swap_units_resolve(char *const *list, const char *kubelet_unit, char ***ret);

/* Where the unit's own files set MemorySwapMax=, as systemd reads them: the unit file (the first
 * of the unit directories), then every UNIT.d/\*.conf of every unit directory in the order of their
 * file names (one name in two directories: the one of higher priority), the last assignment wins
 * and an empty one resets (systemd.unit(5)). nodeswap's generator drop-in is left out, and so is
 * the control drop-in when control_ours. 0 with *ret_where NULL when nothing sets it. */
int no_swap_operator_setting(const char *root, const char *unit, bool control_ours, char **ret_where,
                             char **ret_value);

/* Read memory.swap.max of u->cgroup below root into u. */
void no_swap_read_cgroup(const char *root, NoSwapUnit *u);

/* Probe every unit the policy lists (when it gives pods swap), every unit the state records and
 * the kubelet's unit. */
int no_swap_probe(const char *root, const Policy *p, const char *kubelet_unit, const NodeswapState *s,
                  NoSwapUnit **ret, size_t *ret_n);
void no_swap_units_free(NoSwapUnit *u, size_t n);
