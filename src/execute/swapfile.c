/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "execute/swapfile.h"

#include <fcntl.h>
#include <inttypes.h>
#include <linux/fs.h>
#include <linux/magic.h>
#include <sys/ioctl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <time.h>

#include "plan/placement.h"
#include "probe/mounts.h"
#include "execute/swapon.h"
#include "execute/crypt.h"
#include "probe/crypt.h"
#include "probe/swap.h"
#include "probe/swapfile.h"
#include "shared/path-util.h"
#include "shared/clock.h"
#include "shared/page-size.h"
#include "shared/reason.h"

/* A swap area being made is named ".#NAME.XXXXXXXXXXXXXXXX" until it is complete. */
#define SWAPFILE_TEMP_PREFIX ".#"
#define ZERO_CHUNK (1024 * 1024)

static const char *fmt_bytes(char buf[static FORMAT_BYTES_MAX], uint64_t v) {
        return format_bytes(buf, FORMAT_BYTES_MAX, v);
}

static char *temp_name(const char *name) {
        uint64_t rnd;
        if (getrandom(&rnd, sizeof(rnd), GRND_NONBLOCK) != sizeof(rnd))
                rnd = ((uint64_t) getpid() << 32) ^ (uint64_t) (uintptr_t) &rnd ^ (uint64_t) time(NULL);
        return strdup_printf(SWAPFILE_TEMP_PREFIX "%s.%016" PRIx64, name, rnd);
}

static int set_nocow(int fd) {
        struct statfs sfs;
        if (fstatfs(fd, &sfs) < 0)
                return -errno;
        if (sfs.f_type != BTRFS_SUPER_MAGIC)
                return 0;
        int attr = 0;
        if (ioctl(fd, FS_IOC_GETFLAGS, &attr) < 0)
                return -errno;
        attr = (attr & ~FS_COMPR_FL) | FS_NOCOW_FL;
        if (ioctl(fd, FS_IOC_SETFLAGS, &attr) < 0)
                return -errno;
        return 1;
}

/* Write zeros over the first size bytes of fd and sync them. */
int swapfile_write_zeros(int fd, uint64_t size) {
        _cleanup_free_ char *buf = calloc(1, ZERO_CHUNK);
        if (!buf)
                return -ENOMEM;
        for (uint64_t off = 0; off < size;) {
                size_t n = size - off < ZERO_CHUNK ? (size_t) (size - off) : ZERO_CHUNK;
                ssize_t k = pwrite(fd, buf, n, (off_t) off);
                if (k < 0 && errno == EINTR)
                        continue;
                if (k < 0)
                        return -errno;
                if (k == 0)
                        return -EIO;
                off += (uint64_t) k;
        }
        return fdatasync(fd) < 0 ? -errno : 0;
}

/* The marker page of an encrypted swap file (probe/crypt.h): the magic, then a line saying what the
 * rest is, for a person who finds the file. */
int swapfile_write_crypt_marker(int fd) {
        char page[CRYPT_DATA_OFFSET] = {};
        int n = snprintf(page, sizeof page,
                         CRYPT_MARKER_MAGIC "\nnodeswap encrypted swap: dm-crypt plain %s-%s, %u-bit key made at "
                         "every setup and never stored, %u-byte sectors from offset %u\n",
                         CRYPT_CIPHER, CRYPT_CIPHER_MODE, CRYPT_KEY_BYTES * 8, CRYPT_SECTOR_SIZE, CRYPT_DATA_OFFSET);
        if (n < 0 || (size_t) n >= sizeof page)
                return -EINVAL;
        ssize_t k = pwrite(fd, page, sizeof page, 0);
        if (k < 0)
                return -errno;
        return (size_t) k == sizeof page ? 0 : -EIO;
}

/* Fill the new, empty file fd with a swap area of size bytes; encrypted: with the marker page and
 * zeros for the mapping, whose swap header is written at every setup (execute/crypt.h). */
