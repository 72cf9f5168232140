/* SPDX-License-Identifier: GPL-2.0-or-later */
/* probe() against the fixture trees, the real host, swap unit names, and nodeswap's own records. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <fcntl.h>
#include <dirent.h>
#include <ftw.h>
#include <inttypes.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysinfo.h>

#include "probe/probe.h"
#include "probe/state.h"
#include "execute/state-save.h"

#ifndef FIXTURE_DIR
#error "FIXTURE_DIR must be defined"
#endif

#define DROPIN "/var/lib/rancher/k3s/agent/etc/kubelet.conf.d/90-nodeswap.conf"
#define SWAPFILE "/var/lib/nodeswap/swapfile"

static const char *const default_conflicts[] = {
        "dev-zram0.swap", "systemd-zram-setup@zram0.service", "rpi-zram-writeback.timer",
        "rpi-zram-writeback.service", "rpi-resize-swap-file.service", "var-swap.swap",
        "dphys-swapfile.service", "zramswap.service", NULL,
};

/* A Policy built by hand (the parser lives elsewhere): only what probe() looks at. */
static void policy_make(Policy *p, unsigned backends, const char *file_path, const char *dropin,
                        const char *const *conflicts, const char *kubelet_unit) {
        *p = (Policy) {
                .found = true,
                .backend_set = true,
                .backends = backends,
                .swappiness = -1,
                .page_cluster = -1,
        };
        p->file.path = file_path ? strdup(file_path) : NULL;
        p->dropin = dropin ? strdup(dropin) : NULL;
        p->kubelet_unit = kubelet_unit ? strdup(kubelet_unit) : NULL;
        p->conflict_units = strv_copy((char *const *) conflicts);
        assert_non_null(p->conflict_units);
}

static void policy_free(Policy *p) {
        free(p->file.path);
        free(p->dropin);
        free(p->kubelet_unit);
        strv_free(p->conflict_units);
}

static char *fixture(const char *name) {
        char *r = strdup_printf("%s/%s", FIXTURE_DIR, name);
        assert_non_null(r);
        return r;
}

static const UnitState *find_unit(const HostState *h, const char *name) {
        for (size_t i = 0; i < h->n_units; i++)
                if (streq(h->units[i].name, name))
                        return &h->units[i];
        return NULL;
}

/* ------------------------------------------------------------------ swap_unit_name */

static void test_swap_unit_name(void **state) {
        static const struct {
                const char *path, *unit;
        } cases[] = {
                { "/dev/zram0", "dev-zram0.swap" },
                { "/var/swap", "var-swap.swap" },
                { "/var/lib/nodeswap/swapfile", "var-lib-nodeswap-swapfile.swap" },
                { "/swapfile", "swapfile.swap" },
                { "/a-b", "a\\x2db.swap" },
                { "/", "-.swap" },
                { "//var//swap/", "var-swap.swap" },
                { "/a/./b", "a-b.swap" },
                { "/.hidden/x", "\\x2ehidden-x.swap" },
                { "/x/.y", "x-.y.swap" },
                { "/a b", "a\\x20b.swap" },
                { "/dev/disk/by-uuid/1a2b-3C:4_d.e", "dev-disk-by\\x2duuid-1a2b\\x2d3C:4_d.e.swap" },
                { "/\xc3\xa4", "\\xc3\\xa4.swap" },
                { "/a\\b", "a\\x5cb.swap" },
        };
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                _cleanup_free_ char *u = swap_unit_name(cases[i].path);
                assert_non_null(u);
                if (!streq(u, cases[i].unit))
                        fail_msg("swap_unit_name(\"%s\") = \"%s\", expected \"%s\"", cases[i].path, u,
                                 cases[i].unit);
        }
}

static void test_swap_unit_name_refuses_unnormalized(void **state) {
        static const char *const bad[] = { "/a/../b", "..", "relative/path", "", NULL };
        for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
                errno = 0;
                assert_null(swap_unit_name(bad[i]));
                assert_int_equal(errno, EINVAL);
        }
}

static void test_to_string(void **state) {
        assert_string_equal(swap_kind_to_string(SWAP_KIND_PARTITION), "partition");
        assert_string_equal(swap_kind_to_string(SWAP_KIND_FILE), "file");
        assert_string_equal(swap_kind_to_string(SWAP_KIND_ZRAM), "zram");
        assert_string_equal(swap_owner_to_string(SWAP_OWNER_OTHER), "other");
        assert_string_equal(swap_owner_to_string(SWAP_OWNER_NODESWAP), "nodeswap");
        assert_string_equal(swap_owner_to_string(SWAP_OWNER_CONFLICT), "conflict");
        assert_string_equal(cgroup_mode_to_string(CGROUP_UNKNOWN), "unknown");
        assert_string_equal(cgroup_mode_to_string(CGROUP_V1), "v1");
        assert_string_equal(cgroup_mode_to_string(CGROUP_HYBRID), "hybrid");
        assert_string_equal(cgroup_mode_to_string(CGROUP_V2), "v2");
        assert_null(swap_kind_to_string((SwapKind) 42));
}

/* ------------------------------------------------------------------ fixtures */

static void test_rpi_untouched(void **state) {
        _cleanup_free_ char *root = fixture("rpi-untouched");
        Policy p;
        policy_make(&p, BACKEND_ZRAM | BACKEND_FILE, SWAPFILE, DROPIN, default_conflicts, NULL);
        HostState h;
        assert_int_equal(probe(root, &p, &h), 0);

        assert_int_equal(h.page_size, 16 * KiB);
        assert_int_equal(h.mem_total, UINT64_C(16608080) * KiB);
        assert_int_equal(h.mem_available, UINT64_C(15340112) * KiB);
        assert_int_equal(h.swap_total, UINT64_C(2097136) * KiB);
        assert_int_equal(h.swap_free, UINT64_C(2097136) * KiB);

        /* rpi-swap's zram0, a [Conflicts] unit */
        assert_int_equal(h.n_swaps, 1);
        const SwapDevice *z = host_find_swap(&h, "/dev/zram0");
        assert_non_null(z);
        assert_int_equal(z->kind, SWAP_KIND_ZRAM);
        assert_int_equal(z->zram_id, 0);
        assert_int_equal(z->size, UINT64_C(2097136) * KiB);
        assert_int_equal(z->used, 0);
        assert_int_equal(z->priority, 100);
        assert_string_equal(z->unit, "dev-zram0.swap");
        assert_int_equal(z->owner, SWAP_OWNER_CONFLICT);
        assert_null(host_find_swap(&h, "/var/swap"));

        assert_true(h.zram_control);
        assert_int_equal(h.n_zrams, 1);
        const ZramDevice *zd = host_find_zram(&h, 0);
        assert_non_null(zd);
        assert_int_equal(zd->disksize, 2 * GiB);
        assert_string_equal(zd->algorithm, "zstd");
        assert_int_equal(strv_length(zd->algorithms_offered), 6);
        assert_string_equal(zd->algorithms_offered[0], "lzo-rle");
        assert_string_equal(zd->algorithms_offered[3], "zstd");
        assert_string_equal(zd->algorithms_offered[5], "842");
        assert_true(zd->has_algorithm_params);
        assert_int_equal(zd->mem_limit, 0);
        assert_int_equal(zd->orig_data_size, 16384);
        assert_int_equal(zd->compr_data_size, 66);
        assert_int_equal(zd->mem_used_total, 65536);
        assert_true(zd->swap_on);
        assert_false(zd->ours);
        assert_null(host_find_zram(&h, 1));

        assert_int_equal(h.swappiness, 60);
        assert_int_equal(h.page_cluster, 0);

        /* no swap file yet; the file system under /var/lib is the NVMe root */
        assert_false(h.file.exists);
        assert_false(h.file.has_header);
        assert_false(h.file.swap_on);
        assert_string_equal(h.file.fstype, "ext4");
        assert_int_equal(h.file.storage, STORAGE_NVME);
        assert_string_equal(h.file.storage_device, "nvme0n1");
        assert_true(h.file.fs_free > 0);

        assert_string_equal(h.dropin_path, DROPIN);
        assert_null(h.dropin);          /* only k3s's own 00-k3s-defaults.conf is there */

        assert_string_equal(h.kubelet_unit, "k3s-agent.service");
        assert_int_equal(h.kubelet_active, -1);

        assert_int_equal(h.n_units, 8);
        for (size_t i = 0; i < h.n_units; i++) {
                assert_string_equal(h.units[i].name, default_conflicts[i]);
                assert_false(h.units[i].masked);
                assert_false(h.units[i].masked_runtime);
                assert_int_equal(h.units[i].active, -1);
        }
        assert_true(find_unit(&h, "dev-zram0.swap")->exists);                   /* generated */
        assert_true(find_unit(&h, "var-swap.swap")->exists);                    /* generated */
        assert_true(find_unit(&h, "systemd-zram-setup@zram0.service")->exists); /* template */
        assert_true(find_unit(&h, "rpi-zram-writeback.timer")->exists);
        assert_false(find_unit(&h, "dphys-swapfile.service")->exists);
        assert_false(find_unit(&h, "zramswap.service")->exists);

        assert_int_equal(h.cgroup, CGROUP_V2);
        assert_false(h.psi);

        assert_int_equal(h.state.saved_swappiness, -1);
        assert_int_equal(h.state.saved_page_cluster, -1);
        assert_false(h.state.reverted);
        assert_int_equal(h.state.n_zram_ids, 0);

        host_state_done(&h);
        policy_free(&p);
}

