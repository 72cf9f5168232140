/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "execute/zram-writeback.h"

#include <fcntl.h>
#include <inttypes.h>
#include <linux/loop.h>
#include <stdarg.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <time.h>

#include "execute/crypt.h"
#include "execute/fault.h"
#include "probe/crypt.h"
#include "probe/loop.h"
#include "execute/loop.h"
#include "execute/swapfile.h"
#include "probe/zram.h"
#include "shared/clock.h"
#include "shared/path-util.h"
#include "shared/reason.h"

#define LOOP_GONE_WAIT_USEC (5 * USEC_PER_SEC)
#define WRITEBACK_WINDOW_USEC (24ULL * 3600 * USEC_PER_SEC)

/* reason_set() with errno set to -r first, so that %m in fmt names the error. */
#define fail(ret_reason, r, ...) (errno = -(r), reason_set((ret_reason), (r), __VA_ARGS__))

void zram_backing_done(ZramBacking *b) {
        if (!b)
                return;
        if (b->fd >= 0)
                close(b->fd);
        free(b->dev);
        free(b->file);
        *b = ZRAM_BACKING_NULL;
}

/* mkdir -p of path's parent directories (0755, as for a swap file's), never through a symlink's
 * target being replaced: an existing component is used as it is, the file itself is opened with
 * O_NOFOLLOW. */
static int mkdir_parents(const char *p) {
        _cleanup_free_ char *d = strdup(p);
        if (!d)
                return -ENOMEM;
        for (char *s = strchr(d + 1, '/'); s; s = strchr(s + 1, '/')) {
                *s = 0;
                if (mkdir(d, 0755) < 0 && errno != EEXIST)
                        return -errno;
                *s = '/';
        }
        return 0;
}

/* The file for writeback: made when missing, checked when present. Returns an O_RDWR fd. */
static int open_backing_file(const char *root, const char *path, uint64_t size, bool *ret_created,
                             char **ret_reason) {
        _cleanup_free_ char *p = path_join_root(root, path);
        if (!p)
                return -ENOMEM;
        int k = mkdir_parents(p);
        if (k < 0)
                return fail(ret_reason, k, "Failed to create the directories of '%s': %m", path);
        bool created = false;
        int fd = open(p, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY, 0600);
        if (fd >= 0) {
                created = true;
                int r = posix_fallocate(fd, 0, (off_t) size);
                if (r != 0) {
                        close(fd);
                        (void) unlink(p);
                        return fail(ret_reason, -r, "Failed to allocate %" PRIu64 " bytes for '%s': %m", size, path);
                }
                if (fsync(fd) < 0) {
                        r = -errno;
                        close(fd);
                        (void) unlink(p);
                        return fail(ret_reason, r, "Failed to sync '%s': %m", path);
                }
        } else if (errno == EEXIST) {
                fd = open(p, O_RDWR | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY);
                if (fd < 0)
                        return fail(ret_reason, -errno, "Failed to open '%s': %m", path);
        } else
                return fail(ret_reason, -errno, "Failed to create '%s': %m", path);

        struct stat st;
        if (fstat(fd, &st) < 0) {
                int r = -errno;
                close(fd);
                return fail(ret_reason, r, "Failed to stat '%s': %m", path);
        }
        if (!S_ISREG(st.st_mode) || st.st_uid != 0 || (st.st_mode & 0022) || st.st_size < 4096) {
                close(fd);
                return fail(ret_reason, -EPERM,
                            "'%s' is not a regular file of root's, at least 4 KiB, that only root may write", path);
        }
        *ret_created = created;
        return fd;
}

/* WritebackEncrypt=: the file made ready for its mapping (the marker page, after zeros over
 * everything when it had none), or for pages in clear (a marker cleared). */
