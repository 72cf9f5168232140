/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The policy: nodeswap.conf and its drop-ins, parsed and validated.
 *
 * The INI syntax is read with inih's ini_parse_stream() through our own line reader. inih as
 * Debian builds it gives the handler no line number, caps lines at 200 bytes (a longer line would
 * be split in two), strips "; comments" at the end of a value and treats an indented line as the
 * continuation of the previous value. The reader below takes all of that out of inih's hands: it
 * counts lines, strips leading white space (so indentation never continues a value), refuses an
 * over-long line or a NUL byte at its own line number, checks the shape of every line, and hands
 * inih exactly one clean line per physical line, so inih's own line count stays equal to ours.
 *
 * Decisions (documented for operators in conf/nodeswap.conf and nodeswap.conf(5)):
 *   - Comments are whole lines starting with '#' or ';'. No value accepts ';' or '#', so a line
 *     such as "Size=8G ; note" is an error instead of silently becoming "8G".
 *   - Keys and section names are case-sensitive, as in systemd.
 *   - An empty assignment resets a key to its default; for Units= it empties the list, and every
 *     non-empty Units= appends. Algorithm= replaces the whole preference list.
 *   - Policy files and the directories they sit in must be owned by root (or by the user running
 *     nodeswap) and not writable by group or others. Files are opened with O_NOFOLLOW: a symbolic
 *     link is refused, except a drop-in (or nodeswap.conf) linked to /dev/null, which masks that
 *     name in the directories searched after it.
 */

#include "policy/policy.h"

#include <ctype.h>
#include <dirent.h>
#include <fcntl.h>
#include <ini.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#define DEFAULT_ZRAM_SIZE "min(ram / 2, 8G)"
#define DEFAULT_ZRAM_ALGORITHMS "zstd lz4"
#define DEFAULT_ZRAM_PRIORITY 100
#define DEFAULT_WRITEBACK_IDLE_AFTER_SEC (24 * 3600)
#define DEFAULT_WRITEBACK_INTERVAL_SEC (24 * 3600)
#define RECOMPRESS_ALGORITHMS_MAX 3     /* the kernel has ZRAM_MAX_COMPS = 4 slots, the first is Algorithm= */
#define DEFAULT_FILE_PATH "/var/lib/nodeswap/swapfile"
#define DEFAULT_FILE_SIZE "ram"
#define DEFAULT_FILE_PRIORITY 10
#define DEFAULT_STORAGE (STORAGE_NVME | STORAGE_SSD | STORAGE_VIRTUAL)
#define DEFAULT_DROPIN "/var/lib/rancher/k3s/agent/etc/kubelet.conf.d/90-nodeswap.conf"
#define DEFAULT_CONFLICT_UNITS                                                                  \
        "dev-zram0.swap systemd-zram-setup@zram0.service rpi-zram-writeback.timer "             \
        "rpi-zram-writeback.service rpi-resize-swap-file.service var-swap.swap "                \
        "dphys-swapfile.service zramswap.service"

/* A physical line may hold at most this many bytes, not counting its line break: inih's buffer of
 * INI_MAX_LINE bytes (200 in Debian's build) takes the line, the '\n' the reader hands on with it,
 * and the terminating NUL. */
#define POLICY_LINE_MAX (INI_MAX_LINE - 2)

static const char *const search_dirs[] = {
        "/etc/nodeswap",
        "/run/nodeswap",
        "/usr/local/lib/nodeswap",
        "/usr/lib/nodeswap",
};

const char *storage_kind_to_string(StorageKind k) {
        switch (k) {
        case STORAGE_NVME: return "nvme";
        case STORAGE_SSD: return "ssd";
        case STORAGE_VIRTUAL: return "virtual";
        case STORAGE_ROTATIONAL: return "rotational";
        case STORAGE_MMC: return "mmc";
        }
        return NULL;
}

static const StorageKind storage_kinds[] = {
        STORAGE_NVME, STORAGE_SSD, STORAGE_VIRTUAL, STORAGE_ROTATIONAL, STORAGE_MMC,
};

const char *swap_behavior_to_string(SwapBehavior b) {
        switch (b) {
        case SWAP_BEHAVIOR_UNSET: return "";
        case SWAP_BEHAVIOR_NO_SWAP: return "NoSwap";
        case SWAP_BEHAVIOR_LIMITED_SWAP: return "LimitedSwap";
        }
        return NULL;
}

/* ---------------------------------------------------------------------------------------------- */
/* Errors */

static void policy_error_done(PolicyError *e) {
        free(e->file);
        free(e->section);
        free(e->key);
        free(e->value);
        free(e->message);
        *e = (PolicyError) {};
}

void policy_errors_clear(PolicyErrors *e) {
        if (!e)
                return;
        for (size_t i = 0; i < e->n; i++)
                policy_error_done(&e->errors[i]);
        free(e->errors);
        *e = (PolicyErrors) {};
}

/* Values come from files anyone may hand us: never print control characters raw. */
static void fputs_escaped(const char *s, FILE *f) {
        for (; *s; s++) {
                unsigned char c = (unsigned char) *s;
                if (c < 0x20 || c == 0x7f)
                        fprintf(f, "\\x%02x", c);
                else
                        fputc(c, f);
        }
}

char *policy_error_format(const PolicyError *e) {
        char *buf = NULL;
        size_t size = 0;
        FILE *f = open_memstream(&buf, &size);
        if (!f)
                return NULL;

        if (e->file) {
                fputs_escaped(e->file, f);
                if (e->line > 0)
                        fprintf(f, ":%u", e->line);
                fputs(": ", f);
        }
        if (e->section || e->key) {
                if (e->section)
                        fprintf(f, "[%s]", e->section);
                if (e->key) {
                        if (e->section)
                                fputc(' ', f);
                        fputs_escaped(e->key, f);
                        fputc('=', f);
                        if (e->value)
                                fputs_escaped(e->value, f);
                }
                fputs(": ", f);
        }
        fputs_escaped(strempty(e->message), f);

        if (fclose(f) != 0) {
                free(buf);
                return NULL;
        }
        return buf;
}

/* ---------------------------------------------------------------------------------------------- */
/* Defaults */

