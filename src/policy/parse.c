/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Parsing one policy file: the errors it records at FILE:LINE, and a line reader in front of inih.
 *
 * The INI syntax is read with inih's ini_parse_stream() through our own line reader. inih as
 * Debian builds it gives the handler no line number, caps lines at 200 bytes (a longer line would
 * be split in two), strips "; comments" at the end of a value and treats an indented line as the
 * continuation of the previous value. The reader below takes all of that out of inih's hands: it
 * counts lines, strips leading white space (so indentation never continues a value), refuses an
 * over-long line or a NUL byte at its own line number, checks the shape of every line, and hands
 * inih exactly one clean line per physical line, so inih's own line count stays equal to ours.
 *
 * Comments are whole lines starting with '#' or ';'. No value accepts ';' or '#', so a line such
 * as "Size=8G ; note" is an error instead of silently becoming "8G". Keys and section names are
 * case-sensitive, as in systemd.
 */

#include "policy/parse.h"
#include "policy/schema.h"
#include "policy/suggest.h"

#include <ctype.h>
#include <ini.h>

/* A physical line may hold at most this many bytes, not counting its line break: inih's buffer of
 * INI_MAX_LINE bytes (200 in Debian's build) takes the line, the '\n' the reader hands on with it,
 * and the terminating NUL. */
#define POLICY_LINE_MAX (INI_MAX_LINE - 2)

_printf_(7, 0)
static int err_addv(ParseState *st, const char *file, unsigned line, const char *section,
                    const char *key, const char *value, const char *fmt, va_list ap) {
        Err *n = realloc(st->errors, sizeof(Err) * (st->n_errors + 1));
        if (!n)
                goto oom;
        st->errors = n;

        Err *e = &st->errors[st->n_errors];
        *e = (Err) {
                .e.line = line,
                .rank = st->rank,
                .seq = st->n_errors,
        };
        if (vasprintf(&e->e.message, fmt, ap) < 0) {
                e->e.message = NULL;
                goto oom;
        }
        e->e.file = file ? strdup(file) : NULL;
        e->e.section = section ? strdup(section) : NULL;
        e->e.key = key ? strdup(key) : NULL;
        e->e.value = value ? strdup(value) : NULL;
        if ((file && !e->e.file) || (section && !e->e.section) || (key && !e->e.key) ||
            (value && !e->e.value)) {
                policy_error_done(&e->e);
                goto oom;
        }
        st->n_errors++;
        return 0;
oom:
        st->oom = true;
        return -ENOMEM;
}

int err_at(ParseState *st, unsigned line, const char *section, const char *key, const char *value,
                  const char *fmt, ...) {
        va_list ap;
        va_start(ap, fmt);
        int r = err_addv(st, st->path, line, section, key, value, fmt, ap);
        va_end(ap);
        return r;
}

int err_file(ParseState *st, const char *file, const char *fmt, ...) {
        va_list ap;
        va_start(ap, fmt);
        int r = err_addv(st, file, 0, NULL, NULL, NULL, fmt, ap);
        va_end(ap);
        return r;
}

/* ---------------------------------------------------------------------------------------------- */

int record_read_error(ParseState *st, const char *path, const char *what, int err) {
        if (st->read_error == 0)
                st->read_error = err;
        int r = err_file(st, path, "cannot %s: %s", what, strerror(-err));
        if (r >= 0)
                st->errors[st->n_errors - 1].e.read_errno = -err;
        return r;
}

Origin origin_here(ParseState *st) {
        return (Origin) { .file = st->path, .line = st->line };
}

