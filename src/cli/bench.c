/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * nodeswap bench [--dir DIR] [--json]
 *
 * The on-node advisor: measures, on this node and in at most BENCH_TOTAL_USEC, what each way of
 * swapping costs here, in the terms operators choose by: CPU seconds per GiB swapped out (and in),
 * RAM per GiB held, and drive writes per GiB; then recommends a policy and says why. Runs niced
 * (19, SCHED_IDLE, best-effort I/O priority 7) so that it yields to every workload; holds at most
 * a 1 MiB buffer and a zram device of BENCH_ZRAM_BYTES; creates nothing that it does not remove,
 * also when SIGINT, SIGTERM or SIGHUP ends it early.
 *
 * --json prints one object (nodeswap(8) BENCH):
 *   version          1
 *   page_size        bytes
 *   duration_seconds wall time of the whole run
 *   interrupted      true when a signal ended it early
 *   zram             array, one per algorithm the kernel offers, of
 *     algorithm, error (null or why it could not be measured), and per content kind
 *     ("text", "code", "random") and "all": written_bytes, compression_ratio (orig / compr),
 *     ram_per_gib_held (mem_used_total / orig, GiB of RAM per GiB stored),
 *     cpu_seconds_per_gib_out (compression), cpu_seconds_per_gib_in (decompression)
 *   file             object: dir, error (null or why), storage, written_bytes,
 *                    write_bytes_per_second, cpu_seconds_per_gib_out, read_page_p50_seconds,
 *                    read_page_p99_seconds, reads, drive_writes_per_gib (1: every GiB swapped out
 *                    is written to the drive)
 *   recommendation   object: backend ("zram", "file", "zram file"), algorithm (null), reasons
 *                    (array of sentences), policy (the INI text)
 */
#include <inttypes.h>
#include <json-c/json.h>
#include <libgen.h>
#include <sched.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <linux/magic.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>

#include "execute/bench.h"
#include "probe/crypt.h"
#include "cli/cli.h"
#include "report/log.h"
#include "execute/zram.h"
#include "shared/clock.h"

#define BENCH_TOTAL_USEC (55 * USEC_PER_SEC)      /* the run's bound; the issue allows 60 s */
#define BENCH_ZRAM_USEC (30 * USEC_PER_SEC)       /* of which the zram measurements, all algorithms */
#define BENCH_ZRAM_BYTES (16 * 1024 * 1024ULL)  /* per content kind */
#define BENCH_FILE_BYTES (64 * 1024 * 1024ULL)

/* A fast drive: NVMe or a good SSD reads a page in well under this, an SD card or a disk does not. */
#define FAST_READ_USEC 250
#define FAST_WRITE_BPS (150 * 1024 * 1024ULL)

static volatile sig_atomic_t stop_requested = 0;

static void on_signal(int sig) {
        (void) sig;
        stop_requested = 1;
}

/* Why the drive was not measured. */
static const char *file_error_text(int e) {
        if (e == -EMEDIUMTYPE)
                return "a file system in memory (tmpfs, ramfs) holds no swap file";
        if (e == -ECANCELED)
                return "not measured (interrupted)";
        return strerror(-e);
}

/* The encrypted swap file's path measured beside the plain file, and the cipher's own speed. */
typedef struct BenchCrypt {
        int error;                      /* of bench_file_encrypted() */
        char *reason;                   /* why the mapping could not be made */
        BenchFile f;
        int cipher_error;               /* of bench_cipher() */
        double encrypt_mibs, decrypt_mibs;
} BenchCrypt;

static void bench_crypt_done(BenchCrypt *e) {
        free(e->reason);
}

static const char *cipher_error_text(int e) {
        if (e == -ENOTSUP || e == -EOPNOTSUPP || e == -ENOENT)
                return "the kernel offers no crypto API to user space (AF_ALG)";
        return strerror(-e);
}

typedef struct AlgoResult {
        char *algorithm;
        int error;
        BenchZram z;
} AlgoResult;

static double gib(uint64_t bytes) {
        return (double) bytes / (1024.0 * 1024.0 * 1024.0);
}

