/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <inttypes.h>

#include "probe/probe.h"

static int meminfo_field(const char *text, const char *field, uint64_t *ret) {
        size_t fl = strlen(field);
        for (const char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
                if (strncmp(l, field, fl) != 0 || l[fl] != ':')
                        continue;
                uint64_t v;
                if (sscanf(l + fl + 1, "%" SCNu64, &v) != 1)
                        return -EINVAL;
                *ret = v * 1024;        /* meminfo counts in kB (KiB) */
                return 0;
        }
        return -ENOENT;
}

static uint64_t page_size_below(const char *root) {
        if (!root_is_host(root)) {
                _cleanup_free_ char *path = path_join_root(root, "/proc/self/smaps");
                _cleanup_free_ char *text = NULL;
                if (path && read_full_file(path, READ_TEXT_MAX, &text) >= 0) {
                        const char *k = strstr(text, "KernelPageSize:");
                        uint64_t kb;
                        if (k && sscanf(k + strlen("KernelPageSize:"), "%" SCNu64, &kb) == 1 && kb > 0)
                                return kb * 1024;
                }
        }
        long ps = sysconf(_SC_PAGESIZE);
        return ps > 0 ? (uint64_t) ps : PAGE_SIZE_MIN;
}

int probe_context(const char *root, PolicyContext *ret) {
        _cleanup_free_ char *path = path_join_root(root, "/proc/meminfo");
        _cleanup_free_ char *text = NULL;
        uint64_t ram;
        if (!path)
                return -ENOMEM;
        int r = read_full_file(path, READ_TEXT_MAX, &text);
        if (r < 0)
                return r;
        r = meminfo_field(text, "MemTotal", &ram);
        if (r < 0)
                return r;
        *ret = (PolicyContext) { .ram = ram, .page_size = page_size_below(root) };
        return 0;
}
