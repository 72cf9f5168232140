/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "probe/noswap.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>

#include "shared/unit-name.h"
#include "shared/util.h"

/* The largest unit file or drop-in read. */
#define UNIT_FILE_MAX (1024 * 1024)

/* The unit directories in systemd's order, highest priority first (src/basic/path-lookup.c,
 * lookup_paths_init() for the system manager; systemd.unit(5), "System Unit Search Path"). */
static const char *const unit_search_path[] = {
        "/etc/systemd/system.control",
        NO_SWAP_CONTROL_DIR,
        "/run/systemd/transient",
        "/run/systemd/generator.early",
        "/etc/systemd/system",
        "/run/systemd/system",
        NO_SWAP_GENERATOR_DIR,
        "/usr/local/lib/systemd/system",
        "/lib/systemd/system",
        "/usr/lib/systemd/system",
        "/run/systemd/generator.late",
};

int no_swap_units_resolve(char *const *list, const char *kubelet_unit, char ***ret) {
        char **l = NULL;
        for (char *const *i = list; i && *i; i++) {
                const char *name = streq(*i, NO_SWAP_UNITS_KUBELET) ? kubelet_unit : *i;
                if (!name || strv_contains(l, name))
                        continue;
                if (strv_extend(&l, name) < 0) {
                        strv_free(l);
                        return -ENOMEM;
                }
        }
        *ret = l;
        return 0;
}

/* The last MemorySwapMax= of one file: 1 a value, 2 an empty one (a reset), 0 none, -errno. */
static int file_setting(const char *path, unsigned *line, char **value) {
        _cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
        _cleanup_free_ char *text = NULL;
        struct stat st;
        if (fd < 0)
                return errno == ENOENT ? 0 : -errno;
        if (fstat(fd, &st) < 0)
                return -errno;
        if (!S_ISREG(st.st_mode))
                return 0;       /* a mask (/dev/null) or a directory */
        int r = read_fd_full(fd, UNIT_FILE_MAX, true, &text, NULL);
        if (r < 0)
                return r;
        int found = 0;
        unsigned n = 0;
        for (char *s = text, *e; s && *s; s = e) {
                e = strchr(s, '\n');
                if (e)
                        *e++ = 0;
                n++;
                s += strspn(s, " \t");
                if (!startswith(s, "MemorySwapMax="))
                        continue;
                char *v = strstrip(s + strlen("MemorySwapMax="));
                free(*value);
                *value = NULL;
                found = 2;
                if (!*v)
                        continue;
                *value = strdup(v);
                if (!*value)
                        return -ENOMEM;
                *line = n;
                found = 1;
        }
        return found;
}

typedef struct DropinFile {
        char *name;             /* its file name */
        char *path;             /* as systemd sees it (below /) */
        size_t dir;             /* index in unit_search_path */
} DropinFile;

static int cmp_dropin(const void *a, const void *b) {
        const DropinFile *x = a, *y = b;
        int c = strcmp(x->name, y->name);
        return c ? c : (x->dir > y->dir) - (x->dir < y->dir);
}

static int apply_file(const char *root, const char *path, char **where, char **value) {
        _cleanup_free_ char *full = path_join_root(root, path);
        _cleanup_free_ char *v = NULL;
        unsigned line = 0;
        if (!full)
                return -ENOMEM;
        int r = file_setting(full, &line, &v);
        if (r <= 0)
                return r;       /* no assignment in it: what came before stands */
        free(*where);
        free(*value);
        *where = *value = NULL;
        if (r == 2)
                return 0;       /* an empty assignment resets it to systemd's default */
        *where = strdup_printf("%s:%u", path, line);
        *value = TAKE_PTR(v);
        return *where ? 0 : -ENOMEM;
}

