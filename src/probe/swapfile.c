/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "probe/swapfile.h"

#include "probe/crypt.h"

#include <fcntl.h>
#include <inttypes.h>
#include <linux/fiemap.h>
#include <linux/fs.h>
#include <linux/magic.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/statfs.h>

#include "probe/mounts.h"
#include "probe/swap.h"
#include "shared/path-util.h"
#include "shared/reason.h"
#include "shared/page-size.h"

static const char *fmt_bytes(char buf[static FORMAT_BYTES_MAX], uint64_t v) {
        return format_bytes(buf, FORMAT_BYTES_MAX, v);
}

/* 1: the first size bytes of fd are allocated without holes, shared (reflinked) or compressed
 * extents; 0: not (*ret_problem says why); -errno. */
int swapfile_check_allocation(int fd, const char *shown, uint64_t size, char **ret_problem) {
        char a[FORMAT_BYTES_MAX], b[FORMAT_BYTES_MAX];
        struct stat st;

        if (fstat(fd, &st) < 0)
                return -errno;
        if ((uint64_t) st.st_blocks * 512 < size)
                return reason_set(ret_problem, 0, "%s has holes: only %s of %s allocated", shown,
                            fmt_bytes(a, (uint64_t) st.st_blocks * 512), fmt_bytes(b, size));

        enum { N = 128 };
        _cleanup_free_ struct fiemap *fm = malloc(sizeof(struct fiemap) + N * sizeof(struct fiemap_extent));
        if (!fm)
                return -ENOMEM;

        uint64_t covered = 0;
        bool last = false;
        while (!last && covered < size) {
                memset(fm, 0, sizeof(struct fiemap) + N * sizeof(struct fiemap_extent));
                fm->fm_start = covered;
                fm->fm_length = size - covered;
                fm->fm_extent_count = N;
                if (ioctl(fd, FS_IOC_FIEMAP, fm) < 0) {
                        if (errno == EOPNOTSUPP || errno == ENOTTY)
                                return 1;       /* st_blocks is all there is to go by */
                        return -errno;
                }
                if (fm->fm_mapped_extents == 0)
                        break;
                for (unsigned i = 0; i < fm->fm_mapped_extents; i++) {
                        const struct fiemap_extent *e = &fm->fm_extents[i];
                        if (e->fe_logical > covered)
                                return reason_set(ret_problem, 0, "%s has a hole at offset %" PRIu64, shown, covered);
                        if (e->fe_flags & FIEMAP_EXTENT_SHARED)
                                return reason_set(ret_problem, 0,
                                            "%s shares blocks with another file (a reflink copy or a snapshot), "
                                            "which the kernel refuses for swap", shown);
                        if (e->fe_flags & (FIEMAP_EXTENT_ENCODED | FIEMAP_EXTENT_DATA_ENCRYPTED))
                                return reason_set(ret_problem, 0, "%s is compressed or encoded, which the kernel refuses for swap",
                                            shown);
                        if (e->fe_flags & (FIEMAP_EXTENT_DATA_INLINE | FIEMAP_EXTENT_DATA_TAIL))
                                return reason_set(ret_problem, 0, "%s has inline data, which the kernel refuses for swap", shown);
                        if (e->fe_logical + e->fe_length > covered)
                                covered = e->fe_logical + e->fe_length;
                        if (e->fe_flags & FIEMAP_EXTENT_LAST)
                                last = true;
                }
        }
        if (covered < size)
                return reason_set(ret_problem, 0, "%s has a hole at offset %" PRIu64, shown, covered);
        return 1;
}

/* The judgement of swapfile_check_header() on what swap_header_probe() returned (probe_r, info). */
static int judge_header(int probe_r, const SwapHeaderInfo *info, const char *shown, uint64_t size, uint64_t page_size,
                        char **ret_problem) {
        char a[FORMAT_BYTES_MAX], b[FORMAT_BYTES_MAX];

        if (probe_r == -EUCLEAN)
                return reason_set(ret_problem, 0, "%s carries more than one signature", shown);
        if (probe_r < 0)
                return probe_r;
        if (probe_r == 0)
                return reason_set(ret_problem, 0, "%s carries no swap signature", shown);
        if (info->page_size != page_size)
                return reason_set(ret_problem, 0, "%s: header made for %" PRIu64 "-byte pages, kernel uses %" PRIu64,
                            shown, info->page_size, page_size);
        if (!streq(info->label, SWAP_LABEL))
                return reason_set(ret_problem, 0, "%s: swap label is '%s', not '" SWAP_LABEL "'", shown, info->label);
        if (size < page_size || info->last_page != size / page_size - 1)
                return reason_set(ret_problem, 0, "%s: the swap header covers %s, the file is %s", shown,
                            fmt_bytes(a, (info->last_page + 1) * page_size), fmt_bytes(b, size));
        return 1;
}