static void test_rpi_untouched_without_conflicts_or_file(void **state) {
        _cleanup_free_ char *root = fixture("rpi-untouched");
        static const char *const none[] = { NULL };
        Policy p;
        policy_make(&p, BACKEND_ZRAM, NULL, NULL, none, "kubelet.service");
        HostState h;
        assert_int_equal(probe(root, &p, &h), 0);
        assert_int_equal(host_find_swap(&h, "/dev/zram0")->owner, SWAP_OWNER_OTHER);
        assert_false(h.file.exists);
        assert_null(h.file.fstype);     /* no file asked about: not probed */
        assert_null(h.dropin_path);
        assert_int_equal(h.n_units, 0);
        assert_string_equal(h.kubelet_unit, "kubelet.service");   /* the policy's Unit= wins */
        host_state_done(&h);
        policy_free(&p);
}

static void test_matching(void **state) {
        _cleanup_free_ char *root = fixture("matching");
        Policy p;
        policy_make(&p, BACKEND_ZRAM | BACKEND_FILE, SWAPFILE, DROPIN, default_conflicts, NULL);
        HostState h;
        assert_int_equal(probe(root, &p, &h), 0);

        assert_int_equal(h.page_size, 4 * KiB);
        assert_int_equal(h.swap_total, UINT64_C(8388640) * KiB);

        assert_int_equal(h.n_swaps, 2);
        const SwapDevice *z = host_find_swap(&h, "/dev/zram1");
        assert_non_null(z);
        assert_int_equal(z->kind, SWAP_KIND_ZRAM);
        assert_int_equal(z->zram_id, 1);
        assert_int_equal(z->priority, 100);
        assert_int_equal(z->size, UINT64_C(8388604) * KiB);
        assert_int_equal(z->owner, SWAP_OWNER_NODESWAP);        /* run/nodeswap-state/state */
        assert_string_equal(z->unit, "dev-zram1.swap");
        const SwapDevice *f = host_find_swap(&h, SWAPFILE);
        assert_non_null(f);
        assert_int_equal(f->kind, SWAP_KIND_FILE);
        assert_int_equal(f->zram_id, -1);
        assert_int_equal(f->priority, 10);
        assert_int_equal(f->size, 36 * KiB);
        assert_int_equal(f->owner, SWAP_OWNER_NODESWAP);        /* policy path + label */
        assert_string_equal(f->unit, "var-lib-nodeswap-swapfile.swap");

        assert_int_equal(h.n_zrams, 2);
        assert_int_equal(h.zrams[0].id, 0);     /* sorted */
        assert_int_equal(h.zrams[1].id, 1);
        assert_int_equal(h.zrams[0].disksize, 0);
        assert_string_equal(h.zrams[0].algorithm, "lzo-rle");
        assert_false(h.zrams[0].swap_on);
        assert_false(h.zrams[0].ours);
        assert_int_equal(h.zrams[1].disksize, 8 * GiB);
        assert_string_equal(h.zrams[1].algorithm, "lz4");
        assert_int_equal(strv_length(h.zrams[1].algorithms_offered), 3);
        assert_false(strv_contains(h.zrams[1].algorithms_offered, "zstd"));
        assert_true(h.zrams[1].swap_on);
        assert_true(h.zrams[1].ours);

        /* the swap file: compare with what lstat says of the checked-out file (git keeps no modes) */
        _cleanup_free_ char *fp = path_join_root(root, SWAPFILE);
        struct stat st;
        assert_int_equal(lstat(fp, &st), 0);
        assert_true(h.file.exists);
        assert_true(h.file.is_regular);
        assert_int_equal(h.file.size, 40 * KiB);
        assert_int_equal(h.file.allocated, (uint64_t) st.st_blocks * 512);
        assert_int_equal(h.file.mode, st.st_mode & 07777);
        assert_int_equal(h.file.uid, st.st_uid);
        assert_true(h.file.has_header);
        assert_int_equal(h.file.header_page_size, 4096);
        assert_int_equal(h.file.header_page_size, h.page_size);
        assert_string_equal(h.file.label, "nodeswap");
        assert_true(h.file.swap_on);
        assert_int_equal(h.file.priority, 10);
        assert_string_equal(h.file.fstype, "ext4");
        assert_int_equal(h.file.storage, STORAGE_NVME);
        assert_string_equal(h.file.storage_device, "nvme0n1");

        assert_string_equal(h.dropin,
                            "# Written by nodeswap; changes are overwritten. See nodeswap.conf(5).\n"
                            "apiVersion: kubelet.config.k8s.io/v1beta1\n"
                            "kind: KubeletConfiguration\n"
                            "failSwapOn: false\n"
                            "memorySwap:\n"
                            "  swapBehavior: LimitedSwap\n"
                            "evictionHard:\n"
                            "  memory.available: \"100Mi\"\n");

        assert_int_equal(h.n_units, 8);
        for (size_t i = 0; i < h.n_units; i++) {
                assert_true(h.units[i].masked);
                assert_true(h.units[i].masked_runtime);
        }
        assert_true(find_unit(&h, "dev-zram0.swap")->exists);
        assert_false(find_unit(&h, "dphys-swapfile.service")->exists);  /* a mask is no unit */

        assert_int_equal(h.swappiness, 60);
        assert_int_equal(h.page_cluster, 0);
        assert_int_equal(h.cgroup, CGROUP_V2);
        assert_true(h.psi);
        assert_string_equal(h.kubelet_unit, "k3s-agent.service");

        assert_int_equal(h.state.saved_swappiness, 60);
        assert_int_equal(h.state.saved_page_cluster, 3);
        assert_false(h.state.reverted);
        assert_int_equal(strv_length(h.state.stopped_units), 2);
        assert_string_equal(h.state.stopped_units[0], "dev-zram0.swap");
        assert_int_equal(h.state.n_zram_ids, 1);
        assert_int_equal(h.state.zram_ids[0], 1);
        assert_int_equal(h.state.swap_changed_usec, UINT64_C(1764460800000000));

        host_state_done(&h);
        policy_free(&p);
}

