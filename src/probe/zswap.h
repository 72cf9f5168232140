/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include "shared/util.h"

/* zswap, the compressed cache in front of swap (Documentation/admin-guide/mm/zswap.rst): its
 * module parameters, the kernel command line's say over them, the compressors the crypto API
 * offers, and the pool's totals. Read-only. */

#define ZSWAP_PARAMETERS_DIR "/sys/module/zswap/parameters"

/* The parameters nodeswap writes, in the order apply writes them: enabled last, so the pool
 * starts with the chosen compressor and limits. */
typedef enum ZswapParam {
        ZSWAP_PARAM_COMPRESSOR,
        ZSWAP_PARAM_MAX_POOL_PERCENT,
        ZSWAP_PARAM_ACCEPT_THRESHOLD_PERCENT,
        ZSWAP_PARAM_SHRINKER_ENABLED,
        ZSWAP_PARAM_ENABLED,
        _ZSWAP_PARAM_MAX,
} ZswapParam;
/* The file name below ZSWAP_PARAMETERS_DIR and on the command line after "zswap.": "compressor". */
const char *zswap_param_to_string(ZswapParam p);
/* The parameter of a name, or -EINVAL. */
int zswap_param_from_string(const char *s);

typedef struct ZswapState {
        int enabled;                    /* 1, 0; -1: this kernel has no zswap (no parameters) */
        char *compressor;               /* NULL: unreadable */
        char *zpool;                    /* NULL: unreadable or gone (kernels >= 6.15 have zsmalloc only) */
        int max_pool_percent;           /* -1: unreadable */
        bool meminfo;                   /* /proc/meminfo has Zswap: and Zswapped: (kernels >= 5.19) */
        uint64_t pool_bytes;            /* Zswap: RAM the pool uses */
        uint64_t stored_bytes;          /* Zswapped: the pages stored, uncompressed */
        bool debugfs;                   /* /sys/kernel/debug/zswap readable (root, debugfs mounted) */
        uint64_t stored_pages;          /* debugfs stored_pages */
        uint64_t written_back_pages;    /* debugfs written_back_pages: moved on to the swap device */

        /* zswap_probe_params(): */
        bool params_read;
        char *param[_ZSWAP_PARAM_MAX];  /* each file's contents as the kernel shows them, without the
                                         * one trailing newline; NULL: this kernel lacks it */
        char *cmdline[_ZSWAP_PARAM_MAX]; /* the value /proc/cmdline gives zswap.NAME (the last one;
                                          * "" for a bare zswap.NAME), NULL: not on the command line */
        char **compressors_offered;     /* crypto API compressors from /proc/crypto; NULL: unreadable */
} ZswapState;

void zswap_state_done(ZswapState *z);

/* enabled only (one read): whether zswap is on, for the rules that need no more. */
int zswap_probe_enabled(const char *root, ZswapState *z);
/* Every parameter, the command line and /proc/crypto into z (enabled, compressor, zpool and
 * max_pool_percent too). What is absent or unreadable stays NULL/-1; -ENOMEM only. */
int zswap_probe_params(const char *root, ZswapState *z);
/* zswap_probe_params() and the debugfs totals (root's, when debugfs is mounted). */
int zswap_probe_all(const char *root, ZswapState *z);

/* A kernel command line's zswap.NAME=VALUE settings (exposed for tests): ret[p] as in
 * ZswapState.cmdline. Arguments after "--" are init's and ignored; '-' and '_' in a parameter
 * name are the same, as the kernel's parameq() has it. */
int zswap_parse_cmdline(const char *cmdline, char *ret[static _ZSWAP_PARAM_MAX]);
/* The compressor names of /proc/crypto's text (types scomp, acomp, compression), deduplicated in
 * order. */
int zswap_parse_crypto(const char *text, char ***ret);

/* Whether two values of a parameter mean the same: booleans (enabled, shrinker_enabled) as the
 * kernel's kstrtobool() reads them ("Y", "1", "y", "on" ...), others byte for byte. */
bool zswap_value_equal(ZswapParam p, const char *a, const char *b);
