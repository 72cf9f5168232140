/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dirent.h>
#include <fcntl.h>
#include <ftw.h>
#include <inttypes.h>
#include <sys/stat.h>

#include "execute/swapfile.h"
#include "probe/crypt.h"
#include "plan/placement.h"
#include "plan/plan.h"
#include "probe/blockdev.h"
#include "probe/meminfo.h"
#include "probe/mounts.h"
#include "probe/probe.h"
#include "probe/swap.h"
#include "probe/swapfile.h"
#include "execute/swapon.h"

/* The swap file modules that read and write a tree: probe/blockdev.c, probe/mounts.c,
 * probe/swapfile.c and execute/swapfile.c, under fixture roots in a temporary directory; and
 * whether an existing file is reused, as the product decides it: probe() and plan().
 * plan/placement.c, which is pure, has test-placement.c. */

#define ALL_BUT_SLOW (STORAGE_NVME | STORAGE_SSD | STORAGE_VIRTUAL)

/* ---- a fixture root built in a temporary directory ---- */

static char *tmpdir;

static void write_file(const char *rel, const char *content) {
        _cleanup_free_ char *p = path_join_root(tmpdir, rel);
        _cleanup_free_ char *dir = strdup(p);
        *strrchr(dir, '/') = 0;
        _cleanup_free_ char *cmd = strdup_printf("mkdir -p '%s'", dir);
        assert_int_equal(system(cmd), 0);
        FILE *f = fopen(p, "we");
        assert_non_null(f);
        fputs(content, f);
        assert_int_equal(fclose(f), 0);
}

static void symlink_at(const char *target, const char *rel) {
        _cleanup_free_ char *p = path_join_root(tmpdir, rel);
        _cleanup_free_ char *dir = strdup(p);
        *strrchr(dir, '/') = 0;
        _cleanup_free_ char *cmd = strdup_printf("mkdir -p '%s'", dir);
        assert_int_equal(system(cmd), 0);
        assert_int_equal(symlink(target, p), 0);
}

/* A block device in the fixture's sysfs: /sys/devices/<parent>/<name>, linked from
 * /sys/class/block/<name>. */
static void block_device(const char *parent, const char *name, int rotational, bool partition) {
        _cleanup_free_ char *dev = strdup_printf("/sys/devices/%s/%s", parent, name);
        _cleanup_free_ char *link = strdup_printf("/sys/class/block/%s", name);
        _cleanup_free_ char *target = strdup_printf("../../devices/%s/%s", parent, name);
        if (partition) {
                _cleanup_free_ char *p = strdup_printf("%s/partition", dev);
                write_file(p, "1\n");
        } else {
                _cleanup_free_ char *p = strdup_printf("%s/queue/rotational", dev);
                write_file(p, rotational ? "1\n" : "0\n");
        }
        symlink_at(target, link);
}

static int rm_one(const char *p, const struct stat *st, int flag, struct FTW *ftw) {
        return remove(p);
}

static int setup_tmpdir(void **state) {
        char t[] = "/tmp/test-swapfile.XXXXXX";
        assert_non_null(mkdtemp(t));
        tmpdir = strdup(t);
        return 0;
}

