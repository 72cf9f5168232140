/* SPDX-License-Identifier: GPL-2.0-or-later */
/* plan/placement.c: where a swap file may live, its margin, and its resize bridge. Pure
 * functions: no fixture tree needed. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <limits.h>

#include "plan/placement.h"

#define ALL_BUT_SLOW (STORAGE_NVME | STORAGE_SSD | STORAGE_VIRTUAL)

/* ---- placement_check_fs: a pure decision ---- */

static void test_check_fs_table(void **state) {
        static const struct {
                const char *mount_point, *fstype, *device;
                StorageKind kind;
                bool read_only, multi, compressed;
                unsigned allowed;
                int want;
                const char *reason;     /* a part of the reason, when refused */
        } cases[] = {
                { "/",    "ext4",     "nvme0n1", STORAGE_NVME,    false, false, false, ALL_BUT_SLOW, 1, NULL },
                { "/var", "xfs",      "sda",     STORAGE_SSD,     false, false, false, ALL_BUT_SLOW, 1, NULL },
                { "/",    "btrfs",    "vda",     STORAGE_VIRTUAL, false, false, false, ALL_BUT_SLOW, 1, NULL },
                { "/",    "f2fs",     "nvme0n1", STORAGE_NVME,    false, false, false, ALL_BUT_SLOW, 1, NULL },
                { "/tmp", "tmpfs",    NULL,      0,               false, false, false, ALL_BUT_SLOW, 0,
                  "/tmp is on tmpfs, which cannot hold a swap file" },
                { "/x",   "ramfs",    NULL,      0,               false, false, false, ALL_BUT_SLOW, 0, "on ramfs" },
                { "/",    "overlay",  NULL,      0,               false, false, false, ALL_BUT_SLOW, 0, "on overlay" },
                { "/srv", "nfs4",     NULL,      0,               false, false, false, ALL_BUT_SLOW, 0, "network" },
                { "/srv", "nfs",      NULL,      0,               false, false, false, ALL_BUT_SLOW, 0, "network" },
                { "/srv", "cifs",     NULL,      0,               false, false, false, ALL_BUT_SLOW, 0, "network" },
                { "/srv", "smb3",     NULL,      0,               false, false, false, ALL_BUT_SLOW, 0, "network" },
                { "/m",   "fuse.sshfs", NULL,    0,               false, false, false, ALL_BUT_SLOW, 0, "FUSE" },
                { "/m",   "fuseblk",  "sdb",     STORAGE_SSD,     false, false, false, ALL_BUT_SLOW, 0, "FUSE" },
                { "/",    "squashfs", "mmcblk0", STORAGE_MMC,     false, false, false, ALL_BUT_SLOW, 0, "read-only image" },
                { "/proc", "proc",    NULL,      0,               false, false, false, ALL_BUT_SLOW, 0, "pseudo" },
                { "/sys", "sysfs",    NULL,      0,               false, false, false, ALL_BUT_SLOW, 0, "pseudo" },
                { "/tank", "zfs",     NULL,      0,               false, false, false, ALL_BUT_SLOW, 0, "ZFS" },
                { "/m",   "vfat",     "sdb",     STORAGE_SSD,     false, false, false, ALL_BUT_SLOW, 0,
                  "/m is on vfat, which cannot hold a swap file as far as nodeswap knows" },
                { "/",    "ext4",     "nvme0n1", STORAGE_NVME,    true,  false, false, ALL_BUT_SLOW, 0, "read-only" },
                { "/",    "btrfs",    "nvme0n1", STORAGE_NVME,    false, true,  false, ALL_BUT_SLOW, 0,
                  "btrfs file system over more than one device" },
                { "/",    "btrfs",    "nvme0n1", STORAGE_NVME,    false, false, true,  ALL_BUT_SLOW, 0, "compression" },
                /* compression is a btrfs matter only */
                { "/",    "ext4",     "nvme0n1", STORAGE_NVME,    false, false, true,  ALL_BUT_SLOW, 1, NULL },
                { "/",    "ext4",     "mmcblk0", STORAGE_MMC,     false, false, false, ALL_BUT_SLOW, 0,
                  "swap file on an SD card (mmcblk0) is refused unless [File] Storage= lists mmc: it wears the card" },
                { "/",    "ext4",     "mmcblk0", STORAGE_MMC,     false, false, false, ALL_BUT_SLOW | STORAGE_MMC, 1, NULL },
                { "/",    "ext4",     "sda",     STORAGE_ROTATIONAL, false, false, false, ALL_BUT_SLOW, 0,
                  "rotational disk (sda) is refused unless [File] Storage= lists rotational" },
                { "/",    "ext4",     "sda",     STORAGE_ROTATIONAL, false, false, false, STORAGE_ROTATIONAL, 1, NULL },
                { "/",    "ext4",     "vda",     STORAGE_VIRTUAL, false, false, false, STORAGE_NVME, 0,
                  "virtual disk (vda) is refused: [File] Storage= does not list virtual" },
                { "/",    "ext4",     NULL,      0,               false, false, false, ALL_BUT_SLOW, 0,
                  "cannot tell which disk is under /" },
        };

        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                FsInfo fs = {
                        .mount_point = (char *) cases[i].mount_point,
                        .fstype = (char *) cases[i].fstype,
                        .source = (char *) "/dev/x",
                        .device = (char *) cases[i].device,
                        .kind = cases[i].kind,
                        .read_only = cases[i].read_only,
                        .btrfs_multi_device = cases[i].multi,
                        .compressed = cases[i].compressed,
                };
                char *reason = NULL;
                int r = placement_check_fs(&fs, cases[i].allowed, &reason);
                if (r != cases[i].want)
                        fail_msg("case %zu (%s on %s): got %d (%s), want %d", i, cases[i].mount_point,
                                 cases[i].fstype, r, strempty(reason), cases[i].want);
                if (cases[i].want == 0) {
                        assert_non_null(reason);
                        if (!strstr(reason, cases[i].reason))
                                fail_msg("case %zu: reason '%s' lacks '%s'", i, reason, cases[i].reason);
                } else
                        assert_null(reason);
                free(reason);
        }
}

