/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include "shared/util.h"

/* Loop devices, read from sysfs below root: which one is backed by a file. Read-only. */

/* The first loop device (lowest number) whose backing file is path (/sys/block/loopN/loop/
 * backing_file, without the root prefix): *ret_dev = "/dev/loopN". 0 when found, -ENOENT when
 * no loop device is backed by path. A file deleted since (" (deleted)") does not count. */
int loop_find_by_backing_file(const char *root, const char *path, char **ret_dev);

/* What [Zram] Writeback= names, as found (lstat below root, never followed). */
typedef struct WritebackTarget {
        bool exists;
        bool is_regular;
        bool is_block;
        uint64_t size;          /* regular file: st_size; block device: /sys/class/block/NAME/size */
        unsigned mode, uid;     /* st_mode & 07777, st_uid */
        char *loop_device;      /* a regular file: the loop device backed by it, "/dev/loopN"; NULL none */
        char *mapping;          /* a regular file: the dm-crypt mapping of nodeswap's over it ("/dev/dm-4",
                                 * named by crypt_swap_name()), NULL none */
        bool marker;            /* a regular file that starts with the encrypted file's marker page
                                 * (probe/crypt.h): it has held nothing but ciphertext since it was
                                 * made or overwritten; false too where it cannot be read (not root) */
        uint64_t fs_free;       /* bytes free to root in its directory's file system; 0 unknown */
} WritebackTarget;
int writeback_target_probe(const char *root, const char *path, WritebackTarget *ret);
void writeback_target_done(WritebackTarget *t);