/* 1: fd carries a swap header for page_size, labelled nodeswap, covering size bytes;
 * 0: not (*ret_problem says why); -errno. */
int swapfile_check_header(int fd, const char *shown, uint64_t size, uint64_t page_size, char **ret_problem) {
        SwapHeaderInfo info;
        int r = swap_header_probe(fd, &info);
        return judge_header(r, &info, shown, size, page_size, ret_problem);
}

/* 1: fd is not on btrfs, or carries the No_COW attribute there (the kernel refuses copy-on-write
 * swap files); 0: not (*ret_problem says why); -errno. */
int swapfile_check_nocow(int fd, const char *shown, char **ret_problem) {
        struct statfs sfs;
        if (fstatfs(fd, &sfs) < 0)
                return -errno;
        if (sfs.f_type != BTRFS_SUPER_MAGIC)
                return 1;
        int attr = 0;
        if (ioctl(fd, FS_IOC_GETFLAGS, &attr) < 0)
                return -errno;
        if (!(attr & FS_NOCOW_FL))
                return reason_set(ret_problem, 0, "%s is on btrfs without the No_COW attribute (chattr +C)", shown);
        if (attr & FS_COMPR_FL)
                return reason_set(ret_problem, 0, "%s is marked for compression (chattr +c)", shown);
        return 1;
}

/* ---- checking an existing file ---------------------------------------------------------------- */

/* Open the regular file at path (with flags: O_RDONLY or O_RDWR), walking the parents as
 * path_open_parent_secure() does, never following a symlink and without touching its access time.
 * Returns 0 with *ret_fd (and *ret_dirfd when asked for) and its stat, 1 when the path or the file
 * cannot be used (a symlink, no regular file, an unsafe parent: *ret_problem set), -ENOENT when
 * nothing is there, -errno. */
int swapfile_open_existing(const char *root, const char *path, int flags, int *ret_dirfd, int *ret_fd,
                         struct stat *ret_st, char **ret_problem) {
        _cleanup_close_ int dirfd = -EBADF, fd = -EBADF;
        _cleanup_free_ char *name = NULL, *why = NULL;
        struct stat st, st2;
        int r;

        r = path_open_parent_secure(root, path, /* create= */ false, "a swap file", &dirfd, &name, &why);
        if (r == -ENOENT || r == -ENOMEM)
                return r;
        if (r < 0)
                goto refused;

        if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
                return -errno;
        if (S_ISLNK(st.st_mode)) {
                r = reason_set(&why, -ELOOP, "%s is a symlink, not a regular file", path);
                goto refused;
        }
        if (!S_ISREG(st.st_mode)) {
                r = reason_set(&why, -EMEDIUMTYPE, "%s is not a regular file", path);
                goto refused;
        }

        fd = openat(dirfd, name, flags | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY | O_NOATIME);
        if (fd < 0 && errno == EPERM)
                fd = openat(dirfd, name, flags | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY);
        if (fd < 0)
                return -errno;
        if (fstat(fd, &st2) < 0)
                return -errno;
        if (st2.st_ino != st.st_ino || st2.st_dev != st.st_dev || !S_ISREG(st2.st_mode))
                return -EAGAIN;         /* replaced under our feet */

        if (ret_dirfd) {
                *ret_dirfd = dirfd;
                dirfd = -EBADF;
        }
        *ret_fd = fd;
        fd = -EBADF;
        *ret_st = st2;
        return 0;

refused:
        if (r == -ENOMEM)
                return r;
        if (ret_problem) {
                free(*ret_problem);
                *ret_problem = why;
                why = NULL;
        }
        return 1;
}

/* ---- /proc/swaps ------------------------------------------------------------------------------- */

int swapfile_is_active(const char *root, const char *path, int *ret_priority, uint64_t *ret_used) {
        SwapEntry *entries = NULL;
        size_t n = 0;
        int r;

        if (!path)
                return -EINVAL;
        r = swaps_read(root, &entries, &n);
        if (r == -ENOENT)
                return 0;
        if (r < 0)
                return r;

        r = 0;
        for (size_t i = 0; i < n; i++) {
                if (!streq(entries[i].path, path))
                        continue;
                if (ret_priority)
                        *ret_priority = entries[i].priority;
                if (ret_used)
                        *ret_used = entries[i].used;
                r = 1;
                break;
        }
        swap_entries_free(entries, n);
        return r;
}

/* ---- the state of the policy's file, for probe() ---------------------------------------------- */

int swapfile_read_header_nofollow(const char *full_path, const struct stat *st, SwapHeaderInfo *ret) {
        _cleanup_close_ int fd = open(full_path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY | O_NONBLOCK);
        struct stat fst;
        if (fd < 0 && (errno == EACCES || errno == EPERM))
                return -EACCES;         /* a non-root caller: the header is unknown, not absent */
        if (fd < 0 || fstat(fd, &fst) < 0 || !S_ISREG(fst.st_mode) || fst.st_dev != st->st_dev ||
            fst.st_ino != st->st_ino)
                return 0;
        if (crypt_marker_probe(fd) > 0) {
                /* An encrypted swap file of nodeswap's: labelled by its marker. */
                *ret = (SwapHeaderInfo) { .label = SWAP_LABEL };
                return 1;
        }
        return swap_header_probe(fd, ret) > 0;
}