static void kind_sum(const BenchZram *z, int kind, BenchZramKind *ret) {
        BenchZramKind s = {};
        for (int c = 0; c < _BENCH_CONTENT_MAX; c++) {
                if (kind >= 0 && c != kind)
                        continue;
                const BenchZramKind *k = &z->kinds[c];
                s.written += k->written;
                s.orig += k->orig;
                s.compr += k->compr;
                s.mem_used += k->mem_used;
                s.write_cpu_nsec += k->write_cpu_nsec;
                s.read_cpu_nsec += k->read_cpu_nsec;
        }
        *ret = s;
}

static double ratio(const BenchZramKind *k) {
        return k->compr > 0 ? (double) k->orig / (double) k->compr : 0.0;
}
static double ram_per_gib(const BenchZramKind *k) {
        return k->orig > 0 ? (double) k->mem_used / (double) k->orig : 0.0;
}
static double cpu_out(const BenchZramKind *k) {
        return k->written > 0 ? k->write_cpu_nsec / 1e9 / gib(k->written) : 0.0;
}
static double cpu_in(const BenchZramKind *k) {
        return k->written > 0 ? k->read_cpu_nsec / 1e9 / gib(k->written) : 0.0;
}

/* Yield to everything else on the node. Failures only mean less courtesy: not fatal. */
static void lower_priority(void) {
        (void) setpriority(PRIO_PROCESS, 0, 19);
        struct sched_param sp = {};
        if (sched_setscheduler(0, SCHED_IDLE, &sp) < 0)
                (void) sched_setscheduler(0, SCHED_BATCH, &sp);
        /* ioprio_set(IOPRIO_WHO_PROCESS, self, best-effort class 2, level 7): last among the
         * best-effort I/O, but not the idle class, which would measure the queue, not the drive. */
        (void) syscall(SYS_ioprio_set, 1, 0, (2 << 13) | 7);
}

/* The directory the swap file would live in: --dir, else the policy's [File] Path='s directory, or
 * its nearest existing parent. */
static char *bench_dir(const CliContext *c, const Policy *p) {
        if (c->dir)
                return strdup(c->dir);
        const char *path = p->file.path ?: "/var/lib/nodeswap/swapfile";
        char *d = strdup(path);
        if (!d)
                return NULL;
        for (;;) {
                char *parent = strdup(dirname(d));
                free(d);
                if (!parent)
                        return NULL;
                struct stat st;
                if (streq(parent, "/") || (stat(parent, &st) == 0 && S_ISDIR(st.st_mode)))
                        return parent;
                d = parent;
        }
}

typedef struct Recommendation {
        const char *backend;
        char **algorithms;      /* preference list, best first */
        char **reasons;
        char *policy;
} Recommendation;

static void recommendation_done(Recommendation *r) {
        strv_free(r->algorithms);
        strv_free(r->reasons);
        free(r->policy);
}

static int cmp_algo(const void *a, const void *b) {
        /* By RAM per GiB held, least first (the better ratio). */
        const AlgoResult *x = a, *y = b;
        BenchZramKind kx, ky;
        kind_sum(&x->z, -1, &kx);
        kind_sum(&y->z, -1, &ky);
        double rx = x->error ? 99 : ram_per_gib(&kx), ry = y->error ? 99 : ram_per_gib(&ky);
        return (rx > ry) - (rx < ry);
}

