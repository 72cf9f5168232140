/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "probe/meminfo.h"

#include "probe/reclaim.h"
#include "shared/page-size.h"
#include "shared/util.h"

/* /proc/meminfo is about 1.5 KiB; a fixture's is smaller. */
#define MEMINFO_READ_MAX (64 * 1024)

/* "   123 kB" -> 123 KiB in bytes. Only kB values: every field nodeswap reads has that unit. */
static int meminfo_value(const char *s, uint64_t *ret) {
        s += strspn(s, " \t");
        size_t n = strspn(s, "0123456789");
        char num[32];
        uint64_t kib;
        if (n == 0 || n >= sizeof num)
                return -EINVAL;
        memcpy(num, s, n);
        num[n] = 0;
        const char *unit = s + n + strspn(s + n, " \t");
        if (!streq(unit, "kB") && *unit)
                return -EINVAL;
        if (safe_atou64(num, &kib) < 0 || kib > UINT64_MAX / KiB)
                return -ERANGE;
        *ret = kib * KiB;
        return 0;
}

int meminfo_parse(const char *text, MemInfo *ret) {
        if (!text || !ret)
                return -EINVAL;
        MemInfo m = {};
        while (*text) {
                size_t len = strcspn(text, "\n");
                char line[256];
                if (len < sizeof line) {
                        memcpy(line, text, len);
                        line[len] = 0;
                        char *colon = strchr(line, ':');
                        uint64_t v;
                        if (colon) {
                                *colon = 0;
                                if (meminfo_value(colon + 1, &v) >= 0) {
                                        if (streq(line, "MemTotal")) {
                                                m.mem_total = v;
                                                m.has_mem_total = true;
                                        } else if (streq(line, "MemAvailable"))
                                                m.mem_available = v;
                                        else if (streq(line, "SwapTotal"))
                                                m.swap_total = v;
                                        else if (streq(line, "SwapFree"))
                                                m.swap_free = v;
                                        else if (streq(line, "Zswap")) {
                                                m.zswap = v;
                                                m.has_zswap = true;
                                        } else if (streq(line, "Zswapped"))
                                                m.zswapped = v;
                                }
                        }
                }
                text += len;
                if (*text == '\n')
                        text++;
        }
        *ret = m;
        return 0;
}

int meminfo_read(const char *root, MemInfo *ret) {
        _cleanup_free_ char *path = path_join_root(root, "/proc/meminfo");
        _cleanup_free_ char *text = NULL;
        if (!path)
                return -ENOMEM;
        int r = read_full_file(path, MEMINFO_READ_MAX, &text);
        if (r < 0)
                return r;
        return meminfo_parse(text, ret);
}

uint64_t page_size_read(const char *root) {
        long sys = sysconf(_SC_PAGESIZE);
        uint64_t host = sys > 0 ? (uint64_t) sys : PAGE_SIZE_MIN;
        if (root_is_host(root))
                return host;

        _cleanup_free_ char *p = path_join_root(root, "/proc/self/smaps");
        _cleanup_fclose_ FILE *f = p ? fopen(p, "re") : NULL;
        if (!f)
                return host;
        char line[256];
        while (fgets(line, sizeof line, f)) {
                uint64_t bytes;
                if (!startswith(line, "KernelPageSize:"))
                        continue;
                line[strcspn(line, "\n")] = 0;
                if (meminfo_value(line + strlen("KernelPageSize:"), &bytes) >= 0 && bytes > 0)
                        return bytes;
        }
        return host;
}

int probe_context(const char *root, PolicyContext *ret) {
        MemInfo m;
        int r = meminfo_read(root, &m);
        if (r < 0)
                return r;
        if (!m.has_mem_total)
                return -ENOENT;
        *ret = (PolicyContext) { .ram = m.mem_total, .page_size = page_size_read(root),
                                 .watermark_scale_factor_max = reclaim_wsf_max(root) };
        return 0;
}
