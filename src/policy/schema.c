/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The policy's schema: the sections, their keys, each key's parser and the built-in defaults.
 * One place to add a key (see schema.h).
 *
 * Decisions (documented for operators in conf/nodeswap.conf and nodeswap.conf(5)):
 *   - An empty assignment resets a key to its default; for Units= it empties the list, and every
 *     non-empty Units= appends. Algorithm= and Compressor= replace the whole preference list.
 */

#include "policy/schema.h"
#include "policy/knobs.h"
#include "shared/unit-name.h"
#include "policy/suggest.h"
#include "policy/values.h"
#include "shared/string-table.h"

#include <inttypes.h>

/* The built-in defaults, as nodeswap.conf(5) and conf/nodeswap.conf document them. */
#define DEFAULT_ZRAM_SIZE "min(ram / 2, 8G)"
#define DEFAULT_ZRAM_ALGORITHMS "zstd lz4"
#define DEFAULT_ZRAM_PRIORITY 100
#define DEFAULT_WRITEBACK_IDLE_AFTER_SEC (24 * 3600)
#define DEFAULT_WRITEBACK_INTERVAL_SEC (24 * 3600)
#define RECOMPRESS_ALGORITHMS_MAX 3     /* the kernel has ZRAM_MAX_COMPS = 4 slots, the first is Algorithm= */
#define DEFAULT_ZSWAP_COMPRESSORS "zstd lz4 lzo-rle lzo"
#define DEFAULT_FILE_PATH "/var/lib/nodeswap/swapfile"
#define DEFAULT_FILE_SIZE "ram"
#define DEFAULT_FILE_PRIORITY 10
#define DEFAULT_STORAGE (STORAGE_NVME | STORAGE_SSD | STORAGE_VIRTUAL)
#define DEFAULT_DROPIN "/var/lib/rancher/k3s/agent/etc/kubelet.conf.d/90-nodeswap.conf"
#define DEFAULT_CONFLICT_UNITS                                                                  \
        "dev-zram0.swap systemd-zram-setup@zram0.service rpi-zram-writeback.timer "             \
        "rpi-zram-writeback.service rpi-resize-swap-file.service var-swap.swap "                \
        "dphys-swapfile.service zramswap.service"

/* ---------------------------------------------------------------------------------------------- */
/* Names and defaults */

static const char *const storage_kind_table[STORAGE_MMC + 1] = {
        [STORAGE_NVME] = "nvme",
        [STORAGE_SSD] = "ssd",
        [STORAGE_VIRTUAL] = "virtual",
        [STORAGE_ROTATIONAL] = "rotational",
        [STORAGE_MMC] = "mmc",
};
DEFINE_STRING_TABLE_LOOKUP(storage_kind, StorageKind, storage_kind_table);

static const char *const swap_behavior_table[_SWAP_BEHAVIOR_MAX] = {
        [SWAP_BEHAVIOR_UNSET] = "",
        [SWAP_BEHAVIOR_NO_SWAP] = "NoSwap",
        [SWAP_BEHAVIOR_LIMITED_SWAP] = "LimitedSwap",
};
DEFINE_STRING_TABLE_LOOKUP(swap_behavior, SwapBehavior, swap_behavior_table);