static int backing_file_mark(int fd, const char *path, bool created, bool encrypt, char **ret_reason) {
        int m = crypt_marker_probe(fd);
        if (m < 0)
                return fail(ret_reason, m, "Failed to read '%s': %m", path);
        if (!encrypt) {
                if (m == 0)
                        return 0;
                int r = swapfile_write_zeros(fd, CRYPT_DATA_OFFSET);
                return r < 0 ? fail(ret_reason, r, "Failed to clear the marker of '%s': %m", path) : 0;
        }
        if (m > 0)
                return 0;
        struct stat st;
        if (fstat(fd, &st) < 0)
                return fail(ret_reason, -errno, "Failed to stat '%s': %m", path);
        /* Made now: fallocate()'d, it reads as zeros and held nothing. Else it may hold pages
         * written back in clear: overwritten before the mapping takes it (an SSD may keep copies
         * of its own: nodeswap.conf(5)). */
        int r = created ? 0 : swapfile_write_zeros(fd, (uint64_t) st.st_size);
        if (r >= 0)
                r = swapfile_write_crypt_marker(fd);
        if (r >= 0 && fdatasync(fd) < 0)
                r = -errno;
        if (r < 0)
                return fail(ret_reason, r, "Failed to %s '%s' for encryption: %m", created ? "mark" : "overwrite", path);
        fault_step("writeback-file-overwrite");
        return 0;
}

int zram_backing_prepare(const char *root, const char *writeback, bool is_file, uint64_t size, bool encrypt,
                         ZramBacking *ret, char **ret_reason) {
        ZramBacking b = ZRAM_BACKING_NULL;
        if (!writeback || !ret)
                return -EINVAL;
        if (!is_file) {
                if (!(b.dev = strdup(writeback)))
                        return -ENOMEM;
                *ret = b;
                return 0;
        }
        if (!(b.file = strdup(writeback)))
                return -ENOMEM;
        _cleanup_close_ int ffd = open_backing_file(root, writeback, size, &b.created, ret_reason);
        if (ffd < 0) {
                zram_backing_done(&b);
                return ffd;
        }
        int r = backing_file_mark(ffd, writeback, b.created, encrypt, ret_reason);
        if (r < 0) {
                zram_backing_done(&b);
                return r;
        }
        if (!root_is_host(root)) {
                *ret = b;
                return -EOPNOTSUPP;
        }
        if (encrypt) {
                struct stat st;
                r = fstat(ffd, &st) < 0 ? fail(ret_reason, -errno, "Failed to stat '%s': %m", writeback)
                                        : crypt_map_writeback(root, writeback, ffd, (uint64_t) st.st_size, &b.dev,
                                                              ret_reason);
                if (r < 0) {
                        zram_backing_done(&b);
                        return r;
                }
                b.mapped = true;
                fault_step("writeback-file-map");
                *ret = b;
                return 0;
        }
        r = loop_attach(ffd, writeback, 0, false, &b.fd, &b.dev, ret_reason);
        if (r < 0) {
                if (b.created) {
                        _cleanup_free_ char *p = path_join_root(root, writeback);
                        if (p)
                                (void) unlink(p);
                }
                zram_backing_done(&b);
                return r;
        }
        *ret = b;
        return 0;
}

static int attr_path(const char *root, int id, const char *attr, char **ret) {
        _cleanup_free_ char *rel = strdup_printf("/sys/block/zram%d/%s", id, attr);
        if (!rel)
                return -ENOMEM;
        *ret = path_join_root(root, rel);
        return *ret ? 0 : -ENOMEM;
}

/* One write of the whole value; sysfs takes it in one go or not at all. */
static int attr_write(const char *root, int id, const char *attr, const char *value) {
        _cleanup_free_ char *p = NULL;
        int r = attr_path(root, id, attr, &p);
        if (r < 0)
                return r;
        _cleanup_close_ int fd = open(p, O_WRONLY | O_CLOEXEC | O_NOCTTY | O_NOFOLLOW | (root_is_host(root) ? 0 : O_TRUNC));
        if (fd < 0)
                return -errno;
        size_t l = strlen(value);
        ssize_t k = write(fd, value, l);
        if (k < 0)
                return -errno;
        return (size_t) k == l ? 0 : -EIO;
}

static int attr_read_u64_field(const char *root, int id, const char *attr, unsigned field, uint64_t *ret) {
        _cleanup_free_ char *p = NULL, *line = NULL;
        int r = attr_path(root, id, attr, &p);
        if (r < 0)
                return r;
        r = read_one_line(p, &line);
        if (r < 0)
                return r;
        const char *s = line;
        for (unsigned i = 0; i <= field; i++) {
                while (*s == ' ')
                        s++;
                char *e;
                errno = 0;
                unsigned long long v = strtoull(s, &e, 10);
                if (errno || e == s)
                        return -EINVAL;
                if (i == field) {
                        *ret = v;
                        return 0;
                }
                s = e;
        }
        return -EINVAL;
}