int no_swap_operator_setting(const char *root, const char *unit, bool control_ours, char **ret_where,
                             char **ret_value) {
        _cleanup_free_ char *where = NULL, *value = NULL;
        DropinFile *files = NULL;
        size_t n = 0;
        int r = 0;

        /* The unit file: the first found, a mask ends the search (it has no settings). */
        for (size_t i = 0; i < ELEMENTSOF(unit_search_path) && r >= 0; i++) {
                _cleanup_free_ char *p = strdup_printf("%s/%s", unit_search_path[i], unit);
                _cleanup_free_ char *full = p ? path_join_root(root, p) : NULL;
                struct stat st;
                if (!full) {
                        r = -ENOMEM;
                        break;
                }
                if (lstat(full, &st) < 0)
                        continue;
                r = apply_file(root, p, &where, &value);
                break;
        }

        for (size_t i = 0; i < ELEMENTSOF(unit_search_path) && r >= 0; i++) {
                _cleanup_free_ char *d = strdup_printf("%s/%s.d", unit_search_path[i], unit);
                _cleanup_free_ char *full = d ? path_join_root(root, d) : NULL;
                if (!full) {
                        r = -ENOMEM;
                        break;
                }
                DIR *dir = opendir(full);
                if (!dir)
                        continue;
                struct dirent *de;
                while ((de = readdir(dir)) && r >= 0) {
                        if (de->d_name[0] == '.' || !endswith(de->d_name, ".conf"))
                                continue;
                        if (streq(unit_search_path[i], NO_SWAP_GENERATOR_DIR) &&
                            streq(de->d_name, NO_SWAP_GENERATOR_DROPIN))
                                continue;
                        if (control_ours && streq(unit_search_path[i], NO_SWAP_CONTROL_DIR) &&
                            streq(de->d_name, NO_SWAP_CONTROL_DROPIN))
                                continue;
                        DropinFile *m = realloc(files, (n + 1) * sizeof(DropinFile));
                        if (!m) {
                                r = -ENOMEM;
                                break;
                        }
                        files = m;
                        files[n] = (DropinFile) { .name = strdup(de->d_name),
                                                  .path = strdup_printf("%s/%s", d, de->d_name), .dir = i };
                        n++;
                        if (!files[n - 1].name || !files[n - 1].path)
                                r = -ENOMEM;
                }
                closedir(dir);
        }

        if (r >= 0 && n > 0) {
                qsort(files, n, sizeof(DropinFile), cmp_dropin);
                for (size_t i = 0; i < n && r >= 0; i++) {
                        /* The same name further down the search path is masked by this one. */
                        if (i > 0 && streq(files[i].name, files[i - 1].name))
                                continue;
                        r = apply_file(root, files[i].path, &where, &value);
                }
        }
        for (size_t i = 0; i < n; i++) {
                free(files[i].name);
                free(files[i].path);
        }
        free(files);
        if (r < 0)
                return r;
        *ret_where = TAKE_PTR(where);
        *ret_value = TAKE_PTR(value);
        return 0;
}

/* Where systemd puts a unit's cgroup when nothing says otherwise: a slice below its parents
 * ("a-b.slice" in "a.slice/a-b.slice", src/basic/unit-name.c slice_build_subslice() and
 * cg_slice_to_path()), a service or scope in system.slice (the default Slice= of system units,
 * systemd.resource-control(5)). probe_systemd() replaces it by the unit's ControlGroup. */
static char *default_cgroup(const char *unit) {
        if (!endswith(unit, ".slice"))
                return strdup_printf("system.slice/%s", unit);
        size_t len = strlen(unit) - strlen(".slice");
        char *out = strdup("");
        for (size_t i = 0; out && i <= len; i++) {
                if (i < len && unit[i] != '-')
                        continue;
                char *n = strdup_printf("%s%s%.*s.slice", out, *out ? "/" : "", (int) i, unit);
                free(out);
                out = n;
        }
        return out;
}

void no_swap_read_cgroup(const char *root, NoSwapUnit *u) {
        _cleanup_free_ char *rel = u->cgroup ? strdup_printf("/sys/fs/cgroup/%s/memory.swap.max", u->cgroup) : NULL;
        _cleanup_free_ char *p = rel ? path_join_root(root, rel) : NULL;
        _cleanup_free_ char *v = NULL;
        u->cgroup_read = -1;
        if (!p)
                return;
        int r = read_one_line(p, &v);
        if (r == -ENOENT) {
                u->cgroup_read = 0;
                return;
        }
        if (r < 0)
                return;
        uint64_t x;
        if (streq(strstrip(v), "max"))
                u->cgroup_swap_max = NO_SWAP_MAX;
        else if (safe_atou64(v, &x) >= 0)
                u->cgroup_swap_max = x;
        else
                return;
        u->cgroup_read = 1;
}

