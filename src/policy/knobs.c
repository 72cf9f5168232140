/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "policy/knobs.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>

static const char *const swap_discard_table[_SWAP_DISCARD_MAX] = {
        [SWAP_DISCARD_OFF] = "off",
        [SWAP_DISCARD_ONCE] = "once",
        [SWAP_DISCARD_PAGES] = "pages",
};

const char *swap_discard_to_string(SwapDiscard d) {
        return (unsigned) d < _SWAP_DISCARD_MAX ? swap_discard_table[d] : NULL;
}

int swap_discard_flags(SwapDiscard d) {
        switch (d) {
        case SWAP_DISCARD_ONCE:
                return SWAP_FLAG_DISCARD | SWAP_FLAG_DISCARD_ONCE;
        case SWAP_DISCARD_PAGES:
                return SWAP_FLAG_DISCARD | SWAP_FLAG_DISCARD_PAGES;
        default:
                return 0;
        }
}

int swap_discard_from_string(const char *s, SwapDiscard *ret) {
        if (!s)
                return -EINVAL;
        if (!*s) {
                *ret = SWAP_DISCARD_OFF;
                return 0;
        }
        for (size_t i = 0; i < _SWAP_DISCARD_MAX; i++)
                if (streq(s, swap_discard_table[i])) {
                        *ret = (SwapDiscard) i;
                        return 0;
                }
        return -EINVAL;
}

#define ALGORITHM_NAME_MAX 63
#define ALGORITHM_LEVEL_MIN (-100)
#define ALGORITHM_LEVEL_MAX 100

static int param_append(char **params, const char *key, const char *value, size_t value_len) {
        char *n = strdup_printf("%s%s%s=%.*s", *params ?: "", *params ? " " : "", key, (int) value_len, value);
        if (!n)
                return -ENOMEM;
        free(*params);
        *params = n;
        return 0;
}

int algorithm_spec_parse(const char *token, char **ret_name, char **ret_params, const char **ret_reason) {
        const char *open = strchr(token, '(');
        size_t name_len = open ? (size_t) (open - token) : strlen(token);
        _cleanup_free_ char *name = NULL, *params = NULL;
        bool have_level = false, have_dict = false;

        if (name_len == 0 || name_len > ALGORITHM_NAME_MAX ||
            strspn(token, "abcdefghijklmnopqrstuvwxyz0123456789-") != name_len) {
                *ret_reason = NULL;     /* the name itself */
                return -EINVAL;
        }
        if (open) {
                size_t l = strlen(open);
                if (l < 3 || open[l - 1] != ')') {
                        *ret_reason = "parameters are written name(key=value,...) with no space, e.g. zstd(level=3)";
                        return -EINVAL;
                }
                const char *p = open + 1, *end = open + l - 1;
                while (p < end) {
                        const char *comma = memchr(p, ',', (size_t) (end - p)) ?: end;
                        const char *eq = memchr(p, '=', (size_t) (comma - p));
                        if (!eq || eq == p || eq + 1 == comma) {
                                *ret_reason = "each parameter is key=value (level=N or dict=/path), separated by ','";
                                return -EINVAL;
                        }
                        const char *v = eq + 1;
                        size_t vl = (size_t) (comma - v);
                        int r;
                        if ((size_t) (eq - p) == 5 && strncmp(p, "level", 5) == 0) {
                                char buf[16];
                                char *e;
                                if (have_level || vl >= sizeof buf) {
                                        *ret_reason = have_level ? "level= is given twice" : "level= is an integer from -100 to 100";
                                        return -EINVAL;
                                }
                                memcpy(buf, v, vl);
                                buf[vl] = 0;
                                errno = 0;
                                long n = strtol(buf, &e, 10);
                                if (errno != 0 || *e || e == buf || !(isdigit((unsigned char) buf[0]) || buf[0] == '-') ||
                                    n < ALGORITHM_LEVEL_MIN || n > ALGORITHM_LEVEL_MAX) {
                                        *ret_reason = "level= is an integer from -100 to 100";
                                        return -EINVAL;
                                }
                                have_level = true;
                                r = param_append(&params, "level", buf, strlen(buf));
                        } else if ((size_t) (eq - p) == 4 && strncmp(p, "dict", 4) == 0) {
                                if (have_dict || v[0] != '/' || vl < 2) {
                                        *ret_reason = have_dict ? "dict= is given twice" : "dict= is an absolute path";
                                        return -EINVAL;
                                }
                                for (size_t i = 0; i < vl; i++)
                                        if (isspace((unsigned char) v[i]) || iscntrl((unsigned char) v[i]) || v[i] == '(' ||
                                            v[i] == ')') {
                                                *ret_reason = "dict= is an absolute path without white space or parentheses";
                                                return -EINVAL;
                                        }
                                have_dict = true;
                                r = param_append(&params, "dict", v, vl);
                        } else {
                                *ret_reason = "unknown parameter (the kernel's algorithm_params takes level= and dict=)";
                                return -EINVAL;
                        }
                        if (r < 0)
                                return r;
                        p = comma < end ? comma + 1 : end;
                        if (comma < end && p == end) {
                                *ret_reason = "a trailing ',' in the parameters";
                                return -EINVAL;
                        }
                }
        }
        name = strndup(token, name_len);
        if (!name)
                return -ENOMEM;
        *ret_name = TAKE_PTR(name);
        *ret_params = TAKE_PTR(params);
        return 0;
}