static int fill_area(int fd, const char *shown, uint64_t size, uint64_t page_size, bool encrypt, char **ret_reason) {
        char a[FORMAT_BYTES_MAX];
        _cleanup_free_ char *problem = NULL;
        int r;

        if (fchown(fd, 0, 0) < 0)
                return reason_set(ret_reason, -errno, "cannot chown %s to root: %m", shown);
        if (fchmod(fd, 0600) < 0)
                return reason_set(ret_reason, -errno, "cannot chmod %s to 0600: %m", shown);

        r = set_nocow(fd);
        if (r < 0) {
                errno = -r;
                return reason_set(ret_reason, r, "cannot set the No_COW attribute on %s (btrfs): %m", shown);
        }

        if (fallocate(fd, 0, 0, (off_t) size) < 0) {
                r = -errno;
                return reason_set(ret_reason, r, "cannot allocate %s for %s: %s", fmt_bytes(a, size), shown, strerror(-r));
        }

        /* Encrypted, the file is written through a loop device with direct I/O during reclaim:
         * every block is written once now, so that no write then finds an unwritten (fallocated)
         * extent whose conversion is a file system transaction in the middle of reclaim. */
        if (encrypt) {
                r = swapfile_write_zeros(fd, size);
                if (r < 0) {
                        errno = -r;
                        return reason_set(ret_reason, r, "cannot write %s over %s: %m", fmt_bytes(a, size), shown);
                }
        }

        r = swapfile_check_allocation(fd, shown, size, &problem);
        if (r < 0) {
                errno = -r;
                return reason_set(ret_reason, r, "cannot check the allocation of %s: %m", shown);
        }
        if (r == 0)
                return reason_set(ret_reason, -EIO, "%s after fallocate()", problem);

        if (encrypt) {
                r = swapfile_write_crypt_marker(fd);
                if (r < 0 || (r = crypt_marker_probe(fd)) <= 0) {
                        r = r < 0 ? r : -EIO;
                        errno = -r;
                        return reason_set(ret_reason, r, "cannot write the marker of the encrypted swap file %s: %m", shown);
                }
                if (fsync(fd) < 0)
                        return reason_set(ret_reason, -errno, "cannot fsync %s: %m", shown);
                return 0;
        }

        r = swap_header_write(fd, size, page_size, SWAP_LABEL);
        if (r < 0) {
                errno = -r;
                return reason_set(ret_reason, r, "cannot write the swap header of %s: %m", shown);
        }

        r = swapfile_check_header(fd, shown, size, page_size, &problem);
        if (r < 0) {
                errno = -r;
                return reason_set(ret_reason, r, "cannot read back the swap header of %s: %m", shown);
        }
        if (r == 0)
                return reason_set(ret_reason, -EIO, "the swap header did not read back: %s", problem);

        if (fsync(fd) < 0)
                return reason_set(ret_reason, -errno, "cannot fsync %s: %m", shown);
        return 0;
}

/* Create a complete swap area under a new temporary name in dirfd. Nothing is left on failure. */
static int make_area(int dirfd, const char *dir, const char *name, uint64_t size, uint64_t page_size,
                     bool encrypt, char **ret_tmp, char **ret_reason) {
        _cleanup_free_ char *tmp = NULL, *shown = NULL;
        _cleanup_close_ int fd = -EBADF;

        for (unsigned attempt = 0; fd < 0; attempt++) {
                free(tmp);
                tmp = temp_name(name);
                if (!tmp)
                        return -ENOMEM;
                fd = openat(dirfd, tmp, O_CREAT | O_EXCL | O_NOFOLLOW | O_RDWR | O_CLOEXEC | O_NOCTTY, 0600);
                if (fd < 0 && (errno != EEXIST || attempt >= 16)) {
                        int e = errno;
                        free(shown);
                        shown = path_join(dir, tmp);
                        errno = e;
                        return reason_set(ret_reason, -e, "cannot create %s: %m", shown ? shown : tmp);
                }
        }
        shown = path_join(dir, tmp);
        if (!shown) {
                (void) unlinkat(dirfd, tmp, 0);
                return -ENOMEM;
        }

        int r = fill_area(fd, shown, size, page_size, encrypt, ret_reason);
        if (r < 0) {
                (void) unlinkat(dirfd, tmp, 0);
                return r;
        }
        *ret_tmp = tmp;
        tmp = NULL;
        return 0;
}

static int rename_noreplace(int dirfd, const char *from, const char *to) {
        if (renameat2(dirfd, from, dirfd, to, RENAME_NOREPLACE) >= 0)
                return 0;
        if (errno != EINVAL && errno != ENOSYS && errno != EOPNOTSUPP)
                return -errno;
        /* A file system without RENAME_NOREPLACE: link() never replaces either. */
        if (linkat(dirfd, from, dirfd, to, 0) < 0)
                return -errno;
        (void) unlinkat(dirfd, from, 0);
        return 0;
}

