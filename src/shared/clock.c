/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "shared/clock.h"

#include <time.h>

static uint64_t now_usec(clockid_t clock) {
        struct timespec ts;
        /* Only EINVAL (an unknown clock) or EFAULT: neither can happen with these two. */
        (void) clock_gettime(clock, &ts);
        return (uint64_t) ts.tv_sec * UINT64_C(1000000) + (uint64_t) ts.tv_nsec / 1000;
}

uint64_t now_realtime_usec(void) {
        return now_usec(CLOCK_REALTIME);
}

uint64_t now_monotonic_usec(void) {
        return now_usec(CLOCK_MONOTONIC);
}
