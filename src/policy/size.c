/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Size expressions ([Zram] Size=, MemLimit=, [File] Size=) and Kubernetes quantities.
 *
 * Every value is an exact rational number (numerator and denominator in 128 bits), so "1.5G",
 * "ram / 3 * 2" and "12.5%" come out to the byte, with no floating point rounding. Any step that
 * does not fit in 128 bits is reported as an overflow rather than wrapped.
 *
 * Grammar of size_eval():
 *
 *   expr    := term (('+' | '-') term)*
 *   term    := unary (('*' | '/') unary)*
 *   unary   := '-' unary | primary
 *   primary := NUMBER [ 'K' | 'M' | 'G' | 'T' | '%' ] | 'ram' | '(' expr ')'
 *            | ('min' | 'max') '(' expr (',' expr)* ')'
 *   NUMBER  := DIGITS [ '.' DIGITS ]
 *
 * K, M, G and T are binary (1024-based) and upper case only: "8g" is refused because Kubernetes
 * and other tools read a lower-case "m" as milli; "8GiB" is refused too, the suffix is one letter.
 * A plain number is bytes; "50%" is half of ram. White space between tokens is ignored.
 */

#include "policy/size.h"

#include <ctype.h>
#include <inttypes.h>

typedef __int128 i128;
typedef unsigned __int128 u128;

typedef struct Rat {
        i128 n;
        i128 d;         /* > 0 */
} Rat;

static u128 u128_gcd(u128 a, u128 b) {
        while (b != 0) {
                u128 t = a % b;
                a = b;
                b = t;
        }
        return a;
}

static u128 i128_abs(i128 v) {
        return v < 0 ? (u128) 0 - (u128) v : (u128) v;
}

static i128 i128_gcd(i128 a, i128 b) {
        /* Only called with b > 0, and a > INT128_MIN in practice; the result fits. */
        u128 g = u128_gcd(i128_abs(a), i128_abs(b));
        return (i128) g;
}

static void rat_reduce(Rat *r) {
        i128 g = i128_gcd(r->n, r->d);
        if (g > 1) {
                r->n /= g;
                r->d /= g;
        }
}

static Rat rat_int(i128 v) {
        return (Rat) { v, 1 };
}

static int rat_add(Rat a, Rat b, Rat *ret) {
        i128 g = i128_gcd(a.d, b.d), x, y, n, d;
        if (__builtin_mul_overflow(a.n, b.d / g, &x) ||
            __builtin_mul_overflow(b.n, a.d / g, &y) ||
            __builtin_add_overflow(x, y, &n) ||
            __builtin_mul_overflow(a.d, b.d / g, &d))
                return -ERANGE;
        *ret = (Rat) { n, d };
        rat_reduce(ret);
        return 0;
}

static int rat_neg(Rat a, Rat *ret) {
        if (__builtin_sub_overflow((i128) 0, a.n, &a.n))
                return -ERANGE;
        *ret = a;
        return 0;
}

static int rat_mul(Rat a, Rat b, Rat *ret) {
        i128 g1 = a.n == 0 ? 1 : i128_gcd(a.n, b.d);
        i128 g2 = b.n == 0 ? 1 : i128_gcd(b.n, a.d);
        i128 n, d;
        if (__builtin_mul_overflow(a.n / g1, b.n / g2, &n) ||
            __builtin_mul_overflow(a.d / g2, b.d / g1, &d))
                return -ERANGE;
        *ret = (Rat) { n, d };
        rat_reduce(ret);
        return 0;
}

static int rat_div(Rat a, Rat b, Rat *ret) {
        if (b.n == 0)
                return -EDOM;
        Rat inv = b.n < 0 ? (Rat) { -b.d, -b.n } : (Rat) { b.d, b.n };
        return rat_mul(a, inv, ret);
}

/* Sign of a - b, or -ERANGE folded into *overflow. */
static int rat_cmp(Rat a, Rat b, bool *overflow) {
        Rat diff, nb;
        if (rat_neg(b, &nb) < 0 || rat_add(a, nb, &diff) < 0) {
                *overflow = true;
                return 0;
        }
        return (diff.n > 0) - (diff.n < 0);
}

/* Parses DIGITS [ '.' DIGITS ] at *p into an exact rational. Returns -EINVAL when there is no digit,
 * -ERANGE when the number does not fit. */
