/* SPDX-License-Identifier: GPL-2.0-or-later */
/* zram on the real kernel: provision, make-before-break, teardown, failures.
 *
 * Needs root and the zram module (exit 77 otherwise). It remembers the zram devices that existed
 * before and puts back everything it changed, even when a check fails or it is interrupted:
 * devices it hot_add'ed are swapped off, reset and removed; a device that existed before and that
 * zram_provision() found free is swapped off, reset and given back its algorithm. It never touches
 * any other device. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>

#include <inttypes.h>

#include "probe/swap.h"
#include "probe/zram.h"
#include "kernel-lock.h"
#include "execute/zram.h"
#include "execute/swapon.h"

#define MAX_IDS 64

typedef struct Before {
        int id;
        uint64_t disksize;
        char *algorithm;        /* active comp_algorithm */
} Before;

static Before before[MAX_IDS];
static size_t n_before;

/* Every device this test configured, so cleanup() can undo it. */
static int touched[MAX_IDS];
static size_t n_touched;

static uint64_t page_size;
static const char *algorithm;   /* picked from "zstd lz4" */

static const Before *find_before(int id) {
        for (size_t i = 0; i < n_before; i++)
                if (before[i].id == id)
                        return &before[i];
        return NULL;
}

static void touch(int id) {
        for (size_t i = 0; i < n_touched; i++)
                if (touched[i] == id)
                        return;
        if (n_touched < MAX_IDS)
                touched[n_touched++] = id;
}

static int list_zram_ids(int *ids, size_t max, size_t *ret_n) {
        DIR *d = opendir("/sys/block");
        if (!d)
                return -errno;
        size_t n = 0;
        struct dirent *de;
        while ((de = readdir(d)))
                if (startswith(de->d_name, "zram") && n < max && safe_atoi(de->d_name + 4, &ids[n]) >= 0)
                        n++;
        closedir(d);
        *ret_n = n;
        return 0;
}

static bool zram_exists(int id) {
        char p[64];
        snprintf(p, sizeof(p), "/sys/block/zram%d", id);
        return access(p, F_OK) == 0;
}

static uint64_t zram_disksize(int id) {
        char p[64];
        uint64_t v = UINT64_MAX;
        snprintf(p, sizeof(p), "/sys/block/zram%d/disksize", id);
        (void) read_u64_file(p, &v);
        return v;
}

static char *zram_active_algorithm(int id) {
        _cleanup_strv_free_ char **offered = NULL;
        char *active = NULL;
        if (zram_read_comp_algorithm("/", id, &offered, &active) < 0)
                return NULL;
        return active;
}

/* The priority of /dev/zram<id> in /proc/swaps, or INT32_MIN when it is not there. */
static int swaps_priority(int id) {
        _cleanup_fclose_ FILE *f = fopen("/proc/swaps", "re");
        if (!f)
                return INT32_MIN;
        char want[32], line[512];
        snprintf(want, sizeof(want), "/dev/zram%d", id);
        while (fgets(line, sizeof(line), f)) {
                char path[256], type[32];
                unsigned long long size, used;
                int prio;
                if (sscanf(line, "%255s %31s %llu %llu %d", path, type, &size, &used, &prio) == 5 && streq(path, want))
                        return prio;
        }
        return INT32_MIN;
}

/* Put back every device this test configured. Safe to call more than once. */
static void cleanup(void) {
        while (n_touched > 0) {
                int id = touched[n_touched - 1];
                const Before *b = find_before(id);
                if (!zram_exists(id)) {
                        n_touched--;
                        continue;
                }
                if (b) {
                        (void) zram_reset("/", id);
                        if (b->algorithm) {
                                char p[64];
                                snprintf(p, sizeof(p), "/sys/block/zram%d/comp_algorithm", id);
                                (void) write_string_file(p, b->algorithm);
                        }
                } else
                        (void) zram_teardown("/", id);
                n_touched--;
        }
}

static void on_signal(int sig) {
        cleanup();
        _exit(128 + sig);
}

