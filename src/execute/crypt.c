/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "execute/crypt.h"

#include <dirent.h>
#include <fcntl.h>
#include <inttypes.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>

#include "execute/loop.h"
#include "execute/swapon.h"
#include "probe/crypt.h"
#include "probe/loop.h"
#include "probe/swap.h"
#include "probe/swapfile.h"
#include "shared/clock.h"
#include "shared/crypt-dl.h"
#include "shared/reason.h"

#define LOOP_GONE_WAIT_USEC (5 * USEC_PER_SEC)
#define CRYPT_MSG_MAX 256

/* reason_set() with errno set to -r first, so that %m in fmt names the error. */
#define fail(ret_reason, r, ...) (errno = -(r), reason_set((ret_reason), (r), __VA_ARGS__))

/* libcryptsetup's own error messages (crypt_set_log_callback(), lib/libcryptsetup.h), kept for
 * the reason instead of printed: library code never logs. They name devices and ciphers, never
 * the key. */
typedef struct CryptMsg {
        char text[CRYPT_MSG_MAX];
} CryptMsg;

static CryptMsg crypt_msg;

static void crypt_msg_keep(int level, const char *msg, void *usrptr) {
        CryptMsg *m = usrptr;
        if (level != CRYPT_LOG_ERROR || !m || !msg)
                return;
        snprintf(m->text, sizeof m->text, "%s", msg);
        char *nl = strchr(m->text, '\n');
        if (nl)
                *nl = 0;
}

/* The logical block size of the disk under the file fd is on (a partition's is its disk's), or
 * CRYPT_SECTOR_SIZE where sysfs does not say (btrfs's anonymous device numbers): the loop
 * device's block size, which must not be below the disk's for direct I/O to stay on. */
static uint32_t disk_logical_block_size(int fd) {
        struct stat st;
        if (fstat(fd, &st) < 0)
                return CRYPT_SECTOR_SIZE;
        static const char *const where[] = { "queue", "../queue" };
        for (size_t i = 0; i < ELEMENTSOF(where); i++) {
                _cleanup_free_ char *p = strdup_printf("/sys/dev/block/%u:%u/%s/logical_block_size",
                                                       major(st.st_dev), minor(st.st_dev), where[i]);
                uint64_t v;
                if (p && read_u64_file(p, &v) >= 0 && v >= 512 && v <= CRYPT_SECTOR_SIZE && !(v & (v - 1)))
                        return (uint32_t) v;
        }
        return CRYPT_SECTOR_SIZE;
}

/* "/dev/dm-N" of the mapping called name: 0, -ENOENT no such mapping, -errno. */
static int dm_node(const char *name, char **ret) {
        return crypt_mapping_find("/", name, ret);
}

static int random_fill(void *buf, size_t n) {
        for (size_t done = 0; done < n;) {
                ssize_t k = getrandom((char *) buf + done, n - done, 0);
                if (k < 0) {
                        if (errno == EINTR)
                                continue;
                        return -errno;
                }
                done += (size_t) k;
        }
        return 0;
}

/* From here on libcryptsetup's messages (those of crypt_init() too, before a context exists) go to
 * crypt_msg, emptied now, and never to stderr. */
static void crypt_msg_start(void) {
        crypt_msg = (CryptMsg) {};
        sym_crypt_set_log_callback(NULL, crypt_msg_keep, &crypt_msg);
}

/* Step 2 of crypt_swap_on(): the mapping name over loop with a new key. */
static int map_with_new_key(const char *loop, const char *name, uint64_t file_size) {
        struct crypt_device *cd = NULL;
        char *key = NULL;
        int r;

        /* Nothing of this process may reach swap while it holds the key: libcryptsetup and
         * libdevmapper copy it into their own buffers (the table line), which 2.6's
         * crypt_safe_alloc() does not lock (lib/utils_safe_memory.c). */
        if (mlockall(MCL_CURRENT | MCL_FUTURE) < 0)
                return -errno;
        key = sym_crypt_safe_alloc(CRYPT_KEY_BYTES);
        if (!key) {
                r = -ENOMEM;
                goto out;
        }
        r = random_fill(key, CRYPT_KEY_BYTES);
        if (r < 0)
                goto out;
        r = sym_crypt_init(&cd, loop);
        if (r < 0)
                goto out;
        /* Plain mode: no header on the disk, so nothing there can give the key away or be
         * attacked offline; the data starts after the marker page (offset in 512-byte sectors),
         * in 4096-byte encryption sectors (lib/setup.c, _crypt_format_plain(): the size after
         * the offset must be a multiple of it). */
        struct crypt_params_plain params = {
                .offset = CRYPT_DATA_OFFSET / 512,
                .size = (file_size - CRYPT_DATA_OFFSET) / 512,
                .sector_size = CRYPT_SECTOR_SIZE,
        };
        r = sym_crypt_format(cd, CRYPT_PLAIN, CRYPT_CIPHER, CRYPT_CIPHER_MODE, NULL, NULL, CRYPT_KEY_BYTES, &params);
        if (r < 0)
                goto out;
        r = sym_crypt_activate_by_volume_key(cd, name, key, CRYPT_KEY_BYTES, 0);
out:
        if (key) {
                sym_crypt_safe_memzero(key, CRYPT_KEY_BYTES);
                sym_crypt_safe_free(key);
        }
        sym_crypt_free(cd);         /* wipes its copy of the key (crypt_free_volume_key()) */
        (void) munlockall();
        return r;
}

