/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include "policy/policy.h"

/* nodeswap's labels for node-feature-discovery: the facts the scheduler cannot see (swap is no
 * resource and no node condition), written to NFD's local feature file (probe/features.h), which
 * nfd-worker turns into node labels.
 *
 * NFD's rules for the file (kubernetes-sigs/node-feature-discovery docs/usage/customization-guide.md,
 * "Feature files"; source/local/local.go): one "name[=value]" per line (no value: "true"), "#"
 * starts a comment, "# +" a directive (expiry-time, no-label, no-feature: nodeswap writes none),
 * the whole file at most 64 KiB. A name is a label name, "namespace/name"; the kubernetes.io
 * namespaces are refused except feature.node.kubernetes.io and profile.node.kubernetes.io, which
 * NFD allows by default (nfd-master's -extra-label-ns adds more). A value follows Kubernetes'
 * label-value rules (k8s.io/apimachinery pkg/util/validation IsValidLabelValue(): at most 63
 * characters of [A-Za-z0-9._-], alphanumeric at both ends, or empty), so "zram+file" is refused
 * and nodeswap writes "zram-file".
 *
 * One row per label in features.c: adding a label is an enum value and a row there. */
#define NODESWAP_LABEL_PREFIX "feature.node.kubernetes.io/nodeswap-"
#define LABEL_VALUE_MAX 63

typedef enum FeatureLabel {
        FEATURE_LABEL_SWAP_BEHAVIOR,    /* the kubelet's effective swapBehavior: LimitedSwap | NoSwap */
        FEATURE_LABEL_BACKEND,          /* [Swap] Backend=: zram | file | zram-file | zswap-file | none */
        FEATURE_LABEL_SWAP_GIB,         /* the node's swap, GiB rounded to the nearest; at least 1 with
                                         * any swap, so 0 says none */
        FEATURE_LABEL_ZRAM_ALGORITHM,   /* nodeswap's zram device's algorithm (with zram only) */
        FEATURE_LABEL_POLICY_MATCH,     /* true: the node is what its policy asks for (apply writes the
                                         * file only when its plan has no error, as its last step) */
        FEATURE_LABEL_KUBELET_NO_SWAP,  /* true: the kubelet's unit is kept out of swap (MemorySwapMax=0,
                                         * by [Kubelet] NoSwapUnits= or the unit's own files); left out
                                         * when no kubelet unit is known */
        FEATURE_LABEL_DISK_SWAP_ENCRYPTED, /* true: every swap page that reaches a disk is encrypted (the
                                         * swap file with [File] Encrypt=yes); false: some reach it in
                                         * clear (Encrypt=no, or zram writing back to a disk); left out
                                         * without disk-backed swap. A scheduler rule keeps secret-holding
                                         * pods off nodes labelled false. */
        _FEATURE_LABEL_MAX,
} FeatureLabel;
/* The label's name after NODESWAP_LABEL_PREFIX ("swap-behavior"). */
const char *feature_label_to_string(FeatureLabel l);

/* What the labels say, decided by plan() (the node after the plan) and rendered by execute/ when
 * it writes the file (execute fills in a zram algorithm the kernel chose). */
typedef struct FeatureInput {
        bool swap_behavior_known;       /* false: a value the kubelet refuses: no label */
        SwapBehavior swap_behavior;     /* UNSET reads as NoSwap, the kubelet's default */
        bool backend_set;               /* false: the policy leaves swap alone: no backend label */
        unsigned backends;              /* BACKEND_* bits */
        uint64_t swap_total;            /* bytes of swap after the plan */
        char *zram_algorithm;           /* NULL: no zram device of nodeswap's, or not known yet */
        bool zram_algorithm_pending;    /* the plan makes the device and the kernel picks it */
        bool policy_match;
        int kubelet_no_swap;            /* 1, 0, or -1: no kubelet unit known (no label) */
        int disk_swap_encrypted;        /* 1, 0, or -1: no disk-backed swap (no label) */
} FeatureInput;
void feature_input_done(FeatureInput *in);
int feature_input_copy(const FeatureInput *in, FeatureInput *ret);

/* Whether v passes Kubernetes' label-value rules (above). */
bool label_value_valid(const char *v);
/* The value of one label, NULL when the label is left out (or on ENOMEM: *ret_oom set). */
char *feature_label_value(const FeatureInput *in, FeatureLabel l, bool *ret_oom);
/* The whole file's text: a comment saying whose it is, then one line per label. NULL on ENOMEM. */
char *features_render(const FeatureInput *in);
/* "swap-behavior=LimitedSwap backend=zram ...", for plan's want. NULL on ENOMEM. */
char *features_summary(const FeatureInput *in);

typedef struct PlanContext PlanContext;
/* The feature file's part of the plan (plan/context.h), last in it: written when its text would
 * change (apply with [Kubelet] NodeFeatures=yes), removed by revert and by NodeFeatures=no. */
int plan_features(PlanContext *c);