static int teardown_tmpdir(void **state) {
        nftw(tmpdir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
        free(tmpdir);
        tmpdir = NULL;
        return 0;
}

static void test_storage_of_device(void **state) {
        block_device("pci0000:00/0000:00:04.0/nvme/nvme0", "nvme0n1", 0, false);
        block_device("pci0000:00/0000:00:04.0/nvme/nvme0/nvme0n1", "nvme0n1p2", 0, true);
        block_device("platform/mmc/mmc0:aaaa/block", "mmcblk0", 0, false);
        block_device("platform/mmc/mmc0:aaaa/block/mmcblk0", "mmcblk0p2", 0, true);
        block_device("pci0000:00/ata1/host0/block", "sda", 1, false);
        block_device("pci0000:00/ata1/host0/block/sda", "sda1", 1, true);
        block_device("pci0000:00/ata2/host1/block", "sdb", 0, false);
        block_device("pci0000:00/0000:00:05.0/virtio1/host2/block", "sdc", 1, false);
        block_device("pci0000:00/0000:00:06.0/virtio2/block", "vda", 1, false);
        block_device("pci0000:00/0000:00:06.0/virtio2/block/vda", "vda1", 1, true);
        block_device("virtual/block", "loop3", 1, false);
        block_device("xen/vbd-51712/block", "xvda", 1, false);
        block_device("pci0000:00/0000:00:04.0/nvme/nvme0/nvme0n1", "nvme0n1p3", 0, true);
        block_device("virtual/block", "dm-0", 0, false);
        symlink_at("../../../../pci0000:00/0000:00:04.0/nvme/nvme0/nvme0n1/nvme0n1p3", "/sys/devices/virtual/block/dm-0/slaves/nvme0n1p3");

        static const struct {
                const char *name, *disk;
                StorageKind kind;
        } cases[] = {
                { "nvme0n1p2", "nvme0n1", STORAGE_NVME },
                { "nvme0n1",   "nvme0n1", STORAGE_NVME },
                { "mmcblk0p2", "mmcblk0", STORAGE_MMC },
                { "sda1",      "sda",     STORAGE_ROTATIONAL },
                { "sdb",       "sdb",     STORAGE_SSD },
                { "sdc",       "sdc",     STORAGE_VIRTUAL },    /* virtio-scsi, rotational or not */
                { "vda1",      "vda",     STORAGE_VIRTUAL },
                { "loop3",     "loop3",   STORAGE_VIRTUAL },
                { "xvda",      "xvda",    STORAGE_VIRTUAL },
                { "dm-0",      "nvme0n1", STORAGE_NVME },       /* LUKS on an NVMe partition */
        };
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                _cleanup_free_ char *disk = NULL;
                StorageKind kind = 0;
                int r = blockdev_storage(tmpdir, cases[i].name, &disk, &kind);
                if (r < 0)
                        fail_msg("%s: %s", cases[i].name, strerror(-r));
                assert_string_equal(disk, cases[i].disk);
                if (kind != cases[i].kind)
                        fail_msg("%s: kind %d, want %d", cases[i].name, kind, cases[i].kind);
        }
        assert_int_equal(blockdev_storage(tmpdir, "sdz", NULL, NULL), -ENOENT);
        assert_int_equal(blockdev_storage(tmpdir, "../x", NULL, NULL), -EINVAL);
}

static void test_inspect_fs(void **state) {
        block_device("pci0000:00/0000:00:04.0/nvme/nvme0", "nvme0n1", 0, false);
        block_device("pci0000:00/0000:00:04.0/nvme/nvme0/nvme0n1", "nvme0n1p2", 0, true);
        block_device("platform/mmc/mmc0:aaaa/block", "mmcblk0", 0, false);
        block_device("platform/mmc/mmc0:aaaa/block/mmcblk0", "mmcblk0p2", 0, true);
        block_device("pci0000:00/ata1/host0/block", "sda", 0, false);
        block_device("pci0000:00/ata2/host0/block", "sdb", 0, false);
        symlink_at("../../devices/platform/mmc/mmc0:aaaa/block/mmcblk0/mmcblk0p2", "/sys/dev/block/179:2");
        write_file("/sys/fs/btrfs/1234-5678/devices/sda", "");
        write_file("/sys/fs/btrfs/1234-5678/devices/sdb", "");
        write_file("/sys/fs/btrfs/features/x", "");
        write_file("/proc/self/mountinfo",
                   "20 1 179:2 / / rw,noatime - ext4 /dev/mmcblk0p2 rw\n"
                   "21 20 0:30 / /var rw,relatime - btrfs /dev/nvme0n1p2 rw,compress=zstd:3,space_cache=v2\n"
                   "22 20 0:31 / /var2 rw - btrfs /dev/sda rw\n"
                   "23 20 0:32 / /tmp rw,nosuid - tmpfs tmpfs rw,size=100k\n"
                   "24 23 0:33 / /tmp rw,nosuid - tmpfs other rw\n"
                   "25 20 0:34 / /ro ro,relatime - xfs /dev/nvme0n1p2 ro\n");

        FsInfo fs = {};
        assert_int_equal(mounts_inspect_path(tmpdir, "/var/lib/nodeswap/swapfile", &fs), 0);
        assert_string_equal(fs.mount_point, "/var");
        assert_string_equal(fs.fstype, "btrfs");
        assert_string_equal(fs.source, "/dev/nvme0n1p2");
        assert_string_equal(fs.device, "nvme0n1");
        assert_int_equal(fs.kind, STORAGE_NVME);
        assert_true(fs.compressed);
        assert_false(fs.btrfs_multi_device);
        assert_false(fs.read_only);
        assert_true(fs.free > 0);
        fs_info_done(&fs);

        /* /var2 is not below /var; btrfs on two devices */
        assert_int_equal(mounts_inspect_path(tmpdir, "/var2/swapfile", &fs), 0);
        assert_string_equal(fs.mount_point, "/var2");
        assert_true(fs.btrfs_multi_device);
        assert_false(fs.compressed);
        assert_int_equal(fs.kind, STORAGE_SSD);
        fs_info_done(&fs);

        /* the root file system on the SD card, found by device number */
        assert_int_equal(mounts_inspect_path(tmpdir, "/swapfile", &fs), 0);
        assert_string_equal(fs.mount_point, "/");
        assert_string_equal(fs.device, "mmcblk0");
        assert_int_equal(fs.kind, STORAGE_MMC);
        char *reason = NULL;
        assert_int_equal(placement_check_fs(&fs, ALL_BUT_SLOW, &reason), 0);
        assert_non_null(strstr(reason, "SD card (mmcblk0)"));
        free(reason);
        fs_info_done(&fs);

        /* stacked mounts: the one on top counts */
        assert_int_equal(mounts_inspect_path(tmpdir, "/tmp/swapfile", &fs), 0);
        assert_string_equal(fs.source, "other");
        assert_null(fs.device);
        assert_int_equal(fs.kind, 0);
        fs_info_done(&fs);

        assert_int_equal(mounts_inspect_path(tmpdir, "/ro/swapfile", &fs), 0);
        assert_true(fs.read_only);
        fs_info_done(&fs);

        /* "/" itself is fine: the nearest existing directory of a swap file may be the root. */
        static const char *const bad_paths[] = { "swapfile", "/var/../swapfile", "/var/./x", "/var//x", "/var/x/", "" };
        for (size_t i = 0; i < ELEMENTSOF(bad_paths); i++)
                assert_int_equal(mounts_inspect_path(tmpdir, bad_paths[i], &fs), -EINVAL);
}