int policy_init_defaults(Policy *p, const PolicyContext *ctx) {
        const char *reason;
        Policy d = {
                .swappiness = -1,
                .page_cluster = -1,
                .swap_behavior = SWAP_BEHAVIOR_UNSET,
        };
        int r;

        if (!p || !policy_context_valid(ctx))
                return -EINVAL;

        d.files = calloc(1, sizeof(char *));
        d.zram.size_expr = strdup(DEFAULT_ZRAM_SIZE);
        d.zram.algorithms = strv_split_ws(DEFAULT_ZRAM_ALGORITHMS);
        d.zram.algorithm_params = strv_split_ws(DEFAULT_ZRAM_ALGORITHMS);
        for (char **i = d.zram.algorithm_params; i && *i; i++)
                (*i)[0] = 0;    /* no parameters for any of them */
        d.zswap.compressors = strv_split_ws(DEFAULT_ZSWAP_COMPRESSORS);
        d.file.path = strdup(DEFAULT_FILE_PATH);
        d.file.size_expr = strdup(DEFAULT_FILE_SIZE);
        d.dropin = strdup(DEFAULT_DROPIN);
        d.conflict_units = strv_split_ws(DEFAULT_CONFLICT_UNITS);
        if (!d.files || !d.zram.size_expr || !d.zram.algorithms || !d.zram.algorithm_params || !d.zswap.compressors || !d.file.path || !d.file.size_expr ||
            !d.dropin || !d.conflict_units) {
                policy_done(&d);
                return -ENOMEM;
        }

        d.zram.priority = DEFAULT_ZRAM_PRIORITY;
        d.zram.writeback_idle_after = DEFAULT_WRITEBACK_IDLE_AFTER_SEC;
        d.zram.writeback_interval = DEFAULT_WRITEBACK_INTERVAL_SEC;
        d.file.priority = DEFAULT_FILE_PRIORITY;
        d.file.storage = DEFAULT_STORAGE;
        d.zswap.max_pool_percent = -1;
        d.zswap.accept_threshold_percent = -1;
        d.zswap.shrinker = -1;

        /* A machine too small for the default expressions (less than two pages of RAM) is not one
         * nodeswap can help: refuse it here rather than hand out a zero size. */
        r = size_eval(d.zram.size_expr, ctx->ram, ctx->page_size, &d.zram.size, &reason);
        if (r >= 0)
                r = size_eval(d.file.size_expr, ctx->ram, ctx->page_size, &d.file.size, &reason);
        if (r < 0) {
                policy_done(&d);
                return r;
        }

        *p = d;
        return 0;
}

/* The policy "nodeswap revert" plans against: the built-in defaults (so the [Conflicts] units and
 * the kubelet drop-in path are known) with Backend=none and SwapBehavior=NoSwap. plan() treats
 * PlanOptions.revert specially (it unmasks instead of masking, removes nodeswap's own devices and
 * drop-in, restores sysctls); this policy only supplies the names it needs. found is true: it is a
 * policy to act on, even though no file was read. */
/* ---------------------------------------------------------------------------------------------- */
/* Keys */

#define FAIL(...)                                                               \
        ({                                                                      \
                *ret_msg = strdup_printf(__VA_ARGS__);                          \
                *ret_msg ? -EINVAL : -ENOMEM;                                   \
        })

static int replace_str(char **s, const char *v) {
        char *c = strdup(v);
        if (!c)
                return -ENOMEM;
        free(*s);
        *s = c;
        return 0;
}

static int parse_backend(ParseState *st, const char *v, char **ret_msg) {
        _cleanup_strv_free_ char **w = strv_split_ws(v);
        unsigned bits = 0;
        bool none = false;

        if (!w)
                return -ENOMEM;
        for (char **i = w; *i; i++) {
                if (streq(*i, "zram"))
                        bits |= BACKEND_ZRAM;
                else if (streq(*i, "file"))
                        bits |= BACKEND_FILE;
                else if (streq(*i, "zswap"))
                        bits |= BACKEND_ZSWAP;
                else if (streq(*i, "none"))
                        none = true;
                else
                        return FAIL("unknown backend '%s' (zram, file, \"zram file\", \"zswap file\" or none)", *i);
        }
        if (none && bits)
                return FAIL("'none' cannot be combined with other backends");
        /* zswap is a cache in front of a swap device, not one: without the file behind it, it
         * holds nothing; in front of zram every page would be compressed twice. */
        if ((bits & BACKEND_ZSWAP) && (bits & BACKEND_ZRAM))
                return FAIL("zswap cannot be combined with zram: zswap in front of zram compresses every page "
                            "twice; write Backend=zswap file or Backend=zram");
        if ((bits & BACKEND_ZSWAP) && !(bits & BACKEND_FILE))
                return FAIL("zswap needs a swap file behind it: write Backend=zswap file");

        /* An empty Backend= goes back to the default: unset, nodeswap manages no swap. */
        st->p->backend_set = strv_length(w) > 0;
        st->p->backends = bits;
        st->p->backend_origin = origin_here(st);
        return 0;
}

