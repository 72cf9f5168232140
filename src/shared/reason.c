/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "shared/reason.h"

#include <stdarg.h>

int reason_set(char **ret_reason, int r, const char *fmt, ...) {
        if (!ret_reason)
                return r;
        va_list ap;
        char *s;
        va_start(ap, fmt);
        int k = vasprintf(&s, fmt, ap);
        va_end(ap);
        if (k < 0)
                return -ENOMEM;
        free(*ret_reason);
        *ret_reason = s;
        return r;
}
