/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "shared/unit-name.h"

#include "shared/util.h"

/* Below systemd's UNIT_NAME_MAX (256), the terminating NUL included. */
#define UNIT_NAME_MAX 256

static const char *const unit_suffixes[] = {
        ".service", ".socket", ".device", ".mount", ".automount", ".swap",
        ".target", ".path", ".timer", ".slice", ".scope",
};

bool unit_name_is_valid(const char *name, UnitNameFlags flags) {
        if (!name || flags == 0)
                return false;
        size_t len = strlen(name);
        const char *dot = strrchr(name, '.');
        bool suffix_ok = false;

        if (len == 0 || len >= UNIT_NAME_MAX || !dot || dot == name)
                return false;
        for (size_t i = 0; i < ELEMENTSOF(unit_suffixes); i++)
                if (streq(dot, unit_suffixes[i]))
                        suffix_ok = true;
        if (!suffix_ok)
                return false;
        if (strspn(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789:-_.\\@") < (size_t) (dot - name))
                return false;

        const char *at = memchr(name, '@', (size_t) (dot - name));
        if (!at)
                return flags & UNIT_NAME_PLAIN;
        if (at == name || memchr(at + 1, '@', (size_t) (dot - at - 1)))
                return false;
        return at + 1 == dot ? (flags & UNIT_NAME_TEMPLATE) : (flags & UNIT_NAME_INSTANCE);
}

static bool unit_name_char_ok(char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
               c == ':' || c == '_' || c == '.';
}

/* systemd-escape --path: the path is simplified (repeated and trailing slashes, "." components),
 * a ".." component is refused (EINVAL), "/" separates with "-", and everything but [A-Za-z0-9:_.]
 * (and a leading ".") becomes \xNN. "/" alone is "-". */
char *unit_name_path_escape(const char *path) {
        if (!path || path[0] != '/') {
                errno = EINVAL;
                return NULL;
        }
        char *r = malloc(strlen(path) * 4 + 2);
        if (!r) {
                errno = ENOMEM;
                return NULL;
        }
        char *o = r;
        for (const char *p = path; *p;) {
                while (*p == '/')
                        p++;
                if (!*p)
                        break;
                const char *e = strchrnul(p, '/');
                size_t n = (size_t) (e - p);
                if (n == 1 && p[0] == '.') {
                        p = e;
                        continue;
                }
                if (n == 2 && p[0] == '.' && p[1] == '.') {
                        free(r);
                        errno = EINVAL;
                        return NULL;
                }
                if (o != r)
                        *o++ = '-';
                for (size_t i = 0; i < n; i++) {
                        char c = p[i];
                        if (unit_name_char_ok(c) && !(c == '.' && o == r))
                                *o++ = c;
                        else
                                o += sprintf(o, "\\x%02x", (unsigned) (unsigned char) c);
                }
                p = e;
        }
        if (o == r)
                *o++ = '-';
        *o = 0;
        return r;
}

char *unit_name_from_path(const char *path, const char *suffix) {
        _cleanup_free_ char *e = unit_name_path_escape(path);
        if (!e)
                return NULL;
        char *r = strdup_printf("%s%s", e, suffix);
        if (!r)
                errno = ENOMEM;
        return r;
}

char *unit_name_path_instance(const char *prefix, const char *path, const char *suffix) {
        _cleanup_free_ char *e = unit_name_path_escape(path);
        if (!e)
                return NULL;
        char *r = strdup_printf("%s@%s%s", prefix, e, suffix);
        if (!r)
                errno = ENOMEM;
        return r;
}