static int parse_size_common(ParseState *st, const char *v, const char *def, uint64_t *size,
                             char **expr, Origin *origin, char **ret_msg) {
        const char *reason = NULL;
        uint64_t n;

        if (!*v)
                v = def;
        /* A bare number that reads like zram-generator's MiB is named first: it is why such a
         * size is also too small. */
        int r = size_check_meant(v, ret_msg);
        if (r < 0)
                return r;
        if (size_eval(v, st->ctx->ram, st->ctx->page_size, &n, &reason) < 0)
                return FAIL("invalid size: %s", reason ?: "syntax error");
        if (replace_str(expr, v) < 0)
                return -ENOMEM;
        *size = n;
        *origin = origin_here(st);
        return 0;
}

static int parse_zram_size(ParseState *st, const char *v, char **ret_msg) {
        return parse_size_common(st, v, DEFAULT_ZRAM_SIZE, &st->p->zram.size, &st->p->zram.size_expr,
                                 &st->p->zram.size_origin, ret_msg);
}

static int parse_file_size(ParseState *st, const char *v, char **ret_msg) {
        return parse_size_common(st, v, DEFAULT_FILE_SIZE, &st->p->file.size, &st->p->file.size_expr,
                                 &st->p->file.size_origin, ret_msg);
}

static int parse_mem_limit(ParseState *st, const char *v, char **ret_msg) {
        const char *reason = NULL;
        uint64_t n = 0;

        /* Empty: no limit. */
        int r = *v ? size_check_meant(v, ret_msg) : 0;
        if (r < 0)
                return r;
        if (*v && size_eval(v, st->ctx->ram, st->ctx->page_size, &n, &reason) < 0)
                return FAIL("invalid size: %s", reason ?: "syntax error");
        if (replace_str(&st->mem_limit_expr, v) < 0)
                return -ENOMEM;
        st->p->zram.mem_limit = n;
        st->mem_limit_origin = origin_here(st);
        return 0;
}

/* An absolute path (path_normalize()) not below any of dirs: what (a swap file, ...) would live on
 * a memory-backed or pseudo file system there. */
static int path_outside(const char *v, const char *const *dirs, size_t n_dirs, const char *what, char **ret,
                        char **ret_msg) {
        const char *reason = NULL;
        char *path;

        int r = path_normalize(v, &path, &reason);
        if (r == -ENOMEM)
                return r;
        if (r < 0)
                return FAIL("%s", reason);
        for (size_t i = 0; i < n_dirs; i++)
                if (path_is_under(path, dirs[i])) {
                        free(path);
                        return FAIL("%s cannot live under %s (a memory-backed or pseudo file system)", what, dirs[i]);
                }
        *ret = path;
        return 0;
}

static int parse_file_path(ParseState *st, const char *v, char **ret_msg) {
        /* /var/run and /var/lock are symbolic links into /run on every systemd distribution. */
        static const char *const volatile_dirs[] = { "/tmp", "/dev", "/proc", "/sys", "/run", "/var/run",
                                                     "/var/lock" };
        char *path;
        int r = path_outside(*v ? v : DEFAULT_FILE_PATH, volatile_dirs, ELEMENTSOF(volatile_dirs), "a swap file",
                             &path, ret_msg);
        if (r < 0)
                return r;
        free(st->p->file.path);
        st->p->file.path = path;
        return 0;
}

/* A list of algorithms, each with optional parameters ("zstd(level=3) lz4"), into names and the
 * parameters in the kernel's form ("" for none), replacing *names and *params; an empty v leaves
 * them NULL. */
