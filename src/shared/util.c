/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "shared/util.h"

#include <ctype.h>
#include <fcntl.h>
#include <inttypes.h>
#include <libgen.h>
#include <stdarg.h>
#include <sys/stat.h>

void strv_free(char **l) {
        if (!l)
                return;
        for (char **i = l; *i; i++)
                free(*i);
        free(l);
}

bool endswith(const char *s, const char *suffix) {
        size_t a = strlen(s), b = strlen(suffix);
        return a >= b && memcmp(s + a - b, suffix, b) == 0;
}

bool startswith(const char *s, const char *prefix) {
        return strncmp(s, prefix, strlen(prefix)) == 0;
}

size_t strv_length(char *const *l) {
        size_t n = 0;
        if (l)
                while (l[n])
                        n++;
        return n;
}

bool strv_contains(char *const *l, const char *s) {
        if (!l)
                return false;
        for (; *l; l++)
                if (streq(*l, s))
                        return true;
        return false;
}

int strv_push(char ***l, char *value) {
        size_t n = strv_length(*l);
        char **c = realloc(*l, sizeof(char *) * (n + 2));
        if (!c) {
                free(value);
                return -ENOMEM;
        }
        c[n] = value;
        c[n + 1] = NULL;
        *l = c;
        return 0;
}

int strv_extend(char ***l, const char *value) {
        char *v = strdup(value);
        if (!v)
                return -ENOMEM;
        return strv_push(l, v);
}

char **strv_copy(char *const *l) {
        size_t n = strv_length(l);
        char **c = calloc(n + 1, sizeof(char *));
        if (!c)
                return NULL;
        for (size_t i = 0; i < n; i++) {
                c[i] = strdup(l[i]);
                if (!c[i]) {
                        strv_free(c);
                        return NULL;
                }
        }
        return c;
}

char **strv_split_ws(const char *s) {
        char **l = calloc(1, sizeof(char *));
        if (!l)
                return NULL;
        while (*s) {
                while (*s && isspace((unsigned char) *s))
                        s++;
                if (!*s)
                        break;
                const char *e = s;
                while (*e && !isspace((unsigned char) *e))
                        e++;
                char *w = strndup(s, e - s);
                if (!w || strv_push(&l, w) < 0) {
                        strv_free(l);
                        return NULL;
                }
                s = e;
        }
        return l;
}

char *strv_join(char *const *l, const char *sep) {
        size_t len = 1, n = strv_length(l), sl = strlen(sep);
        for (size_t i = 0; i < n; i++)
                len += strlen(l[i]) + (i ? sl : 0);
        char *r = malloc(len), *p = r;
        if (!r)
                return NULL;
        for (size_t i = 0; i < n; i++) {
                if (i)
                        p = stpcpy(p, sep);
                p = stpcpy(p, l[i]);
        }
        *p = 0;
        return r;
}

char *strdup_printf(const char *fmt, ...) {
        va_list ap;
        char *r;
        va_start(ap, fmt);
        int k = vasprintf(&r, fmt, ap);
        va_end(ap);
        return k < 0 ? NULL : r;
}

char *path_join_root(const char *root, const char *path) {
        if (root_is_host(root))
                return strdup(path);
        size_t rl = strlen(root);
        while (rl > 1 && root[rl - 1] == '/')
                rl--;
        return strdup_printf("%.*s%s%s", (int) rl, root, path[0] == '/' ? "" : "/", path);
}

int read_fd_full(int fd, size_t max, bool truncate, char **ret, size_t *ret_len) {
        size_t len = 0, cap = max < 4096 ? max : 4096;
        _cleanup_free_ char *buf = malloc(cap + 1);
        if (!buf)
                return -ENOMEM;
        for (;;) {
                if (len == cap) {
                        if (cap >= max) {
                                if (truncate)
                                        break;
                                /* one more byte tells a file of exactly max bytes from a longer one */
                                char c;
                                ssize_t k = read(fd, &c, 1);
                                if (k < 0 && errno == EINTR)
                                        continue;
                                if (k < 0)
                                        return -errno;
                                if (k > 0)
                                        return -EFBIG;
                                break;
                        }
                        cap = cap * 2 > max ? max : cap * 2;
                        char *n = realloc(buf, cap + 1);
                        if (!n)
                                return -ENOMEM;
                        buf = n;
                }
                ssize_t k = read(fd, buf + len, cap - len);
                if (k < 0) {
                        if (errno == EINTR)
                                continue;
                        return -errno;
                }
                if (k == 0)
                        break;
                len += (size_t) k;
        }
        buf[len] = 0;
        *ret = buf;
        buf = NULL;
        if (ret_len)
                *ret_len = len;
        return 0;
}

