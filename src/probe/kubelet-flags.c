/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "probe/kubelet-flags.h"
#include "shared/unit-name.h"

#include <dirent.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>
#include <yaml.h>

/* Where systemd finds a unit file, first found wins; drop-ins from all of them (systemd.unit(5)). */
static const char *const unit_dirs[] = { SYSTEMD_UNIT_DIRS };

/* kubeadm's 10-kubeadm.conf: EnvironmentFile=-, in this order. */
static const char *const kubeadm_env_files[] = {
        "/var/lib/kubelet/kubeadm-flags.env",
        "/etc/default/kubelet",
        "/etc/sysconfig/kubelet",
};
static const char *const kubeadm_env_vars[] = { "KUBELET_KUBEADM_ARGS", "KUBELET_EXTRA_ARGS" };

#define K3S_CONFIG_MAX (256 * 1024)     /* bytes read of one config.yaml; more: not read */
#define UNIT_FILE_MAX READ_SMALL_MAX

void kubelet_flags_done(KubeletFlags *f) {
        if (!f)
                return;
        for (size_t i = 0; i < f->n; i++) {
                free(f->flags[i].name);
                free(f->flags[i].value);
                free(f->flags[i].file);
        }
        free(f->flags);
        KubeletFlag *k[] = { &f->k3s_config, &f->k3s_config_dir };
        for (size_t i = 0; i < ELEMENTSOF(k); i++) {
                free(k[i]->name);
                free(k[i]->value);
                free(k[i]->file);
        }
        *f = (KubeletFlags) {};
}

const KubeletFlag *kubelet_flags_last(const KubeletFlags *f, const char *name) {
        for (size_t i = f ? f->n : 0; i > 0; i--)
                if (streq(f->flags[i - 1].name, name))
                        return &f->flags[i - 1];
        return NULL;
}

char *kubelet_flag_source(const KubeletFlag *f) {
        if (f->line > 0)
                return strdup_printf("--%s%s%s (%s in %s:%u)", f->name, f->value ? "=" : "", strempty(f->value),
                                     f->via, f->file, f->line);
        return strdup_printf("--%s%s%s (%s in %s)", f->name, f->value ? "=" : "", strempty(f->value), f->via, f->file);
}

int kubelet_flag_bool(const KubeletFlag *f) {
        static const char *const t[] = { "1", "t", "T", "TRUE", "true", "True" };
        static const char *const n[] = { "0", "f", "F", "FALSE", "false", "False" };
        if (!f->value)
                return 1;
        for (size_t i = 0; i < ELEMENTSOF(t); i++)
                if (streq(f->value, t[i]))
                        return 1;
        for (size_t i = 0; i < ELEMENTSOF(n); i++)
                if (streq(f->value, n[i]))
                        return 0;
        return -1;
}

/* Add one flag: name as given (dashes stripped by the caller), '_' normalized to '-'. With
 * prepend, it goes before the earlier ones of its name (k3s's "NAME-="). */
static int flags_add(KubeletFlags *f, const char *name, size_t name_len, const char *value, const char *file,
                     unsigned line, const char *via, bool prepend) {
        if (name_len == 0)
                return 0;
        KubeletFlag n = {
                .name = strndup(name, name_len),
                .value = value ? strdup(value) : NULL,
                .file = strdup(file),
                .line = line,
                .via = via,
        };
        if (!n.name || (value && !n.value) || !n.file) {
                free(n.name);
                free(n.value);
                free(n.file);
                return -ENOMEM;
        }
        for (char *s = n.name; *s; s++)
                if (*s == '_')
                        *s = '-';
        KubeletFlag *a = realloc(f->flags, sizeof(KubeletFlag) * (f->n + 1));
        if (!a) {
                free(n.name);
                free(n.value);
                free(n.file);
                return -ENOMEM;
        }
        f->flags = a;
        size_t at = f->n;
        if (prepend)
                for (size_t i = 0; i < f->n; i++)
                        if (streq(f->flags[i].name, n.name)) {
                                at = i;
                                break;
                        }
        memmove(&f->flags[at + 1], &f->flags[at], sizeof(KubeletFlag) * (f->n - at));
        f->flags[at] = n;
        f->n++;
        return 0;
}