static int parse_algorithm_list(const char *v, size_t max, char ***names, char ***params, char **ret_msg) {
        _cleanup_strv_free_ char **w = strv_split_ws(v);
        _cleanup_strv_free_ char **n = NULL, **par = NULL;
        if (!w)
                return -ENOMEM;
        if (strv_length(w) > max)
                return FAIL("at most %zu algorithms", max);
        for (char **i = w; *i; i++) {
                _cleanup_free_ char *name = NULL, *pv = NULL;
                const char *reason = NULL;
                int r = algorithm_spec_parse(*i, &name, &pv, &reason);
                if (r == -ENOMEM)
                        return r;
                if (r < 0 && !reason)
                        return FAIL("invalid algorithm name '%s' (lower-case letters, digits and '-')", *i);
                if (r < 0)
                        return FAIL("invalid parameters in '%s': %s", *i, reason);
                if (strv_contains(n, name))
                        return FAIL("algorithm '%s' is listed twice", name);
                if (strv_extend(&n, name) < 0 || strv_extend(&par, strempty(pv)) < 0)
                        return -ENOMEM;
        }
        strv_free(*names);
        strv_free(*params);
        *names = TAKE_PTR(n);
        *params = TAKE_PTR(par);
        return 0;
}

static int parse_algorithm(ParseState *st, const char *v, char **ret_msg) {
        return parse_algorithm_list(*v ? v : DEFAULT_ZRAM_ALGORITHMS, SIZE_MAX, &st->p->zram.algorithms,
                                    &st->p->zram.algorithm_params, ret_msg);
}

/* RecompressAlgorithm=: empty = no recompression. */
static int parse_recompress(ParseState *st, const char *v, char **ret_msg) {
        return parse_algorithm_list(v, RECOMPRESS_ALGORITHMS_MAX, &st->p->zram.recompress,
                                    &st->p->zram.recompress_params, ret_msg);
}

/* Writeback=: empty = none; a block device below /dev, or a file nodeswap backs with a loop
 * device (not on a memory-backed or pseudo file system: written-back pages would stay in RAM). */
static int parse_writeback(ParseState *st, const char *v, char **ret_msg) {
        static const char *const volatile_dirs[] = { "/tmp", "/proc", "/sys", "/run", "/var/run", "/var/lock",
                                                     "/dev/shm" };
        char *path = NULL;

        if (*v) {
                int r = path_outside(v, volatile_dirs, ELEMENTSOF(volatile_dirs), "a writeback device or file", &path,
                                     ret_msg);
                if (r < 0)
                        return r;
        }
        free(st->p->zram.writeback);
        st->p->zram.writeback = path;
        return 0;
}

static int parse_timespan_key(const char *v, uint64_t def, bool zero_ok, uint64_t *out, char **ret_msg) {
        uint64_t n = def;
        if (*v) {
                int r = timespan_parse_sec(v, &n);
                if (r == -ERANGE)
                        return FAIL("time span out of range (at most ten years)");
                if (r < 0)
                        return FAIL("invalid time span (seconds, or a number with s, min, h, d or w: 30min, 12h, 1d)");
                if (n == 0 && !zero_ok)
                        return FAIL("must be longer than 0");
        }
        *out = n;
        return 0;
}

static int parse_writeback_idle_after(ParseState *st, const char *v, char **ret_msg) {
        return parse_timespan_key(v, DEFAULT_WRITEBACK_IDLE_AFTER_SEC, false, &st->p->zram.writeback_idle_after,
                                  ret_msg);
}

static int parse_writeback_interval(ParseState *st, const char *v, char **ret_msg) {
        return parse_timespan_key(v, DEFAULT_WRITEBACK_INTERVAL_SEC, true, &st->p->zram.writeback_interval, ret_msg);
}

/* WritebackLimit=: bytes per day, empty = no cap; rounded down to the kernel's 4 KiB unit. */
static int parse_writeback_limit(ParseState *st, const char *v, char **ret_msg) {
        const char *reason = NULL;
        uint64_t n = 0;

        int r = *v ? size_check_meant(v, ret_msg) : 0;
        if (r < 0)
                return r;
        if (*v && size_eval(v, st->ctx->ram, ZRAM_WRITEBACK_UNIT, &n, &reason) < 0)
                return FAIL("invalid size: %s", reason ?: "syntax error");
        st->p->zram.writeback_limit = n;
        return 0;
}

static int parse_discard(ParseState *st, const char *v, char **ret_msg) {
        if (swap_discard_from_string(v, &st->p->file.discard) < 0)
                return FAIL("must be once, pages or off (swapon's discard policies)");
        return 0;
}