/* ---- create, reuse, rewrite, remove under a fixture root (swapon skipped) ---- */

/* The fixture root: / is ext4 on a virtio disk, so a swap file may be created there. */
static void virtual_root(void) {
        assert_int_equal(chmod(tmpdir, 0700), 0);
        block_device("pci0000:00/0000:00:06.0/virtio2/block", "vda", 1, false);
        block_device("pci0000:00/0000:00:06.0/virtio2/block/vda", "vda1", 1, true);
        symlink_at("../../devices/pci0000:00/0000:00:06.0/virtio2/block/vda/vda1", "/sys/dev/block/253:1");
        write_file("/proc/self/mountinfo", "20 1 253:1 / / rw,relatime - ext4 /dev/vda1 rw\n");
        write_file("/proc/swaps", "Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n");
}

static char *host(const char *rel) {
        return path_join_root(tmpdir, rel);
}

/* A file with a swap header made for page_size, as a kernel with that page size would want it. */
static void make_swap_file(const char *rel, uint64_t size, uint64_t page_size, mode_t mode, bool holes) {
        _cleanup_free_ char *p = host(rel);
        _cleanup_close_ int fd = open(p, O_CREAT | O_EXCL | O_RDWR | O_CLOEXEC, mode);
        assert_true(fd >= 0);
        assert_int_equal(fchmod(fd, mode), 0);
        if (holes)
                assert_int_equal(ftruncate(fd, (off_t) size), 0);
        else
                assert_int_equal(fallocate(fd, 0, 0, (off_t) size), 0);
        assert_int_equal(swap_header_write(fd, size, page_size, SWAP_LABEL), 0);
}

static bool exists(const char *rel) {
        _cleanup_free_ char *p = host(rel);
        struct stat st;
        return lstat(p, &st) >= 0;
}

static int entries_in(const char *rel) {
        _cleanup_free_ char *p = host(rel);
        int n = 0;
        DIR *d = opendir(p);
        assert_non_null(d);
        for (struct dirent *de; (de = readdir(d));)
                if (!streq(de->d_name, ".") && !streq(de->d_name, ".."))
                        n++;
        closedir(d);
        return n;
}

#define SZ (16 * MiB)

/* [File] Encrypt= of the policies load_policy() writes: no for the plain files most tests make. */
static bool policy_encrypt;

/* Load a policy that wants a swap file of size bytes at path, on virtual storage. */
static int load_policy(const char *path, uint64_t size, Policy *ret) {
        PolicyContext ctx;
        PolicyErrors errors = {};
        assert_int_equal(probe_context(tmpdir, &ctx), 0);
        _cleanup_free_ char *text = strdup_printf("[Swap]\nBackend=file\n[File]\nPath=%s\nSize=%" PRIu64 "K\n"
                                                  "Storage=virtual\nEncrypt=%s\n", path, size / KiB,
                                                  policy_encrypt ? "yes" : "no");
        assert_non_null(text);
        int r = policy_load_text("policy.conf", text, strlen(text), &ctx, ret, &errors);
        policy_errors_clear(&errors);
        return r;
}

