/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "probe/zram-writeback.h"

#include <limits.h>
#include <stdio.h>

void zram_writeback_done(ZramWriteback *w) {
        if (!w)
                return;
        free(w->backing_dev);
        free(w->backing_file);
        *w = (ZramWriteback) {};
}

int zram_writeback_probe(const char *dir, ZramWriteback *ret) {
        ZramWriteback w = {};
        char attr[PATH_MAX];
        _cleanup_free_ char *line = NULL;
        uint64_t u;

        snprintf(attr, sizeof attr, "%s/backing_dev", dir);
        w.has_backing_dev = access(attr, F_OK) == 0;
        if (w.has_backing_dev && read_one_line(attr, &line) >= 0 && *line && !streq(line, "none"))
                w.backing_dev = TAKE_PTR(line);

        snprintf(attr, sizeof attr, "%s/writeback_limit", dir);
        if (read_u64_file(attr, &u) >= 0) {
                w.has_writeback_limit = true;
                w.writeback_limit = u * 4096;
        }
        snprintf(attr, sizeof attr, "%s/writeback_limit_enable", dir);
        if (read_u64_file(attr, &u) >= 0)
                w.writeback_limit_enabled = u != 0;

        snprintf(attr, sizeof attr, "%s/recomp_algorithm", dir);
        w.has_recomp_algorithm = access(attr, F_OK) == 0;

        *ret = w;
        return 0;
}
