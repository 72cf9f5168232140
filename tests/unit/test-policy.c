/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The policy language: every key valid and invalid, every class of error with its line, the
 * search path with drop-ins, and the files nodeswap ships.
 *
 * Each test writes its policy files into a fresh temporary directory (the root) and works from
 * there, so the files it reads are right next to what it expects of them. The file names in
 * the expected messages are relative to that root.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <setjmp.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <sys/stat.h>

#include "policy/policy.h"
#include "policy/schema.h"

static const PolicyContext ctx = {
        .ram = UINT64_C(16218) * MiB,   /* MemTotal of a 16 GB Raspberry Pi 5 */
        .page_size = 16384,             /* its kernel's page size */
};

static char **shipped_files;            /* from the command line: conf/nodeswap.conf, conf/examples/ */

/* State of one test. */
static char root[64];
static Policy P;
static PolicyErrors E;
static char **F;                        /* E formatted, with "<root>/" cut off the file names */

static int setup(void **state) {
        strcpy(root, "/tmp/test-policy-XXXXXX");
        assert_non_null(mkdtemp(root));
        assert_int_equal(chdir(root), 0);
        P = (Policy) {};
        E = (PolicyErrors) {};
        F = NULL;
        return 0;
}

static int rm_one(const char *path, const struct stat *s, int flag, struct FTW *f) {
        return remove(path);
}

static int teardown(void **state) {
        policy_done(&P);
        policy_errors_clear(&E);
        strv_free(F);
        F = NULL;
        assert_int_equal(chdir("/"), 0);
        assert_int_equal(nftw(root, rm_one, 16, FTW_DEPTH | FTW_PHYS), 0);
        return 0;
}

static void mkdir_parents(const char *path) {
        char buf[PATH_MAX];
        snprintf(buf, sizeof(buf), "%s", path);
        for (char *s = buf + 1; *s; s++)
                if (*s == '/') {
                        *s = 0;
                        if (mkdir(buf, 0755) < 0)
                                assert_int_equal(errno, EEXIST);
                        else
                                assert_int_equal(chmod(buf, 0755), 0);
                        *s = '/';
                }
}