/* A nodeswap-labelled file at a path the policy does not name is nobody's we know of. */
static void test_matching_file_owner_needs_policy_path(void **state) {
        _cleanup_free_ char *root = fixture("matching");
        Policy p;
        policy_make(&p, BACKEND_FILE, "/var/swap", NULL, default_conflicts, NULL);
        HostState h;
        assert_int_equal(probe(root, &p, &h), 0);
        assert_int_equal(host_find_swap(&h, SWAPFILE)->owner, SWAP_OWNER_OTHER);
        assert_int_equal(host_find_swap(&h, "/dev/zram1")->owner, SWAP_OWNER_NODESWAP);
        assert_false(h.file.exists);
        assert_null(h.file.label);
        host_state_done(&h);
        policy_free(&p);
}

/* swap_file= survives a save and a load; paths that are not absolute or not normal are ignored. */
static void test_state_swap_file_round_trip(void **state) {
        char root[] = "/tmp/nodeswap-test-state-XXXXXX";
        assert_non_null(mkdtemp(root));
        NodeswapState s;
        nodeswap_state_init(&s);
        assert_int_equal(state_add_swap_file(&s, "/var/lib/nodeswap/swapfile"), 0);
        assert_int_equal(state_add_swap_file(&s, "/mnt/nvme/swap file"), 0);
        assert_int_equal(state_add_swap_file(&s, "/var/lib/nodeswap/swapfile"), 1);
        assert_int_equal(state_add_swap_file(&s, "relative/swapfile"), -EINVAL);
        assert_int_equal(state_add_swap_file(&s, "/var/../etc/passwd"), -EINVAL);
        assert_int_equal(state_save(root, &s), 0);
        nodeswap_state_done(&s);

        _cleanup_free_ char *path = strdup_printf("%s/var/lib/nodeswap/state", root);
        FILE *f = fopen(path, "ae");
        assert_non_null(f);
        fputs("swap_file=relative\nswap_file=\nswap_file=/a/./b\nswap_file=/mnt/nvme/swap file\n", f);
        fclose(f);

        NodeswapState l;
        assert_int_equal(state_load(root, &l), 0);
        assert_int_equal(strv_length(l.swap_files), 2);
        assert_string_equal(l.swap_files[0], "/var/lib/nodeswap/swapfile");
        assert_string_equal(l.swap_files[1], "/mnt/nvme/swap file");
        assert_true(strv_contains(l.swap_files, "/mnt/nvme/swap file"));
        assert_int_equal(state_remove_swap_file(&l, "/var/lib/nodeswap/swapfile"), 0);
        assert_int_equal(state_remove_swap_file(&l, "/var/lib/nodeswap/swapfile"), 1);
        assert_int_equal(state_remove_swap_file(&l, "/mnt/nvme/swap file"), 0);
        assert_null(l.swap_files);
        _cleanup_free_ char *text = state_format_persistent(&l);
        assert_null(strstr(text, "swap_file="));
        nodeswap_state_done(&l);

        _cleanup_free_ char *cmd = strdup_printf("rm -rf '%s'", root);
        assert_int_equal(system(cmd), 0);
}

/* The reclaim headroom of the headroom tree, this x86 machine's /proc: the sysctls, the kernel's
 * bound of watermark_scale_factor (6.18: 3000), THP on ([madvise]), and the three zones of
 * /proc/zoneinfo with managed pages (Movable and Device have none), pages as the kernel prints them. */
static void test_reclaim_headroom(void **state) {
        _cleanup_free_ char *root = fixture("headroom");
        Policy p;
        policy_make(&p, BACKEND_ZRAM, NULL, DROPIN, default_conflicts, NULL);
        HostState h;
        assert_int_equal(probe(root, &p, &h), 0);
        assert_int_equal(h.min_free_kbytes, 67584);
        assert_int_equal(h.watermark_scale_factor, 10);
        assert_int_equal(h.watermark_scale_factor_max, 3000);
        assert_int_equal(h.thp_enabled, 1);
        assert_int_equal(h.n_zones, 3);
        static const struct { const char *name; uint64_t free, min, low, high, managed; } z[] = {
                { "DMA", 3840, 21, 26, 31, 3840 },
                { "DMA32", 772850, 4345, 5431, 6517, 772850 },
                { "Normal", 603296, 12528, 15660, 18792, 2228224 },
        };
        uint64_t min = 0;
        for (size_t i = 0; i < ELEMENTSOF(z); i++) {
                assert_int_equal(h.zones[i].node, 0);
                assert_string_equal(h.zones[i].name, z[i].name);
                assert_true(h.zones[i].free == z[i].free && h.zones[i].min == z[i].min && h.zones[i].low == z[i].low &&
                            h.zones[i].high == z[i].high && h.zones[i].managed == z[i].managed);
                min += h.zones[i].min;
        }
        /* the zones' min watermarks share vm.min_free_kbytes out (mm/page_alloc.c,
         * __setup_per_zone_wmarks()): 16894 pages of 4 KiB are 67576 KiB, 67584 less rounding */
        assert_true(min * 4 <= 67584 && min * 4 > 67584 - 3 * 4);
        host_state_done(&h);
        policy_free(&p);

        /* the kernel's release decides the bound; no release, no bound */
        assert_int_equal(reclaim_wsf_max("/nonexistent-root"), 0);
        HostState none;
        _cleanup_free_ char *vps = fixture("vps-cgroupv1");
        policy_make(&p, BACKEND_ZRAM, NULL, DROPIN, default_conflicts, NULL);
        assert_int_equal(probe(vps, &p, &none), 0);
        assert_int_equal(none.min_free_kbytes, -1);
        assert_int_equal(none.n_zones, 0);
        assert_int_equal(none.thp_enabled, -1);
        host_state_done(&none);
        policy_free(&p);
}

/* The reclaim records survive a save and a load; junk is dropped. */
static void test_state_reclaim_round_trip(void **state) {
        char root[] = "/tmp/nodeswap-test-state-XXXXXX";
        assert_non_null(mkdtemp(root));
        NodeswapState s;
        nodeswap_state_init(&s);
        s.saved_min_free_kbytes = 67584;
        s.saved_watermark_scale_factor = 10;
        s.set_min_free_kbytes = 1048576;
        assert_int_equal(state_save(root, &s), 0);
        nodeswap_state_done(&s);
        NodeswapState l;
        assert_int_equal(state_load(root, &l), 0);
        assert_int_equal(l.saved_min_free_kbytes, 67584);
        assert_int_equal(l.saved_watermark_scale_factor, 10);
        assert_int_equal(l.set_min_free_kbytes, 1048576);
        assert_true(state_has_records(&l));
        nodeswap_state_done(&l);

        _cleanup_free_ char *path = strdup_printf("%s/var/lib/nodeswap/state", root);
        FILE *f = fopen(path, "we");
        assert_non_null(f);
        fputs("saved_min_free_kbytes=-5\nsaved_watermark_scale_factor=3001\nset_min_free_kbytes=lots\n", f);
        fclose(f);
        assert_int_equal(state_load(root, &l), 0);
        assert_int_equal(l.saved_min_free_kbytes, -1);
        assert_int_equal(l.saved_watermark_scale_factor, -1);
        assert_int_equal(l.set_min_free_kbytes, -1);
        nodeswap_state_done(&l);
        _cleanup_free_ char *cmd = strdup_printf("rm -rf '%s'", root);
        assert_int_equal(system(cmd), 0);
}

