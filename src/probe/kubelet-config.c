/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "probe/kubelet-config.h"

#include <ctype.h>
#include <fcntl.h>
#include <math.h>
#include <sys/stat.h>
#include <yaml.h>

#include "policy/size.h"

#define MIN(a, b) ((a) < (b) ? (a) : (b))
#define KUBELET_FILE_MAX (256 * 1024)   /* bytes read of one file; more: taken as invalid */
#define KUBELET_WALK_DEPTH 16           /* subdirectory levels followed below --config-dir */

#define KUBEADM_CONFIG "/var/lib/kubelet/config.yaml"

void kubelet_config_file_done(KubeletConfigFile *f) {
        if (!f)
                return;
        free(f->path);
        free(f->order_path);
        free(f->copy_failed);
        free(f->invalid_reason);
        free(f->swap_behavior_value);
        free(f->memory_available_value);
        free(f->kube_reserved.memory_value);
        free(f->system_reserved.memory_value);
        *f = (KubeletConfigFile) {};
}

void kubelet_config_done(KubeletConfig *c) {
        if (!c)
                return;
        for (size_t i = 0; i < c->n_files; i++)
                kubelet_config_file_done(&c->files[i]);
        free(c->files);
        free(c->unit);
        free(c->config_file);
        free(c->config_dir);
        free(c->config_dir_source);
        free(c->flag_memory_available);
        free(c->flag_kube_reserved_memory);
        free(c->flag_system_reserved_memory);
        kubelet_version_done(&c->version);
        kubelet_flags_done(&c->flags);
        *c = (KubeletConfig) {};
}

/* --- one file --- */

static int set_invalid(KubeletConfigFile *f, unsigned line, char *reason) {
        if (!reason)
                return -ENOMEM;
        if (f->invalid) {       /* the first reason stays */
                free(reason);
                return 0;
        }
        f->invalid = true;
        f->invalid_line = line;
        f->invalid_reason = reason;
        return 0;
}

static const char *scalar(const yaml_node_t *n) {
        return n && n->type == YAML_SCALAR_NODE ? (const char *) n->data.scalar.value : NULL;
}

static bool scalar_is(const yaml_node_t *n, const char *s) {
        const char *v = scalar(n);
        return v && streq(v, s);
}