/* Writes a policy file below the root (cwd), mode 0644, with its directories (0755). */
static void write_file_len(const char *rel, const char *content, size_t len, mode_t mode) {
        mkdir_parents(rel);
        int fd = open(rel, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
        assert_true(fd >= 0);
        assert_int_equal(write(fd, content, len), (ssize_t) len);
        assert_int_equal(fchmod(fd, mode), 0);
        close(fd);
}

static void write_file(const char *rel, const char *content) {
        write_file_len(rel, content, strlen(content), 0644);
}

static void format_errors(void) {
        char prefix[PATH_MAX + 1];
        snprintf(prefix, sizeof(prefix), "%s/", root);
        strv_free(F);
        F = calloc(1, sizeof(char *));
        assert_non_null(F);
        for (size_t i = 0; i < E.n; i++) {
                char *s = policy_error_format(&E.errors[i]);
                assert_non_null(s);
                if (startswith(s, prefix))
                        memmove(s, s + strlen(prefix), strlen(s) - strlen(prefix) + 1);
                assert_int_equal(strv_push(&F, s), 0);
        }
}

/* Loads the search path below the test root. */
static int load_root(void) {
        policy_done(&P);
        policy_errors_clear(&E);
        int r = policy_load(root, NULL, &ctx, &P, &E);
        format_errors();
        return r;
}

/* Loads one file, as --config does (relative to the cwd, which is the test root). */
static int load_config(const char *path) {
        policy_done(&P);
        policy_errors_clear(&E);
        int r = policy_load("/nonexistent-root", path, &ctx, &P, &E);
        format_errors();
        return r;
}

/* Writes policy.conf and loads it with --config. */
static int load_text(const char *text) {
        write_file("policy.conf", text);
        return load_config("policy.conf");
}

static void print_errors(void) {
        for (char **i = F; i && *i; i++)
                print_message("  got: %s\n", *i);
}

/* The errors, formatted, exactly and in this order. NULL-terminated. */
static void assert_errors(const char *first, ...) {
        va_list ap;
        size_t n = 0;
        bool ok = true;

        va_start(ap, first);
        for (const char *w = first; w; w = va_arg(ap, const char *), n++)
                if (n >= strv_length(F) || !streq(F[n], w)) {
                        print_message("want: %s\n", w);
                        ok = false;
                }
        va_end(ap);
        if (n != strv_length(F))
                ok = false;
        if (!ok)
                print_errors();
        assert_true(ok);
}

static void assert_no_errors(int r) {
        if (r != 0)
                print_errors();
        assert_int_equal(r, 0);
        assert_int_equal(E.n, 0);
}

/* ---------------------------------------------------------------------------------------------- */

static void test_to_string(void **state) {
        assert_string_equal(storage_kind_to_string(STORAGE_NVME), "nvme");
        assert_string_equal(storage_kind_to_string(STORAGE_SSD), "ssd");
        assert_string_equal(storage_kind_to_string(STORAGE_VIRTUAL), "virtual");
        assert_string_equal(storage_kind_to_string(STORAGE_ROTATIONAL), "rotational");
        assert_string_equal(storage_kind_to_string(STORAGE_MMC), "mmc");
        assert_null(storage_kind_to_string(1 << 9));
        assert_string_equal(swap_behavior_to_string(SWAP_BEHAVIOR_LIMITED_SWAP), "LimitedSwap");
        assert_string_equal(swap_behavior_to_string(SWAP_BEHAVIOR_NO_SWAP), "NoSwap");
        assert_string_equal(swap_behavior_to_string(SWAP_BEHAVIOR_UNSET), "");
}

static void assert_defaults(const Policy *p) {
        assert_false(p->backend_set);
        assert_int_equal(p->backends, 0);
        assert_true(p->zram.size == 8109 * MiB);                /* min(ram / 2, 8G) */
        assert_string_equal(p->zram.size_expr, "min(ram / 2, 8G)");
        assert_int_equal(strv_length(p->zram.algorithms), 2);
        assert_string_equal(p->zram.algorithms[0], "zstd");
        assert_string_equal(p->zram.algorithms[1], "lz4");
        assert_int_equal(p->zram.priority, 100);
        assert_true(p->zram.mem_limit == 0);
        assert_int_equal(strv_length(p->zram.algorithm_params), 2);
        assert_string_equal(p->zram.algorithm_params[0], "");
        assert_string_equal(p->zram.algorithm_params[1], "");
        assert_null(p->zram.recompress);
        assert_null(p->zram.writeback);
        assert_true(p->zram.writeback_idle_after == 86400);
        assert_true(p->zram.writeback_interval == 86400);
        assert_true(p->zram.writeback_limit == 0);
        assert_true(p->zram.writeback_encrypt);                 /* a Writeback= file encrypted unless WritebackEncrypt=no */
        assert_int_equal(p->file.discard, SWAP_DISCARD_OFF);
        assert_true(p->file.encrypt);                           /* encrypted unless Encrypt=no */
        assert_string_equal(p->file.path, "/var/lib/nodeswap/swapfile");
        assert_true(p->file.size == ctx.ram);                   /* as much swap as RAM */
        assert_string_equal(p->file.size_expr, "ram");
        assert_int_equal(p->file.priority, 10);
        assert_int_equal(p->file.storage, STORAGE_NVME | STORAGE_SSD | STORAGE_VIRTUAL);
        assert_int_equal(p->swappiness, -1);
        assert_int_equal(p->page_cluster, -1);
        assert_int_equal(p->swap_behavior, SWAP_BEHAVIOR_UNSET);
        assert_string_equal(p->dropin, "/var/lib/rancher/k3s/agent/etc/kubelet.conf.d/90-nodeswap.conf");
        assert_null(p->kubelet_unit);
        assert_true(p->node_features);                          /* [Kubelet] NodeFeatures=yes */
        _cleanup_free_ char *units = strv_join(p->conflict_units, " ");
        assert_string_equal(units, "dev-zram0.swap systemd-zram-setup@zram0.service rpi-zram-writeback.timer "
                                   "rpi-zram-writeback.service rpi-resize-swap-file.service var-swap.swap "
                                   "dphys-swapfile.service zramswap.service");
        for (size_t k = 0; k < _POLICY_KEY_MAX; k++)
                assert_null(p->origin[k].file);
        _cleanup_free_ char *compressors = strv_join(p->zswap.compressors, " ");
        assert_string_equal(compressors, "zstd lz4 lzo-rle lzo");
        assert_int_equal(p->zswap.max_pool_percent, -1);
        assert_int_equal(p->zswap.accept_threshold_percent, -1);
        assert_int_equal(p->zswap.shrinker, -1);
}

static void test_defaults(void **state) {
        Policy p;
        assert_int_equal(policy_init_defaults(&p, &ctx), 0);
        assert_defaults(&p);
        assert_false(p.found);
        assert_int_equal(strv_length(p.files), 0);
        policy_done(&p);

        /* Sizes are evaluated against the context: a 4 GiB VPS gets 2 GiB of zram. */
        PolicyContext small = { .ram = 4 * GiB, .page_size = 4096 };
        assert_int_equal(policy_init_defaults(&p, &small), 0);
        assert_true(p.zram.size == 2 * GiB);
        assert_true(p.file.size == 4 * GiB);
        policy_done(&p);

        PolicyContext broken = { .ram = 4 * GiB, .page_size = 0 };
        assert_int_equal(policy_init_defaults(&p, &broken), -EINVAL);
        assert_int_equal(policy_init_defaults(&p, NULL), -EINVAL);
}

static void test_revert_policy(void **state) {
        Policy p;
        assert_int_equal(policy_revert(&p, &ctx), 0);
        assert_true(p.found);
        assert_true(p.backend_set);
        assert_int_equal(p.backends, 0);
        assert_int_equal(p.swap_behavior, SWAP_BEHAVIOR_NO_SWAP);
        assert_true(strv_contains(p.conflict_units, "dev-zram0.swap"));
        assert_string_equal(p.dropin, "/var/lib/rancher/k3s/agent/etc/kubelet.conf.d/90-nodeswap.conf");
        policy_done(&p);
}

static void test_no_policy_at_all(void **state) {
        assert_no_errors(load_root());
        assert_false(P.found);
        assert_int_equal(strv_length(P.files), 0);
        assert_defaults(&P);
}

static void test_every_key(void **state) {
        assert_no_errors(load_text(
                "[Swap]\n"                                              /* 1 */
                "Backend=zram file\n"
                "\n"
                "[Zram]\n"
                "Size=25%\n"                                            /* 5 */
                "Algorithm=lz4 lzo-rle\n"
                "Priority=32767\n"
                "MemLimit=1G\n"
                "\n"
                "[File]\n"                                              /* 10 */
                "Path=/srv//swap/./node.swap\n"
                "Size=2 * ram\n"
                "Priority=0\n"
                "Storage=mmc rotational\n"
                "\n"                                                    /* 15 */
                "[Sysctl]\n"
                "Swappiness=200\n"
                "PageCluster=0\n"
                "\n"
                "[Kubelet]\n"                                           /* 20 */
                "SwapBehavior=LimitedSwap\n"
                "DropIn=/var/lib/rancher/rke2/agent/etc/kubelet.conf.d/90-nodeswap.conf\n"
                "Unit=rke2-agent.service\n"
                "\n"
                "[Conflicts]\n"                                         /* 25 */
                "Units=zram-swap.service\n"));

        assert_true(P.found);
        assert_int_equal(strv_length(P.files), 1);
        assert_string_equal(P.files[0], "policy.conf");
        assert_true(P.backend_set);
        assert_int_equal(P.backends, BACKEND_ZRAM | BACKEND_FILE);
        assert_ptr_equal(P.origin[POLICY_KEY_SWAP_BACKEND].file, P.files[0]);
        assert_int_equal(P.origin[POLICY_KEY_SWAP_BACKEND].line, 2);

        assert_true(P.zram.size == UINT64_C(4251451392));       /* 16218 MiB / 4 = 4054.5 MiB */
        assert_string_equal(P.zram.size_expr, "25%");
        assert_ptr_equal(P.origin[POLICY_KEY_ZRAM_SIZE].file, P.files[0]);
        assert_int_equal(P.origin[POLICY_KEY_ZRAM_SIZE].line, 5);
        assert_string_equal(P.zram.algorithms[0], "lz4");
        assert_string_equal(P.zram.algorithms[1], "lzo-rle");
        assert_null(P.zram.algorithms[2]);
        assert_int_equal(P.zram.priority, 32767);
        assert_int_equal(P.origin[POLICY_KEY_ZRAM_PRIORITY].line, 7);
        assert_true(P.zram.mem_limit == GiB);

        assert_string_equal(P.file.path, "/srv/swap/node.swap");
        assert_true(P.file.size == 2 * ctx.ram);
        assert_string_equal(P.file.size_expr, "2 * ram");
        assert_int_equal(P.origin[POLICY_KEY_FILE_SIZE].line, 12);
        assert_int_equal(P.file.priority, 0);
        assert_int_equal(P.origin[POLICY_KEY_FILE_PRIORITY].line, 13);
        assert_int_equal(P.file.storage, STORAGE_MMC | STORAGE_ROTATIONAL);

        assert_int_equal(P.swappiness, 200);
        assert_int_equal(P.page_cluster, 0);
        assert_int_equal(P.swap_behavior, SWAP_BEHAVIOR_LIMITED_SWAP);
        assert_string_equal(P.dropin, "/var/lib/rancher/rke2/agent/etc/kubelet.conf.d/90-nodeswap.conf");
        assert_string_equal(P.kubelet_unit, "rke2-agent.service");
        /* Units= appends to the default list. */
        assert_int_equal(strv_length(P.conflict_units), 9);
        assert_string_equal(P.conflict_units[8], "zram-swap.service");
}

static void test_zswap_keys(void **state) {
        assert_no_errors(load_text(
                "[Swap]\n"                                              /* 1 */
                "Backend=zswap file\n"
                "[Zswap]\n"
                "Compressor=lz4 lzo\n"
                "MaxPoolPercent=25\n"                                   /* 5 */
                "AcceptThresholdPercent=80\n"
                "Shrinker=no\n"));
        assert_int_equal(P.backends, BACKEND_ZSWAP | BACKEND_FILE);
        _cleanup_free_ char *c = strv_join(P.zswap.compressors, " ");
        assert_string_equal(c, "lz4 lzo");
        assert_int_equal(P.zswap.max_pool_percent, 25);
        assert_int_equal(P.zswap.accept_threshold_percent, 80);
        assert_int_equal(P.zswap.shrinker, 0);
        assert_int_equal(P.origin[POLICY_KEY_ZSWAP_COMPRESSOR].line, 4);
        assert_int_equal(P.origin[POLICY_KEY_ZSWAP_SHRINKER].line, 7);
        assert_string_equal(policy_key_section(POLICY_KEY_ZSWAP_ACCEPT_THRESHOLD_PERCENT), "Zswap");
        assert_string_equal(policy_key_name(POLICY_KEY_ZSWAP_ACCEPT_THRESHOLD_PERCENT), "AcceptThresholdPercent");
        policy_done(&P);

        /* An empty assignment goes back to leaving the kernel's value alone; Compressor= replaces. */
        assert_no_errors(load_text(
                "[Zswap]\n"
                "MaxPoolPercent=25\n"
                "MaxPoolPercent=\n"
                "Shrinker=yes\n"
                "Shrinker=\n"
                "Compressor=lz4\n"
                "Compressor=zstd\n"));
        assert_int_equal(P.zswap.max_pool_percent, -1);
        assert_int_equal(P.zswap.shrinker, -1);
        assert_int_equal(strv_length(P.zswap.compressors), 1);
        assert_string_equal(P.zswap.compressors[0], "zstd");
}

typedef struct ValidCase {
        const char *section, *key, *value;
} ValidCase;

/* Values that must be accepted (each alone in a file). */
static const ValidCase valid[] = {
        { "Swap", "Backend", "zram" },
        { "Swap", "Backend", "file" },
        { "Swap", "Backend", "file zram" },
        { "Swap", "Backend", "none" },
        { "Swap", "Backend", "zswap file" },
        { "Swap", "Backend", "file zswap" },
        { "Swap", "Backend", "" },
        { "Zswap", "Compressor", "lz4" },
        { "Zswap", "Compressor", "zstd lz4 lzo-rle lzo 842 deflate" },
        { "Zswap", "Compressor", "" },
        { "Zswap", "MaxPoolPercent", "1" },
        { "Zswap", "MaxPoolPercent", "100" },
        { "Zswap", "MaxPoolPercent", "" },
        { "Zswap", "AcceptThresholdPercent", "0" },
        { "Zswap", "AcceptThresholdPercent", "100" },
        { "Zswap", "AcceptThresholdPercent", "" },
        { "Zswap", "Shrinker", "yes" },
        { "Zswap", "Shrinker", "no" },
        { "Zswap", "Shrinker", "" },
        { "Kubelet", "NodeFeatures", "yes" },
        { "Kubelet", "NodeFeatures", "no" },
        { "Zram", "Size", "512M" },
        { "Zram", "Size", "1.5G" },
        { "Zram", "Size", "50%" },
        { "Zram", "Size", "max(ram / 4, 1G)" },
        { "Zram", "Size", "" },
        { "Zram", "Algorithm", "zstd" },
        { "Zram", "Algorithm", "842 lzo-rle lzo lz4hc deflate" },
        { "Zram", "Priority", "0" },
        { "Zram", "Priority", "32767" },
        { "Zram", "Priority", "0100" },
        { "Zram", "MemLimit", "2G" },
        { "Zram", "MemLimit", "" },
        { "Zram", "Algorithm", "zstd(level=3) lz4" },
        { "Zram", "Algorithm", "zstd(level=-5,dict=/etc/nodeswap/zstd.dict)" },
        { "Zram", "RecompressAlgorithm", "zstd(level=9)" },
        { "Zram", "RecompressAlgorithm", "zstd lz4hc deflate" },
        { "Zram", "RecompressAlgorithm", "" },
        { "Zram", "Writeback", "/dev/nvme0n1p3" },
        { "Zram", "Writeback", "/var/lib/nodeswap/zram-writeback" },
        { "Zram", "Writeback", "" },
        { "Zram", "WritebackIdleAfter", "1d" },
        { "Zram", "WritebackIdleAfter", "1h 30min" },
        { "Zram", "WritebackIdleAfter", "3600" },
        { "Zram", "WritebackInterval", "12h" },
        { "Zram", "WritebackInterval", "0" },
        { "Zram", "WritebackInterval", "" },
        { "Zram", "WritebackLimit", "1G" },
        { "Zram", "WritebackLimit", "" },
        { "File", "Discard", "once" },
        { "File", "Discard", "pages" },
        { "File", "Discard", "off" },
        { "File", "Discard", "" },
        { "File", "Encrypt", "yes" },
        { "File", "Encrypt", "no" },
        { "File", "Encrypt", "" },
        { "File", "Path", "/swapfile" },
        { "File", "Path", "/tmpfs-is-not-tmp/swapfile" },
        { "File", "Path", "/var/lib/nodeswap/swap.img" },
        { "File", "Size", "16G" },
        { "File", "Size", "ram + 2G" },
        { "File", "Priority", "32767" },
        { "File", "Storage", "nvme" },
        { "File", "Storage", "virtual ssd nvme rotational mmc" },
        { "File", "Storage", "" },
        { "Sysctl", "Swappiness", "0" },
        { "Sysctl", "Swappiness", "200" },
        { "Sysctl", "Swappiness", "" },
        { "Sysctl", "PageCluster", "10" },
        { "Sysctl", "PageCluster", "" },
        { "Sysctl", "MinFreeKbytes", "auto" },
        { "Sysctl", "MinFreeKbytes", "keep" },
        { "Sysctl", "MinFreeKbytes", "" },
        { "Sysctl", "MinFreeKbytes", "1024" },
        { "Sysctl", "MinFreeKbytes", "524288" },
        { "Sysctl", "MinFreeKbytes", "1660723" },
        { "Sysctl", "WatermarkScaleFactor", "auto" },
        { "Sysctl", "WatermarkScaleFactor", "keep" },
        { "Sysctl", "WatermarkScaleFactor", "1" },
        { "Sysctl", "WatermarkScaleFactor", "3000" },
        { "Kubelet", "SwapBehavior", "NoSwap" },
        { "Kubelet", "SwapBehavior", "LimitedSwap" },
        { "Kubelet", "SwapBehavior", "" },
        { "Kubelet", "DropIn", "/etc/kubernetes/kubelet.conf.d/50-swap.conf" },
        { "Kubelet", "Unit", "auto" },
        { "Kubelet", "Unit", "kubelet.service" },
        { "Kubelet", "Unit", "k3s.service" },
        { "Kubelet", "Unit", "kube\\x2dlet@node-1.service" },
        { "Kubelet", "Unit", "" },
        { "Kubelet", "MemoryEviction", "100Mi" },
        { "Kubelet", "MemoryEviction", "1Gi" },
        { "Kubelet", "MemoryEviction", "1.5Gi" },
        { "Kubelet", "MemoryEviction", "500M" },
        { "Kubelet", "MemoryEviction", "1e9" },
        { "Kubelet", "MemoryEviction", "5%" },
        { "Kubelet", "MemoryEviction", "7.5%" },
        { "Kubelet", "MemoryEviction", "off" },
        { "Kubelet", "MemoryEviction", "" },
        { "Conflicts", "Units", "dphys-swapfile.service" },
        { "Conflicts", "Units", "systemd-zram-setup@.service swap.target dev-sda2.swap zram.device" },
        { "Conflicts", "Units", "a.socket b.mount c.automount d.path e.timer f.slice g.scope" },
        { "Conflicts", "Units", "" },
};

static void test_valid_values(void **state) {
        for (size_t i = 0; i < ELEMENTSOF(valid); i++) {
                char text[512];
                snprintf(text, sizeof(text), "[%s]\n%s=%s\n", valid[i].section, valid[i].key, valid[i].value);
                int r = load_text(text);
                if (r != 0)
                        print_message("[%s] %s=%s refused\n", valid[i].section, valid[i].key, valid[i].value);
                assert_no_errors(r);
        }
}

typedef struct InvalidCase {
        const char *section, *key, *value;
        const char *message;    /* the whole message after "policy.conf:2: [Section] Key=value: " */
} InvalidCase;

static const InvalidCase invalid[] = {
        { "Swap", "Backend", "swap", "unknown backend 'swap' (zram, file, \"zram file\", \"zswap file\" or none)" },
        { "Swap", "Backend", "Zram", "unknown backend 'Zram' (zram, file, \"zram file\", \"zswap file\" or none)" },
        { "Swap", "Backend", "zram none", "'none' cannot be combined with other backends" },

        { "Zram", "Size", "8g", "invalid size: size suffixes are upper case: K, M, G, T" },
        { "Zram", "Size", "8GiB", "invalid size: write binary sizes as K, M, G or T (not KiB, MiB, GiB)" },
        { "Zram", "Size", "0", "invalid size: the size is zero or negative" },
        { "Zram", "Size", "ram - 32G", "invalid size: the size is zero or negative" },
        { "Zram", "Size", "1G / 0", "invalid size: division by zero" },
        { "Zram", "Size", "ram * 99999999999999999999999999", "invalid size: the value is too large (overflow)" },
        { "Zram", "Size", "half", "invalid size: unknown name (only ram, min() and max() may be used)" },
        { "Zram", "Size", "8K", "invalid size: the size is smaller than one page" },
        { "Zram", "Algorithm", "LZ4", "invalid algorithm name 'LZ4' (lower-case letters, digits and '-')" },
        { "Zram", "Algorithm", "zstd,lz4", "invalid algorithm name 'zstd,lz4' (lower-case letters, digits and '-')" },
        { "Zram", "Algorithm", "lz4 zstd lz4", "algorithm 'lz4' is listed twice" },
        { "Zram", "Priority", "32768", "priority out of range (0..32767)" },
        { "Zram", "Priority", "-1", "priority must be a plain decimal number (0..32767)" },
        { "Zram", "Priority", "+5", "priority must be a plain decimal number (0..32767)" },
        { "Zram", "Priority", "1e3", "priority must be a plain decimal number (0..32767)" },
        { "Zram", "Priority", "0x10", "priority must be a plain decimal number (0..32767)" },
        { "Zram", "Priority", "100 200", "priority must be a plain decimal number (0..32767)" },
        /* 2^64 + 100 must not wrap around to 100 */
        { "Zram", "Priority", "18446744073709551716", "priority out of range (0..32767)" },
        { "Zram", "Priority", "4294967396", "priority out of range (0..32767)" },
        { "Zram", "MemLimit", "lots", "invalid size: unknown name (only ram, min() and max() may be used)" },
        { "Zram", "MemLimit", "0", "invalid size: the size is zero or negative" },
        { "Zram", "Algorithm", "zstd(level=3", "invalid parameters in 'zstd(level=3': parameters are written name(key=value,...) with no space, e.g. zstd(level=3)" },
        { "Zram", "Algorithm", "zstd(level=high)", "invalid parameters in 'zstd(level=high)': level= is an integer from -100 to 100" },
        { "Zram", "Algorithm", "zstd(level=999)", "invalid parameters in 'zstd(level=999)': level= is an integer from -100 to 100" },
        { "Zram", "Algorithm", "zstd(level=1,level=2)", "invalid parameters in 'zstd(level=1,level=2)': level= is given twice" },
        { "Zram", "Algorithm", "zstd(speed=1)", "invalid parameters in 'zstd(speed=1)': unknown parameter (the kernel's algorithm_params takes level= and dict=)" },
        { "Zram", "Algorithm", "zstd(dict=rel)", "invalid parameters in 'zstd(dict=rel)': dict= is an absolute path" },
        { "Zram", "Algorithm", "zstd(level=3,)", "invalid parameters in 'zstd(level=3,)': a trailing ',' in the parameters" },
        { "Zram", "Algorithm", "zstd(level=3) zstd", "algorithm 'zstd' is listed twice" },
        { "Zram", "RecompressAlgorithm", "zstd lz4 lz4hc deflate", "at most 3 algorithms" },
        { "Zram", "RecompressAlgorithm", "ZSTD", "invalid algorithm name 'ZSTD' (lower-case letters, digits and '-')" },
        { "Zram", "Writeback", "nvme0n1p3", "must be an absolute path" },
        { "Zram", "Writeback", "/tmp/wb", "a writeback device or file cannot live under /tmp (a memory-backed or pseudo file system)" },
        { "Zram", "Writeback", "/dev/shm/wb", "a writeback device or file cannot live under /dev/shm (a memory-backed or pseudo file system)" },
        { "Zram", "Writeback", "/var/lib/../wb", "must not contain a '..' component" },
        { "Zram", "WritebackIdleAfter", "0", "must be longer than 0" },
        { "Zram", "WritebackIdleAfter", "1 fortnight", "invalid time span (seconds, or a number with s, min, h, d or w: 30min, 12h, 1d)" },
        { "Zram", "WritebackIdleAfter", "-1h", "invalid time span (seconds, or a number with s, min, h, d or w: 30min, 12h, 1d)" },
        { "Zram", "WritebackInterval", "99999w", "time span out of range (at most ten years)" },
        { "Zram", "WritebackInterval", "1.5h", "invalid time span (seconds, or a number with s, min, h, d or w: 30min, 12h, 1d)" },
        { "Zram", "WritebackLimit", "1g", "invalid size: size suffixes are upper case: K, M, G, T" },
        { "Zram", "WritebackLimit", "0", "invalid size: the size is zero or negative" },
        { "File", "Discard", "yes", "must be once, pages or off (swapon's discard policies)" },
        { "File", "Discard", "Once", "must be once, pages or off (swapon's discard policies)" },
        { "File", "Encrypt", "maybe", "must be yes or no" },
        { "File", "Encrypt", "1", "must be yes or no" },

        { "File", "Path", "var/lib/swapfile", "must be an absolute path" },
        { "File", "Path", "/var/lib/../swapfile", "must not contain a '..' component" },
        { "File", "Path", "/var/lib/..", "must not contain a '..' component" },
        { "File", "Path", "/var/lib/nodeswap/", "must name a file, not a directory" },
        { "File", "Path", "/var/lib/.", "must name a file, not a directory" },
        { "File", "Path", "/", "must name a file, not a directory" },
        { "File", "Path", "//", "must name a file, not a directory" },
        { "File", "Path", "/var/lib/my swap", "must not contain white space or control characters" },
        { "File", "Path", "/tmp/swapfile", "a swap file cannot live under /tmp (a memory-backed or pseudo file system)" },
        { "File", "Path", "//tmp//swapfile", "a swap file cannot live under /tmp (a memory-backed or pseudo file system)" },
        { "File", "Path", "/dev/shm/swap", "a swap file cannot live under /dev (a memory-backed or pseudo file system)" },
        { "File", "Path", "/proc/swap", "a swap file cannot live under /proc (a memory-backed or pseudo file system)" },
        { "File", "Path", "/sys/swap", "a swap file cannot live under /sys (a memory-backed or pseudo file system)" },
        { "File", "Path", "/run/swap", "a swap file cannot live under /run (a memory-backed or pseudo file system)" },
        { "File", "Size", "-1G", "invalid size: the size is zero or negative" },
        { "File", "Size", "16 G", "invalid size: unexpected text after the expression" },
        { "File", "Priority", "99999", "priority out of range (0..32767)" },
        { "File", "Priority", "ten", "priority must be a plain decimal number (0..32767)" },
        { "File", "Storage", "sdcard", "unknown storage kind 'sdcard' (nvme, ssd, virtual, rotational, mmc)" },
        { "File", "Storage", "nvme NVMe", "unknown storage kind 'NVMe' (nvme, ssd, virtual, rotational, mmc)" },

        { "Sysctl", "Swappiness", "201", "swappiness out of range (0..200)" },
        { "Sysctl", "Swappiness", "-1", "swappiness must be a plain decimal number (0..200)" },
        { "Sysctl", "Swappiness", "sixty", "swappiness must be a plain decimal number (0..200)" },
        { "Sysctl", "Swappiness", "60.5", "swappiness must be a plain decimal number (0..200)" },
        { "Sysctl", "PageCluster", "11", "page-cluster out of range (0..10)" },
        { "Sysctl", "PageCluster", "3k", "page-cluster must be a plain decimal number (0..10)" },
        /* 10 % of the context's 16218 MiB in KiB */
        { "Sysctl", "MinFreeKbytes", "1660724", "min_free_kbytes out of range (1024..1660723 KiB: at most 10% of "
          "this node's RAM; the kernel keeps it free at all times, and too high a value OOMs the machine at once)" },
        { "Sysctl", "MinFreeKbytes", "1023", "min_free_kbytes out of range (1024..1660723 KiB: at most 10% of "
          "this node's RAM; the kernel keeps it free at all times, and too high a value OOMs the machine at once)" },
        { "Sysctl", "MinFreeKbytes", "512M", "must be auto, keep or a plain decimal number of KiB (1024..1660723)" },
        { "Sysctl", "MinFreeKbytes", "Auto", "must be auto, keep or a plain decimal number of KiB (1024..1660723)" },
        { "Sysctl", "WatermarkScaleFactor", "0", "watermark_scale_factor out of range (1..3000)" },
        { "Sysctl", "WatermarkScaleFactor", "3001", "watermark_scale_factor out of range (1..3000)" },
        { "Sysctl", "WatermarkScaleFactor", "0.5%", "must be auto, keep or a plain decimal number (1..3000)" },

        { "Kubelet", "SwapBehavior", "limitedswap", "must be LimitedSwap, NoSwap or empty; did you mean 'LimitedSwap'?" },
        { "Kubelet", "SwapBehavior", "NoSwp", "must be LimitedSwap, NoSwap or empty; did you mean 'NoSwap'?" },
        { "Kubelet", "SwapBehavior", "UnlimitedSwap", "must be LimitedSwap, NoSwap or empty; did you mean 'LimitedSwap'?" },
        { "Kubelet", "SwapBehavior", "yes", "must be LimitedSwap, NoSwap or empty" },
        { "Kubelet", "IOLatencyTargetSec", "500us", "io.latency target out of range (1ms..10s)" },
        { "Kubelet", "IOLatencyTargetSec", "11s", "io.latency target out of range (1ms..10s)" },
        { "Kubelet", "IOLatencyTargetSec", "25 ms", "must be auto, no or a time span (a whole number with us, ms or s: 25ms)" },
        { "Kubelet", "IOLatencyTargetSec", "yes", "must be auto, no or a time span (a whole number with us, ms or s: 25ms)" },
        { "Kubelet", "DropIn", "90-nodeswap.conf", "must be an absolute path" },
        { "Kubelet", "DropIn", "/etc/kubelet.conf.d/90-nodeswap.yaml", "the kubelet reads only drop-ins whose name ends in .conf" },
        { "Kubelet", "DropIn", "/etc/kubelet.conf.d/.conf", "the kubelet reads only drop-ins whose name ends in .conf" },
        { "Kubelet", "DropIn", "/etc/../90-nodeswap.conf", "must not contain a '..' component" },
        { "Kubelet", "Unit", "k3s-agent", "must be auto or the name of a service unit, such as k3s-agent.service" },
        { "Kubelet", "Unit", "k3s.socket", "must be auto or the name of a service unit, such as k3s-agent.service" },
        { "Kubelet", "Unit", "kubelet@.service", "must be auto or the name of a service unit, such as k3s-agent.service" },
        { "Kubelet", "Unit", "bad/name.service", "must be auto or the name of a service unit, such as k3s-agent.service" },
        { "Kubelet", "Unit", "AUTO", "must be auto or the name of a service unit, such as k3s-agent.service" },
        /* what the kubelet's parseThresholdStatement() refuses or ignores */
        { "Kubelet", "MemoryEviction", "0", "must be off, a quantity above zero the kubelet takes (100Mi, 512Mi, 1Gi) or a percentage of memory (5%)" },
        { "Kubelet", "MemoryEviction", "-100Mi", "must be off, a quantity above zero the kubelet takes (100Mi, 512Mi, 1Gi) or a percentage of memory (5%)" },
        { "Kubelet", "MemoryEviction", "100MB", "must be off, a quantity above zero the kubelet takes (100Mi, 512Mi, 1Gi) or a percentage of memory (5%)" },
        { "Kubelet", "MemoryEviction", "1 Gi", "must be off, a quantity above zero the kubelet takes (100Mi, 512Mi, 1Gi) or a percentage of memory (5%)" },
        { "Kubelet", "MemoryEviction", "no", "must be off, a quantity above zero the kubelet takes (100Mi, 512Mi, 1Gi) or a percentage of memory (5%)" },
        { "Kubelet", "MemoryEviction", "0%", "must be above 0% and below 100% (the kubelet ignores 0% and 100%); use off for no threshold" },
        { "Kubelet", "MemoryEviction", "100%", "must be above 0% and below 100% (the kubelet ignores 0% and 100%); use off for no threshold" },
        { "Kubelet", "MemoryEviction", "five%", "not a percentage the kubelet takes (e.g. 5%)" },

        { "Swap", "Backend", "zswap", "zswap needs a swap file behind it: write Backend=zswap file" },
        { "Swap", "Backend", "zswap zram file",
          "zswap cannot be combined with zram: zswap in front of zram compresses every page twice; write "
          "Backend=zswap file or Backend=zram" },
        { "Swap", "Backend", "zswap none", "'none' cannot be combined with other backends" },
        { "Zswap", "Compressor", "LZ4", "invalid compressor name 'LZ4' (lower-case letters, digits and '-')" },
        { "Zswap", "Compressor", "lz4 zstd lz4", "compressor 'lz4' is listed twice" },
        { "Zswap", "Compressor", "zstd,lz4", "invalid compressor name 'zstd,lz4' (lower-case letters, digits and '-')" },
        { "Zswap", "MaxPoolPercent", "0", "percentage out of range (1..100)" },
        { "Zswap", "MaxPoolPercent", "101", "percentage out of range (1..100)" },
        { "Zswap", "MaxPoolPercent", "20%", "must be a plain decimal number of percent (1..100), without '%'" },
        { "Zswap", "MaxPoolPercent", "-5", "must be a plain decimal number of percent (1..100), without '%'" },
        { "Zswap", "MaxPoolPercent", "99999999999999999999999", "percentage out of range (1..100)" },
        { "Zswap", "AcceptThresholdPercent", "101", "percentage out of range (0..100)" },
        { "Zswap", "AcceptThresholdPercent", "0x10", "must be a plain decimal number of percent (0..100), without '%'" },
        { "Zswap", "Shrinker", "1", "must be yes, no or empty (leave the kernel's value)" },
        { "Kubelet", "NodeFeatures", "true", "must be yes or no" },
        { "Zswap", "Shrinker", "Yes", "must be yes, no or empty (leave the kernel's value)" },
        { "Zswap", "Shrinker", "yes no", "must be yes, no or empty (leave the kernel's value)" },

        { "Conflicts", "Units", "dphys-swapfile", "invalid unit name 'dphys-swapfile'" },
        { "Conflicts", "Units", "a.service b.bogus", "invalid unit name 'b.bogus'" },
        { "Conflicts", "Units", "a@b@c.service", "invalid unit name 'a@b@c.service'" },
        { "Conflicts", "Units", "@x.service", "invalid unit name '@x.service'" },
        { "Conflicts", "Units", ".service", "invalid unit name '.service'" },
        { "Conflicts", "Units", "swap$.swap", "invalid unit name 'swap$.swap'" },
};

static void test_invalid_values(void **state) {
        for (size_t i = 0; i < ELEMENTSOF(invalid); i++) {
                char text[512], want[1024];
                snprintf(text, sizeof(text), "[%s]\n%s=%s\n", invalid[i].section, invalid[i].key, invalid[i].value);
                snprintf(want, sizeof(want), "policy.conf:2: [%s] %s=%s: %s", invalid[i].section, invalid[i].key,
                         invalid[i].value, invalid[i].message);
                assert_int_equal(load_text(text), -EINVAL);
                assert_errors(want, NULL);
        }
}

/* The reclaim keys' values as the plan reads them, and the running kernel's bound of
 * watermark_scale_factor: 1000 before Linux 5.18, with the key and value named. */
/* [Kubelet] IOLatencyTargetSec=: auto by default, no, and a time span in µs. */
static void test_io_latency_key(void **state) {
        assert_no_errors(load_text("[Kubelet]\nSwapBehavior=LimitedSwap\n"));
        assert_true(P.io_latency_usec == IO_LATENCY_AUTO);
        assert_no_errors(load_text("[Kubelet]\nIOLatencyTargetSec=no\n"));
        assert_true(P.io_latency_usec == IO_LATENCY_NO);
        assert_no_errors(load_text("[Kubelet]\nIOLatencyTargetSec=25ms\n"));
        assert_true(P.io_latency_usec == 25000);
        assert_no_errors(load_text("[Kubelet]\nIOLatencyTargetSec=2\n"));
        assert_true(P.io_latency_usec == 2000000);
        assert_no_errors(load_text("[Kubelet]\nIOLatencyTargetSec=1000us\n"));
        assert_true(P.io_latency_usec == 1000);
}

static void test_reclaim_keys(void **state) {
        assert_no_errors(load_text("[Sysctl]\nSwappiness=60\n"));
        assert_int_equal(P.min_free_kbytes, SYSCTL_AUTO);
        assert_int_equal(P.watermark_scale_factor, SYSCTL_AUTO);
        assert_no_errors(load_text("[Sysctl]\nMinFreeKbytes=524288\nWatermarkScaleFactor=keep\n"));
        assert_int_equal(P.min_free_kbytes, 524288);
        assert_int_equal(P.watermark_scale_factor, SYSCTL_KEEP);
        assert_int_equal(P.origin[POLICY_KEY_SYSCTL_MIN_FREE_KBYTES].line, 2);
        assert_no_errors(load_text("[Sysctl]\nMinFreeKbytes=524288\nMinFreeKbytes=\n"));
        assert_int_equal(P.min_free_kbytes, SYSCTL_AUTO);

        PolicyContext old = ctx;
        old.watermark_scale_factor_max = RECLAIM_WSF_MAX_OLD;
        write_file("policy.conf", "[Sysctl]\nWatermarkScaleFactor=2000\n");
        policy_done(&P);
        policy_errors_clear(&E);
        assert_int_equal(policy_load("/nonexistent-root", "policy.conf", &old, &P, &E), -EINVAL);
        format_errors();
        assert_errors("policy.conf:2: [Sysctl] WatermarkScaleFactor=2000: watermark_scale_factor out of range "
                      "(1..1000: this kernel is older than 5.18, which raised the bound from 1000 to 3000)", NULL);
        write_file("policy.conf", "[Sysctl]\nWatermarkScaleFactor=1000\n");
        policy_done(&P);
        policy_errors_clear(&E);
        assert_int_equal(policy_load("/nonexistent-root", "policy.conf", &old, &P, &E), 0);
        assert_int_equal(P.watermark_scale_factor, 1000);
}

/* The knobs of issue 17 as the rest of nodeswap sees them. */
static void test_zram_knobs(void **state) {
        assert_no_errors(load_text("[Zram]\n"
                                   "Algorithm=zstd(level=3,dict=/etc/nodeswap/d) lz4\n"
                                   "RecompressAlgorithm=zstd(level=19) deflate\n"
                                   "Writeback=/var//lib/nodeswap/./wb\n"
                                   "WritebackIdleAfter=1h30min\n"
                                   "WritebackInterval=2d 1s\n"
                                   "WritebackLimit=1G + 5K\n"
                                   "[File]\n"
                                   "Discard=pages\n"));
        assert_string_equal(P.zram.algorithms[0], "zstd");
        assert_string_equal(P.zram.algorithm_params[0], "level=3 dict=/etc/nodeswap/d");
        assert_string_equal(P.zram.algorithms[1], "lz4");
        assert_string_equal(P.zram.algorithm_params[1], "");
        assert_int_equal(strv_length(P.zram.recompress), 2);
        assert_string_equal(P.zram.recompress[0], "zstd");
        assert_string_equal(P.zram.recompress_params[0], "level=19");
        assert_string_equal(P.zram.recompress[1], "deflate");
        assert_string_equal(P.zram.recompress_params[1], "");
        assert_string_equal(P.zram.writeback, "/var/lib/nodeswap/wb");
        assert_true(policy_writeback_is_file(&P));
        assert_true(P.zram.writeback_idle_after == 5400);
        assert_true(P.zram.writeback_interval == 2 * 86400 + 1);
        assert_true(P.zram.writeback_limit == 1 * GiB + 4096);   /* rounded down to 4 KiB */
        assert_int_equal(P.file.discard, SWAP_DISCARD_PAGES);
        assert_int_equal(P.origin[POLICY_KEY_ZRAM_WRITEBACK].line, 4);

        assert_no_errors(load_text("[Zram]\nWriteback=/dev/nvme0n1p3\nWritebackInterval=0\n"));
        assert_false(policy_writeback_is_file(&P));
        assert_true(P.zram.writeback_interval == 0);

        char buf[64];
        assert_string_equal(timespan_format_sec(buf, sizeof buf, 5400), "1h 30min");
        assert_string_equal(timespan_format_sec(buf, sizeof buf, 86400), "1d");
        assert_string_equal(timespan_format_sec(buf, sizeof buf, 0), "0");
}

/* Every row of the schema: its default (what policy_init_defaults() gives) is what an empty
 * assignment of the key gives, except Units=, where an empty assignment empties the list. */
static void test_every_key_empty_is_its_default(void **state) {
        assert_true(schema_n_keys == _POLICY_KEY_MAX);
        for (size_t i = 0; i < schema_n_keys; i++) {
                const KeyDef *k = &schema_keys[i];
                _cleanup_free_ char *text = strdup_printf("[%s]\n%s=\n", k->section, k->name);
                print_message("%s", text);
                assert_no_errors(load_text(text));
                assert_int_equal(P.origin[k->id].line, 2);
                if (k->empty_is_value) {
                        /* [Kubelet] NoSwapUnits= has the list semantics of Units= */
                        assert_int_equal(strv_length(k->id == POLICY_KEY_KUBELET_NO_SWAP_UNITS ? P.no_swap_units
                                                                                              : P.conflict_units), 0);
                        continue;
                }
                memset(P.origin, 0, sizeof P.origin);
                assert_defaults(&P);
        }
}

static void test_empty_value_resets_to_default(void **state) {
        assert_no_errors(load_text(
                "[Swap]\n"
                "Backend=zram\n"
                "Backend=\n"
                "[Zram]\n"
                "Size=1G\n"
                "Size=\n"
                "Algorithm=lz4\n"
                "Algorithm=\n"
                "Priority=5\n"
                "Priority=\n"
                "MemLimit=1G\n"
                "MemLimit=\n"
                "[File]\n"
                "Path=/srv/swap\n"
                "Path=\n"
                "Size=1G\n"
                "Size=\n"
                "Priority=5\n"
                "Priority=\n"
                "Storage=mmc\n"
                "Storage=\n"
                "[Sysctl]\n"
                "Swappiness=10\n"
                "Swappiness=\n"
                "PageCluster=1\n"
                "PageCluster=\n"
                "[Kubelet]\n"
                "SwapBehavior=NoSwap\n"
                "SwapBehavior=\n"
                "DropIn=/etc/x.conf\n"
                "DropIn=\n"
                "Unit=k3s.service\n"
                "Unit=\n"));
        /* Everything is back to the defaults, but the reset lines are where the values came from. */
        assert_int_equal(P.origin[POLICY_KEY_ZRAM_PRIORITY].line, 10);
        memset(P.origin, 0, sizeof P.origin);
        assert_defaults(&P);
}

static void test_later_assignment_wins(void **state) {
        assert_no_errors(load_text(
                "[Zram]\n"
                "Priority=5\n"
                "Algorithm=lz4\n"
                "[File]\n"
                "Priority=7\n"
                "[Zram]\n"
                "Priority=6\n"
                "Algorithm=zstd\n"));
        assert_int_equal(P.zram.priority, 6);
        assert_int_equal(P.origin[POLICY_KEY_ZRAM_PRIORITY].line, 7);
        assert_int_equal(P.file.priority, 7);
        /* Algorithm= replaces the list, it does not append. */
        assert_int_equal(strv_length(P.zram.algorithms), 1);
        assert_string_equal(P.zram.algorithms[0], "zstd");
}

static void test_units_append_and_reset(void **state) {
        assert_no_errors(load_text(
                "[Conflicts]\n"
                "Units=\n"
                "Units=a.service b.swap\n"
                "Units=c.timer a.service\n"));
        _cleanup_free_ char *units = strv_join(P.conflict_units, " ");
        assert_string_equal(units, "a.service b.swap c.timer");

        assert_no_errors(load_text(
                "[Conflicts]\n"
                "Units=a.service\n"
                "Units=\n"));
        assert_non_null(P.conflict_units);
        assert_int_equal(strv_length(P.conflict_units), 0);
}

static void test_whitespace_bom_and_crlf(void **state) {
        assert_no_errors(load_text(
                "\xef\xbb\xbf[Zram]\r\n"
                "   Priority   =   42   \r\n"
                "\t# an indented comment\r\n"
                "  ; another\n"
                "Algorithm =  lz4   zstd\t\n"
                "\n"));
        assert_int_equal(P.zram.priority, 42);
        assert_string_equal(P.zram.algorithms[1], "zstd");
        /* ...except the last line: indentation never continues a value. */
        assert_int_equal(load_text(
                "[Conflicts]\n"
                "Units=a.service\n"
                "    b.service\n"), -EINVAL);
        assert_errors("policy.conf:3: [Conflicts]: expected Key=value, a [Section] header or a comment", NULL);
}

static void test_inline_comments_refused(void **state) {
        assert_int_equal(load_text(
                "[Zram]\n"
                "Size=8G ; half the RAM\n"
                "Priority=100 # high\n"
                "Algorithm=lz4;zstd\n"), -EINVAL);
        assert_errors(
                "policy.conf:2: [Zram] Size=8G ; half the RAM: ';' and '#' are not allowed in values; comments go on a line of their own",
                "policy.conf:3: [Zram] Priority=100 # high: ';' and '#' are not allowed in values; comments go on a line of their own",
                "policy.conf:4: [Zram] Algorithm=lz4;zstd: ';' and '#' are not allowed in values; comments go on a line of their own",
                NULL);
}

static void test_unknown_names_suggest(void **state) {
        assert_int_equal(load_text(
                "[Zram]\n"                      /* 1 */
                "Prority=100\n"
                "priority=100\n"
                "Swappiness=60\n"
                "Colour=blue\n"                 /* 5 */
                "[zram]\n"
                "Size=1G\n"
                "[Foo]\n"
                "Bar=1\n"
                "[Sysctl]\n"                    /* 10 */
                "Swapiness=60\n"
                "[Kubelt]\n"
                "[Conflict]\n"
                "Unit=x.service\n"
                "[Kubelet]\n"                   /* 15 */
                "Units=x.service\n"), -EINVAL);
        assert_errors(
                "policy.conf:2: [Zram] Prority=100: unknown key 'Prority', did you mean 'Priority'?",
                "policy.conf:3: [Zram] priority=100: unknown key 'priority', did you mean 'Priority'?",
                "policy.conf:4: [Zram] Swappiness=60: unknown key 'Swappiness' in [Zram]; it belongs in [Sysctl]",
                "policy.conf:5: [Zram] Colour=blue: unknown key 'Colour' in [Zram]",
                "policy.conf:6: unknown section [zram], did you mean [Zram]?",
                "policy.conf:8: unknown section [Foo] (known: Swap, Zram, File, Zswap, Sysctl, Kubelet, Conflicts)",
                "policy.conf:11: [Sysctl] Swapiness=60: unknown key 'Swapiness', did you mean 'Swappiness'?",
                "policy.conf:12: unknown section [Kubelt], did you mean [Kubelet]?",
                "policy.conf:13: unknown section [Conflict], did you mean [Conflicts]?",
                "policy.conf:16: [Kubelet] Units=x.service: unknown key 'Units', did you mean 'Unit'?",
                NULL);
}

static void test_syntax_errors_all_reported(void **state) {
        char text[2048];
        char longline[300];

        /* 250 bytes: any piece of it would read as a key of its own if the line were split. */
        longline[0] = '#';
        for (size_t i = 1; i < 250; i++)
                longline[i] = "Bogus=1 "[(i - 1) % 8];
        longline[250] = 0;

        snprintf(text, sizeof(text),
                 "Backend=zram\n"               /* 1: before any section */
                 "[Swap\n"                      /* 2 */
                 "Backend=zram\n"               /* 3: ignored, its section was malformed */
                 "[Zram] x\n"                   /* 4 */
                 "[Zram]\n"                     /* 5 */
                 "Size 8G\n"                    /* 6 */
                 "Algo rithm=lz4\n"             /* 7 */
                 "=lz4\n"                       /* 8 */
                 "%s\n"                         /* 9: too long */
                 "Priority=70000\n"             /* 10 */
                 "[Sys ctl]\n"                  /* 11 */
                 "[]\n"                         /* 12 */
                 "[File]\n"                     /* 13 */
                 "Priority=1\n",                /* 14 */
                 longline);
        assert_int_equal(load_text(text), -EINVAL);
        assert_errors(
                "policy.conf:1: Backend=zram: key outside of any section",
                "policy.conf:2: malformed section header (expected [Name] alone on the line)",
                "policy.conf:4: malformed section header (expected [Name] alone on the line)",
                "policy.conf:6: [Zram]: expected Key=value, a [Section] header or a comment",
                "policy.conf:7: [Zram]: invalid key name 'Algo rithm'",
                "policy.conf:8: [Zram]: invalid key name ''",
                "policy.conf:9: the line is 250 bytes long, longer than the 198 allowed",
                "policy.conf:10: [Zram] Priority=70000: priority out of range (0..32767)",
                "policy.conf:11: malformed section header [Sys ctl]",
                "policy.conf:12: malformed section header []",
                NULL);
}

static void test_line_length_limit(void **state) {
        char text[512], value[256];

        /* A line of exactly 198 bytes is fine (Debian's inih buffer of 200 bytes takes it with its
         * '\n' and NUL), 199 is not; the man page says the same. */
        memset(value, '0', sizeof(value));
        memcpy(value, "Priority=", 9);
        value[197] = '7';
        value[198] = 0;
        snprintf(text, sizeof(text), "[Swap]\n[Zram]\n%s\n", value);
        assert_no_errors(load_text(text));
        assert_int_equal(P.zram.priority, 7);

        snprintf(text, sizeof(text), "[Swap]\n[Zram]\n%s0\nPriority=5\n", value);
        assert_int_equal(load_text(text), -EINVAL);
        assert_errors("policy.conf:3: the line is 199 bytes long, longer than the 198 allowed", NULL);
}

static void test_nul_byte(void **state) {
        static const char text[] = "[Zram]\nPriority=1\0 00\nAlgorithm=lz4\nPriority=x\n";
        write_file_len("policy.conf", text, sizeof(text) - 1, 0644);
        assert_int_equal(load_config("policy.conf"), -EINVAL);
        assert_errors("policy.conf:2: the line contains a NUL byte",
                      "policy.conf:4: [Zram] Priority=x: priority must be a plain decimal number (0..32767)",
                      NULL);
}

static void test_equal_priorities(void **state) {
        /* The later of the two lines is the one at fault. */
        assert_int_equal(load_text(
                "[Swap]\n"
                "Backend=zram file\n"
                "[File]\n"
                "Priority=50\n"
                "[Zram]\n"
                "Priority=50\n"), -EINVAL);
        assert_errors(
                "policy.conf:6: [Zram] Priority=50: equal to [File] Priority=50 (policy.conf:4): with Backend=zram "
                "file the two swap areas need different priorities, equal ones make the kernel round-robin pages "
                "between zram and the swap file; give zram the higher one",
                NULL);

        /* Against a default. */
        assert_int_equal(load_text(
                "[Swap]\n"
                "Backend=file zram\n"
                "[File]\n"
                "Priority=100\n"), -EINVAL);
        assert_errors(
                "policy.conf:4: [File] Priority=100: equal to [Zram] Priority=100 (the default): with Backend=zram "
                "file the two swap areas need different priorities, equal ones make the kernel round-robin pages "
                "between zram and the swap file; give zram the higher one",
                NULL);

        /* With one backend the other priority does not matter. */
        assert_no_errors(load_text(
                "[Swap]\n"
                "Backend=zram\n"
                "[File]\n"
                "Priority=100\n"));
        /* A later file fixes it. */
        assert_no_errors(load_text(
                "[Swap]\n"
                "Backend=zram file\n"
                "[File]\n"
                "Priority=100\n"
                "Priority=10\n"));
}

static void test_mem_limit_within_size(void **state) {
        assert_int_equal(load_text(
                "[Zram]\n"
                "Size=1G\n"
                "MemLimit=2G\n"), -EINVAL);
        assert_errors("policy.conf:3: [Zram] MemLimit=2G: MemLimit= (2.0 GiB) is larger than [Zram] Size=1G "
                      "(1.0 GiB, policy.conf:2)", NULL);

        /* Against the default size, min(ram / 2, 8G) = 8109 MiB here. */
        assert_int_equal(load_text(
                "[Zram]\n"
                "MemLimit=ram\n"), -EINVAL);
        assert_errors("policy.conf:2: [Zram] MemLimit=ram: MemLimit= (15.8 GiB) is larger than [Zram] "
                      "Size=min(ram / 2, 8G) (7.9 GiB, the default)", NULL);

        assert_no_errors(load_text(
                "[Zram]\n"
                "Size=4G\n"
                "MemLimit=1.5G\n"));
        assert_true(P.zram.mem_limit == 1536 * MiB);
        assert_no_errors(load_text(
                "[Zram]\n"
                "Size=4G\n"
                "MemLimit=4G\n"));
}

static void test_config_single_file(void **state) {
        /* A broken policy on the search path is not read with --config. */
        write_file("etc/nodeswap/nodeswap.conf", "[Bogus]\n");
        write_file("etc/nodeswap/nodeswap.conf.d/10-x.conf", "[Bogus]\n");
        write_file("my.conf", "[Zram]\nPriority=7\n");
        assert_no_errors(load_config("my.conf"));
        assert_true(P.found);
        assert_int_equal(strv_length(P.files), 1);
        assert_string_equal(P.files[0], "my.conf");
        assert_int_equal(P.zram.priority, 7);

        /* --config is relative to the working directory, never below root: the broken files there
         * are not read either. */
        policy_done(&P);
        assert_int_equal(policy_load(root, "my.conf", &ctx, &P, &E), 0);
        assert_int_equal(E.n, 0);
        assert_int_equal(strv_length(P.files), 1);
        assert_string_equal(P.files[0], "my.conf");

        /* A missing file is an error that names it. */
        assert_int_equal(load_config("missing.conf"), -ENOENT);
        assert_errors("missing.conf: cannot open: No such file or directory", NULL);
}

/* --policy-file-as: the search path read as if a file were at one of its places. */
static int load_as(const char *path, const char *file) {
        policy_done(&P);
        policy_errors_clear(&E);
        PolicyFileAs as = { .path = path, .file = file };
        int r = policy_load_as(root, NULL, &as, &ctx, &P, &E);
        format_errors();
        return r;
}

static void test_policy_file_as(void **state) {
        char want[4][256];

        write_file("etc/nodeswap/nodeswap.conf", "[Swap]\nBackend=zram\n[Zram]\nPriority=50\n");
        write_file("etc/nodeswap/nodeswap.conf.d/40-sysctl.conf", "[Sysctl]\nSwappiness=20\n");
        write_file("etc/nodeswap/nodeswap.conf.d/50-ansible.conf", "[Sysctl]\nPageCluster=3\n");
        write_file("etc/nodeswap/nodeswap.conf.d/60-late.conf", "[Sysctl]\nPageCluster=2\n");
        write_file("new.conf", "[Sysctl]\nSwappiness=90\nPageCluster=0\n");

        /* In place of an existing drop-in: the other files as they are, in their order. */
        assert_no_errors(load_as("/etc/nodeswap/nodeswap.conf.d/50-ansible.conf", "new.conf"));
        snprintf(want[0], sizeof(want[0]), "%s/etc/nodeswap/nodeswap.conf", root);
        snprintf(want[1], sizeof(want[1]), "%s/etc/nodeswap/nodeswap.conf.d/40-sysctl.conf", root);
        snprintf(want[2], sizeof(want[2]), "new.conf");
        snprintf(want[3], sizeof(want[3]), "%s/etc/nodeswap/nodeswap.conf.d/60-late.conf", root);
        assert_int_equal(strv_length(P.files), 4);
        for (size_t i = 0; i < 4; i++)
                assert_string_equal(P.files[i], want[i]);
        assert_int_equal(P.backends, BACKEND_ZRAM);
        assert_int_equal(P.zram.priority, 50);
        assert_int_equal(P.swappiness, 90);             /* new.conf comes after 40-sysctl.conf */
        assert_int_equal(P.page_cluster, 2);            /* and before 60-late.conf */

        /* A drop-in that does not exist yet, in a directory that does not exist yet. */
        assert_no_errors(load_as("/run/nodeswap/nodeswap.conf.d/45-new.conf", "new.conf"));
        assert_int_equal(strv_length(P.files), 5);
        assert_string_equal(P.files[2], "new.conf");
        assert_int_equal(P.page_cluster, 2);

        /* The main file: replaces /etc/nodeswap/nodeswap.conf; the drop-ins stay. */
        write_file("main.conf", "[Swap]\nBackend=none\n");
        assert_no_errors(load_as("/etc/nodeswap/nodeswap.conf", "main.conf"));
        assert_int_equal(strv_length(P.files), 4);
        assert_string_equal(P.files[0], "main.conf");
        assert_int_equal(P.backends, 0);
        assert_int_equal(P.swappiness, 20);

        /* A main file in a later directory than the one found: the earlier one wins, as it would. */
        assert_no_errors(load_as("/usr/lib/nodeswap/nodeswap.conf", "main.conf"));
        assert_int_equal(P.backends, BACKEND_ZRAM);
        assert_false(strv_contains(P.files, "main.conf"));

        /* Errors in the file name it, at its line; the rest of the policy is read as always. */
        write_file("bad.conf", "# new\n[Sysctl]\nSwappiness=900\n");
        assert_int_equal(load_as("/etc/nodeswap/nodeswap.conf.d/50-ansible.conf", "bad.conf"), -EINVAL);
        assert_int_equal(E.n, 1);
        assert_true(startswith(F[0], "bad.conf:3: [Sysctl] Swappiness=900: "));

        /* A file that is not there, and one others may write, are refused like any policy file. */
        assert_int_equal(load_as("/etc/nodeswap/nodeswap.conf.d/50-ansible.conf", "missing.conf"), -ENOENT);
        assert_errors("missing.conf: cannot open: No such file or directory", NULL);
        write_file_len("loose.conf", "[Sysctl]\n", 9, 0666);
        assert_int_equal(load_as("/etc/nodeswap/nodeswap.conf.d/50-ansible.conf", "loose.conf"), -EINVAL);
        assert_errors("loose.conf: the file is writable by group or others (mode 0666); refusing it (chmod go-w)", NULL);

        /* Places nodeswap never reads a policy from. */
        static const char *const not_read[] = {
                "/etc/nodeswap/other.conf", "/etc/nodeswap/nodeswap.conf.d/50-x.txt",
                "/etc/nodeswap/nodeswap.conf.d/.50-x.conf", "/etc/nodeswap/nodeswap.conf.d/sub/50-x.conf",
                "/etc/nodeswap/nodeswap.conf.d/.conf", "/etc/nodeswapx/nodeswap.conf", "/etc/nodeswap",
                "/tmp/nodeswap.conf",
        };
        for (size_t i = 0; i < ELEMENTSOF(not_read); i++) {
                char w[512];
                assert_int_equal(load_as(not_read[i], "new.conf"), -EINVAL);
                snprintf(w, sizeof(w), "%s: not a policy file nodeswap reads: nodeswap.conf or nodeswap.conf.d/NAME.conf "
                         "in /etc/nodeswap, /run/nodeswap, /usr/local/lib/nodeswap or /usr/lib/nodeswap", not_read[i]);
                assert_errors(w, NULL);
        }

        /* Not together with --config. */
        PolicyFileAs as = { .path = "/etc/nodeswap/nodeswap.conf", .file = "new.conf" };
        policy_done(&P);
        assert_int_equal(policy_load_as(root, "new.conf", &as, &ctx, &P, &E), -EINVAL);
}

static void test_search_path(void **state) {
        /* The first nodeswap.conf found is the only one read. */
        write_file("usr/lib/nodeswap/nodeswap.conf", "[Zram]\nPriority=1\n[Bogus]\n");
        write_file("usr/local/lib/nodeswap/nodeswap.conf", "[Zram]\nPriority=2\n[Bogus]\n");
        write_file("etc/nodeswap/nodeswap.conf",
                   "[Swap]\n"
                   "Backend=zram\n"
                   "[Zram]\n"
                   "Priority=50\n"
                   "Algorithm=zstd\n");
        /* Drop-ins come after the main file, whatever their name. */
        write_file("usr/lib/nodeswap/nodeswap.conf.d/05-early.conf", "[Zram]\nAlgorithm=lz4\n");
        /* A same-named drop-in in an earlier directory replaces the later one. */
        write_file("usr/lib/nodeswap/nodeswap.conf.d/10-vendor.conf", "[Sysctl]\nSwappiness=10\n[Bogus]\n");
        write_file("etc/nodeswap/nodeswap.conf.d/10-vendor.conf", "[Sysctl]\nSwappiness=20\n");
        write_file("run/nodeswap/nodeswap.conf.d/20-runtime.conf", "[Sysctl]\nPageCluster=1\n");
        write_file("usr/local/lib/nodeswap/nodeswap.conf.d/30-local.conf", "[Zram]\nPriority=60\n");
        /* A link to /dev/null masks a drop-in of the same name further down. */
        write_file("usr/lib/nodeswap/nodeswap.conf.d/40-masked.conf", "[Zram]\nPriority=99999\n");
        mkdir_parents("run/nodeswap/nodeswap.conf.d/x");
        assert_int_equal(symlink("/dev/null", "run/nodeswap/nodeswap.conf.d/40-masked.conf"), 0);
        /* Not drop-ins: other suffixes and hidden files. */
        write_file("etc/nodeswap/nodeswap.conf.d/README", "[Bogus]\n");
        write_file("etc/nodeswap/nodeswap.conf.d/50-x.conf.orig", "[Bogus]\n");
        write_file("etc/nodeswap/nodeswap.conf.d/.50-x.conf", "[Bogus]\n");

        assert_no_errors(load_root());
        assert_true(P.found);

        char want[5][256];
        snprintf(want[0], sizeof(want[0]), "%s/etc/nodeswap/nodeswap.conf", root);
        snprintf(want[1], sizeof(want[1]), "%s/usr/lib/nodeswap/nodeswap.conf.d/05-early.conf", root);
        snprintf(want[2], sizeof(want[2]), "%s/etc/nodeswap/nodeswap.conf.d/10-vendor.conf", root);
        snprintf(want[3], sizeof(want[3]), "%s/run/nodeswap/nodeswap.conf.d/20-runtime.conf", root);
        snprintf(want[4], sizeof(want[4]), "%s/usr/local/lib/nodeswap/nodeswap.conf.d/30-local.conf", root);
        assert_int_equal(strv_length(P.files), 5);
        for (size_t i = 0; i < 5; i++)
                assert_string_equal(P.files[i], want[i]);

        assert_true(P.backend_set);
        assert_int_equal(P.backends, BACKEND_ZRAM);
        assert_int_equal(P.zram.priority, 60);
        assert_ptr_equal(P.origin[POLICY_KEY_ZRAM_PRIORITY].file, P.files[4]);
        assert_int_equal(P.origin[POLICY_KEY_ZRAM_PRIORITY].line, 2);
        assert_string_equal(P.zram.algorithms[0], "lz4");
        assert_null(P.zram.algorithms[1]);
        assert_int_equal(P.swappiness, 20);
        assert_int_equal(P.page_cluster, 1);
}

static void test_main_file_from_a_later_directory(void **state) {
        write_file("usr/lib/nodeswap/nodeswap.conf", "[Zram]\nPriority=1\n");
        write_file("run/nodeswap/nodeswap.conf", "[Zram]\nPriority=2\n");
        assert_no_errors(load_root());
        assert_int_equal(P.zram.priority, 2);
        assert_int_equal(strv_length(P.files), 1);

        /* Masking the main file in an earlier directory: nothing from the later ones is read. */
        mkdir_parents("etc/nodeswap/x");
        assert_int_equal(symlink("/dev/null", "etc/nodeswap/nodeswap.conf"), 0);
        assert_no_errors(load_root());
        assert_false(P.found);
        assert_int_equal(P.zram.priority, 100);
}

static void test_dropins_without_main_file(void **state) {
        write_file("etc/nodeswap/nodeswap.conf.d/swap.conf", "[Swap]\nBackend=none\n");
        assert_no_errors(load_root());
        assert_true(P.found);
        assert_true(P.backend_set);
        assert_int_equal(P.backends, 0);
        assert_int_equal(strv_length(P.files), 1);
}

static void test_units_across_dropins(void **state) {
        write_file("etc/nodeswap/nodeswap.conf", "[Conflicts]\nUnits=a.service\n");
        write_file("etc/nodeswap/nodeswap.conf.d/10.conf", "[Conflicts]\nUnits=b.service\n");
        assert_no_errors(load_root());
        assert_int_equal(strv_length(P.conflict_units), 10);    /* the 8 defaults, a and b */
        assert_string_equal(P.conflict_units[9], "b.service");

        write_file("usr/lib/nodeswap/nodeswap.conf.d/20.conf", "[Conflicts]\nUnits=\nUnits=c.service\n");
        assert_no_errors(load_root());
        _cleanup_free_ char *units = strv_join(P.conflict_units, " ");
        assert_string_equal(units, "c.service");
}

static void test_errors_across_files(void **state) {
        write_file("etc/nodeswap/nodeswap.conf",
                   "[Swap]\n"
                   "Backend=zram file\n"
                   "[Zram]\n"
                   "Priority=30\n"
                   "Sise=1G\n");
        write_file("etc/nodeswap/nodeswap.conf.d/20-file.conf",
                   "[File]\n"
                   "Path=/tmp/swap\n"
                   "Priority=30\n");
        write_file("usr/lib/nodeswap/nodeswap.conf.d/10-sysctl.conf",
                   "# vendor defaults\n"
                   "[Sysctl]\n"
                   "Swappiness=300\n"
                   "PageCluster=0\n"
                   "[Kubelet]\n"
                   "SwapBehavior=Limited\n");
        assert_int_equal(load_root(), -EINVAL);
        _cleanup_free_ char *equal = strdup_printf(
                 "etc/nodeswap/nodeswap.conf.d/20-file.conf:3: [File] Priority=30: equal to [Zram] Priority=30 "
                 "(%s/etc/nodeswap/nodeswap.conf:4): with Backend=zram file the two swap areas need different "
                 "priorities, equal ones make the kernel round-robin pages between zram and the swap file; give "
                 "zram the higher one", root);
        assert_errors(
                "etc/nodeswap/nodeswap.conf:5: [Zram] Sise=1G: unknown key 'Sise', did you mean 'Size'?",
                "usr/lib/nodeswap/nodeswap.conf.d/10-sysctl.conf:3: [Sysctl] Swappiness=300: swappiness out of range (0..200)",
                "usr/lib/nodeswap/nodeswap.conf.d/10-sysctl.conf:6: [Kubelet] SwapBehavior=Limited: must be "
                "LimitedSwap, NoSwap or empty; did you mean 'LimitedSwap'?",
                "etc/nodeswap/nodeswap.conf.d/20-file.conf:2: [File] Path=/tmp/swap: a swap file cannot live under "
                "/tmp (a memory-backed or pseudo file system)",
                equal,
                NULL);
}

static void test_equal_priorities_across_files(void **state) {
        write_file("etc/nodeswap/nodeswap.conf",
                   "[Swap]\n"
                   "Backend=zram file\n"
                   "[Zram]\n"
                   "Priority=30\n");
        write_file("etc/nodeswap/nodeswap.conf.d/20-file.conf",
                   "[Sysctl]\n"
                   "Swappiness=999\n"
                   "[File]\n"
                   "Priority=30\n");
        write_file("etc/nodeswap/nodeswap.conf.d/30-late.conf",
                   "[Sysctl]\n"
                   "PageCluster=99\n");
        assert_int_equal(load_root(), -EINVAL);
        _cleanup_free_ char *want = strdup_printf(
                 "etc/nodeswap/nodeswap.conf.d/20-file.conf:4: [File] Priority=30: equal to [Zram] Priority=30 "
                 "(%s/etc/nodeswap/nodeswap.conf:4): with Backend=zram file the two swap areas need different "
                 "priorities, equal ones make the kernel round-robin pages between zram and the swap file; give "
                 "zram the higher one", root);
        assert_errors(
                "etc/nodeswap/nodeswap.conf.d/20-file.conf:2: [Sysctl] Swappiness=999: swappiness out of range (0..200)",
                want,
                "etc/nodeswap/nodeswap.conf.d/30-late.conf:2: [Sysctl] PageCluster=99: page-cluster out of range (0..10)",
                NULL);
}

static void test_untrusted_files_refused(void **state) {
        write_file_len("etc/nodeswap/nodeswap.conf", "[Zram]\nPriority=1\n", 18, 0666);
        write_file_len("etc/nodeswap/nodeswap.conf.d/10-group.conf", "[Zram]\nPriority=2\n", 18, 0620);
        write_file("etc/nodeswap/nodeswap.conf.d/20-ok.conf", "[Zram]\nPriority=3\nBogus=1\n");
        write_file("elsewhere.conf", "[Zram]\nPriority=4\n");
        assert_int_equal(symlink("../../../elsewhere.conf", "etc/nodeswap/nodeswap.conf.d/30-link.conf"), 0);
        mkdir_parents("etc/nodeswap/nodeswap.conf.d/40-dir.conf/x");

        assert_int_equal(load_root(), -EINVAL);
        assert_errors(
                "etc/nodeswap/nodeswap.conf: the file is writable by group or others (mode 0666); refusing it (chmod go-w)",
                "etc/nodeswap/nodeswap.conf.d/10-group.conf: the file is writable by group or others (mode 0620); "
                "refusing it (chmod go-w)",
                "etc/nodeswap/nodeswap.conf.d/20-ok.conf:3: [Zram] Bogus=1: unknown key 'Bogus' in [Zram]",
                "etc/nodeswap/nodeswap.conf.d/30-link.conf: is a symbolic link; policy files are not followed "
                "through links (only a link to /dev/null, which masks the name, is allowed)",
                "etc/nodeswap/nodeswap.conf.d/40-dir.conf: not a regular file; refusing it",
                NULL);

        /* --config too. */
        write_file_len("loose.conf", "[Zram]\nPriority=1\n", 18, 0602);
        assert_int_equal(load_config("loose.conf"), -EINVAL);
        assert_errors("loose.conf: the file is writable by group or others (mode 0602); refusing it (chmod go-w)",
                      NULL);
}

static void test_untrusted_owner_refused(void **state) {
        if (geteuid() != 0) {
                print_message("not root, cannot give a file to another user; skipping\n");
                skip();
        }
        write_file("etc/nodeswap/nodeswap.conf", "[Zram]\nPriority=1\n");
        assert_int_equal(chown("etc/nodeswap/nodeswap.conf", 1234, 0), 0);
        assert_int_equal(load_root(), -EINVAL);
        assert_errors("etc/nodeswap/nodeswap.conf: the file is owned by uid 1234, not root (mode 0644); refusing it", NULL);
}

static void test_untrusted_directory_refused(void **state) {
        write_file("etc/nodeswap/nodeswap.conf", "[Zram]\nPriority=1\n");
        write_file("etc/nodeswap/nodeswap.conf.d/10.conf", "[Zram]\nPriority=2\n");
        write_file("usr/lib/nodeswap/nodeswap.conf", "[Zram]\nPriority=3\n");
        assert_int_equal(chmod("etc/nodeswap/nodeswap.conf.d", 0777), 0);
        assert_int_equal(load_root(), -EINVAL);
        assert_errors("etc/nodeswap/nodeswap.conf.d: the directory is writable by group or others (mode 0777); "
                      "refusing it (chmod go-w)", NULL);

        assert_int_equal(chmod("etc/nodeswap/nodeswap.conf.d", 0755), 0);
        assert_int_equal(chmod("etc/nodeswap", 0775), 0);
        assert_int_equal(load_root(), -EINVAL);
        assert_errors("etc/nodeswap: the directory is writable by group or others (mode 0775); refusing it "
                      "(chmod go-w)", NULL);
}

static void test_error_format(void **state) {
        static const struct {
                PolicyError e;
                const char *want;
        } cases[] = {
                { { "/etc/nodeswap/nodeswap.conf", 3, "Zram", "Priority", "x", "bad", 0 },
                  "/etc/nodeswap/nodeswap.conf:3: [Zram] Priority=x: bad" },
                { { "/etc/nodeswap/nodeswap.conf", 3, "Zram", "Priority", NULL, "bad", 0 },
                  "/etc/nodeswap/nodeswap.conf:3: [Zram] Priority=: bad" },
                { { "a.conf", 7, NULL, NULL, NULL, "unknown section [Foo], did you mean [Zram]?", 0 },
                  "a.conf:7: unknown section [Foo], did you mean [Zram]?" },
                { { "a.conf", 7, "Zram", NULL, NULL, "expected Key=value", 0 }, "a.conf:7: [Zram]: expected Key=value" },
                { { "a.conf", 1, NULL, "Backend", "zram", "outside", 0 }, "a.conf:1: Backend=zram: outside" },
                { { "a.conf", 0, NULL, NULL, NULL, "refused", 0 }, "a.conf: refused" },
                { { NULL, 0, NULL, NULL, NULL, "no file", 0 }, "no file" },
                { { "a.conf", 2, "Zram", "Size", "8G\033[31m", "x", 0 }, "a.conf:2: [Zram] Size=8G\\x1b[31m: x" },
        };
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                _cleanup_free_ char *s = policy_error_format(&cases[i].e);
                assert_string_equal(s, cases[i].want);
        }
}

