/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "probe/pods.h"
#include "shared/string-table.h"

#include <dirent.h>
#include <inttypes.h>
#include <stdio.h>
#include <fcntl.h>
#include <strings.h>
#include <sys/stat.h>

static const char *const pod_qos_table[_POD_QOS_MAX] = {
        [POD_QOS_AUTO] = "auto",
        [POD_QOS_BURSTABLE] = "burstable",
        [POD_QOS_GUARANTEED] = "guaranteed",
        [POD_QOS_BEST_EFFORT] = "besteffort",
};

DEFINE_STRING_TABLE_TO_STRING(pod_qos, PodQos, pod_qos_table);

/* Not the table's exact lookup: kubectl and the API spell the classes "Burstable", "BestEffort",
 * and "auto" is no class one can ask for. */

int pod_qos_from_string(const char *s, PodQos *ret) {
        if (!s)
                return -EINVAL;
        for (size_t i = POD_QOS_BURSTABLE; i < ELEMENTSOF(pod_qos_table); i++)
                if (strcasecmp(s, pod_qos_table[i]) == 0) {
                        *ret = (PodQos) i;
                        return 0;
                }
        /* as kubectl prints it */
        if (strcasecmp(s, "best-effort") == 0) {
                *ret = POD_QOS_BEST_EFFORT;
                return 0;
        }
        return -EINVAL;
}

/* The cgroup v2 mount points, in the order tried, and the kubelet's top cgroup names. */
static const char *const v2_mounts[] = { "/sys/fs/cgroup", "/sys/fs/cgroup/unified" };
static const char *const kubepods_names[] = { "kubepods.slice", "kubepods" };

void pod_swaps_free(PodSwap *p, size_t n) {
        for (size_t i = 0; i < n; i++)
                free(p[i].name);
        free(p);
}

typedef struct PodList {
        PodSwap *p;
        size_t n;
} PodList;

