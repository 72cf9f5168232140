/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "probe/zram.h"

#include <ctype.h>
#include <dirent.h>
#include <fcntl.h>
#include <inttypes.h>
#include <sys/stat.h>

#include "shared/page-size.h"

char *zram_device_path(int id) {
        return strdup_printf("/dev/zram%d", id);
}

static int cmp_int(const void *a, const void *b) {
        int x = *(const int *) a, y = *(const int *) b;
        return (x > y) - (x < y);
}

/* The ids of /sys/block/zram<N>, ascending (zram.h). */
int zram_list_ids(const char *root, int **ret_ids, size_t *ret_n) {
        _cleanup_free_ char *block = path_join_root(root, "/sys/block");
        if (!block)
                return -ENOMEM;

        _cleanup_free_ int *ids = NULL;
        size_t n = 0, cap = 0;
        DIR *d = opendir(block);
        if (d) {
                struct dirent *de;
                while ((de = readdir(d))) {
                        int id;
                        if (!startswith(de->d_name, "zram") || !isdigit((unsigned char) de->d_name[4]) ||
                            safe_atoi(de->d_name + 4, &id) < 0)
                                continue;
                        if (n == cap) {
                                size_t c = cap ? cap * 2 : 8;
                                int *nids = realloc(ids, c * sizeof(int));
                                if (!nids) {
                                        closedir(d);
                                        return -ENOMEM;
                                }
                                ids = nids;
                                cap = c;
                        }
                        ids[n++] = id;
                }
                closedir(d);
        } else if (errno != ENOENT)
                return -errno;

        if (n > 0)
                qsort(ids, n, sizeof(int), cmp_int);
        *ret_ids = ids;
        ids = NULL;
        *ret_n = n;
        return 0;
}

int zram_id_from_swap_path(const char *path) {
        const char *n = path && startswith(path, "/dev/zram") ? path + strlen("/dev/zram") : NULL;
        int id;
        if (!n || !isdigit((unsigned char) *n) || safe_atoi(n, &id) < 0 || id < 0)
                return -1;
        return id;
}

char *zram_attr_path(const char *root, int id, const char *attr) {
        _cleanup_free_ char *p = attr ? strdup_printf("/sys/block/zram%d/%s", id, attr)
                                      : strdup_printf("/sys/block/zram%d", id);
        if (!p)
                return NULL;
        return path_join_root(root, p);
}


int zram_parse_comp_algorithm(const char *s, char ***ret_offered, char **ret_active) {
        if (!s || !ret_offered)
                return -EINVAL;

        _cleanup_strv_free_ char **words = strv_split_ws(s);
        if (!words)
                return -ENOMEM;

        _cleanup_strv_free_ char **offered = calloc(1, sizeof(char *));
        _cleanup_free_ char *active = NULL;
        if (!offered)
                return -ENOMEM;

        for (char **w = words; *w; w++) {
                size_t len = strlen(*w);
                const char *name = *w;
                bool bracketed = len >= 2 && name[0] == '[' && name[len - 1] == ']';
                _cleanup_free_ char *n = bracketed ? strndup(name + 1, len - 2) : strdup(name);
                if (!n)
                        return -ENOMEM;
                if (!*n)
                        return -EINVAL;
                if (bracketed) {
                        if (active)
                                return -EINVAL;         /* two active algorithms: not comp_algorithm */
                        active = strdup(n);
                        if (!active)
                                return -ENOMEM;
                }
                int r = strv_push(&offered, n);
                n = NULL;
                if (r < 0)
                        return r;
        }

        *ret_offered = offered;
        offered = NULL;
        if (ret_active) {
                *ret_active = active;
                active = NULL;
        }
        return 0;
}

int zram_read_comp_algorithm(const char *root, int id, char ***ret_offered, char **ret_active) {
        _cleanup_free_ char *p = zram_attr_path(root, id, "comp_algorithm");
        if (!p)
                return -ENOMEM;
        _cleanup_free_ char *s = NULL;
        int r = read_full_file(p, READ_SMALL_MAX, &s);
        if (r < 0)
                return r;
        return zram_parse_comp_algorithm(s, ret_offered, ret_active);
}