static void test_errors_are_appended(void **state) {
        assert_int_equal(load_text("[Zram]\nPriority=x\n"), -EINVAL);
        assert_int_equal(E.n, 1);
        write_file("policy.conf", "[Zram]\nSize=x\n");
        assert_int_equal(policy_load(NULL, "policy.conf", &ctx, &P, &E), -EINVAL);
        assert_int_equal(E.n, 2);
        /* ...and the policy is left alone on failure */
        assert_null(P.files);
}

static void test_shipped_files_parse(void **state) {
        assert_non_null(shipped_files);
        assert_true(strv_length(shipped_files) >= 5);
        for (char **f = shipped_files; *f; f++) {
                _cleanup_free_ char *text = NULL;
                assert_true(read_full_file(*f, 1024 * 1024, &text) >= 0);
                /* A copy owned by us and mode 0644, whatever the checkout's permissions are. */
                write_file("shipped.conf", text);
                int r = load_config("shipped.conf");
                if (r != 0)
                        print_message("%s does not parse\n", *f);
                assert_no_errors(r);

                if (endswith(*f, "/nodeswap.conf")) {
                        /* Everything in it is commented out: it documents the defaults. */
                        assert_defaults(&P);
                } else
                        assert_true(P.backend_set);
                if (endswith(*f, "/zram-plus-file.conf")) {
                        assert_int_equal(P.backends, BACKEND_ZRAM | BACKEND_FILE);
                        assert_int_equal(P.zram.priority, 100);
                        assert_int_equal(P.file.priority, 10);
                }
                if (endswith(*f, "/zram-lz4.conf")) {
                        assert_string_equal(P.zram.algorithms[0], "lz4");
                        assert_int_equal(P.swap_behavior, SWAP_BEHAVIOR_LIMITED_SWAP);
                }
                if (endswith(*f, "/noswap.conf")) {
                        assert_int_equal(P.backends, 0);
                        assert_int_equal(P.swap_behavior, SWAP_BEHAVIOR_NO_SWAP);
                }
        }
}