/* What the product makes of the file at path: probe() and plan() under the fixture root, for a
 * policy that wants a swap file of size bytes there, on a kernel with page_size, as `nodeswap
 * plan` does. NULL when the plan swaps the file on as it is (it is reused); otherwise "ID: message"
 * of the plan's first error, or "KIND: reason" of its first action on path other than swapon. */
static char *judged(const char *path, uint64_t size, uint64_t page_size) {
        write_file("/proc/meminfo", "MemTotal:        4096000 kB\nMemAvailable:    2048000 kB\n"
                                    "SwapTotal:             0 kB\nSwapFree:              0 kB\n");
        _cleanup_free_ char *smaps = strdup_printf("KernelPageSize:       %" PRIu64 " kB\n", page_size / KiB);
        write_file("/proc/self/smaps", smaps);

        Policy policy = {};
        HostState h = {};
        Plan pl = {};
        assert_int_equal(load_policy(path, size, &policy), 0);
        assert_int_equal(probe(tmpdir, &policy, &h), 0);
        assert_int_equal(h.page_size, page_size);
        assert_int_equal(plan(&policy, &h, &(PlanOptions) {}, &pl), 0);

        char *out = NULL;
        for (size_t i = 0; !out && i < pl.findings.n; i++)
                if (pl.findings.f[i].severity == SEVERITY_ERROR)
                        out = strdup_printf("%s: %s", pl.findings.f[i].id, pl.findings.f[i].message);
        for (size_t i = 0; !out && i < pl.n_actions; i++)
                if (streq_ptr(pl.actions[i].target, path) && pl.actions[i].kind != ACTION_SWAPON)
                        out = strdup_printf("%s: %s", action_kind_to_string(pl.actions[i].kind),
                                            strempty(pl.actions[i].reason));
        plan_done(&pl);
        host_state_done(&h);
        policy_done(&policy);
        return out;
}

/* judged() says path is reused. */
static void assert_reused(const char *path, uint64_t size, uint64_t page_size) {
        _cleanup_free_ char *why = judged(path, size, page_size);
        if (why)
                fail_msg("%s: not reused: %s", path, why);
}

static void skip_unless_root(void) {
        if (geteuid() != 0) {
                print_message("needs root: swap files must be owned by root\n");
                skip();
        }
}

static void test_create_then_reuse(void **state) {
        skip_unless_root();
        virtual_root();
        char *reason = NULL;

        assert_int_equal(swapfile_create(tmpdir, "/var/lib/nodeswap/swapfile", SZ, 4096, 10, 0, STORAGE_VIRTUAL, &reason),
                         SWAPFILE_SWAPON_SKIPPED);
        assert_null(reason);
        _cleanup_free_ char *p = host("/var/lib/nodeswap/swapfile"), *d = host("/var/lib/nodeswap");
        struct stat st;
        assert_int_equal(lstat(p, &st), 0);
        assert_true(S_ISREG(st.st_mode));
        assert_int_equal(st.st_mode & 07777, 0600);
        assert_int_equal(st.st_uid, 0);
        assert_int_equal(st.st_size, SZ);
        assert_true((uint64_t) st.st_blocks * 512 >= SZ);
        assert_int_equal(lstat(d, &st), 0);
        assert_int_equal(st.st_mode & 07777, 0700);
        assert_int_equal(entries_in("/var/lib/nodeswap"), 1);      /* no temporary file left */

        assert_reused("/var/lib/nodeswap/swapfile", SZ, 4096);

        /* a second create replaces nothing */
        assert_int_equal(swapfile_create(tmpdir, "/var/lib/nodeswap/swapfile", SZ, 4096, 10, 0, STORAGE_VIRTUAL, &reason),
                         -EEXIST);
        assert_non_null(strstr(reason, "already exists"));
        free(reason);
        reason = NULL;

        /* storage not allowed: refused before anything is written */
        assert_int_equal(swapfile_create(tmpdir, "/other/swapfile", SZ, 4096, 10, 0, STORAGE_NVME, &reason), -EMEDIUMTYPE);
        assert_non_null(strstr(reason, "virtual disk (vda)"));
        assert_false(exists("/other"));
        free(reason);
        reason = NULL;

        /* not enough room: refused before anything is written, not even a directory */
        assert_int_equal(swapfile_create(tmpdir, "/big/swapfile", 1024 * TiB, 4096, 10, 0, STORAGE_VIRTUAL, &reason), -ENOSPC);
        assert_non_null(strstr(reason, "not enough room on /"));
        assert_false(exists("/big"));
        free(reason);
        reason = NULL;

        /* bad arguments */
        assert_int_equal(swapfile_create(tmpdir, "/x", SZ, 4096, 40000, 0, STORAGE_VIRTUAL, &reason), -EINVAL);
        free(reason);
        reason = NULL;
        assert_int_equal(swapfile_create(tmpdir, "/x", 4096 * 9, 4096, 1, 0, STORAGE_VIRTUAL, &reason), -EINVAL);
        free(reason);
        reason = NULL;
        assert_int_equal(swapfile_create(tmpdir, "/x", SZ, 3000, 1, 0, STORAGE_VIRTUAL, NULL), -EINVAL);
}