/* The kubelet's flags whose value is never the next word: its booleans that nodeswap decides on.
 * For a flag nodeswap does not know, a next word that does not start with '-' is taken as its
 * value (most kubelet flags take one). */
static bool kubelet_flag_is_bool(const char *name, size_t len) {
        static const char *const b[] = { "fail-swap-on", "fail_swap_on", "merge-default-eviction-settings" };
        for (size_t i = 0; i < ELEMENTSOF(b); i++)
                if (strlen(b[i]) == len && strncmp(b[i], name, len) == 0)
                        return true;
        return false;
}

static bool kubelet_flag_takes_value(const char *name, size_t len) {
        static const char *const v[] = { "config", "config-dir", "eviction-hard", "eviction-soft",
                                         "eviction-soft-grace-period", "eviction-minimum-reclaim",
                                         "eviction-max-pod-grace-period", "eviction-pressure-transition-period" };
        for (size_t i = 0; i < ELEMENTSOF(v); i++)
                if (strlen(v[i]) == len && strncmp(v[i], name, len) == 0)
                        return true;
        return false;
}

/* Words as the kubelet's pflag parses them. */
static int flags_from_words(KubeletFlags *f, char **words, const char *file, unsigned line, const char *via) {
        for (size_t i = 0; words && words[i]; i++) {
                const char *w = words[i];
                if (streq(w, "--"))
                        break;
                if (!startswith(w, "--") || w[2] == '-')
                        continue;       /* not a long flag (the kubelet refuses it and stops) */
                const char *name = w + 2, *eq = strchr(name, '=');
                size_t len = eq ? (size_t) (eq - name) : strlen(name);
                const char *value = eq ? eq + 1 : NULL;
                if (!eq && !kubelet_flag_is_bool(name, len) && words[i + 1] &&
                    (kubelet_flag_takes_value(name, len) || words[i + 1][0] != '-'))
                        value = words[++i];
                int r = flags_add(f, name, len, value, file, line, via, false);
                if (r < 0)
                        return r;
        }
        return 0;
}

/* One k3s kubelet-arg entry, "NAME=VALUE" with optional leading "--", as GetArgs() reads it:
 * without '=', the value is "true"; a name ending in '+' or '-' appends or prepends to k3s's
 * own value (for the kubelet, the last occurrence of a scalar flag wins either way). */
static int flags_from_k3s_arg(KubeletFlags *f, const char *arg, const char *file, unsigned line, const char *via) {
        if (startswith(arg, "--"))
                arg += 2;
        const char *eq = strchr(arg, '=');
        size_t len = eq ? (size_t) (eq - arg) : strlen(arg);
        /* extractConfigArgs() matches the name as written, before GetArgs() reads a '+' or '-' */
        bool config = len == strlen("config") && strncmp(arg, "config", len) == 0;
        if (config || (len == strlen("config-dir") && strncmp(arg, "config-dir", len) == 0)) {
                KubeletFlag *k = config ? &f->k3s_config : &f->k3s_config_dir;
                KubeletFlag n = {
                        .name = strndup(arg, len),
                        .value = strdup(eq ? eq + 1 : ""),
                        .file = strdup(file),
                        .line = line,
                        .via = via,
                };
                if (!n.name || !n.value || !n.file) {
                        free(n.name);
                        free(n.value);
                        free(n.file);
                        return -ENOMEM;
                }
                free(k->name);
                free(k->value);
                free(k->file);
                *k = n;
                return 0;
        }
        bool prepend = false;
        while (len > 0 && (arg[len - 1] == '+' || arg[len - 1] == '-')) {
                prepend = arg[len - 1] == '-';
                len--;
        }
        return flags_add(f, arg, len, eq ? eq + 1 : "true", file, line, via, prepend);
}

/* --- systemd EnvironmentFile= (systemd.exec(5); systemd's parse_env_file()) --- */

typedef struct EnvVar {
        const char *name;
        char *value;
        char *file;
        unsigned line;
} EnvVar;

/* Append c to the growing value. */
static int push(char **buf, size_t *len, size_t *cap, char c) {
        if (*len + 2 > *cap) {
                size_t n = *cap ? *cap * 2 : 64;
                char *b = realloc(*buf, n);
                if (!b)
                        return -ENOMEM;
                *buf = b;
                *cap = n;
        }
        (*buf)[(*len)++] = c;
        (*buf)[*len] = 0;
        return 0;
}