static int recommend(const CliContext *c, const Policy *p, const HostState *h, AlgoResult *algos, size_t n_algos,
                     const BenchFile *file, int file_error, const char *dir, Recommendation *ret) {
        Recommendation r = {};
        _cleanup_free_ char *algs = NULL, *path = NULL;
        char *s;
#define REASON(...) do { if (!(s = strdup_printf(__VA_ARGS__)) || strv_push(&r.reasons, s) < 0) goto oom; } while (0)

        /* zram: the algorithm that holds a GiB in the least RAM; among those within 5 % of it, the
         * one that costs the least CPU to swap a GiB out and back in. */
        AlgoResult *sorted = calloc(n_algos ? n_algos : 1, sizeof(AlgoResult));
        if (!sorted)
                goto oom;
        if (n_algos)
                memcpy(sorted, algos, n_algos * sizeof(AlgoResult));
        qsort(sorted, n_algos, sizeof(AlgoResult), cmp_algo);
        const AlgoResult *best = NULL;
        double least_ram = 0, best_cpu = 0;
        for (size_t i = 0; i < n_algos; i++) {
                BenchZramKind k;
                kind_sum(&sorted[i].z, -1, &k);
                if (sorted[i].error || k.written == 0 || k.orig == 0)
                        continue;
                if (!best)
                        least_ram = ram_per_gib(&k);
                else if (ram_per_gib(&k) > least_ram * 1.05)
                        break;
                if (!best || cpu_out(&k) + cpu_in(&k) < best_cpu) {
                        best = &sorted[i];
                        best_cpu = cpu_out(&k) + cpu_in(&k);
                }
        }
        if (best) {
                BenchZramKind k;
                kind_sum(&best->z, -1, &k);
                if (strv_extend(&r.algorithms, best->algorithm) < 0)
                        goto oom;
                for (size_t i = 0; i < n_algos; i++)
                        if (&sorted[i] != best && !sorted[i].error && strv_extend(&r.algorithms, sorted[i].algorithm) < 0)
                                goto oom;
                REASON("zram with %s: %.2f GiB of RAM holds a GiB (ratio %.2f:1 over text, code and "
                       "random pages; the least RAM, or within 5 %% of it at less CPU), at %.2f CPU seconds "
                       "per GiB swapped out and %.2f per GiB swapped in; no drive writes",
                       best->algorithm, ram_per_gib(&k), ratio(&k), cpu_out(&k), cpu_in(&k));
        }

        bool fast = false;
        if (file_error == 0 && file->n_reads > 0 && file->write_usec > 0) {
                double bps = file->written / (file->write_usec / 1e6);
                fast = file->read_p50_usec <= FAST_READ_USEC && bps >= FAST_WRITE_BPS;
                double cpu = file->written ? file->write_cpu_nsec / 1e9 / gib(file->written) : 0;
                REASON("the drive under %s reads a %" PRIu64 " KiB page in %" PRIu64 " µs (median), writes "
                       "%.0f MiB/s, at %.2f CPU seconds per GiB: %s", dir, h->page_size / 1024,
                       file->read_p50_usec, bps / (1024 * 1024), cpu,
                       fast ? "fast enough to swap to" : "too slow to swap to without stalls");
        } else if (file_error != 0)
                REASON("the drive under %s was not measured (%s): no swap file", dir, file_error_text(file_error));

        if (best && fast) {
                r.backend = "zram file";
                REASON("zram first (priority 100) keeps the hot pages in RAM without drive writes; the "
                       "file (priority 10) takes what does not fit, each GiB of it a GiB of drive writes");
        } else if (best) {
                r.backend = "zram";
                REASON("zram only: every GiB swapped costs RAM and CPU but no drive writes");
        } else if (fast) {
                r.backend = "file";
                REASON("no zram algorithm was measured: the swap file only, each GiB swapped out a GiB "
                       "of drive writes");
        } else {
                r.backend = "none";
                REASON("neither zram nor the drive was measured: no swap");
        }

        bool v2 = h->cgroup == CGROUP_V2;
        if (!v2)
                REASON("cgroup %s: LimitedSwap needs cgroup v2, so the kubelet is told NoSwap "
                       "(the kubelet's pods get no swap, the system's processes do)",
                       cgroup_mode_to_string(h->cgroup));

        if (r.algorithms && !(algs = strv_join(r.algorithms, " ")))
                goto oom;
        /* The file where the drive was measured: --dir's swapfile, else the policy's Path=. */
        path = c->dir ? strdup_printf("%s/swapfile", streq(dir, "/") ? "" : dir)
                      : strdup(p->file.path ?: "/var/lib/nodeswap/swapfile");
        if (!path)
                goto oom;
        bool zram = strstr(r.backend, "zram"), filebk = strstr(r.backend, "file");
        r.policy = strdup_printf(
                "# Recommended by nodeswap bench on this node; see nodeswap(8) BENCH.\n"
                "[Swap]\nBackend=%s\n"
                "%s%s%s"
                "%s%s%s"
                "[Sysctl]\nSwappiness=%d\nPageCluster=%d\n"
                "\n[Kubelet]\nSwapBehavior=%s\n",
                r.backend,
                zram ? "\n[Zram]\nAlgorithm=" : "", zram ? strempty(algs) : "", zram ? "\nPriority=100\n\n" : "\n",
                filebk ? "[File]\nPath=" : "", filebk ? strempty(path) : "",
                filebk ? "\nPriority=10\n\n" : "",
                zram ? 100 : 60, zram ? 0 : 3,
                v2 ? "LimitedSwap" : "NoSwap");
        if (!r.policy)
                goto oom;
        free(sorted);
        *ret = r;
        return 0;
oom:
        free(sorted);
        recommendation_done(&r);
        return -ENOMEM;
#undef REASON
}