static int parse_compressor(ParseState *st, const char *v, char **ret_msg) {
        _cleanup_strv_free_ char **w = strv_split_ws(*v ? v : DEFAULT_ZSWAP_COMPRESSORS);
        if (!w)
                return -ENOMEM;
        for (char **i = w; *i; i++) {
                size_t l = strlen(*i);
                /* Crypto API names (CRYPTO_MAX_ALG_NAME is 128): lzo-rle, zstd, 842, deflate. */
                if (l > 63 || strspn(*i, "abcdefghijklmnopqrstuvwxyz0123456789-") != l)
                        return FAIL("invalid compressor name '%s' (lower-case letters, digits and '-')", *i);
                for (char **j = w; j < i; j++)
                        if (streq(*i, *j))
                                return FAIL("compressor '%s' is listed twice", *i);
        }
        strv_free(st->p->zswap.compressors);
        st->p->zswap.compressors = w;
        w = NULL;
        return 0;
}

static int parse_percent(const char *v, uint64_t min, int *out, char **ret_msg) {
        uint64_t n;
        if (!*v) {
                *out = -1;      /* leave the kernel's value */
                return 0;
        }
        int r = parse_plain_uint(v, 100, &n);
        if (r >= 0 && n < min)
                r = -ERANGE;
        if (r == -ERANGE)
                return FAIL("percentage out of range (%" PRIu64 "..100)", min);
        if (r < 0)
                return FAIL("must be a plain decimal number of percent (%" PRIu64 "..100), without '%%'", min);
        *out = (int) n;
        return 0;
}

static int parse_max_pool_percent(ParseState *st, const char *v, char **ret_msg) {
        /* 0 would leave zswap enabled with no room: every page goes straight to the file. */
        return parse_percent(v, 1, &st->p->zswap.max_pool_percent, ret_msg);
}

static int parse_accept_threshold_percent(ParseState *st, const char *v, char **ret_msg) {
        return parse_percent(v, 0, &st->p->zswap.accept_threshold_percent, ret_msg);
}

static int parse_shrinker(ParseState *st, const char *v, char **ret_msg) {
        if (!*v)
                st->p->zswap.shrinker = -1;
        else if (streq(v, "yes"))
                st->p->zswap.shrinker = 1;
        else if (streq(v, "no"))
                st->p->zswap.shrinker = 0;
        else
                return FAIL("must be yes, no or empty (leave the kernel's value)");
        return 0;
}

static int parse_priority_common(ParseState *st, const char *v, int def, int *prio, Origin *origin,
                                 char **ret_msg) {
        uint64_t n = (uint64_t) def;
        if (*v) {
                int r = parse_plain_uint(v, 32767, &n);
                if (r == -ERANGE)
                        return FAIL("priority out of range (0..32767)");
                if (r < 0)
                        return FAIL("priority must be a plain decimal number (0..32767)");
        }
        *prio = (int) n;
        *origin = origin_here(st);
        return 0;
}

static int parse_zram_priority(ParseState *st, const char *v, char **ret_msg) {
        return parse_priority_common(st, v, DEFAULT_ZRAM_PRIORITY, &st->p->zram.priority,
                                     &st->p->zram.priority_origin, ret_msg);
}

static int parse_file_priority(ParseState *st, const char *v, char **ret_msg) {
        return parse_priority_common(st, v, DEFAULT_FILE_PRIORITY, &st->p->file.priority,
                                     &st->p->file.priority_origin, ret_msg);
}

static int parse_storage(ParseState *st, const char *v, char **ret_msg) {
        _cleanup_strv_free_ char **w = strv_split_ws(v);
        unsigned bits = 0;

        if (!w)
                return -ENOMEM;
        for (char **i = w; *i; i++) {
                StorageKind k;
                if (storage_kind_from_string(*i, &k) < 0)
                        return FAIL("unknown storage kind '%s' (nvme, ssd, virtual, rotational, mmc)", *i);
                bits |= k;
        }
        st->p->file.storage = bits ?: DEFAULT_STORAGE;
        return 0;
}

