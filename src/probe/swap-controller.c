/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "probe/swap-controller.h"

#include <sys/stat.h>
#include <unistd.h>

#include "shared/util.h"

int swap_controller_probe(const char *root, const char *unit) {
        if (!unit)
                return -1;
        _cleanup_free_ char *dir = strdup_printf("/sys/fs/cgroup/system.slice/%s", unit);
        _cleanup_free_ char *full = dir ? path_join_root(root, dir) : NULL;
        _cleanup_free_ char *file = full ? strdup_printf("%s/memory.swap.max", full) : NULL;
        struct stat st;
        if (!file || stat(full, &st) < 0 || !S_ISDIR(st.st_mode))
                return -1;
        return access(file, F_OK) == 0;
}