/* A file the state records is nodeswap's although the policy's Path= is elsewhere. */
static void test_recorded_file_owner(void **state) {
        char root[] = "/tmp/nodeswap-test-recorded-XXXXXX";
        assert_non_null(mkdtemp(root));
        _cleanup_free_ char *cmd = strdup_printf("cp -a '%s/matching/.' '%s' && echo 'swap_file=" SWAPFILE
                                                 "' >> '%s/var/lib/nodeswap/state'",
                                                 FIXTURE_DIR, root, root);
        assert_int_equal(system(cmd), 0);
        Policy p;
        policy_make(&p, BACKEND_FILE, "/var/swap", NULL, default_conflicts, NULL);
        HostState h;
        assert_int_equal(probe(root, &p, &h), 0);
        assert_int_equal(host_find_swap(&h, SWAPFILE)->owner, SWAP_OWNER_NODESWAP);
        const RecordedSwapFile *f = host_find_recorded_file(&h, SWAPFILE);
        assert_non_null(f);
        assert_true(f->exists && f->is_regular && f->labelled && f->swap_on);
        host_state_done(&h);
        policy_free(&p);
        free(cmd);
        cmd = strdup_printf("rm -rf '%s'", root);
        assert_int_equal(system(cmd), 0);
}

static void test_stale_file(void **state) {
        _cleanup_free_ char *root = fixture("stale-file");
        Policy p;
        policy_make(&p, BACKEND_FILE, SWAPFILE, DROPIN, default_conflicts, NULL);
        HostState h;
        assert_int_equal(probe(root, &p, &h), 0);

        assert_int_equal(h.page_size, 16 * KiB);
        assert_int_equal(h.n_swaps, 0);
        assert_int_equal(h.swap_total, 0);

        /* made under a 4 KiB kernel: swapon would fail here */
        assert_true(h.file.exists);
        assert_true(h.file.is_regular);
        assert_true(h.file.has_header);
        assert_int_equal(h.file.header_page_size, 4096);
        assert_true(h.file.header_page_size != h.page_size);
        assert_string_equal(h.file.label, "nodeswap");
        assert_false(h.file.swap_on);
        assert_int_equal(h.file.storage, STORAGE_NVME);

        assert_non_null(h.dropin);
        assert_non_null(strstr(h.dropin, "swapBehavior: NoSwap\n"));
        assert_string_equal(h.kubelet_unit, "k3s.service");
        assert_true(h.state.reverted);
        assert_int_equal(h.state.saved_swappiness, -1);

        assert_int_equal(h.n_zrams, 1);
        assert_int_equal(h.zrams[0].disksize, 0);
        assert_string_equal(h.zrams[0].algorithm, "zstd");
        assert_false(h.zrams[0].swap_on);

        assert_int_equal(h.swappiness, 60);
        assert_int_equal(h.page_cluster, 3);
        host_state_done(&h);
        policy_free(&p);
}

static void test_vps_cgroupv1(void **state) {
        _cleanup_free_ char *root = fixture("vps-cgroupv1");
        Policy p;
        policy_make(&p, BACKEND_FILE, SWAPFILE, "/etc/kubernetes/kubelet.conf.d/90-nodeswap.conf",
                    default_conflicts, NULL);
        HostState h;
        assert_int_equal(probe(root, &p, &h), 0);

        assert_int_equal(h.page_size, 4 * KiB);
        assert_int_equal(h.mem_total, UINT64_C(4015024) * KiB);
        assert_int_equal(h.cgroup, CGROUP_HYBRID);
        assert_false(h.zram_control);
        assert_int_equal(h.n_zrams, 0);

        assert_int_equal(h.n_swaps, 1);
        const SwapDevice *s = host_find_swap(&h, "/swapfile");
        assert_non_null(s);
        assert_int_equal(s->kind, SWAP_KIND_FILE);
        assert_int_equal(s->priority, -2);
        assert_int_equal(s->size, UINT64_C(2097148) * KiB);
        assert_int_equal(s->used, 1024 * KiB);
        assert_string_equal(s->unit, "swapfile.swap");
        assert_int_equal(s->owner, SWAP_OWNER_OTHER);

        /* virtio disk: rotational says 1, it is a VM's disk all the same */
        assert_false(h.file.exists);
        assert_string_equal(h.file.fstype, "ext4");
        assert_int_equal(h.file.storage, STORAGE_VIRTUAL);
        assert_string_equal(h.file.storage_device, "vda");

        assert_null(h.dropin);
        assert_string_equal(h.dropin_path, "/etc/kubernetes/kubelet.conf.d/90-nodeswap.conf");
        assert_string_equal(h.kubelet_unit, "kubelet.service");
        assert_true(h.psi);
        assert_int_equal(h.swappiness, 60);
        assert_int_equal(h.page_cluster, 3);
        for (size_t i = 0; i < h.n_units; i++) {
                assert_false(h.units[i].exists);
                assert_false(h.units[i].masked);
        }
        host_state_done(&h);
        policy_free(&p);
}

static void test_vps_swapfile_listed_as_conflict(void **state) {
        _cleanup_free_ char *root = fixture("vps-cgroupv1");
        static const char *const conflicts[] = { "swapfile.swap", NULL };
        Policy p;
        policy_make(&p, BACKEND_FILE, SWAPFILE, NULL, conflicts, NULL);
        HostState h;
        assert_int_equal(probe(root, &p, &h), 0);
        assert_int_equal(host_find_swap(&h, "/swapfile")->owner, SWAP_OWNER_CONFLICT);
        assert_int_equal(h.n_units, 1);
        assert_false(h.units[0].exists);        /* fstab-generated only at boot: not in the tree */
        host_state_done(&h);
        policy_free(&p);
}

/* ------------------------------------------------------------------ scratch roots */

static char *scratch_root(void) {
        char tmpl[] = "/tmp/nodeswap-test-probe-XXXXXX";
        assert_non_null(mkdtemp(tmpl));
        return strdup(tmpl);
}

static void put(const char *root, const char *rel, const char *content) {
        _cleanup_free_ char *p = path_join_root(root, rel);
        _cleanup_free_ char *dir = strdup(p);
        for (char *s = strchr(dir + 1, '/'); s; s = strchr(s + 1, '/')) {
                *s = 0;
                (void) mkdir(dir, 0755);
                *s = '/';
        }
        FILE *f = fopen(p, "we");
        assert_non_null(f);
        fputs(content, f);
        assert_int_equal(fclose(f), 0);
}

static void put_link(const char *root, const char *rel, const char *target) {
        put(root, rel, "");
        _cleanup_free_ char *p = path_join_root(root, rel);
        assert_int_equal(unlink(p), 0);
        assert_int_equal(symlink(target, p), 0);
}