static int parse_decimal(const char **p, Rat *ret) {
        const char *s = *p;
        i128 n = 0, d = 1;
        bool any = false;

        for (; isdigit((unsigned char) *s); s++) {
                any = true;
                if (__builtin_mul_overflow(n, 10, &n) || __builtin_add_overflow(n, *s - '0', &n))
                        return -ERANGE;
        }
        if (*s == '.') {
                s++;
                for (; isdigit((unsigned char) *s); s++) {
                        any = true;
                        if (__builtin_mul_overflow(n, 10, &n) ||
                            __builtin_add_overflow(n, *s - '0', &n) ||
                            __builtin_mul_overflow(d, 10, &d))
                                return -ERANGE;
                }
        }
        if (!any)
                return -EINVAL;
        *p = s;
        *ret = (Rat) { n, d };
        rat_reduce(ret);
        return 0;
}

typedef struct Parser {
        const char *p;
        Rat ram;
        unsigned depth;
        const char *reason;
} Parser;

#define MAX_DEPTH 32

static const char *const R_OVERFLOW = "the value is too large (overflow)";

static void skip_ws(Parser *ps) {
        while (isspace((unsigned char) *ps->p))
                ps->p++;
}

static int fail(Parser *ps, const char *reason) {
        if (!ps->reason)
                ps->reason = reason;
        return -EINVAL;
}

static int parse_expr(Parser *ps, Rat *ret);

static int parse_call(Parser *ps, bool is_min, Rat *ret) {
        Rat best = { 0, 1 };
        bool first = true;

        skip_ws(ps);
        if (*ps->p != '(')
                return fail(ps, "min and max take their arguments in parentheses: min(a, b)");
        ps->p++;
        for (;;) {
                Rat v;
                skip_ws(ps);
                if (*ps->p == ')' && first)
                        return fail(ps, "min() and max() need at least one argument");
                if (parse_expr(ps, &v) < 0)
                        return -EINVAL;
                if (first)
                        best = v;
                else {
                        bool overflow = false;
                        int c = rat_cmp(v, best, &overflow);
                        if (overflow)
                                return fail(ps, R_OVERFLOW);
                        if (is_min ? c < 0 : c > 0)
                                best = v;
                }
                first = false;
                skip_ws(ps);
                if (*ps->p == ',') {
                        ps->p++;
                        continue;
                }
                if (*ps->p == ')') {
                        ps->p++;
                        break;
                }
                if (*ps->p == 0)
                        return fail(ps, "missing ')'");
                return fail(ps, "expected ',' or ')' in min() or max()");
        }
        *ret = best;
        return 0;
}

static int parse_primary(Parser *ps, Rat *ret) {
        skip_ws(ps);
        const char *s = ps->p;

        if (*s == '(') {
                ps->p++;
                Rat v;
                if (parse_expr(ps, &v) < 0)
                        return -EINVAL;
                skip_ws(ps);
                if (*ps->p != ')')
                        return fail(ps, "missing ')'");
                ps->p++;
                *ret = v;
                return 0;
        }

        if (isalpha((unsigned char) *s)) {
                const char *e = s;
                while (isalnum((unsigned char) *e) || *e == '_')
                        e++;
                size_t len = (size_t) (e - s);
                ps->p = e;
                if (len == 3 && strncmp(s, "ram", 3) == 0) {
                        *ret = ps->ram;
                        return 0;
                }
                if (len == 3 && strncmp(s, "min", 3) == 0)
                        return parse_call(ps, true, ret);
                if (len == 3 && strncmp(s, "max", 3) == 0)
                        return parse_call(ps, false, ret);
                return fail(ps, "unknown name (only ram, min() and max() may be used)");
        }

        if (isdigit((unsigned char) *s) || *s == '.') {
                Rat v;
                int r = parse_decimal(&ps->p, &v);
                if (r == -ERANGE)
                        return fail(ps, R_OVERFLOW);
                if (r < 0)
                        return fail(ps, "a number needs at least one digit");

                uint64_t mult = 1;
                bool percent = false;
                switch (*ps->p) {
                case 'K': mult = KiB; break;
                case 'M': mult = MiB; break;
                case 'G': mult = GiB; break;
                case 'T': mult = TiB; break;
                case '%': percent = true; break;
                case 'k': case 'm': case 'g': case 't':
                        return fail(ps, "size suffixes are upper case: K, M, G, T");
                case 'P': case 'E':
                        return fail(ps, "size suffixes go up to T");
                default: break;
                }
                if (mult != 1 || percent)
                        ps->p++;
                if (isalpha((unsigned char) *ps->p)) {
                        if (mult != 1 && *ps->p == 'i')
                                return fail(ps, "write binary sizes as K, M, G or T (not KiB, MiB, GiB)");
                        return fail(ps, "unknown size suffix (use K, M, G, T or %)");
                }
                if (*ps->p == '.' || *ps->p == '%')
                        return fail(ps, "malformed number");

                if (percent) {
                        if (rat_mul(v, ps->ram, &v) < 0 || rat_div(v, rat_int(100), &v) < 0)
                                return fail(ps, R_OVERFLOW);
                } else if (rat_mul(v, rat_int(mult), &v) < 0)
                        return fail(ps, R_OVERFLOW);
                *ret = v;
                return 0;
        }

        if (*s == 0)
                return fail(ps, "the expression ends too early");
        return fail(ps, "unexpected character");
}