/* Assignments of the wanted variables in text, a later one replacing an earlier one. Comments
 * start with # or ; at the start of a line; "KEY=VALUE" with whitespace around '=' allowed; the
 * value is quoted parts ('...' literal; "..." with \", \\, \`, \$ escaped and a backslash at the
 * end of a line continuing it), blanks between them dropped, then at most one unquoted part (a
 * backslash escapes the next character and continues the line at its end; quotes are literal;
 * trailing whitespace dropped): systemd's parse_env_file_internal() states. */
static int env_parse(const char *text, const char *file, EnvVar *vars, size_t n_vars) {
        const char *p = text;
        unsigned line = 1;
        while (*p) {
                while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n') {
                        if (*p == '\n')
                                line++;
                        p++;
                }
                if (!*p)
                        break;
                unsigned key_line = line;
                if (*p == '#' || *p == ';') {
                        while (*p && *p != '\n')
                                p++;
                        continue;
                }
                const char *k = p;
                while (*p && *p != '=' && *p != '\n')
                        p++;
                if (*p != '=')
                        continue;       /* no '=': systemd ignores the line */
                size_t klen = (size_t) (p - k);
                while (klen > 0 && (k[klen - 1] == ' ' || k[klen - 1] == '\t'))
                        klen--;
                p++;
                while (*p == ' ' || *p == '\t')
                        p++;
                _cleanup_free_ char *v = NULL;
                size_t len = 0, cap = 0, keep = 0;      /* keep: length up to the last quoted or non-blank char */
                int r = push(&v, &len, &cap, 0);
                if (r < 0)
                        return r;
                len = 0;
                /* pre: between parts (blanks skipped, a quote opens), else inside an unquoted part
                 * (quotes are literal there, as in systemd's VALUE state) */
                bool pre = true;
                while (*p && *p != '\n') {
                        if (pre && (*p == ' ' || *p == '\t')) {
                                p++;
                                continue;
                        }
                        if (pre && *p == '\'') {
                                for (p++; *p && *p != '\''; p++) {
                                        if (*p == '\n')
                                                line++;
                                        if ((r = push(&v, &len, &cap, *p)) < 0)
                                                return r;
                                }
                                if (*p)
                                        p++;
                                keep = len;
                                continue;
                        }
                        if (pre && *p == '"') {
                                for (p++; *p && *p != '"'; p++) {
                                        if (*p == '\\' && p[1] == '\n') {
                                                p++;
                                                line++;
                                                continue;
                                        }
                                        if (*p == '\\' && p[1] && strchr("\"\\`$", p[1]))
                                                p++;
                                        if (*p == '\n')
                                                line++;
                                        if ((r = push(&v, &len, &cap, *p)) < 0)
                                                return r;
                                }
                                if (*p)
                                        p++;
                                keep = len;
                                continue;
                        }
                        pre = false;
                        if (*p == '\\') {
                                p++;
                                if (*p == '\n') {
                                        line++;
                                        p++;
                                        continue;
                                }
                                if (!*p)
                                        break;
                                if ((r = push(&v, &len, &cap, *p++)) < 0)
                                        return r;
                                keep = len;
                                continue;
                        }
                        char c = *p++;
                        if ((r = push(&v, &len, &cap, c)) < 0)
                                return r;
                        if (c != ' ' && c != '\t' && c != '\r')
                                keep = len;
                }
                v[keep] = 0;
                for (size_t i = 0; i < n_vars; i++) {
                        if (strlen(vars[i].name) != klen || strncmp(vars[i].name, k, klen) != 0)
                                continue;
                        free(vars[i].value);
                        free(vars[i].file);
                        vars[i].value = TAKE_PTR(v);
                        vars[i].file = strdup(file);
                        vars[i].line = key_line;
                        if (!vars[i].file)
                                return -ENOMEM;
                        break;
                }
        }
        return 0;
}