static void test_create_refuses_symlinks_and_unsafe_parents(void **state) {
        skip_unless_root();
        virtual_root();
        char *reason = NULL;

        write_file("/victim", "precious");
        symlink_at("../victim", "/swap/link");
        _cleanup_free_ char *swapdir = host("/swap");
        assert_int_equal(chmod(swapdir, 0700), 0);
        assert_int_equal(swapfile_create(tmpdir, "/swap/link", SZ, 4096, 10, 0, STORAGE_VIRTUAL, &reason), -ELOOP);
        assert_non_null(strstr(reason, "/swap/link is a symlink"));
        free(reason);
        reason = NULL;
        _cleanup_free_ char *victim = host("/victim");
        struct stat st;
        assert_int_equal(stat(victim, &st), 0);
        assert_int_equal(st.st_size, 8);
        assert_int_equal(entries_in("/swap"), 1);

        /* a symlink among the parents */
        symlink_at("swap", "/linkdir");
        assert_int_equal(swapfile_create(tmpdir, "/linkdir/swapfile", SZ, 4096, 10, 0, STORAGE_VIRTUAL, &reason), -ELOOP);
        assert_non_null(strstr(reason, "/linkdir is a symlink"));
        free(reason);
        reason = NULL;
        assert_int_equal(entries_in("/swap"), 1);

        /* a parent anyone may write to */
        write_file("/open/.keep", "");
        _cleanup_free_ char *open_dir = host("/open");
        assert_int_equal(chmod(open_dir, 0777), 0);
        assert_int_equal(swapfile_create(tmpdir, "/open/swapfile", SZ, 4096, 10, 0, STORAGE_VIRTUAL, &reason), -EPERM);
        assert_non_null(strstr(reason, "/open is writable by group or others (mode 0777)"));
        free(reason);
        reason = NULL;
        assert_int_equal(entries_in("/open"), 1);
}