static json_object *kind_json(const BenchZramKind *k) {
        json_object *o = json_object_new_object();
        if (!o)
                return NULL;
        json_object_object_add(o, "written_bytes", json_object_new_uint64(k->written));
        json_object_object_add(o, "compression_ratio", k->compr ? json_object_new_double(ratio(k)) : NULL);
        json_object_object_add(o, "ram_per_gib_held", k->orig ? json_object_new_double(ram_per_gib(k)) : NULL);
        json_object_object_add(o, "cpu_seconds_per_gib_out", k->written ? json_object_new_double(cpu_out(k)) : NULL);
        json_object_object_add(o, "cpu_seconds_per_gib_in", k->written ? json_object_new_double(cpu_in(k)) : NULL);
        return o;
}

static void print_json_result(uint64_t page_size, double secs, AlgoResult *algos, size_t n, const char *dir, bool dir_given,
                              const HostState *h, const BenchFile *f, int file_error, const BenchCrypt *enc,
                              const Recommendation *rec) {
        json_object *o = json_object_new_object(), *za = json_object_new_array();
        json_object_object_add(o, "version", json_object_new_int(1));
        json_object_object_add(o, "page_size", json_object_new_uint64(page_size));
        json_object_object_add(o, "duration_seconds", json_object_new_double(secs));
        json_object_object_add(o, "interrupted", json_object_new_boolean(stop_requested));
        for (size_t i = 0; i < n; i++) {
                json_object *a = json_object_new_object();
                json_object_object_add(a, "algorithm", json_object_new_string(algos[i].algorithm));
                json_object_object_add(a, "error", algos[i].error ? json_object_new_string(strerror(-algos[i].error)) : NULL);
                for (int c = -1; c < _BENCH_CONTENT_MAX; c++) {
                        BenchZramKind k;
                        kind_sum(&algos[i].z, c, &k);
                        json_object_object_add(a, c < 0 ? "all" : bench_content_to_string(c), kind_json(&k));
                }
                json_object_array_add(za, a);
        }
        json_object_object_add(o, "zram", za);
        json_object *fo = json_object_new_object();
        json_object_object_add(fo, "dir", json_object_new_string(dir));
        json_object_object_add(fo, "error", file_error ? json_object_new_string(file_error_text(file_error)) : NULL);
        /* probe knows the storage under the policy's [File] Path= only, not under --dir. */
        const char *storage = !dir_given && h->file.storage ? storage_kind_to_string(h->file.storage) : NULL;
        json_object_object_add(fo, "storage", storage ? json_object_new_string(storage) : NULL);
        if (!file_error) {
                json_object_object_add(fo, "written_bytes", json_object_new_uint64(f->written));
                json_object_object_add(fo, "write_bytes_per_second", f->write_usec ?
                                       json_object_new_double(f->written / (f->write_usec / 1e6)) : NULL);
                json_object_object_add(fo, "cpu_seconds_per_gib_out", f->written ?
                                       json_object_new_double(f->write_cpu_nsec / 1e9 / gib(f->written)) : NULL);
                json_object_object_add(fo, "read_page_p50_seconds", json_object_new_double(f->read_p50_usec / 1e6));
                json_object_object_add(fo, "read_page_p99_seconds", json_object_new_double(f->read_p99_usec / 1e6));
                json_object_object_add(fo, "reads", json_object_new_uint64(f->n_reads));
                json_object_object_add(fo, "drive_writes_per_gib", json_object_new_int(1));
                json_object_object_add(fo, "node_cpu_seconds_per_gib_out", f->written ?
                                       json_object_new_double(f->write_node_cpu_nsec / 1e9 / gib(f->written)) : NULL);
        }
        json_object_object_add(o, "file", fo);
        json_object *eo = json_object_new_object();
        json_object_object_add(eo, "cipher", json_object_new_string(CRYPT_CIPHER "-" CRYPT_CIPHER_MODE));
        json_object_object_add(eo, "key_bits", json_object_new_int(CRYPT_KEY_BYTES * 8));
        json_object_object_add(eo, "error", enc->error ? json_object_new_string(enc->reason ?: file_error_text(enc->error)) : NULL);
        if (!enc->error) {
                const BenchFile *e = &enc->f;
                json_object_object_add(eo, "written_bytes", json_object_new_uint64(e->written));
                json_object_object_add(eo, "write_bytes_per_second", e->write_usec ?
                                       json_object_new_double(e->written / (e->write_usec / 1e6)) : NULL);
                json_object_object_add(eo, "node_cpu_seconds_per_gib_out", e->written ?
                                       json_object_new_double(e->write_node_cpu_nsec / 1e9 / gib(e->written)) : NULL);
                json_object_object_add(eo, "read_page_p50_seconds", json_object_new_double(e->read_p50_usec / 1e6));
                json_object_object_add(eo, "read_page_p99_seconds", json_object_new_double(e->read_p99_usec / 1e6));
                json_object_object_add(eo, "reads", json_object_new_uint64(e->n_reads));
        }
        json_object_object_add(eo, "cipher_error", enc->cipher_error ? json_object_new_string(cipher_error_text(enc->cipher_error)) : NULL);
        json_object_object_add(eo, "cipher_encrypt_bytes_per_second",
                               enc->cipher_error ? NULL : json_object_new_double(enc->encrypt_mibs * 1048576.0));
        json_object_object_add(eo, "cipher_decrypt_bytes_per_second",
                               enc->cipher_error ? NULL : json_object_new_double(enc->decrypt_mibs * 1048576.0));
        json_object_object_add(o, "file_encrypted", eo);
        json_object *ro = json_object_new_object(), *reasons = json_object_new_array();
        json_object_object_add(ro, "backend", json_object_new_string(rec->backend));
        json_object_object_add(ro, "algorithm", rec->algorithms ? json_object_new_string(rec->algorithms[0]) : NULL);
        for (char **r = rec->reasons; r && *r; r++)
                json_object_array_add(reasons, json_object_new_string(*r));
        json_object_object_add(ro, "reasons", reasons);
        json_object_object_add(ro, "policy", json_object_new_string(rec->policy));
        json_object_object_add(o, "recommendation", ro);
        printf("%s\n", json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE));
        json_object_put(o);
}

