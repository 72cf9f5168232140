/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stdint.h>

/* The clocks nodeswap reads, each named for what it is. */

/* CLOCK_REALTIME in µs: the wall clock, for what is recorded across boots (swap_changed_usec=,
 * last_run_usec= in nodeswap's state) and compared with systemd's timestamps (ActiveEnterTimestamp
 * is CLOCK_REALTIME too). */
uint64_t now_realtime_usec(void);

/* CLOCK_MONOTONIC in µs: for deadlines and durations (systemd job waits, benchmarks), which a
 * change of the wall clock must not stretch or cut short. */
uint64_t now_monotonic_usec(void);