static bool is_dir(const char *path) {
        struct stat st;
        return lstat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* A pod's cgroup: pod<uid> (cgroupfs) or kubepods[-qos]-pod<uid>.slice (systemd). */
static bool is_pod_cgroup(const char *name) {
        if (startswith(name, "pod"))
                return true;
        return startswith(name, "kubepods") && strstr(name, "-pod") && endswith(name, ".slice");
}

/* A QoS sub-slice: burstable, besteffort (cgroupfs) or kubepods-burstable.slice ... (systemd). */
static bool is_qos_cgroup(const char *name) {
        return streq(name, "burstable") || streq(name, "besteffort") ||
               streq(name, "kubepods-burstable.slice") || streq(name, "kubepods-besteffort.slice");
}

/* A cgroup value: "max", a number, or absent. */
static int read_cgroup_value(const char *dir, const char *file, uint64_t *ret) {
        _cleanup_free_ char *path = strdup_printf("%s/%s", dir, file);
        _cleanup_free_ char *line = NULL;
        if (!path)
                return -ENOMEM;
        int r = read_one_line(path, &line);
        if (r == -ENOENT) {
                *ret = CGROUP_VALUE_UNKNOWN;
                return 0;
        }
        if (r < 0)
                return r;
        if (streq(line, "max")) {
                *ret = CGROUP_VALUE_MAX;
                return 0;
        }
        return safe_atou64(line, ret);
}

/* memory.swap.events: "high N", "max N", "fail N", one a line (cgroup-v2.rst); a key the kernel
 * does not write stays 0. Absent: *ret_present false. */
static int read_swap_events(const char *dir, PodSwap *c) {
        _cleanup_free_ char *path = strdup_printf("%s/memory.swap.events", dir);
        _cleanup_free_ char *text = NULL;
        if (!path)
                return -ENOMEM;
        int r = read_full_file(path, READ_SMALL_MAX, &text);
        if (r == -ENOENT)
                return 0;
        if (r < 0)
                return r;
        c->swap_events = true;
        for (char *line = text, *next; line && *line; line = next) {
                next = strchr(line, '\n');
                if (next)
                        *next++ = 0;
                char key[16];
                uint64_t v;
                if (sscanf(line, "%15s %" SCNu64, key, &v) != 2)
                        continue;
                if (streq(key, "high"))
                        c->swap_high = v;
                else if (streq(key, "max"))
                        c->swap_max_hits = v;
                else if (streq(key, "fail"))
                        c->swap_fail = v;
        }
        return 0;
}

static PodQos qos_from_path(const char *rel) {
        if (strstr(rel, "burstable"))
                return POD_QOS_BURSTABLE;
        if (strstr(rel, "besteffort"))
                return POD_QOS_BEST_EFFORT;
        return POD_QOS_GUARANTEED;
}

static int add_container(PodList *l, const char *dir, const char *rel) {
        PodSwap c = { .qos = qos_from_path(rel) };
        int r;

        if ((r = read_cgroup_value(dir, "memory.max", &c.memory_max)) < 0 ||
            (r = read_cgroup_value(dir, "memory.current", &c.memory_current)) < 0 ||
            (r = read_cgroup_value(dir, "memory.swap.max", &c.swap_max)) < 0 ||
            (r = read_cgroup_value(dir, "memory.swap.current", &c.swap_current)) < 0 ||
            (r = read_cgroup_value(dir, "memory.zswap.current", &c.zswap_current)) < 0)
                return r;
        if ((r = cgroup_pressure_read(dir, &c.pressure)) < 0)  /* the stall: pressure.c */
                return r;
        /* issue 26: what its swap did, and its request where the cgroup keeps it */
        if ((r = read_cgroup_value(dir, "memory.swap.peak", &c.swap_peak)) < 0 ||
            (r = read_cgroup_value(dir, "memory.min", &c.memory_min)) < 0 ||
            (r = read_swap_events(dir, &c)) < 0)
                return r;

        c.name = strdup(rel);
        if (!c.name)
                return -ENOMEM;
        PodSwap *n = realloc(l->p, sizeof(PodSwap) * (l->n + 1));
        if (!n) {
                free(c.name);
                return -ENOMEM;
        }
        l->p = n;
        l->p[l->n++] = c;
        return 0;
}

/* Walk dir (host path dir, name rel relative to the mount). level 0: kubepods, 1: QoS slice or
 * pod, 2: pod (below a QoS slice) or container ... */
static int walk(PodList *l, const char *dir, const char *rel, bool in_pod, unsigned depth) {
        if (depth > 3)
                return 0;

        _cleanup_close_ int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
        if (fd < 0)
                return errno == ENOENT ? 0 : -errno;    /* gone meanwhile: a pod ended */
        DIR *d = fdopendir(fd);
        if (!d)
                return -errno;
        fd = -1;        /* owned by d now */

        int r = 0;
        struct dirent *de;
        while ((errno = 0, de = readdir(d))) {
                if (de->d_type != DT_DIR && de->d_type != DT_UNKNOWN)
                        continue;
                if (de->d_name[0] == '.')
                        continue;
                bool pod = !in_pod && is_pod_cgroup(de->d_name);
                if (!in_pod && !pod && !(depth == 0 && is_qos_cgroup(de->d_name)))
                        continue;

                _cleanup_free_ char *sub = strdup_printf("%s/%s", dir, de->d_name);
                _cleanup_free_ char *subrel = strdup_printf("%s/%s", rel, de->d_name);
                if (!sub || !subrel) {
                        r = -ENOMEM;
                        break;
                }
                if (!is_dir(sub))
                        continue;
                if (in_pod)
                        r = add_container(l, sub, subrel);
                else
                        r = walk(l, sub, subrel, pod, depth + 1);
                if (r < 0)
                        break;
        }
        if (r == 0 && errno != 0)
                r = -errno;
        closedir(d);
        return r;
}

static int cmp_pod(const void *a, const void *b) {
        return strcmp(((const PodSwap *) a)->name, ((const PodSwap *) b)->name);
}

int pods_probe(const char *root, PodSwap **ret, size_t *ret_n) {
        PodList l = {};
        int r = 0;

        for (size_t m = 0; m < ELEMENTSOF(v2_mounts); m++)
                for (size_t k = 0; k < ELEMENTSOF(kubepods_names); k++) {
                        _cleanup_free_ char *rel = strdup_printf("%s/%s", v2_mounts[m], kubepods_names[k]);
                        if (!rel) {
                                r = -ENOMEM;
                                goto fail;
                        }
                        _cleanup_free_ char *dir = path_join_root(root, rel);
                        if (!dir) {
                                r = -ENOMEM;
                                goto fail;
                        }
                        if (!is_dir(dir))
                                continue;
                        r = walk(&l, dir, kubepods_names[k], false, 0);
                        if (r < 0)
                                goto fail;
                }

        if (l.n > 1)
                qsort(l.p, l.n, sizeof(PodSwap), cmp_pod);
        *ret = l.p;
        *ret_n = l.n;
        return 0;
fail:
        pod_swaps_free(l.p, l.n);
        return r;
}
