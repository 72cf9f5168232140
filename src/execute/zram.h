/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include "probe/zram.h"

/* The zram backend's writers: find or hot_add a device, configure it through sysfs, write a swap
 * header and swap it on; and the way back. Everything goes through the root prefix. Under a root
 * other than "/" the sysfs writes go to the fixture's files, and the swapon(2)/swapoff(2) steps
 * are skipped (see zram_provision() and zram_teardown()). Nothing here logs; -errno on failure.
 * The kernel facts relied on are in probe/zram.h. */

/* EBUSY from a zram attribute is retried this many times, this long apart (about 1 s in all). */
#define ZRAM_BUSY_TRIES 20
#define ZRAM_BUSY_DELAY_USEC (50 * 1000)

/* What the kernel offers: comp_algorithm of the lowest-numbered existing zram device (reading it
 * changes nothing, whoever uses the device). When no device exists, one is hot_add'ed, read and
 * hot_removed again. -ENOENT when zram is not available. */
int zram_kernel_offers(const char *root, char ***ret_offered);

/* Find a zram device nobody uses: /sys/block/zram<N> with disksize 0, initstate 0, no holders,
 * no backing_dev, not in /proc/swaps and (on the host) not claimed exclusively by anyone; the
 * lowest such id. When there is none, read /sys/class/zram-control/hot_add for a new one.
 * Returns 0 when an existing device was taken, 1 when one was hot_add'ed (so the caller
 * hot_removes it on failure), -ENOENT when zram is not available (module not loaded). */
int zram_find_free(const char *root, int *ret_id);

/* Configure device id in the order the kernel needs: comp_algorithm, algorithm_params (only when
 * params is not NULL and the kernel has the attribute), mem_limit (only when > 0), disksize.
 * -EBUSY after the bounded retries above. */
int zram_setup(const char *root, int id, const char *algorithm, const char *algorithm_params,
               uint64_t mem_limit, uint64_t disksize);

/* The device a new nodeswap swap area goes on: a new one from /sys/class/zram-control/hot_add (1),
 * so nodeswap never takes a device it did not create and can always hot_remove what it made; on a
 * kernel without zram-control, a free existing device (0, from zram_find_free()). */
int zram_take_device(const char *root, int *ret_id);

/* What a device gets beyond algorithm, parameters, mem_limit and disksize, written in this order
 * before disksize, which the kernel needs (zram.rst): recomp_algorithm "algo=NAME priority=N" for
 * each of recompress (N = 1, 2, 3) with its algorithm_params "priority=N ..." where
 * recompress_params has them, then backing_dev. params_of, parallel to a preference list, gives
 * the parameters ("level=3", "" none) of the algorithm chosen from it. */
typedef struct ZramSetupExtra {
        char *const *recompress;
        char *const *recompress_params;
        const char *backing_dev;
        char *const *params_of;
} ZramSetupExtra;

/* Provision a zram swap device: zram_take_device(), zram_setup(), open /dev/zram<id> exclusively,
 * write a swap header for page_size labelled SWAP_LABEL, check it with swap_header_probe(), and
 * swap it on at priority (0..32767). On any failure everything done is undone (swapoff, reset, and
 * hot_remove when the device was hot_add'ed) and the first error is returned; a device that
 * someone else initialised meanwhile is never reset.
 *
 * Returns 0 with *ret_id set when the device is swapped on. Under a root other than "/" it
 * returns 1 with *ret_id set: the sysfs attributes were written into the fixture, the header was
 * written into <root>/dev/zram<id> when that file exists (a regular file in a fixture; skipped
 * when absent), and swapon was skipped. -EINVAL on bad arguments, before anything is touched.
 *
 * algorithm: the one to use; or NULL and preference: the first of preference that the device's
 * comp_algorithm offers (-ENOENT when none is), returned in *ret_algorithm (may be NULL). extra
 * may be NULL. */
int zram_provision(const char *root, const char *algorithm, char *const *preference, const char *algorithm_params,
                   const ZramSetupExtra *extra, uint64_t mem_limit, uint64_t disksize, int priority,
                   uint64_t page_size, int *ret_id, char **ret_algorithm);

/* swapoff (when the device is in /proc/swaps), then reset (EBUSY retried). The device stays, with
 * disksize 0. For a device nodeswap configured but did not create (one it found free). Returns 1
 * when a swapoff was needed but skipped under a foreign root, 0 otherwise; -ENODEV when the device
 * does not exist. */
int zram_reset(const char *root, int id);

/* zram_reset(), then hot_remove of id (EBUSY retried). Only for devices nodeswap created itself:
 * the caller checks that (its state records the ids); this function cannot tell. Returns as
 * zram_reset(). */
int zram_teardown(const char *root, int id);