static int rm_one(const char *p, const struct stat *st, int flag, struct FTW *ftw) {
        return remove(p);
}
static void rm_rf(const char *root) {
        assert_int_equal(nftw(root, rm_one, 16, FTW_DEPTH | FTW_PHYS), 0);
}

static void put_minimal(const char *root) {
        put(root, "/proc/meminfo", "MemTotal:        1000 kB\nMemAvailable:     500 kB\n"
                                   "SwapTotal:          0 kB\nSwapFree:           0 kB\n");
        put(root, "/proc/swaps", "Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n");
}

static void test_missing_meminfo_or_swaps_is_an_error(void **state) {
        _cleanup_free_ char *root = scratch_root();
        Policy p = {};
        HostState h;
        assert_int_equal(probe(root, &p, &h), -ENOENT);
        put(root, "/proc/meminfo", "MemTotal:        1000 kB\n");
        assert_int_equal(probe(root, &p, &h), -ENOENT);
        put(root, "/proc/swaps", "Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n");
        assert_int_equal(probe(root, &p, &h), 0);
        host_state_done(&h);
        rm_rf(root);
}

static void test_missing_optional_files_are_unknown(void **state) {
        _cleanup_free_ char *root = scratch_root();
        put_minimal(root);
        Policy p;
        policy_make(&p, BACKEND_ZRAM | BACKEND_FILE, SWAPFILE, DROPIN, default_conflicts, NULL);
        HostState h;
        assert_int_equal(probe(root, &p, &h), 0);
        assert_int_equal(h.page_size, (uint64_t) sysconf(_SC_PAGESIZE));     /* no smaps */
        assert_int_equal(h.mem_total, 1000 * KiB);
        assert_int_equal(h.n_swaps, 0);
        assert_int_equal(h.swappiness, -1);
        assert_int_equal(h.page_cluster, -1);
        assert_false(h.zram_control);
        assert_int_equal(h.n_zrams, 0);
        assert_int_equal(h.cgroup, CGROUP_UNKNOWN);
        assert_false(h.psi);
        assert_false(h.file.exists);
        assert_null(h.file.fstype);
        assert_int_equal(h.file.storage, 0);
        assert_null(h.file.storage_device);
        assert_null(h.dropin);
        assert_null(h.kubelet_unit);
        assert_int_equal(h.n_units, 8);
        assert_int_equal(h.state.saved_swappiness, -1);
        host_state_done(&h);
        policy_free(&p);
        rm_rf(root);
}

/* probe() reads comp_algorithm and mm_stat through zram.c's parsers (the ones apply uses): what
 * they refuse is unknown here too, and the device is still listed. */
static void test_zram_attributes_one_parser(void **state) {
        _cleanup_free_ char *root = scratch_root();
        put_minimal(root);
        put(root, "/sys/block/zram0/disksize", "1048576\n");
        put(root, "/sys/block/zram0/comp_algorithm", "lzo lzo-rle [lz4] zstd\n");
        put(root, "/sys/block/zram0/mm_stat", "4096 1024 8192 0 8192 0 0 0 0\n");
        put(root, "/sys/block/zram1/disksize", "0\n");
        put(root, "/sys/block/zram1/comp_algorithm", "[lzo] [lz4]\n");      /* two active: not the kernel's */
        put(root, "/sys/block/zram1/mm_stat", "1 2\n");                      /* too short */
        Policy p = {};
        HostState h;
        assert_int_equal(probe(root, &p, &h), 0);
        assert_int_equal(h.n_zrams, 2);
        assert_string_equal(h.zrams[0].algorithm, "lz4");
        assert_int_equal(strv_length(h.zrams[0].algorithms_offered), 4);
        assert_string_equal(h.zrams[0].algorithms_offered[1], "lzo-rle");
        assert_int_equal(h.zrams[0].orig_data_size, 4096);
        assert_int_equal(h.zrams[0].compr_data_size, 1024);
        assert_int_equal(h.zrams[0].mem_used_total, 8192);
        assert_int_equal(h.zrams[1].id, 1);
        assert_null(h.zrams[1].algorithm);
        assert_int_equal(strv_length(h.zrams[1].algorithms_offered), 0);
        assert_int_equal(h.zrams[1].orig_data_size, 0);
        host_state_done(&h);
        rm_rf(root);
}

/* cgroup mode from /sys/fs/cgroup in mountinfo */
static void test_cgroup_modes(void **state) {
        static const struct {
                const char *mountinfo;
                CgroupMode mode;
        } cases[] = {
                { "29 22 0:26 / /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n", CGROUP_V2 },
                { "30 22 0:27 / /sys/fs/cgroup rw - tmpfs tmpfs rw\n"
                  "31 30 0:28 / /sys/fs/cgroup/memory rw - cgroup cgroup rw,memory\n"
                  "32 30 0:29 / /sys/fs/cgroup/unified rw - cgroup2 cgroup2 rw\n", CGROUP_HYBRID },
                { "30 22 0:27 / /sys/fs/cgroup rw - tmpfs tmpfs rw\n"
                  "31 30 0:28 / /sys/fs/cgroup/memory rw - cgroup cgroup rw,memory\n", CGROUP_V1 },
                { "26 1 254:0 / / rw - ext4 /dev/vda rw\n", CGROUP_UNKNOWN },
        };
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                _cleanup_free_ char *root = scratch_root();
                put_minimal(root);
                put(root, "/proc/self/mountinfo", cases[i].mountinfo);
                Policy p = {};
                HostState h;
                assert_int_equal(probe(root, &p, &h), 0);
                if (h.cgroup != cases[i].mode)
                        fail_msg("case %zu: cgroup %s, expected %s", i, cgroup_mode_to_string(h.cgroup),
                                 cgroup_mode_to_string(cases[i].mode));
                host_state_done(&h);
                rm_rf(root);
        }
}