static int set_budget(const char *root, int id, uint64_t limit) {
        char v[32];
        snprintf(v, sizeof v, "%" PRIu64, limit / ZRAM_WRITEBACK_UNIT);
        int r = attr_write(root, id, "writeback_limit_enable", "1");
        return r < 0 ? r : attr_write(root, id, "writeback_limit", v);
}

static int record_save(const char *root, const WritebackRecord *rec) {
        _cleanup_free_ char *text = writeback_record_format(rec);
        _cleanup_free_ char *p = path_join_root(root, WRITEBACK_RECORD_PATH);
        _cleanup_free_ char *tmp = p ? strdup_printf("%s.new", p) : NULL;
        if (!text || !tmp)
                return -ENOMEM;
        char *slash = strrchr(p, '/');
        *slash = 0;
        int k = mkdir_parents(p);               /* /run, in a fixture */
        if (k < 0)
                return k;
        if (mkdir(p, 0700) < 0 && errno != EEXIST)
                return -errno;
        *slash = '/';
        /* Written under /run/nodeswap.lock: one writer at a time, so a fixed temporary name does. */
        (void) unlink(tmp);
        _cleanup_close_ int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
        if (fd < 0)
                return -errno;
        size_t l = strlen(text);
        if (write(fd, text, l) != (ssize_t) l || rename(tmp, p) < 0) {
                int r = errno ? -errno : -EIO;
                (void) unlink(tmp);
                return r;
        }
        return 0;
}

int zram_writeback_started(const char *root, int id, const ZramBacking *b, uint64_t limit) {
        WritebackRecord rec;
        writeback_record_init(&rec);
        rec.zram_id = id;
        if (limit > 0) {
                int r = set_budget(root, id, limit);
                if (r < 0)
                        return r;
                rec.window_usec = now_realtime_usec();
        }
        rec.loop = b->file ? b->dev : NULL;     /* borrowed for the format */
        rec.file = b->file;
        int r = record_save(root, &rec);
        return r;
}

int zram_backing_file_remove(const char *root, const char *path) {
        _cleanup_close_ int dirfd = -EBADF, fd = -EBADF;
        struct stat st;

        int r = file_open_for_removal(root, path, &dirfd, &fd, &st);
        if (r == -ENOENT)
                return 0;
        if (r < 0)
                return r;
        /* The zram device's reset dropped the last hold on the loop device; autoclear detaches
         * it on that release, which the e2e VM's kernel may finish a moment later: wait a
         * little for that rather than delete the file under it. */
        for (uint64_t deadline = now_monotonic_usec() + LOOP_GONE_WAIT_USEC;;) {
                _cleanup_free_ char *dev = NULL;
                r = loop_find_by_backing_file(root, path, &dev);
                if (r == -ENOENT)
                        break;
                if (r < 0)
                        return r;
                if (now_monotonic_usec() >= deadline)
                        return -EBUSY;
                (void) nanosleep(&(struct timespec) { .tv_nsec = 50 * 1000 * 1000 }, NULL);
        }
        if (unlinkat(dirfd, strrchr(path, '/') + 1, 0) < 0)
                return -errno;
        (void) fsync_directory(dirfd);
        return 1;
}

int zram_writeback_forget(const char *root, int id) {
        WritebackRecord rec;
        int r = writeback_record_load(root, &rec);
        if (r < 0)
                return r;
        if (rec.zram_id != id) {
                writeback_record_done(&rec);
                return 0;
        }
        /* The mapping first (WritebackEncrypt=yes): the kernel's copy of the key goes with it, and
         * autoclear detaches the loop device under it. */
        if (rec.file && root_is_host(root)) {
                int k = crypt_unmap_file(root, rec.file, NULL);
                if (k < 0)
                        r = k;
        }
        if (rec.loop && rec.file && root_is_host(root)) {
                _cleanup_free_ char *dev = NULL;
                /* Still attached to our file (autoclear did not run: someone else holds it)?
                 * Then detach it as losetup -d does; it goes when its last user closes it. */
                if (loop_find_by_backing_file(root, rec.file, &dev) >= 0 && streq(dev, rec.loop)) {
                        _cleanup_close_ int fd = open(rec.loop, O_RDONLY | O_CLOEXEC | O_NOCTTY);
                        if (fd >= 0 && ioctl(fd, LOOP_CLR_FD) < 0 && errno != ENXIO)
                                r = -errno;
                }
        }
        writeback_record_done(&rec);
        _cleanup_free_ char *p = path_join_root(root, WRITEBACK_RECORD_PATH);
        if (!p)
                return -ENOMEM;
        if (unlink(p) < 0 && errno != ENOENT && r >= 0)
                r = -errno;
        return r < 0 ? r : 1;
}