/* Open the regular file at path through a safe path and read every fact plan() judges it by:
 * its header, and the allocation, No_COW and header checks, each against the file's own size. */
static int probe_checks(const char *root, const char *path, uint64_t page_size, SwapFileState *f) {
        _cleanup_close_ int fd = -EBADF;
        _cleanup_free_ char *problem = NULL;
        struct stat st;
        SwapHeaderInfo info = {};

        int r = swapfile_open_existing(root, path, O_RDONLY, NULL, &fd, &st, &problem);
        if (r == -EACCES || r == -EPERM) {
                f->unreadable = true;   /* a non-root caller: the file is unknown, not wrong */
                return 0;
        }
        if (r == -ENOENT)
                return -EAGAIN;         /* gone since lstat(): replaced under our feet */
        if (r < 0)
                return r;
        if (r > 0) {
                f->path_problem = TAKE_PTR(problem);
                return f->path_problem ? 0 : -ENOMEM;
        }

        /* An encrypted swap file: its swap header is on the mapping, written at every setup for
         * the kernel's page size, so only its marker is read here. */
        int cr = crypt_marker_probe(fd);
        if (cr < 0)
                return cr;
        if (cr > 0) {
                f->encrypted = f->has_header = true;
                f->header_page_size = page_size;
                if (!(f->label = strdup(SWAP_LABEL)))
                        return -ENOMEM;
                if ((uint64_t) st.st_size < CRYPT_DATA_OFFSET + SWAP_MIN_PAGES * CRYPT_SECTOR_SIZE ||
                    (st.st_size - CRYPT_DATA_OFFSET) % CRYPT_SECTOR_SIZE)
                        f->header_problem = strdup_printf("%s: an encrypted swap file of %" PRIu64
                                                          " bytes, not a whole number of %u-byte sectors after its marker",
                                                          path, (uint64_t) st.st_size, CRYPT_SECTOR_SIZE);
        }
        int hr = cr > 0 ? 0 : swap_header_probe(fd, &info);
        if (hr < 0 && hr != -EUCLEAN)
                return hr;
        if (hr > 0) {
                f->has_header = true;
                f->header_page_size = info.page_size;
                if (info.label[0] && !(f->label = strdup(info.label)))
                        return -ENOMEM;
        }
        if (page_size_valid(page_size) && cr == 0) {
                r = judge_header(hr, &info, path, (uint64_t) st.st_size, page_size, &f->header_problem);
                if (r < 0)
                        return r;
        }
        r = swapfile_check_allocation(fd, path, (uint64_t) st.st_size, &f->allocation_problem);
        if (r < 0)
                return r;
        r = swapfile_check_nocow(fd, path, &f->nocow_problem);
        if (r < 0)
                return r;
        f->checked = true;
        return 0;
}

int swapfile_probe(const char *root, const char *path, uint64_t page_size, SwapFileState *f) {
        _cleanup_free_ char *p = path_join_root(root, path);
        if (!p)
                return -ENOMEM;

        struct stat st;
        if (lstat(p, &st) < 0) {
                if (errno == EACCES || errno == EPERM) {
                        /* a non-root status or check: judged as unknown, never fatal */
                        f->unreadable = true;
                        return 0;
                }
                if (errno != ENOENT && errno != ENOTDIR)
                        return -errno;
        } else {
                f->exists = true;
                f->is_regular = S_ISREG(st.st_mode);
                f->size = (uint64_t) st.st_size;
                f->allocated = (uint64_t) st.st_blocks * 512;
                f->mode = st.st_mode & 07777;
                f->uid = st.st_uid;
        }

        if (f->is_regular) {
                int r = probe_checks(root, path, page_size, f);
                if (r < 0)
                        return r;
        }

        /* The file system and the disk under it, as the swap file writer sees them. */
        _cleanup_(fs_info_done) FsInfo fs = {};
        int r = mounts_inspect_path(root, path, &fs);
        if (r == -ENOMEM)
                return r;
        if (r < 0)
                return 1;       /* unknown: plan() says so */
        f->fstype = TAKE_PTR(fs.fstype);
        f->fs_mount_point = TAKE_PTR(fs.mount_point);
        f->storage_device = TAKE_PTR(fs.device);
        f->storage = fs.kind;
        f->fs_free = fs.free;
        f->fs_read_only = fs.read_only;
        f->fs_btrfs_multi_device = fs.btrfs_multi_device;
        f->fs_compressed = fs.compressed;
        return 1;
}
