/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "probe/iolatency.h"

#include <inttypes.h>
#include <sys/stat.h>

#include "probe/blockdev.h"
#include "probe/mounts.h"

static int disk_of_path(const char *root, const char *path, unsigned depth, char **ret_disk);

/* blockdev_storage() looks through partitions and device-mapper; a loop device it leaves as the
 * disk: its backing file is where its I/O goes. */
static int disk_of_device(const char *root, const char *name, unsigned depth, char **ret_disk) {
        _cleanup_free_ char *disk = NULL;
        if (depth >= IO_DISK_DEPTH)
                return -ELOOP;
        int r = blockdev_storage(root, name, &disk, NULL);
        if (r < 0)
                return r;
        if (!startswith(disk, "loop")) {
                *ret_disk = TAKE_PTR(disk);
                return 0;
        }
        _cleanup_free_ char *rel = strdup_printf("/sys/block/%s/loop/backing_file", disk);
        _cleanup_free_ char *p = rel ? path_join_root(root, rel) : NULL;
        _cleanup_free_ char *file = NULL;
        if (!p)
                return -ENOMEM;
        r = read_one_line(p, &file);
        if (r < 0)
                return r == -ENOENT ? -ENOENT : r;      /* a loop device without a file */
        /* A file deleted since still holds its blocks where it was: its path's mount still says where. */
        char *del = strstr(file, " (deleted)");
        if (del)
                *del = 0;
        if (file[0] != '/')
                return -ENOENT;
        return disk_of_path(root, file, depth + 1, ret_disk);
}

static int disk_of_path(const char *root, const char *path, unsigned depth, char **ret_disk) {
        _cleanup_(fs_info_done) FsInfo fs = {};
        int r = mounts_inspect_path(root, path, &fs);
        if (r < 0)
                return r;
        /* tmpfs, nfs: no block device under it */
        if (!fs.source || !startswith(fs.source, "/dev/"))
                return -ENOENT;
        const char *name = strrchr(fs.source, '/') + 1;
        return disk_of_device(root, name, depth, ret_disk);
}

/* The whole disk (kernel name, "vda") under a block device name ("dm-3", "vda1", "loop7") or under
 * a path of a file (which need not exist: its mount decides). -ENOENT when there is no disk (tmpfs,
 * a loop device without a backing file), -ELOOP past IO_DISK_DEPTH steps. */
static int io_disk_of_device(const char *root, const char *name, char **ret_disk) {
        return disk_of_device(root, name, 0, ret_disk);
}

static int io_disk_of_path(const char *root, const char *path, char **ret_disk) {
        return disk_of_path(root, path, 0, ret_disk);
}

int io_latency_parse(const char *text, unsigned major, unsigned minor, uint64_t *ret_usec) {
        /* blk-iolatency.c, iolatency_prfill_limit(): "MAJ:MIN target=USEC" per device with a target */
        for (const char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
                unsigned ma, mi;
                uint64_t t;
                if (sscanf(l, "%u:%u", &ma, &mi) != 2 || ma != major || mi != minor)
                        continue;
                if (sscanf(l, "%*u:%*u target=%" SCNu64, &t) != 1)
                        return -EINVAL;
                *ret_usec = t;
                return 0;
        }
        *ret_usec = 0;
        return 0;
}

static int disk_number(const char *root, const char *disk, unsigned *ret_major, unsigned *ret_minor) {
        static const char *const dirs[] = { "/sys/class/block", "/sys/block" };
        for (size_t i = 0; i < ELEMENTSOF(dirs); i++) {
                _cleanup_free_ char *rel = strdup_printf("%s/%s/dev", dirs[i], disk);
                _cleanup_free_ char *p = rel ? path_join_root(root, rel) : NULL;
                _cleanup_free_ char *v = NULL;
                if (!p)
                        return -ENOMEM;
                int r = read_one_line(p, &v);
                if (r == -ENOENT)
                        continue;
                if (r < 0)
                        return r;
                char end;
                if (sscanf(v, "%u:%u%c", ret_major, ret_minor, &end) != 2)
                        return -EINVAL;
                return 0;
        }
        return -ENOENT;
}