static int read_kubeadm(const char *root, KubeletFlags *f) {
        EnvVar vars[ELEMENTSOF(kubeadm_env_vars)] = {};
        int r = 0;
        for (size_t i = 0; i < ELEMENTSOF(vars); i++)
                vars[i].name = kubeadm_env_vars[i];
        for (size_t i = 0; i < ELEMENTSOF(kubeadm_env_files) && r >= 0; i++) {
                _cleanup_free_ char *full = path_join_root(root, kubeadm_env_files[i]), *text = NULL;
                if (!full) {
                        r = -ENOMEM;
                        break;
                }
                int q = read_full_file(full, READ_SMALL_MAX, &text);
                if (q == -ENOMEM)
                        r = q;
                else if (q >= 0)
                        r = env_parse(text, kubeadm_env_files[i], vars, ELEMENTSOF(vars));
        }
        for (size_t i = 0; i < ELEMENTSOF(vars); i++) {
                if (r >= 0 && vars[i].value) {
                        /* $VAR unquoted on ExecStart=: split at whitespace, quotes not interpreted */
                        _cleanup_strv_free_ char **words = strv_split_ws(vars[i].value);
                        r = words ? flags_from_words(f, words, vars[i].file, vars[i].line, vars[i].name) : -ENOMEM;
                }
                free(vars[i].value);
                free(vars[i].file);
        }
        return r;
}

/* --- systemd unit files: ExecStart= --- */

/* Split a command line the way systemd does for ExecStart= (systemd.service(5) "Command lines"):
 * words at whitespace, "..." and '...' quoting (also inside a word), backslash escapes (\n, \t,
 * \s, \\, \", \' and any other character as itself). */
static int exec_split(const char *s, char ***ret) {
        _cleanup_strv_free_ char **words = NULL;
        int r;
        for (;;) {
                while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r')
                        s++;
                if (!*s)
                        break;
                _cleanup_free_ char *w = NULL;
                size_t len = 0, cap = 0;
                if ((r = push(&w, &len, &cap, 0)) < 0)
                        return r;
                len = 0;
                char quote = 0;
                for (; *s; s++) {
                        char c = *s;
                        if (!quote && (c == ' ' || c == '\t' || c == '\n' || c == '\r'))
                                break;
                        if ((c == '"' || c == '\'') && (!quote || quote == c)) {
                                quote = quote ? 0 : c;
                                continue;
                        }
                        if (c == '\\' && s[1] && quote != '\'') {
                                c = *++s;
                                c = c == 'n' ? '\n' : c == 't' ? '\t' : c == 's' ? ' ' : c;
                        }
                        if ((r = push(&w, &len, &cap, c)) < 0)
                                return r;
                }
                if ((r = strv_push(&words, TAKE_PTR(w))) < 0)
                        return r;
        }
        *ret = TAKE_PTR(words);
        return 0;
}

typedef struct ExecStart {
        char *value;    /* the command line, continuations joined */
        char *file;
        unsigned line;
} ExecStart;

/* The last ExecStart= of [Service] in one unit file or drop-in ("ExecStart=" empty clears it).
 * A line ending in a backslash continues on the next (systemd joins them with a space; comment
 * lines inside are skipped). */
static int unit_exec_start(const char *text, const char *file, ExecStart *es) {
        bool service = false;
        unsigned line = 0;
        const char *p = text;
        while (*p) {
                const char *e = strchr(p, '\n');
                size_t l = e ? (size_t) (e - p) : strlen(p);
                line++;
                unsigned start = line;
                _cleanup_free_ char *joined = strndup(p, l);
                if (!joined)
                        return -ENOMEM;
                p = e ? e + 1 : p + l;
                while (endswith(joined, "\\") && *p) {
                        joined[strlen(joined) - 1] = ' ';
                        e = strchr(p, '\n');
                        l = e ? (size_t) (e - p) : strlen(p);
                        line++;
                        const char *t = p;
                        while (*t == ' ' || *t == '\t')
                                t++;
                        /* a comment line inside a continuation is skipped, the line goes on */
                        bool comment = *t == '#' || *t == ';';
                        char *n = comment ? strdup_printf("%s\\", joined)
                                          : strdup_printf("%s%.*s", joined, (int) l, p);
                        p = e ? e + 1 : p + l;
                        if (!n)
                                return -ENOMEM;
                        free(joined);
                        joined = n;
                }
                char *s = strstrip(joined);
                if (s[0] == '[') {
                        service = startswith(s, "[Service]");
                        continue;
                }
                if (!service || !startswith(s, "ExecStart"))
                        continue;
                char *v = s + strlen("ExecStart");
                while (*v == ' ' || *v == '\t')
                        v++;
                if (*v != '=')
                        continue;
                v = strstrip(v + 1);
                free(es->value);
                free(es->file);
                *es = (ExecStart) {};
                if (!*v)
                        continue;       /* "ExecStart=" resets */
                es->value = strdup(v);
                es->file = strdup(file);
                es->line = start;
                if (!es->value || !es->file)
                        return -ENOMEM;
        }
        return 0;
}