static void print_text_result(uint64_t page_size, double secs, AlgoResult *algos, size_t n, const char *dir,
                              const BenchFile *f, int file_error, const BenchCrypt *enc, const Recommendation *rec) {
        printf("nodeswap bench: %.1f s, page size %" PRIu64 " KiB%s\n\n", secs, page_size / 1024,
               stop_requested ? ", interrupted" : "");
        printf("%-10s %-7s %8s %7s %9s %9s %8s\n", "BACKEND", "PAGES", "MIB", "RATIO", "RAM/GIB", "CPU-OUT", "CPU-IN");
        for (size_t i = 0; i < n; i++) {
                if (algos[i].error) {
                        printf("%-10s %s\n", algos[i].algorithm, strerror(-algos[i].error));
                        continue;
                }
                for (int c = 0; c <= _BENCH_CONTENT_MAX; c++) {
                        BenchZramKind k;
                        int kind = c == _BENCH_CONTENT_MAX ? -1 : c;
                        kind_sum(&algos[i].z, kind, &k);
                        printf("%-10s %-7s %8.0f %6.2f:1 %9.3f %8.2fs %7.2fs\n", algos[i].algorithm,
                               kind < 0 ? "all" : bench_content_to_string(kind), k.written / 1048576.0,
                               ratio(&k), ram_per_gib(&k), cpu_out(&k), cpu_in(&k));
                }
        }
        if (file_error)
                printf("%-10s %s: %s\n", "file", dir, file_error_text(file_error));
        else
                printf("%-10s %-7s %8.0f %8s %9s %8.2fs  read %" PRIu64 " KiB: p50 %" PRIu64 " µs, p99 %" PRIu64
                       " µs; write %.0f MiB/s; 1 GiB drive writes per GiB\n",
                       "file", "random", f->written / 1048576.0, "-", "0", f->written ? f->write_cpu_nsec / 1e9 / gib(f->written) : 0,
                       page_size / 1024, f->read_p50_usec, f->read_p99_usec,
                       f->write_usec ? f->written / (f->write_usec / 1e6) / 1048576.0 : 0);
        printf("\nThe swap file encrypted ([File] Encrypt=yes: dm-crypt %s-%s, %d-bit key, over a loop device with\n"
               "direct I/O), beside the plain file above, both with the node's busy CPU per GiB written:\n",
               CRYPT_CIPHER, CRYPT_CIPHER_MODE, CRYPT_KEY_BYTES * 8);
        if (file_error)
                printf("  not measured (no plain file either)\n");
        else if (enc->error)
                printf("  not measured: %s\n", enc->reason ?: file_error_text(enc->error));
        else {
                const BenchFile *e = &enc->f;
                printf("  write %.0f MiB/s (plain %.0f), node CPU %.2f s per GiB (plain %.2f)\n"
                       "  read %" PRIu64 " KiB: p50 %" PRIu64 " µs (plain %" PRIu64 "), p99 %" PRIu64 " µs (plain %" PRIu64 ")\n",
                       e->write_usec ? e->written / (e->write_usec / 1e6) / 1048576.0 : 0,
                       f->write_usec ? f->written / (f->write_usec / 1e6) / 1048576.0 : 0,
                       e->written ? e->write_node_cpu_nsec / 1e9 / gib(e->written) : 0,
                       f->written ? f->write_node_cpu_nsec / 1e9 / gib(f->written) : 0,
                       page_size / 1024, e->read_p50_usec, f->read_p50_usec, e->read_p99_usec, f->read_p99_usec);
        }
        if (enc->cipher_error)
                printf("  the cipher in the kernel: not measured: %s\n", cipher_error_text(enc->cipher_error));
        else
                printf("  the cipher in the kernel (crypt_benchmark): encryption %.0f MiB/s, decryption %.0f MiB/s\n",
                       enc->encrypt_mibs, enc->decrypt_mibs);
        printf("\nRATIO: original over compressed; RAM/GIB: GiB of RAM that holds a GiB swapped out;\n"
               "CPU-OUT, CPU-IN: CPU seconds per GiB swapped out (compression) and in.\n\n"
               "Recommended: Backend=%s\n", rec->backend);
        for (char **r = rec->reasons; r && *r; r++)
                printf("  - %s\n", *r);
        printf("\n%s", rec->policy);
}

