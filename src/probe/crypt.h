/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include "shared/util.h"

/* The encrypted swap file ([File] Encrypt=, nodeswap.conf(5)): the layout of the file, the name of
 * its dm-crypt mapping, and reading back which file an active mapping is made of. Read-only;
 * execute/crypt.h makes and removes mappings. The key is never read here: nothing of it is on the
 * disk or in sysfs.
 *
 * The file: its first CRYPT_DATA_OFFSET bytes are a marker page (CRYPT_MARKER_MAGIC at offset 0,
 * the rest a line naming the cipher and zeros), in clear, so that probe, plan and revert --purge
 * know the file as nodeswap's without a swap signature (which would let anyone swapon(2) the
 * file directly, writing pages in clear). The rest is the mapping's data, in 4096-byte
 * encryption sectors: its swap header is written on the mapping at every setup, for a new key. */

#define CRYPT_MARKER_MAGIC      "NODESWAP-CRYPT-1"
#define CRYPT_MARKER_SIZE       (sizeof(CRYPT_MARKER_MAGIC) - 1)
#define CRYPT_DATA_OFFSET       4096            /* bytes; the mapping starts here */
/* dm-crypt in plain mode (no on-disk header, no key slot: the key lives in the kernel only):
 * AES in XTS mode with a 512-bit key, which XTS splits into two AES-256 keys (the tutorial's
 * 256 bits would be AES-128-XTS); the IV is the 64-bit sector number. */
#define CRYPT_CIPHER            "aes"
#define CRYPT_CIPHER_MODE       "xts-plain64"
#define CRYPT_KEY_BYTES         64
#define CRYPT_SECTOR_SIZE       4096            /* dm-crypt's encryption sector, bytes */
/* The mapping's name: this prefix and the file's path escaped as systemd escapes it for a unit
 * name ("nodeswap-var-lib-nodeswap-swapfile"), with '#' for the escapes' "\x"
 * ("nodeswap-var-lib-nodeswap-.#23swapfile.bridge"), so the name follows from the path alone and
 * dmsetup takes it as it is. */
#define CRYPT_NAME_PREFIX       "nodeswap-"
#define CRYPT_NAME_MAX          127             /* DM_NAME_LEN - 1 */

/* The mapping name for the swap file at path; -ENAMETOOLONG past CRYPT_NAME_MAX. */
int crypt_swap_name(const char *path, char **ret);

/* "/dev/dm-N" of the device-mapper device called name, from /sys/block/dm-N/dm/name below root
 * (devtmpfs makes that node whether or not udev runs): 0, -ENOENT none, -errno. */
int crypt_mapping_find(const char *root, const char *name, char **ret);

/* 1: the first bytes of fd are the marker of an encrypted swap file; 0: not; -errno. */
int crypt_marker_probe(int fd);

/* Which file an entry of /proc/swaps is made of, when it is a mapping of nodeswap's: dev is the
 * path /proc/swaps lists ("/dev/dm-3"); its name (/sys/block/dm-3/dm/name) must start with
 * CRYPT_NAME_PREFIX, its one slave be a loop device, and that loop device's backing file
 * (/sys/block/loopN/loop/backing_file) be *ret_file. 1 found (*ret_file, *ret_loop "/dev/loopN"
 * and *ret_dio the loop device's direct I/O, each may be NULL), 0 dev is no mapping of nodeswap's,
 * -errno. */
int crypt_swap_resolve(const char *root, const char *dev, char **ret_file, char **ret_loop, bool *ret_dio);