static int parse_unary(Parser *ps, Rat *ret) {
        skip_ws(ps);
        if (*ps->p == '-') {
                ps->p++;
                if (++ps->depth > MAX_DEPTH)
                        return fail(ps, "the expression is nested too deeply");
                Rat v;
                int r = parse_unary(ps, &v);
                ps->depth--;
                if (r < 0)
                        return r;
                if (rat_neg(v, ret) < 0)
                        return fail(ps, R_OVERFLOW);
                return 0;
        }
        return parse_primary(ps, ret);
}

static int parse_term(Parser *ps, Rat *ret) {
        Rat acc;
        if (parse_unary(ps, &acc) < 0)
                return -EINVAL;
        for (;;) {
                skip_ws(ps);
                char op = *ps->p;
                if (op != '*' && op != '/')
                        break;
                ps->p++;
                Rat v;
                if (parse_unary(ps, &v) < 0)
                        return -EINVAL;
                int r = op == '*' ? rat_mul(acc, v, &acc) : rat_div(acc, v, &acc);
                if (r == -EDOM)
                        return fail(ps, "division by zero");
                if (r < 0)
                        return fail(ps, R_OVERFLOW);
        }
        *ret = acc;
        return 0;
}

static int parse_expr(Parser *ps, Rat *ret) {
        if (++ps->depth > MAX_DEPTH)
                return fail(ps, "the expression is nested too deeply");

        Rat acc;
        if (parse_term(ps, &acc) < 0)
                return -EINVAL;
        for (;;) {
                skip_ws(ps);
                char op = *ps->p;
                if (op != '+' && op != '-')
                        break;
                ps->p++;
                Rat v;
                if (parse_term(ps, &v) < 0)
                        return -EINVAL;
                if (op == '-' && rat_neg(v, &v) < 0)
                        return fail(ps, R_OVERFLOW);
                if (rat_add(acc, v, &acc) < 0)
                        return fail(ps, R_OVERFLOW);
        }
        ps->depth--;
        *ret = acc;
        return 0;
}

int size_eval(const char *expr, uint64_t ram, uint64_t page_size, uint64_t *ret, const char **ret_reason) {
        const char *reason = NULL;
        Parser ps = { .p = expr, .ram = rat_int((i128) ram) };
        Rat v;

        if (!expr || page_size == 0) {
                reason = "invalid arguments";
                goto fail;
        }
        skip_ws(&ps);
        if (*ps.p == 0) {
                reason = "empty size";
                goto fail;
        }
        if (parse_expr(&ps, &v) < 0) {
                reason = ps.reason ?: "syntax error";
                goto fail;
        }
        skip_ws(&ps);
        if (*ps.p == ')') {
                reason = "unbalanced ')'";
                goto fail;
        }
        if (*ps.p != 0) {
                reason = "unexpected text after the expression";
                goto fail;
        }
        if (v.n <= 0) {
                reason = "the size is zero or negative";
                goto fail;
        }

        /* Round down to whole bytes, then to whole pages. */
        i128 bytes = v.n / v.d;
        if (bytes > (i128) UINT64_MAX) {
                reason = R_OVERFLOW;
                goto fail;
        }
        uint64_t b = (uint64_t) bytes;
        b -= b % page_size;
        if (b == 0) {
                reason = "the size is smaller than one page";
                goto fail;
        }
        *ret = b;
        return 0;

fail:
        if (ret_reason)
                *ret_reason = reason;
        return -EINVAL;
}

/* Kubernetes resource quantities, as apimachinery's ParseQuantity reads them: an optional '+', a
 * decimal number, then one of: nothing, a decimal SI suffix (n u m k M G T P E), a binary suffix
 * (Ki Mi Gi Ti Pi Ei) or an exponent (e3, E-2). Fractions of a byte round up, as Quantity.Value()
 * does. -EINVAL for anything else (including a negative quantity), -ERANGE when it does not fit in
 * 64 bits. */
