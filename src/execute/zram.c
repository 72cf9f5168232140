/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The zram backend's writers: take a device, configure it, write its header and swap it on; reset
 * and hot_remove it again. */
#include "execute/zram.h"
#include "shared/page-size.h"

#include <ctype.h>
#include <dirent.h>
#include <fcntl.h>
#include <inttypes.h>
#include <sys/stat.h>

#include "execute/swapon.h"
#include "probe/swap.h"

static int zram_attr_write(const char *root, int id, const char *attr, const char *value, bool retry_busy) {
        _cleanup_free_ char *p = zram_attr_path(root, id, attr);
        if (!p)
                return -ENOMEM;
        for (unsigned i = 0;; i++) {
                int r = write_string_file(p, value);
                if (r != -EBUSY || !retry_busy || i + 1 >= ZRAM_BUSY_TRIES)
                        return r;
                usleep(ZRAM_BUSY_DELAY_USEC);
        }
}

static int zram_attr_write_u64(const char *root, int id, const char *attr, uint64_t value, bool retry_busy) {
        char buf[32];
        snprintf(buf, sizeof(buf), "%" PRIu64, value);
        return zram_attr_write(root, id, attr, buf, retry_busy);
}

static int control_write_id(const char *root, const char *attr, int id) {
        _cleanup_free_ char *rel = strdup_printf("/sys/class/zram-control/%s", attr);
        if (!rel)
                return -ENOMEM;
        _cleanup_free_ char *p = path_join_root(root, rel);
        if (!p)
                return -ENOMEM;
        char buf[16];
        snprintf(buf, sizeof(buf), "%d", id);
        for (unsigned i = 0;; i++) {
                int r = write_string_file(p, buf);
                if (r != -EBUSY || i + 1 >= ZRAM_BUSY_TRIES)
                        return r;
                usleep(ZRAM_BUSY_DELAY_USEC);
        }
}

static bool device_exists(const char *root, int id) {
        _cleanup_free_ char *p = zram_attr_path(root, id, NULL);
        return p && access(p, F_OK) == 0;
}

static bool algorithm_name_valid(const char *s) {
        if (!s || !*s || strlen(s) > 64)
                return false;
        for (; *s; s++)
                if (isspace((unsigned char) *s) || *s == '[' || *s == ']')
                        return false;
        return true;
}

/* Is zram<id> in /proc/swaps? 1 and the path as listed there, 0 when not (or when there is no
 * /proc/swaps in a fixture), -errno. */
static int swaps_find_zram(const char *root, int id, char **ret_path) {
        SwapEntry *entries = NULL;
        size_t n = 0;
        int r = swaps_read(root, &entries, &n);
        if (r == -ENOENT)
                return 0;
        if (r < 0)
                return r;

        r = 0;
        for (size_t i = 0; i < n; i++) {
                if (zram_id_from_swap_path(entries[i].path) != id)
                        continue;
                if (ret_path)
                        *ret_path = TAKE_PTR(entries[i].path);
                r = 1;
                break;
        }
        swap_entries_free(entries, n);
        return r;
}

static bool dir_is_empty_or_missing(const char *path) {
        DIR *d = opendir(path);
        if (!d)
                return errno == ENOENT;
        struct dirent *de;
        bool empty = true;
        while ((de = readdir(d)))
                if (!streq(de->d_name, ".") && !streq(de->d_name, "..")) {
                        empty = false;
                        break;
                }
        closedir(d);
        return empty;
}