/* The disk under the swap file's mount, in both sysfs layouts. */
static void test_storage_kinds(void **state) {
        typedef struct Put {
                const char *path, *content, *link;
        } Put;
#define F(p, c) { .path = (p), .content = (c) }
#define L(p, t) { .path = (p), .link = (t) }
        static const struct {
                const char *name, *source;
                Put files[6];
                StorageKind kind;
                const char *device;
        } cases[] = {
                { "sd partition, spinning", "/dev/sda1",
                  { F("/sys/block/sda/queue/rotational", "1\n"), F("/sys/block/sda/sda1/partition", "1\n") },
                  STORAGE_ROTATIONAL, "sda" },
                { "sd whole disk, solid state", "/dev/sdb",
                  { F("/sys/block/sdb/queue/rotational", "0\n") },
                  STORAGE_SSD, "sdb" },
                { "SD card", "/dev/mmcblk0p2",
                  { F("/sys/block/mmcblk0/queue/rotational", "0\n"), F("/sys/block/mmcblk0/mmcblk0p2/partition", "2\n") },
                  STORAGE_MMC, "mmcblk0" },
                { "loop device", "/dev/loop3",
                  { F("/sys/block/loop3/queue/rotational", "1\n") },
                  STORAGE_VIRTUAL, "loop3" },
                { "xen disk", "/dev/xvda1",
                  { F("/sys/block/xvda/queue/rotational", "1\n"), F("/sys/block/xvda/xvda1/partition", "1\n") },
                  STORAGE_VIRTUAL, "xvda" },
                { "QEMU SCSI disk", "/dev/sda1",
                  { F("/sys/block/sda/queue/rotational", "1\n"), F("/sys/block/sda/sda1/partition", "1\n"),
                    F("/sys/block/sda/device/vendor", "QEMU    \n") },
                  STORAGE_VIRTUAL, "sda" },
                { "virtio-scsi by driver", "/dev/sdc",
                  { F("/sys/block/sdc/queue/rotational", "1\n"),
                    L("/sys/block/sdc/device/driver", "../../../bus/virtio/drivers/virtio_scsi") },
                  STORAGE_VIRTUAL, "sdc" },
                { "real sysfs symlink layout", "/dev/nvme0n1p2",
                  { F("/sys/devices/pci0000:00/nvme/nvme0/nvme0n1/queue/rotational", "0\n"),
                    F("/sys/devices/pci0000:00/nvme/nvme0/nvme0n1/nvme0n1p2/partition", "2\n"),
                    L("/sys/block/nvme0n1", "../devices/pci0000:00/nvme/nvme0/nvme0n1"),
                    L("/sys/class/block/nvme0n1p2", "../../devices/pci0000:00/nvme/nvme0/nvme0n1/nvme0n1p2") },
                  STORAGE_NVME, "nvme0n1" },
                { "unknown device", "/dev/sdz1", { F("/sys/block/sda/queue/rotational", "0\n") }, 0, NULL },
                { "not a block device", "overlay", { F("/sys/block/sda/queue/rotational", "0\n") }, 0, NULL },
        };
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                _cleanup_free_ char *root = scratch_root();
                put_minimal(root);
                _cleanup_free_ char *mi = strdup_printf("26 1 8:1 / / rw - ext4 %s rw\n", cases[i].source);
                put(root, "/proc/self/mountinfo", mi);
                put(root, "/var/lib/.keep", "");
                for (size_t j = 0; j < ELEMENTSOF(cases[i].files) && cases[i].files[j].path; j++) {
                        if (cases[i].files[j].link)
                                put_link(root, cases[i].files[j].path, cases[i].files[j].link);
                        else
                                put(root, cases[i].files[j].path, cases[i].files[j].content);
                }
                Policy p;
                policy_make(&p, BACKEND_FILE, SWAPFILE, NULL, default_conflicts, NULL);
                HostState h;
                assert_int_equal(probe(root, &p, &h), 0);
                if (h.file.storage != cases[i].kind || !streq_ptr(h.file.storage_device, cases[i].device))
                        fail_msg("%s: storage %d on %s, expected %d on %s", cases[i].name, h.file.storage,
                                 strempty(h.file.storage_device), cases[i].kind, strempty(cases[i].device));
                assert_string_equal(h.file.fstype, "ext4");
                host_state_done(&h);
                policy_free(&p);
                rm_rf(root);
        }
#undef F
#undef L
}

/* The mount with the longest matching target holds the file; an existing file is statted as such. */
static void test_file_on_separate_mount_and_symlink(void **state) {
        _cleanup_free_ char *root = scratch_root();
        put_minimal(root);
        put(root, "/proc/self/mountinfo",
            "26 1 254:1 / / rw - ext4 /dev/vda1 rw\n"
            "40 26 259:2 / /var/lib rw - xfs /dev/nvme0n1p1 rw\n"
            "41 26 259:3 / /var/libx rw - btrfs /dev/nvme0n1p3 rw\n");
        put(root, "/sys/block/nvme0n1/nvme0n1p1/partition", "1\n");
        put(root, "/sys/block/nvme0n1/queue/rotational", "0\n");
        put(root, "/sys/block/vda/queue/rotational", "1\n");
        put(root, "/var/lib/.keep", "");
        put(root, "/target", "not a swap file\n");
        put_link(root, SWAPFILE, "/target");

        Policy p;
        policy_make(&p, BACKEND_FILE, SWAPFILE, NULL, default_conflicts, NULL);
        HostState h;
        assert_int_equal(probe(root, &p, &h), 0);
        assert_true(h.file.exists);
        assert_false(h.file.is_regular);        /* a symlink is never followed */
        assert_false(h.file.has_header);
        assert_null(h.file.label);
        assert_string_equal(h.file.fstype, "xfs");
        assert_int_equal(h.file.storage, STORAGE_NVME);
        assert_string_equal(h.file.storage_device, "nvme0n1");
        host_state_done(&h);
        policy_free(&p);
        rm_rf(root);
}

/* A minimal swap area header (the v1 layout mkswap writes): version, last page, label, and the
 * "SWAPSPACE2" magic at page_size - 10. */
static void put_swap_area(const char *root, const char *rel, uint64_t page_size, unsigned pages,
                          const char *label) {
        put(root, rel, "");
        _cleanup_free_ char *p = path_join_root(root, rel);
        _cleanup_free_ char *buf = calloc(pages, page_size);
        assert_non_null(buf);
        uint32_t version = 1, last_page = pages - 1;
        memcpy(buf + 1024, &version, 4);
        memcpy(buf + 1028, &last_page, 4);
        if (label)
                strncpy(buf + 1024 + 12 + 16, label, 16);
        memcpy(buf + page_size - 10, "SWAPSPACE2", 10);
        FILE *f = fopen(p, "we");
        assert_non_null(f);
        assert_int_equal(fwrite(buf, page_size, pages, f), pages);
        assert_int_equal(fclose(f), 0);
}

/* The header's page size is read from where the magic sits; a file without nodeswap's label at the
 * policy's path is not claimed as nodeswap's. */
static void test_file_header_page_size_and_label(void **state) {
        static const struct {
                uint64_t page_size;
                const char *label;
                SwapOwner owner;
        } cases[] = {
                { 4096, "nodeswap", SWAP_OWNER_NODESWAP },
                { 16384, "nodeswap", SWAP_OWNER_NODESWAP },
                { 65536, NULL, SWAP_OWNER_OTHER },
                { 16384, "dphys", SWAP_OWNER_OTHER },
        };
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                _cleanup_free_ char *root = scratch_root();
                put_minimal(root);
                put(root, "/proc/swaps", "Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n"
                                         "/var/lib/nodeswap/swapfile              file\t\t112\t\t0\t\t10\n");
                /* libblkid looks at no swap area smaller than 40 KiB (as mkswap makes none) */
                unsigned pages = (unsigned) ((40 * KiB + cases[i].page_size - 1) / cases[i].page_size);
                put_swap_area(root, SWAPFILE, cases[i].page_size, pages < 2 ? 2 : pages, cases[i].label);
                Policy p;
                policy_make(&p, BACKEND_FILE, SWAPFILE, NULL, default_conflicts, NULL);
                HostState h;
                assert_int_equal(probe(root, &p, &h), 0);
                assert_true(h.file.has_header);
                assert_int_equal(h.file.header_page_size, cases[i].page_size);
                assert_true(streq_ptr(h.file.label, cases[i].label));
                assert_true(h.file.swap_on);
                assert_int_equal(h.file.priority, 10);
                assert_int_equal(host_find_swap(&h, SWAPFILE)->owner, cases[i].owner);
                host_state_done(&h);
                policy_free(&p);
                rm_rf(root);
        }
}

/* A regular file with no swap signature. */
static void test_file_without_header(void **state) {
        _cleanup_free_ char *root = scratch_root();
        put_minimal(root);
        put(root, SWAPFILE, "just some bytes, no swap area\n");
        Policy p;
        policy_make(&p, BACKEND_FILE, SWAPFILE, NULL, default_conflicts, NULL);
        HostState h;
        assert_int_equal(probe(root, &p, &h), 0);
        assert_true(h.file.exists);
        assert_true(h.file.is_regular);
        assert_false(h.file.has_header);
        assert_int_equal(h.file.header_page_size, 0);
        assert_null(h.file.label);
        assert_false(h.file.swap_on);
        host_state_done(&h);
        policy_free(&p);
        rm_rf(root);
}

