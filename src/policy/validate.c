/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Checks across keys, after every file is merged: each contradiction is reported at the later of
 * the two lines, the one an operator most likely just wrote. */

#include "policy/validate.h"

#include <limits.h>

static size_t origin_rank(const ParseState *st, const Origin *o) {
        if (!o->file)
                return 0;
        for (size_t i = 0; st->p->files[i]; i++)
                if (st->p->files[i] == o->file)
                        return st->file_ranks[i];
        return 0;
}

static bool origin_after(const ParseState *st, const Origin *a, const Origin *b) {
        size_t ra = origin_rank(st, a), rb = origin_rank(st, b);
        return ra != rb ? ra > rb : a->line > b->line;
}

static void describe_origin(const Origin *o, char *buf, size_t len) {
        if (o->file)
                snprintf(buf, len, "%s:%u", o->file, o->line);
        else
                snprintf(buf, len, "the default");
}

void policy_check_merged(ParseState *st) {
        Policy *p = st->p;
        char where[PATH_MAX + 32], b1[FORMAT_BYTES_MAX], b2[FORMAT_BYTES_MAX];

        if (p->backend_set && p->backends == (BACKEND_ZRAM | BACKEND_FILE) && p->zram.priority == p->file.priority) {
                bool zram_later = origin_after(st, &p->zram.priority_origin, &p->file.priority_origin);
                const Origin *later = zram_later ? &p->zram.priority_origin : &p->file.priority_origin;
                const Origin *other = zram_later ? &p->file.priority_origin : &p->zram.priority_origin;
                char value[16];

                snprintf(value, sizeof(value), "%d", p->zram.priority);
                describe_origin(other, where, sizeof(where));
                st->rank = origin_rank(st, later);
                st->path = later->file;
                (void) err_at(st, later->line, zram_later ? "Zram" : "File", "Priority", value,
                              "equal to [%s] Priority=%d (%s): with Backend=zram file the two swap areas need "
                              "different priorities, equal ones make the kernel round-robin pages between "
                              "zram and the swap file; give zram the higher one",
                              zram_later ? "File" : "Zram", p->zram.priority, where);
        }

        if (p->zram.mem_limit > p->zram.size) {
                describe_origin(&p->zram.size_origin, where, sizeof(where));
                st->rank = origin_rank(st, &st->mem_limit_origin);
                st->path = st->mem_limit_origin.file;
                (void) err_at(st, st->mem_limit_origin.line, "Zram", "MemLimit", st->mem_limit_expr,
                              "MemLimit= (%s) is larger than [Zram] Size=%s (%s, %s)",
                              format_bytes(b1, sizeof(b1), p->zram.mem_limit), p->zram.size_expr,
                              format_bytes(b2, sizeof(b2), p->zram.size), where);
        }
}