static int name_cmp(const void *a, const void *b) {
        const char *x = strrchr(*(char *const *) a, '/'), *y = strrchr(*(char *const *) b, '/');
        return strcmp(x ? x + 1 : *(char *const *) a, y ? y + 1 : *(char *const *) b);
}

static int read_exec_start(const char *root, const char *unit, ExecStart *es) {
        _cleanup_strv_free_ char **files = NULL;
        int r;

        for (size_t i = 0; i < ELEMENTSOF(unit_dirs); i++) {
                _cleanup_free_ char *path = strdup_printf("%s/%s", unit_dirs[i], unit);
                _cleanup_free_ char *full = path ? path_join_root(root, path) : NULL;
                if (!full)
                        return -ENOMEM;
                if (access(full, F_OK) == 0) {
                        if ((r = strv_push(&files, TAKE_PTR(path))) < 0)
                                return r;
                        break;
                }
        }
        if (!files)
                return 0;

        /* drop-ins: the .conf files in NAME.d of every directory, a name in an earlier one hiding the same name
         * in a later one, applied in name order */
        _cleanup_strv_free_ char **dropins = NULL;
        for (size_t i = 0; i < ELEMENTSOF(unit_dirs); i++) {
                _cleanup_free_ char *dir = strdup_printf("%s/%s.d", unit_dirs[i], unit);
                _cleanup_free_ char *full = dir ? path_join_root(root, dir) : NULL;
                if (!full)
                        return -ENOMEM;
                _cleanup_(closedirp) DIR *d = opendir(full);
                if (!d)
                        continue;
                struct dirent *de;
                while ((de = readdir(d))) {
                        if (!endswith(de->d_name, ".conf"))
                                continue;
                        bool seen = false;
                        for (size_t j = 0; dropins && dropins[j]; j++)
                                if (streq(strrchr(dropins[j], '/') + 1, de->d_name))
                                        seen = true;
                        if (seen)
                                continue;
                        char *p = strdup_printf("%s/%s", dir, de->d_name);
                        if (!p || (r = strv_push(&dropins, p)) < 0)
                                return -ENOMEM;
                }
        }
        size_t n = strv_length(dropins);
        if (n > 1)
                qsort(dropins, n, sizeof(char *), name_cmp);
        for (size_t i = 0; i < n; i++)
                if ((r = strv_extend(&files, dropins[i])) < 0)
                        return r;

        for (size_t i = 0; files[i]; i++) {
                _cleanup_free_ char *full = path_join_root(root, files[i]), *text = NULL;
                if (!full)
                        return -ENOMEM;
                r = read_full_file(full, UNIT_FILE_MAX, &text);
                if (r == -ENOMEM)
                        return r;
                if (r < 0)
                        continue;
                if ((r = unit_exec_start(text, files[i], es)) < 0)
                        return r;
        }
        return 0;
}

/* --- k3s and rke2 --- */

typedef struct K3sArg {
        char *value;
        char *file;
        unsigned line;
} K3sArg;

typedef struct K3sArgs {
        K3sArg *a;
        size_t n;
} K3sArgs;

static void k3s_args_clear(K3sArgs *l) {
        for (size_t i = 0; i < l->n; i++) {
                free(l->a[i].value);
                free(l->a[i].file);
        }
        free(l->a);
        *l = (K3sArgs) {};
}

static int k3s_args_add(K3sArgs *l, const char *value, const char *file, unsigned line) {
        K3sArg *a = realloc(l->a, sizeof(K3sArg) * (l->n + 1));
        if (!a)
                return -ENOMEM;
        l->a = a;
        a[l->n] = (K3sArg) { .value = strdup(value), .file = strdup(file), .line = line };
        if (!a[l->n].value || !a[l->n].file) {
                free(a[l->n].value);
                free(a[l->n].file);
                return -ENOMEM;
        }
        l->n++;
        return 0;
}