int zram_writeback_run(const char *root, const Policy *p, int id, bool force, WritebackRun *ret, char **ret_reason) {
        WritebackRun run = { .budget_left = UINT64_MAX };
        _cleanup_(writeback_record_done) WritebackRecord rec = { .zram_id = -1 };
        uint64_t now = now_realtime_usec(), before = 0, after = 0;
        char v[32];
        int r;

        r = writeback_record_load(root, &rec);
        if (r < 0)
                return r;
        if (rec.zram_id != id) {
                /* A device set up without writeback, or by an older nodeswap: start its record. */
                free(rec.loop);
                free(rec.file);
                writeback_record_init(&rec);
                rec.zram_id = id;
        }

        uint64_t interval = p->zram.writeback_interval * USEC_PER_SEC;
        run.due = force || interval == 0 || rec.last_usec == 0 || now < rec.last_usec ||
                  now - rec.last_usec >= interval;
        if (!run.due) {
                *ret = run;
                return 0;
        }

        bool wb = p->zram.writeback != NULL;
        ZramBdStat bd;
        if (wb && zram_read_bd_stat(root, id, &bd) >= 0)
                before = bd.writes;

        /* The day's budget: the kernel counts writeback_limit down and stops at 0; nodeswap fills
         * it up again at the first run a day after the window began. */
        if (wb && p->zram.writeback_limit > 0 &&
            (rec.window_usec == 0 || now < rec.window_usec || now - rec.window_usec >= WRITEBACK_WINDOW_USEC)) {
                r = set_budget(root, id, p->zram.writeback_limit);
                if (r < 0)
                        return fail(ret_reason, r, "Failed to set writeback_limit of /dev/zram%d: %m", id);
                rec.window_usec = now;
                rec.window_start_writes = before;
                run.budget_reset = true;
        } else if (wb && p->zram.writeback_limit == 0) {
                uint64_t enabled = 0;
                if (attr_read_u64_field(root, id, "writeback_limit_enable", 0, &enabled) >= 0 && enabled &&
                    (r = attr_write(root, id, "writeback_limit_enable", "0")) < 0)
                        return fail(ret_reason, r, "Failed to turn off writeback_limit_enable of /dev/zram%d: %m", id);
        }

        /* Idle pages: by age where the kernel keeps each page's access time, else "all" now and
         * whatever nobody touched by the next run counts as idle then. */
        snprintf(v, sizeof v, "%" PRIu64, p->zram.writeback_idle_after);
        r = attr_write(root, id, "idle", v);
        bool act = true;
        if (r >= 0)
                run.idle_by_age = true;
        else if (r == -EINVAL) {
                act = rec.marked_usec != 0 && now >= rec.marked_usec;
                run.waiting_for_idle = !act;
        } else
                return fail(ret_reason, r, "Failed to mark idle pages of /dev/zram%d: %m", id);

        if (act && p->zram.recompress) {
                r = attr_write(root, id, "recompress", "type=idle");
                if (r < 0)
                        return fail(ret_reason, r, "Failed to recompress idle pages of /dev/zram%d: %m", id);
                run.recompressed = true;
        }
        if (act && wb) {
                r = attr_write(root, id, "writeback", "idle");
                /* The kernel answers EIO when writeback_limit is used up. */
                if (r == -EIO && p->zram.writeback_limit > 0)
                        run.limit_reached = true;
                else if (r < 0)
                        return fail(ret_reason, r, "Failed to write idle pages of /dev/zram%d back: %m", id);
                if (zram_read_bd_stat(root, id, &bd) >= 0)
                        after = bd.writes;
                run.written = after > before ? after - before : 0;
        }
        if (run.idle_by_age)
                rec.marked_usec = 0;
        else if (attr_write(root, id, "idle", "all") >= 0)
                rec.marked_usec = now;

        uint64_t left;
        if (wb && p->zram.writeback_limit > 0 && attr_read_u64_field(root, id, "writeback_limit", 0, &left) >= 0)
                run.budget_left = left * ZRAM_WRITEBACK_UNIT;
        rec.last_usec = now;
        r = record_save(root, &rec);
        if (r < 0)
                return fail(ret_reason, r, "Failed to write %s: %m", WRITEBACK_RECORD_PATH);
        *ret = run;
        return 0;
}
