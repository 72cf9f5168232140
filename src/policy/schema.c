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

#include <assert.h>
#include <inttypes.h>
#include <limits.h>

/* The built-in defaults, as nodeswap.conf(5) and conf/nodeswap.conf document them, written as a
 * policy file would write them: policy_init_defaults() parses them with the keys' own parsers. */
#define DEFAULT_ZRAM_SIZE "min(ram / 2, 8G)"
#define DEFAULT_ZRAM_ALGORITHMS "zstd lz4"
#define DEFAULT_ZRAM_PRIORITY "100"
#define DEFAULT_WRITEBACK_IDLE_AFTER "1d"
#define DEFAULT_WRITEBACK_INTERVAL "1d"
#define RECOMPRESS_ALGORITHMS_MAX 3     /* the kernel has ZRAM_MAX_COMPS = 4 slots, the first is Algorithm= */
#define DEFAULT_ZSWAP_COMPRESSORS "zstd lz4 lzo-rle lzo"
#define DEFAULT_FILE_PATH "/var/lib/nodeswap/swapfile"
#define DEFAULT_FILE_SIZE "ram"
#define DEFAULT_FILE_PRIORITY "10"
#define DEFAULT_FILE_ENCRYPT "yes"
#define DEFAULT_WRITEBACK_ENCRYPT "yes"
#define DEFAULT_STORAGE (STORAGE_NVME | STORAGE_SSD | STORAGE_VIRTUAL)
#define DEFAULT_DROPIN "/var/lib/rancher/k3s/agent/etc/kubelet.conf.d/90-nodeswap.conf"
#define DEFAULT_MEMORY_EVICTION "100Mi"        /* the kubelet's own default (DefaultEvictionHard) */
#define DEFAULT_NODE_FEATURES "yes"
#define DEFAULT_RECLAIM "auto"
#define DEFAULT_IO_LATENCY "auto"       /* plan/iolatency.c's rule when swap shares the daemons' disk */         /* plan/reclaim.c's rule when pods get swap */
#define DEFAULT_CONFLICT_UNITS                                                                  \
        "dev-zram0.swap systemd-zram-setup@zram0.service rpi-zram-writeback.timer "             \
        "rpi-zram-writeback.service rpi-resize-swap-file.service var-swap.swap "                \
        "dphys-swapfile.service zramswap.service"
#define DEFAULT_NO_SWAP_UNITS NO_SWAP_UNITS_KUBELET

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

/* ---------------------------------------------------------------------------------------------- */
/* Parsers: the generic ones (sizes, plain numbers, percentages, time spans, paths, yes/no) read
 * where the value goes and their bounds from the key's row; the others are the one key they parse. */

#define FAIL(...)                                                               \
        ({                                                                      \
                *ret_msg = strdup_printf(__VA_ARGS__);                          \
                *ret_msg ? -EINVAL : -ENOMEM;                                   \
        })

/* The field a row names, in the policy being parsed. */
#define FIELD(st, offset, type) ((type *) ((char *) (st)->p + (offset)))

static int replace_str(char **s, const char *v) {
        char *c = strdup(v);
        if (!c)
                return -ENOMEM;
        free(*s);
        *s = c;
        return 0;
}

/* The backends, in the order Backend= and nodeswap's output name them. area: a swap area of its
 * own, with a priority (zswap is a cache in front of the file, not a swap area). */
const BackendDef policy_backends[] = {
        { "zram", BACKEND_ZRAM, "zram", POLICY_KEY_ZRAM_PRIORITY },
        { "zswap", BACKEND_ZSWAP, NULL, _POLICY_KEY_MAX },
        { "file", BACKEND_FILE, "the swap file", POLICY_KEY_FILE_PRIORITY },
};
const size_t policy_n_backends = ELEMENTSOF(policy_backends);

