/* SPDX-License-Identifier: GPL-2.0-or-later */
/* nodeswap's state files written: rendered from a NodeswapState, replaced atomically. */
#include "execute/state-save.h"

#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <sys/random.h>
#include <sys/stat.h>

typedef struct Buf {
        char *s;
        size_t len;
        bool oom;
} Buf;

static void buf_printf(Buf *b, const char *fmt, ...) _printf_(2, 3);
static void buf_printf(Buf *b, const char *fmt, ...) {
        if (b->oom)
                return;
        va_list ap;
        char *piece;
        va_start(ap, fmt);
        int k = vasprintf(&piece, fmt, ap);
        va_end(ap);
        if (k < 0) {
                b->oom = true;
                return;
        }
        char *n = realloc(b->s, b->len + (size_t) k + 1);
        if (!n) {
                free(piece);
                b->oom = true;
                return;
        }
        memcpy(n + b->len, piece, (size_t) k + 1);
        free(piece);
        b->s = n;
        b->len += (size_t) k;
}

static char *buf_finish(Buf *b) {
        if (b->oom) {
                free(b->s);
                return NULL;
        }
        return b->s;
}

char *state_format_persistent(const NodeswapState *s) {
        Buf b = {};
        buf_printf(&b, "# nodeswap's own record; survives reboots. Do not edit.\n");
        if (s->saved_swappiness >= 0)
                buf_printf(&b, "saved_swappiness=%d\n", s->saved_swappiness);
        if (s->saved_page_cluster >= 0)
                buf_printf(&b, "saved_page_cluster=%d\n", s->saved_page_cluster);
        if (s->saved_min_free_kbytes >= 0)
                buf_printf(&b, "saved_min_free_kbytes=%d\n", s->saved_min_free_kbytes);
        if (s->saved_watermark_scale_factor >= 0)
                buf_printf(&b, "saved_watermark_scale_factor=%d\n", s->saved_watermark_scale_factor);
        if (s->set_min_free_kbytes >= 0)
                buf_printf(&b, "set_min_free_kbytes=%d\n", s->set_min_free_kbytes);
        for (size_t i = 0; i < _ZSWAP_PARAM_MAX; i++)
                if (s->saved_zswap[i])
                        buf_printf(&b, "saved_zswap_%s=%s\n", zswap_param_to_string(i), s->saved_zswap[i]);
        buf_printf(&b, "reverted=%s\n", s->reverted ? "yes" : "no");
        for (char **u = s->stopped_units; u && *u; u++)
                buf_printf(&b, "stopped_unit=%s\n", *u);
        for (char **u = s->no_swap_units; u && *u; u++)
                buf_printf(&b, "no_swap_unit=%s\n", *u);
        if (s->io_latency_usec > 0)
                buf_printf(&b, "io_latency=%u:%u %" PRIu64 "\n", s->io_latency_major, s->io_latency_minor,
                           s->io_latency_usec);
        if (s->swap_changed_usec > 0)
                buf_printf(&b, "swap_changed_usec=%" PRIu64 "\n", s->swap_changed_usec);
        for (char **f = s->swap_files; f && *f; f++)
                buf_printf(&b, "swap_file=%s\n", *f);
        for (char **f = s->writeback_files; f && *f; f++)
                buf_printf(&b, "writeback_file=%s\n", *f);
        if (s->last_run_usec > 0)
                buf_printf(&b, "last_run=%s\nlast_run_usec=%" PRIu64 "\nlast_run_result=%s\n",
                           s->last_run_revert ? "revert" : "apply", s->last_run_usec,
                           s->last_run_failed ? "failed" : "ok");
        return buf_finish(&b);
}

char *state_format_runtime(const NodeswapState *s) {
        Buf b = {};
        buf_printf(&b, "# nodeswap's own record for this boot. Do not edit.\n");
        for (size_t i = 0; i < s->n_zram_ids; i++)
                buf_printf(&b, "zram_id=%d\n", s->zram_ids[i]);
        return buf_finish(&b);
}

/* mkdir -p: parents 0755, the last component with mode. Never follows a symlink for the last one. */
static int mkdir_parents_last(const char *path, mode_t mode) {
        _cleanup_free_ char *p = strdup(path);
        if (!p)
                return -ENOMEM;
        for (char *s = strchr(p + 1, '/'); s; s = strchr(s + 1, '/')) {
                *s = 0;
                if (mkdir(p, 0755) < 0 && errno != EEXIST)
                        return -errno;
                *s = '/';
        }
        if (mkdir(p, mode) < 0) {
                if (errno != EEXIST)
                        return -errno;
                struct stat st;
                if (lstat(p, &st) < 0)
                        return -errno;
                if (!S_ISDIR(st.st_mode))
                        return -ENOTDIR;
        }
        return 0;
}