static int group_setup(void **state) {
        int ids[MAX_IDS];
        size_t n;
        if (list_zram_ids(ids, MAX_IDS, &n) < 0)
                return -1;
        for (size_t i = 0; i < n; i++)
                before[n_before++] = (Before) {
                        .id = ids[i],
                        .disksize = zram_disksize(ids[i]),
                        .algorithm = zram_active_algorithm(ids[i]),
                };

        long ps = sysconf(_SC_PAGESIZE);
        if (ps <= 0)
                return -1;
        page_size = (uint64_t) ps;
        return 0;
}

/* After every test, so that one failing check does not leave devices to the next test. */
static int test_teardown(void **state) {
        cleanup();
        return 0;
}

static int group_teardown(void **state) {
        cleanup();
        for (size_t i = 0; i < n_before; i++)
                free(before[i].algorithm);
        return 0;
}

static void assert_swap_device(int id, int priority) {
        assert_int_equal(swaps_priority(id), priority);
        assert_int_equal(zram_disksize(id), 64 * MiB);

        _cleanup_free_ char *active = zram_active_algorithm(id);
        assert_non_null(active);
        assert_string_equal(active, algorithm);

        char dev[32];
        snprintf(dev, sizeof(dev), "/dev/zram%d", id);
        _cleanup_close_ int fd = open(dev, O_RDONLY | O_CLOEXEC);
        assert_true(fd >= 0);
        SwapHeaderInfo info;
        assert_int_equal(swap_header_probe(fd, &info), 1);
        assert_string_equal(info.label, SWAP_LABEL);
        assert_int_equal(info.page_size, page_size);
        assert_int_equal(info.last_page, 64 * MiB / page_size - 1);
}

static void test_pick_algorithm_on_this_kernel(void **state) {
        _cleanup_strv_free_ char **offered = NULL;
        assert_int_equal(zram_kernel_offers("/", &offered), 0);
        char *preference[] = { (char *) "zstd", (char *) "lz4", NULL };
        _cleanup_free_ char *reason = NULL, *offered_text = strv_join(offered, " ");

        int r = zram_pick_algorithm(offered, preference, &algorithm, &reason);
        if (r == -ENOENT) {
                print_message("none of 'zstd lz4' offered; the kernel offers '%s'\n", offered_text);
                skip();
        }
        assert_int_equal(r, 0);
        print_message("kernel offers '%s': %s\n", offered_text, reason);
        if (!strv_contains(offered, "zstd"))
                assert_string_equal(reason, "zstd not offered by this kernel, using lz4");
}

