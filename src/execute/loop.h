/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include "shared/util.h"

/* Loop devices nodeswap attaches to its own files: [Zram] Writeback='s backing file and the
 * encrypted swap file's mapping (execute/crypt.h). Nothing here logs or forks. */

/* LOOP_CTL_GET_FREE, then LOOP_CONFIGURE of that device on file_fd with LO_FLAGS_AUTOCLEAR (the
 * device goes away by itself when its last user closes it) and LO_FLAGS_DIRECT_IO, with
 * block_size as its logical block size (0: the kernel's default, 512). Another process may take the
 * same free device first (EBUSY): asked again, a few times. Where the file system refuses direct
 * I/O (EINVAL) the device is configured through the page cache instead, unless need_dio: then
 * -EOPNOTSUPP. With need_dio the device's /sys/block/loopN/loop/dio must read 1 afterwards too,
 * since the kernel falls back to buffered I/O silently (drivers/block/loop.c, loop_update_dio())
 * when the block size is below the backing disk's or the file is not aligned: -EOPNOTSUPP, the
 * device detached. path names the file in lo_file_name and in *ret_reason (may be NULL).
 * 0 with *ret_fd (the loop device, open) and *ret_dev ("/dev/loopN"), -errno. */
int loop_attach(int file_fd, const char *path, uint32_t block_size, bool need_dio, int *ret_fd, char **ret_dev,
                char **ret_reason);