/* A device is free when nothing at all says it is in use. Anything unreadable counts as in use. */
static bool zram_is_free(const char *root, int id) {
        _cleanup_free_ char *initstate = zram_attr_path(root, id, "initstate"),
                            *holders = zram_attr_path(root, id, "holders"),
                            *backing = zram_attr_path(root, id, "backing_dev");
        if (!initstate || !holders || !backing)
                return false;

        uint64_t size;
        if (zram_read_disksize(root, id, &size) < 0 || size != 0)
                return false;

        int init, r = read_int_file(initstate, &init);
        if (r != -ENOENT && (r < 0 || init != 0))
                return false;

        if (!dir_is_empty_or_missing(holders))
                return false;

        /* someone is preparing a writeback device for it */
        _cleanup_free_ char *bd = NULL;
        r = read_one_line(backing, &bd);
        if (r != -ENOENT && (r < 0 || !streq(bd, "none")))
                return false;

        if (swaps_find_zram(root, id, NULL) != 0)
                return false;

        if (root_is_host(root)) {
                /* Claimed by a mount, a swap, device mapper...: an exclusive open says EBUSY. */
                _cleanup_free_ char *dev = zram_device_path(id);
                if (!dev)
                        return false;
                _cleanup_close_ int fd = open(dev, O_RDONLY | O_EXCL | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
                if (fd < 0)
                        return false;
        }
        return true;
}

static int zram_hot_add(const char *root, int *ret_id) {
        _cleanup_free_ char *hot_add = path_join_root(root, "/sys/class/zram-control/hot_add");
        if (!hot_add)
                return -ENOMEM;
        _cleanup_free_ char *line = NULL;
        int r = read_one_line(hot_add, &line);   /* each open+read creates one device */
        if (r < 0)
                return r;
        int id;
        r = safe_atoi(line, &id);
        if (r < 0)
                return r;
        if (id < 0)
                return -EINVAL;
        *ret_id = id;
        return 0;
}

int zram_find_free(const char *root, int *ret_id) {
        _cleanup_free_ int *ids = NULL;
        size_t n;
        int r;

        if (!ret_id)
                return -EINVAL;

        r = zram_list_ids(root, &ids, &n);
        if (r < 0)
                return r;
        for (size_t i = 0; i < n; i++)
                if (zram_is_free(root, ids[i])) {
                        *ret_id = ids[i];
                        return 0;
                }

        r = zram_hot_add(root, ret_id);
        if (r < 0)
                return r;
        return 1;
}

int zram_kernel_offers(const char *root, char ***ret_offered) {
        _cleanup_free_ int *ids = NULL;
        size_t n;
        int r;

        if (!ret_offered)
                return -EINVAL;

        r = zram_list_ids(root, &ids, &n);
        if (r < 0)
                return r;
        if (n > 0)
                return zram_read_comp_algorithm(root, ids[0], ret_offered, NULL);

        int id;
        r = zram_hot_add(root, &id);
        if (r < 0)
                return r;
        r = zram_read_comp_algorithm(root, id, ret_offered, NULL);
        int k = control_write_id(root, "hot_remove", id);
        if (r < 0)
                return r;
        if (k < 0) {
                strv_free(*ret_offered);
                *ret_offered = NULL;
                return k;
        }
        return 0;
}

/* recomp_algorithm "algo=NAME priority=N" and its parameters, then backing_dev: all of them are
 * refused by the kernel once disksize is set. */
static int zram_setup_extra(const char *root, int id, const ZramSetupExtra *extra) {
        int r;
        for (size_t i = 0; extra->recompress && extra->recompress[i]; i++) {
                _cleanup_free_ char *v = strdup_printf("algo=%s priority=%zu", extra->recompress[i], i + 1);
                if (!v)
                        return -ENOMEM;
                r = zram_attr_write(root, id, "recomp_algorithm", v, true);
                if (r < 0)
                        return r;
                const char *par = extra->recompress_params ? extra->recompress_params[i] : NULL;
                if (par && *par) {
                        _cleanup_free_ char *pv = strdup_printf("priority=%zu %s", i + 1, par);
                        if (!pv)
                                return -ENOMEM;
                        r = zram_attr_write(root, id, "algorithm_params", pv, true);
                        if (r < 0)
                                return r;
                }
        }
        if (extra->backing_dev) {
                r = zram_attr_write(root, id, "backing_dev", extra->backing_dev, true);
                if (r < 0)
                        return r;
        }
        return 0;
}

static int zram_setup_ex(const char *root, int id, const char *algorithm, const char *algorithm_params,
                         const ZramSetupExtra *extra, uint64_t mem_limit, uint64_t disksize) {
        int r;

        if (id < 0 || !algorithm_name_valid(algorithm) || disksize == 0 ||
            (algorithm_params && !*algorithm_params))
                return -EINVAL;

        r = zram_attr_write(root, id, "comp_algorithm", algorithm, true);
        if (r < 0)
                return r;

        if (algorithm_params) {
                _cleanup_free_ char *p = zram_attr_path(root, id, "algorithm_params");
                if (!p)
                        return -ENOMEM;
                if (access(p, F_OK) == 0) {
                        r = zram_attr_write(root, id, "algorithm_params", algorithm_params, true);
                        if (r < 0)
                                return r;
                } else if (errno != ENOENT)
                        return -errno;
        }

        if (extra) {
                r = zram_setup_extra(root, id, extra);
                if (r < 0)
                        return r;
        }

        if (mem_limit > 0) {
                r = zram_attr_write_u64(root, id, "mem_limit", mem_limit, true);
                if (r < 0)
                        return r;
        }

        return zram_attr_write_u64(root, id, "disksize", disksize, true);
}

int zram_setup(const char *root, int id, const char *algorithm, const char *algorithm_params,
               uint64_t mem_limit, uint64_t disksize) {
        return zram_setup_ex(root, id, algorithm, algorithm_params, NULL, mem_limit, disksize);
}

/* Write the header into the device and read it back. 1 when there is no device node in a
 * fixture root (nothing to write into), 0 when written and checked. */
static int zram_write_header(const char *root, int id, uint64_t disksize, uint64_t page_size) {
        _cleanup_free_ char *dev = zram_device_path(id);
        if (!dev)
                return -ENOMEM;
        _cleanup_free_ char *p = path_join_root(root, dev);
        if (!p)
                return -ENOMEM;

        bool host = root_is_host(root);
        _cleanup_close_ int fd = open(p, O_RDWR | O_CLOEXEC | O_NOCTTY | (host ? O_EXCL : O_NOFOLLOW));
        if (fd < 0) {
                if (!host && errno == ENOENT)
                        return 1;
                return -errno;
        }

        /* Initialised by us a moment ago (disksize was 0): every page reads as zeros. */
        int r = swap_header_write_zeroed(fd, disksize, page_size, SWAP_LABEL);
        if (r < 0)
                return r;

        SwapHeaderInfo info;
        r = swap_header_probe(fd, &info);
        if (r < 0)
                return r;
        if (r == 0 || info.page_size != page_size || !streq(info.label, SWAP_LABEL) ||
            info.last_page != disksize / page_size - 1)
                return -EIO;
        return 0;
}

/* After a failed zram_setup(): the device is not initialised by us (disksize is the last write).
 * Put the algorithm back with a reset only while nobody else has initialised it meanwhile, and
 * remove it when we added it. */
static void zram_undo_setup(const char *root, int id, bool added) {
        _cleanup_free_ char *p = zram_attr_path(root, id, "initstate");
        int init = 0;
        if (!p || (read_int_file(p, &init) >= 0 && init != 0))
                return;         /* someone else's now: never touch it */
        (void) zram_attr_write(root, id, "reset", "1", true);
        if (added)
                (void) control_write_id(root, "hot_remove", id);
}

int zram_take_device(const char *root, int *ret_id) {
        _cleanup_free_ char *control = path_join_root(root, "/sys/class/zram-control/hot_add");
        if (!control)
                return -ENOMEM;
        if (access(control, F_OK) < 0)
                return zram_find_free(root, ret_id);    /* an old kernel: only the devices it has */
        int id;
        int r = read_int_file(control, &id);
        if (r < 0)
                return r;
        if (id < 0)
                return -EIO;
        *ret_id = id;
        return 1;
}

static int provision(const char *root, const char *algorithm, char *const *preference,
                     const char *algorithm_params, const ZramSetupExtra *extra, uint64_t mem_limit,
                     uint64_t disksize, int priority,
                     uint64_t page_size, int *ret_id, char **ret_algorithm) {
        int id, r;

        if (!ret_id || (algorithm && !algorithm_name_valid(algorithm)) || (!algorithm && strv_length(preference) == 0) ||
            (algorithm_params && !*algorithm_params) || priority < 0 || priority > SWAP_PRIORITY_MAX ||
            !page_size_valid(page_size) || disksize / page_size < 10)
                return -EINVAL;

        _cleanup_free_ char *dev = NULL, *chosen = NULL;

        r = zram_take_device(root, &id);
        if (r < 0)
                return r;
        bool added = r > 0;

        if (!algorithm) {
                /* The kernel's offer, read off the device itself. */
                _cleanup_strv_free_ char **offered = NULL;
                _cleanup_free_ char *active = NULL;
                const char *a;
                r = zram_read_comp_algorithm(root, id, &offered, &active);
                if (r >= 0)
                        r = zram_pick_algorithm(offered, preference, &a, NULL);
                if (r >= 0 && !(chosen = strdup(a)))
                        r = -ENOMEM;
                if (r < 0) {
                        zram_undo_setup(root, id, added);
                        return r;
                }
                algorithm = chosen;
        }

        _cleanup_free_ char *params_for = NULL;
        if (extra && extra->params_of && !algorithm_params) {
                /* Parameters chosen with the algorithm, from the device's own offer. */
                for (size_t i = 0; preference && preference[i]; i++)
                        if (streq(preference[i], algorithm) && extra->params_of[i] && *extra->params_of[i] &&
                            !(params_for = strdup_printf("algo=%s %s", algorithm, extra->params_of[i]))) {
                                zram_undo_setup(root, id, added);
                                return -ENOMEM;
                        }
                algorithm_params = params_for;
        }
        r = zram_setup_ex(root, id, algorithm, algorithm_params, extra, mem_limit, disksize);
        if (r < 0) {
                zram_undo_setup(root, id, added);
                return r;
        }

        dev = zram_device_path(id);
        if (!dev) {
                r = -ENOMEM;
                goto undo;
        }

        r = zram_write_header(root, id, disksize, page_size);
        if (r < 0)
                goto undo;

        r = swap_on(root, dev, priority);
        if (r == -EOPNOTSUPP && !root_is_host(root))
                r = 1;
        else if (r < 0)
                goto undo;
        else
                r = 0;

        if (ret_algorithm && !(*ret_algorithm = strdup(algorithm))) {
                r = -ENOMEM;
                goto undo;
        }
        *ret_id = id;
        return r;

undo:
        /* Initialised by us (and perhaps swapped on): reset is ours to do. */
        {
                _cleanup_free_ char *swap_path = NULL;
                if (swaps_find_zram(root, id, &swap_path) > 0)
                        (void) swap_off(root, swap_path);
        }
        (void) zram_attr_write(root, id, "reset", "1", true);
        if (added)
                (void) control_write_id(root, "hot_remove", id);
        return r;
}

int zram_reset(const char *root, int id) {
        bool skipped = false;
        int r;

        if (id < 0)
                return -EINVAL;
        if (!device_exists(root, id))
                return -ENODEV;

        _cleanup_free_ char *swap_path = NULL;
        r = swaps_find_zram(root, id, &swap_path);
        if (r < 0)
                return r;
        if (r > 0) {
                r = swap_off(root, swap_path);
                if (r == -EOPNOTSUPP && !root_is_host(root))
                        skipped = true;
                else if (r < 0)
                        return r;
        }

        r = zram_attr_write(root, id, "reset", "1", true);
        if (r < 0)
                return r;
        return skipped;
}

int zram_teardown(const char *root, int id) {
        int r = zram_reset(root, id);
        if (r < 0)
                return r;
        _cleanup_free_ char *control = path_join_root(root, "/sys/class/zram-control/hot_remove");
        if (!control)
                return -ENOMEM;
        if (access(control, F_OK) < 0)
                return r;       /* an old kernel: the device stays, reset */
        int k = control_write_id(root, "hot_remove", id);
        if (k < 0)
                return k;
        return r;
}

int zram_provision(const char *root, const char *algorithm, char *const *preference, const char *algorithm_params,
                   const ZramSetupExtra *extra, uint64_t mem_limit, uint64_t disksize, int priority,
                   uint64_t page_size, int *ret_id, char **ret_algorithm) {
        return provision(root, algorithm, preference, algorithm_params, extra, mem_limit, disksize, priority,
                         page_size, ret_id, ret_algorithm);
}