int quantity_parse(const char *s, uint64_t *ret) {
        const char *p = s;
        Rat v;
        int r;

        if (!s)
                return -EINVAL;
        if (*p == '+')
                p++;
        if (!isdigit((unsigned char) *p) && *p != '.')
                return -EINVAL;
        r = parse_decimal(&p, &v);
        if (r < 0)
                return r;

        static const struct {
                const char *suffix;
                unsigned base, exp;     /* value *= base^exp, or /= when base is 0 (10^-exp) */
        } suffixes[] = {
                { "Ki", 2, 10 }, { "Mi", 2, 20 }, { "Gi", 2, 30 },
                { "Ti", 2, 40 }, { "Pi", 2, 50 }, { "Ei", 2, 60 },
                { "n", 0, 9 }, { "u", 0, 6 }, { "m", 0, 3 },
                { "k", 10, 3 }, { "M", 10, 6 }, { "G", 10, 9 },
                { "T", 10, 12 }, { "P", 10, 15 }, { "E", 10, 18 },
        };

        Rat mult = rat_int(1);
        if (*p == 0)
                ;
        else if ((*p == 'e' || *p == 'E') &&
                 (isdigit((unsigned char) p[1]) ||
                  ((p[1] == '+' || p[1] == '-') && isdigit((unsigned char) p[2])))) {
                bool neg = p[1] == '-';
                const char *q = p + 1 + (p[1] == '+' || p[1] == '-');
                unsigned e = 0;
                for (; isdigit((unsigned char) *q); q++) {
                        e = e * 10 + (unsigned) (*q - '0');
                        if (e > 1000)
                                return -ERANGE;
                }
                if (*q != 0)
                        return -EINVAL;
                i128 pow = 1;
                for (unsigned i = 0; i < e; i++)
                        if (__builtin_mul_overflow(pow, 10, &pow))
                                return -ERANGE;
                mult = neg ? (Rat) { 1, pow } : rat_int(pow);
        } else {
                bool found = false;
                for (size_t i = 0; i < ELEMENTSOF(suffixes); i++) {
                        if (!streq(p, suffixes[i].suffix))
                                continue;
                        i128 pow = 1;
                        for (unsigned k = 0; k < suffixes[i].exp; k++)
                                pow *= suffixes[i].base == 2 ? 2 : 10;
                        mult = suffixes[i].base == 0 ? (Rat) { 1, pow } : rat_int(pow);
                        found = true;
                        break;
                }
                if (!found)
                        return -EINVAL;
        }

        if (rat_mul(v, mult, &v) < 0)
                return -ERANGE;
        i128 bytes = v.n / v.d + (v.n % v.d != 0);
        if (bytes > (i128) UINT64_MAX)
                return -ERANGE;
        *ret = (uint64_t) bytes;
        return 0;
}

/* A number written without a unit in a size expression is bytes. zram-generator's zram-size=
 * counts MiB ("min(ram / 2, 4096)" there is 4 GiB), so such a number below 1 MiB that stands as a
 * size of its own (not a factor or divisor next to '*' or '/') was almost surely meant as MiB. */
int size_check_meant(const char *expr, char **ret_msg) {
        const char *s = expr;
        while (s && *s) {
                if (!isdigit((unsigned char) *s) || (s > expr && (isalnum((unsigned char) s[-1]) || s[-1] == '.'))) {
                        s++;
                        continue;
                }
                const char *start = s;
                while (isdigit((unsigned char) *s) || *s == '.')
                        s++;
                if (isalpha((unsigned char) *s) || *s == '%')
                        continue;       /* a unit or a percentage: meant as written */
                const char *b = start, *a = s;
                while (b > expr && isspace((unsigned char) b[-1]))
                        b--;
                while (isspace((unsigned char) *a))
                        a++;
                /* A size of its own: the whole expression, or an argument of min() or max(). */
                bool before = b == expr || b[-1] == ',' ||
                              (b[-1] == '(' && b - expr >= 4 && (strncmp(b - 4, "min", 3) == 0 ||
                                                                 strncmp(b - 4, "max", 3) == 0));
                bool after = *a == 0 || *a == ',' || *a == ')';
                if (!before || !after)
                        continue;
                char *end;
                errno = 0;
                double v = strtod(start, &end);
                if (errno != 0 || v <= 0.0 || v >= 1024.0 * 1024.0)
                        continue;       /* zero is an error of its own */
                int len = (int) (s - start);
                if (ret_msg) {
                        uint64_t mib = (uint64_t) v;
                        if (mib > 0 && mib % 1024 == 0 && (double) mib == v)
                                *ret_msg = strdup_printf("%.*s is bytes here; zram-generator's zram-size counts MiB: "
                                                         "write %" PRIu64 "G or %.*sM", len, start, mib / 1024,
                                                         len, start);
                        else
                                *ret_msg = strdup_printf("%.*s is bytes here, less than 1 MiB; zram-generator's "
                                                         "zram-size counts MiB: write %.*sM (or a size with a K, M, "
                                                         "G or T suffix)", len, start, len, start);
                        if (!*ret_msg)
                                return -ENOMEM;
                }
                return -EINVAL;
        }
        return 0;
}