/* inih's callback. The reader has already checked the shape of the line and the section. */
static int ini_handler_cb(void *user, const char *section, const char *name, const char *value) {
        ParseState *st = user;
        const SectionDef *sec;
        char *msg = NULL;
        int r;

        if (st->oom || st->section_state != SECTION_KNOWN)
                return 1;
        sec = schema_section_find(section);
        if (!sec) {
                /* Cannot happen: the reader only lets known sections through. */
                (void) err_at(st, st->line, NULL, name, value, "key in an unknown section");
                return 1;
        }
        const KeyDef *key = schema_key_find(sec, name);
        if (!key) {
                (void) report_unknown_key(st, sec, name, value);
                return 1;
        }
        r = schema_parse(st, key, value, &msg);
        if (r >= 0)
                st->p->origin[key->id] = origin_here(st);
        if (r == -ENOMEM)
                st->oom = true;
        else if (r < 0) {
                (void) err_at(st, st->line, sec->name, name, value, "%s", strempty(msg));
                free(msg);
        }
        return 1;
}

/* ---------------------------------------------------------------------------------------------- */
/* The line reader */

typedef struct Stream {
        ParseState *st;
        const char *buf;
        size_t len, pos;
} Stream;

static bool is_key_char(char c) {
        return isalnum((unsigned char) c) || c == '_';
}

/* Checks one line (leading and trailing white space already removed) and writes what inih should
 * see into out: the line itself in canonical form, or nothing when the line is a comment, blank,
 * or wrong (then the error is recorded here). out has room for len + 2 bytes. */