static int check_room(const FsInfo *fs, uint64_t size, char **ret_reason) {
        char a[FORMAT_BYTES_MAX], b[FORMAT_BYTES_MAX], c[FORMAT_BYTES_MAX], d[FORMAT_BYTES_MAX];
        uint64_t need = size + swapfile_margin(size);
        if (fs->free >= need)
                return 0;
        return reason_set(ret_reason, -ENOSPC,
                    "not enough room on %s for a %s swap file: need %s (with %s to spare), have %s",
                    fs->mount_point, fmt_bytes(a, size), fmt_bytes(b, need), fmt_bytes(c, swapfile_margin(size)),
                    fmt_bytes(d, fs->free));
}

static int check_args(const char *path, uint64_t size, uint64_t page_size, int priority, char **ret_reason) {
        if (!path_is_normalized_file(path))
                return reason_set(ret_reason, -EINVAL, "'%s' is not an absolute, normalised path", strempty(path));
        if (!page_size_valid(page_size))
                return reason_set(ret_reason, -EINVAL, "page size %" PRIu64 " is not a power of two >= %" PRIu64, page_size, PAGE_SIZE_MIN);
        if (size / page_size < 10)
                return reason_set(ret_reason, -EINVAL, "a swap file needs at least 10 pages, %" PRIu64 " bytes is less", size);
        if (size > INT64_MAX)
                return reason_set(ret_reason, -EFBIG, "%" PRIu64 " bytes is too big for a file", size);
        if (priority < 0 || priority > SWAP_PRIORITY_MAX)
                return reason_set(ret_reason, -EINVAL, "swap priority %d is not in 0..%d", priority, SWAP_PRIORITY_MAX);
        return 0;
}

static int inspect_and_check(const char *root, const char *path, unsigned allowed_storage, FsInfo *ret,
                             char **ret_reason) {
        _cleanup_(fs_info_done) FsInfo fs = {};
        _cleanup_free_ char *why = NULL;

        int r = mounts_inspect_path(root, path, &fs);
        if (r < 0) {
                errno = -r;
                return reason_set(ret_reason, r, "cannot find the file system under %s: %m", path);
        }
        r = placement_check_fs(&fs, allowed_storage, &why);
        if (r < 0)
                return r;
        if (r == 0)
                return reason_set(ret_reason, -EMEDIUMTYPE, "%s", why);
        *ret = fs;
        fs = (FsInfo) {};
        return 0;
}

/* Refuse when anything, even a dangling symlink, is at name. */
static int check_nothing_at(int dirfd, const char *path, char **ret_reason) {
        struct stat st;
        if (fstatat(dirfd, strrchr(path, '/') + 1, &st, AT_SYMLINK_NOFOLLOW) >= 0) {
                if (S_ISLNK(st.st_mode))
                        return reason_set(ret_reason, -ELOOP,
                                    "%s is a symlink; nodeswap neither follows nor replaces it", path);
                return reason_set(ret_reason, -EEXIST, "%s already exists; nodeswap does not replace it here", path);
        }
        if (errno != ENOENT)
                return reason_set(ret_reason, -errno, "cannot stat %s: %m", path);
        return 0;
}

/* Make the file at dirfd/name (the host path "path") a new swap area; no swapon. */
static int create_at(int dirfd, const char *path, const char *name, uint64_t size, uint64_t page_size,
                     bool encrypt, char **ret_reason) {
        _cleanup_free_ char *dir = path_dirname(path), *tmp = NULL;
        if (!dir)
                return -ENOMEM;

        int r = make_area(dirfd, dir, name, size, page_size, encrypt, &tmp, ret_reason);
        if (r < 0)
                return r;
        r = rename_noreplace(dirfd, tmp, name);
        if (r < 0) {
                (void) unlinkat(dirfd, tmp, 0);
                errno = -r;
                return reason_set(ret_reason, r, "cannot move the new swap file into place at %s: %m", path);
        }
        r = fsync_directory(dirfd);
        if (r < 0) {
                errno = -r;
                return reason_set(ret_reason, r, "cannot fsync the directory of %s: %m", path);
        }
        return 0;
}

