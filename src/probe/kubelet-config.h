/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include "policy/policy.h"
#include "probe/kubelet-flags.h"
#include "probe/kubelet-version.h"

/* The kubelet's effective configuration, read the way the kubelet reads it (kubernetes.io
 * "Kubelet Configuration Directory Merging", KEP-3983): the --config file first (kubeadm:
 * /var/lib/kubelet/config.yaml; k3s and rke2 pass none), then every file whose name ends in
 * ".conf" below --config-dir, walked in lexical byte order (subdirectories where their name
 * sorts), each applied over the result so far as a JSON merge patch: a field a file sets
 * overrides, absent fields are kept, maps merge key by key, and a null in a drop-in deletes the
 * key: since 1.32 the kubelet's default comes back (failSwapOn true, swapBehavior NoSwap, no
 * evictionHard), before 1.32 the value of the --config file (or the flags' default); the rule is
 * chosen by the kubelet's version (kubelet-version.h), the 1.32+ one when it is unknown.
 * kubelet_config_effective() in kubelet-config.c says how the kubelet does it, with the source.
 * A file that is not YAML, not a mapping, or lacks apiVersion: kubelet.config.k8s.io/... and
 * kind: KubeletConfiguration stops the kubelet from starting.
 *
 * Only the first YAML document of a file counts (the kubelet converts the file with
 * sigs.k8s.io/yaml, which reads one). Keys match exactly (case-sensitive).
 *
 * The kubelet's command-line flags (kubelet-flags.h) are applied over the merged files, as the
 * kubelet applies them (kubeletConfigFlagPrecedence): --fail-swap-on wins over every failSwapOn,
 * --eviction-hard over every evictionHard, --config names the config file, --config-dir the
 * drop-in directory. */

/* memory.available in the kubelet's default evictionHard (kubernetes/kubernetes
 * pkg/kubelet/eviction/defaults_linux.go). */
#define KUBELET_DEFAULT_MEMORY_AVAILABLE "100Mi"

typedef enum KubeletField {
        KUBELET_FIELD_ABSENT = 0,       /* the file does not mention it: earlier values stay */
        KUBELET_FIELD_SET,              /* the file sets a value */
        KUBELET_FIELD_CLEARED,          /* null (or memorySwap: null): back to the --config file's value
                                         * (in a drop-in) or the kubelet's default */
} KubeletField;

/* kubeReserved or systemReserved (maps of resource to quantity, merged key by key like
 * evictionHard): whether a file sets the map, and its "memory". */
typedef struct KubeletReserved {
        KubeletField map_field;         /* SET: a mapping, CLEARED: null */
        unsigned map_line;
        KubeletField memory_field;      /* within the mapping */
        char *memory_value;             /* as written, when SET */
        unsigned memory_line;
} KubeletReserved;

typedef struct KubeletConfigFile {
        char *path;                     /* host path (without the root prefix) */
        char *order_path;               /* where the kubelet reads it, when that is a copy k3s makes
                                         * of path before every start (its merge order), NULL: path */
        bool invalid;                   /* the kubelet refuses this file and does not start */
        char *copy_failed;              /* invalid: k3s cannot copy path, which a kubelet-arg entry in
                                         * this file names, into the --config-dir (and does not start
                                         * the kubelet); NULL: not that */
        char *invalid_reason;           /* why, in words (when invalid) */
        bool no_api_version;            /* it names no apiVersion (kind KubeletConfiguration): a drop-in
                                         * 1.30 and 1.31 take (they decode drop-ins into an unstructured
                                         * object, which needs a kind only); invalid since 1.32 */
        unsigned invalid_line;          /* 1-based, 0: the file as a whole */

        KubeletField swap_behavior_field;
        char *swap_behavior_value;      /* as written, when SET ("" allowed) */
        unsigned swap_behavior_line;    /* of the swapBehavior (or memorySwap) key */

        KubeletField fail_swap_on_field;
        bool fail_swap_on;              /* when SET */
        unsigned fail_swap_on_line;

        /* evictionHard (a map: a drop-in's keys merge into the result key by key) and its
         * memory.available; mergeDefaultEvictionSettings (Kubernetes 1.33+; read in the --config
         * file only). */
        KubeletField eviction_hard_field;       /* SET: a mapping, CLEARED: evictionHard: null */
        unsigned eviction_hard_line;
        KubeletField memory_available_field;    /* within the mapping: SET, CLEARED (null: removes the key) */
        char *memory_available_value;   /* as written, when SET */
        unsigned memory_available_line;
        KubeletField merge_default_eviction_field;
        bool merge_default_eviction;    /* when SET */
        unsigned merge_default_eviction_line;

        /* what the scheduler's allocatable memory leaves out (trial --density) */
        KubeletReserved kube_reserved, system_reserved;
        KubeletField max_pods_field;
        int64_t max_pods;               /* when SET */
        unsigned max_pods_line;
} KubeletConfigFile;

