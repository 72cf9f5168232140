/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "probe/pressure.h"
#include "probe/pods.h"
#include "probe/probe.h"

#include <inttypes.h>
#include <stdio.h>

/* One line as psi_show() writes it: "%s avg10=%lu.%02lu avg60=%lu.%02lu avg300=%lu.%02lu
 * total=%llu". Strict: the prefix, the four fields in that order, nothing after them. */
static int parse_line(const char *line, const char *kind, PressureLine *ret) {
        PressureLine l = { .present = true };
        int end = -1;
        int n = streq(kind, "full")
                ? sscanf(line, "full avg10=%lf avg60=%lf avg300=%lf total=%" SCNu64 "%n", &l.avg10, &l.avg60,
                         &l.avg300, &l.total_us, &end)
                : sscanf(line, "some avg10=%lf avg60=%lf avg300=%lf total=%" SCNu64 "%n", &l.avg10, &l.avg60,
                         &l.avg300, &l.total_us, &end);
        if (n != 4 || end < 0 ||
            (line[end] != 0 && line[end] != '\n'))
                return -EINVAL;
        /* a share of the time: 0..100 (NaN fails both comparisons) */
        if (!(l.avg10 >= 0 && l.avg10 <= 100) || !(l.avg60 >= 0 && l.avg60 <= 100) ||
            !(l.avg300 >= 0 && l.avg300 <= 100))
                return -EINVAL;
        *ret = l;
        return 0;
}

int pressure_parse(const char *text, Pressure *ret) {
        Pressure p = { .present = true };
        const char *s = text;
        while (s && *s) {
                const char *nl = strchr(s, '\n');
                size_t len = nl ? (size_t) (nl - s) : strlen(s);
                _cleanup_free_ char *line = strndup(s, len);
                if (!line)
                        return -ENOMEM;
                int r = 0;
                if (startswith(line, "some "))
                        r = p.some.present ? -EINVAL : parse_line(line, "some", &p.some);
                else if (startswith(line, "full "))
                        r = p.full.present ? -EINVAL : parse_line(line, "full", &p.full);
                else if (line[0])
                        r = -EINVAL;
                if (r < 0)
                        return r;
                s = nl ? nl + 1 : NULL;
        }
        if (!p.some.present)
                return -EINVAL;
        *ret = p;
        return 0;
}

int pressure_read(const char *path, Pressure *ret) {
        _cleanup_free_ char *text = NULL;
        int r = read_full_file(path, READ_SMALL_MAX, &text);
        if (r == -ENOENT || r == -EOPNOTSUPP || r == -ENOTDIR) {
                *ret = (Pressure) {};
                return 0;
        }
        if (r < 0)
                return r;
        r = pressure_parse(text, ret);
        if (r == -EINVAL) {
                *ret = (Pressure) { .malformed = true };
                return 0;
        }
        return r;
}

int swap_traffic_read(const char *path, SwapTraffic *ret) {
        _cleanup_free_ char *text = NULL;
        SwapTraffic t = {};
        int r = read_full_file(path, READ_TEXT_MAX, &text);
        if (r == -ENOENT || r == -ENOTDIR) {
                *ret = t;
                return 0;
        }
        if (r < 0)
                return r;
        static const struct {
                const char *key;
                size_t offset;
        } keys[] = {
                { "pswpin", offsetof(SwapTraffic, pswpin) },
                { "pswpout", offsetof(SwapTraffic, pswpout) },
                { "zswpin", offsetof(SwapTraffic, zswpin) },
                { "zswpout", offsetof(SwapTraffic, zswpout) },
        };
        unsigned found = 0;
        for (char *save = NULL, *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
                char *sp = strchr(line, ' ');
                if (!sp)
                        continue;
                *sp = 0;
                for (size_t i = 0; i < ELEMENTSOF(keys); i++) {
                        if (!streq(line, keys[i].key))
                                continue;
                        uint64_t v;
                        if (safe_atou64(sp + 1, &v) < 0)
                                return -EINVAL;
                        *(uint64_t *) ((char *) &t + keys[i].offset) = v;
                        found |= 1u << i;
                }
        }
        t.has_pswp = (found & 3u) == 3u;
        t.has_zswp = (found & 12u) == 12u;
        *ret = t;
        return 0;
}

int cgroup_pressure_read(const char *dir, CgroupPressure *ret) {
        CgroupPressure c = {};
        _cleanup_free_ char *mp = strdup_printf("%s/memory.pressure", dir);
        _cleanup_free_ char *pp = strdup_printf("%s/../memory.pressure", dir);
        _cleanup_free_ char *ms = strdup_printf("%s/memory.stat", dir);
        if (!mp || !pp || !ms)
                return -ENOMEM;
        int r;
        if ((r = pressure_read(mp, &c.container)) < 0 || (r = pressure_read(pp, &c.pod)) < 0 ||
            (r = swap_traffic_read(ms, &c.traffic)) < 0)
                return r;
        *ret = c;
        return 0;
}

int node_pressure_read(const char *root, NodePressure *ret) {
        _cleanup_free_ char *psi = path_join_root(root, "/proc/pressure/memory");
        _cleanup_free_ char *vm = path_join_root(root, "/proc/vmstat");
        NodePressure n = { .probed = true };
        if (!psi || !vm)
                return -ENOMEM;
        int r;
        if ((r = pressure_read(psi, &n.memory)) < 0 || (r = swap_traffic_read(vm, &n.traffic)) < 0)
                return r;
        *ret = n;
        return 0;
}

int probe_pressure(const char *root, HostState *h) {
        int r = node_pressure_read(root, &h->pressure);
        if (r < 0)
                return r;
        pod_swaps_free(h->pressure_pods, h->n_pressure_pods);
        h->pressure_pods = NULL;
        h->n_pressure_pods = 0;
        /* The containers: unreadable is "unknown" (the verdict then names no pod), never fatal. */
        h->pressure_pods_error = pods_probe(root, &h->pressure_pods, &h->n_pressure_pods);
        if (h->pressure_pods_error == -ENOMEM)
                return -ENOMEM;
        if (h->pressure_pods_error < 0) {
                h->pressure_pods = NULL;
                h->n_pressure_pods = 0;
        }
        return 0;
}