static void test_dropin_read_at_most_64k(void **state) {
        _cleanup_free_ char *root = scratch_root();
        put_minimal(root);
        _cleanup_free_ char *big = malloc(100 * 1024 + 1);
        memset(big, 'x', 100 * 1024);
        big[100 * 1024] = 0;
        put(root, DROPIN, big);
        Policy p;
        policy_make(&p, 0, NULL, DROPIN, default_conflicts, NULL);
        HostState h;
        assert_int_equal(probe(root, &p, &h), 0);
        assert_non_null(h.dropin);
        assert_int_equal(strlen(h.dropin), 64 * 1024);
        host_state_done(&h);
        policy_free(&p);
        rm_rf(root);
}

/* ------------------------------------------------------------------ the real host */

static CgroupMode cgroup_mode_by_statfs(void) {
        struct statfs fs;
        if (statfs("/sys/fs/cgroup", &fs) < 0)
                return CGROUP_UNKNOWN;
        if (fs.f_type == CGROUP2_SUPER_MAGIC)
                return CGROUP_V2;
        if (fs.f_type != TMPFS_MAGIC)
                return CGROUP_UNKNOWN;
        if (statfs("/sys/fs/cgroup/unified", &fs) == 0 && fs.f_type == CGROUP2_SUPER_MAGIC)
                return CGROUP_HYBRID;
        return CGROUP_V1;
}

static void test_real_host(void **state) {
        if (access("/proc/self/mountinfo", R_OK) < 0 || access("/proc/swaps", R_OK) < 0) {
                print_message("skipping the real host probe: no Linux /proc here\n");
                skip();
        }
        Policy p;
        policy_make(&p, BACKEND_ZRAM | BACKEND_FILE, SWAPFILE, NULL, default_conflicts, NULL);
        bool before[256];
        for (int id = 0; id < 256; id++) {
                char p2[64];
                snprintf(p2, sizeof p2, "/sys/block/zram%d", id);
                before[id] = access(p2, F_OK) == 0;
        }
        HostState h;
        assert_int_equal(probe("/", &p, &h), 0);

        assert_int_equal(h.page_size, (uint64_t) getpagesize());
        struct sysinfo si;
        assert_int_equal(sysinfo(&si), 0);
        /* /proc/meminfo's MemTotal and sysinfo's totalram are the same counter */
        assert_int_equal(h.mem_total / KiB, (uint64_t) si.totalram * si.mem_unit / KiB);

        CgroupMode expected = cgroup_mode_by_statfs();
        assert_int_equal(h.cgroup, expected);
        print_message("host: page size %" PRIu64 ", cgroup %s, %zu swaps, %zu zram devices, file on %s/%s\n",
                      h.page_size, cgroup_mode_to_string(h.cgroup), h.n_swaps, h.n_zrams,
                      strempty(h.file.fstype), strempty(h.file.storage_device));
        assert_non_null(h.file.fstype);

        /* Every /sys/block/zramN present both before and after the probe is found, and nothing else
         * (other tests on this machine may add or remove devices meanwhile). */
        for (int id = 0; id < 256; id++) {
                char p2[64];
                snprintf(p2, sizeof p2, "/sys/block/zram%d", id);
                bool after = access(p2, F_OK) == 0;
                if (before[id] && after) {
                        assert_non_null(host_find_zram(&h, id));
                        assert_non_null(host_find_zram(&h, id)->algorithm);
                }
                if (!before[id] && !after)
                        assert_null(host_find_zram(&h, id));
        }

        /* The machine this project is built on: 4 KiB pages, hybrid cgroups. */
        if (getenv("NODESWAP_TEST_BUILD_HOST")) {
                assert_int_equal(h.page_size, 4096);
                assert_int_equal(h.cgroup, CGROUP_HYBRID);
        }
        host_state_done(&h);
        policy_free(&p);
}

/* ------------------------------------------------------------------ state */

static void test_state_round_trip(void **state) {
        _cleanup_free_ char *root = scratch_root();
        NodeswapState s;
        assert_int_equal(state_load(root, &s), 0);
        assert_int_equal(s.saved_swappiness, -1);
        assert_int_equal(s.saved_page_cluster, -1);
        assert_false(s.reverted);
        assert_null(s.stopped_units);
        assert_int_equal(s.n_zram_ids, 0);
        assert_int_equal(s.swap_changed_usec, 0);

        s.saved_swappiness = 200;
        s.saved_page_cluster = 0;
        s.reverted = true;
        assert_int_equal(strv_extend(&s.stopped_units, "var-swap.swap"), 0);
        assert_int_equal(strv_extend(&s.stopped_units, "systemd-zram-setup@zram0.service"), 0);
        s.swap_changed_usec = UINT64_C(1764460800123456);
        assert_int_equal(state_add_zram_id(&s, 3), 0);
        assert_int_equal(state_add_zram_id(&s, 1), 0);
        assert_int_equal(state_add_zram_id(&s, 3), 1);  /* no duplicates */
        assert_int_equal(state_add_zram_id(&s, -1), -EINVAL);
        assert_int_equal(state_save(root, &s), 0);

        /* files 0600 in directories 0700 */
        static const char *const files[] = { STATE_PERSISTENT_PATH, STATE_RUNTIME_PATH };
        for (size_t i = 0; i < ELEMENTSOF(files); i++) {
                _cleanup_free_ char *fp = path_join_root(root, files[i]);
                _cleanup_free_ char *dp = strdup(fp);
                *strrchr(dp, '/') = 0;
                struct stat st;
                assert_int_equal(lstat(fp, &st), 0);
                assert_true(S_ISREG(st.st_mode));
                assert_int_equal(st.st_mode & 07777, 0600);
                assert_int_equal(lstat(dp, &st), 0);
                assert_int_equal(st.st_mode & 07777, 0700);
        }

        NodeswapState t;
        assert_int_equal(state_load(root, &t), 0);
        assert_int_equal(t.saved_swappiness, 200);
        assert_int_equal(t.saved_page_cluster, 0);
        assert_true(t.reverted);
        assert_int_equal(strv_length(t.stopped_units), 2);
        assert_string_equal(t.stopped_units[0], "var-swap.swap");
        assert_string_equal(t.stopped_units[1], "systemd-zram-setup@zram0.service");
        assert_int_equal(t.swap_changed_usec, UINT64_C(1764460800123456));
        assert_int_equal(t.n_zram_ids, 2);
        assert_int_equal(t.zram_ids[0], 3);
        assert_int_equal(t.zram_ids[1], 1);

        /* forget one device; an unchanged persistent file is not rewritten */
        _cleanup_free_ char *pp = path_join_root(root, STATE_PERSISTENT_PATH);
        struct stat before, after;
        assert_int_equal(lstat(pp, &before), 0);
        assert_int_equal(state_remove_zram_id(&t, 3), 0);
        assert_int_equal(state_remove_zram_id(&t, 3), 1);
        assert_int_equal(state_save(root, &t), 0);
        assert_int_equal(lstat(pp, &after), 0);
        assert_int_equal(before.st_ino, after.st_ino);

        NodeswapState u;
        assert_int_equal(state_load(root, &u), 0);
        assert_int_equal(u.n_zram_ids, 1);
        assert_int_equal(u.zram_ids[0], 1);
        assert_true(state_has_zram_id(&u, 1));
        assert_false(state_has_zram_id(&u, 3));

        /* no temp files left behind */
        _cleanup_free_ char *dir = path_join_root(root, "/var/lib/nodeswap");
        DIR *d = opendir(dir);
        assert_non_null(d);
        struct dirent *de;
        size_t n = 0;
        while ((de = readdir(d)))
                if (!streq(de->d_name, ".") && !streq(de->d_name, ".."))
                        n++;
        closedir(d);
        assert_int_equal(n, 1);

        nodeswap_state_done(&s);
        nodeswap_state_done(&t);
        nodeswap_state_done(&u);
        assert_null(u.zram_ids);
        assert_int_equal(u.saved_swappiness, -1);
        rm_rf(root);
}