void policy_done(Policy *p) {
        if (!p)
                return;
        strv_free(p->files);
        free(p->zram.size_expr);
        strv_free(p->zram.algorithms);
        strv_free(p->zram.algorithm_params);
        strv_free(p->zram.recompress);
        strv_free(p->zram.recompress_params);
        free(p->zram.writeback);
        free(p->file.path);
        free(p->file.size_expr);
        free(p->dropin);
        free(p->kubelet_unit);
        strv_free(p->conflict_units);
        *p = (Policy) {};
}

static bool context_valid(const PolicyContext *ctx) {
        return ctx && ctx->ram > 0 && ctx->page_size > 0 && (ctx->page_size & (ctx->page_size - 1)) == 0;
}

int policy_init_defaults(Policy *p, const PolicyContext *ctx) {
        const char *reason;
        Policy d = {
                .swappiness = -1,
                .page_cluster = -1,
                .swap_behavior = SWAP_BEHAVIOR_UNSET,
        };
        int r;

        if (!p || !context_valid(ctx))
                return -EINVAL;

        d.files = calloc(1, sizeof(char *));
        d.zram.size_expr = strdup(DEFAULT_ZRAM_SIZE);
        d.zram.algorithms = strv_split_ws(DEFAULT_ZRAM_ALGORITHMS);
        d.zram.algorithm_params = strv_split_ws(DEFAULT_ZRAM_ALGORITHMS);
        for (char **i = d.zram.algorithm_params; i && *i; i++)
                (*i)[0] = 0;    /* no parameters for any of them */
        d.file.path = strdup(DEFAULT_FILE_PATH);
        d.file.size_expr = strdup(DEFAULT_FILE_SIZE);
        d.dropin = strdup(DEFAULT_DROPIN);
        d.conflict_units = strv_split_ws(DEFAULT_CONFLICT_UNITS);
        if (!d.files || !d.zram.size_expr || !d.zram.algorithms || !d.zram.algorithm_params || !d.file.path || !d.file.size_expr ||
            !d.dropin || !d.conflict_units) {
                policy_done(&d);
                return -ENOMEM;
        }

        d.zram.priority = DEFAULT_ZRAM_PRIORITY;
        d.zram.writeback_idle_after = DEFAULT_WRITEBACK_IDLE_AFTER_SEC;
        d.zram.writeback_interval = DEFAULT_WRITEBACK_INTERVAL_SEC;
        d.file.priority = DEFAULT_FILE_PRIORITY;
        d.file.storage = DEFAULT_STORAGE;

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
int policy_revert(Policy *ret, const PolicyContext *ctx) {
        Policy p;
        int r = policy_init_defaults(&p, ctx);
        if (r < 0)
                return r;
        p.found = true;
        p.backend_set = true;
        p.backends = 0;
        p.swap_behavior = SWAP_BEHAVIOR_NO_SWAP;
        *ret = p;
        return 0;
}

/* ---------------------------------------------------------------------------------------------- */
/* Parse state */

typedef struct Err {
        PolicyError e;
        size_t rank;            /* order of the file among all files considered */
        size_t seq;             /* order of creation, to keep the sort stable */
} Err;

typedef enum SectionState {
        SECTION_NONE,           /* no section header yet */
        SECTION_KNOWN,
        SECTION_IGNORED,        /* unknown or malformed; its keys are skipped (already reported) */
} SectionState;

typedef struct ParseState {
        Policy *p;
        const PolicyContext *ctx;

        Err *errors;
        size_t n_errors;
        bool oom;
        int read_error;         /* first -errno from reading a file, other than refusals */

        /* The file being parsed. */
        const char *path;       /* display path (points into p->files while parsing) */
        size_t rank;
        size_t *file_ranks;     /* rank of each p->files[i] */
        unsigned line;
        SectionState section_state;
        const char *section;    /* canonical name when SECTION_KNOWN */

        /* Origins of keys the Policy has no Origin field for. */
        Origin mem_limit_origin;
        char *mem_limit_expr;
} ParseState;

_printf_(7, 0)
static int err_addv(ParseState *st, const char *file, unsigned line, const char *section,
                    const char *key, const char *value, const char *fmt, va_list ap) {
        Err *n = realloc(st->errors, sizeof(Err) * (st->n_errors + 1));
        if (!n)
                goto oom;
        st->errors = n;

        Err *e = &st->errors[st->n_errors];
        *e = (Err) {
                .e.line = line,
                .rank = st->rank,
                .seq = st->n_errors,
        };
        if (vasprintf(&e->e.message, fmt, ap) < 0) {
                e->e.message = NULL;
                goto oom;
        }
        e->e.file = file ? strdup(file) : NULL;
        e->e.section = section ? strdup(section) : NULL;
        e->e.key = key ? strdup(key) : NULL;
        e->e.value = value ? strdup(value) : NULL;
        if ((file && !e->e.file) || (section && !e->e.section) || (key && !e->e.key) ||
            (value && !e->e.value)) {
                policy_error_done(&e->e);
                goto oom;
        }
        st->n_errors++;
        return 0;
oom:
        st->oom = true;
        return -ENOMEM;
}

_printf_(6, 7)
static int err_at(ParseState *st, unsigned line, const char *section, const char *key, const char *value,
                  const char *fmt, ...) {
        va_list ap;
        va_start(ap, fmt);
        int r = err_addv(st, st->path, line, section, key, value, fmt, ap);
        va_end(ap);
        return r;
}

_printf_(3, 4)
static int err_file(ParseState *st, const char *file, const char *fmt, ...) {
        va_list ap;
        va_start(ap, fmt);
        int r = err_addv(st, file, 0, NULL, NULL, NULL, fmt, ap);
        va_end(ap);
        return r;
}

/* ---------------------------------------------------------------------------------------------- */
/* Suggestions */

static size_t edit_distance(const char *a, const char *b) {
        size_t la = strlen(a), lb = strlen(b);
        size_t row[lb + 1];

        for (size_t j = 0; j <= lb; j++)
                row[j] = j;
        for (size_t i = 1; i <= la; i++) {
                size_t diag = row[0];
                row[0] = i;
                for (size_t j = 1; j <= lb; j++) {
                        size_t up = row[j];
                        size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
                        size_t best = diag + cost;
                        if (row[j - 1] + 1 < best)
                                best = row[j - 1] + 1;
                        if (up + 1 < best)
                                best = up + 1;
                        row[j] = best;
                        diag = up;
                }
        }
        return row[lb];
}

/* The nearest of names to s, if near enough to be a likely typo; NULL otherwise. A name equal but
 * for case, or starting with s (three letters or more), always qualifies. */
static const char *suggest(const char *s, const char *const *names, size_t n) {
        const char *best = NULL;
        size_t best_d = SIZE_MAX, len = strlen(s);

        if (len > 64)
                return NULL;
        for (size_t i = 0; i < n; i++) {
                size_t d = strcasecmp(s, names[i]) == 0 ? 0 :
                           len >= 3 && strncasecmp(s, names[i], len) == 0 ? 1 :  /* an abbreviation */
                           edit_distance(s, names[i]);
                if (d < best_d) {
                        best_d = d;
                        best = names[i];
                }
        }
        size_t limit = len / 3 > 2 ? len / 3 : 2;
        return best_d <= limit ? best : NULL;
}

const char *policy_suggest(const char *s, char *const *names) {
        size_t n = 0;
        for (char *const *i = names; i && *i; i++)
                n++;
        if (!s || n == 0 || n > 64)
                return NULL;
        const char *l[64];
        for (size_t i = 0; i < n; i++)
                l[i] = names[i];
        return suggest(s, l, n);
}

/* ---------------------------------------------------------------------------------------------- */
/* Value checks */

/* A plain decimal number (digits only), no larger than max. */
static int parse_plain_uint(const char *v, uint64_t max, uint64_t *ret) {
        uint64_t n = 0;
        if (!*v)
                return -EINVAL;
        for (const char *c = v; *c; c++) {
                if (*c < '0' || *c > '9')
                        return -EINVAL;
                if (__builtin_mul_overflow(n, 10, &n) || __builtin_add_overflow(n, (uint64_t) (*c - '0'), &n))
                        return -ERANGE;
        }
        if (n > max)
                return -ERANGE;
        *ret = n;
        return 0;
}

static bool path_is_under(const char *path, const char *dir) {
        size_t l = strlen(dir);
        return strncmp(path, dir, l) == 0 && (path[l] == '/' || path[l] == 0);
}

/* An absolute path naming a file: collapses "//" and "/./", refuses "..", white space, control
 * characters and a trailing '/'. */
static int path_normalize(const char *v, char **ret, const char **ret_reason) {
        if (v[0] != '/') {
                *ret_reason = "must be an absolute path";
                return -EINVAL;
        }
        for (const char *c = v; *c; c++)
                if (isspace((unsigned char) *c) || iscntrl((unsigned char) *c)) {
                        *ret_reason = "must not contain white space or control characters";
                        return -EINVAL;
                }
        if (strlen(v) >= PATH_MAX) {
                *ret_reason = "the path is too long";
                return -EINVAL;
        }

        _cleanup_free_ char *out = malloc(strlen(v) + 1);
        if (!out)
                return -ENOMEM;
        char *o = out;
        const char *c = v, *last = NULL;
        for (;;) {
                while (*c == '/')
                        c++;
                if (!*c)
                        break;
                const char *e = strchrnul(c, '/');
                size_t l = (size_t) (e - c);
                last = c;
                if (l == 2 && c[0] == '.' && c[1] == '.') {
                        *ret_reason = "must not contain a '..' component";
                        return -EINVAL;
                }
                if (!(l == 1 && c[0] == '.')) {
                        *o++ = '/';
                        memcpy(o, c, l);
                        o += l;
                }
                c = e;
        }
        *o = 0;
        size_t vl = strlen(v);
        if (!last || v[vl - 1] == '/' || (vl >= 2 && streq(v + vl - 2, "/.")) || o == out) {
                *ret_reason = "must name a file, not a directory";
                return -EINVAL;
        }
        *ret = out;
        out = NULL;
        return 0;
}

static const char *const unit_suffixes[] = {
        ".service", ".socket", ".device", ".mount", ".automount", ".swap",
        ".target", ".path", ".timer", ".slice", ".scope",
};

/* A systemd unit name: a known type suffix after a non-empty prefix of letters, digits and
 * ":-_.\@"; at most one '@', not first. Templates ("foo@.service") pass unless instance_required. */
static bool unit_name_valid(const char *n, bool instance_required) {
        size_t len = strlen(n);
        const char *dot = strrchr(n, '.');
        bool suffix_ok = false;

        if (len == 0 || len > 255 || !dot || dot == n)
                return false;
        for (size_t i = 0; i < ELEMENTSOF(unit_suffixes); i++)
                if (streq(dot, unit_suffixes[i]))
                        suffix_ok = true;
        if (!suffix_ok)
                return false;
        for (const char *c = n; c < dot; c++)
                if (!isalnum((unsigned char) *c) && !strchr(":-_.\\@", *c))
                        return false;
        const char *at = strchr(n, '@');
        if (at) {
                if (at == n || at > dot || strchr(at + 1, '@'))
                        return false;
                if (instance_required && at + 1 == dot)
                        return false;
        }
        return true;
}

/* ---------------------------------------------------------------------------------------------- */
/* Keys */

typedef int (*KeyParser)(ParseState *st, const char *value, char **ret_msg);

#define FAIL(...)                                                               \
        ({                                                                      \
                *ret_msg = strdup_printf(__VA_ARGS__);                          \
                *ret_msg ? -EINVAL : -ENOMEM;                                   \
        })

static Origin origin_here(ParseState *st) {
        return (Origin) { .file = st->path, .line = st->line };
}

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
                else if (streq(*i, "none"))
                        none = true;
                else
                        return FAIL("unknown backend '%s' (zram, file, \"zram file\" or none)", *i);
        }
        if (none && bits)
                return FAIL("'none' cannot be combined with other backends");

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
                bool ok = false;
                for (size_t k = 0; k < ELEMENTSOF(storage_kinds); k++)
                        if (streq(*i, storage_kind_to_string(storage_kinds[k]))) {
                                bits |= storage_kinds[k];
                                ok = true;
                        }
                if (!ok)
                        return FAIL("unknown storage kind '%s' (nvme, ssd, virtual, rotational, mmc)", *i);
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

        if (!*v)
                st->p->swap_behavior = SWAP_BEHAVIOR_UNSET;
        else if (streq(v, "LimitedSwap"))
                st->p->swap_behavior = SWAP_BEHAVIOR_LIMITED_SWAP;
        else if (streq(v, "NoSwap"))
                st->p->swap_behavior = SWAP_BEHAVIOR_NO_SWAP;
        else {
                const char *s = suggest(v, names, ELEMENTSOF(names));
                if (s)
                        return FAIL("must be LimitedSwap, NoSwap or empty; did you mean '%s'?", s);
                return FAIL("must be LimitedSwap, NoSwap or empty");
        }
        return 0;
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
        if (!endswith(v, ".service") || !unit_name_valid(v, true))
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
                if (!unit_name_valid(*i, false))
                        return FAIL("invalid unit name '%s'", *i);
        for (char **i = w; *i; i++)
                if (!strv_contains(st->p->conflict_units, *i) && strv_extend(&st->p->conflict_units, *i) < 0)
                        return -ENOMEM;
        return 0;
}