/* One of k3s's config files: its kubelet-arg (replacing l) and kubelet-arg+ (appending to l)
 * entries, a list or one string. A file that is not YAML stops k3s; nodeswap then reads nothing
 * more of it. */
static int k3s_config_file(const char *text, size_t len, const char *file, K3sArgs *l) {
        yaml_parser_t parser;
        yaml_document_t doc;
        int r = 0;
        if (!yaml_parser_initialize(&parser))
                return -ENOMEM;
        yaml_parser_set_input_string(&parser, (const unsigned char *) text, len);
        if (!yaml_parser_load(&parser, &doc)) {
                r = parser.error == YAML_MEMORY_ERROR ? -ENOMEM : 0;
                yaml_parser_delete(&parser);
                return r;
        }
        yaml_node_t *root = yaml_document_get_root_node(&doc);
        for (yaml_node_pair_t *p = root && root->type == YAML_MAPPING_NODE ? root->data.mapping.pairs.start : NULL;
             p && p < root->data.mapping.pairs.top && r >= 0; p++) {
                yaml_node_t *k = yaml_document_get_node(&doc, p->key);
                yaml_node_t *v = yaml_document_get_node(&doc, p->value);
                if (!k || !v || k->type != YAML_SCALAR_NODE)
                        continue;
                const char *key = (const char *) k->data.scalar.value;
                bool append = streq(key, "kubelet-arg+");
                if (!append && !streq(key, "kubelet-arg"))
                        continue;
                if (!append)
                        k3s_args_clear(l);
                if (v->type == YAML_SCALAR_NODE) {
                        if (v->data.scalar.length > 0)
                                r = k3s_args_add(l, (const char *) v->data.scalar.value, file,
                                                 (unsigned) v->start_mark.line + 1);
                } else if (v->type == YAML_SEQUENCE_NODE)
                        for (yaml_node_item_t *i = v->data.sequence.items.start;
                             i < v->data.sequence.items.top && r >= 0; i++) {
                                yaml_node_t *e = yaml_document_get_node(&doc, *i);
                                if (e && e->type == YAML_SCALAR_NODE)
                                        r = k3s_args_add(l, (const char *) e->data.scalar.value, file,
                                                         (unsigned) e->start_mark.line + 1);
                        }
        }
        yaml_document_delete(&doc);
        yaml_parser_delete(&parser);
        return r;
}

static int k3s_config(const char *root, const char *config, K3sArgs *l) {
        _cleanup_strv_free_ char **files = NULL;
        int r;
        _cleanup_free_ char *full = path_join_root(root, config);
        if (!full)
                return -ENOMEM;
        if (access(full, F_OK) == 0 && (r = strv_extend(&files, config)) < 0)
                return r;

        _cleanup_free_ char *dir = strdup_printf("%s.d", config);
        _cleanup_free_ char *dfull = dir ? path_join_root(root, dir) : NULL;
        if (!dfull)
                return -ENOMEM;
        _cleanup_strv_free_ char **dropins = NULL;
        _cleanup_(closedirp) DIR *d = opendir(dfull);
        struct dirent *de;
        while (d && (de = readdir(d))) {
                const char *ext = strrchr(de->d_name, '.');
                if (!ext || (strcasecmp(ext, ".yaml") != 0 && strcasecmp(ext, ".yml") != 0))
                        continue;
                struct stat st;
                if (fstatat(dirfd(d), de->d_name, &st, 0) < 0 || S_ISDIR(st.st_mode))
                        continue;
                char *p = strdup_printf("%s/%s", dir, de->d_name);
                if (!p || (r = strv_push(&dropins, p)) < 0)
                        return -ENOMEM;
        }
        size_t n = strv_length(dropins);
        if (n > 1)
                qsort(dropins, n, sizeof(char *), name_cmp);
        for (size_t i = 0; i < n; i++)
                if ((r = strv_extend(&files, dropins[i])) < 0)
                        return r;

        for (size_t i = 0; files && files[i]; i++) {
                _cleanup_free_ char *f = path_join_root(root, files[i]), *text = NULL;
                if (!f)
                        return -ENOMEM;
                r = read_full_file(f, K3S_CONFIG_MAX, &text);
                if (r == -ENOMEM)
                        return r;
                if (r < 0)
                        continue;
                if ((r = k3s_config_file(text, strlen(text), files[i], l)) < 0)
                        return r;
        }
        return 0;
}