int verb_bench(const CliContext *c) {
        if (!root_is_host(c->root)) {
                log_error("nodeswap bench measures this node's kernel and drive; --root is not supported.");
                return EXIT_USAGE;
        }
        if (geteuid() != 0) {
                log_error("nodeswap bench needs root: it creates a zram device of its own.");
                return EXIT_FAIL;
        }
        uint64_t start = now_monotonic_usec();
        Policy p = {};
        HostState h = {};
        int ret = cli_load(c, LOAD_APPLY, &p, &h, NULL);
        if (ret != EXIT_OK)
                return ret;

        struct sigaction sa = { .sa_handler = on_signal };
        sigemptyset(&sa.sa_mask);
        (void) sigaction(SIGINT, &sa, NULL);
        (void) sigaction(SIGTERM, &sa, NULL);
        (void) sigaction(SIGHUP, &sa, NULL);
        lower_priority();

        AlgoResult *algos = NULL;
        size_t n_algos = 0;
        BenchCrypt enc = { .error = -ECANCELED, .cipher_error = -ECANCELED };
        _cleanup_free_ char *dir = NULL;
        _cleanup_(strv_freep) char **offered = NULL;
        int r = zram_kernel_offers("/", &offered);
        if (r < 0 && c->verbosity >= 0)
                log_warning_errno(r, "zram is not available: %m");
        n_algos = strv_length(offered);
        algos = calloc(n_algos ? n_algos : 1, sizeof(AlgoResult));
        if (!algos) {
                ret = EXIT_FAIL;
                goto finish;
        }
        /* The memory bound: never more than 1/64 of what is available in a zram device at once. */
        uint64_t per_kind = BENCH_ZRAM_BYTES;
        if (h.mem_available / 64 < per_kind)
                per_kind = h.mem_available / 64;
        for (size_t i = 0; i < n_algos && !stop_requested; i++) {
                uint64_t now = now_monotonic_usec(), zram_end = start + BENCH_ZRAM_USEC;
                algos[i].algorithm = offered[i];
                if (now >= zram_end) {
                        algos[i].error = -ETIME;
                        continue;
                }
                uint64_t share = now + (zram_end - now) / (n_algos - i);
                algos[i].error = bench_zram(offered[i], per_kind, share, &stop_requested, &algos[i].z);
                if (c->verbosity > 0)
                        log_info("zram %s: %s", offered[i], algos[i].error ? strerror(-algos[i].error) : "done");
        }
        for (size_t i = 0; i < n_algos; i++)
                if (!algos[i].algorithm)
                        algos[i] = (AlgoResult) { .algorithm = offered[i], .error = -ECANCELED };

        dir = bench_dir(c, &p);
        BenchFile f = {};
        int file_error = -ECANCELED;
        if (!dir) {
                ret = EXIT_FAIL;
                goto finish;
        }
        if (!stop_requested) {
                struct statvfs sv;
                uint64_t size = BENCH_FILE_BYTES;
                struct statfs sf;
                if (statvfs(dir, &sv) < 0 || statfs(dir, &sf) < 0)
                        file_error = -errno;
                else if (sf.f_type == TMPFS_MAGIC || sf.f_type == RAMFS_MAGIC)
                        file_error = -EMEDIUMTYPE;
                else {
                        /* Never more than a quarter of the free space. */
                        uint64_t avail = (uint64_t) sv.f_bavail * sv.f_frsize;
                        if (avail / 4 < size)
                                size = avail / 4;
                        /* half the time left for the plain file, the rest for the encrypted one */
                        uint64_t now = now_monotonic_usec(), end = start + BENCH_TOTAL_USEC;
                        uint64_t mid = now < end ? now + (end - now) / 2 : end;
                        file_error = size < 1024 * 1024 ? -ENOSPC :
                                     bench_file(dir, size, h.page_size, mid, &stop_requested, &f);
                        if (!file_error && !stop_requested)
                                enc.error = bench_file_encrypted(dir, size, h.page_size, end, &stop_requested, &enc.f,
                                                                 &enc.reason);
                }
        }
        enc.cipher_error = bench_cipher(&enc.encrypt_mibs, &enc.decrypt_mibs);

        Recommendation rec = {};
        r = recommend(c, &p, &h, algos, n_algos, &f, file_error, dir, &rec);
        if (r < 0) {
                ret = EXIT_FAIL;
                goto finish;
        }
        double secs = (now_monotonic_usec() - start) / 1e6;
        if (c->json)
                print_json_result(h.page_size, secs, algos, n_algos, dir, c->dir, &h, &f, file_error, &enc, &rec);
        else
                print_text_result(h.page_size, secs, algos, n_algos, dir, &f, file_error, &enc, &rec);
        recommendation_done(&rec);
        if (stop_requested) {
                log_error("Interrupted: what bench created is removed again.");
                ret = EXIT_FAIL;
        }
finish:
        free(algos);
        bench_crypt_done(&enc);
        host_state_done(&h);
        policy_done(&p);
        return ret;
}