static void test_reuse_problems(void **state) {
        skip_unless_root();
        virtual_root();
        write_file("/s/.keep", "");
        _cleanup_free_ char *s = host("/s");
        assert_int_equal(chmod(s, 0700), 0);

        make_swap_file("/s/good", SZ, 4096, 0600, false);
        make_swap_file("/s/mode", SZ, 4096, 0644, false);
        make_swap_file("/s/small", SZ / 2, 4096, 0600, false);
        make_swap_file("/s/pages4k", SZ, 4096, 0600, false);
        make_swap_file("/s/pages16k", SZ, 16384, 0600, false);
        make_swap_file("/s/holes", SZ, 4096, 0600, true);
        write_file("/s/plain", "");
        _cleanup_free_ char *plain = host("/s/plain");
        assert_int_equal(chmod(plain, 0600), 0);
        assert_int_equal(truncate(plain, SZ), 0);
        symlink_at("good", "/s/link");
        _cleanup_free_ char *owned = host("/s/owned");
        make_swap_file("/s/owned", SZ, 4096, 0600, false);
        assert_int_equal(chown(owned, 1000, 1000), 0);
        write_file("/s/dir/.keep", "");
        /* a header with another label, and one that covers half the file: rewritten in place */
        make_swap_file("/s/label", SZ, 4096, 0600, false);
        make_swap_file("/s/half", SZ, 4096, 0600, false);
        {
                _cleanup_free_ char *label = host("/s/label"), *half = host("/s/half");
                _cleanup_close_ int fd = open(label, O_RDWR | O_CLOEXEC);
                _cleanup_close_ int fd2 = open(half, O_RDWR | O_CLOEXEC);
                assert_true(fd >= 0 && fd2 >= 0);
                assert_int_equal(swap_header_write(fd, SZ, 4096, "other"), 0);
                assert_int_equal(swap_header_write(fd2, SZ / 2, 4096, SWAP_LABEL), 0);
        }

        /* what plan() does with each: NULL reuses it (a swapon) */
        static const struct {
                const char *path;
                uint64_t size, page_size;
                const char *problem;
        } cases[] = {
                { "/s/good",      SZ,     4096,  NULL },
                { "/s/mode",      SZ,     4096,  "swapfile-permissions: /s/mode: owned by uid 0 with mode 0644" },
                { "/s/small",     SZ,     4096,  "file-remove: size changed" },
                { "/s/good",      SZ * 2, 4096,  "file-remove: size changed" },
                { "/s/pages4k",   SZ,     16384, "file-mkswap: /s/pages4k: header made for 4096-byte pages, kernel uses 16384" },
                { "/s/pages16k",  SZ,     4096,  "file-mkswap: /s/pages16k: header made for 16384-byte pages, kernel uses 4096" },
                { "/s/pages16k",  SZ,     16384, NULL },
                { "/s/holes",     SZ,     4096,  "file-remove: the kernel would refuse it for swap: /s/holes has holes" },
                { "/s/label",     SZ,     4096,  "file-mkswap: /s/label: swap label is 'other', not 'nodeswap': rewritten in place" },
                { "/s/half",      SZ,     4096,  "file-mkswap: /s/half: the swap header covers 8.0 MiB, the file is 16.0 MiB" },
                { "/s/plain",     SZ,     4096,  "swapfile-not-swap: /s/plain carries no swap signature" },
                { "/s/link",      SZ,     4096,  "swapfile-not-regular: /s/link: exists and is not a regular file" },
                { "/s/owned",     SZ,     4096,  "swapfile-permissions: /s/owned: owned by uid 1000" },
                { "/s/dir",       SZ,     4096,  "swapfile-not-regular: /s/dir: exists and is not a regular file" },
                { "/s/missing",   SZ,     4096,  "file-create: no swap file yet" },
                { "/nodir/missing", SZ,   4096,  "file-create: no swap file yet" },
        };
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                _cleanup_free_ char *problem = judged(cases[i].path, cases[i].size, cases[i].page_size);
                if (!cases[i].problem && problem)
                        fail_msg("%s: not reused: %s", cases[i].path, problem);
                if (cases[i].problem && (!problem || !startswith(problem, cases[i].problem)))
                        fail_msg("%s: got '%s', want '%s...'", cases[i].path, strempty(problem), cases[i].problem);
        }

        /* what apply's file-mkswap does to them makes them reusable */
        assert_int_equal(swapfile_rewrite_header(tmpdir, "/s/label", 4096), 1);
        assert_reused("/s/label", SZ, 4096);
        assert_int_equal(swapfile_rewrite_header(tmpdir, "/s/half", 4096), 1);
        assert_reused("/s/half", SZ, 4096);

        /* a relative path is no policy */
        Policy policy = {};
        assert_int_equal(load_policy("relative", SZ, &policy), -EINVAL);
        policy_done(&policy);

        /* a parent others may write to makes even a good file unusable */
        assert_int_equal(chmod(s, 0757), 0);
        _cleanup_free_ char *problem = judged("/s/good", SZ, 4096);
        assert_non_null(problem);
        if (!startswith(problem, "swapfile-unsafe-path: /s is writable by group or others"))
                fail_msg("got '%s'", problem);
        assert_int_equal(chmod(s, 0700), 0);
}

static void test_rewrite_header(void **state) {
        skip_unless_root();
        virtual_root();
        write_file("/s/.keep", "");
        make_swap_file("/s/swapfile", SZ, 16384, 0600, false);
        write_file("/s/plain", "not swap");

        _cleanup_free_ char *before = judged("/s/swapfile", SZ, 4096);
        assert_non_null(before);
        assert_true(startswith(before, "file-mkswap: "));
        assert_int_equal(swapfile_rewrite_header(tmpdir, "/s/swapfile", 4096), 1);
        assert_reused("/s/swapfile", SZ, 4096);
        assert_int_equal(swapfile_rewrite_header(tmpdir, "/s/swapfile", 4096), 0);    /* nothing to do */

        assert_int_equal(swapfile_rewrite_header(tmpdir, "/s/plain", 4096), -EMEDIUMTYPE);
        assert_int_equal(swapfile_rewrite_header(tmpdir, "/s/none", 4096), -ENOENT);

        /* listed in /proc/swaps: busy */
        write_file("/proc/swaps", "Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n"
                                  "/s/swapfile                             file\t\t16380\t\t1024\t\t10\n");
        int prio = 0;
        uint64_t used = 0;
        assert_int_equal(swapfile_is_active(tmpdir, "/s/swapfile", &prio, &used), 1);
        assert_int_equal(prio, 10);
        assert_int_equal(used, 1024 * KiB);
        assert_int_equal(swapfile_is_active(tmpdir, "/s/other", NULL, NULL), 0);
        assert_int_equal(swapfile_rewrite_header(tmpdir, "/s/swapfile", 16384), -EBUSY);
}

