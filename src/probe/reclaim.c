/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The kernel's reclaim headroom: the vm.watermark_scale_factor bound, /proc/zoneinfo's watermarks,
 * and transparent huge pages. */
#include "probe/reclaim.h"

#include "policy/policy.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

int reclaim_wsf_max(const char *root) {
        _cleanup_free_ char *p = path_join_root(root, "/proc/sys/kernel/osrelease"), *line = NULL;
        unsigned major, minor;
        if (!p || read_one_line(p, &line) < 0 || sscanf(line, "%u.%u", &major, &minor) != 2)
                return 0;
        /* Linux 5.18 raised the sysctl's extra2 from one_thousand to SYSCTL_THREE_THOUSAND. */
        return major > 5 || (major == 5 && minor >= 18) ? RECLAIM_WSF_MAX_NEW : RECLAIM_WSF_MAX_OLD;
}

/* A zone's block in /proc/zoneinfo (mm/vmstat.c, zoneinfo_show_print()): a "Node N, zone NAME"
 * line, then "pages free N" and the watermarks "min", "low", "high" each on a line of its own, and
 * "managed". Other lines (the per-node stats, "boost", "promo", "spanned", the per-CPU sets) are
 * skipped. */
int zoneinfo_read(const char *root, ZoneWatermarks **ret, size_t *n) {
        *ret = NULL;
        *n = 0;
        _cleanup_free_ char *p = path_join_root(root, "/proc/zoneinfo");
        if (!p)
                return -ENOMEM;
        _cleanup_(fclosep) FILE *f = fopen(p, "re");
        if (!f)
                return 0;
        ZoneWatermarks *zones = NULL, cur = {};
        size_t nz = 0;
        bool in_zone = false;
        char line[512];
        for (;;) {
                bool eof = !fgets(line, sizeof line, f);
                int node;
                char name[16];
                bool head = !eof && sscanf(line, "Node %d, zone %15s", &node, name) == 2;
                if ((eof || head) && in_zone && cur.managed > 0) {
                        ZoneWatermarks *z = realloc(zones, (nz + 1) * sizeof *z);
                        if (!z) {
                                free(zones);
                                return -ENOMEM;
                        }
                        zones = z;
                        zones[nz++] = cur;
                }
                if (eof)
                        break;
                if (head) {
                        cur = (ZoneWatermarks) { .node = node };
                        snprintf(cur.name, sizeof cur.name, "%s", name);
                        in_zone = true;
                        continue;
                }
                char key[32];
                uint64_t v;
                if (!in_zone)
                        continue;
                if (sscanf(line, " pages free %" SCNu64, &v) == 1)
                        cur.free = v;
                else if (sscanf(line, " %31s %" SCNu64, key, &v) == 2) {
                        if (streq(key, "min"))
                                cur.min = v;
                        else if (streq(key, "low"))
                                cur.low = v;
                        else if (streq(key, "high"))
                                cur.high = v;
                        else if (streq(key, "managed"))
                                cur.managed = v;
                }
        }
        *ret = zones;
        *n = nz;
        return 0;
}

int thp_enabled(const char *root) {
        _cleanup_free_ char *p = path_join_root(root, "/sys/kernel/mm/transparent_hugepage/enabled"), *line = NULL;
        if (!p || read_one_line(p, &line) < 0)
                return -1;
        if (strstr(line, "[never]"))
                return 0;
        return strstr(line, "[always]") || strstr(line, "[madvise]") ? 1 : -1;
}
