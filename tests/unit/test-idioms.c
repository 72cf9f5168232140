/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The two idioms every module uses: enum names from one table (shared/string-table.h) and the
 * log-and-return error line (report/log.h), run for real: log lines are written to a file that
 * stands in for standard error. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <fcntl.h>
#include <inttypes.h>
#include <sys/stat.h>

#include "policy/policy.h"
#include "report/log.h"
#include "shared/string-table.h"

/* A table with a hole, as a table of bit flags has. */
typedef enum Fruit {
        FRUIT_APPLE,
        FRUIT_PEAR,
        FRUIT_HOLE,
        FRUIT_PLUM,
        _FRUIT_MAX,
} Fruit;
static const char *const fruit_table[_FRUIT_MAX] = {
        [FRUIT_APPLE] = "apple",
        [FRUIT_PEAR] = "pear",
        [FRUIT_PLUM] = "plum",
};
const char *fruit_to_string(Fruit v);
int fruit_from_string(const char *s, Fruit *ret);
DEFINE_STRING_TABLE_LOOKUP(fruit, Fruit, fruit_table);

static void test_string_table(void **state) {
        Fruit f = FRUIT_PEAR;

        assert_string_equal(fruit_to_string(FRUIT_APPLE), "apple");
        assert_string_equal(fruit_to_string(FRUIT_PLUM), "plum");
        assert_null(fruit_to_string(FRUIT_HOLE));
        assert_null(fruit_to_string(_FRUIT_MAX));
        assert_null(fruit_to_string((Fruit) -1));

        assert_int_equal(fruit_from_string("plum", &f), 0);
        assert_int_equal(f, FRUIT_PLUM);
        /* Unknown, NULL, a different case: -EINVAL and ret untouched. */
        assert_int_equal(fruit_from_string("cherry", &f), -EINVAL);
        assert_int_equal(fruit_from_string(NULL, &f), -EINVAL);
        assert_int_equal(fruit_from_string("Plum", &f), -EINVAL);
        assert_int_equal(f, FRUIT_PLUM);
}

/* The policy's tables: bit flags (StorageKind) and an empty name (SwapBehavior). */
static void test_policy_tables(void **state) {
        StorageKind k = 0;
        SwapBehavior b = SWAP_BEHAVIOR_LIMITED_SWAP;

        assert_string_equal(storage_kind_to_string(STORAGE_MMC), "mmc");
        assert_null(storage_kind_to_string(STORAGE_NVME | STORAGE_SSD));
        assert_null(storage_kind_to_string(0));
        assert_int_equal(storage_kind_from_string("virtual", &k), 0);
        assert_int_equal(k, STORAGE_VIRTUAL);

        assert_string_equal(swap_behavior_to_string(SWAP_BEHAVIOR_NO_SWAP), "NoSwap");
        assert_int_equal(swap_behavior_from_string("", &b), 0);
        assert_int_equal(b, SWAP_BEHAVIOR_UNSET);
        assert_int_equal(swap_behavior_from_string("noswap", &b), -EINVAL);
}

/* Runs f with standard error on a fresh file and returns what was written there. With journal set,
 * JOURNAL_STREAM names that file, as systemd names a service's stream. */
static char *capture_stderr(bool journal, void (*f)(void)) {
        char path[] = "/tmp/nodeswap-test-log.XXXXXX";
        int fd = mkostemp(path, O_CLOEXEC);
        assert_true(fd >= 0);
        fflush(stderr);
        int saved = dup(STDERR_FILENO);
        assert_true(saved >= 0);
        assert_true(dup2(fd, STDERR_FILENO) >= 0);
        if (journal) {
                struct stat st;
                char v[64];
                assert_int_equal(fstat(fd, &st), 0);
                snprintf(v, sizeof(v), "%" PRIu64 ":%" PRIu64, (uint64_t) st.st_dev, (uint64_t) st.st_ino);
                assert_int_equal(setenv("JOURNAL_STREAM", v, 1), 0);
        }
        f();
        fflush(stderr);
        unsetenv("JOURNAL_STREAM");
        assert_true(dup2(saved, STDERR_FILENO) >= 0);
        close(saved);
        char *text = NULL;
        assert_true(read_full_file(path, READ_SMALL_MAX, &text) >= 0);
        close(fd);
        unlink(path);
        return text;
}

/* What log_some() returned, checked once standard error is back (a failed assertion while it is
 * redirected would land in the file). */
static int returned[4], errno_after;

static void log_some(void) {
        errno = EBADF;
        /* Either sign of the error gives the negative errno, and %m its text. */
        returned[0] = log_error_errno(-EACCES, "Failed to open '%s': %m", "/etc/x");
        returned[1] = log_warning_errno(ENOENT, "Missing: %m");
        returned[2] = log_notice("Waiting for %s...", "the lock");
        returned[3] = log_oom();
        errno_after = errno;
}

static void assert_log_some_returned(void) {
        assert_int_equal(returned[0], -EACCES);
        assert_int_equal(returned[1], -ENOENT);
        assert_int_equal(returned[2], 0);
        assert_int_equal(returned[3], -ENOMEM);
        /* errno is left as it was. */
        assert_int_equal(errno_after, EBADF);
}

static void test_log_plain(void **state) {
        log_setup(NULL, LOG_TARGET_STDERR);
        char *text = capture_stderr(false, log_some);
        assert_log_some_returned();
        assert_string_equal(text, "Failed to open '/etc/x': Permission denied\n"
                                  "Missing: No such file or directory\n"
                                  "Waiting for the lock...\n"
                                  "Out of memory.\n");
        free(text);
}

static void test_log_journal_and_program(void **state) {
        log_setup("nodeswap-test", LOG_TARGET_STDERR);
        char *text = capture_stderr(true, log_some);
        assert_log_some_returned();
        assert_string_equal(text, "<3>nodeswap-test: Failed to open '/etc/x': Permission denied\n"
                                  "<4>nodeswap-test: Missing: No such file or directory\n"
                                  "<5>nodeswap-test: Waiting for the lock...\n"
                                  "<3>nodeswap-test: Out of memory.\n");
        free(text);
        log_setup(NULL, LOG_TARGET_STDERR);
}

static void test_log_kmsg_console(void **state) {
        /* SYSTEMD_LOG_TARGET=console keeps a generator's messages on standard error. */
        assert_int_equal(setenv("SYSTEMD_LOG_TARGET", "console", 1), 0);
        log_setup("nodeswap-test", LOG_TARGET_KMSG);
        char *text = capture_stderr(false, log_some);
        assert_true(startswith(text, "nodeswap-test: Failed to open '/etc/x': Permission denied\n"));
        free(text);
        unsetenv("SYSTEMD_LOG_TARGET");
        log_setup(NULL, LOG_TARGET_STDERR);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_string_table),
                cmocka_unit_test(test_policy_tables),
                cmocka_unit_test(test_log_plain),
                cmocka_unit_test(test_log_journal_and_program),
                cmocka_unit_test(test_log_kmsg_console),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
