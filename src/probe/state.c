/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "probe/state.h"

#include <ctype.h>
#include <inttypes.h>
#include "policy/policy.h"
#include "shared/unit-name.h"

void nodeswap_state_init(NodeswapState *s) {
        *s = (NodeswapState) {
                .saved_swappiness = -1,
                .saved_page_cluster = -1,
                .saved_min_free_kbytes = -1,
                .saved_watermark_scale_factor = -1,
                .set_min_free_kbytes = -1,
        };
}

void nodeswap_state_done(NodeswapState *s) {
        if (!s)
                return;
        strv_free(s->stopped_units);
        strv_free(s->no_swap_units);
        free(s->zram_ids);
        strv_free(s->swap_files);
        strv_free(s->writeback_files);
        strv_free(s->unreadable);
        for (size_t i = 0; i < _ZSWAP_PARAM_MAX; i++)
                free(s->saved_zswap[i]);
        nodeswap_state_init(s);
}

static int strv_extend_all(char ***l, char *const *values) {
        for (char *const *v = values; v && *v; v++) {
                int r = strv_extend(l, *v);
                if (r < 0)
                        return r;
        }
        return 0;
}

int nodeswap_state_copy(const NodeswapState *s, NodeswapState *ret) {
        NodeswapState c = *s;
        c.stopped_units = c.swap_files = c.writeback_files = c.unreadable = c.no_swap_units = NULL;
        c.zram_ids = NULL;
        c.n_zram_ids = 0;
        for (size_t i = 0; i < _ZSWAP_PARAM_MAX; i++)
                c.saved_zswap[i] = NULL;
        int r = strv_extend_all(&c.stopped_units, s->stopped_units);
        for (size_t i = 0; r >= 0 && i < _ZSWAP_PARAM_MAX; i++)
                if (s->saved_zswap[i] && !(c.saved_zswap[i] = strdup(s->saved_zswap[i])))
                        r = -ENOMEM;
        if (r >= 0)
                r = strv_extend_all(&c.no_swap_units, s->no_swap_units);
        if (r >= 0)
                r = strv_extend_all(&c.swap_files, s->swap_files);
        if (r >= 0)
                r = strv_extend_all(&c.writeback_files, s->writeback_files);
        if (r >= 0)
                r = strv_extend_all(&c.unreadable, s->unreadable);
        for (size_t i = 0; r >= 0 && i < s->n_zram_ids; i++)
                r = state_add_zram_id(&c, s->zram_ids[i]);
        if (r < 0) {
                nodeswap_state_done(&c);
                return r;
        }
        *ret = c;
        return 0;
}

bool state_has_zram_id(const NodeswapState *s, int id) {
        for (size_t i = 0; i < s->n_zram_ids; i++)
                if (s->zram_ids[i] == id)
                        return true;
        return false;
}

int state_add_zram_id(NodeswapState *s, int id) {
        if (id < 0)
                return -EINVAL;
        if (state_has_zram_id(s, id))
                return 1;
        int *n = realloc(s->zram_ids, sizeof(int) * (s->n_zram_ids + 1));
        if (!n)
                return -ENOMEM;
        n[s->n_zram_ids++] = id;
        s->zram_ids = n;
        return 0;
}

int state_remove_zram_id(NodeswapState *s, int id) {
        for (size_t i = 0; i < s->n_zram_ids; i++)
                if (s->zram_ids[i] == id) {
                        memmove(s->zram_ids + i, s->zram_ids + i + 1,
                                sizeof(int) * (s->n_zram_ids - i - 1));
                        s->n_zram_ids--;
                        if (s->n_zram_ids == 0) {
                                free(s->zram_ids);
                                s->zram_ids = NULL;
                        }
                        return 0;
                }
        return 1;
}

/* An absolute path with no newline and no "." or ".." component: what swap_file= accepts. */
static bool swap_file_path_ok(const char *path) {
        if (!path || path[0] != '/' || path[1] == 0 || strchr(path, '\n'))
                return false;
        for (const char *c = path; c && *c;) {
                c++;    /* past the '/' */
                size_t n = strcspn(c, "/");
                if ((n == 1 && c[0] == '.') || (n == 2 && c[0] == '.' && c[1] == '.'))
                        return false;
                c = strchr(c, '/');
        }
        return true;
}