int read_full_file(const char *path, size_t max, char **ret) {
        _cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
        if (fd < 0)
                return -errno;
        size_t len;
        int r = read_fd_full(fd, max, false, ret, &len);
        if (r < 0)
                return r;
        return (int) (len > INT32_MAX ? INT32_MAX : len);
}

int read_one_line(const char *path, char **ret) {
        char *buf;
        int r = read_full_file(path, READ_SMALL_MAX, &buf);
        if (r < 0)
                return r;
        buf[strcspn(buf, "\n")] = 0;
        *ret = buf;
        return 0;
}

int safe_atou64(const char *s, uint64_t *ret) {
        if (!s || !isdigit((unsigned char) s[0]))
                return -EINVAL;
        char *end;
        errno = 0;
        unsigned long long v = strtoull(s, &end, 10);
        if (errno == ERANGE)
                return -ERANGE;
        if (errno != 0 || *end)
                return -EINVAL;
        *ret = v;
        return 0;
}

int safe_atoi(const char *s, int *ret) {
        if (!s || !*s || isspace((unsigned char) s[0]))
                return -EINVAL;
        char *end;
        errno = 0;
        long v = strtol(s, &end, 10);
        if (errno == ERANGE || v > INT32_MAX || v < INT32_MIN)
                return -ERANGE;
        if (errno != 0 || *end)
                return -EINVAL;
        *ret = (int) v;
        return 0;
}

int read_u64_file(const char *path, uint64_t *ret) {
        _cleanup_free_ char *l = NULL;
        int r = read_one_line(path, &l);
        if (r < 0)
                return r;
        l[strcspn(l, " \t")] = 0;
        return safe_atou64(l, ret);
}

int read_int_file(const char *path, int *ret) {
        _cleanup_free_ char *l = NULL;
        int r = read_one_line(path, &l);
        if (r < 0)
                return r;
        l[strcspn(l, " \t")] = 0;
        return safe_atoi(l, ret);
}

int write_string_file(const char *path, const char *value) {
        /* O_TRUNC is what a shell's "echo >" does: a no-op on sysfs and procfs, and in a fixture tree
         * it leaves the file holding just the value written. */
        _cleanup_close_ int fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC | O_NOCTTY | O_NOFOLLOW);
        if (fd < 0)
                return -errno;
        size_t len = strlen(value);
        ssize_t k;
        do
                k = write(fd, value, len);
        while (k < 0 && errno == EINTR);
        if (k < 0)
                return -errno;
        if ((size_t) k != len)
                return -EIO;
        return 0;
}

int write_file_atomic(const char *path, const char *content, mode_t mode) {
        _cleanup_free_ char *dir_copy = strdup(path), *base_copy = strdup(path);
        if (!dir_copy || !base_copy)
                return -ENOMEM;
        const char *dir = dirname(dir_copy);
        int r;

        _cleanup_close_ int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (dfd < 0)
                return -errno;
        const char *base = basename(base_copy);
        _cleanup_free_ char *tmp = strdup_printf(".#%s.nodeswap-%d", base, (int) getpid());
        if (!tmp)
                return -ENOMEM;

        (void) unlinkat(dfd, tmp, 0);
        _cleanup_close_ int fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
        if (fd < 0)
                return -errno;
        size_t len = strlen(content), done = 0;
        while (done < len) {
                ssize_t k = write(fd, content + done, len - done);
                if (k < 0) {
                        if (errno == EINTR)
                                continue;
                        r = -errno;
                        goto fail;
                }
                done += (size_t) k;
        }
        if (fchmod(fd, mode) < 0 || fsync(fd) < 0) {
                r = -errno;
                goto fail;
        }
        if (renameat(dfd, tmp, dfd, base) < 0) {
                r = -errno;
                goto fail;
        }
        (void) fsync(dfd);
        return 0;
fail:
        (void) unlinkat(dfd, tmp, 0);
        return r;
}

const char *format_bytes(char *buf, size_t len, uint64_t bytes) {
        static const char *const units[] = { "KiB", "MiB", "GiB", "TiB", "PiB" };
        if (bytes < KiB) {
                snprintf(buf, len, "%" PRIu64 " B", bytes);
                return buf;
        }
        double v = (double) bytes / 1024.0;
        size_t u = 0;
        while (v >= 1024.0 && u + 1 < ELEMENTSOF(units)) {
                v /= 1024.0;
                u++;
        }
        snprintf(buf, len, "%.1f %s", v, units[u]);
        return buf;
}

bool colors_enabled(int fd) {
        const char *no = getenv("NO_COLOR"), *term = getenv("TERM");
        if (no && *no)
                return false;
        if (term && streq(term, "dumb"))
                return false;
        return isatty(fd) == 1;
}

char *strstrip(char *s) {
        s += strspn(s, " \t");
        size_t l = strlen(s);
        while (l > 0 && strchr(" \t\r", s[l - 1]))
                s[--l] = 0;
        return s;
}
