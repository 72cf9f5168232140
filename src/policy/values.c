/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Checks of single values that several keys' parsers share. */

#include "policy/values.h"

#include <ctype.h>
#include <limits.h>

/* A plain decimal number (digits only), no larger than max. */
int parse_plain_uint(const char *v, uint64_t max, uint64_t *ret) {
        uint64_t n = 0;
        if (!*v)
                return -EINVAL;
        for (const char *c = v; *c; c++) {
                if (*c < '0' || *c > '9')
                        return -EINVAL;
                if (__builtin_mul_overflow(n, 10, &n) || __builtin_add_overflow(n, (uint64_t) (*c - '0'), &n))
                        return -ERANGE;
        }
        if (n > max)
                return -ERANGE;
        *ret = n;
        return 0;
}

bool path_is_under(const char *path, const char *dir) {
        size_t l = strlen(dir);
        return strncmp(path, dir, l) == 0 && (path[l] == '/' || path[l] == 0);
}

/* An absolute path naming a file: collapses "//" and "/./", refuses "..", white space, control
 * characters and a trailing '/'. */
int path_normalize(const char *v, char **ret, const char **ret_reason) {
        if (v[0] != '/') {
                *ret_reason = "must be an absolute path";
                return -EINVAL;
        }
        for (const char *c = v; *c; c++)
                if (isspace((unsigned char) *c) || iscntrl((unsigned char) *c)) {
                        *ret_reason = "must not contain white space or control characters";
                        return -EINVAL;
                }
        if (strlen(v) >= PATH_MAX) {
                *ret_reason = "the path is too long";
                return -EINVAL;
        }

        _cleanup_free_ char *out = malloc(strlen(v) + 1);
        if (!out)
                return -ENOMEM;
        char *o = out;
        const char *c = v, *last = NULL;
        for (;;) {
                while (*c == '/')
                        c++;
                if (!*c)
                        break;
                const char *e = strchrnul(c, '/');
                size_t l = (size_t) (e - c);
                last = c;
                if (l == 2 && c[0] == '.' && c[1] == '.') {
                        *ret_reason = "must not contain a '..' component";
                        return -EINVAL;
                }
                if (!(l == 1 && c[0] == '.')) {
                        *o++ = '/';
                        memcpy(o, c, l);
                        o += l;
                }
                c = e;
        }
        *o = 0;
        size_t vl = strlen(v);
        if (!last || v[vl - 1] == '/' || (vl >= 2 && streq(v + vl - 2, "/.")) || o == out) {
                *ret_reason = "must name a file, not a directory";
                return -EINVAL;
        }
        *ret = out;
        out = NULL;
        return 0;
}

/* ---------------------------------------------------------------------------------------------- */
/* Keys */