static int control_dropin(const char *root, NoSwapUnit *u) {
        _cleanup_free_ char *rel = strdup_printf(NO_SWAP_CONTROL_DIR "/%s.d/" NO_SWAP_CONTROL_DROPIN, u->name);
        _cleanup_free_ char *p = rel ? path_join_root(root, rel) : NULL;
        _cleanup_free_ char *v = NULL;
        unsigned line;
        if (!p)
                return -ENOMEM;
        struct stat st;
        u->control_dropin = lstat(p, &st) == 0;
        int r = file_setting(p, &line, &v);
        if (r == -ENOMEM)
                return r;
        u->control_zero = r == 1 && streq(v, "0");
        return 0;
}

static bool generator_dropin(const char *root, const char *unit) {
        _cleanup_free_ char *rel = strdup_printf(NO_SWAP_GENERATOR_DIR "/%s.d/" NO_SWAP_GENERATOR_DROPIN, unit);
        _cleanup_free_ char *p = rel ? path_join_root(root, rel) : NULL;
        struct stat st;
        return p && lstat(p, &st) == 0;
}

static int probe_one(const char *root, NoSwapUnit *u) {
        int r = control_dropin(root, u);
        if (r < 0)
                return r;
        u->generator_dropin = generator_dropin(root, u->name);
        r = no_swap_operator_setting(root, u->name, u->recorded, &u->operator_where, &u->operator_value);
        if (r == -ENOMEM)
                return r;
        u->cgroup = default_cgroup(u->name);
        if (!u->cgroup)
                return -ENOMEM;
        no_swap_read_cgroup(root, u);
        return 0;
}

int no_swap_probe(const char *root, const Policy *p, const char *kubelet_unit, const NodeswapState *s,
                  NoSwapUnit **ret, size_t *ret_n) {
        _cleanup_strv_free_ char **listed = NULL;
        NoSwapUnit *units = NULL;
        size_t n = 0;
        int r = 0;

        if (policy_wants_no_swap_units(p)) {
                r = no_swap_units_resolve(p->no_swap_units, kubelet_unit, &listed);
                if (r < 0)
                        return r;
        }
        size_t max = strv_length(listed) + strv_length(s->no_swap_units) + 1;
        units = calloc(max, sizeof(NoSwapUnit));
        if (!units)
                return -ENOMEM;
        for (char **i = listed; i && *i && r >= 0; i++) {
                units[n] = (NoSwapUnit) { .name = strdup(*i), .listed = true, .loaded = -1,
                                          .recorded = strv_contains(s->no_swap_units, *i) };
                if (!units[n++].name)
                        r = -ENOMEM;
        }
        for (char **i = s->no_swap_units; i && *i && r >= 0; i++) {
                if (strv_contains(listed, *i))
                        continue;
                units[n] = (NoSwapUnit) { .name = strdup(*i), .recorded = true, .loaded = -1 };
                if (!units[n++].name)
                        r = -ENOMEM;
        }
        bool kubelet = false;
        for (size_t i = 0; i < n; i++)
                if (streq_ptr(units[i].name, kubelet_unit))
                        kubelet = units[i].kubelet = true;
        if (r >= 0 && kubelet_unit && !kubelet) {
                units[n] = (NoSwapUnit) { .name = strdup(kubelet_unit), .kubelet = true, .loaded = -1 };
                if (!units[n++].name)
                        r = -ENOMEM;
        }
        for (size_t i = 0; i < n && r >= 0; i++)
                r = probe_one(root, &units[i]);
        if (r < 0) {
                no_swap_units_free(units, n);
                return r;
        }
        *ret = units;
        *ret_n = n;
        return 0;
}

void no_swap_units_free(NoSwapUnit *u, size_t n) {
        for (size_t i = 0; i < n; i++) {
                free(u[i].name);
                free(u[i].operator_where);
                free(u[i].operator_value);
                free(u[i].cgroup);
        }
        free(u);
}
