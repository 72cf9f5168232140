/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The sysctls nodeswap sets, written through /proc/sys. */
#include "execute/sysctl.h"

int sysctl_write(const char *root, const char *name, int value) {
        const char *path;
        if (streq_ptr(name, "vm.swappiness"))
                path = "/proc/sys/vm/swappiness";
        else if (streq_ptr(name, "vm.page-cluster"))
                path = "/proc/sys/vm/page-cluster";
        else if (streq_ptr(name, "vm.min_free_kbytes"))
                path = "/proc/sys/vm/min_free_kbytes";
        else if (streq_ptr(name, "vm.watermark_scale_factor"))
                path = "/proc/sys/vm/watermark_scale_factor";
        else
                return -EINVAL;
        _cleanup_free_ char *full = path_join_root(root, path);
        if (!full)
                return -ENOMEM;
        char v[16];
        snprintf(v, sizeof v, "%d", value);
        return write_string_file(full, v);
}