typedef struct KeyDef {
        const char *name;
        KeyParser parse;
        PolicyKey id;
} KeyDef;

typedef struct SectionDef {
        const char *name;
        const KeyDef *keys;
        size_t n_keys;
} SectionDef;

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
static const SectionDef sections[] = {
        SECTION("Swap", swap_keys),
        SECTION("Zram", zram_keys),
        SECTION("File", file_keys),
        SECTION("Sysctl", sysctl_keys),
        SECTION("Kubelet", kubelet_keys),
        SECTION("Conflicts", conflicts_keys),
};

static const KeyDef *key_find(PolicyKey k, const char **ret_section) {
        for (size_t i = 0; i < ELEMENTSOF(sections); i++)
                for (size_t j = 0; j < sections[i].n_keys; j++)
                        if (sections[i].keys[j].id == k) {
                                if (ret_section)
                                        *ret_section = sections[i].name;
                                return &sections[i].keys[j];
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

static const SectionDef *section_find(const char *name) {
        for (size_t i = 0; i < ELEMENTSOF(sections); i++)
                if (streq(sections[i].name, name))
                        return &sections[i];
        return NULL;
}

static int report_unknown_section(ParseState *st, const char *name) {
        const char *names[ELEMENTSOF(sections)];
        for (size_t i = 0; i < ELEMENTSOF(sections); i++)
                names[i] = sections[i].name;
        const char *s = suggest(name, names, ELEMENTSOF(names));
        if (s)
                return err_at(st, st->line, NULL, NULL, NULL, "unknown section [%s], did you mean [%s]?", name, s);
        return err_at(st, st->line, NULL, NULL, NULL,
                      "unknown section [%s] (known: Swap, Zram, File, Sysctl, Kubelet, Conflicts)", name);
}

static int report_unknown_key(ParseState *st, const SectionDef *sec, const char *key, const char *value) {
        const char *names[8], *elsewhere[ELEMENTSOF(sections)];
        size_t n = 0, n_elsewhere = 0;

        for (size_t k = 0; k < sec->n_keys && n < ELEMENTSOF(names); k++)
                names[n++] = sec->keys[k].name;
        const char *s = suggest(key, names, n);

        /* A typo of a key of this section. */
        if (s && edit_distance(key, s) <= 1)
                return err_at(st, st->line, sec->name, key, value, "unknown key '%s', did you mean '%s'?", key, s);

        /* A known key put into the wrong section. */
        for (size_t i = 0; i < ELEMENTSOF(sections); i++)
                for (size_t k = 0; k < sections[i].n_keys; k++)
                        if (streq(sections[i].keys[k].name, key))
                                elsewhere[n_elsewhere++] = sections[i].name;
        if (n_elsewhere == 1)
                return err_at(st, st->line, sec->name, key, value, "unknown key '%s' in [%s]; it belongs in [%s]",
                              key, sec->name, elsewhere[0]);
        if (n_elsewhere == 2)
                return err_at(st, st->line, sec->name, key, value,
                              "unknown key '%s' in [%s]; it belongs in [%s] or [%s]", key, sec->name,
                              elsewhere[0], elsewhere[1]);

        if (s)
                return err_at(st, st->line, sec->name, key, value, "unknown key '%s', did you mean '%s'?", key, s);
        return err_at(st, st->line, sec->name, key, value, "unknown key '%s' in [%s]", key, sec->name);
}

/* inih's callback. The reader has already checked the shape of the line and the section. */
static int ini_handler_cb(void *user, const char *section, const char *name, const char *value) {
        ParseState *st = user;
        const SectionDef *sec;
        char *msg = NULL;
        int r;

        if (st->oom || st->section_state != SECTION_KNOWN)
                return 1;
        sec = section_find(section);
        if (!sec) {
                /* Cannot happen: the reader only lets known sections through. */
                (void) err_at(st, st->line, NULL, name, value, "key in an unknown section");
                return 1;
        }
        for (size_t k = 0; k < sec->n_keys; k++) {
                if (!streq(sec->keys[k].name, name))
                        continue;
                r = sec->keys[k].parse(st, value, &msg);
                if (r >= 0)
                        st->p->origin[sec->keys[k].id] = origin_here(st);
                if (r == -ENOMEM)
                        st->oom = true;
                else if (r < 0) {
                        (void) err_at(st, st->line, sec->name, name, value, "%s", strempty(msg));
                        free(msg);
                }
                return 1;
        }
        (void) report_unknown_key(st, sec, name, value);
        return 1;
}

/* ---------------------------------------------------------------------------------------------- */
/* The line reader */

typedef struct Stream {
        ParseState *st;
        const char *buf;
        size_t len, pos;
} Stream;

static bool is_key_char(char c) {
        return isalnum((unsigned char) c) || c == '_';
}

/* Checks one line (leading and trailing white space already removed) and writes what inih should
 * see into out: the line itself in canonical form, or nothing when the line is a comment, blank,
 * or wrong (then the error is recorded here). out has room for len + 2 bytes. */
static void classify_line(ParseState *st, char *l, size_t len, char *out) {
        out[0] = 0;

        if (len == 0 || l[0] == '#' || l[0] == ';')
                return;

        if (l[0] == '[') {
                if (l[len - 1] != ']') {
                        (void) err_at(st, st->line, NULL, NULL, NULL,
                                      "malformed section header (expected [Name] alone on the line)");
                        st->section_state = SECTION_IGNORED;
                        return;
                }
                l[len - 1] = 0;
                const char *name = l + 1;
                if (!*name || strspn(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-") !=
                                      strlen(name)) {
                        (void) err_at(st, st->line, NULL, NULL, NULL, "malformed section header [%s]", name);
                        st->section_state = SECTION_IGNORED;
                        return;
                }
                const SectionDef *sec = section_find(name);
                if (!sec) {
                        (void) report_unknown_section(st, name);
                        st->section_state = SECTION_IGNORED;
                        return;
                }
                st->section_state = SECTION_KNOWN;
                st->section = sec->name;
                sprintf(out, "[%s]\n", sec->name);
                return;
        }

        char *eq = strchr(l, '=');
        if (!eq) {
                (void) err_at(st, st->line, st->section_state == SECTION_KNOWN ? st->section : NULL, NULL, NULL,
                              "expected Key=value, a [Section] header or a comment");
                return;
        }
        char *ke = eq;
        while (ke > l && isblank((unsigned char) ke[-1]))
                ke--;
        *ke = 0;
        char *value = eq + 1;
        while (isblank((unsigned char) *value))
                value++;

        const char *sect = st->section_state == SECTION_KNOWN ? st->section : NULL;
        bool key_ok = *l != 0;
        for (const char *c = l; *c; c++)
                if (!is_key_char(*c))
                        key_ok = false;
        if (!key_ok) {
                (void) err_at(st, st->line, sect, NULL, NULL, "invalid key name '%s'", l);
                return;
        }
        if (st->section_state == SECTION_NONE) {
                (void) err_at(st, st->line, NULL, l, value, "key outside of any section");
                return;
        }
        if (st->section_state == SECTION_IGNORED)
                return;         /* reported at the section header */
        if (strpbrk(value, ";#")) {
                (void) err_at(st, st->line, sect, l, value,
                              "';' and '#' are not allowed in values; comments go on a line of their own");
                return;
        }
        sprintf(out, "%s=%s\n", l, value);
}

/* Whether s[0..len) is well-formed UTF-8: no overlong forms, no surrogates, nothing above
 * U+10FFFF. */
static bool utf8_valid(const char *s, size_t len) {
        const unsigned char *p = (const unsigned char *) s, *end = p + len;
        while (p < end) {
                unsigned char c = *p;
                size_t n;
                uint32_t cp, min;
                if (c < 0x80) {
                        p++;
                        continue;
                } else if ((c & 0xe0) == 0xc0) {
                        n = 1, cp = c & 0x1f, min = 0x80;
                } else if ((c & 0xf0) == 0xe0) {
                        n = 2, cp = c & 0x0f, min = 0x800;
                } else if ((c & 0xf8) == 0xf0) {
                        n = 3, cp = c & 0x07, min = 0x10000;
                } else
                        return false;
                if ((size_t) (end - p) <= n)
                        return false;
                for (size_t i = 1; i <= n; i++) {
                        if ((p[i] & 0xc0) != 0x80)
                                return false;
                        cp = (cp << 6) | (p[i] & 0x3f);
                }
                if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
                        return false;
                p += n + 1;
        }
        return true;
}

static char *ini_reader_cb(char *str, int num, void *stream) {
        Stream *s = stream;
        ParseState *st = s->st;

        if (s->pos >= s->len || st->oom || num < 3)
                return NULL;

        const char *start = s->buf + s->pos;
        const char *nl = memchr(start, '\n', s->len - s->pos);
        size_t len = nl ? (size_t) (nl - start) : s->len - s->pos;
        s->pos += len + (nl ? 1 : 0);
        st->line++;

        /* From here on, one physical line is exactly one line handed to inih. */
        str[0] = '\n';
        str[1] = 0;

        if (st->line == 1 && len >= 3 && memcmp(start, "\xef\xbb\xbf", 3) == 0) {
                start += 3;
                len -= 3;
        }
        if (len > 0 && start[len - 1] == '\r')
                len--;
        if (memchr(start, 0, len)) {
                (void) err_at(st, st->line, NULL, NULL, NULL, "the line contains a NUL byte");
                return str;
        }
        size_t max = (size_t) num - 2 < POLICY_LINE_MAX ? (size_t) num - 2 : POLICY_LINE_MAX;
        if (len > max) {
                (void) err_at(st, st->line, NULL, NULL, NULL, "the line is %zu bytes long, longer than the %zu allowed",
                              len, max);
                return str;
        }

        char l[POLICY_LINE_MAX + 1];
        while (len > 0 && isspace((unsigned char) start[0])) {
                start++;
                len--;
        }
        while (len > 0 && isspace((unsigned char) start[len - 1]))
                len--;
        memcpy(l, start, len);
        l[len] = 0;

        /* Values end up in unit files, JSON and messages: text only. Comments may hold anything. */
        if (l[0] != '#' && l[0] != ';' && !utf8_valid(l, len)) {
                (void) err_at(st, st->line, NULL, NULL, NULL, "the line is not valid UTF-8");
                return str;
        }

        char out[POLICY_LINE_MAX + 3];
        classify_line(st, l, len, out);
        if (out[0])
                strcpy(str, out);
        return str;
}

static void parse_buffer(ParseState *st, const char *buf, size_t len) {
        Stream s = { .st = st, .buf = buf, .len = len };

        st->line = 0;
        st->section_state = SECTION_NONE;
        st->section = NULL;

        int r = ini_parse_stream(ini_reader_cb, &s, ini_handler_cb, st);
        if (r > 0 && !st->oom)
                /* The reader hands inih only well-formed lines; this is a safety net. */
                (void) err_at(st, (unsigned) r, NULL, NULL, NULL, "syntax error");
        else if (r < 0)
                st->oom = true;
}

/* ---------------------------------------------------------------------------------------------- */
/* Files */

static bool is_dev_null_link(int dirfd, const char *name) {
        char target[64];
        ssize_t n = readlinkat(dirfd, name, target, sizeof(target) - 1);
        if (n < 0)
                return false;
        target[n] = 0;
        if (streq(target, "/dev/null"))
                return true;
        struct stat s;
        return fstatat(dirfd, name, &s, 0) >= 0 && S_ISCHR(s.st_mode) && s.st_rdev == makedev(1, 3);
}


/* Files and directories that may define the policy must be owned by root (or by whoever runs us:
 * a non-root "nodeswap check" trusts only itself) and not be writable by group or others.
 * Returns 1 when refused (the error is recorded), 0 when trusted, -ENOMEM. */
static int check_trusted(ParseState *st, const char *path, const struct stat *s, const char *what) {
        int r;

        if (s->st_uid != 0 && s->st_uid != geteuid())
                r = err_file(st, path, "%s is owned by uid %u, not root (mode %04o); refusing it", what,
                             (unsigned) s->st_uid, (unsigned) (s->st_mode & 07777));
        else if (s->st_mode & (S_IWGRP | S_IWOTH))
                r = err_file(st, path, "%s is writable by group or others (mode %04o); refusing it (chmod go-w)",
                             what, (unsigned) (s->st_mode & 07777));
        else
                return 0;
        return r < 0 ? r : 1;
}

static int record_read_error(ParseState *st, const char *path, const char *what, int err) {
        if (st->read_error == 0)
                st->read_error = err;
        int r = err_file(st, path, "cannot %s: %s", what, strerror(-err));
        if (r >= 0)
                st->errors[st->n_errors - 1].e.read_errno = -err;
        return r;
}

static int read_fd(int fd, char **ret, size_t *ret_len) {
        return read_fd_full(fd, POLICY_FILE_MAX, false, ret, ret_len);
}

/* Reads and parses one policy file (name relative to dirfd). Returns 1 when the file exists (read,
 * or refused with an error recorded), 0 when it is a link to /dev/null and may_mask is set,
 * -ENOENT when it does not exist, -ENOMEM. */
static int load_file(ParseState *st, int dirfd, const char *name, const char *display, bool may_mask) {
        _cleanup_close_ int fd = -EBADF;
        _cleanup_free_ char *buf = NULL;
        struct stat s;
        size_t len = 0;
        int r;

        fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NOFOLLOW | O_NONBLOCK);
        int open_errno = fd < 0 ? errno : 0;
        if (open_errno == ENOENT)
                return -ENOENT;
        if (open_errno == ELOOP && may_mask && is_dev_null_link(dirfd, name))
                return 0;

        st->rank++;
        st->p->found = true;
        if (fd < 0) {
                if (open_errno == ELOOP)
                        r = err_file(st, display, "is a symbolic link; policy files are not followed through "
                                     "links (only a link to /dev/null, which masks the name, is allowed)");
                else
                        r = record_read_error(st, display, "open", -open_errno);
                return r < 0 ? r : 1;
        }
        if (fstat(fd, &s) < 0)
                r = record_read_error(st, display, "stat", -errno);
        else if (!S_ISREG(s.st_mode))
                r = err_file(st, display, "not a regular file; refusing it");
        else {
                r = check_trusted(st, display, &s, "the file");
                if (r == 0) {
                        r = read_fd(fd, &buf, &len);
                        if (r == -EFBIG)
                                r = err_file(st, display, "the file is larger than %d bytes", POLICY_FILE_MAX);
                        else if (r < 0 && r != -ENOMEM)
                                r = record_read_error(st, display, "read", r);
                        else if (r == 0) {
                                r = strv_extend(&st->p->files, display);
                                if (r >= 0) {
                                        size_t n = strv_length(st->p->files);
                                        size_t *fr = realloc(st->file_ranks, sizeof(size_t) * n);
                                        if (!fr)
                                                r = -ENOMEM;
                                        else {
                                                st->file_ranks = fr;
                                                fr[n - 1] = st->rank;
                                                st->path = st->p->files[n - 1];
                                                parse_buffer(st, buf, len);
                                                st->path = display;
                                        }
                                }
                        }
                }
        }
        if (r == -ENOMEM || st->oom)
                return -ENOMEM;
        return 1;
}

/* Parses text that is not a file of the search path (--config -) as one policy file named display. */
static int load_text(ParseState *st, const char *display, const char *text, size_t len) {
        st->rank++;
        st->p->found = true;
        int r = strv_extend(&st->p->files, display);
        if (r < 0)
                return r;
        size_t n = strv_length(st->p->files);
        size_t *fr = realloc(st->file_ranks, sizeof(size_t) * n);
        if (!fr)
                return -ENOMEM;
        st->file_ranks = fr;
        fr[n - 1] = st->rank;
        st->path = st->p->files[n - 1];
        parse_buffer(st, text, len);
        return st->oom ? -ENOMEM : 1;
}

typedef struct DropInEntry {
        char *name;
        size_t dir;
} DropInEntry;

static int dropin_cmp(const void *a, const void *b) {
        return strcmp(((const DropInEntry *) a)->name, ((const DropInEntry *) b)->name);
}

/* Opens a directory of the search path; -1 when absent or refused (error recorded). */
static int open_search_dir(ParseState *st, int parent, const char *name, const char *display, int *ret_fd) {
        struct stat s;
        int r;

        *ret_fd = -EBADF;
        int fd = openat(parent, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0) {
                if (errno == ENOENT)
                        return 0;
                if (errno == ENOTDIR)
                        r = err_file(st, display, "not a directory; refusing it");
                else
                        r = record_read_error(st, display, "open directory", -errno);
                return r < 0 ? r : 0;
        }
        if (fstat(fd, &s) < 0) {
                r = record_read_error(st, display, "stat", -errno);
                close(fd);
                return r < 0 ? r : 0;
        }
        r = check_trusted(st, display, &s, "the directory");
        if (r != 0) {
                close(fd);
                return r < 0 ? r : 0;
        }
        *ret_fd = fd;
        return 0;
}

/* Where --policy-file-as puts its file: the index of the search directory, and the drop-in name
 * (NULL for the main file). Returns 0, or -EINVAL when path is not a file nodeswap reads. */
static int file_as_slot(const char *path, size_t *ret_dir, const char **ret_name) {
        for (size_t i = 0; i < ELEMENTSOF(search_dirs); i++) {
                size_t l = strlen(search_dirs[i]);
                if (strncmp(path, search_dirs[i], l) != 0 || path[l] != '/')
                        continue;
                const char *rest = path + l;
                if (streq(rest, "/nodeswap.conf")) {
                        *ret_dir = i;
                        *ret_name = NULL;
                        return 0;
                }
                const char *name = startswith(rest, "/nodeswap.conf.d/") ? rest + strlen("/nodeswap.conf.d/") : NULL;
                if (name && name[0] != '.' && !strchr(name, '/') && endswith(name, ".conf") &&
                    !streq(name, ".conf")) {
                        *ret_dir = i;
                        *ret_name = name;
                        return 0;
                }
        }
        return -EINVAL;
}

/* Reads the file that --policy-file-as puts in place of another. */
static int load_file_as(ParseState *st, const PolicyFileAs *as) {
        int r = load_file(st, AT_FDCWD, as->file, as->file, false);
        if (r == -ENOENT) {
                st->rank++;
                r = record_read_error(st, as->file, "open", -ENOENT);
                return r < 0 ? r : 1;
        }
        return r;
}

static int load_search_path(ParseState *st, const char *root, const PolicyFileAs *as) {
        int dfd[ELEMENTSOF(search_dirs)], cfd[ELEMENTSOF(search_dirs)];
        char *dpath[ELEMENTSOF(search_dirs)] = {}, *cpath[ELEMENTSOF(search_dirs)] = {};
        DropInEntry *entries = NULL;
        size_t n_entries = 0, as_dir = SIZE_MAX;
        const char *as_name = NULL;
        int r = 0;

        if (as && file_as_slot(as->path, &as_dir, &as_name) < 0) {
                st->rank++;
                r = err_file(st, as->path,
                             "not a policy file nodeswap reads: nodeswap.conf or nodeswap.conf.d/NAME.conf in "
                             "/etc/nodeswap, /run/nodeswap, /usr/local/lib/nodeswap or /usr/lib/nodeswap");
                return r < 0 ? r : 0;
        }

        for (size_t i = 0; i < ELEMENTSOF(search_dirs); i++)
                dfd[i] = cfd[i] = -EBADF;

        for (size_t i = 0; i < ELEMENTSOF(search_dirs); i++) {
                dpath[i] = path_join_root(root, search_dirs[i]);
                cpath[i] = dpath[i] ? strdup_printf("%s/nodeswap.conf.d", dpath[i]) : NULL;
                if (!dpath[i] || !cpath[i]) {
                        r = -ENOMEM;
                        goto finish;
                }
                r = open_search_dir(st, AT_FDCWD, dpath[i], dpath[i], &dfd[i]);
                if (r < 0)
                        goto finish;
                if (dfd[i] >= 0) {
                        r = open_search_dir(st, dfd[i], "nodeswap.conf.d", cpath[i], &cfd[i]);
                        if (r < 0)
                                goto finish;
                }
        }

        /* The main file: the first one found (or masked) wins, only one is read. */
        for (size_t i = 0; i < ELEMENTSOF(search_dirs); i++) {
                if (i == as_dir && !as_name) {
                        /* --policy-file-as: this file is here, whatever the directory holds. */
                        r = load_file_as(st, as);
                        if (r < 0)
                                goto finish;
                        break;
                }
                if (dfd[i] < 0)
                        continue;
                _cleanup_free_ char *display = strdup_printf("%s/nodeswap.conf", dpath[i]);
                if (!display) {
                        r = -ENOMEM;
                        goto finish;
                }
                r = load_file(st, dfd[i], "nodeswap.conf", display, true);
                if (r == -ENOENT)
                        continue;
                if (r < 0)
                        goto finish;
                break;
        }

        /* Drop-ins: one per file name, from the first directory that has it. */
        for (size_t i = 0; i < ELEMENTSOF(search_dirs); i++) {
                if (cfd[i] < 0)
                        continue;
                int dup_fd = fcntl(cfd[i], F_DUPFD_CLOEXEC, 3);
                if (dup_fd < 0) {
                        r = record_read_error(st, cpath[i], "read directory", -errno);
                        if (r < 0)
                                goto finish;
                        continue;
                }
                DIR *d = fdopendir(dup_fd);
                if (!d) {
                        close(dup_fd);
                        r = record_read_error(st, cpath[i], "read directory", -errno);
                        if (r < 0)
                                goto finish;
                        continue;
                }
                struct dirent *de;
                while ((errno = 0, de = readdir(d))) {
                        if (de->d_name[0] == '.' || !endswith(de->d_name, ".conf"))
                                continue;
                        bool seen = false;
                        for (size_t k = 0; k < n_entries; k++)
                                if (streq(entries[k].name, de->d_name))
                                        seen = true;
                        if (seen)
                                continue;
                        DropInEntry *n = realloc(entries, sizeof(DropInEntry) * (n_entries + 1));
                        if (!n) {
                                closedir(d);
                                r = -ENOMEM;
                                goto finish;
                        }
                        entries = n;
                        entries[n_entries].name = strdup(de->d_name);
                        entries[n_entries].dir = i;
                        if (!entries[n_entries].name) {
                                closedir(d);
                                r = -ENOMEM;
                                goto finish;
                        }
                        n_entries++;
                }
                if (errno != 0) {
                        r = record_read_error(st, cpath[i], "read directory", -errno);
                        if (r < 0) {
                                closedir(d);
                                goto finish;
                        }
                }
                closedir(d);
        }

        if (as_name) {
                /* --policy-file-as: the drop-in is in as_dir, in place of one of that name there or
                 * in a later directory; one in an earlier directory still hides it. */
                size_t k;
                for (k = 0; k < n_entries; k++)
                        if (streq(entries[k].name, as_name))
                                break;
                if (k == n_entries) {
                        DropInEntry *n = realloc(entries, sizeof(DropInEntry) * (n_entries + 1));
                        if (!n) {
                                r = -ENOMEM;
                                goto finish;
                        }
                        entries = n;
                        entries[k] = (DropInEntry) { .name = strdup(as_name), .dir = as_dir };
                        if (!entries[k].name) {
                                r = -ENOMEM;
                                goto finish;
                        }
                        n_entries++;
                } else if (entries[k].dir > as_dir)
                        entries[k].dir = as_dir;
        }
        if (n_entries > 0)
                qsort(entries, n_entries, sizeof(DropInEntry), dropin_cmp);
        for (size_t k = 0; k < n_entries; k++) {
                if (as_name && entries[k].dir == as_dir && streq(entries[k].name, as_name)) {
                        r = load_file_as(st, as);
                        if (r < 0)
                                goto finish;
                        continue;
                }
                _cleanup_free_ char *display = strdup_printf("%s/%s", cpath[entries[k].dir], entries[k].name);
                if (!display) {
                        r = -ENOMEM;
                        goto finish;
                }
                r = load_file(st, cfd[entries[k].dir], entries[k].name, display, true);
                if (r == -ENOENT)       /* vanished since we listed it */
                        continue;
                if (r < 0)
                        goto finish;
        }
        r = 0;

finish:
        for (size_t i = 0; i < ELEMENTSOF(search_dirs); i++) {
                if (dfd[i] >= 0)
                        close(dfd[i]);
                if (cfd[i] >= 0)
                        close(cfd[i]);
                free(dpath[i]);
                free(cpath[i]);
        }
        for (size_t k = 0; k < n_entries; k++)
                free(entries[k].name);
        free(entries);
        return r;
}

/* ---------------------------------------------------------------------------------------------- */
/* Checks across keys, after every file is merged */

static size_t origin_rank(const ParseState *st, const Origin *o) {
        if (!o->file)
                return 0;
        for (size_t i = 0; st->p->files[i]; i++)
                if (st->p->files[i] == o->file)
                        return st->file_ranks[i];
        return 0;
}

static bool origin_after(const ParseState *st, const Origin *a, const Origin *b) {
        size_t ra = origin_rank(st, a), rb = origin_rank(st, b);
        return ra != rb ? ra > rb : a->line > b->line;
}

static void describe_origin(const Origin *o, char *buf, size_t len) {
        if (o->file)
                snprintf(buf, len, "%s:%u", o->file, o->line);
        else
                snprintf(buf, len, "the default");
}

static void check_merged(ParseState *st) {
        Policy *p = st->p;
        char where[PATH_MAX + 32], b1[FORMAT_BYTES_MAX], b2[FORMAT_BYTES_MAX];

        if (p->backend_set && p->backends == (BACKEND_ZRAM | BACKEND_FILE) && p->zram.priority == p->file.priority) {
                bool zram_later = origin_after(st, &p->zram.priority_origin, &p->file.priority_origin);
                const Origin *later = zram_later ? &p->zram.priority_origin : &p->file.priority_origin;
                const Origin *other = zram_later ? &p->file.priority_origin : &p->zram.priority_origin;
                char value[16];

                snprintf(value, sizeof(value), "%d", p->zram.priority);
                describe_origin(other, where, sizeof(where));
                st->rank = origin_rank(st, later);
                st->path = later->file;
                (void) err_at(st, later->line, zram_later ? "Zram" : "File", "Priority", value,
                              "equal to [%s] Priority=%d (%s): with Backend=zram file the two swap areas need "
                              "different priorities, equal ones make the kernel round-robin pages between "
                              "zram and the swap file; give zram the higher one",
                              zram_later ? "File" : "Zram", p->zram.priority, where);
        }

        if (p->zram.mem_limit > p->zram.size) {
                describe_origin(&p->zram.size_origin, where, sizeof(where));
                st->rank = origin_rank(st, &st->mem_limit_origin);
                st->path = st->mem_limit_origin.file;
                (void) err_at(st, st->mem_limit_origin.line, "Zram", "MemLimit", st->mem_limit_expr,
                              "MemLimit= (%s) is larger than [Zram] Size=%s (%s, %s)",
                              format_bytes(b1, sizeof(b1), p->zram.mem_limit), p->zram.size_expr,
                              format_bytes(b2, sizeof(b2), p->zram.size), where);
        }
}

static int err_cmp(const void *a, const void *b) {
        const Err *x = a, *y = b;
        if (x->rank != y->rank)
                return x->rank < y->rank ? -1 : 1;
        if (x->e.line != y->e.line)
                return x->e.line < y->e.line ? -1 : 1;
        return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static void parse_state_done(ParseState *st) {
        for (size_t i = 0; i < st->n_errors; i++)
                policy_error_done(&st->errors[i].e);
        free(st->errors);
        free(st->file_ranks);
        free(st->mem_limit_expr);
}

static int policy_load_full(const char *root, const char *config, const PolicyFileAs *as, const char *text,
                            size_t text_len, const PolicyContext *ctx, Policy *ret_policy,
                            PolicyErrors *ret_errors) {
        Policy p;
        ParseState st = {};
        int r;

        if (!ret_policy || !context_valid(ctx) || (as && (config || text || !as->path || !as->file)))
                return -EINVAL;

        r = policy_init_defaults(&p, ctx);
        if (r < 0)
                return r;
        st.p = &p;
        st.ctx = ctx;

        if (text)
                r = load_text(&st, config, text, text_len);
        else if (config) {
                /* Exactly that file, relative to the working directory, not below root. */
                r = load_file(&st, AT_FDCWD, config, config, false);
                if (r == -ENOENT) {
                        st.rank++;
                        r = record_read_error(&st, config, "open", -ENOENT);
                }
        } else
                r = load_search_path(&st, root, as);
        if (r < 0 || st.oom) {
                r = -ENOMEM;
                goto finish;
        }

        check_merged(&st);
        if (st.oom) {
                r = -ENOMEM;
                goto finish;
        }

        if (st.n_errors > 0) {
                qsort(st.errors, st.n_errors, sizeof(Err), err_cmp);
                if (ret_errors) {
                        PolicyError *n = realloc(ret_errors->errors, sizeof(PolicyError) * (ret_errors->n + st.n_errors));
                        if (!n) {
                                r = -ENOMEM;
                                goto finish;
                        }
                        ret_errors->errors = n;
                        for (size_t i = 0; i < st.n_errors; i++) {
                                n[ret_errors->n++] = st.errors[i].e;
                                st.errors[i].e = (PolicyError) {};
                        }
                }
                r = st.read_error ?: -EINVAL;
                goto finish;
        }

        *ret_policy = p;
        p = (Policy) {};
        r = 0;

finish:
        policy_done(&p);
        parse_state_done(&st);
        return r;
}

int policy_load(const char *root, const char *config, const PolicyContext *ctx,
                Policy *ret_policy, PolicyErrors *ret_errors) {
        return policy_load_full(root, config, NULL, NULL, 0, ctx, ret_policy, ret_errors);
}

int policy_load_as(const char *root, const char *config, const PolicyFileAs *as, const PolicyContext *ctx,
                   Policy *ret_policy, PolicyErrors *ret_errors) {
        return policy_load_full(root, config, as, NULL, 0, ctx, ret_policy, ret_errors);
}

int policy_load_text(const char *name, const char *text, size_t len, const PolicyContext *ctx,
                     Policy *ret_policy, PolicyErrors *ret_errors) {
        if (!name || !text)
                return -EINVAL;
        return policy_load_full(NULL, name, NULL, text, len, ctx, ret_policy, ret_errors);
}
