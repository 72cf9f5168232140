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

/* Two swap areas of the policy's backends with one priority: the kernel round-robins pages
 * between them. a comes first in policy_backends (and is meant to be the faster). */
static void check_priorities(ParseState *st, const BackendDef *a, const BackendDef *b) {
        Policy *p = st->p;
        const Origin *oa = &p->origin[a->priority], *ob = &p->origin[b->priority];
        const char *sa = policy_key_section(a->priority), *sb = policy_key_section(b->priority);
        int prio = policy_priority(p, a->priority);
        char where[PATH_MAX + 32], value[16];

        if (prio != policy_priority(p, b->priority))
                return;
        bool a_later = origin_after(st, oa, ob);
        const Origin *later = a_later ? oa : ob;
        snprintf(value, sizeof(value), "%d", prio);
        describe_origin(a_later ? ob : oa, where, sizeof(where));
        st->rank = origin_rank(st, later);
        st->path = later->file;
        (void) err_at(st, later->line, a_later ? sa : sb, "Priority", value,
                      "equal to [%s] Priority=%d (%s): with Backend=%s %s the two swap areas need "
                      "different priorities, equal ones make the kernel round-robin pages between "
                      "%s and %s; give %s the higher one",
                      a_later ? sb : sa, prio, where, a->name, b->name, a->area, b->area, a->area);
}

void policy_check_merged(ParseState *st) {
        Policy *p = st->p;
        char where[PATH_MAX + 32], b1[FORMAT_BYTES_MAX], b2[FORMAT_BYTES_MAX];

        for (size_t i = 0; p->backend_set && i < policy_n_backends; i++)
                for (size_t j = i + 1; j < policy_n_backends; j++) {
                        const BackendDef *a = &policy_backends[i], *b = &policy_backends[j];
                        if (a->area && b->area && (p->backends & a->bit) && (p->backends & b->bit))
                                check_priorities(st, a, b);
                }

        uint64_t min = POLICY_ENCRYPTED_FILE_MIN_PAGES * st->ctx->page_size;
        if ((p->backends & BACKEND_FILE) && p->file.encrypt && p->file.size < min) {
                const Origin *os = &p->origin[POLICY_KEY_FILE_SIZE], *oe = &p->origin[POLICY_KEY_FILE_ENCRYPT];
                bool size_later = !oe->file || (os->file && origin_after(st, os, oe));
                const Origin *o = size_later ? os : oe;
                st->rank = origin_rank(st, o);
                st->path = o->file;
                (void) err_at(st, o->line, "File", size_later ? "Size" : "Encrypt",
                              size_later ? p->file.size_expr : "yes",
                              "an encrypted swap file needs its marker page and ten pages of swap: at least %s "
                              "([File] Size=%s, Encrypt=yes); make it bigger or set Encrypt=no",
                              format_bytes(b1, sizeof(b1), min), p->file.size_expr);
        }

        if (p->zram.mem_limit > p->zram.size) {
                const Origin *o = &p->origin[POLICY_KEY_ZRAM_MEM_LIMIT];
                describe_origin(&p->origin[POLICY_KEY_ZRAM_SIZE], where, sizeof(where));
                st->rank = origin_rank(st, o);
                st->path = o->file;
                (void) err_at(st, o->line, "Zram", "MemLimit", p->zram.mem_limit_expr,
                              "MemLimit= (%s) is larger than [Zram] Size=%s (%s, %s)",
                              format_bytes(b1, sizeof(b1), p->zram.mem_limit), p->zram.size_expr,
                              format_bytes(b2, sizeof(b2), p->zram.size), where);
        }
}