/* A plain scalar that YAML 1.1 (go-yaml v2, which sigs.k8s.io/yaml uses) resolves to null. */
static bool is_null(const yaml_node_t *n) {
        if (!n || n->type != YAML_SCALAR_NODE || n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
                return false;
        const char *v = scalar(n);
        return streq(v, "") || streq(v, "~") || streq(v, "null") || streq(v, "Null") || streq(v, "NULL");
}

/* The same for booleans: 1 true, 0 false, -1 not a boolean. */
static int yaml_bool(const yaml_node_t *n) {
        static const char *const t[] = { "y", "Y", "yes", "Yes", "YES", "on", "On", "ON", "true", "True", "TRUE" };
        static const char *const f[] = { "n", "N", "no", "No", "NO", "off", "Off", "OFF", "false", "False", "FALSE" };
        if (!n || n->type != YAML_SCALAR_NODE || n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
                return -1;
        const char *v = scalar(n);
        for (size_t i = 0; i < ELEMENTSOF(t); i++)
                if (streq(v, t[i]))
                        return 1;
        for (size_t i = 0; i < ELEMENTSOF(f); i++)
                if (streq(v, f[i]))
                        return 0;
        return -1;
}

static unsigned line_of(const yaml_node_t *n) {
        return n ? (unsigned) n->start_mark.line + 1 : 0;
}

/* The string at key name in the mapping v, as a merge patch sees it: set, or cleared by a null
 * (the last of repeated keys counts); what names it in the error when it is no string. */
static int parse_map_string(yaml_document_t *doc, const yaml_node_t *v, const char *name, const char *what,
                            KubeletConfigFile *f, KubeletField *field, char **value, unsigned *line) {
        for (yaml_node_pair_t *p = v->data.mapping.pairs.start; p < v->data.mapping.pairs.top; p++) {
                yaml_node_t *k = yaml_document_get_node(doc, p->key);
                yaml_node_t *val = yaml_document_get_node(doc, p->value);
                if (!scalar_is(k, name))
                        continue;
                free(*value);
                *value = NULL;
                *line = line_of(k);
                if (is_null(val)) {
                        *field = KUBELET_FIELD_CLEARED;
                        continue;
                }
                if (!val || val->type != YAML_SCALAR_NODE) {
                        *field = KUBELET_FIELD_ABSENT;
                        return set_invalid(f, line_of(k), strdup_printf("%s is not a string", what));
                }
                *value = strdup(scalar(val));
                if (!*value)
                        return -ENOMEM;
                *field = KUBELET_FIELD_SET;
        }
        return 0;
}

static int parse_memory_swap(yaml_document_t *doc, const yaml_node_t *key, const yaml_node_t *v,
                             KubeletConfigFile *f) {
        if (is_null(v)) {
                /* a merge patch with memorySwap: null drops the whole struct */
                f->swap_behavior_field = KUBELET_FIELD_CLEARED;
                f->swap_behavior_line = line_of(key);
                free(f->swap_behavior_value);
                f->swap_behavior_value = NULL;
                return 0;
        }
        if (v->type != YAML_MAPPING_NODE)
                return set_invalid(f, line_of(v), strdup("memorySwap is not a mapping"));
        return parse_map_string(doc, v, "swapBehavior", "memorySwap.swapBehavior", f, &f->swap_behavior_field,
                                &f->swap_behavior_value, &f->swap_behavior_line);
}

/* evictionHard: a map of signal to threshold; nodeswap keeps only whether it is set and its
 * memory.available. A null key removes that key in the merge (RFC 7386). */
static int parse_eviction_hard(yaml_document_t *doc, const yaml_node_t *key, const yaml_node_t *v,
                               KubeletConfigFile *f) {
        f->eviction_hard_line = line_of(key);
        free(f->memory_available_value);
        f->memory_available_value = NULL;
        f->memory_available_field = KUBELET_FIELD_ABSENT;
        if (is_null(v)) {
                f->eviction_hard_field = KUBELET_FIELD_CLEARED;
                return 0;
        }
        if (v->type != YAML_MAPPING_NODE) {
                f->eviction_hard_field = KUBELET_FIELD_ABSENT;
                return set_invalid(f, line_of(v), strdup("evictionHard is not a mapping"));
        }
        f->eviction_hard_field = KUBELET_FIELD_SET;
        return parse_map_string(doc, v, "memory.available", "evictionHard.memory.available", f,
                                &f->memory_available_field, &f->memory_available_value, &f->memory_available_line);
}

/* kubeReserved, systemReserved: maps of resource to quantity (map[string]string); nodeswap keeps
 * "memory". A null map or key is taken back as for evictionHard. */
static int parse_reserved(yaml_document_t *doc, const yaml_node_t *key, const yaml_node_t *v, const char *name,
                          KubeletConfigFile *f, KubeletReserved *res) {
        res->map_line = line_of(key);
        free(res->memory_value);
        res->memory_value = NULL;
        res->memory_field = KUBELET_FIELD_ABSENT;
        if (is_null(v)) {
                res->map_field = KUBELET_FIELD_CLEARED;
                return 0;
        }
        if (v->type != YAML_MAPPING_NODE) {
                res->map_field = KUBELET_FIELD_ABSENT;
                return set_invalid(f, line_of(v), strdup_printf("%s is not a mapping", name));
        }
        res->map_field = KUBELET_FIELD_SET;
        _cleanup_free_ char *what = strdup_printf("%s.memory", name);
        if (!what)
                return -ENOMEM;
        return parse_map_string(doc, v, "memory", what, f, &res->memory_field, &res->memory_value, &res->memory_line);
}

/* maxPods: an int32 (a quoted number is a string, which the kubelet's decoder refuses). */
static int parse_max_pods(const yaml_node_t *key, const yaml_node_t *v, KubeletConfigFile *f) {
        f->max_pods_line = line_of(key);
        if (is_null(v)) {
                f->max_pods_field = KUBELET_FIELD_CLEARED;
                return 0;
        }
        uint64_t n;
        if (v->type != YAML_SCALAR_NODE || v->data.scalar.style != YAML_PLAIN_SCALAR_STYLE ||
            safe_atou64(scalar(v), &n) < 0 || n > INT32_MAX) {
                f->max_pods_field = KUBELET_FIELD_ABSENT;
                return set_invalid(f, line_of(key), strdup("maxPods is not a whole number"));
        }
        f->max_pods_field = KUBELET_FIELD_SET;
        f->max_pods = (int64_t) n;
        return 0;
}

static int parse_root(yaml_document_t *doc, KubeletConfigFile *f) {
        yaml_node_t *root = yaml_document_get_root_node(doc);
        int r;

        if (!root || is_null(root))
                return set_invalid(f, 0, strdup("empty: no apiVersion and no kind"));
        if (root->type != YAML_MAPPING_NODE)
                return set_invalid(f, line_of(root), strdup("not a YAML mapping"));

        const yaml_node_t *api = NULL, *kind = NULL;
        for (yaml_node_pair_t *p = root->data.mapping.pairs.start; p < root->data.mapping.pairs.top; p++) {
                yaml_node_t *k = yaml_document_get_node(doc, p->key);
                yaml_node_t *v = yaml_document_get_node(doc, p->value);
                if (!k || !v)
                        continue;
                if (scalar_is(k, "apiVersion"))
                        api = v;
                else if (scalar_is(k, "kind"))
                        kind = v;
                else if (scalar_is(k, "failSwapOn")) {
                        f->fail_swap_on_line = line_of(k);
                        if (is_null(v)) {
                                f->fail_swap_on_field = KUBELET_FIELD_CLEARED;
                                continue;
                        }
                        int b = yaml_bool(v);
                        if (b < 0) {
                                f->fail_swap_on_field = KUBELET_FIELD_ABSENT;
                                r = set_invalid(f, line_of(k),
                                                v->type != YAML_SCALAR_NODE ? strdup("failSwapOn is not a boolean")
                                                : v->data.scalar.style != YAML_PLAIN_SCALAR_STYLE
                                                ? strdup_printf("failSwapOn: \"%s\" is a string, not a boolean",
                                                                scalar(v))
                                                : strdup_printf("failSwapOn: %s is not a boolean", scalar(v)));
                                if (r < 0)
                                        return r;
                                continue;
                        }
                        f->fail_swap_on_field = KUBELET_FIELD_SET;
                        f->fail_swap_on = b;
                } else if (scalar_is(k, "memorySwap")) {
                        r = parse_memory_swap(doc, k, v, f);
                        if (r < 0)
                                return r;
                } else if (scalar_is(k, "evictionHard")) {
                        r = parse_eviction_hard(doc, k, v, f);
                        if (r < 0)
                                return r;
                } else if (scalar_is(k, "kubeReserved")) {
                        r = parse_reserved(doc, k, v, "kubeReserved", f, &f->kube_reserved);
                        if (r < 0)
                                return r;
                } else if (scalar_is(k, "systemReserved")) {
                        r = parse_reserved(doc, k, v, "systemReserved", f, &f->system_reserved);
                        if (r < 0)
                                return r;
                } else if (scalar_is(k, "maxPods")) {
                        r = parse_max_pods(k, v, f);
                        if (r < 0)
                                return r;
                } else if (scalar_is(k, "mergeDefaultEvictionSettings")) {
                        f->merge_default_eviction_line = line_of(k);
                        if (is_null(v)) {
                                f->merge_default_eviction_field = KUBELET_FIELD_CLEARED;
                                continue;
                        }
                        int b = yaml_bool(v);
                        if (b < 0) {
                                f->merge_default_eviction_field = KUBELET_FIELD_ABSENT;
                                r = set_invalid(f, line_of(k), strdup("mergeDefaultEvictionSettings is not a boolean"));
                                if (r < 0)
                                        return r;
                                continue;
                        }
                        f->merge_default_eviction_field = KUBELET_FIELD_SET;
                        f->merge_default_eviction = b;
                }
        }

        const char *a = scalar(api), *k = scalar(kind);
        f->no_api_version = !a && k && streq(k, "KubeletConfiguration");
        if (!a || !startswith(a, "kubelet.config.k8s.io/"))
                return set_invalid(f, line_of(api),
                                   a ? strdup_printf("apiVersion %s is not kubelet.config.k8s.io/v1beta1", a)
                                     : strdup("no apiVersion"));
        if (!k || !streq(k, "KubeletConfiguration"))
                return set_invalid(f, line_of(kind),
                                   k ? strdup_printf("kind %s is not KubeletConfiguration", k) : strdup("no kind"));
        return 0;
}

/* The deepest nesting of flow collections ('[', '{' outside quotes and comments), roughly: libyaml
 * takes time quadratic in it (every token revisits the open levels), so a file of 100000 '[' would
 * hold nodeswap for minutes. The kubelet's go-yaml stops at 10000 levels. */
#define KUBELET_FLOW_DEPTH_MAX 1000
static size_t flow_depth(const char *text, size_t len) {
        size_t depth = 0, max = 0;
        char quote = 0;
        bool comment = false;
        for (size_t i = 0; i < len; i++) {
                char ch = text[i];
                if (comment) {
                        comment = ch != '\n' && ch != '\r';
                        continue;
                }
                if (quote) {
                        if (ch == quote)
                                quote = 0;
                        continue;
                }
                if (ch == '"' || ch == '\'')
                        quote = ch;
                else if (ch == '#' && (i == 0 || strchr(" \t\r\n", text[i - 1])))
                        comment = true;
                else if (ch == '[' || ch == '{') {
                        if (++depth > max)
                                max = depth;
                } else if ((ch == ']' || ch == '}') && depth > 0)
                        depth--;
        }
        return max;
}

/* Lines as YAML counts them (LF, CR LF or CR ends one); at least 1. */
static unsigned count_lines(const char *text, size_t len) {
        unsigned n = 1;
        for (size_t i = 0; text && i < len; i++)
                if (text[i] == '\n' || (text[i] == '\r' && (i + 1 >= len || text[i + 1] != '\n')))
                        n++;
        return n;
}

int kubelet_config_parse(const char *path, const char *text, size_t len, KubeletConfigFile *ret) {
        KubeletConfigFile f = {};
        yaml_parser_t parser;
        yaml_document_t doc;
        int r = 0;

        f.path = strdup(path);
        if (!f.path)
                return -ENOMEM;
        if (!yaml_parser_initialize(&parser)) {
                kubelet_config_file_done(&f);
                return -ENOMEM;
        }
        yaml_parser_set_input_string(&parser, (const unsigned char *) (text ?: ""), text ? len : 0);
        if (text && flow_depth(text, len) > KUBELET_FLOW_DEPTH_MAX)
                r = set_invalid(&f, 0, strdup_printf("nested more than %d levels deep", KUBELET_FLOW_DEPTH_MAX));
        else if (!yaml_parser_load(&parser, &doc)) {
                if (parser.error == YAML_MEMORY_ERROR)
                        r = -ENOMEM;
                else
                        /* libyaml may place an error at the end of input on a line after the
                         * last one: name the last line then */
                        r = set_invalid(&f, MIN((unsigned) parser.problem_mark.line + 1, count_lines(text, len)),
                                        strdup_printf("not valid YAML: %s%s%s", strempty(parser.problem),
                                                      parser.context ? " " : "", strempty(parser.context)));
        } else {
                r = parse_root(&doc, &f);
                yaml_document_delete(&doc);
        }
        yaml_parser_delete(&parser);
        if (r < 0) {
                kubelet_config_file_done(&f);
                return r;
        }
        *ret = f;
        return 0;
}

/* --- reading the files --- */

static int files_add(KubeletConfig *c, KubeletConfigFile *f) {
        KubeletConfigFile *n = realloc(c->files, sizeof(KubeletConfigFile) * (c->n_files + 1));
        if (!n) {
                kubelet_config_file_done(f);
                return -ENOMEM;
        }
        c->files = n;
        c->files[c->n_files++] = *f;
        *f = (KubeletConfigFile) {};
        return 0;
}

/* Read one file the kubelet reads. Absent (ENOENT) with skip_missing: nothing added. */
static int read_one(KubeletConfig *c, const char *root, const char *path, bool skip_missing) {
        _cleanup_free_ char *full = path_join_root(root, path);
        if (!full)
                return -ENOMEM;
        KubeletConfigFile f = {};
        _cleanup_close_ int fd = open(full, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
        struct stat st;
        int r;
        if (fd < 0 && errno == ENOENT && skip_missing)
                return 0;
        int e = fd < 0 ? errno : fstat(fd, &st) < 0 ? errno : S_ISREG(st.st_mode) ? 0 : -1;
        if (e != 0) {
                if (e == ENOMEM)
                        return -ENOMEM;
                f.path = strdup(path);
                if (!f.path)
                        return -ENOMEM;
                r = set_invalid(&f, 0, e < 0 ? strdup("not a regular file")
                                             : strdup_printf("cannot be read: %s", strerror(e)));
                if (r < 0) {
                        kubelet_config_file_done(&f);
                        return r;
                }
                return files_add(c, &f);
        }
        _cleanup_free_ char *text = NULL;
        size_t len = 0;
        r = read_fd_full(fd, KUBELET_FILE_MAX, false, &text, &len);
        if (r == -ENOMEM)
                return r;
        if (r < 0) {
                f.path = strdup(path);
                if (!f.path)
                        return -ENOMEM;
                r = set_invalid(&f, 0, strdup_printf("cannot be read: %s", strerror(-r)));
                if (r < 0) {
                        kubelet_config_file_done(&f);
                        return r;
                }
                return files_add(c, &f);
        }
        r = kubelet_config_parse(path, text, len, &f);
        if (r < 0)
                return r;
        /* a drop-in without apiVersion: 1.30 and 1.31 take it (mergeKubeletConfigurations() checks
         * the group, version and kind since 1.32: "no apiVersion/kind"). shared/docs/DOMAIN.md says
         * every drop-in needs both; the kubelet wins: the real v1.31.0 runs with such a file. */
        if (f.invalid && f.no_api_version && streq_ptr(f.invalid_reason, "no apiVersion") &&
            !streq_ptr(path, c->config_file) && kubelet_config_rule(c) == KUBELET_MERGE_LEGACY) {
                f.invalid = false;
                f.invalid_line = 0;
                free(f.invalid_reason);
                f.invalid_reason = NULL;
        }
        return files_add(c, &f);
}

static int name_cmp(const void *a, const void *b) {
        return strcmp(*(char *const *) a, *(char *const *) b);
}

/* What k3s and rke2 put into their kubelet's --config-dir before every start, from the
 * kubelet-arg entries they take out of the kubelet's flags (k3s-io/k3s pkg/agent
 * extractConfigArgs()): "config=FILE" copied to 10-cli-config.conf, "config-dir=DIR" copied into
 * 20-cli-config-dir/ (otiai10/copy: DIR's files replace those of the same name, the others an
 * earlier start copied stay). Either is left where it is when it already lies below the
 * --config-dir (strings.HasPrefix), and a copy that fails stops k3s before the kubelet starts. */
typedef struct KubeletCopy {
        const char *name;               /* in the --config-dir */
        const KubeletFlag *flag;        /* the kubelet-arg entry; its value is the source */
        bool dir;
} KubeletCopy;

/* An entry that stands for a copy k3s cannot make: the kubelet does not start. */
static int copy_failed(KubeletConfig *c, const KubeletCopy *k, const char *dest, const char *why) {
        KubeletConfigFile f = { .path = strdup(k->flag->value), .order_path = strdup(dest),
                                .copy_failed = strdup(k->flag->file) };
        int r = !f.path || !f.order_path || !f.copy_failed ? -ENOMEM
                : set_invalid(&f, 0, strdup_printf("k3s cannot copy it (kubelet-arg %s=%s in %s:%u) to %s: %s",
                                                   k->flag->name, k->flag->value, k->flag->file, k->flag->line, dest,
                                                   why));
        if (r < 0) {
                kubelet_config_file_done(&f);
                return r;
        }
        return files_add(c, &f);
}

static int walk(KubeletConfig *c, const char *root, const char *dir, const char *over, unsigned depth,
                const KubeletCopy *copies, size_t n_copies);

/* The entry name of the --config-dir that is one of k3s's copies. */
static int walk_copy(KubeletConfig *c, const char *root, const KubeletCopy *k, const char *dest, unsigned depth) {
        const char *src = k->flag->value;
        if (!*src)       /* "value required for kubelet-arg --config" */
                return copy_failed(c, k, dest, "no value");
        if (!k->dir) {
                size_t n = c->n_files;
                int r = read_one(c, root, src, false);
                if (r < 0 || c->n_files == n)
                        return r;
                c->files[n].order_path = strdup(dest);
                return c->files[n].order_path ? 0 : -ENOMEM;
        }
        _cleanup_free_ char *full = path_join_root(root, src);
        struct stat st;
        if (!full)
                return -ENOMEM;
        if (stat(full, &st) < 0)
                return errno == ENOMEM ? -ENOMEM : copy_failed(c, k, dest, strerror(errno));
        if (!S_ISDIR(st.st_mode))
                return copy_failed(c, k, dest, "not a directory");
        return walk(c, root, dest, src, depth + 1, NULL, 0);
}

/* The names in a directory below root, added to *names; absent or unreadable: none. */
static int list_names(const char *root, const char *dir, char ***names) {
        _cleanup_free_ char *full = path_join_root(root, dir);
        if (!full)
                return -ENOMEM;
        _cleanup_(closedirp) DIR *d = opendir(full);
        if (!d)
                return errno == ENOMEM ? -ENOMEM : 0;
        struct dirent *de;
        while ((errno = 0, de = readdir(d)))
                if (!streq(de->d_name, ".") && !streq(de->d_name, "..") && strv_extend(names, de->d_name) < 0)
                        return -ENOMEM;
        return 0;
}

/* The entry dir/name, or over/name where over has it: its path and lstat() (-1: neither has it). */
static int entry_stat(const char *root, const char *dir, const char *over, const char *name, char **ret_path,
                      struct stat *st) {
        const char *parents[] = { over, dir };
        for (size_t i = 0; i < ELEMENTSOF(parents); i++) {
                if (!parents[i])
                        continue;
                _cleanup_free_ char *path = strdup_printf("%s%s%s", parents[i], endswith(parents[i], "/") ? "" : "/", name);
                _cleanup_free_ char *full = path ? path_join_root(root, path) : NULL;
                if (!full)
                        return -ENOMEM;
                if (lstat(full, st) == 0) {
                        *ret_path = TAKE_PTR(path);
                        return 0;
                }
        }
        return -1;
}

/* filepath.WalkDir: the entries of a directory in lexical order, a subdirectory walked where its
 * name sorts; files whose name ends in .conf are read (symlinks to files too; a symlink to a
 * directory is not followed). over: a directory k3s copies over dir before the kubelet starts (its
 * entries win), NULL: none; copies: k3s's entries in the --config-dir itself. */
static int walk(KubeletConfig *c, const char *root, const char *dir, const char *over, unsigned depth,
                const KubeletCopy *copies, size_t n_copies) {
        _cleanup_strv_free_ char **names = NULL;
        int r = list_names(root, dir, &names);
        if (r >= 0 && over)
                r = list_names(root, over, &names);
        for (size_t i = 0; r >= 0 && i < n_copies; i++)
                r = strv_extend(&names, copies[i].name);
        if (r < 0)
                return r;
        size_t n = strv_length(names);
        if (n > 1)
                qsort(names, n, sizeof(char *), name_cmp);

        for (size_t i = 0; i < n; i++) {
                if (i > 0 && streq(names[i], names[i - 1]))
                        continue;       /* in dir and in over, or one of k3s's copies */
                _cleanup_free_ char *path = strdup_printf("%s%s%s", dir, endswith(dir, "/") ? "" : "/", names[i]);
                if (!path)
                        return -ENOMEM;
                const KubeletCopy *k = NULL;
                for (size_t j = 0; j < n_copies && !k; j++)
                        if (streq(copies[j].name, names[i]))
                                k = &copies[j];
                if (k) {
                        r = walk_copy(c, root, k, path, depth);
                        if (r < 0)
                                return r;
                        continue;
                }
                _cleanup_free_ char *from = NULL;
                struct stat st;
                r = entry_stat(root, dir, over, names[i], &from, &st);
                if (r == -ENOMEM)
                        return r;
                if (r < 0)
                        continue;
                if (S_ISDIR(st.st_mode)) {
                        if (depth >= KUBELET_WALK_DEPTH)
                                continue;
                        _cleanup_free_ char *sub = over ? strdup_printf("%s/%s", over, names[i]) : NULL;
                        if (over && !sub)
                                return -ENOMEM;
                        r = walk(c, root, path, sub, depth + 1, NULL, 0);
                } else if (endswith(names[i], ".conf")) {
                        size_t first = c->n_files;
                        r = read_one(c, root, from, false);
                        if (r >= 0 && !streq(from, path) && c->n_files > first &&
                            !(c->files[first].order_path = strdup(path)))
                                r = -ENOMEM;
                } else
                        continue;
                if (r < 0)
                        return r;
        }
        return 0;
}

/* The --eviction-hard flags as the kubelet's LangleSeparatedMapStringString takes them
 * (k8s.io/component-base/cli/flag): the first occurrence replaces the map, every one adds its
 * "SIGNAL<VALUE" pairs, separated by ',', each side trimmed; a pair without '<' is refused. */
static int read_eviction_flags(KubeletConfig *c) {
        for (size_t i = 0; i < c->flags.n; i++) {
                const KubeletFlag *fl = &c->flags.flags[i];
                if (!streq(fl->name, "eviction-hard"))
                        continue;
                c->eviction_hard_flag = fl;
                /* a new map: what earlier occurrences set is gone only on the first Set(), and
                 * nodeswap keeps memory.available alone, which a later pair replaces */
                _cleanup_free_ char *copy = strdup(strempty(fl->value));
                if (!copy)
                        return -ENOMEM;
                char *rest = copy, *p;
                while ((p = strsep(&rest, ","))) {
                        char *pair = strstrip(p);
                        if (!*pair)
                                continue;
                        char *lt = strchr(pair, '<');
                        if (!lt) {
                                if (!c->eviction_hard_flag_invalid)
                                        c->eviction_hard_flag_invalid = fl;
                                continue;
                        }
                        *lt = 0;
                        if (!streq(strstrip(pair), "memory.available"))
                                continue;
                        char *v = strdup(strstrip(lt + 1));
                        if (!v)
                                return -ENOMEM;
                        free(c->flag_memory_available);
                        c->flag_memory_available = v;
                        c->flag_memory_available_from = fl;
                }
        }
        return 0;
}

/* --kube-reserved and --system-reserved as the kubelet's MapStringString takes them
 * (k8s.io/component-base/cli/flag): "KEY=VALUE" pairs separated by ',', each side trimmed; the
 * first occurrence replaces the files' map, later ones add to it. nodeswap keeps "memory". */
static int read_reserved_flags(KubeletConfig *c, const char *name, const KubeletFlag **ret_flag, char **ret_memory) {
        for (size_t i = 0; i < c->flags.n; i++) {
                const KubeletFlag *fl = &c->flags.flags[i];
                if (!streq(fl->name, name))
                        continue;
                *ret_flag = fl;
                _cleanup_free_ char *copy = strdup(strempty(fl->value));
                if (!copy)
                        return -ENOMEM;
                char *rest = copy, *p;
                while ((p = strsep(&rest, ","))) {
                        char *eq = strchr(p, '=');
                        if (!eq)
                                continue;
                        *eq = 0;
                        if (!streq(strstrip(p), "memory"))
                                continue;
                        char *v = strdup(strstrip(eq + 1));
                        if (!v)
                                return -ENOMEM;
                        free(*ret_memory);
                        *ret_memory = v;
                }
        }
        return 0;
}

/* k3s's copies into its kubelet's --config-dir (KubeletCopy), of the kubelet-arg entries not already
 * below it (strings.HasPrefix(src, dir), as k3s compares them). */
static void k3s_copies(const KubeletConfig *c, KubeletCopy copies[static 2], size_t *n) {
        const KubeletFlag *k[] = { &c->flags.k3s_config, &c->flags.k3s_config_dir };
        const char *names[] = { "10-cli-config.conf", "20-cli-config-dir" };
        *n = 0;
        for (size_t i = 0; i < ELEMENTSOF(k); i++)
                if (k[i]->name && !startswith(k[i]->value, c->config_dir))
                        copies[(*n)++] = (KubeletCopy) { .name = names[i], .flag = k[i], .dir = i == 1 };
}

static bool unit_is_kubeadm(const char *unit) {
        return unit && streq(unit, "kubelet.service");
}

/* A path flag's value as the kubelet takes it (relative to its working directory, / under systemd). */
static char *flag_path(const KubeletFlag *f) {
        const char *v = strempty(f->value);
        return v[0] == '/' ? strdup(v) : strdup_printf("/%s", v);
}

int kubelet_config_read(const char *root, const char *unit, const char *dropin, KubeletConfig *ret) {
        KubeletConfig c = {};
        int r;

        if (unit && !(c.unit = strdup(unit)))
                return -ENOMEM;

        r = kubelet_flags_read(root, unit, &c.flags);
        if (r < 0)
                goto fail;
        r = read_eviction_flags(&c);
        if (r >= 0)
                r = read_reserved_flags(&c, "kube-reserved", &c.kube_reserved_flag, &c.flag_kube_reserved_memory);
        if (r >= 0)
                r = read_reserved_flags(&c, "system-reserved", &c.system_reserved_flag, &c.flag_system_reserved_memory);
        if (r < 0)
                goto fail;
        {
                _cleanup_free_ char *exec = NULL;
                r = kubelet_unit_exec(root, unit, &exec);
                if (r >= 0)
                        r = kubelet_version_read(root, unit, exec, &c.version);
                if (r < 0)
                        goto fail;
        }

        /* kubeadm's 10-kubeadm.conf passes --config=/var/lib/kubelet/config.yaml; a --config flag
         * nodeswap reads comes after it and wins */
        const KubeletFlag *config = kubelet_flags_last(&c.flags, "config");
        if (config)
                c.config_file = flag_path(config);
        else if (unit_is_kubeadm(unit))
                c.config_file = strdup(KUBEADM_CONFIG);
        if ((config || unit_is_kubeadm(unit)) && !c.config_file) {
                r = -ENOMEM;
                goto fail;
        }

        c.config_dir_flag = kubelet_flags_last(&c.flags, "config-dir");
        if (c.config_dir_flag) {
                c.config_dir = flag_path(c.config_dir_flag);
                c.config_dir_source = kubelet_flag_source(c.config_dir_flag);
        } else if (dropin) {
                /* k3s and rke2 pass their own --config-dir, the directory of DropIn= by default */
                const char *slash = strrchr(dropin, '/');
                c.config_dir = slash && slash != dropin ? strndup(dropin, (size_t) (slash - dropin)) : strdup("/");
                c.config_dir_source = strdup("the directory of [Kubelet] DropIn=");
        }
        if ((c.config_dir_flag || dropin) && (!c.config_dir || !c.config_dir_source)) {
                r = -ENOMEM;
                goto fail;
        }

        if (c.config_file) {
                /* a missing default file is no error; one a flag names stops the kubelet */
                r = read_one(&c, root, c.config_file, !config);
                if (r < 0)
                        goto fail;
                /* kubeadm's default file, absent (only ENOENT is skipped): the real kubelet stops
                 * with "failed to load kubelet config file" (v1.31.0 and v1.36.3 alike); a file a
                 * flag names is read above as unreadable, which stops it too */
                c.config_file_missing = c.n_files == 0;
        }
        if (c.config_dir_flag) {
                /* filepath.WalkDir's error for the root stops the kubelet (mergeKubeletConfigurations) */
                _cleanup_free_ char *full = path_join_root(root, c.config_dir);
                struct stat st;
                if (!full) {
                        r = -ENOMEM;
                        goto fail;
                }
                if (stat(full, &st) < 0)
                        c.config_dir_error = errno;
                else if (!S_ISDIR(st.st_mode))
                        c.config_dir_error = ENOTDIR;
        }
        if (c.config_dir) {
                KubeletCopy copies[2];
                size_t n_copies = 0;
                k3s_copies(&c, copies, &n_copies);
                r = walk(&c, root, c.config_dir, NULL, 0, copies, n_copies);
                if (r < 0)
                        goto fail;
        }
        *ret = c;
        return 0;
fail:
        kubelet_config_done(&c);
        return r;
}

/* --- merging --- */

/* The order filepath.WalkDir visits paths in: component by component. */
static int walk_cmp(const char *a, const char *b) {
        for (;;) {
                size_t la = strcspn(a, "/"), lb = strcspn(b, "/");
                int r = memcmp(a, b, la < lb ? la : lb);
                if (r != 0)
                        return r;
                if (la != lb)
                        return la < lb ? -1 : 1;
                a += la;
                b += lb;
                if (!*a || !*b)
                        return !*a && !*b ? 0 : !*a ? -1 : 1;
                a++;
                b++;
        }
}

bool kubelet_config_reads(const KubeletConfig *c, const char *path) {
        if (!c || !c->config_dir || !path || !endswith(path, ".conf"))
                return false;
        size_t l = strlen(c->config_dir);
        while (l > 1 && c->config_dir[l - 1] == '/')
                l--;
        return strncmp(path, c->config_dir, l) == 0 && (l == 1 || path[l] == '/') && path[l + (l > 1)];
}

KubeletMergeRule kubelet_config_rule(const KubeletConfig *c) {
        return c && c->version.major == 1 && c->version.minor < 32 ? KUBELET_MERGE_LEGACY : KUBELET_MERGE_VERSIONED;
}

bool kubelet_config_merges_default_eviction(const KubeletConfig *c) {
        return !(c && c->version.major == 1 && c->version.minor < 33);
}

int kubelet_threshold_parse(const char *value, uint64_t mem_total, uint64_t *ret_bytes, const char **ret_reason) {
        const char *v = strempty(value);
        size_t l = strlen(v);
        *ret_reason = NULL;
        if (l > 0 && v[l - 1] == '%') {
                if (streq(v, "0%") || streq(v, "100%"))
                        return 0;
                /* strings.TrimRight(v, "%"), then strconv.ParseFloat(, 32), which takes no
                 * blank before the number */
                while (l > 0 && v[l - 1] == '%')
                        l--;
                char *end;
                errno = 0;
                float f = l > 0 ? strtof(v, &end) : 0;
                if (l == 0 || isspace((unsigned char) v[0]) || end != v + l || (errno == ERANGE && isinf(f))) {
                        *ret_reason = "not a number before the %";
                        return -EINVAL;
                }
                float fraction = f / 100.0f;
                if (fraction < 0) {
                        *ret_reason = "a percentage below 0%";
                        return -EINVAL;
                }
                if (fraction > 1) {
                        *ret_reason = "a percentage above 100%";
                        return -EINVAL;
                }
                double b = (double) mem_total * (double) fraction;
                *ret_bytes = isnan(b) || b < 0 ? 0 : (uint64_t) b;
                return 1;
        }
        uint64_t bytes;
        int r = quantity_parse(v, &bytes);
        if (r == -EINVAL) {
                *ret_reason = v[0] == '-' ? "a negative quantity" : "not a quantity (such as 100Mi) or a percentage";
                return -EINVAL;
        }
        if (r < 0) {
                *ret_bytes = UINT64_MAX;        /* (ERANGE: more than any node has) */
                return 1;
        }
        if (bytes == 0 && strspn(v, "+0.") == strcspn(v, "eEkKMGTPnum")) {
                *ret_reason = "zero, which must be positive";
                return -EINVAL;
        }
        *ret_bytes = bytes;
        return 1;
}

bool kubelet_config_starts(const KubeletConfig *c, const KubeletEffective *e) {
        return !e->first_invalid && !e->invalid_flag && !e->unknown_flag && !e->swap_behavior_unknown &&
               !e->memory_available_invalid &&
               !(c && (c->config_dir_error != 0 || c->config_file_missing || c->eviction_hard_flag_invalid));
}

const KubeletConfigFile *kubelet_config_find(const KubeletConfig *c, const char *path) {
        if (!c || !path)
                return NULL;
        for (size_t i = 0; i < c->n_files; i++)
                if (streq(c->files[i].path, path))
                        return &c->files[i];
        return NULL;
}

/* The merge, as the kubelet's cmd/kubelet/app/server.go does it (kubernetes/kubernetes v1.31.0 and
 * v1.36.3, read for this; tests/k8s/kubelet-differential.py holds nodeswap to both binaries):
 *
 * The base. With a --config file, loadConfigFile() decodes it (the v1beta1 defaults: failSwapOn
 * true, swapBehavior "", no evictionHard) and then, when the file sets no evictionHard (or null),
 * puts in DefaultEvictionHard (memory.available 100Mi and the disk thresholds; kubernetes PR
 * 110263); when it sets one and, since 1.33, mergeDefaultEvictionSettings: true, it adds the
 * default signals the file does not name. This is the only place either happens. Without
 * --config (k3s, rke2) the base is built from the flags' defaults: no evictionHard at all.
 *
 * The drop-ins (only with --config-dir), mergeKubeletConfigurations(): each is applied over the
 * result so far as a JSON merge patch (RFC 7386): maps merge key by key, a null deletes the key.
 *   1.32 and later (kubernetes PR 127421): the base is converted to v1beta1 and marshalled with its
 *     camelCase keys, the drop-ins merged over it, the result decoded and
 *     SetDefaults_KubeletConfiguration() run: a key a null deleted gets the v1beta1 default, not
 *     the base's value: failSwapOn true, swapBehavior "" (NoSwap), evictionHard none (no
 *     default: pkg/kubelet/apis/config/v1beta1/defaults.go sets none), and mergeDefault-
 *     EvictionSettings is not looked at again. Every drop-in must name apiVersion
 *     kubelet.config.k8s.io/v1beta1 and kind KubeletConfiguration, or the kubelet does not start.
 *   1.30 and 1.31: the base is marshalled from the internal type, whose fields have no json tags
 *     ("FailSwapOn", "MemorySwap", "EvictionHard"), and the drop-ins' camelCase keys merge beside
 *     them; json.Unmarshal back into the base reads the Go-named key first and the camelCase key
 *     after it (sorted keys; it matches names case-insensitively, a map is filled key by key), so
 *     a drop-in's value wins and its null only takes back what earlier drop-ins set: the base's
 *     value comes back.
 *
 * Then the flags (kubeletConfigFlagPrecedence()): --fail-swap-on wins over every failSwapOn, and
 * the first --eviction-hard replaces the whole evictionHard map. */
typedef struct MergeValue {
        bool present;                   /* in the merged document (1.32+) or the drop-ins' keys (1.31) */
        const char *value;              /* swapBehavior, memory.available; NULL: none */
        bool b;                         /* failSwapOn */
        int64_t n;                      /* maxPods */
        bool is_default;                /* memory.available: DefaultEvictionHard's */
        const KubeletConfigFile *from;  /* NULL: a default */
        unsigned line;
} MergeValue;

typedef struct MergeState {
        MergeValue fail_swap_on, swap_behavior, memory_available;
        /* what the scheduler's allocatable memory leaves out (trial --density): kubeReserved's and
         * systemReserved's memory (maps merged key by key like evictionHard; v1beta1 sets no
         * default for either), maxPods (v1beta1's default 110 when absent) */
        MergeValue kube_reserved, system_reserved, max_pods;
        const KubeletConfigFile *eviction_hard_from;    /* the file that last set or dropped evictionHard */
        const KubeletConfigFile *merge_default_eviction_from;
} MergeState;

/* The base the --config file f (NULL: none) gives; has_config: the kubelet gets a --config
 * (kubeadm: also when the default file is missing). */
static void load_config_file(const KubeletConfig *c, const KubeletConfigFile *f, bool has_config,
                             MergeState *s) {
        *s = (MergeState) { .fail_swap_on = { .present = true, .b = true } };
        if (has_config)
                s->memory_available = (MergeValue) { .present = true, .value = KUBELET_DEFAULT_MEMORY_AVAILABLE,
                                                     .is_default = true };
        if (!f)
                return;
        if (f->kube_reserved.map_field == KUBELET_FIELD_SET && f->kube_reserved.memory_field == KUBELET_FIELD_SET)
                s->kube_reserved = (MergeValue) { .present = true, .value = f->kube_reserved.memory_value, .from = f,
                                                  .line = f->kube_reserved.memory_line };
        if (f->system_reserved.map_field == KUBELET_FIELD_SET && f->system_reserved.memory_field == KUBELET_FIELD_SET)
                s->system_reserved = (MergeValue) { .present = true, .value = f->system_reserved.memory_value,
                                                    .from = f, .line = f->system_reserved.memory_line };
        if (f->max_pods_field == KUBELET_FIELD_SET)
                s->max_pods = (MergeValue) { .present = true, .n = f->max_pods, .from = f, .line = f->max_pods_line };
        if (f->fail_swap_on_field == KUBELET_FIELD_SET)
                s->fail_swap_on = (MergeValue) { .present = true, .b = f->fail_swap_on, .from = f,
                                                 .line = f->fail_swap_on_line };
        else if (f->fail_swap_on_field == KUBELET_FIELD_CLEARED)
                s->fail_swap_on.from = f;
        if (f->swap_behavior_field == KUBELET_FIELD_SET)
                s->swap_behavior = (MergeValue) { .present = !streq(f->swap_behavior_value, ""),
                                                  .value = f->swap_behavior_value, .from = f,
                                                  .line = f->swap_behavior_line };
        else if (f->swap_behavior_field == KUBELET_FIELD_CLEARED)
                s->swap_behavior.from = f;
        if (f->eviction_hard_field != KUBELET_FIELD_SET)
                return;         /* none, or null: DefaultEvictionHard */
        s->eviction_hard_from = f;
        if (f->memory_available_field == KUBELET_FIELD_SET)
                s->memory_available = (MergeValue) { .present = true, .value = f->memory_available_value,
                                                     .from = f, .line = f->memory_available_line };
        else if (f->merge_default_eviction_field == KUBELET_FIELD_SET && f->merge_default_eviction &&
                 kubelet_config_merges_default_eviction(c))
                s->merge_default_eviction_from = f;     /* the default's memory.available stays */
        else
                s->memory_available = (MergeValue) {};
}

/* A value a drop-in's null removes: 1.32+ the v1beta1 default, 1.31 the base's. */
static MergeValue cleared(const KubeletConfig *c, const MergeValue *base, const KubeletConfigFile *f,
                          unsigned line, bool default_b) {
        if (kubelet_config_rule(c) == KUBELET_MERGE_LEGACY)
                return *base;
        return (MergeValue) { .b = default_b, .from = f, .line = line };
}

/* One reserved map's memory from a drop-in: a set key wins, a null key or a null map is taken
 * back as a null in evictionHard is (cleared()). */
static void merge_reserved(const KubeletConfig *c, MergeValue *v, const MergeValue *base, const KubeletConfigFile *f,
                           const KubeletReserved *res) {
        if (res->map_field == KUBELET_FIELD_SET && res->memory_field == KUBELET_FIELD_SET)
                *v = (MergeValue) { .present = true, .value = res->memory_value, .from = f, .line = res->memory_line };
        else if (res->map_field == KUBELET_FIELD_CLEARED)
                *v = cleared(c, base, f, res->map_line, false);
        else if (res->map_field == KUBELET_FIELD_SET && res->memory_field == KUBELET_FIELD_CLEARED)
                *v = cleared(c, base, f, res->memory_line, false);
}

static void merge_dropin(const KubeletConfig *c, MergeState *s, const MergeState *base, const KubeletConfigFile *f) {
        merge_reserved(c, &s->kube_reserved, &base->kube_reserved, f, &f->kube_reserved);
        merge_reserved(c, &s->system_reserved, &base->system_reserved, f, &f->system_reserved);
        switch (f->max_pods_field) {
        case KUBELET_FIELD_SET:
                s->max_pods = (MergeValue) { .present = true, .n = f->max_pods, .from = f, .line = f->max_pods_line };
                break;
        case KUBELET_FIELD_CLEARED:
                s->max_pods = cleared(c, &base->max_pods, f, f->max_pods_line, false);
                break;
        default:
                break;
        }
        switch (f->fail_swap_on_field) {
        case KUBELET_FIELD_SET:
                s->fail_swap_on = (MergeValue) { .present = true, .b = f->fail_swap_on, .from = f,
                                                 .line = f->fail_swap_on_line };
                break;
        case KUBELET_FIELD_CLEARED:
                s->fail_swap_on = cleared(c, &base->fail_swap_on, f, f->fail_swap_on_line, true);
                break;
        default:
                break;
        }
        switch (f->swap_behavior_field) {
        case KUBELET_FIELD_SET:
                s->swap_behavior = (MergeValue) { .present = true, .value = f->swap_behavior_value, .from = f,
                                                  .line = f->swap_behavior_line };
                break;
        case KUBELET_FIELD_CLEARED:
                s->swap_behavior = cleared(c, &base->swap_behavior, f, f->swap_behavior_line, false);
                break;
        default:
                break;
        }
        switch (f->eviction_hard_field) {
        case KUBELET_FIELD_SET:
                /* a map: the keys this file names, the others stay */
                s->eviction_hard_from = f;
                if (f->memory_available_field == KUBELET_FIELD_SET)
                        s->memory_available = (MergeValue) { .present = true, .value = f->memory_available_value,
                                                             .from = f, .line = f->memory_available_line };
                else if (f->memory_available_field == KUBELET_FIELD_CLEARED) {
                        s->memory_available = cleared(c, &base->memory_available, f, f->memory_available_line, false);
                        if (kubelet_config_rule(c) == KUBELET_MERGE_LEGACY)
                                s->eviction_hard_from = base->eviction_hard_from;
                }
                break;
        case KUBELET_FIELD_CLEARED:
                s->memory_available = cleared(c, &base->memory_available, f, f->eviction_hard_line, false);
                s->eviction_hard_from = kubelet_config_rule(c) == KUBELET_MERGE_LEGACY ? base->eviction_hard_from : f;
                break;
        default:
                break;
        }
        /* mergeDefaultEvictionSettings in a drop-in: read by no kubelet (loadConfigFile() alone) */
}

void kubelet_config_effective(const KubeletConfig *c, const char *replace_path,
                              const KubeletConfigFile *replacement, KubeletEffective *ret) {
        KubeletEffective e = {};
        bool pending = replace_path && replacement && kubelet_config_reads(c, replace_path);
        const KubeletConfigFile *config = NULL;
        size_t first = 0;

        if (c && c->config_file && c->n_files > 0 && streq(c->files[0].path, c->config_file)) {
                config = &c->files[0];
                first = 1;
        }
        if (config && config->invalid)
                e.first_invalid = config;
        MergeState base, s;
        load_config_file(c, config && !config->invalid ? config : NULL, c && c->config_file, &base);
        s = base;
        for (size_t i = first; c && i < c->n_files; i++) {
                const KubeletConfigFile *f = &c->files[i];
                if (pending && walk_cmp(replace_path, f->order_path ? f->order_path : f->path) <= 0) {
                        merge_dropin(c, &s, &base, replacement);
                        pending = false;
                }
                if (replace_path && streq(f->path, replace_path))
                        continue;
                if (f->invalid && !e.first_invalid)
                        e.first_invalid = f;
                merge_dropin(c, &s, &base, f);
        }
        if (pending)
                merge_dropin(c, &s, &base, replacement);

        e.fail_swap_on = s.fail_swap_on.present ? s.fail_swap_on.b : true;
        e.fail_swap_on_from = s.fail_swap_on.from;
        e.swap_behavior_value = s.swap_behavior.present ? s.swap_behavior.value : NULL;
        e.swap_behavior_from = s.swap_behavior.from;
        if (s.memory_available.present) {
                e.memory_available = s.memory_available.value;
                e.memory_available_default = s.memory_available.is_default;
                e.memory_available_from = s.memory_available.from;
                e.memory_available_line = s.memory_available.line;
        }
        e.eviction_hard_from = s.eviction_hard_from;
        e.merge_default_eviction_from = base.merge_default_eviction_from;
        if (s.kube_reserved.present) {
                e.kube_reserved_memory = s.kube_reserved.value;
                e.kube_reserved_from = s.kube_reserved.from;
                e.kube_reserved_line = s.kube_reserved.line;
        }
        if (s.system_reserved.present) {
                e.system_reserved_memory = s.system_reserved.value;
                e.system_reserved_from = s.system_reserved.from;
                e.system_reserved_line = s.system_reserved.line;
        }
        if (s.max_pods.present) {
                e.max_pods = s.max_pods.n;
                e.max_pods_from = s.max_pods.from;
                e.max_pods_line = s.max_pods.line;
        } else
                e.max_pods = KUBELET_DEFAULT_MAX_PODS;

        /* the command line last (kubeletConfigFlagPrecedence) */
        const KubeletFlag *fso = c ? kubelet_flags_last(&c->flags, "fail-swap-on") : NULL;
        if (fso) {
                int b = kubelet_flag_bool(fso);
                if (b < 0)
                        e.invalid_flag = fso;
                else {
                        e.fail_swap_on = b;
                        e.fail_swap_on_flag = fso;
                }
        }
        /* no such flag (the field is in the configuration file only): pflag refuses it */
        e.unknown_flag = c ? kubelet_flags_last(&c->flags, "merge-default-eviction-settings") : NULL;

        /* --eviction-hard replaces every file's evictionHard */
        if (c && c->eviction_hard_flag) {
                e.eviction_hard_flag = c->eviction_hard_flag;
                e.memory_available = c->flag_memory_available;
                e.memory_available_default = false;
                e.memory_available_from = NULL;
                e.memory_available_line = 0;
                e.memory_available_flag = c->flag_memory_available_from;
        }
        if (e.memory_available) {
                uint64_t bytes;
                const char *why;
                int t = kubelet_threshold_parse(e.memory_available, 0, &bytes, &why);
                if (t == 0)
                        e.memory_available = NULL;      /* 0%, 100%: the kubelet ignores it */
                else if (t < 0)
                        e.memory_available_invalid = why ?: "cannot be parsed";
        }

        /* --kube-reserved, --system-reserved replace the files' maps; --max-pods the files' value */
        if (c && c->kube_reserved_flag) {
                e.kube_reserved_flag = c->kube_reserved_flag;
                e.kube_reserved_memory = c->flag_kube_reserved_memory;
                e.kube_reserved_from = NULL;
                e.kube_reserved_line = 0;
        }
        if (c && c->system_reserved_flag) {
                e.system_reserved_flag = c->system_reserved_flag;
                e.system_reserved_memory = c->flag_system_reserved_memory;
                e.system_reserved_from = NULL;
                e.system_reserved_line = 0;
        }
        const KubeletFlag *mp = c ? kubelet_flags_last(&c->flags, "max-pods") : NULL;
        if (mp) {
                uint64_t n;
                if (safe_atou64(strempty(mp->value), &n) < 0 || n > INT32_MAX)
                        e.max_pods_flag_invalid = mp;
                else {
                        e.max_pods = (int64_t) n;
                        e.max_pods_flag = mp;
                        e.max_pods_from = NULL;
                        e.max_pods_line = 0;
                }
        }

        const char *v = e.swap_behavior_value;
        if (!v || streq(v, ""))
                e.swap_behavior = SWAP_BEHAVIOR_UNSET;
        else if (streq(v, "NoSwap"))
                e.swap_behavior = SWAP_BEHAVIOR_NO_SWAP;
        else if (streq(v, "LimitedSwap"))
                e.swap_behavior = SWAP_BEHAVIOR_LIMITED_SWAP;
        else
                e.swap_behavior_unknown = true;
        *ret = e;
}