/* How the kubelet merges its drop-ins (kubelet_config_effective() says how each works). */
typedef enum KubeletMergeRule {
        KUBELET_MERGE_VERSIONED,        /* 1.32 and later, and an unknown version */
        KUBELET_MERGE_LEGACY,           /* 1.30 and 1.31 (nodeswap supports no older kubelet) */
} KubeletMergeRule;

typedef struct KubeletConfig {
        char *unit;                     /* the kubelet unit it was read for, NULL: unknown */
        KubeletVersion version;         /* of the kubelet's executable, unknown: 0.0 */
        char *config_file;              /* --config, NULL: none (k3s, rke2) */
        char *config_dir;               /* --config-dir, NULL: none */
        char *config_dir_source;        /* where config_dir came from, in words */
        KubeletConfigFile *files;       /* in merge order: config_file (when present), then drop-ins */
        size_t n_files;
        KubeletFlags flags;             /* the kubelet's command line, as far as nodeswap reads it */
        const KubeletFlag *config_dir_flag; /* the --config-dir flag config_dir is from, NULL: none */
        int config_dir_error;           /* errno: the --config-dir of a flag cannot be walked (ENOENT:
                                         * missing, ENOTDIR: not a directory); the kubelet does not start */
        bool config_file_missing;       /* kubeadm's --config file (10-kubeadm.conf passes it) does not
                                         * exist: the kubelet does not start (loadConfigFile's "no such
                                         * file or directory"; kubeadm init/join write it) */

        /* --eviction-hard: every occurrence together replaces evictionHard of every file (the flag
         * is a LangleSeparatedMapStringString: its first Set() makes a new map, later ones add) */
        const KubeletFlag *eviction_hard_flag;  /* the last occurrence, NULL: none */
        char *flag_memory_available;    /* memory.available of the flags, NULL: they do not set it */
        const KubeletFlag *flag_memory_available_from;  /* the occurrence that set it last */
        const KubeletFlag *eviction_hard_flag_invalid;  /* a pair without '<': the kubelet does not start */
        /* --kube-reserved, --system-reserved (MapStringString: the first occurrence replaces the
         * files' map, every one adds its "KEY=VALUE" pairs): the last occurrence, and the memory
         * they set (NULL: none) */
        const KubeletFlag *kube_reserved_flag, *system_reserved_flag;
        char *flag_kube_reserved_memory, *flag_system_reserved_memory;
} KubeletConfig;

/* The merged result for the two fields nodeswap cares about. Pointers point into the
 * KubeletConfig (or the replacement passed to kubelet_config_effective()). */
typedef struct KubeletEffective {
        SwapBehavior swap_behavior;     /* UNSET: not set or empty, the kubelet's default NoSwap */
        const char *swap_behavior_value;/* the winning value as written, NULL: none */
        bool swap_behavior_unknown;     /* neither "", NoSwap nor LimitedSwap: the kubelet refuses it */
        const KubeletConfigFile *swap_behavior_from;    /* NULL: the default */
        bool fail_swap_on;              /* default true */
        const KubeletConfigFile *fail_swap_on_from;     /* the file that wins among the files, NULL: the default */
        const KubeletFlag *fail_swap_on_flag;   /* --fail-swap-on, which wins over every file; NULL: none */
        const KubeletFlag *invalid_flag;        /* a --fail-swap-on that is no boolean: the kubelet does not start */
        const KubeletFlag *unknown_flag;        /* a flag the kubelet does not have (--merge-default-
                                                 * eviction-settings): it does not start */
        const KubeletConfigFile *first_invalid;         /* NULL: every file is valid */

        /* The hard memory.available threshold the kubelet runs with. The kubelet's default
         * evictionHard (memory.available 100Mi, nodefs.available 10%, nodefs.inodesFree 5%,
         * imagefs.available 15%: kubernetes/kubernetes pkg/kubelet/eviction/defaults_linux.go
         * DefaultEvictionHard; later releases add imagefs.inodesFree 5%) is put in by
         * loadConfigFile() when the --config file sets no evictionHard, and only then: without a
         * --config file (k3s, rke2) there is none, and a drop-in's evictionHard merges key by key
         * into what the --config file gave (kubelet_config_effective()). With a --config file
         * that sets evictionHard, a signal it does not name has no threshold unless that file sets
         * mergeDefaultEvictionSettings: true (1.33+). "0%" and "100%" are no threshold
         * (pkg/kubelet/eviction/helpers.go parseThresholdStatement ignores them). */
        const char *memory_available;   /* the threshold ("100Mi", "5%"), NULL: none */
        const char *memory_available_invalid;   /* why the kubelet refuses memory_available when
                                                 * it starts (kubelet_threshold_parse()), NULL: valid */
        bool memory_available_default;  /* it is the kubelet's default (the --config file sets no
                                         * evictionHard, or mergeDefaultEvictionSettings there) */
        const KubeletConfigFile *memory_available_from; /* the file that sets it, NULL: default or flag */
        unsigned memory_available_line;
        const KubeletFlag *memory_available_flag;       /* --eviction-hard that sets it, NULL: none */
        const KubeletConfigFile *eviction_hard_from;    /* the file that last set (or dropped)
                                                         * evictionHard, NULL: none */
        const KubeletFlag *eviction_hard_flag;  /* --eviction-hard, which wins over every file; NULL: none */
        const KubeletConfigFile *merge_default_eviction_from;   /* the --config file, with
                                                                 * mergeDefaultEvictionSettings: true */
        /* kubeReserved's and systemReserved's memory (NULL: none reserved), and where each is
         * from (a file and line, or the flag); maxPods (its default when no file or flag sets it:
         * KUBELET_DEFAULT_MAX_PODS) */
        const char *kube_reserved_memory, *system_reserved_memory;
        const KubeletConfigFile *kube_reserved_from, *system_reserved_from;
        unsigned kube_reserved_line, system_reserved_line;
        const KubeletFlag *kube_reserved_flag, *system_reserved_flag;
        int64_t max_pods;
        const KubeletConfigFile *max_pods_from;
        unsigned max_pods_line;
        const KubeletFlag *max_pods_flag;
        const KubeletFlag *max_pods_flag_invalid;       /* --max-pods that is no integer */
} KubeletEffective;