#define TIMESPAN_MAX_SEC (10ULL * 366 * 24 * 3600)

static const struct {
        const char *suffix;
        uint64_t sec;
} timespan_units[] = {
        /* longest first where one is a prefix of another */
        { "seconds", 1 }, { "second", 1 }, { "sec", 1 }, { "s", 1 },
        { "minutes", 60 }, { "minute", 60 }, { "min", 60 }, { "m", 60 },
        { "hours", 3600 }, { "hour", 3600 }, { "hr", 3600 }, { "h", 3600 },
        { "days", 86400 }, { "day", 86400 }, { "d", 86400 },
        { "weeks", 604800 }, { "week", 604800 }, { "w", 604800 },
};

int timespan_parse_sec(const char *s, uint64_t *ret) {
        uint64_t total = 0;
        bool any = false;
        const char *p = s;

        for (;;) {
                while (*p == ' ')
                        p++;
                if (!*p)
                        break;
                if (!isdigit((unsigned char) *p))
                        return -EINVAL;
                uint64_t n = 0;
                for (; isdigit((unsigned char) *p); p++)
                        if (__builtin_mul_overflow(n, 10, &n) || __builtin_add_overflow(n, (uint64_t) (*p - '0'), &n))
                                return -ERANGE;
                uint64_t mult = 0;
                size_t ul = 0;
                for (size_t i = 0; i < ELEMENTSOF(timespan_units); i++) {
                        size_t l = strlen(timespan_units[i].suffix);
                        if (strncmp(p, timespan_units[i].suffix, l) == 0 && !isalpha((unsigned char) p[l])) {
                                mult = timespan_units[i].sec;
                                ul = l;
                                break;
                        }
                }
                if (mult == 0) {
                        if (isalpha((unsigned char) *p))
                                return -EINVAL;         /* an unknown unit */
                        mult = 1;                       /* a bare number: seconds */
                }
                p += ul;
                if (__builtin_mul_overflow(n, mult, &n) || __builtin_add_overflow(total, n, &total) ||
                    total > TIMESPAN_MAX_SEC)
                        return -ERANGE;
                any = true;
        }
        if (!any)
                return -EINVAL;
        *ret = total;
        return 0;
}

const char *timespan_format_sec(char *buf, size_t len, uint64_t sec) {
        static const struct {
                const char *suffix;
                uint64_t sec;
        } parts[] = { { "d", 86400 }, { "h", 3600 }, { "min", 60 }, { "s", 1 } };
        size_t o = 0;

        if (sec == 0) {
                snprintf(buf, len, "0");
                return buf;
        }
        buf[0] = 0;
        for (size_t i = 0; i < ELEMENTSOF(parts) && sec > 0; i++)
                if (sec >= parts[i].sec) {
                        int n = snprintf(buf + o, len - o, "%s%" PRIu64 "%s", o ? " " : "", sec / parts[i].sec,
                                         parts[i].suffix);
                        if (n < 0 || (size_t) n >= len - o)
                                break;
                        o += (size_t) n;
                        sec %= parts[i].sec;
                }
        return buf;
}
