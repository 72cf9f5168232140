/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include "policy/policy.h"
#include "probe/writeback-record.h"

/* zram writeback (Documentation/admin-guide/blockdev/zram.rst): the backing device a device of
 * nodeswap's gets before its disksize, the daily writeback budget, and the run the timer starts
 * (nodeswap writeback). Writers only; nothing here logs. */

/* The backing device for [Zram] Writeback=. For a file nodeswap attaches a loop device of its own
 * (LOOP_CTL_GET_FREE and LOOP_CONFIGURE, with LO_FLAGS_AUTOCLEAR, and direct I/O where the file
 * system takes it), and holds it open in fd until zram has taken it: with autoclear the loop
 * device goes away by itself when its last user lets go of it — zram's reset, or this process
 * ending before zram took it. */
typedef struct ZramBacking {
        int fd;                 /* the loop device, open until backing_dev is written; -EBADF */
        char *dev;              /* what backing_dev gets ("/dev/loop3", "/dev/nvme0n1p3") */
        char *file;             /* the loop device's backing file; NULL for a block device */
        bool created;           /* the file was made now */
        bool mapped;            /* dev is the file's dm-crypt mapping (WritebackEncrypt=yes), which stays
                                 * until zram_writeback_forget() or crypt_unmap_file() removes it */
} ZramBacking;
#define ZRAM_BACKING_NULL ((ZramBacking) { .fd = -EBADF })

/* Writeback= a file: made when missing (O_CREAT|O_EXCL|O_NOFOLLOW, 0600, fallocate'd to size; missing
 * directories are made 0755), refused when it is not a regular file of root's that only root may
 * write; then the loop device. With encrypt ([Zram] WritebackEncrypt=yes) the file's first page is
 * the marker of an encrypted file (probe/crypt.h), which says that everything after it has been
 * ciphertext or zeros since: a file without it (it may hold pages written back in clear) is
 * overwritten with zeros in full first; then its dm-crypt mapping with a new key
 * (crypt_map_writeback(): its own direct-I/O loop device), and ret->dev is the mapping. Without
 * encrypt a marker is cleared (the file is about to take pages in clear). A block device is taken
 * as it is. Under a root other than "/" the file is made (and overwritten and marked, or its marker
 * cleared) but no loop device attached: -EOPNOTSUPP with the file in ret->file. *ret_reason (may be
 * NULL) says what failed, naming the path. Each of the overwrite and the mapping is a step of its
 * own for fault injection (execute/fault.h). */
int zram_backing_prepare(const char *root, const char *writeback, bool is_file, uint64_t size, bool encrypt,
                         ZramBacking *ret, char **ret_reason);
/* Lets go of the loop device (close: autoclear removes it when zram has not taken it). */
void zram_backing_done(ZramBacking *b);

/* After a device with a backing device is set up: the daily budget (writeback_limit_enable and
 * writeback_limit, in the kernel's 4 KiB units) when limit > 0, and the record
 * (/run/nodeswap-state/writeback) of the device, its loop device and the budget's window. */
int zram_writeback_started(const char *root, int id, const ZramBacking *b, uint64_t limit);

/* A device of nodeswap's was removed: the mapping over the recorded file goes (its key with it), and
 * the loop device nodeswap attached for it too (it is detached when it is still attached to the
 * recorded file; autoclear has normally done it already), and the record is deleted. 0 when there
 * was nothing recorded for id. */
int zram_writeback_forget(const char *root, int id);

/* Delete a [Zram] Writeback= file nodeswap made (revert --purge, or a Writeback= that names
 * another file now): only a regular file, never through a symlink (-ELOOP, -EMEDIUMTYPE for
 * anything else), and only when no loop device is backed by it any more (waiting up to 5 s for
 * autoclear; then -EBUSY: deleting it under a loop device would keep its blocks until that device
 * goes). 1 deleted, 0 nothing was
 * there, -errno. */
int zram_backing_file_remove(const char *root, const char *path);

/* One run of "nodeswap writeback" on device id. */
typedef struct WritebackRun {
        bool due;               /* false: the interval has not passed since the last run; nothing done */
        bool idle_by_age;       /* the kernel marked pages idle by age (seconds > idle) */
        bool waiting_for_idle;  /* by "all": pages were marked now, written back at the next run */
        bool budget_reset;      /* the day's budget began anew */
        bool limit_reached;     /* the kernel stopped at writeback_limit */
        bool recompressed;
        uint64_t written;       /* bytes written back by this run (bd_stat bd_writes) */
        uint64_t budget_left;   /* bytes left of the day's budget after the run; UINT64_MAX: no cap */
} WritebackRun;

/* Mark pages idle (those idle for WritebackIdleAfter=, or, on kernels that cannot tell a page's
 * age, all pages, whose untouched ones count as idle at the next run), recompress idle pages with
 * RecompressAlgorithm=, write idle pages back, within the day's WritebackLimit=. Runs only when
 * WritebackInterval= has passed since the last run that acted (always with force, or with an
 * interval of 0). -errno with *ret_reason naming the attribute on failure. */
int zram_writeback_run(const char *root, const Policy *p, int id, bool force, WritebackRun *ret, char **ret_reason);
