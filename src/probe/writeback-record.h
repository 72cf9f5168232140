/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include "shared/util.h"

/* nodeswap's record of zram writeback for this boot, /run/nodeswap-state/writeback, "key=value"
 * lines like the state files (unknown keys and bad values ignored, a missing file reads empty):
 *
 *   zram_id=1                 the device of nodeswap's that writes back
 *   loop=/dev/loop3           the loop device nodeswap attached for Writeback= a file ...
 *   file=/var/lib/nodeswap/zram-writeback   ... and its backing file
 *   window_usec=N             CLOCK_REALTIME µs the current day's WritebackLimit= budget began
 *   last_usec=N               CLOCK_REALTIME µs of the last scheduled run that acted
 *   marked_usec=N             CLOCK_REALTIME µs all pages were last marked idle ("all" > idle, on
 *                             kernels that cannot mark pages idle by age)
 *   bytes_this_window=N       bytes written back since window_usec (from bd_stat's bd_writes) */
#define WRITEBACK_RECORD_PATH "/run/nodeswap-state/writeback"

typedef struct WritebackRecord {
        int zram_id;            /* -1: none */
        char *loop;
        char *file;
        uint64_t window_usec, last_usec, marked_usec;
        uint64_t window_start_writes;   /* bd_writes (bytes) when the window began */
} WritebackRecord;

void writeback_record_init(WritebackRecord *r);
void writeback_record_done(WritebackRecord *r);
/* Reads the record below root; a missing or unreadable file gives the empty record. -ENOMEM. */
int writeback_record_load(const char *root, WritebackRecord *ret);
/* The file's contents. NULL on ENOMEM. */
char *writeback_record_format(const WritebackRecord *r);