static int parse_backend(ParseState *st, const KeyDef *k, const char *v, char **ret_msg) {
        _cleanup_strv_free_ char **w = strv_split_ws(v);
        unsigned bits = 0;
        bool none = false;

        if (!w)
                return -ENOMEM;
        for (char **i = w; *i; i++) {
                size_t b;
                for (b = 0; b < policy_n_backends; b++)
                        if (streq(*i, policy_backends[b].name))
                                break;
                if (b < policy_n_backends)
                        bits |= policy_backends[b].bit;
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
        return 0;
}

/* A size expression (size.c) into a uint64_t, and as written into expr when the row has one;
 * empty: 0 (no limit). Evaluated in pages, or in k->unit (the writeback limit's 4 KiB). */
static int parse_size(ParseState *st, const KeyDef *k, const char *v, char **ret_msg) {
        const char *reason = NULL;
        uint64_t n = 0;

        if (*v) {
                /* A bare number that reads like zram-generator's MiB is named first: it is why
                 * such a size is also too small. */
                int r = size_check_meant(v, ret_msg);
                if (r < 0)
                        return r;
                if (size_eval(v, st->ctx->ram, k->unit ?: st->ctx->page_size, &n, &reason) < 0)
                        return FAIL("invalid size: %s", reason ?: "syntax error");
        }
        if (k->has_expr && replace_str(FIELD(st, k->expr, char *), v) < 0)
                return -ENOMEM;
        *FIELD(st, k->offset, uint64_t) = n;
        return 0;
}

/* A plain decimal number 0..k->max into an int; empty: -1 (leave the kernel's value). */
static int parse_uint(ParseState *st, const KeyDef *k, const char *v, char **ret_msg) {
        uint64_t n;
        if (!*v) {
                *FIELD(st, k->offset, int) = -1;
                return 0;
        }
        int r = parse_plain_uint(v, k->max, &n);
        if (r == -ERANGE)
                return FAIL("%s out of range (0..%" PRIu64 ")", k->what, k->max);
        if (r < 0)
                return FAIL("%s must be a plain decimal number (0..%" PRIu64 ")", k->what, k->max);
        *FIELD(st, k->offset, int) = (int) n;
        return 0;
}

/* A percentage k->min..100 into an int; empty: -1 (leave the kernel's value). */
static int parse_percent(ParseState *st, const KeyDef *k, const char *v, char **ret_msg) {
        uint64_t n;
        if (!*v) {
                *FIELD(st, k->offset, int) = -1;
                return 0;
        }
        int r = parse_plain_uint(v, 100, &n);
        if (r >= 0 && n < k->min)
                r = -ERANGE;
        if (r == -ERANGE)
                return FAIL("percentage out of range (%" PRIu64 "..100)", k->min);
        if (r < 0)
                return FAIL("must be a plain decimal number of percent (%" PRIu64 "..100), without '%%'", k->min);
        *FIELD(st, k->offset, int) = (int) n;
        return 0;
}

/* A time span (knobs.c) into seconds; k->min 1: 0 is refused. */
static int parse_timespan(ParseState *st, const KeyDef *k, const char *v, char **ret_msg) {
        uint64_t n;
        int r = timespan_parse_sec(v, &n);
        if (r == -ERANGE)
                return FAIL("time span out of range (at most ten years)");
        if (r < 0)
                return FAIL("invalid time span (seconds, or a number with s, min, h, d or w: 30min, 12h, 1d)");
        if (n < k->min)
                return FAIL("must be longer than 0");
        *FIELD(st, k->offset, uint64_t) = n;
        return 0;
}

/* yes or no into 1 or 0; empty: -1 (leave the kernel's value). */
static int parse_yes_no(ParseState *st, const KeyDef *k, const char *v, char **ret_msg) {
        int *out = FIELD(st, k->offset, int);
        if (!*v)
                *out = -1;
        else if (streq(v, "yes"))
                *out = 1;
        else if (streq(v, "no"))
                *out = 0;
        else
                return FAIL("must be yes, no or empty (leave the kernel's value)");
        return 0;
}

/* yes or no into a bool (an empty value is the default, as for every key). */
static int parse_bool(ParseState *st, const KeyDef *k, const char *v, char **ret_msg) {
        bool *out = FIELD(st, k->offset, bool);
        if (streq(v, "yes"))
                *out = true;
        else if (streq(v, "no"))
                *out = false;
        else
                return FAIL("must be yes or no");
        return 0;
}

/* An absolute path (path_normalize()) not below any of k->dirs: what k->what (a swap file, ...)
 * would live on is a memory-backed or pseudo file system there. Empty: NULL (none). */
static int parse_path(ParseState *st, const KeyDef *k, const char *v, char **ret_msg) {
        const char *reason = NULL;
        char *path = NULL;

        if (*v) {
                int r = path_normalize(v, &path, &reason);
                if (r == -ENOMEM)
                        return r;
                if (r < 0)
                        return FAIL("%s", reason);
                for (const char *const *d = k->dirs; *d; d++)
                        if (path_is_under(path, *d)) {
                                free(path);
                                return FAIL("%s cannot live under %s (a memory-backed or pseudo file system)",
                                            k->what, *d);
                        }
        }
        char **field = FIELD(st, k->offset, char *);
        free(*field);
        *field = path;
        return 0;
}

/* A list of algorithms, each with optional parameters ("zstd(level=3) lz4"), into the names and
 * the parameters in the kernel's form ("" for none) at k->offset and k->expr; at most k->max of
 * them. An empty v leaves them NULL. */
static int parse_algorithms(ParseState *st, const KeyDef *k, const char *v, char **ret_msg) {
        _cleanup_strv_free_ char **w = strv_split_ws(v);
        _cleanup_strv_free_ char **n = NULL, **par = NULL;
        if (!w)
                return -ENOMEM;
        if (strv_length(w) > k->max)
                return FAIL("at most %" PRIu64 " algorithms", k->max);
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
        char ***names = FIELD(st, k->offset, char **), ***params = FIELD(st, k->expr, char **);
        strv_free(*names);
        strv_free(*params);
        *names = TAKE_PTR(n);
        *params = TAKE_PTR(par);
        return 0;
}

static int parse_discard(ParseState *st, const KeyDef *k, const char *v, char **ret_msg) {
        if (swap_discard_from_string(v, &st->p->file.discard) < 0)
                return FAIL("must be once, pages or off (swapon's discard policies)");
        return 0;
}

static int parse_compressor(ParseState *st, const KeyDef *k, const char *v, char **ret_msg) {
        _cleanup_strv_free_ char **w = strv_split_ws(v);
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
        st->p->zswap.compressors = TAKE_PTR(w);
        return 0;
}

static int parse_storage(ParseState *st, const KeyDef *k, const char *v, char **ret_msg) {
        _cleanup_strv_free_ char **w = strv_split_ws(v);
        unsigned bits = 0;

        if (!w)
                return -ENOMEM;
        for (char **i = w; *i; i++) {
                StorageKind s;
                if (storage_kind_from_string(*i, &s) < 0)
                        return FAIL("unknown storage kind '%s' (nvme, ssd, virtual, rotational, mmc)", *i);
                bits |= s;
        }
        st->p->file.storage = bits ?: DEFAULT_STORAGE;
        return 0;
}

static int parse_swap_behavior(ParseState *st, const KeyDef *k, const char *v, char **ret_msg) {
        static const char *const names[] = { "LimitedSwap", "NoSwap" };

        /* Empty: SWAP_BEHAVIOR_UNSET, leave the kubelet alone. */
        if (swap_behavior_from_string(v, &st->p->swap_behavior) >= 0)
                return 0;
        const char *s = suggest(v, names, ELEMENTSOF(names));
        if (s)
                return FAIL("must be LimitedSwap, NoSwap or empty; did you mean '%s'?", s);
        return FAIL("must be LimitedSwap, NoSwap or empty");
}

static int parse_dropin(ParseState *st, const KeyDef *k, const char *v, char **ret_msg) {
        const char *reason = NULL;
        char *path;
        int r;

        r = path_normalize(v, &path, &reason);
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

static int parse_unit(ParseState *st, const KeyDef *k, const char *v, char **ret_msg) {
        if (!*v || streq(v, "auto")) {
                free(st->p->kubelet_unit);
                st->p->kubelet_unit = NULL;
                return 0;
        }
        if (!endswith(v, ".service") || !unit_name_is_valid(v, UNIT_NAME_PLAIN | UNIT_NAME_INSTANCE))
                return FAIL("must be auto or the name of a service unit, such as k3s-agent.service");
        return replace_str(&st->p->kubelet_unit, v);
}

/* A value the kubelet takes for evictionHard memory.available (kubernetes/kubernetes
 * pkg/kubelet/eviction/helpers.go parseThresholdStatement()): a percentage of memory, strconv's
 * float before '%', in (0, 100) ("0%" and "100%" the kubelet ignores: no threshold), or a
 * resource.Quantity greater than zero (apimachinery's ParseQuantity: a decimal number, then one
 * of the suffixes Ki Mi Gi Ti Pi Ei, n u m k M G T P E, or an exponent e/E with a signed integer). */
static bool eviction_quantity_valid(const char *v) {
        const char *s = v;
        bool nonzero = false, digits = false;
        if (*s == '+')
                s++;
        for (; *s >= '0' && *s <= '9'; s++)
                digits = true, nonzero |= *s != '0';
        if (*s == '.')
                for (s++; *s >= '0' && *s <= '9'; s++)
                        digits = true, nonzero |= *s != '0';
        if (!digits || !nonzero)
                return false;   /* none, or zero: "must be positive" */
        static const char *const suffixes[] = { "", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei",
                                                "n", "u", "m", "k", "M", "G", "T", "P", "E" };
        for (size_t i = 0; i < ELEMENTSOF(suffixes); i++)
                if (streq(s, suffixes[i]))
                        return true;
        if (*s != 'e' && *s != 'E')
                return false;
        s++;
        if (*s == '+' || *s == '-')
                s++;
        if (!*s)
                return false;
        for (; *s; s++)
                if (*s < '0' || *s > '9')
                        return false;
        return true;
}

static int parse_memory_eviction(ParseState *st, const KeyDef *k, const char *v, char **ret_msg) {
        if (streq(v, "off")) {
                free(st->p->memory_eviction);
                st->p->memory_eviction = NULL;
                return 0;
        }
        if (endswith(v, "%")) {
                _cleanup_free_ char *num = strndup(v, strlen(v) - 1);
                char *end = NULL;
                if (!num)
                        return -ENOMEM;
                errno = 0;
                double d = *num ? strtod(num, &end) : 0;
                if (!*num || !end || *end || errno != 0 || d != d)
                        return FAIL("not a percentage the kubelet takes (e.g. 5%%)");
                if (d <= 0 || d >= 100)
                        return FAIL("must be above 0%% and below 100%% (the kubelet ignores 0%% and 100%%); "
                                    "use off for no threshold");
                return replace_str(&st->p->memory_eviction, v);
        }
        if (!eviction_quantity_valid(v))
                return FAIL("must be off, a quantity above zero the kubelet takes (100Mi, 512Mi, 1Gi) or a "
                            "percentage of memory (5%%)");
        return replace_str(&st->p->memory_eviction, v);
}

/* [Kubelet] IOLatencyTargetSec=: auto, no, or a time span from 1ms to 10s as systemd writes
 * IODeviceLatencyTargetSec= (a plain number is seconds; us, ms and s, as in "25ms"). */
static int parse_io_latency(ParseState *st, const KeyDef *k, const char *v, char **ret_msg) {
        uint64_t *f = FIELD(st, k->offset, uint64_t);
        if (streq(v, "auto") || streq(v, "no")) {
                *f = streq(v, "auto") ? IO_LATENCY_AUTO : IO_LATENCY_NO;
                return 0;
        }
        static const struct {
                const char *suffix;
                uint64_t usec;
        } units[] = { { "us", 1 }, { "ms", 1000 }, { "s", 1000 * 1000 }, { "", 1000 * 1000 } };
        for (size_t i = 0; i < ELEMENTSOF(units); i++) {
                if (!endswith(v, units[i].suffix))
                        continue;
                _cleanup_free_ char *num = strndup(v, strlen(v) - strlen(units[i].suffix));
                uint64_t n;
                if (!num)
                        return -ENOMEM;
                int r = parse_plain_uint(num, IO_LATENCY_MAX_USEC, &n);
                if (r == -ERANGE || (r >= 0 && (n * units[i].usec < IO_LATENCY_MIN_USEC ||
                                                n * units[i].usec > IO_LATENCY_MAX_USEC)))
                        return FAIL("io.latency target out of range (1ms..10s)");
                if (r < 0)
                        break;
                *f = n * units[i].usec;
                return 0;
        }
        return FAIL("must be auto, no or a time span (a whole number with us, ms or s: 25ms)");
}

/* [Sysctl] MinFreeKbytes=: auto, keep, or KiB from 1024 (Documentation/admin-guide/sysctl/vm.rst,
 * min_free_kbytes: below 1024 KB the system "will become subtly broken, and prone to deadlock under
 * high loads") to RECLAIM_MIN_FREE_CAP_PERCENT of RAM ("Setting this too high will OOM your machine
 * instantly"): the kernel's sysctl itself takes any value from 0 (mm/page_alloc.c,
 * vm_page_alloc_table: extra1 = SYSCTL_ZERO, no extra2). */
static int parse_min_free_kbytes(ParseState *st, const KeyDef *k, const char *v, char **ret_msg) {
        int *f = FIELD(st, k->offset, int);
        if (streq(v, "auto") || streq(v, "keep")) {
                *f = streq(v, "auto") ? SYSCTL_AUTO : SYSCTL_KEEP;
                return 0;
        }
        uint64_t cap = st->ctx->ram / 1024 * RECLAIM_MIN_FREE_CAP_PERCENT / 100, n;
        if (cap > INT_MAX)
                cap = INT_MAX;
        int r = parse_plain_uint(v, cap, &n);
        if (r >= 0 && n < RECLAIM_MIN_FREE_FLOOR_KB)
                r = -ERANGE;
        if (r == -ERANGE)
                return FAIL("min_free_kbytes out of range (%u..%" PRIu64 " KiB: at most %u%% of this node's "
                            "RAM; the kernel keeps it free at all times, and too high a value OOMs the "
                            "machine at once)", RECLAIM_MIN_FREE_FLOOR_KB, cap, RECLAIM_MIN_FREE_CAP_PERCENT);
        if (r < 0)
                return FAIL("must be auto, keep or a plain decimal number of KiB (%u..%" PRIu64 ")",
                            RECLAIM_MIN_FREE_FLOOR_KB, cap);
        *f = (int) n;
        return 0;
}

/* [Sysctl] WatermarkScaleFactor=: auto, keep, or 1 to the running kernel's bound (mm/page_alloc.c,
 * vm_page_alloc_table: extra1 = SYSCTL_ONE, extra2 = SYSCTL_THREE_THOUSAND since Linux 5.18, the
 * kernel's one_thousand before; a value above it fails with EINVAL at the write). */
static int parse_watermark_scale_factor(ParseState *st, const KeyDef *k, const char *v, char **ret_msg) {
        int *f = FIELD(st, k->offset, int);
        if (streq(v, "auto") || streq(v, "keep")) {
                *f = streq(v, "auto") ? SYSCTL_AUTO : SYSCTL_KEEP;
                return 0;
        }
        int max = st->ctx->watermark_scale_factor_max > 0 ? st->ctx->watermark_scale_factor_max
                                                          : RECLAIM_WSF_MAX_NEW;
        uint64_t n;
        int r = parse_plain_uint(v, (uint64_t) max, &n);
        if (r >= 0 && n < 1)
                r = -ERANGE;
        if (r == -ERANGE)
                return FAIL("watermark_scale_factor out of range (1..%d%s)", max,
                            max < RECLAIM_WSF_MAX_NEW ? ": this kernel is older than 5.18, which raised the "
                                                        "bound from 1000 to 3000" : "");
        if (r < 0)
                return FAIL("must be auto, keep or a plain decimal number (1..%d)", max);
        *f = (int) n;
        return 0;
}

/* A unit list's line, already checked: an empty one empties the list, any other appends the names
 * the list does not have yet ([Conflicts] Units=, [Kubelet] NoSwapUnits=). */
static int unit_list_update(char ***list, char *const *w) {
        if (!w[0]) {
                char **empty = calloc(1, sizeof(char *));
                if (!empty)
                        return -ENOMEM;
                strv_free(*list);
                *list = empty;
                return 0;
        }
        for (char *const *i = w; *i; i++)
                if (!strv_contains(*list, *i) && strv_extend(list, *i) < 0)
                        return -ENOMEM;
        return 0;
}

static int parse_units(ParseState *st, const KeyDef *k, const char *v, char **ret_msg) {
        _cleanup_strv_free_ char **w = strv_split_ws(v);
        if (!w)
                return -ENOMEM;
        for (char **i = w; *i; i++)
                if (!unit_name_is_valid(*i, UNIT_NAME_ANY))
                        return FAIL("invalid unit name '%s'", *i);
        return unit_list_update(&st->p->conflict_units, w);
}

/* [Kubelet] NoSwapUnits=: the list semantics of [Conflicts] Units= (empty empties it, every other
 * line appends). A name is one systemd accepts (shared/unit-name.h follows src/basic/unit-name.c's
 * unit_name_is_valid()) of a type that has MemorySwapMax= (systemd.resource-control(5): slices,
 * scopes, services, sockets, mounts, swaps; nodeswap takes the three that hold daemons), no
 * template (a template runs nothing), and not the root slice "-.slice" (its cgroup is the root's,
 * which has no memory.swap.max). */
static int parse_no_swap_units(ParseState *st, const KeyDef *k, const char *v, char **ret_msg) {
        _cleanup_strv_free_ char **w = strv_split_ws(v);
        if (!w)
                return -ENOMEM;
        for (char **i = w; *i; i++) {
                if (streq(*i, NO_SWAP_UNITS_KUBELET))
                        continue;
                if (!unit_name_is_valid(*i, UNIT_NAME_PLAIN | UNIT_NAME_INSTANCE) ||
                    !(endswith(*i, ".service") || endswith(*i, ".slice") || endswith(*i, ".scope")))
                        return FAIL("invalid unit '%s': must be kubelet or the name of a .service, .slice or "
                                    ".scope unit, such as system.slice", *i);
                if (streq(*i, "-.slice"))
                        return FAIL("invalid unit '%s': the root slice has no memory.swap.max", *i);
        }
        return unit_list_update(&st->p->no_swap_units, w);
}

/* ---------------------------------------------------------------------------------------------- */
/* The schema: one row per key, in the order of its section and of nodeswap.conf(5). */

/* /var/run and /var/lock are symbolic links into /run on every systemd distribution. */
static const char *const swapfile_volatile_dirs[] = { "/tmp", "/dev", "/proc", "/sys", "/run", "/var/run",
                                                      "/var/lock", NULL };
/* A writeback device is below /dev; a file must not be where written-back pages stay in RAM. */
static const char *const writeback_volatile_dirs[] = { "/tmp", "/proc", "/sys", "/run", "/var/run", "/var/lock",
                                                       "/dev/shm", NULL };

#define AT(field) .offset = offsetof(Policy, field)
#define EXPR(field) .expr = offsetof(Policy, field), .has_expr = true
#define ROW(sec, key, id_, parser, ...) \
        { .section = sec, .name = key, .id = POLICY_KEY_##id_, .parse = parser, __VA_ARGS__ }

const KeyDef schema_keys[] = {
        ROW("Swap", "Backend", SWAP_BACKEND, parse_backend),

        ROW("Zram", "Size", ZRAM_SIZE, parse_size, AT(zram.size), EXPR(zram.size_expr), .def = DEFAULT_ZRAM_SIZE),
        ROW("Zram", "Algorithm", ZRAM_ALGORITHM, parse_algorithms, AT(zram.algorithms), .expr = offsetof(Policy, zram.algorithm_params),
            .max = UINT64_MAX, .def = DEFAULT_ZRAM_ALGORITHMS),
        ROW("Zram", "Priority", ZRAM_PRIORITY, parse_uint, AT(zram.priority), .max = 32767, .what = "priority",
            .def = DEFAULT_ZRAM_PRIORITY),
        ROW("Zram", "MemLimit", ZRAM_MEM_LIMIT, parse_size, AT(zram.mem_limit), EXPR(zram.mem_limit_expr)),
        /* empty: no recompression */
        ROW("Zram", "RecompressAlgorithm", ZRAM_RECOMPRESS_ALGORITHM, parse_algorithms, AT(zram.recompress),
            .expr = offsetof(Policy, zram.recompress_params), .max = RECOMPRESS_ALGORITHMS_MAX),
        ROW("Zram", "Writeback", ZRAM_WRITEBACK, parse_path, AT(zram.writeback), .dirs = writeback_volatile_dirs,
            .what = "a writeback device or file"),
        ROW("Zram", "WritebackIdleAfter", ZRAM_WRITEBACK_IDLE_AFTER, parse_timespan, AT(zram.writeback_idle_after),
            .min = 1, .def = DEFAULT_WRITEBACK_IDLE_AFTER),
        ROW("Zram", "WritebackInterval", ZRAM_WRITEBACK_INTERVAL, parse_timespan, AT(zram.writeback_interval),
            .def = DEFAULT_WRITEBACK_INTERVAL),
        /* bytes per day, empty = no cap; rounded down to the kernel's 4 KiB unit */
        ROW("Zram", "WritebackLimit", ZRAM_WRITEBACK_LIMIT, parse_size, AT(zram.writeback_limit),
            .unit = ZRAM_WRITEBACK_UNIT),
        ROW("Zram", "WritebackEncrypt", ZRAM_WRITEBACK_ENCRYPT, parse_bool, AT(zram.writeback_encrypt),
            .def = DEFAULT_WRITEBACK_ENCRYPT),

        ROW("File", "Path", FILE_PATH, parse_path, AT(file.path), .dirs = swapfile_volatile_dirs, .what = "a swap file",
            .def = DEFAULT_FILE_PATH),
        ROW("File", "Size", FILE_SIZE, parse_size, AT(file.size), EXPR(file.size_expr), .def = DEFAULT_FILE_SIZE),
        ROW("File", "Priority", FILE_PRIORITY, parse_uint, AT(file.priority), .max = 32767, .what = "priority",
            .def = DEFAULT_FILE_PRIORITY),
        ROW("File", "Storage", FILE_STORAGE, parse_storage, AT(file.storage)),
        ROW("File", "Discard", FILE_DISCARD, parse_discard, AT(file.discard)),
        ROW("File", "Encrypt", FILE_ENCRYPT, parse_bool, AT(file.encrypt), .def = DEFAULT_FILE_ENCRYPT),

        ROW("Zswap", "Compressor", ZSWAP_COMPRESSOR, parse_compressor, AT(zswap.compressors),
            .def = DEFAULT_ZSWAP_COMPRESSORS),
        /* 0 would leave zswap enabled with no room: every page goes straight to the file. */
        ROW("Zswap", "MaxPoolPercent", ZSWAP_MAX_POOL_PERCENT, parse_percent, AT(zswap.max_pool_percent), .min = 1),
        ROW("Zswap", "AcceptThresholdPercent", ZSWAP_ACCEPT_THRESHOLD_PERCENT, parse_percent,
            AT(zswap.accept_threshold_percent)),
        ROW("Zswap", "Shrinker", ZSWAP_SHRINKER, parse_yes_no, AT(zswap.shrinker)),

        ROW("Sysctl", "Swappiness", SYSCTL_SWAPPINESS, parse_uint, AT(swappiness), .max = 200, .what = "swappiness"),
        ROW("Sysctl", "PageCluster", SYSCTL_PAGE_CLUSTER, parse_uint, AT(page_cluster), .max = 10,
            .what = "page-cluster"),
        ROW("Sysctl", "MinFreeKbytes", SYSCTL_MIN_FREE_KBYTES, parse_min_free_kbytes, AT(min_free_kbytes),
            .def = DEFAULT_RECLAIM),
        ROW("Sysctl", "WatermarkScaleFactor", SYSCTL_WATERMARK_SCALE_FACTOR, parse_watermark_scale_factor,
            AT(watermark_scale_factor), .def = DEFAULT_RECLAIM),

        ROW("Kubelet", "SwapBehavior", KUBELET_SWAP_BEHAVIOR, parse_swap_behavior, AT(swap_behavior)),
        ROW("Kubelet", "DropIn", KUBELET_DROPIN, parse_dropin, AT(dropin), .def = DEFAULT_DROPIN),
        ROW("Kubelet", "Unit", KUBELET_UNIT, parse_unit, AT(kubelet_unit)),
        /* only under SwapBehavior=LimitedSwap; empty resets to the default */
        ROW("Kubelet", "MemoryEviction", KUBELET_MEMORY_EVICTION, parse_memory_eviction, AT(memory_eviction),
            .def = DEFAULT_MEMORY_EVICTION),
        /* Empty empties the list; every other NoSwapUnits= appends. */
        ROW("Kubelet", "NoSwapUnits", KUBELET_NO_SWAP_UNITS, parse_no_swap_units, AT(no_swap_units),
            .def = DEFAULT_NO_SWAP_UNITS, .empty_is_value = true),
        ROW("Kubelet", "NodeFeatures", KUBELET_NODE_FEATURES, parse_bool, AT(node_features), .def = DEFAULT_NODE_FEATURES),
        ROW("Kubelet", "IOLatencyTargetSec", KUBELET_IO_LATENCY_TARGET_SEC, parse_io_latency, AT(io_latency_usec),
            .def = DEFAULT_IO_LATENCY),

        /* Empty empties the list; every other Units= appends. */
        ROW("Conflicts", "Units", CONFLICTS_UNITS, parse_units, AT(conflict_units), .def = DEFAULT_CONFLICT_UNITS,
            .empty_is_value = true),
};
const size_t schema_n_keys = ELEMENTSOF(schema_keys);

const SectionDef schema_sections[] = {
        { "Swap" }, { "Zram" }, { "File" }, { "Zswap" }, { "Sysctl" }, { "Kubelet" }, { "Conflicts" },
};
const size_t schema_n_sections = ELEMENTSOF(schema_sections);

int schema_parse(ParseState *st, const KeyDef *k, const char *value, char **ret_msg) {
        /* An empty assignment resets a key to its default. */
        return k->parse(st, k, !*value && k->def && !k->empty_is_value ? k->def : value, ret_msg);
}

int policy_init_defaults(Policy *p, const PolicyContext *ctx) {
        Policy d = {};
        int r;

        if (!p || !policy_context_valid(ctx))
                return -EINVAL;

        ParseState st = { .p = &d, .ctx = ctx };
        d.files = calloc(1, sizeof(char *));
        if (!d.files)
                return -ENOMEM;
        /* Every key as its default sets it. A machine too small for the default expressions (less
         * than two pages of RAM) is not one nodeswap can help: refuse it here rather than hand out
         * a zero size. */
        for (size_t i = 0; i < schema_n_keys; i++) {
                char *msg = NULL;
                r = schema_keys[i].parse(&st, &schema_keys[i], strempty(schema_keys[i].def), &msg);
                free(msg);
                if (r < 0) {
                        policy_done(&d);
                        return r;
                }
        }
        *p = d;
        return 0;
}

const KeyDef *schema_key(PolicyKey id) {
        for (size_t i = 0; i < schema_n_keys; i++)
                if (schema_keys[i].id == id)
                        return &schema_keys[i];
        return NULL;
}

const char *policy_key_section(PolicyKey k) {
        const KeyDef *d = schema_key(k);
        return d ? d->section : NULL;
}

const char *policy_key_name(PolicyKey k) {
        const KeyDef *d = schema_key(k);
        return d ? d->name : NULL;
}

int policy_priority(const Policy *p, PolicyKey k) {
        const KeyDef *d = schema_key(k);
        assert(d && d->parse == parse_uint);
        return *(const int *) ((const char *) p + d->offset);
}

const SectionDef *schema_section_find(const char *name) {
        for (size_t i = 0; i < schema_n_sections; i++)
                if (streq(schema_sections[i].name, name))
                        return &schema_sections[i];
        return NULL;
}

const KeyDef *schema_key_find(const SectionDef *sec, const char *name) {
        for (size_t i = 0; i < schema_n_keys; i++)
                if (streq(schema_keys[i].section, sec->name) && streq(schema_keys[i].name, name))
                        return &schema_keys[i];
        return NULL;
}