/* The value of a k3s option in words[*i] ("--NAME=V", "-NAME=V", "--NAME V", "-NAME V": Go's flag
 * package, which urfave/cli uses); NULL when words[*i] is not that option. */
static const char *k3s_option(char **words, size_t *i, const char *name) {
        const char *w = words[*i];
        if (w[0] != '-')
                return NULL;
        w += w[1] == '-' ? 2 : 1;
        size_t l = strlen(name);
        if (strncmp(w, name, l) != 0)
                return NULL;
        if (w[l] == '=')
                return w + l + 1;
        if (w[l] || !words[*i + 1])
                return NULL;
        return words[++*i];
}

static int read_k3s(const char *root, const char *unit, bool rke2, KubeletFlags *f) {
        ExecStart es = {};
        K3sArgs cli = {}, conf = {};
        _cleanup_strv_free_ char **words = NULL;
        int r = read_exec_start(root, unit, &es);
        const char *config_flag = NULL;
        if (r >= 0 && es.value)
                r = exec_split(es.value, &words);
        /* the options after the subcommand (k3s-io/k3s configfilearg: "server" or "agent") */
        bool sub = false;
        for (size_t i = 0; r >= 0 && words && words[i]; i++) {
                if (!sub) {
                        sub = streq(words[i], "server") || streq(words[i], "agent");
                        continue;
                }
                const char *v;
                if ((v = k3s_option(words, &i, "kubelet-arg")))
                        r = k3s_args_add(&cli, v, es.file, es.line);
                else if ((v = k3s_option(words, &i, "config")) || (v = k3s_option(words, &i, "c")))
                        config_flag = v;
        }
        _cleanup_free_ char *config = r < 0 ? NULL
                : config_flag ? strdup(config_flag)
                : strdup(rke2 ? "/etc/rancher/rke2/config.yaml" : "/etc/rancher/k3s/config.yaml");
        if (r >= 0 && !config)
                r = -ENOMEM;
        if (r >= 0)
                r = k3s_config(root, config, &conf);
        for (size_t i = 0; r >= 0 && i < conf.n; i++)
                r = flags_from_k3s_arg(f, conf.a[i].value, conf.a[i].file, conf.a[i].line, "kubelet-arg");
        for (size_t i = 0; r >= 0 && i < cli.n; i++)
                r = flags_from_k3s_arg(f, cli.a[i].value, cli.a[i].file, cli.a[i].line,
                                       "--kubelet-arg on ExecStart=");
        k3s_args_clear(&cli);
        k3s_args_clear(&conf);
        free(es.value);
        free(es.file);
        return r;
}

int kubelet_unit_exec(const char *root, const char *unit, char **ret) {
        ExecStart es = {};
        _cleanup_strv_free_ char **words = NULL;
        *ret = NULL;
        int r = unit ? read_exec_start(root, unit, &es) : 0;
        if (r >= 0 && es.value)
                r = exec_split(es.value, &words);
        if (r >= 0 && words && words[0]) {
                /* systemd's prefixes: "-", "@", ":", "+", "!" and "!!" (systemd.service(5)) */
                const char *w = words[0] + strspn(words[0], "-@:+!");
                if (w[0] == '/' && !(*ret = strdup(w)))
                        r = -ENOMEM;
        }
        free(es.value);
        free(es.file);
        return r < 0 ? r : 0;
}

int kubelet_flags_read(const char *root, const char *unit, KubeletFlags *ret) {
        KubeletFlags f = {};
        int r = 0;
        if (!unit)
                ;
        else if (streq(unit, "kubelet.service"))
                r = read_kubeadm(root, &f);
        else if (streq(unit, "k3s-agent.service") || streq(unit, "k3s.service"))
                r = read_k3s(root, unit, false, &f);
        else if (streq(unit, "rke2-agent.service") || streq(unit, "rke2-server.service"))
                r = read_k3s(root, unit, true, &f);
        if (r < 0) {
                kubelet_flags_done(&f);
                return r;
        }
        *ret = f;
        return 0;
}