static void test_remove(void **state) {
        skip_unless_root();
        virtual_root();
        write_file("/s/plain", "not swap");
        make_swap_file("/s/swapfile", SZ, 4096, 0600, false);
        symlink_at("swapfile", "/s/link");

        assert_int_equal(swapfile_remove(tmpdir, "/s/plain", false), -EMEDIUMTYPE);
        assert_true(exists("/s/plain"));
        assert_int_equal(swapfile_remove(tmpdir, "/s/link", false), -ELOOP);
        assert_true(exists("/s/swapfile"));
        assert_int_equal(swapfile_remove(tmpdir, "/s/swapfile", false), 1);
        assert_false(exists("/s/swapfile"));
        assert_int_equal(swapfile_remove(tmpdir, "/s/swapfile", false), 0);
        assert_int_equal(swapfile_remove(tmpdir, "/nothing/swapfile", false), 0);
}

/* The steps of a bridged resize as plan() lays them out, run under a foreign root (no swapon):
 * bridge made, old file deleted, new file made, bridge deleted. No temporary name remains. */
static void test_resize_steps(void **state) {
        skip_unless_root();
        virtual_root();
        char *reason = NULL;

        assert_int_equal(swapfile_create(tmpdir, "/swapfile", SZ, 4096, 10, 0, STORAGE_VIRTUAL, NULL), SWAPFILE_SWAPON_SKIPPED);
        _cleanup_free_ char *bridge = swapfile_bridge_path("/swapfile");
        assert_non_null(bridge);
        assert_int_equal(swapfile_create(tmpdir, bridge, swapfile_bridge_size(0, 4096), 4096, 10, 0, STORAGE_VIRTUAL, &reason),
                         SWAPFILE_SWAPON_SKIPPED);
        assert_null(reason);
        /* (no policy names a bridge: probe's reading of it, which plan() would judge) */
        SwapFileState b = {};
        assert_int_equal(swapfile_probe(tmpdir, bridge, 4096, &b), 1);
        assert_true(b.checked && b.has_header && b.mode == 0600 && b.uid == 0);
        assert_int_equal(b.size, swapfile_bridge_size(0, 4096));
        assert_null(b.path_problem);
        assert_null(b.allocation_problem);
        assert_null(b.nocow_problem);
        assert_null(b.header_problem);
        assert_string_equal(b.label, SWAP_LABEL);
        free(b.label);
        free(b.fstype);
        free(b.fs_mount_point);
        free(b.storage_device);
        /* a second bridge at the same name is refused, as any file in the way */
        assert_int_equal(swapfile_create(tmpdir, bridge, SZ, 4096, 10, 0, STORAGE_VIRTUAL, &reason), -EEXIST);
        free(reason);
        reason = NULL;
        assert_int_equal(swapfile_remove(tmpdir, "/swapfile", false), 1);
        assert_int_equal(swapfile_create(tmpdir, "/swapfile", 2 * SZ, 4096, 10, 0, STORAGE_VIRTUAL, &reason),
                         SWAPFILE_SWAPON_SKIPPED);
        assert_null(reason);
        assert_int_equal(swapfile_remove_labelled(tmpdir, bridge, false), 1);
        assert_reused("/swapfile", 2 * SZ, 4096);
        assert_int_equal(entries_in("/"), 3);   /* proc, sys, swapfile: no bridge or temporary left */
}

/* [File] Encrypt=yes: the marker page and every block written, no swap signature on the file; plan
 * reuses it as it is (only the swapon through its mapping, which needs the host's kernel) and
 * makes it anew under Encrypt=no; the removal takes it, and overwrites a plain file when asked. */
