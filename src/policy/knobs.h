/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <sys/swap.h>

#include "shared/util.h"

/* glibc's <sys/swap.h> lacks the last two (include/linux/swap.h, Linux 3.11). */
#ifndef SWAP_FLAG_DISCARD_ONCE
#define SWAP_FLAG_DISCARD_ONCE 0x20000
#endif
#ifndef SWAP_FLAG_DISCARD_PAGES
#define SWAP_FLAG_DISCARD_PAGES 0x40000
#endif

/* Value syntax of the zram and swap-file knobs of issue 17 ([Zram] Algorithm= parameters,
 * RecompressAlgorithm=, WritebackIdleAfter=, WritebackInterval=, [File] Discard=). Pure: no I/O. */

/* [File] Discard=: which discard flags swapon(2) gets. */
typedef enum SwapDiscard {
        SWAP_DISCARD_OFF = 0,   /* no flag (the default) */
        SWAP_DISCARD_ONCE,      /* SWAP_FLAG_DISCARD | SWAP_FLAG_DISCARD_ONCE: the whole area at swapon */
        SWAP_DISCARD_PAGES,     /* SWAP_FLAG_DISCARD | SWAP_FLAG_DISCARD_PAGES: freed clusters as they go */
        _SWAP_DISCARD_MAX,
} SwapDiscard;
const char *swap_discard_to_string(SwapDiscard d);
/* The swapon(2) flags for d: 0, or SWAP_FLAG_DISCARD with SWAP_FLAG_DISCARD_ONCE or
 * SWAP_FLAG_DISCARD_PAGES (what util-linux swapon --discard=once|pages passes). */
int swap_discard_flags(SwapDiscard d);
/* "once", "pages", "off" (and "" = off). -EINVAL otherwise. */
int swap_discard_from_string(const char *s, SwapDiscard *ret);

/* One entry of an algorithm list: "zstd" or "zstd(level=3)" or "zstd(level=3,dict=/etc/zd)".
 * *ret_name gets the name, *ret_params the parameters in the kernel's algorithm_params form
 * ("level=3 dict=/etc/zd"), or NULL when none were given. Keys: level (an integer, -100..100;
 * zstd takes negative levels) and dict (an absolute path without white space). -EINVAL with
 * *ret_reason (a static string) on bad parameters, with *ret_reason NULL on a bad name (lower-case
 * letters, digits and '-', at most 63); -ENOMEM. */
int algorithm_spec_parse(const char *token, char **ret_name, char **ret_params, const char **ret_reason);

/* A time span as systemd writes it: "3600" (seconds), "90s", "30min", "12h", "1d", "1w",
 * concatenations ("1h30min", "1d 12h"). Seconds in *ret. -EINVAL on bad syntax, -ERANGE above
 * ten years. */
int timespan_parse_sec(const char *s, uint64_t *ret);
/* "1d", "12h", "1h 30min", "45s", "0": the shortest exact form of sec. buf of at least 64 bytes. */
const char *timespan_format_sec(char *buf, size_t len, uint64_t sec);