static void test_provision_make_before_break_teardown(void **state) {
        int first = -1, second = -1;
        if (!algorithm)
                skip();

        /* the first device, as the policy's [Zram] would ask for it */
        assert_int_equal(zram_provision("/", algorithm, NULL, NULL, NULL, 0, 64 * MiB, 100, page_size, &first, NULL), 0);
        touch(first);
        /* with zram-control, always a device of its own (hot_add'ed), never one found free */
        if (access("/sys/class/zram-control", F_OK) == 0)
                assert_false(find_before(first));
        print_message("provisioned /dev/zram%d at priority 100 (%s)\n", first, find_before(first) ? "found free" : "hot_add'ed");
        assert_swap_device(first, 100);

        /* a failure while the first is on: the device it hot_add'ed for that is removed again */
        int ids_before[MAX_IDS], ids_after[MAX_IDS], failed = -42;
        size_t nb, na;
        assert_int_equal(list_zram_ids(ids_before, MAX_IDS, &nb), 0);
        int r = zram_provision("/", "no-such-algorithm", NULL, NULL, NULL, 0, 64 * MiB, 50, page_size, &failed, NULL);
        if (r >= 0)
                touch(failed);
        assert_int_equal(r, -EINVAL);
        assert_int_equal(failed, -42);
        assert_int_equal(list_zram_ids(ids_after, MAX_IDS, &na), 0);
        assert_int_equal(na, nb);
        assert_swap_device(first, 100);

        /* a second one while the first is on: make before break */
        assert_int_equal(zram_provision("/", algorithm, NULL, NULL, NULL, 0, 64 * MiB, 10, page_size, &second, NULL), 0);
        touch(second);
        /* with zram-control, always a device of its own (hot_add'ed), never one found free */
        if (access("/sys/class/zram-control", F_OK) == 0)
                assert_false(find_before(second));
        print_message("provisioned /dev/zram%d at priority 10\n", second);
        assert_int_not_equal(second, first);
        assert_swap_device(second, 10);
        assert_swap_device(first, 100);         /* untouched by the second */

        ZramMmStat st;
        assert_int_equal(zram_read_mm_stat("/", first, &st), 0);

        /* break: the first goes, the second stays */
        if (find_before(first)) {
                assert_int_equal(zram_reset("/", first), 0);
                assert_int_equal(zram_disksize(first), 0);
        } else {
                assert_int_equal(zram_teardown("/", first), 0);
                assert_false(zram_exists(first));
        }
        assert_int_equal(swaps_priority(first), INT32_MIN);
        assert_swap_device(second, 10);

        if (find_before(second)) {
                assert_int_equal(zram_reset("/", second), 0);
                assert_int_equal(zram_disksize(second), 0);
        } else {
                assert_int_equal(zram_teardown("/", second), 0);
                assert_false(zram_exists(second));
        }
        assert_int_equal(swaps_priority(second), INT32_MIN);
        cleanup();      /* gives a borrowed device its algorithm back */
}

typedef struct Failure {
        const char *name;
        const char *algorithm;          /* NULL: the one picked */
        const char *params;
        uint64_t disksize;
} Failure;

static void test_failures_leave_the_host_as_it_was(void **state) {
        const Failure failures[] = {
                { "an algorithm the kernel refuses", "no-such-algorithm", NULL, 64 * MiB },
                { "a disksize the kernel cannot allocate", NULL, NULL, 1024 * TiB },
                { "algorithm_params the kernel refuses", NULL, "level=not-a-number", 64 * MiB },
        };
        if (!algorithm)
                skip();

        for (size_t i = 0; i < ELEMENTSOF(failures); i++) {
                const Failure *f = &failures[i];
                int ids_before[MAX_IDS], ids_after[MAX_IDS], id = -42;
                size_t nb, na;

                if (f->params && access("/sys/block/zram0/algorithm_params", F_OK) < 0 && zram_exists(0)) {
                        print_message("%s: kernel without algorithm_params, skipped\n", f->name);
                        continue;
                }

                assert_int_equal(list_zram_ids(ids_before, MAX_IDS, &nb), 0);
                int r = zram_provision("/", f->algorithm ?: algorithm, NULL, f->params, NULL, 0, f->disksize, 100, page_size, &id, NULL);
                print_message("%s: %s\n", f->name, strerror(-r));
                if (r >= 0)
                        touch(id);
                assert_true(r < 0);
                assert_int_equal(id, -42);

                /* no device came or went, and every device is as it was */
                assert_int_equal(list_zram_ids(ids_after, MAX_IDS, &na), 0);
                assert_int_equal(na, nb);
                for (size_t j = 0; j < nb; j++) {
                        const Before *b = find_before(ids_before[j]);
                        assert_non_null(b);
                        assert_int_equal(zram_disksize(b->id), b->disksize);
                        assert_int_equal(swaps_priority(b->id), INT32_MIN);
                }
        }
}

static uint64_t now_usec(void) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t) ts.tv_sec * 1000000 + (uint64_t) ts.tv_nsec / 1000;
}

/* A child holds /dev/zram<id> open for hold_usec, as udev does right after a device appears or
 * is swapped off. Returns its pid once the device is open. */