static void test_encrypted(void **state) {
        skip_unless_root();
        virtual_root();
        char *reason = NULL;
        const char *path = "/var/lib/nodeswap/swapfile";

        assert_int_equal(swapfile_create_encrypted(tmpdir, path, SZ + 1024, 4096, 10, 0, STORAGE_VIRTUAL, &reason),
                         -EINVAL);
        assert_non_null(strstr(reason, "4096-byte sectors"));
        free(reason);
        reason = NULL;
        assert_int_equal(swapfile_create_encrypted(tmpdir, path, SZ, 4096, 10, 0, STORAGE_VIRTUAL, &reason),
                         SWAPFILE_SWAPON_SKIPPED);
        assert_null(reason);
        _cleanup_free_ char *p = host(path);
        struct stat st;
        assert_int_equal(lstat(p, &st), 0);
        assert_int_equal(st.st_mode & 07777, 0600);
        assert_int_equal(st.st_size, SZ);
        assert_true((uint64_t) st.st_blocks * 512 >= SZ);
        int fd = open(p, O_RDONLY | O_CLOEXEC);
        assert_true(fd >= 0);
        char head[CRYPT_DATA_OFFSET];
        assert_int_equal(pread(fd, head, sizeof head, 0), sizeof head);
        assert_memory_equal(head, CRYPT_MARKER_MAGIC, CRYPT_MARKER_SIZE);
        assert_non_null(strstr(head, "aes-xts-plain64, 512-bit key"));
        SwapHeaderInfo info;
        assert_int_equal(swap_header_probe(fd, &info), 0);         /* nothing swapon(2) would take */
        /* written, not only allocated: the first block after the marker reads as zeros */
        assert_int_equal(pread(fd, head, sizeof head, CRYPT_DATA_OFFSET), sizeof head);
        for (size_t i = 0; i < sizeof head; i++)
                assert_int_equal(head[i], 0);
        close(fd);

        policy_encrypt = true;
        assert_reused(path, SZ, 4096);
        policy_encrypt = false;
        _cleanup_free_ char *why = judged(path, SZ, 4096);
        assert_string_equal(why, "file-remove: [File] Encrypt=no and the file is encrypted");

        assert_int_equal(swapfile_remove_labelled(tmpdir, path, true), 1);
        assert_false(exists(path));

        /* the mappings' names: the path escaped as for a unit, '#' for "\x" (dmsetup reads "\x2d"
         * as a mangled '-') */
        _cleanup_free_ char *n1 = NULL, *n2 = NULL, *n3 = NULL;
        assert_int_equal(crypt_swap_name("/var/lib/nodeswap/swapfile", &n1), 0);
        assert_string_equal(n1, "nodeswap-var-lib-nodeswap-swapfile");
        assert_int_equal(crypt_swap_name("/var/lib/nodeswap/.#swapfile.bridge", &n2), 0);
        assert_string_equal(n2, "nodeswap-var-lib-nodeswap-.#23swapfile.bridge");
        assert_int_equal(crypt_swap_name("/srv/crypt-swap file", &n3), 0);
        assert_string_equal(n3, "nodeswap-srv-crypt#2dswap#20file");

        /* a plain file removed with overwrite: its blocks are zeros before the unlink (seen
         * through a second link to the same inode) */
        assert_int_equal(swapfile_create(tmpdir, path, SZ, 4096, 10, 0, STORAGE_VIRTUAL, NULL), SWAPFILE_SWAPON_SKIPPED);
        _cleanup_free_ char *keep = host("/var/lib/nodeswap/keep");
        assert_int_equal(link(p, keep), 0);
        assert_int_equal(swapfile_remove(tmpdir, path, true), 1);
        fd = open(keep, O_RDONLY | O_CLOEXEC);
        assert_true(fd >= 0);
        assert_int_equal(swap_header_probe(fd, &info), 0);         /* the header went too */
        char buf[65536];
        for (off_t off = 0; off < (off_t) SZ; off += (off_t) sizeof buf) {
                assert_int_equal(pread(fd, buf, sizeof buf, off), sizeof buf);
                for (size_t i = 0; i < sizeof buf; i++)
                        if (buf[i])
                                fail_msg("byte %jd is not zero", (intmax_t) (off + (off_t) i));
        }
        close(fd);
        assert_int_equal(unlink(keep), 0);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_setup_teardown(test_storage_of_device, setup_tmpdir, teardown_tmpdir),
                cmocka_unit_test_setup_teardown(test_inspect_fs, setup_tmpdir, teardown_tmpdir),
                cmocka_unit_test_setup_teardown(test_create_then_reuse, setup_tmpdir, teardown_tmpdir),
                cmocka_unit_test_setup_teardown(test_create_refuses_symlinks_and_unsafe_parents, setup_tmpdir, teardown_tmpdir),
                cmocka_unit_test_setup_teardown(test_reuse_problems, setup_tmpdir, teardown_tmpdir),
                cmocka_unit_test_setup_teardown(test_rewrite_header, setup_tmpdir, teardown_tmpdir),
                cmocka_unit_test_setup_teardown(test_remove, setup_tmpdir, teardown_tmpdir),
                cmocka_unit_test_setup_teardown(test_resize_steps, setup_tmpdir, teardown_tmpdir),
                cmocka_unit_test_setup_teardown(test_encrypted, setup_tmpdir, teardown_tmpdir),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
