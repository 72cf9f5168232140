/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "shared/path-util.h"

#include <fcntl.h>
#include <limits.h>
#include <sys/stat.h>

#include "shared/reason.h"

bool path_is_normalized_file(const char *path) {
        if (!path || path[0] != '/' || path[1] == 0)
                return false;
        for (const char *p = path; *p;) {
                /* p points at a '/' */
                const char *c = p + 1;
                const char *e = strchrnul(c, '/');
                size_t n = (size_t) (e - c);
                if (n == 0 || (n == 1 && c[0] == '.') || (n == 2 && c[0] == '.' && c[1] == '.'))
                        return false;
                if (n > NAME_MAX)
                        return false;
                p = e;
        }
        return true;
}

char *path_dirname(const char *path) {
        const char *s = strrchr(path, '/');
        if (!s || s == path)
                return strdup("/");
        return strndup(path, (size_t) (s - path));
}

bool path_has_prefix(const char *path, const char *prefix) {
        if (streq(prefix, "/"))
                return path[0] == '/';
        size_t l = strlen(prefix);
        return strncmp(path, prefix, l) == 0 && (path[l] == 0 || path[l] == '/');
}

char *path_join(const char *dir, const char *name) {
        return strdup_printf("%s%s%s", dir, endswith(dir, "/") ? "" : "/", name);
}

int readlink_malloc(const char *path, char **ret) {
        for (size_t sz = 256;; sz *= 2) {
                _cleanup_free_ char *buf = malloc(sz);
                if (!buf)
                        return -ENOMEM;
                ssize_t k = readlink(path, buf, sz);
                if (k < 0)
                        return -errno;
                if ((size_t) k < sz) {
                        buf[k] = 0;
                        *ret = TAKE_PTR(buf);
                        return 0;
                }
                if (sz > 64 * 1024)
                        return -ENAMETOOLONG;
        }
}

int dir_count_entries(const char *path, char **ret_first) {
        _cleanup_(closedirp) DIR *d = opendir(path);
        if (!d)
                return -errno;
        int n = 0;
        struct dirent *de;
        _cleanup_free_ char *first = NULL;
        while ((errno = 0, de = readdir(d))) {
                if (streq(de->d_name, ".") || streq(de->d_name, ".."))
                        continue;
                if (n == 0 && ret_first) {
                        first = strdup(de->d_name);
                        if (!first)
                                return -ENOMEM;
                }
                n++;
        }
        if (errno > 0)
                return -errno;
        if (ret_first)
                *ret_first = TAKE_PTR(first);
        return n;
}

static int check_dir(int fd, const char *shown, const char *what, char **ret_reason) {
        struct stat st;
        if (fstat(fd, &st) < 0)
                return reason_set(ret_reason, -errno, "cannot stat %s: %m", shown);
        if (st.st_uid != 0)
                return reason_set(ret_reason, -EPERM, "%s is owned by uid %u, not root; refusing %s below it", shown,
                                  (unsigned) st.st_uid, what);
        if (st.st_mode & (S_IWGRP | S_IWOTH))
                return reason_set(ret_reason, -EPERM,
                                  "%s is writable by group or others (mode %04o); refusing %s below it", shown,
                                  (unsigned) (st.st_mode & 07777), what);
        return 0;
}

int path_open_parent_secure(const char *root, const char *path, bool create, const char *what,
                            int *ret_dirfd, char **ret_name, char **ret_reason) {
        int r;

        if (!path_is_normalized_file(path))
                return reason_set(ret_reason, -EINVAL, "'%s' is not an absolute, normalised path", strempty(path));

        const char *top = root_is_host(root) ? "/" : root;
        _cleanup_close_ int fd = open(top, O_PATH | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0)
                return reason_set(ret_reason, -errno, "cannot open the root directory %s: %m", top);
        r = check_dir(fd, "/", what, ret_reason);
        if (r < 0)
                return r;

        _cleanup_free_ char *copy = strdup(path), *shown = strdup(path);
        if (!copy || !shown)
                return -ENOMEM;

        char *c = copy + 1;
        for (char *slash; (slash = strchr(c, '/')); c = slash + 1) {
                *slash = 0;
                shown[slash - copy] = 0;        /* shown: the host path up to this component */

                int nfd = openat(fd, c, O_PATH | O_NOFOLLOW | O_DIRECTORY | O_CLOEXEC);
                if (nfd < 0 && errno == ENOENT && create) {
                        if (mkdirat(fd, c, 0700) < 0 && errno != EEXIST)
                                return reason_set(ret_reason, -errno, "cannot create directory %s: %m", shown);
                        if (fchownat(fd, c, 0, 0, AT_SYMLINK_NOFOLLOW) < 0)
                                return reason_set(ret_reason, -errno, "cannot chown directory %s: %m", shown);
                        nfd = openat(fd, c, O_PATH | O_NOFOLLOW | O_DIRECTORY | O_CLOEXEC);
                }
                if (nfd < 0) {
                        int e = errno;
                        struct stat st;
                        if (fstatat(fd, c, &st, AT_SYMLINK_NOFOLLOW) >= 0 && S_ISLNK(st.st_mode))
                                return reason_set(ret_reason, -ELOOP,
                                                  "%s is a symlink; nodeswap follows no symlinks on the path of %s",
                                                  shown, what);
                        if (e == ENOTDIR)
                                return reason_set(ret_reason, -ENOTDIR, "%s is not a directory", shown);
                        if (e == ENOENT)
                                return reason_set(ret_reason, -ENOENT, "%s does not exist", shown);
                        errno = e;
                        return reason_set(ret_reason, -e, "cannot open %s: %m", shown);
                }
                close(fd);
                fd = nfd;

                r = check_dir(fd, shown, what, ret_reason);
                if (r < 0)
                        return r;
                shown[slash - copy] = '/';
        }

        char *name = strdup(c);
        if (!name)
                return -ENOMEM;
        *ret_name = name;
        *ret_dirfd = fd;
        fd = -EBADF;
        return 0;
}

int fsync_directory(int dirfd) {
        _cleanup_close_ int fd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0)
                return -errno;
        if (fsync(fd) < 0)
                return -errno;
        return 0;
}
