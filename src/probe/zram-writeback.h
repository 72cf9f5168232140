/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include "shared/util.h"

/* What a zram device offers for writeback and recompression, and how it is set
 * (Documentation/admin-guide/blockdev/zram.rst). Read-only. */
typedef struct ZramWriteback {
        bool has_backing_dev;           /* CONFIG_ZRAM_WRITEBACK: backing_dev, writeback, bd_stat */
        char *backing_dev;              /* NULL: "none" or no attribute */
        bool backing_encrypted;         /* backing_dev is a dm-crypt mapping of nodeswap's over a loop
                                         * device over a file (crypt_swap_resolve(), [Zram]
                                         * WritebackEncrypt=) */
        char *backing_file;             /* that file, NULL otherwise */
        bool backing_dio;               /* that loop device has direct I/O */
        bool has_writeback_limit;       /* writeback_limit and writeback_limit_enable */
        bool writeback_limit_enabled;
        uint64_t writeback_limit;       /* bytes left of the budget (the kernel counts 4 KiB units) */
        bool has_recomp_algorithm;      /* CONFIG_ZRAM_MULTI_COMP: recomp_algorithm, recompress */
} ZramWriteback;

/* Read the attributes of the zram device whose sysfs directory is dir (root already applied).
 * Absent or unreadable attributes read as "not offered". -ENOMEM only. */
int zram_writeback_probe(const char *dir, ZramWriteback *ret);
void zram_writeback_done(ZramWriteback *w);