static int path_list_add(char ***l, const char *path) {
        if (!swap_file_path_ok(path))
                return -EINVAL;
        if (strv_contains(*l, path))
                return 1;
        return strv_extend(l, path);
}

static int path_list_remove(char ***l, const char *path) {
        size_t n = strv_length(*l);
        for (size_t i = 0; i < n; i++)
                if (streq((*l)[i], path)) {
                        free((*l)[i]);
                        memmove(*l + i, *l + i + 1, sizeof(char *) * (n - i));
                        if (!(*l)[0]) {
                                free(*l);
                                *l = NULL;
                        }
                        return 0;
                }
        return 1;
}

int state_add_swap_file(NodeswapState *s, const char *path) {
        return path_list_add(&s->swap_files, path);
}

int state_remove_swap_file(NodeswapState *s, const char *path) {
        return path_list_remove(&s->swap_files, path);
}

int state_add_no_swap_unit(NodeswapState *s, const char *unit) {
        if (!unit_name_is_valid(unit, UNIT_NAME_PLAIN | UNIT_NAME_INSTANCE))
                return -EINVAL;
        if (strv_contains(s->no_swap_units, unit))
                return 1;
        return strv_extend(&s->no_swap_units, unit);
}

int state_remove_no_swap_unit(NodeswapState *s, const char *unit) {
        return path_list_remove(&s->no_swap_units, unit);
}

int state_add_writeback_file(NodeswapState *s, const char *path) {
        return path_list_add(&s->writeback_files, path);
}

int state_remove_writeback_file(NodeswapState *s, const char *path) {
        return path_list_remove(&s->writeback_files, path);
}

static int parse_bool(const char *v, bool *ret) {
        if (streq(v, "yes") || streq(v, "1") || streq(v, "true")) {
                *ret = true;
                return 0;
        }
        if (streq(v, "no") || streq(v, "0") || streq(v, "false")) {
                *ret = false;
                return 0;
        }
        return -EINVAL;
}

bool state_zswap_value_valid(const char *v) {
        if (!v || strlen(v) > STATE_ZSWAP_VALUE_MAX)
                return false;
        for (const char *c = v; *c; c++)
                if (!isgraph((unsigned char) *c))
                        return false;
        return true;
}

int state_save_zswap(NodeswapState *s, ZswapParam p, const char *value) {
        if (p >= _ZSWAP_PARAM_MAX || !state_zswap_value_valid(value))
                return -EINVAL;
        if (s->saved_zswap[p])
                return 1;
        return (s->saved_zswap[p] = strdup(value)) ? 0 : -ENOMEM;
}

void state_forget_zswap(NodeswapState *s, ZswapParam p) {
        if (p >= _ZSWAP_PARAM_MAX)
                return;
        free(s->saved_zswap[p]);
        s->saved_zswap[p] = NULL;
}