static pid_t hold_open(int id, uint64_t hold_usec) {
        int p[2];
        assert_int_equal(pipe2(p, O_CLOEXEC), 0);
        pid_t pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
                char dev[32];
                snprintf(dev, sizeof(dev), "/dev/zram%d", id);
                int fd = open(dev, O_RDONLY | O_CLOEXEC);
                if (write(p[1], fd >= 0 ? "y" : "n", 1) != 1)
                        _exit(2);
                usleep(hold_usec);
                _exit(fd >= 0 ? 0 : 1);
        }
        close(p[1]);
        char c = 0;
        assert_int_equal(read(p[0], &c, 1), 1);
        close(p[0]);
        assert_int_equal(c, 'y');
        return pid;
}

static void wait_child(pid_t pid) {
        int status;
        assert_int_equal(waitpid(pid, &status, 0), pid);
        assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

static void test_reset_waits_briefly_for_a_holder(void **state) {
        int id = -1;
        if (!algorithm)
                skip();

        assert_int_equal(zram_provision("/", algorithm, NULL, NULL, NULL, 0, 64 * MiB, 5, page_size, &id, NULL), 0);
        touch(id);
        char dev[32];
        snprintf(dev, sizeof(dev), "/dev/zram%d", id);
        assert_int_equal(swap_off("/", dev), 0);

        /* held for 1.5 s: longer than the retries last, so reset gives up with EBUSY */
        pid_t pid = hold_open(id, 1500 * 1000);
        uint64_t t = now_usec();
        assert_int_equal(zram_reset("/", id), -EBUSY);
        uint64_t waited = now_usec() - t;
        print_message("held 1.5 s: EBUSY after %" PRIu64 " ms\n", waited / 1000);
        assert_true(waited >= (ZRAM_BUSY_TRIES - 1) * ZRAM_BUSY_DELAY_USEC);
        wait_child(pid);
        assert_int_equal(zram_disksize(id), 64 * MiB);

        /* held for 0.3 s: the retries outlast it */
        pid = hold_open(id, 300 * 1000);
        t = now_usec();
        assert_int_equal(zram_reset("/", id), 0);
        print_message("held 0.3 s: reset after %" PRIu64 " ms\n", (now_usec() - t) / 1000);
        wait_child(pid);
        assert_int_equal(zram_disksize(id), 0);
}

static void test_host_is_left_as_it_was(void **state) {
        int ids[MAX_IDS];
        size_t n;
        assert_int_equal(list_zram_ids(ids, MAX_IDS, &n), 0);
        assert_int_equal(n, n_before);
        for (size_t i = 0; i < n_before; i++) {
                const Before *b = &before[i];
                assert_true(zram_exists(b->id));
                assert_int_equal(zram_disksize(b->id), b->disksize);
                if (b->disksize == 0)
                        assert_int_equal(swaps_priority(b->id), INT32_MIN);
                _cleanup_free_ char *active = zram_active_algorithm(b->id);
                assert_string_equal(strempty(active), strempty(b->algorithm));
        }
}

int main(void) {
        if (geteuid() != 0) {
                printf("SKIP: needs root (zram devices, swapon)\n");
                return 77;
        }
        if (access("/sys/class/zram-control", F_OK) < 0) {
                printf("SKIP: /sys/class/zram-control missing (zram module not loaded)\n");
                return 77;
        }

        if (kernel_test_lock() < 0)
                return 1;
        atexit(cleanup);
        struct sigaction sa = { .sa_handler = on_signal };
        sigemptyset(&sa.sa_mask);
        for (int s = SIGHUP; s <= SIGTERM; s++)
                if (s == SIGHUP || s == SIGINT || s == SIGQUIT || s == SIGTERM)
                        (void) sigaction(s, &sa, NULL);

        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_pick_algorithm_on_this_kernel),
                cmocka_unit_test_teardown(test_provision_make_before_break_teardown, test_teardown),
                cmocka_unit_test_teardown(test_failures_leave_the_host_as_it_was, test_teardown),
                cmocka_unit_test_teardown(test_reset_waits_briefly_for_a_holder, test_teardown),
                cmocka_unit_test(test_host_is_left_as_it_was),
        };
        return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
