/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define ELEMENTSOF(x) (sizeof(x) / sizeof((x)[0]))
#define _cleanup_(f) __attribute__((cleanup(f)))
#define _unused_ __attribute__((unused))
#define _printf_(a, b) __attribute__((format(printf, a, b)))

#define KiB (UINT64_C(1024))
#define MiB (UINT64_C(1024) * KiB)
#define GiB (UINT64_C(1024) * MiB)
#define TiB (UINT64_C(1024) * GiB)

#define USEC_PER_MSEC UINT64_C(1000)
#define USEC_PER_SEC UINT64_C(1000000)
#define NSEC_PER_SEC UINT64_C(1000000000)

/* How much read_full_file() reads of a file whose size nodeswap does not control, at most; more
 * is refused (-EFBIG) rather than trusted. READ_SMALL_MAX: a sysfs attribute, a flags file, a
 * drop-in. READ_TEXT_MAX: a text of some thousand lines (/proc/meminfo, /proc/self/smaps,
 * nodeswap's own state file). */
#define READ_SMALL_MAX (64 * KiB)
#define READ_TEXT_MAX (1 * MiB)


/* Hand over a pointer and forget it: "return TAKE_PTR(buf);" with buf freed by a cleanup. */
#define TAKE_PTR(p)                              \
        ({                                       \
                __typeof__(p) _taken_ = (p);     \
                (p) = NULL;                      \
                _taken_;                         \
        })

/* The same for a file descriptor: "*ret_fd = TAKE_FD(fd);" with fd closed by a cleanup. */
#define TAKE_FD(fd)                              \
        ({                                       \
                int _fd_ = (fd);                 \
                (fd) = -EBADF;                   \
                _fd_;                            \
        })

static inline void freep(void *p) {
        free(*(void **) p);
}
static inline void closep(int *fd) {
        if (*fd >= 0) {
                int saved = errno;
                close(*fd);
                errno = saved;
        }
}
static inline void fclosep(FILE **f) {
        if (*f)
                fclose(*f);
}
static inline void closedirp(DIR **d) {
        if (*d)
                closedir(*d);
}
void strv_free(char **l);
static inline void strv_freep(char ***l) {
        strv_free(*l);
}
#define _cleanup_free_ _cleanup_(freep)
#define _cleanup_close_ _cleanup_(closep)
#define _cleanup_fclose_ _cleanup_(fclosep)
#define _cleanup_strv_free_ _cleanup_(strv_freep)

static inline bool streq(const char *a, const char *b) {
        return strcmp(a, b) == 0;
}
static inline bool streq_ptr(const char *a, const char *b) {
        if (!a || !b)
                return a == b;
        return streq(a, b);
}
static inline const char *strempty(const char *s) {
        return s ? s : "";
}
bool endswith(const char *s, const char *suffix);
bool startswith(const char *s, const char *prefix);

/* NULL-terminated string vectors. */
size_t strv_length(char *const *l);
bool strv_contains(char *const *l, const char *s);
int strv_push(char ***l, char *value);           /* takes ownership of value, even on failure */
int strv_extend(char ***l, const char *value);   /* copies value */
char **strv_copy(char *const *l);
/* Split on white space. Returns NULL on ENOMEM. An empty input gives an empty vector. */
char **strv_split_ws(const char *s);
char *strv_join(char *const *l, const char *sep);

char *strdup_printf(const char *fmt, ...) _printf_(1, 2);
/* Leading blanks skipped, trailing blanks and CR cut off in place (config lines). */
char *strstrip(char *s);

/* Join the root prefix and an absolute host path: ("/tmp/x", "/proc/swaps") -> "/tmp/x/proc/swaps".
 * A root of NULL, "" or "/" returns a copy of path. Returns NULL on ENOMEM. */
char *path_join_root(const char *root, const char *path);
static inline bool root_is_host(const char *root) {
        return !root || !*root || streq(root, "/");
}

/* Read fd to its end into a NUL-terminated buffer. More than max bytes: -EFBIG, or with truncate
 * the first max bytes. ret_len may be NULL. */
int read_fd_full(int fd, size_t max, bool truncate, char **ret, size_t *ret_len);
/* Read a whole (small) file below root into a NUL-terminated buffer. Trailing newline kept.
 * -errno on failure, -EFBIG if larger than max bytes. */
int read_full_file(const char *path, size_t max, char **ret);
/* Read the first line of a file, without the newline. */
int read_one_line(const char *path, char **ret);
int read_u64_file(const char *path, uint64_t *ret);
int read_int_file(const char *path, int *ret);

/* Write value (no newline appended) to an existing file such as a sysfs or procfs attribute
 * (O_TRUNC, O_NOFOLLOW). */
int write_string_file(const char *path, const char *value);

/* Replace path (its directory must exist) with content atomically: a temporary file
 * ".#NAME.nodeswap-PID" in the same directory (O_CREAT|O_EXCL|O_NOFOLLOW; a name that keeps no
 * suffix of NAME, so that readers matching *.conf or *.prom never see it), mode, fsync, rename
 * over path, fsync of the directory. A symlink at path is replaced, never followed. */
int write_file_atomic(const char *path, const char *content, mode_t mode);

/* Parse a plain unsigned decimal number (no sign, no suffix, whole string). errno reset first. */
int safe_atou64(const char *s, uint64_t *ret);
int safe_atoi(const char *s, int *ret);

/* "2.0 GiB", "512.0 MiB", "4.0 KiB", "17 B" */
const char *format_bytes(char *buf, size_t len, uint64_t bytes);
#define FORMAT_BYTES_MAX 32

/* Whether to colour what goes to fd: a terminal, NO_COLOR unset or empty (no-color.org), and a
 * TERM other than "dumb". */
bool colors_enabled(int fd);