/* The kubelet's default maxPods (kubernetes/kubernetes pkg/kubelet/apis/config/v1beta1
 * defaults.go SetDefaults_KubeletConfiguration). */
#define KUBELET_DEFAULT_MAX_PODS 110

void kubelet_config_file_done(KubeletConfigFile *f);
void kubelet_config_done(KubeletConfig *c);

/* Parse one file's text (len bytes; need not be NUL-terminated). A file the kubelet would refuse is
 * not an error: ret->invalid says so. path is copied. Returns 0 or -ENOMEM. */
int kubelet_config_parse(const char *path, const char *text, size_t len, KubeletConfigFile *ret);

/* The configuration the kubelet of unit reads, below root. dropin is the policy's [Kubelet] DropIn=
 * (its directory is the config-dir unless the kubelet's flags name another, see README
 * "Decisions"). unit NULL: as for k3s (no --config file). Missing directories and files are not
 * errors. Returns 0 or -ENOMEM. */
int kubelet_config_read(const char *root, const char *unit, const char *dropin, KubeletConfig *ret);

/* Merge c's files. With replace_path, the file at that path is left out, and replacement (when
 * not NULL) is merged where replace_path sorts among the drop-ins instead: what the kubelet would
 * read after nodeswap writes (or removes) its drop-in. Pure. */
void kubelet_config_effective(const KubeletConfig *c, const char *replace_path,
                              const KubeletConfigFile *replacement, KubeletEffective *ret);

/* The merge rule of c's kubelet: LEGACY for a kubelet known to be 1.30 or 1.31, else VERSIONED. */
KubeletMergeRule kubelet_config_rule(const KubeletConfig *c);

/* Whether c's kubelet reads mergeDefaultEvictionSettings (1.33 and later, or unknown). */
bool kubelet_config_merges_default_eviction(const KubeletConfig *c);

/* A hard eviction threshold's value as the kubelet's eviction manager takes it
 * (pkg/kubelet/eviction/helpers.go parseThresholdStatement(), v1.31.0 and v1.36.3 alike): a
 * quantity ("100Mi") in bytes, or a percentage ("5%", parsePercentage(): strconv.ParseFloat of the
 * text without its trailing '%', as a float32, / 100) of the node's memory capacity: the
 * threshold in bytes is int64(capacity * fraction) (eviction/api GetThresholdQuantity()), the
 * capacity the node's available + working set (eviction/helpers_others.go), where available is
 * the root container's memory limit less the working set (pkg/kubelet/stats/helper.go) and that
 * limit is MemTotal (google/cadvisor container/raw/handler.go GetSpec(),
 * machine.GetMachineMemoryCapacity()). Returns 1 with *ret_bytes (mem_total: MemTotal in bytes),
 * 0 for "0%" and "100%" (no threshold: ignored), -EINVAL with *ret_reason (static) for a value
 * the kubelet refuses: ParseThresholdConfig() runs after the configuration is loaded and logged
 * (cmd/kubelet/app/server.go run(), and NewMainKubelet()), and its error stops the kubelet. */
int kubelet_threshold_parse(const char *value, uint64_t mem_total, uint64_t *ret_bytes, const char **ret_reason);

/* Whether the kubelet starts with c and its merge e: every file valid, the --config file there,
 * --config-dir walkable, every flag nodeswap reads well-formed, a swapBehavior it knows
 * (ValidateKubeletConfiguration), a memory.available threshold it can parse. */
bool kubelet_config_starts(const KubeletConfig *c, const KubeletEffective *e);

/* Whether the kubelet reads path as a drop-in (it ends in .conf and lies below c->config_dir). */
bool kubelet_config_reads(const KubeletConfig *c, const char *path);

/* The file's entry, NULL when the kubelet does not read (or nothing is at) path. */
const KubeletConfigFile *kubelet_config_find(const KubeletConfig *c, const char *path);