/* Apply one "key=value" line to s. Unknown keys and bad values are ignored; only ENOMEM fails. */
static int state_apply_line(NodeswapState *s, char *line) {
        line = strstrip(line);
        if (!*line || *line == '#')
                return 0;
        char *eq = strchr(line, '=');
        if (!eq)
                return 0;
        *eq = 0;
        char *key = strstrip(line), *value = strstrip(eq + 1);
        int i;
        uint64_t u;
        bool b;

        if (streq(key, "saved_swappiness")) {
                if (safe_atoi(value, &i) >= 0 && i >= 0 && i <= 200)
                        s->saved_swappiness = i;
        } else if (streq(key, "saved_page_cluster")) {
                if (safe_atoi(value, &i) >= 0 && i >= 0 && i <= 31)
                        s->saved_page_cluster = i;
        } else if (streq(key, "saved_min_free_kbytes")) {
                if (safe_atoi(value, &i) >= 0 && i >= 0)
                        s->saved_min_free_kbytes = i;
        } else if (streq(key, "saved_watermark_scale_factor")) {
                if (safe_atoi(value, &i) >= 0 && i >= 1 && i <= RECLAIM_WSF_MAX_NEW)
                        s->saved_watermark_scale_factor = i;
        } else if (streq(key, "set_min_free_kbytes")) {
                if (safe_atoi(value, &i) >= 0 && i >= 0)
                        s->set_min_free_kbytes = i;
        } else if (streq(key, "reverted")) {
                if (parse_bool(value, &b) >= 0)
                        s->reverted = b;
        } else if (streq(key, "stopped_unit")) {
                if (*value && !strchr(value, ' ') && !strv_contains(s->stopped_units, value))
                        return strv_extend(&s->stopped_units, value);
        } else if (streq(key, "no_swap_unit")) {
                if (state_add_no_swap_unit(s, value) == -ENOMEM)
                        return -ENOMEM;
        } else if (streq(key, "io_latency")) {
                unsigned ma, mi;
                char end;
                if (sscanf(value, "%u:%u %" SCNu64 "%c", &ma, &mi, &u, &end) == 3 && u > 0) {
                        s->io_latency_major = ma;
                        s->io_latency_minor = mi;
                        s->io_latency_usec = u;
                }
        } else if (streq(key, "swap_changed_usec")) {
                if (safe_atou64(value, &u) >= 0)
                        s->swap_changed_usec = u;
        } else if (streq(key, "last_run_usec")) {
                if (safe_atou64(value, &u) >= 0)
                        s->last_run_usec = u;
        } else if (streq(key, "last_run")) {
                if (streq(value, "apply") || streq(value, "revert"))
                        s->last_run_revert = streq(value, "revert");
        } else if (streq(key, "last_run_result")) {
                if (streq(value, "ok") || streq(value, "failed"))
                        s->last_run_failed = streq(value, "failed");
        } else if (streq(key, "swap_file")) {
                int r = state_add_swap_file(s, value);
                if (r == -ENOMEM)
                        return r;
        } else if (streq(key, "writeback_file")) {
                int r = state_add_writeback_file(s, value);
                if (r == -ENOMEM)
                        return r;
        } else if (startswith(key, "saved_zswap_")) {
                int p = zswap_param_from_string(key + strlen("saved_zswap_"));
                if (p >= 0 && state_zswap_value_valid(value)) {
                        state_forget_zswap(s, p);
                        if (state_save_zswap(s, p, value) < 0)
                                return -ENOMEM;
                }
        } else if (streq(key, "zram_id")) {
                if (safe_atoi(value, &i) >= 0 && i >= 0) {
                        int r = state_add_zram_id(s, i);
                        if (r < 0)
                                return r;
                }
        }
        return 0;
}

static int state_load_file(const char *root, const char *path, NodeswapState *s) {
        _cleanup_free_ char *p = path_join_root(root, path);
        _cleanup_free_ char *buf = NULL;
        if (!p)
                return -ENOMEM;
        int r = read_full_file(p, READ_TEXT_MAX, &buf);
        if (r == -ENOENT)
                return 0;
        if (r == -EACCES || r == -EPERM)
                return strv_extend(&s->unreadable, p);
        if (r < 0)
                return r;
        char *save = NULL;
        for (char *line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
                r = state_apply_line(s, line);
                if (r < 0)
                        return r;
        }
        return 0;
}

int state_load_persistent(const char *root, NodeswapState *ret) {
        NodeswapState s;
        nodeswap_state_init(&s);
        int r = state_load_file(root, STATE_PERSISTENT_PATH, &s);
        if (r < 0) {
                nodeswap_state_done(&s);
                return r;
        }
        *ret = s;
        return 0;
}

bool state_has_records(const NodeswapState *s) {
        if (s->saved_swappiness >= 0 || s->saved_page_cluster >= 0 || s->saved_min_free_kbytes >= 0 ||
            s->saved_watermark_scale_factor >= 0 || s->set_min_free_kbytes >= 0 || s->reverted || s->stopped_units ||
            s->no_swap_units || s->io_latency_usec || s->swap_files || s->writeback_files)
                return true;
        for (size_t i = 0; i < _ZSWAP_PARAM_MAX; i++)
                if (s->saved_zswap[i])
                        return true;
        return false;
}

int state_load(const char *root, NodeswapState *ret) {
        NodeswapState s;
        nodeswap_state_init(&s);
        int r = state_load_file(root, STATE_PERSISTENT_PATH, &s);
        if (r >= 0)
                r = state_load_file(root, STATE_RUNTIME_PATH, &s);
        if (r < 0) {
                nodeswap_state_done(&s);
                return r;
        }
        *ret = s;
        return 0;
}

/* A small growable string. */