int zram_pick_algorithm(char *const *offered, char *const *preference,
                        const char **ret_algorithm, char **ret_reason) {
        if (!ret_algorithm || strv_length(preference) == 0)
                return -EINVAL;

        size_t n = strv_length(preference), i;
        for (i = 0; i < n; i++)
                if (strv_contains(offered, preference[i]))
                        break;
        if (i == n)
                return -ENOENT;

        _cleanup_free_ char *reason = NULL;
        if (ret_reason) {
                if (i == 0)
                        reason = strdup_printf("using %s, the first preference", preference[0]);
                else {
                        _cleanup_strv_free_ char **skipped = NULL;
                        for (size_t j = 0; j < i; j++)
                                if (strv_extend(&skipped, preference[j]) < 0)
                                        return -ENOMEM;
                        _cleanup_free_ char *list = strv_join(skipped, ", ");
                        if (!list)
                                return -ENOMEM;
                        reason = strdup_printf("%s not offered by this kernel, using %s", list, preference[i]);
                }
                if (!reason)
                        return -ENOMEM;
        }

        *ret_algorithm = preference[i];
        if (ret_reason) {
                *ret_reason = reason;
                reason = NULL;
        }
        return 0;
}

int zram_read_mm_stat(const char *root, int id, ZramMmStat *ret) {
        if (id < 0 || !ret)
                return -EINVAL;
        _cleanup_free_ char *p = zram_attr_path(root, id, "mm_stat");
        if (!p)
                return -ENOMEM;
        _cleanup_free_ char *line = NULL;
        int r = read_one_line(p, &line);
        if (r < 0)
                return r;

        uint64_t v[8] = {};
        size_t n = 0;
        const char *s = line;
        while (n < ELEMENTSOF(v)) {
                while (*s == ' ' || *s == '\t')
                        s++;
                if (!*s)
                        break;
                size_t len = strcspn(s, " \t");
                char word[32];
                if (len >= sizeof(word))
                        return -EINVAL;
                memcpy(word, s, len);
                word[len] = 0;
                r = safe_atou64(word, &v[n]);
                if (r < 0)
                        return r;
                n++;
                s += len;
        }
        if (n < 3)
                return -EINVAL;

        *ret = (ZramMmStat) {
                .orig_data_size = v[0],
                .compr_data_size = v[1],
                .mem_used_total = v[2],
                .mem_limit = v[3],
                .mem_used_max = v[4],
                .same_pages = v[5],
                .pages_compacted = v[6],
                .huge_pages = v[7],
        };
        return 0;
}

int zram_read_disksize(const char *root, int id, uint64_t *ret) {
        if (id < 0 || !ret)
                return -EINVAL;
        _cleanup_free_ char *p = zram_attr_path(root, id, "disksize");
        if (!p)
                return -ENOMEM;
        return read_u64_file(p, ret);
}

int zram_read_bd_stat(const char *root, int id, ZramBdStat *ret) {
        if (id < 0 || !ret)
                return -EINVAL;
        _cleanup_free_ char *p = zram_attr_path(root, id, "bd_stat"), *line = NULL;
        if (!p)
                return -ENOMEM;
        int r = read_one_line(p, &line);
        if (r < 0)
                return r;
        uint64_t c, rd, wr;
        if (sscanf(line, "%" SCNu64 " %" SCNu64 " %" SCNu64, &c, &rd, &wr) != 3 ||
            c > UINT64_MAX / ZRAM_BD_STAT_UNIT || rd > UINT64_MAX / ZRAM_BD_STAT_UNIT ||
            wr > UINT64_MAX / ZRAM_BD_STAT_UNIT)
                return -EINVAL;
        *ret = (ZramBdStat) {
                .count = c * ZRAM_BD_STAT_UNIT,
                .reads = rd * ZRAM_BD_STAT_UNIT,
                .writes = wr * ZRAM_BD_STAT_UNIT,
        };
        return 0;
}

int zram_read_written_bytes(const char *root, int id, uint64_t *ret) {
        if (id < 0 || !ret)
                return -EINVAL;
        _cleanup_free_ char *p = zram_attr_path(root, id, "stat"), *line = NULL;
        if (!p)
                return -ENOMEM;
        int r = read_one_line(p, &line);
        if (r < 0)
                return r;
        uint64_t f[7];
        if (sscanf(line, "%" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64,
                   &f[0], &f[1], &f[2], &f[3], &f[4], &f[5], &f[6]) != 7 || f[6] > UINT64_MAX / 512)
                return -EINVAL;
        *ret = f[6] * 512;
        return 0;
}

bool zram_has_attr(const char *root, int id, const char *attr) {
        _cleanup_free_ char *p = zram_attr_path(root, id, attr);
        return p && access(p, F_OK) == 0;
}
