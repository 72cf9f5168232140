/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "probe/writeback-record.h"

#include <inttypes.h>

void writeback_record_init(WritebackRecord *r) {
        *r = (WritebackRecord) { .zram_id = -1 };
}

void writeback_record_done(WritebackRecord *r) {
        if (!r)
                return;
        free(r->loop);
        free(r->file);
        writeback_record_init(r);
}

static int set_path(char **field, const char *v, const char *must_start) {
        if (!startswith(v, must_start) || strchr(v, ' '))
                return 0;
        char *c = strdup(v);
        if (!c)
                return -ENOMEM;
        free(*field);
        *field = c;
        return 0;
}

int writeback_record_load(const char *root, WritebackRecord *ret) {
        WritebackRecord r;
        writeback_record_init(&r);
        _cleanup_free_ char *p = path_join_root(root, WRITEBACK_RECORD_PATH);
        _cleanup_free_ char *buf = NULL;
        if (!p)
                return -ENOMEM;
        int k = read_full_file(p, 64 * 1024, &buf);
        if (k == -ENOMEM)
                return k;
        for (char *line = k >= 0 ? buf : NULL, *next; line && *line; line = next) {
                next = strchr(line, '\n');
                if (next)
                        *next++ = 0;
                char *eq = strchr(line, '=');
                if (!eq || line[0] == '#')
                        continue;
                *eq = 0;
                const char *key = line, *v = eq + 1;
                uint64_t u;
                int i, e = 0;
                if (streq(key, "zram_id")) {
                        if (safe_atoi(v, &i) >= 0 && i >= 0)
                                r.zram_id = i;
                } else if (streq(key, "loop"))
                        e = set_path(&r.loop, v, "/dev/loop");
                else if (streq(key, "file"))
                        e = set_path(&r.file, v, "/");
                else if (safe_atou64(v, &u) < 0)
                        continue;
                else if (streq(key, "window_usec"))
                        r.window_usec = u;
                else if (streq(key, "last_usec"))
                        r.last_usec = u;
                else if (streq(key, "marked_usec"))
                        r.marked_usec = u;
                else if (streq(key, "window_start_writes"))
                        r.window_start_writes = u;
                if (e < 0) {
                        writeback_record_done(&r);
                        return e;
                }
        }
        *ret = r;
        return 0;
}

char *writeback_record_format(const WritebackRecord *r) {
        return strdup_printf("# nodeswap's zram writeback record for this boot. Do not edit.\n"
                             "zram_id=%d\n%s%s%s%s%s%s"
                             "window_usec=%" PRIu64 "\nwindow_start_writes=%" PRIu64 "\n"
                             "last_usec=%" PRIu64 "\nmarked_usec=%" PRIu64 "\n",
                             r->zram_id, r->loop ? "loop=" : "", strempty(r->loop), r->loop ? "\n" : "",
                             r->file ? "file=" : "", strempty(r->file), r->file ? "\n" : "", r->window_usec,
                             r->window_start_writes, r->last_usec, r->marked_usec);
}