static int write_all(int fd, const char *data, size_t len) {
        while (len > 0) {
                ssize_t k = write(fd, data, len);
                if (k < 0) {
                        if (errno == EINTR)
                                continue;
                        return -errno;
                }
                data += k;
                len -= (size_t) k;
        }
        return 0;
}

/* Atomically replace path (absolute, already root-joined) with contents, unless it already holds
 * exactly them. Returns 1 when written, 0 when unchanged.
 *
 * durable: fsync the file before the rename and the directory after it, so that the new contents
 * survive a power cut. Without it the write is still atomic for every reader and survives the
 * writer being killed (write and rename are done once they return; the page cache keeps them),
 * just not a power cut.
 * create_if_empty_as: when the file does not exist and contents equals this text (what a missing
 * file reads as anyway), nothing is created. NULL: always create. */
static int write_atomic_if_changed(const char *path, const char *contents, bool durable,
                                   const char *create_if_empty_as) {
        _cleanup_free_ char *old = NULL;
        int k = read_full_file(path, READ_TEXT_MAX, &old);
        if (k >= 0 && streq(old, contents))
                return 0;
        if (k == -ENOENT && create_if_empty_as && streq(contents, create_if_empty_as))
                return 0;

        _cleanup_free_ char *dir = strdup(path);
        if (!dir)
                return -ENOMEM;
        char *slash = strrchr(dir, '/');
        if (!slash)
                return -EINVAL;
        *slash = 0;
        int r = mkdir_parents_last(dir, 0700);
        if (r < 0)
                return r;

        _cleanup_free_ char *tmp = NULL;
        _cleanup_close_ int fd = -1;
        for (int attempt = 0; attempt < 16; attempt++) {
                uint64_t rnd;
                if (getrandom(&rnd, sizeof rnd, GRND_NONBLOCK) != (ssize_t) sizeof rnd)
                        rnd = ((uint64_t) getpid() << 20) ^ (uint64_t) attempt ^ (uint64_t) (uintptr_t) &rnd;
                free(tmp);
                tmp = strdup_printf("%s/.#state.%016" PRIx64, dir, rnd);
                if (!tmp)
                        return -ENOMEM;
                fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
                if (fd >= 0 || errno != EEXIST)
                        break;
        }
        if (fd < 0)
                return -errno;

        r = write_all(fd, contents, strlen(contents));
        if (r >= 0 && durable && fsync(fd) < 0)
                r = -errno;
        if (r >= 0 && rename(tmp, path) < 0)
                r = -errno;
        if (r < 0) {
                (void) unlink(tmp);
                return r;
        }
        if (!durable)
                return 1;

        _cleanup_close_ int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (dfd < 0)
                return -errno;
        if (fsync(dfd) < 0)
                return -errno;
        return 1;
}

int state_save(const char *root, const NodeswapState *s) {
        _cleanup_free_ char *persistent = state_format_persistent(s);
        _cleanup_free_ char *runtime = state_format_runtime(s);
        _cleanup_free_ char *pp = path_join_root(root, STATE_PERSISTENT_PATH);
        _cleanup_free_ char *rp = path_join_root(root, STATE_RUNTIME_PATH);
        if (!persistent || !runtime || !pp || !rp)
                return -ENOMEM;
        /* /var/lib/nodeswap must survive a power cut: fsync'ed, whenever the new file or the one it
         * replaces holds a record a later run needs. A rename that is not fsync'ed may come back
         * from a power cut as an empty file, which is harmless only when neither held one: then
         * the file is bookkeeping alone (a zram-only node without sysctls), and its fsyncs, which
         * wait for the root file system's journal, would be most of a zram apply's time.
         * /run/nodeswap is this boot's only (tmpfs under systemd, where fsync does nothing; where
         * /run is on disk a record from before a power cut is stale anyway): atomic, not fsync'ed,
         * and not created while it would say nothing (no zram device of ours), as a missing file
         * reads the same. */
        bool durable = state_has_records(s);
        if (!durable) {
                NodeswapState old;
                int k = state_load_persistent(root, &old);
                durable = k < 0 || old.unreadable || state_has_records(&old);
                if (k >= 0)
                        nodeswap_state_done(&old);
        }
        int r = write_atomic_if_changed(pp, persistent, durable, NULL);
        if (r < 0)
                return r;
        return state_save_runtime(root, s);
}

int state_save_runtime(const char *root, const NodeswapState *s) {
        _cleanup_free_ char *runtime = state_format_runtime(s);
        _cleanup_free_ char *rp = path_join_root(root, STATE_RUNTIME_PATH);
        NodeswapState empty;
        nodeswap_state_init(&empty);
        _cleanup_free_ char *runtime_empty = state_format_runtime(&empty);
        if (!runtime || !rp || !runtime_empty)
                return -ENOMEM;
        int r = write_atomic_if_changed(rp, runtime, false, runtime_empty);
        return r < 0 ? r : 0;
}