static void test_margin(void **state) {
        assert_int_equal(swapfile_margin(0), 16 * MiB);
        assert_int_equal(swapfile_margin(16 * GiB), 16 * MiB + 256 * MiB);
}

static void test_bridge(void **state) {
        char *b = swapfile_bridge_path("/var/lib/nodeswap/swapfile");
        assert_string_equal(b, "/var/lib/nodeswap/.#swapfile.bridge");
        free(b);
        b = swapfile_bridge_path("/swapfile");
        assert_string_equal(b, "/.#swapfile.bridge");
        free(b);
        assert_null(swapfile_bridge_path("relative"));
        assert_null(swapfile_bridge_path("/a/../b"));
        /* a name of NAME_MAX bytes is cut so that the bridge's name fits too */
        char longpath[1 + 255 + 1];
        longpath[0] = '/';
        memset(longpath + 1, 'x', 255);
        longpath[256] = 0;
        b = swapfile_bridge_path(longpath);
        assert_non_null(b);
        assert_int_equal(strlen(b), 1 + 255);
        assert_true(endswith(b, ".bridge"));
        free(b);

        /* used + 1/8 + 16 MiB, in whole pages */
        assert_int_equal(swapfile_bridge_size(0, 4096), 16 * MiB);
        assert_int_equal(swapfile_bridge_size(80 * MiB, 4096), 106 * MiB);
        assert_int_equal(swapfile_bridge_size(1, 16384), 16 * MiB + 16384);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_check_fs_table),
                cmocka_unit_test(test_margin),
                cmocka_unit_test(test_bridge),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