static int create_impl(const char *root, const char *path, uint64_t size, uint64_t page_size, int priority,
                       int discard_flags, unsigned allowed_storage, bool encrypt, char **ret_reason) {
        _cleanup_(fs_info_done) FsInfo fs = {};
        _cleanup_close_ int dirfd = -EBADF;
        _cleanup_free_ char *name = NULL;
        int r;

        r = check_args(path, size, page_size, priority, ret_reason);
        if (r < 0)
                return r;
        if (encrypt && (size < CRYPT_DATA_OFFSET + SWAP_MIN_PAGES * page_size || size % CRYPT_SECTOR_SIZE))
                return reason_set(ret_reason, -EINVAL, "an encrypted swap file needs a whole number of %u-byte sectors "
                                  "and 10 pages after its marker, %" PRIu64 " bytes is not that", CRYPT_SECTOR_SIZE, size);

        /* Everything that can refuse without writing comes first. */
        r = inspect_and_check(root, path, allowed_storage, &fs, ret_reason);
        if (r < 0)
                return r;
        r = check_room(&fs, size, ret_reason);
        if (r < 0)
                return r;

        r = path_open_parent_secure(root, path, /* create= */ true, "a swap file", &dirfd, &name, ret_reason);
        if (r < 0)
                return r;
        r = check_nothing_at(dirfd, path, ret_reason);
        if (r < 0)
                return r;

        r = create_at(dirfd, path, name, size, page_size, encrypt, ret_reason);
        if (r < 0)
                return r;

        _cleanup_free_ char *why = NULL;
        r = encrypt ? crypt_swap_on(root, path, page_size, priority, discard_flags, &why)
                    : swap_on_flags(root, path, priority, discard_flags);
        if (r == -EOPNOTSUPP && !root_is_host(root))
                return SWAPFILE_SWAPON_SKIPPED;
        if (r < 0) {
                (void) unlinkat(dirfd, name, 0);
                (void) fsync_directory(dirfd);
                if (why)
                        return reason_set(ret_reason, r, "%s; the new file was removed", why);
                errno = -r;
                return reason_set(ret_reason, r, "swapon %s failed: %m; the new file was removed", path);
        }
        return 0;
}

int swapfile_create(const char *root, const char *path, uint64_t size, uint64_t page_size,
                          int priority, int discard_flags, unsigned allowed_storage, char **ret_reason) {
        return create_impl(root, path, size, page_size, priority, discard_flags, allowed_storage, false, ret_reason);
}

int swapfile_create_encrypted(const char *root, const char *path, uint64_t size, uint64_t page_size, int priority,
                              int discard_flags, unsigned allowed_storage, char **ret_reason) {
        return create_impl(root, path, size, page_size, priority, discard_flags, allowed_storage, true, ret_reason);
}

int swapfile_rewrite_header(const char *root, const char *path, uint64_t page_size) {
        _cleanup_close_ int fd = -EBADF;
        struct stat st;
        SwapHeaderInfo info;
        int r;

        if (!path_is_normalized_file(path) || !page_size_valid(page_size))
                return -EINVAL;

        r = swapfile_is_active(root, path, NULL, NULL);
        if (r < 0)
                return r;
        if (r > 0)
                return -EBUSY;

        r = swapfile_open_existing(root, path, O_RDWR, NULL, &fd, &st, NULL);
        if (r < 0)
                return r;
        if (r > 0)
                return -EMEDIUMTYPE;    /* a symlink, no regular file, an unsafe parent */
        if (st.st_uid != 0)
                return -EPERM;
        r = swap_header_probe(fd, &info);
        if (r < 0)
                return r;
        if (r == 0)
                return -EMEDIUMTYPE;
        if ((uint64_t) st.st_size / page_size < 10)
                return -EINVAL;
        if (info.page_size == page_size && streq(info.label, SWAP_LABEL) &&
            info.last_page == (uint64_t) st.st_size / page_size - 1)
                return 0;

        r = swap_header_write(fd, (uint64_t) st.st_size, page_size, SWAP_LABEL);
        if (r < 0)
                return r;
        r = swapfile_check_header(fd, path, (uint64_t) st.st_size / page_size * page_size, page_size, NULL);
        if (r < 0)
                return r;
        if (r == 0)
                return -EIO;
        if (fsync(fd) < 0)
                return -errno;
        return 1;
}

/* How long a removal waits for the file system to report the blocks it freed. */
#define RELEASE_WAIT_USEC (3 * USEC_PER_SEC)
#define RELEASE_POLL_USEC (10 * USEC_PER_MSEC)

static uint64_t fs_avail(int dirfd) {
        struct statvfs sv;
        if (fstatvfs(dirfd, &sv) < 0)
                return 0;
        return (uint64_t) sv.f_bavail * sv.f_frsize;
}