static int parse_sysctl_common(const char *v, uint64_t max, int *out, const char *what, char **ret_msg) {
        uint64_t n;
        if (!*v) {
                *out = -1;      /* leave it alone */
                return 0;
        }
        int r = parse_plain_uint(v, max, &n);
        if (r == -ERANGE)
                return FAIL("%s out of range (0..%" PRIu64 ")", what, max);
        if (r < 0)
                return FAIL("%s must be a plain decimal number (0..%" PRIu64 ")", what, max);
        *out = (int) n;
        return 0;
}

static int parse_swappiness(ParseState *st, const char *v, char **ret_msg) {
        return parse_sysctl_common(v, 200, &st->p->swappiness, "swappiness", ret_msg);
}

static int parse_page_cluster(ParseState *st, const char *v, char **ret_msg) {
        return parse_sysctl_common(v, 10, &st->p->page_cluster, "page-cluster", ret_msg);
}

static int parse_swap_behavior(ParseState *st, const char *v, char **ret_msg) {
        static const char *const names[] = { "LimitedSwap", "NoSwap" };

        /* Empty: SWAP_BEHAVIOR_UNSET, leave the kubelet alone. */
        if (swap_behavior_from_string(v, &st->p->swap_behavior) >= 0)
                return 0;
        const char *s = suggest(v, names, ELEMENTSOF(names));
        if (s)
                return FAIL("must be LimitedSwap, NoSwap or empty; did you mean '%s'?", s);
        return FAIL("must be LimitedSwap, NoSwap or empty");
}

static int parse_dropin(ParseState *st, const char *v, char **ret_msg) {
        const char *reason = NULL;
        char *path;
        int r;

        r = path_normalize(*v ? v : DEFAULT_DROPIN, &path, &reason);
        if (r == -ENOMEM)
                return r;
        if (r < 0)
                return FAIL("%s", reason);
        const char *base = strrchr(path, '/') + 1;
        if (!endswith(base, ".conf") || streq(base, ".conf")) {
                free(path);
                return FAIL("the kubelet reads only drop-ins whose name ends in .conf");
        }
        free(st->p->dropin);
        st->p->dropin = path;
        return 0;
}

static int parse_unit(ParseState *st, const char *v, char **ret_msg) {
        if (!*v || streq(v, "auto")) {
                free(st->p->kubelet_unit);
                st->p->kubelet_unit = NULL;
                return 0;
        }
        if (!endswith(v, ".service") || !unit_name_is_valid(v, UNIT_NAME_PLAIN | UNIT_NAME_INSTANCE))
                return FAIL("must be auto or the name of a service unit, such as k3s-agent.service");
        return replace_str(&st->p->kubelet_unit, v);
}

static int parse_units(ParseState *st, const char *v, char **ret_msg) {
        _cleanup_strv_free_ char **w = strv_split_ws(v);
        if (!w)
                return -ENOMEM;

        if (!w[0]) {
                /* An empty assignment empties the list. */
                char **empty = calloc(1, sizeof(char *));
                if (!empty)
                        return -ENOMEM;
                strv_free(st->p->conflict_units);
                st->p->conflict_units = empty;
                return 0;
        }
        for (char **i = w; *i; i++)
                if (!unit_name_is_valid(*i, UNIT_NAME_ANY))
                        return FAIL("invalid unit name '%s'", *i);
        for (char **i = w; *i; i++)
                if (!strv_contains(st->p->conflict_units, *i) && strv_extend(&st->p->conflict_units, *i) < 0)
                        return -ENOMEM;
        return 0;
}