/* Adds the disk under one swap source to *disks; a source without a disk adds nothing. */
static int add_disk(char ***disks, int r, char *disk) {
        if (r == -ENOMEM) {
                free(disk);
                return r;
        }
        if (r >= 0 && disk && !strv_contains(*disks, disk))
                r = strv_extend(disks, disk);
        free(disk);
        return r == -ENOMEM ? r : 0;
}

static const char *dev_name(const char *path) {
        return startswith(path, "/dev/") && !strchr(path + strlen("/dev/"), '/') ? path + strlen("/dev/") : NULL;
}

static int swap_disks(const char *root, const Policy *p, const HostState *h, char ***disks) {
        char *d = NULL;
        int r = 0, k;
        if (p->backend_set && (p->backends & BACKEND_FILE) && p->file.path) {
                k = io_disk_of_path(root, p->file.path, &d);
                r = add_disk(disks, k, d);
        }
        if (r >= 0 && p->backend_set && (p->backends & BACKEND_ZRAM) && p->zram.writeback) {
                const char *name = dev_name(p->zram.writeback);
                d = NULL;
                k = policy_writeback_is_file(p) ? io_disk_of_path(root, p->zram.writeback, &d)
                    : name                      ? io_disk_of_device(root, name, &d)
                                                : -ENOENT;
                r = add_disk(disks, k, d);
        }
        for (size_t i = 0; r >= 0 && i < h->n_swaps; i++) {
                const SwapDevice *s = &h->swaps[i];
                const char *name = dev_name(s->encrypted && s->mapping ? s->mapping : s->path);
                if (s->kind == SWAP_KIND_ZRAM)
                        continue;
                d = NULL;
                /* an encrypted file through its mapping: dm-crypt, then its loop device, then the file */
                k = s->kind == SWAP_KIND_FILE && !s->encrypted ? io_disk_of_path(root, s->path, &d)
                    : name                                     ? io_disk_of_device(root, name, &d)
                                                               : -ENOENT;
                r = add_disk(disks, k, d);
        }
        return r;
}

/* Whether the kernel has io.latency at all. blk-iolatency is a separate option of the kernel's
 * (CONFIG_BLK_CGROUP_IOLATENCY, block/Makefile), which Debian 12's kernels, 6.1 and 6.12 alike,
 * leave unset (their /boot/config-*: "# CONFIG_BLK_CGROUP_IOLATENCY is not set"); without it systemd
 * takes IODeviceLatencyTargetUSec= and writes nothing. The file is io.latency in every cgroup but the
 * root where the io controller is enabled (the cftype is CFTYPE_NOT_ON_ROOT), so a cgroup below the
 * root with "io" in its cgroup.controllers tells; without one, the running kernel's config in /boot
 * does; otherwise it is not known. */
static int kernel_has_io_latency(const char *root, const HostState *h, char **ret_from) {
        static const char *const cgroups[] = { "/sys/fs/cgroup/" IO_LATENCY_SLICE, "/sys/fs/cgroup/kubepods.slice",
                                               "/sys/fs/cgroup/init.scope", "/sys/fs/cgroup/user.slice" };
        for (size_t i = 0; i < ELEMENTSOF(cgroups); i++) {
                _cleanup_free_ char *rel = strdup_printf("%s/cgroup.controllers", cgroups[i]);
                _cleanup_free_ char *c = rel ? path_join_root(root, rel) : NULL;
                _cleanup_free_ char *v = NULL;
                if (!c)
                        return -ENOMEM;
                if (read_one_line(c, &v) < 0)
                        continue;
                bool io = false;
                for (char *save = NULL, *w = strtok_r(v, " \n", &save); w; w = strtok_r(NULL, " \n", &save))
                        io = io || streq(w, "io");
                if (!io)
                        continue;
                _cleanup_free_ char *lrel = strdup_printf("%s/io.latency", cgroups[i]);
                _cleanup_free_ char *l = lrel ? path_join_root(root, lrel) : NULL;
                if (!l)
                        return -ENOMEM;
                struct stat st;
                if (!(*ret_from = strdup_printf("%s/io.latency", cgroups[i])))
                        return -ENOMEM;
                return lstat(l, &st) == 0;
        }
        if (!h->kernel_release)
                return -1;
        _cleanup_free_ char *rel = strdup_printf("/boot/config-%s", h->kernel_release);
        _cleanup_free_ char *cfg = rel ? path_join_root(root, rel) : NULL;
        _cleanup_free_ char *text = NULL;
        if (!cfg)
                return -ENOMEM;
        int r = read_full_file(cfg, 4 * 1024 * 1024, &text);
        if (r == -ENOMEM)
                return r;
        if (r < 0)
                return -1;
        int has = -1;
        for (char *save = NULL, *l = strtok_r(text, "\n", &save); l && has < 0; l = strtok_r(NULL, "\n", &save))
                if (streq(l, "CONFIG_BLK_CGROUP_IOLATENCY=y"))
                        has = 1;
                else if (streq(l, "# CONFIG_BLK_CGROUP_IOLATENCY is not set"))
                        has = 0;
        if (has >= 0 && !(*ret_from = TAKE_PTR(rel)))
                return -ENOMEM;
        return has;
}