/* File systems free an unlinked file's blocks after unlink() returns: XFS inactivates inodes in a
 * background worker (inodegc, since Linux 5.15), btrfs at its next transaction commit. The step
 * after a removal is often the creation of a file in the room it left (a resize), whose room check
 * reads statvfs(); so commit with syncfs() (which settles btrfs at once) and wait, bounded, until
 * the free count shows most of the freed blocks (XFS's worker runs within milliseconds). The wait
 * never fails the removal: at worst the creation's own room check reports what it sees. */
static void wait_space_released(int dirfd, uint64_t avail_before, uint64_t freed) {
        uint64_t want = avail_before + freed / 10 * 9;
        /* dirfd is an O_PATH descriptor, which syncfs() refuses */
        _cleanup_close_ int fd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd >= 0)
                (void) syncfs(fd);
        for (uint64_t deadline = now_monotonic_usec() + RELEASE_WAIT_USEC;;) {
                if (fs_avail(dirfd) >= want || now_monotonic_usec() >= deadline)
                        return;
                (void) nanosleep(&(struct timespec) { .tv_nsec = RELEASE_POLL_USEC * 1000 }, NULL);
        }
}

int file_open_for_removal(const char *root, const char *path, int *ret_dirfd, int *ret_fd, struct stat *ret_st) {
        _cleanup_close_ int dirfd = -EBADF, fd = -EBADF;
        struct stat st;

        if (!path_is_normalized_file(path))
                return -EINVAL;
        int r = swapfile_open_existing(root, path, O_RDONLY, &dirfd, &fd, &st, NULL);
        if (r < 0)
                return r;
        if (r > 0) {
                struct stat lst;
                _cleanup_free_ char *full = path_join_root(root, path);
                if (!full)
                        return -ENOMEM;
                return lstat(full, &lst) >= 0 && S_ISLNK(lst.st_mode) ? -ELOOP : -EMEDIUMTYPE;
        }
        *ret_dirfd = TAKE_FD(dirfd);
        *ret_fd = TAKE_FD(fd);
        *ret_st = st;
        return 0;
}

static int swapfile_remove_impl(const char *root, const char *path, bool need_label, bool overwrite) {
        _cleanup_close_ int dirfd = -EBADF, fd = -EBADF;
        _cleanup_free_ char *name = NULL;
        struct stat st;

        int r = file_open_for_removal(root, path, &dirfd, &fd, &st);
        if (r == -ENOENT)
                return 0;
        if (r < 0)
                return r;

        SwapHeaderInfo info;
        int encrypted = crypt_marker_probe(fd);
        if (encrypted < 0)
                return encrypted;
        r = encrypted ? 0 : swap_header_probe(fd, &info);
        if (r < 0)
                return r;
        if (r == 0 && !encrypted)
                return -EMEDIUMTYPE;
        if (need_label && !encrypted && !streq(info.label, SWAP_LABEL))
                return -EMEDIUMTYPE;
        close(fd);
        fd = -EBADF;

        /* An encrypted file's mapping (left by a run killed after its setup) goes first, and its
         * loop device with it: the file's blocks would stay with them otherwise. */
        if (encrypted) {
                r = crypt_swap_off(root, path, NULL);
                if (r < 0 && r != -EOPNOTSUPP)
                        return r;
        }

        r = swapfile_is_active(root, path, NULL, NULL);
        if (r < 0)
                return r;
        if (r > 0) {
                r = swap_off(root, path);
                if (r < 0 && r != -EOPNOTSUPP && r != -EINVAL)
                        return r;
        }

        name = strdup(strrchr(path, '/') + 1);
        if (!name)
                return -ENOMEM;
        if (overwrite && !encrypted) {
                /* Pages swapped out in clear: their blocks are overwritten before the file system
                 * may hand them to another file (an SSD may keep copies of its own: nodeswap.conf(5)). */
                _cleanup_close_ int wfd = openat(dirfd, name, O_WRONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY);
                if (wfd < 0)
                        return -errno;
                r = swapfile_write_zeros(wfd, (uint64_t) st.st_size);
                if (r < 0)
                        return r;
        }
        uint64_t avail_before = fs_avail(dirfd);
        if (unlinkat(dirfd, name, 0) < 0)
                return -errno;
        (void) fsync_directory(dirfd);
        if (st.st_nlink == 1 && avail_before > 0)
                wait_space_released(dirfd, avail_before, (uint64_t) st.st_blocks * 512);
        return 1;
}

int swapfile_remove(const char *root, const char *path, bool overwrite) {
        return swapfile_remove_impl(root, path, false, overwrite);
}

int swapfile_remove_labelled(const char *root, const char *path, bool overwrite) {
        return swapfile_remove_impl(root, path, true, overwrite);
}
