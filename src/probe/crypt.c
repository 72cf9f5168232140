/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "probe/crypt.h"

#include <dirent.h>
#include <fcntl.h>

#include "shared/path-util.h"
#include "shared/unit-name.h"

int crypt_swap_name(const char *path, char **ret) {
        _cleanup_free_ char *e = unit_name_path_escape(path);
        if (!e)
                return -ENOMEM;
        /* libdevmapper reads "\xNN" in a name as a mangled character (dm_set_name_mangling_mode(),
         * DM_STRING_MANGLING_AUTO, dmsetup's default), so dmsetup could not address such a mapping;
         * '#' is in its whitelist and never in systemd's escaped text (it escapes '#' itself), so
         * "\x2d" becomes "#2d", as unambiguous. */
        for (char *q = e; (q = strstr(q, "\\x")); )
                memmove(q, q + 1, strlen(q + 1) + 1), *q = '#';
        char *n = strdup_printf(CRYPT_NAME_PREFIX "%s", e);
        if (!n)
                return -ENOMEM;
        if (strlen(n) > CRYPT_NAME_MAX) {
                free(n);
                return -ENAMETOOLONG;
        }
        *ret = n;
        return 0;
}

int crypt_mapping_find(const char *root, const char *name, char **ret) {
        _cleanup_free_ char *sys = path_join_root(root, "/sys/block");
        if (!sys)
                return -ENOMEM;
        _cleanup_(closedirp) DIR *d = opendir(sys);
        if (!d)
                return errno == ENOENT ? -ENOENT : -errno;
        struct dirent *de;
        while ((de = readdir(d))) {
                if (!startswith(de->d_name, "dm-"))
                        continue;
                _cleanup_free_ char *p = strdup_printf("%s/%s/dm/name", sys, de->d_name), *n = NULL;
                if (!p)
                        return -ENOMEM;
                if (read_one_line(p, &n) < 0 || !streq(n, name))
                        continue;
                *ret = strdup_printf("/dev/%s", de->d_name);
                return *ret ? 0 : -ENOMEM;
        }
        return -ENOENT;
}

int crypt_marker_probe(int fd) {
        char buf[CRYPT_MARKER_SIZE];
        ssize_t k = pread(fd, buf, sizeof buf, 0);
        if (k < 0)
                return -errno;
        return (size_t) k == sizeof buf && memcmp(buf, CRYPT_MARKER_MAGIC, sizeof buf) == 0;
}

/* The name of the one entry of dir (a slaves/ directory): 0 and *ret, -ENOENT none or more than one. */
static int only_entry(const char *dir, char **ret) {
        _cleanup_(closedirp) DIR *d = opendir(dir);
        if (!d)
                return -errno;
        char *found = NULL;
        struct dirent *de;
        while ((de = readdir(d))) {
                if (de->d_name[0] == '.')
                        continue;
                if (found) {
                        free(found);
                        return -ENOENT;
                }
                if (!(found = strdup(de->d_name)))
                        return -ENOMEM;
        }
        if (!found)
                return -ENOENT;
        *ret = found;
        return 0;
}

int crypt_swap_resolve(const char *root, const char *dev, char **ret_file, char **ret_loop, bool *ret_dio) {
        if (!startswith(dev, "/dev/dm-") || strchr(dev + 5, '/'))
                return 0;
        const char *kname = dev + 5;
        _cleanup_free_ char *rel = strdup_printf("/sys/block/%s/dm/name", kname);
        _cleanup_free_ char *p = rel ? path_join_root(root, rel) : NULL, *name = NULL;
        if (!p)
                return -ENOMEM;
        int r = read_one_line(p, &name);
        if (r == -ENOENT)
                return 0;
        if (r < 0)
                return r;
        if (!startswith(name, CRYPT_NAME_PREFIX))
                return 0;

        _cleanup_free_ char *srel = strdup_printf("/sys/block/%s/slaves", kname);
        _cleanup_free_ char *sp = srel ? path_join_root(root, srel) : NULL, *slave = NULL;
        if (!sp)
                return -ENOMEM;
        r = only_entry(sp, &slave);
        if (r == -ENOENT)
                return 0;
        if (r < 0)
                return r;
        if (!startswith(slave, "loop"))
                return 0;
        _cleanup_free_ char *brel = strdup_printf("/sys/block/%s/loop/backing_file", slave);
        _cleanup_free_ char *drel = strdup_printf("/sys/block/%s/loop/dio", slave);
        _cleanup_free_ char *bp = brel ? path_join_root(root, brel) : NULL, *file = NULL;
        _cleanup_free_ char *dp = drel ? path_join_root(root, drel) : NULL;
        _cleanup_free_ char *loop = strdup_printf("/dev/%s", slave);
        if (!bp || !dp || !loop)
                return -ENOMEM;
        r = read_one_line(bp, &file);
        if (r == -ENOENT)
                return 0;
        if (r < 0)
                return r;
        /* The name must be the one the path gives: a mapping nodeswap made for that very file. */
        _cleanup_free_ char *want = NULL;
        if (!path_is_normalized_file(file) || crypt_swap_name(file, &want) < 0 || !streq(want, name))
                return 0;
        if (ret_dio) {
                uint64_t dio = 0;
                *ret_dio = read_u64_file(dp, &dio) >= 0 && dio == 1;
        }
        if (ret_file)
                *ret_file = TAKE_PTR(file);
        if (ret_loop)
                *ret_loop = TAKE_PTR(loop);
        return 1;
}