int main(int argc, char *argv[]) {
        shipped_files = calloc(1, sizeof(char *));
        for (int i = 1; i < argc; i++) {
                char *p = realpath(argv[i], NULL);
                if (!p || strv_push(&shipped_files, p) < 0) {
                        fprintf(stderr, "%s: %m\n", argv[i]);
                        return EXIT_FAILURE;
                }
        }

        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_to_string),
                cmocka_unit_test(test_defaults),
                cmocka_unit_test(test_revert_policy),
                cmocka_unit_test_setup_teardown(test_zswap_keys, setup, teardown),
                cmocka_unit_test(test_error_format),
                cmocka_unit_test_setup_teardown(test_no_policy_at_all, setup, teardown),
                cmocka_unit_test_setup_teardown(test_every_key, setup, teardown),
                cmocka_unit_test_setup_teardown(test_valid_values, setup, teardown),
                cmocka_unit_test_setup_teardown(test_invalid_values, setup, teardown),
                cmocka_unit_test_setup_teardown(test_reclaim_keys, setup, teardown),
                cmocka_unit_test_setup_teardown(test_io_latency_key, setup, teardown),
                cmocka_unit_test_setup_teardown(test_zram_knobs, setup, teardown),
                cmocka_unit_test_setup_teardown(test_every_key_empty_is_its_default, setup, teardown),
                cmocka_unit_test_setup_teardown(test_empty_value_resets_to_default, setup, teardown),
                cmocka_unit_test_setup_teardown(test_later_assignment_wins, setup, teardown),
                cmocka_unit_test_setup_teardown(test_units_append_and_reset, setup, teardown),
                cmocka_unit_test_setup_teardown(test_whitespace_bom_and_crlf, setup, teardown),
                cmocka_unit_test_setup_teardown(test_inline_comments_refused, setup, teardown),
                cmocka_unit_test_setup_teardown(test_unknown_names_suggest, setup, teardown),
                cmocka_unit_test_setup_teardown(test_syntax_errors_all_reported, setup, teardown),
                cmocka_unit_test_setup_teardown(test_line_length_limit, setup, teardown),
                cmocka_unit_test_setup_teardown(test_nul_byte, setup, teardown),
                cmocka_unit_test_setup_teardown(test_equal_priorities, setup, teardown),
                cmocka_unit_test_setup_teardown(test_mem_limit_within_size, setup, teardown),
                cmocka_unit_test_setup_teardown(test_config_single_file, setup, teardown),
                cmocka_unit_test_setup_teardown(test_search_path, setup, teardown),
                cmocka_unit_test_setup_teardown(test_policy_file_as, setup, teardown),
                cmocka_unit_test_setup_teardown(test_main_file_from_a_later_directory, setup, teardown),
                cmocka_unit_test_setup_teardown(test_dropins_without_main_file, setup, teardown),
                cmocka_unit_test_setup_teardown(test_units_across_dropins, setup, teardown),
                cmocka_unit_test_setup_teardown(test_errors_across_files, setup, teardown),
                cmocka_unit_test_setup_teardown(test_equal_priorities_across_files, setup, teardown),
                cmocka_unit_test_setup_teardown(test_untrusted_files_refused, setup, teardown),
                cmocka_unit_test_setup_teardown(test_untrusted_owner_refused, setup, teardown),
                cmocka_unit_test_setup_teardown(test_untrusted_directory_refused, setup, teardown),
                cmocka_unit_test_setup_teardown(test_errors_are_appended, setup, teardown),
                cmocka_unit_test_setup_teardown(test_shipped_files_parse, setup, teardown),
        };
        int r = cmocka_run_group_tests(tests, NULL, NULL);
        strv_free(shipped_files);
        return r;
}