static bool root_has(const char *root, const char *path) {
        _cleanup_free_ char *p = path_join_root(root, path);
        struct stat st;
        return lstat(p, &st) == 0;
}

static void test_state_runtime_file_only_when_it_says_something(void **state) {
        _cleanup_free_ char *root = scratch_root();
        NodeswapState s;
        nodeswap_state_init(&s);

        /* no zram device of ours: the persistent file is written, the runtime one not created */
        s.saved_swappiness = 60;
        assert_int_equal(state_save(root, &s), 0);
        assert_true(root_has(root, STATE_PERSISTENT_PATH));
        assert_false(root_has(root, STATE_RUNTIME_PATH));

        /* a zram device: only the runtime file changes, the persistent one is not rewritten */
        _cleanup_free_ char *pp = path_join_root(root, STATE_PERSISTENT_PATH);
        struct stat before, after;
        assert_int_equal(lstat(pp, &before), 0);
        assert_int_equal(state_add_zram_id(&s, 4), 0);
        assert_int_equal(state_save_runtime(root, &s), 0);
        assert_int_equal(lstat(pp, &after), 0);
        assert_int_equal(before.st_ino, after.st_ino);
        NodeswapState t;
        assert_int_equal(state_load(root, &t), 0);
        assert_true(state_has_zram_id(&t, 4));
        assert_int_equal(t.saved_swappiness, 60);
        nodeswap_state_done(&t);

        /* the device gone again: the runtime file stays, now saying there is none */
        assert_int_equal(state_remove_zram_id(&s, 4), 0);
        assert_int_equal(state_save_runtime(root, &s), 0);
        assert_true(root_has(root, STATE_RUNTIME_PATH));
        assert_int_equal(state_load(root, &t), 0);
        assert_int_equal(t.n_zram_ids, 0);
        nodeswap_state_done(&t);
        nodeswap_state_done(&s);
        rm_rf(root);
}

static void test_state_tolerates_junk(void **state) {
        _cleanup_free_ char *root = scratch_root();
        put(root, STATE_PERSISTENT_PATH,
            "# comment\n"
            "\n"
            "future_key=whatever\n"
            "no equals sign here\n"
            "saved_swappiness=lots\n"
            "saved_page_cluster = 2 \n"
            "reverted=maybe\n"
            "stopped_unit=\n"
            "stopped_unit=dev-zram0.swap\n"
            "stopped_unit=dev-zram0.swap\n"
            "swap_changed_usec=-5\n");
        put(root, STATE_RUNTIME_PATH, "zram_id=2\nzram_id=x\nzram_id=-1\nzram_id=2\n");
        NodeswapState s;
        assert_int_equal(state_load(root, &s), 0);
        assert_int_equal(s.saved_swappiness, -1);
        assert_int_equal(s.saved_page_cluster, 2);
        assert_false(s.reverted);
        assert_int_equal(strv_length(s.stopped_units), 1);
        assert_int_equal(s.swap_changed_usec, 0);
        assert_int_equal(s.n_zram_ids, 1);
        assert_int_equal(s.zram_ids[0], 2);
        nodeswap_state_done(&s);
        rm_rf(root);
}

/* execute works on a copy of the state probe() read: equal contents, nothing shared. */
static void test_state_copy(void **state) {
        _cleanup_free_ char *root = scratch_root();
        put(root, STATE_PERSISTENT_PATH,
            "saved_swappiness=60\nreverted=yes\nstopped_unit=dev-zram0.swap\nswap_changed_usec=7\n"
            "swap_file=/var/lib/nodeswap/swapfile\nlast_run=revert\nlast_run_usec=9\nlast_run_result=failed\n");
        put(root, STATE_RUNTIME_PATH, "zram_id=3\nzram_id=1\n");
        NodeswapState s, c;
        assert_int_equal(state_load(root, &s), 0);
        assert_int_equal(nodeswap_state_copy(&s, &c), 0);
        _cleanup_free_ char *a = state_format_persistent(&s), *b = state_format_persistent(&c);
        _cleanup_free_ char *ra = state_format_runtime(&s), *rb = state_format_runtime(&c);
        assert_string_equal(a, b);
        assert_string_equal(ra, rb);
        assert_true(c.stopped_units != s.stopped_units && c.swap_files != s.swap_files && c.zram_ids != s.zram_ids);
        assert_int_equal(state_remove_zram_id(&c, 3), 0);
        assert_true(state_has_zram_id(&s, 3));
        nodeswap_state_done(&s);
        assert_string_equal(c.swap_files[0], "/var/lib/nodeswap/swapfile");
        nodeswap_state_done(&c);

        /* The empty state copies to the empty state. */
        nodeswap_state_init(&s);
        assert_int_equal(nodeswap_state_copy(&s, &c), 0);
        assert_null(c.stopped_units);
        assert_int_equal(c.n_zram_ids, 0);
        assert_int_equal(c.saved_swappiness, -1);
        nodeswap_state_done(&c);
        rm_rf(root);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_state_copy),
                cmocka_unit_test(test_zram_attributes_one_parser),
                cmocka_unit_test(test_swap_unit_name),
                cmocka_unit_test(test_swap_unit_name_refuses_unnormalized),
                cmocka_unit_test(test_to_string),
                cmocka_unit_test(test_rpi_untouched),
                cmocka_unit_test(test_rpi_untouched_without_conflicts_or_file),
                cmocka_unit_test(test_matching),
                cmocka_unit_test(test_matching_file_owner_needs_policy_path),
                cmocka_unit_test(test_state_swap_file_round_trip),
                cmocka_unit_test(test_recorded_file_owner),
                cmocka_unit_test(test_stale_file),
                cmocka_unit_test(test_vps_cgroupv1),
                cmocka_unit_test(test_vps_swapfile_listed_as_conflict),
                cmocka_unit_test(test_missing_meminfo_or_swaps_is_an_error),
                cmocka_unit_test(test_missing_optional_files_are_unknown),
                cmocka_unit_test(test_cgroup_modes),
                cmocka_unit_test(test_storage_kinds),
                cmocka_unit_test(test_file_on_separate_mount_and_symlink),
                cmocka_unit_test(test_file_header_page_size_and_label),
                cmocka_unit_test(test_file_without_header),
                cmocka_unit_test(test_dropin_read_at_most_64k),
                cmocka_unit_test(test_real_host),
                cmocka_unit_test(test_state_round_trip),
                cmocka_unit_test(test_state_tolerates_junk),
                cmocka_unit_test(test_reclaim_headroom),
                cmocka_unit_test(test_state_reclaim_round_trip),
                cmocka_unit_test(test_state_runtime_file_only_when_it_says_something),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