static int deactivate(const char *name) {
        struct crypt_device *cd = NULL;
        int r = sym_crypt_init_by_name(&cd, name);
        if (r == -ENODEV)
                return 0;
        if (r < 0)
                return r;
        r = sym_crypt_deactivate(cd, name);
        sym_crypt_free(cd);
        return r < 0 ? r : 1;
}

/* autoclear detaches the loop device when the mapping lets go of it; a file is deleted only
 * once that has happened (its blocks would stay with the loop device otherwise). */
static int wait_loop_gone(const char *root, const char *path) {
        for (uint64_t deadline = now_monotonic_usec() + LOOP_GONE_WAIT_USEC;;) {
                _cleanup_free_ char *dev = NULL;
                int r = loop_find_by_backing_file(root, path, &dev);
                if (r == -ENOENT)
                        return 0;
                if (r < 0)
                        return r;
                if (now_monotonic_usec() >= deadline)
                        return -EBUSY;
                (void) nanosleep(&(struct timespec) { .tv_nsec = 50 * 1000 * 1000 }, NULL);
        }
}

int crypt_map_file(int file_fd, const char *path, uint64_t size, const char *name, char **ret_node, char **ret_reason) {
        _cleanup_close_ int loopfd = -EBADF;
        _cleanup_free_ char *loop = NULL;
        int r = crypt_dl_load();
        if (r < 0)
                return fail(ret_reason, r, "Failed to load %s: %s", CRYPT_DL_LIBRARY, strempty(crypt_dl_error()));
        crypt_msg_start();
        r = loop_attach(file_fd, path, disk_logical_block_size(file_fd), /* need_dio= */ true, &loopfd, &loop, ret_reason);
        if (r < 0)
                return r;
        r = map_with_new_key(loop, name, size);
        if (r < 0)
                return fail(ret_reason, r, "Failed to map '%s' through dm-crypt: %s%s%m", path, crypt_msg.text,
                            crypt_msg.text[0] ? ": " : "");
        r = dm_node(name, ret_node);
        if (r < 0) {
                (void) deactivate(name);
                return fail(ret_reason, r, "The mapping %s of '%s' has no device node: %m", name, path);
        }
        /* loopfd closes here: the mapping holds the loop device, which autoclear takes away with it */
        return 0;
}

int crypt_unmap_file(const char *root, const char *path, char **ret_reason) {
        _cleanup_free_ char *name = NULL, *node = NULL;
        if (!root_is_host(root))
                return -EOPNOTSUPP;
        int r = crypt_swap_name(path, &name);
        if (r < 0)
                return fail(ret_reason, r, "No mapping name for '%s': %m", path);
        r = dm_node(name, &node);
        if (r == -ENOENT)
                return 0;       /* no mapping: the library is not needed */
        if (r < 0)
                return fail(ret_reason, r, "Failed to look for the mapping of '%s': %m", path);
        r = crypt_dl_load();
        if (r < 0)
                return fail(ret_reason, r, "Failed to load %s: %s", CRYPT_DL_LIBRARY, strempty(crypt_dl_error()));
        crypt_msg_start();
        r = deactivate(name);
        if (r < 0)
                return fail(ret_reason, r, "Failed to remove the mapping %s of '%s': %s%s%m", name, path, crypt_msg.text,
                            crypt_msg.text[0] ? ": " : "");
        r = wait_loop_gone(root, path);
        if (r < 0)
                return fail(ret_reason, r, "The loop device under '%s' stayed after its mapping went: %m", path);
        return 1;
}

int crypt_map_writeback(const char *root, const char *path, int file_fd, uint64_t size, char **ret_node,
                        char **ret_reason) {
        _cleanup_free_ char *name = NULL;
        if (!root_is_host(root))
                return -EOPNOTSUPP;
        if (size < CRYPT_DATA_OFFSET + CRYPT_SECTOR_SIZE)
                return fail(ret_reason, -EINVAL, "'%s': %" PRIu64 " bytes do not make an encrypted writeback file", path,
                            size);
        int r = crypt_swap_name(path, &name);
        if (r < 0)
                return fail(ret_reason, r, "No mapping name for '%s': %m", path);
        r = crypt_unmap_file(root, path, ret_reason);
        if (r < 0)
                return r;
        uint64_t mapped = CRYPT_DATA_OFFSET + (size - CRYPT_DATA_OFFSET) / CRYPT_SECTOR_SIZE * CRYPT_SECTOR_SIZE;
        return crypt_map_file(file_fd, path, mapped, name, ret_node, ret_reason);
}