int io_latency_probe(const char *root, const Policy *p, HostState *h) {
        static const char *const daemon_paths[] = { IO_DAEMON_PATHS };
        IoLatencyState *s = &h->io_latency;
        _cleanup_strv_free_ char **disks = NULL;
        int r;

        s->probed = true;
        s->rotational = -1;
        {
                _cleanup_free_ char *c = path_join_root(root, "/sys/fs/cgroup/cgroup.controllers");
                _cleanup_free_ char *v = NULL;
                if (!c)
                        return -ENOMEM;
                if (h->cgroup == CGROUP_V2 && read_one_line(c, &v) >= 0)
                        for (char *w = strtok(v, " \n"); w; w = strtok(NULL, " \n"))
                                if (streq(w, "io"))
                                        s->io_controller = true;
        }
        s->kernel = -1;
        if (s->io_controller) {
                r = kernel_has_io_latency(root, h, &s->kernel_from);
                if (r == -ENOMEM)
                        return r;
                s->kernel = r;
        }
        r = swap_disks(root, p, h, &disks);
        if (r < 0)
                return r;
        if (disks && !(s->swap_disk = strdup(disks[0])))
                return -ENOMEM;
        for (size_t i = 0; disks && i < ELEMENTSOF(daemon_paths) && !s->shared_disk; i++) {
                _cleanup_free_ char *d = NULL;
                r = io_disk_of_path(root, daemon_paths[i], &d);
                if (r == -ENOMEM)
                        return r;
                if (r < 0 || !strv_contains(disks, d))
                        continue;
                s->shared_disk = TAKE_PTR(d);
                if (!(s->shared_path = strdup(daemon_paths[i])))
                        return -ENOMEM;
        }
        if (s->shared_disk) {
                r = disk_number(root, s->shared_disk, &s->major, &s->minor);
                if (r == -ENOMEM)
                        return r;
                if (r < 0) {
                        /* no number, no target: as if nothing were shared */
                        free(s->shared_disk);
                        free(s->shared_path);
                        s->shared_disk = s->shared_path = NULL;
                } else {
                        _cleanup_free_ char *rel = strdup_printf("/sys/block/%s/queue/rotational", s->shared_disk);
                        _cleanup_free_ char *rp = rel ? path_join_root(root, rel) : NULL;
                        if (!rp)
                                return -ENOMEM;
                        if (read_int_file(rp, &s->rotational) < 0)
                                s->rotational = -1;
                }
        }
        _cleanup_free_ char *lat = path_join_root(root, "/sys/fs/cgroup/" IO_LATENCY_SLICE "/io.latency");
        _cleanup_free_ char *ctl = path_join_root(root, "/run/systemd/system.control/" IO_LATENCY_SLICE ".d/"
                                                        IO_LATENCY_CONTROL_DROPIN);
        if (!lat || !ctl)
                return -ENOMEM;
        r = read_full_file(lat, 64 * 1024, &s->current);
        if (r == -ENOMEM)
                return r;
        struct stat st;
        s->control_dropin = lstat(ctl, &st) == 0;
        return 0;
}

void io_latency_state_done(IoLatencyState *s) {
        free(s->swap_disk);
        free(s->shared_disk);
        free(s->shared_path);
        free(s->current);
        free(s->kernel_from);
        *s = (IoLatencyState) {};
}