static void classify_line(ParseState *st, char *l, size_t len, char *out) {
        out[0] = 0;

        if (len == 0 || l[0] == '#' || l[0] == ';')
                return;

        if (l[0] == '[') {
                if (l[len - 1] != ']') {
                        (void) err_at(st, st->line, NULL, NULL, NULL,
                                      "malformed section header (expected [Name] alone on the line)");
                        st->section_state = SECTION_IGNORED;
                        return;
                }
                l[len - 1] = 0;
                const char *name = l + 1;
                if (!*name || strspn(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-") !=
                                      strlen(name)) {
                        (void) err_at(st, st->line, NULL, NULL, NULL, "malformed section header [%s]", name);
                        st->section_state = SECTION_IGNORED;
                        return;
                }
                const SectionDef *sec = schema_section_find(name);
                if (!sec) {
                        (void) report_unknown_section(st, name);
                        st->section_state = SECTION_IGNORED;
                        return;
                }
                st->section_state = SECTION_KNOWN;
                st->section = sec->name;
                sprintf(out, "[%s]\n", sec->name);
                return;
        }

        char *eq = strchr(l, '=');
        if (!eq) {
                (void) err_at(st, st->line, st->section_state == SECTION_KNOWN ? st->section : NULL, NULL, NULL,
                              "expected Key=value, a [Section] header or a comment");
                return;
        }
        char *ke = eq;
        while (ke > l && isblank((unsigned char) ke[-1]))
                ke--;
        *ke = 0;
        char *value = eq + 1;
        while (isblank((unsigned char) *value))
                value++;

        const char *sect = st->section_state == SECTION_KNOWN ? st->section : NULL;
        bool key_ok = *l != 0;
        for (const char *c = l; *c; c++)
                if (!is_key_char(*c))
                        key_ok = false;
        if (!key_ok) {
                (void) err_at(st, st->line, sect, NULL, NULL, "invalid key name '%s'", l);
                return;
        }
        if (st->section_state == SECTION_NONE) {
                (void) err_at(st, st->line, NULL, l, value, "key outside of any section");
                return;
        }
        if (st->section_state == SECTION_IGNORED)
                return;         /* reported at the section header */
        if (strpbrk(value, ";#")) {
                (void) err_at(st, st->line, sect, l, value,
                              "';' and '#' are not allowed in values; comments go on a line of their own");
                return;
        }
        sprintf(out, "%s=%s\n", l, value);
}

/* Whether s[0..len) is well-formed UTF-8: no overlong forms, no surrogates, nothing above
 * U+10FFFF. */
static bool utf8_valid(const char *s, size_t len) {
        const unsigned char *p = (const unsigned char *) s, *end = p + len;
        while (p < end) {
                unsigned char c = *p;
                size_t n;
                uint32_t cp, min;
                if (c < 0x80) {
                        p++;
                        continue;
                } else if ((c & 0xe0) == 0xc0) {
                        n = 1, cp = c & 0x1f, min = 0x80;
                } else if ((c & 0xf0) == 0xe0) {
                        n = 2, cp = c & 0x0f, min = 0x800;
                } else if ((c & 0xf8) == 0xf0) {
                        n = 3, cp = c & 0x07, min = 0x10000;
                } else
                        return false;
                if ((size_t) (end - p) <= n)
                        return false;
                for (size_t i = 1; i <= n; i++) {
                        if ((p[i] & 0xc0) != 0x80)
                                return false;
                        cp = (cp << 6) | (p[i] & 0x3f);
                }
                if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
                        return false;
                p += n + 1;
        }
        return true;
}

static char *ini_reader_cb(char *str, int num, void *stream) {
        Stream *s = stream;
        ParseState *st = s->st;

        if (s->pos >= s->len || st->oom || num < 3)
                return NULL;

        const char *start = s->buf + s->pos;
        const char *nl = memchr(start, '\n', s->len - s->pos);
        size_t len = nl ? (size_t) (nl - start) : s->len - s->pos;
        s->pos += len + (nl ? 1 : 0);
        st->line++;

        /* From here on, one physical line is exactly one line handed to inih. */
        str[0] = '\n';
        str[1] = 0;

        if (st->line == 1 && len >= 3 && memcmp(start, "\xef\xbb\xbf", 3) == 0) {
                start += 3;
                len -= 3;
        }
        if (len > 0 && start[len - 1] == '\r')
                len--;
        if (memchr(start, 0, len)) {
                (void) err_at(st, st->line, NULL, NULL, NULL, "the line contains a NUL byte");
                return str;
        }
        size_t max = (size_t) num - 2 < POLICY_LINE_MAX ? (size_t) num - 2 : POLICY_LINE_MAX;
        if (len > max) {
                (void) err_at(st, st->line, NULL, NULL, NULL, "the line is %zu bytes long, longer than the %zu allowed",
                              len, max);
                return str;
        }

        char l[POLICY_LINE_MAX + 1];
        while (len > 0 && isspace((unsigned char) start[0])) {
                start++;
                len--;
        }
        while (len > 0 && isspace((unsigned char) start[len - 1]))
                len--;
        memcpy(l, start, len);
        l[len] = 0;

        /* Values end up in unit files, JSON and messages: text only. Comments may hold anything. */
        if (l[0] != '#' && l[0] != ';' && !utf8_valid(l, len)) {
                (void) err_at(st, st->line, NULL, NULL, NULL, "the line is not valid UTF-8");
                return str;
        }

        char out[POLICY_LINE_MAX + 3];
        classify_line(st, l, len, out);
        if (out[0])
                strcpy(str, out);
        return str;
}

void parse_buffer(ParseState *st, const char *buf, size_t len) {
        Stream s = { .st = st, .buf = buf, .len = len };

        st->line = 0;
        st->section_state = SECTION_NONE;
        st->section = NULL;

        int r = ini_parse_stream(ini_reader_cb, &s, ini_handler_cb, st);
        if (r > 0 && !st->oom)
                /* The reader hands inih only well-formed lines; this is a safety net. */
                (void) err_at(st, (unsigned) r, NULL, NULL, NULL, "syntax error");
        else if (r < 0)
                st->oom = true;
}

static int err_cmp(const void *a, const void *b) {
        const Err *x = a, *y = b;
        if (x->rank != y->rank)
                return x->rank < y->rank ? -1 : 1;
        if (x->e.line != y->e.line)
                return x->e.line < y->e.line ? -1 : 1;
        return x->seq < y->seq ? -1 : x->seq > y->seq;
}

void parse_state_sort_errors(ParseState *st) {
        if (st->n_errors > 0)
                qsort(st->errors, st->n_errors, sizeof(Err), err_cmp);
}

void parse_state_done(ParseState *st) {
        for (size_t i = 0; i < st->n_errors; i++)
                policy_error_done(&st->errors[i].e);
        free(st->errors);
        free(st->file_ranks);
}