int crypt_unmap(const char *name) {
        int r = crypt_dl_load();
        if (r < 0)
                return r;
        return deactivate(name);
}

int crypt_swap_on(const char *root, const char *path, uint64_t page_size, int priority, int discard_flags,
                  char **ret_reason) {
        _cleanup_close_ int ffd = -EBADF;
        _cleanup_free_ char *name = NULL, *node = NULL;
        struct stat st;
        int r;

        if (!root_is_host(root))
                return -EOPNOTSUPP;
        r = crypt_dl_load();
        if (r < 0)
                return fail(ret_reason, r, "Failed to load %s: %s", CRYPT_DL_LIBRARY, strempty(crypt_dl_error()));
        crypt_msg_start();
        r = crypt_swap_name(path, &name);
        if (r < 0)
                return fail(ret_reason, r, "No mapping name for '%s': %m", path);
        /* A mapping of this name that is not swap, left by a run killed between its steps, goes
         * first (one that is swap is busy: the kernel refuses, and so does this). */
        if (dm_node(name, &node) >= 0) {
                r = deactivate(name);
                if (r >= 0)
                        r = wait_loop_gone(root, path);
                if (r < 0)
                        return fail(ret_reason, r, "A mapping %s of '%s' is left from before and cannot be removed: %s%s%m",
                                    name, path, crypt_msg.text, crypt_msg.text[0] ? ": " : "");
                free(node);
                node = NULL;
        }

        r = swapfile_open_existing(root, path, O_RDWR, NULL, &ffd, &st, NULL);
        if (r > 0)
                r = -EMEDIUMTYPE;
        if (r < 0)
                return fail(ret_reason, r, "Failed to open '%s': %m", path);
        r = crypt_marker_probe(ffd);
        if (r < 0)
                return fail(ret_reason, r, "Failed to read '%s': %m", path);
        if (r == 0)
                return fail(ret_reason, -EMEDIUMTYPE, "'%s' is no encrypted swap file of nodeswap's", path);
        uint64_t size = (uint64_t) st.st_size;
        if (size < CRYPT_DATA_OFFSET + SWAP_MIN_PAGES * page_size || (size - CRYPT_DATA_OFFSET) % CRYPT_SECTOR_SIZE)
                return fail(ret_reason, -EINVAL, "'%s': %" PRIu64 " bytes do not make an encrypted swap area", path, size);

        r = crypt_map_file(ffd, path, size, name, &node, ret_reason);
        if (r < 0)
                return r;
        {
                _cleanup_close_ int dfd = open(node, O_RDWR | O_CLOEXEC | O_NOCTTY | O_EXCL);
                r = dfd < 0 ? -errno : swap_header_write(dfd, size - CRYPT_DATA_OFFSET, page_size, SWAP_LABEL);
        }
        if (r >= 0)
                r = swap_on_flags(root, node, priority, discard_flags);
        if (r < 0) {
                (void) deactivate(name);
                return fail(ret_reason, r, "Failed to swap on the mapping %s of '%s': %m; the mapping was removed",
                            name, path);
        }
        return 0;
}

int crypt_swap_off(const char *root, const char *path, char **ret_reason) {
        _cleanup_free_ char *name = NULL, *node = NULL;

        if (!root_is_host(root))
                return -EOPNOTSUPP;
        int r = crypt_swap_name(path, &name);
        if (r < 0)
                return fail(ret_reason, r, "No mapping name for '%s': %m", path);
        r = dm_node(name, &node);
        if (r == -ENOENT)
                return 0;       /* no mapping: the library is not needed */
        if (r < 0)
                return fail(ret_reason, r, "Failed to look for the mapping of '%s': %m", path);
        r = crypt_dl_load();
        if (r < 0)
                return fail(ret_reason, r, "Failed to load %s: %s", CRYPT_DL_LIBRARY, strempty(crypt_dl_error()));
        crypt_msg_start();
        r = swap_off(root, node);
        if (r < 0 && r != -EINVAL)      /* EINVAL: not swap (a run killed before its swapon) */
                return fail(ret_reason, r, "swapoff %s (the mapping of '%s') failed: %m", node, path);
        r = deactivate(name);
        if (r < 0)
                return fail(ret_reason, r, "Failed to remove the mapping %s of '%s': %s%s%m", name, path, crypt_msg.text,
                            crypt_msg.text[0] ? ": " : "");
        r = wait_loop_gone(root, path);
        if (r < 0)
                return fail(ret_reason, r, "The loop device under '%s' stayed after its mapping went: %m", path);
        return 1;
}