static const KeyDef swap_keys[] = {
        { "Backend", parse_backend, POLICY_KEY_SWAP_BACKEND },
};
static const KeyDef zram_keys[] = {
        { "Size", parse_zram_size, POLICY_KEY_ZRAM_SIZE },
        { "Algorithm", parse_algorithm, POLICY_KEY_ZRAM_ALGORITHM },
        { "Priority", parse_zram_priority, POLICY_KEY_ZRAM_PRIORITY },
        { "MemLimit", parse_mem_limit, POLICY_KEY_ZRAM_MEM_LIMIT },
        { "RecompressAlgorithm", parse_recompress, POLICY_KEY_ZRAM_RECOMPRESS_ALGORITHM },
        { "Writeback", parse_writeback, POLICY_KEY_ZRAM_WRITEBACK },
        { "WritebackIdleAfter", parse_writeback_idle_after, POLICY_KEY_ZRAM_WRITEBACK_IDLE_AFTER },
        { "WritebackInterval", parse_writeback_interval, POLICY_KEY_ZRAM_WRITEBACK_INTERVAL },
        { "WritebackLimit", parse_writeback_limit, POLICY_KEY_ZRAM_WRITEBACK_LIMIT },
};
static const KeyDef file_keys[] = {
        { "Path", parse_file_path, POLICY_KEY_FILE_PATH },
        { "Size", parse_file_size, POLICY_KEY_FILE_SIZE },
        { "Priority", parse_file_priority, POLICY_KEY_FILE_PRIORITY },
        { "Storage", parse_storage, POLICY_KEY_FILE_STORAGE },
        { "Discard", parse_discard, POLICY_KEY_FILE_DISCARD },
};
static const KeyDef zswap_keys[] = {
        { "Compressor", parse_compressor, POLICY_KEY_ZSWAP_COMPRESSOR },
        { "MaxPoolPercent", parse_max_pool_percent, POLICY_KEY_ZSWAP_MAX_POOL_PERCENT },
        { "AcceptThresholdPercent", parse_accept_threshold_percent, POLICY_KEY_ZSWAP_ACCEPT_THRESHOLD_PERCENT },
        { "Shrinker", parse_shrinker, POLICY_KEY_ZSWAP_SHRINKER },
};
static const KeyDef sysctl_keys[] = {
        { "Swappiness", parse_swappiness, POLICY_KEY_SYSCTL_SWAPPINESS },
        { "PageCluster", parse_page_cluster, POLICY_KEY_SYSCTL_PAGE_CLUSTER },
};
static const KeyDef kubelet_keys[] = {
        { "SwapBehavior", parse_swap_behavior, POLICY_KEY_KUBELET_SWAP_BEHAVIOR },
        { "DropIn", parse_dropin, POLICY_KEY_KUBELET_DROPIN },
        { "Unit", parse_unit, POLICY_KEY_KUBELET_UNIT },
};
static const KeyDef conflicts_keys[] = {
        { "Units", parse_units, POLICY_KEY_CONFLICTS_UNITS },
};

#define SECTION(n, k) { n, k, ELEMENTSOF(k) }
const SectionDef schema_sections[] = {
        SECTION("Swap", swap_keys),
        SECTION("Zram", zram_keys),
        SECTION("File", file_keys),
        SECTION("Zswap", zswap_keys),
        SECTION("Sysctl", sysctl_keys),
        SECTION("Kubelet", kubelet_keys),
        SECTION("Conflicts", conflicts_keys),
};
const size_t schema_n_sections = ELEMENTSOF(schema_sections);

static const KeyDef *key_find(PolicyKey k, const char **ret_section) {
        for (size_t i = 0; i < schema_n_sections; i++)
                for (size_t j = 0; j < schema_sections[i].n_keys; j++)
                        if (schema_sections[i].keys[j].id == k) {
                                if (ret_section)
                                        *ret_section = schema_sections[i].name;
                                return &schema_sections[i].keys[j];
                        }
        return NULL;
}

const char *policy_key_section(PolicyKey k) {
        const char *s = NULL;
        return key_find(k, &s) ? s : NULL;
}

const char *policy_key_name(PolicyKey k) {
        const KeyDef *d = key_find(k, NULL);
        return d ? d->name : NULL;
}

const SectionDef *schema_section_find(const char *name) {
        for (size_t i = 0; i < schema_n_sections; i++)
                if (streq(schema_sections[i].name, name))
                        return &schema_sections[i];
        return NULL;
}

const KeyDef *schema_key_find(const SectionDef *sec, const char *name) {
        for (size_t k = 0; k < sec->n_keys; k++)
                if (streq(sec->keys[k].name, name))
                        return &sec->keys[k];
        return NULL;
}
