/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "execute/bench.h"

#include <fcntl.h>
#include <inttypes.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>

#include "execute/crypt.h"
#include "execute/zram.h"
#include "probe/crypt.h"
#include "shared/crypt-dl.h"
#include "shared/path-util.h"
#include "shared/string-table.h"
#include "shared/clock.h"
#include "shared/page-size.h"

#define BENCH_BLOCK (1024 * 1024)       /* bytes per write(2) */
#define BENCH_ALIGN 4096

static const char *const bench_content_table[_BENCH_CONTENT_MAX] = {
        [BENCH_CONTENT_TEXT] = "text",
        [BENCH_CONTENT_CODE] = "code",
        [BENCH_CONTENT_RANDOM] = "random",
};
DEFINE_STRING_TABLE_TO_STRING(bench_content, BenchContent, bench_content_table);

static uint64_t thread_cpu_nsec(void) {
        struct timespec ts;
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
        return (uint64_t) ts.tv_sec * 1000000000 + (uint64_t) ts.tv_nsec;
}

/* --- content --------------------------------------------------------------------------------- */

static uint64_t rng_next(uint64_t *s) {
        /* xorshift64* */
        uint64_t x = *s;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        *s = x;
        return x * UINT64_C(2685821657736338717);
}

void bench_generator_init(BenchGenerator *g, uint64_t seed) {
        *g = (BenchGenerator) { .rng = seed ? seed : 1, .code_fd = -1 };
}

void bench_generator_done(BenchGenerator *g) {
        if (g->code_fd >= 0)
                close(g->code_fd);
        g->code_fd = -1;
}

static const char *const words[] = {
        "the", "request", "pod", "container", "memory", "started", "level=info", "level=warn", "msg=",
        "error", "user", "id", "status", "ok", "GET", "POST", "/api/v1/namespaces", "default", "kube-system",
        "duration_ms", "bytes", "cache", "hit", "miss", "session", "token", "value", "name", "true", "false",
        "null", "{\"ts\":", "\"level\":", "\"msg\":", "\"node\":", "connection", "closed", "from", "to",
        "for", "with", "and", "of", "in", "a", "is", "was", "on", "at", "by", "handler", "reconcile",
        "update", "deployment", "service", "endpoint", "timeout", "retry", "backoff", "watch", "list",
};

static void fill_text(BenchGenerator *g, uint8_t *buf, size_t len) {
        size_t i = 0;
        unsigned on_line = 0;
        while (i < len) {
                uint64_t r = rng_next(&g->rng);
                char tmp[32];
                const char *w;
                if (r % 7 == 0) {
                        snprintf(tmp, sizeof tmp, "%" PRIu64, (r >> 8) % 100000);
                        w = tmp;
                } else
                        w = words[(r >> 16) % ELEMENTSOF(words)];
                for (; *w && i < len; w++)
                        buf[i++] = (uint8_t) *w;
                if (i < len)
                        buf[i++] = ++on_line % 12 == 0 ? '\n' : ' ';
        }
}

static int fill_code(BenchGenerator *g, uint8_t *buf, size_t len) {
        if (g->code_fd < 0) {
                struct stat st;
                g->code_fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
                if (g->code_fd < 0)
                        return -errno;
                if (fstat(g->code_fd, &st) < 0)
                        return -errno;
                if (st.st_size < BENCH_ALIGN)
                        return -EIO;
                g->code_size = (uint64_t) st.st_size;
        }
        size_t i = 0;
        while (i < len) {
                if (g->code_offset >= g->code_size)
                        g->code_offset = 0;
                size_t want = len - i;
                if (want > g->code_size - g->code_offset)
                        want = g->code_size - g->code_offset;
                ssize_t k = pread(g->code_fd, buf + i, want, (off_t) g->code_offset);
                if (k < 0)
                        return -errno;
                if (k == 0) {
                        g->code_offset = g->code_size;
                        continue;
                }
                i += (size_t) k;
                g->code_offset += (uint64_t) k;
        }
        return 0;
}

int bench_generate(BenchGenerator *g, BenchContent c, uint8_t *buf, size_t len) {
        switch (c) {
        case BENCH_CONTENT_TEXT:
                fill_text(g, buf, len);
                return 0;
        case BENCH_CONTENT_CODE:
                return fill_code(g, buf, len);
        case BENCH_CONTENT_RANDOM:
                for (size_t i = 0; i + 8 <= len; i += 8) {
                        uint64_t r = rng_next(&g->rng);
                        memcpy(buf + i, &r, 8);
                }
                return 0;
        default:
                return -EINVAL;
        }
}

/* --- zram ------------------------------------------------------------------------------------ */

static int open_excl_retry(const char *path, int flags) {
        /* udev opens a new block device briefly; O_EXCL answers EBUSY meanwhile. */
        for (unsigned i = 0;; i++) {
                int fd = open(path, flags | O_EXCL | O_CLOEXEC | O_NOCTTY);
                if (fd >= 0 || errno != EBUSY || i >= ZRAM_BUSY_TRIES)
                        return fd >= 0 ? fd : -errno;
                usleep(ZRAM_BUSY_DELAY_USEC);
        }
}

static int write_all(int fd, const uint8_t *buf, size_t len, uint64_t *cpu) {
        uint64_t t0 = thread_cpu_nsec();
        size_t done = 0;
        while (done < len) {
                ssize_t k = write(fd, buf + done, len - done);
                if (k < 0) {
                        if (errno == EINTR)
                                continue;
                        return -errno;
                }
                if (k == 0)
                        return -ENOSPC;
                done += (size_t) k;
        }
        *cpu += thread_cpu_nsec() - t0;
        return 0;
}

static int bench_zram_kind(int id, const char *algorithm, BenchContent c, uint64_t bytes,
                           uint64_t deadline, const volatile sig_atomic_t *stop, uint8_t *buf,
                           BenchGenerator *g, BenchZramKind *k) {
        _cleanup_free_ char *dev = zram_device_path(id);
        if (!dev)
                return -ENOMEM;
        /* mem_limit: twice what is written, so that even incompressible pages fit with overhead. */
        int r = zram_setup("/", id, algorithm, NULL, 2 * bytes, bytes);
        if (r < 0)
                return r;
        _cleanup_close_ int fd = open_excl_retry(dev, O_RDWR | O_DIRECT);
        if (fd < 0)
                return fd;

        uint64_t written = 0;
        while (written < bytes && !*stop && now_monotonic_usec() < deadline) {
                r = bench_generate(g, c, buf, BENCH_BLOCK);
                if (r < 0)
                        return r;
                r = write_all(fd, buf, BENCH_BLOCK, &k->write_cpu_nsec);
                if (r < 0)
                        return r;
                written += BENCH_BLOCK;
        }
        k->written = written;

        ZramMmStat mm;
        r = zram_read_mm_stat("/", id, &mm);
        if (r < 0)
                return r;
        k->orig = mm.orig_data_size;
        k->compr = mm.compr_data_size;
        k->mem_used = mm.mem_used_total;

        /* Read back what was written: the decompression cost. */
        for (uint64_t off = 0; off < written && !*stop; off += BENCH_BLOCK) {
                uint64_t t0 = thread_cpu_nsec();
                ssize_t n = pread(fd, buf, BENCH_BLOCK, (off_t) off);
                if (n < 0)
                        return -errno;
                k->read_cpu_nsec += thread_cpu_nsec() - t0;
        }
        return 0;
}

int bench_zram(const char *algorithm, uint64_t bytes_per_kind, uint64_t deadline_usec,
               const volatile sig_atomic_t *stop, BenchZram *ret) {
        BenchZram z = { .device_id = -1 };
        bytes_per_kind = bytes_per_kind / BENCH_BLOCK * BENCH_BLOCK;
        if (!algorithm || bytes_per_kind == 0)
                return -EINVAL;
        if (access("/sys/class/zram-control/hot_add", F_OK) < 0)
                return errno == ENOENT ? -EOPNOTSUPP : -errno;

        _cleanup_free_ uint8_t *buf = NULL;
        if (posix_memalign((void **) &buf, BENCH_ALIGN, BENCH_BLOCK) != 0)
                return -ENOMEM;

        int id;
        int r = zram_take_device("/", &id);
        if (r < 0)
                return r;
        if (r == 0)     /* not hot_add'ed: never ours to configure */
                return -EOPNOTSUPP;
        z.device_id = id;

        BenchGenerator g;
        bench_generator_init(&g, UINT64_C(0x9e3779b97f4a7c15));
        int first_error = 0;
        /* Each kind gets an equal share of the time left, so that all three are measured. */
        for (BenchContent c = 0; c < _BENCH_CONTENT_MAX && !*stop; c++) {
                uint64_t now = now_monotonic_usec();
                if (now >= deadline_usec)
                        break;
                uint64_t share = now + (deadline_usec - now) / (uint64_t) (_BENCH_CONTENT_MAX - c);
                r = bench_zram_kind(id, algorithm, c, bytes_per_kind, share, stop, buf, &g, &z.kinds[c]);
                int k = zram_reset("/", id);
                if (r < 0 || k < 0) {
                        first_error = r < 0 ? r : k;
                        break;
                }
        }
        bench_generator_done(&g);
        r = zram_teardown("/", id);
        if (first_error < 0)
                return first_error;
        if (r < 0)
                return r;
        *ret = z;
        return 0;
}

/* --- the swap file's drive ------------------------------------------------------------------- */

static int cmp_u64(const void *a, const void *b) {
        uint64_t x = *(const uint64_t *) a, y = *(const uint64_t *) b;
        return (x > y) - (x < y);
}

#define BENCH_FILE_READS_MAX 4096

/* The node's busy CPU time so far (/proc/stat's cpu line: user, nice, system, irq, softirq,
 * steal), in ns: dm-crypt encrypts in its own kernel threads, which the writer's thread CPU time
 * does not see. 0 when unreadable. */
static uint64_t node_cpu_nsec(void) {
        _cleanup_free_ char *line = NULL;
        unsigned long long v[8] = {};
        if (read_one_line("/proc/stat", &line) < 0 ||
            sscanf(line, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3], &v[4], &v[5],
                   &v[6], &v[7]) != 8)
                return 0;
        long hz = sysconf(_SC_CLK_TCK);
        uint64_t ticks = v[0] + v[1] + v[2] + v[5] + v[6] + v[7];
        return hz > 0 ? ticks * (1000000000ULL / (uint64_t) hz) : 0;
}

/* A new ".nodeswap-bench.XXXXXX" in dfd with flags: its fd, its name in name. */
static int bench_temp_file(int dfd, int flags, char name[static 64]) {
        int fd = -1;
        for (unsigned tries = 0; fd < 0 && tries < 16; tries++) {
                uint64_t rnd;
                if (getrandom(&rnd, sizeof rnd, 0) != sizeof rnd)
                        return -errno;
                snprintf(name, 64, ".nodeswap-bench.%016" PRIx64, rnd);
                fd = openat(dfd, name, O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC | flags, 0600);
                if (fd < 0 && errno != EEXIST)
                        return -errno;
        }
        return fd < 0 ? -EEXIST : fd;
}

/* size bytes written sequentially to fd with O_DIRECT, then random reads of page_size, into *f. */
static int measure_io(int fd, uint64_t size, uint64_t page_size, uint64_t deadline_usec,
                      const volatile sig_atomic_t *stop, BenchFile *ret) {
        BenchFile f = {};
        _cleanup_free_ uint8_t *buf = NULL;
        _cleanup_free_ uint64_t *lat = calloc(BENCH_FILE_READS_MAX, sizeof(uint64_t));
        if (!lat || posix_memalign((void **) &buf, BENCH_ALIGN, BENCH_BLOCK) != 0)
                return -ENOMEM;

        BenchGenerator g;
        bench_generator_init(&g, UINT64_C(0x243f6a8885a308d3));
        uint64_t t0 = now_monotonic_usec(), n0 = node_cpu_nsec();
        /* At most half the time left for writing: the reads need their share. */
        uint64_t write_deadline = t0 + (deadline_usec > t0 ? (deadline_usec - t0) / 2 : 0);
        while (f.written < size && !*stop && now_monotonic_usec() < write_deadline) {
                (void) bench_generate(&g, BENCH_CONTENT_RANDOM, buf, BENCH_BLOCK);
                uint64_t c0 = thread_cpu_nsec();
                ssize_t k = pwrite(fd, buf, BENCH_BLOCK, (off_t) f.written);
                f.write_cpu_nsec += thread_cpu_nsec() - c0;
                if (k < 0)
                        return -errno;
                if (k != BENCH_BLOCK)
                        return -EIO;
                f.written += BENCH_BLOCK;
        }
        {
                uint64_t c0 = thread_cpu_nsec();
                if (fdatasync(fd) < 0)
                        return -errno;
                f.write_cpu_nsec += thread_cpu_nsec() - c0;
        }
        f.write_usec = now_monotonic_usec() - t0;
        uint64_t n1 = node_cpu_nsec();
        f.write_node_cpu_nsec = n1 > n0 ? n1 - n0 : 0;

        uint64_t pages = f.written / page_size;
        while (pages > 0 && f.n_reads < BENCH_FILE_READS_MAX && !*stop && now_monotonic_usec() < deadline_usec) {
                uint64_t off = (rng_next(&g.rng) % pages) * page_size;
                uint64_t s = now_monotonic_usec();
                ssize_t k = pread(fd, buf, page_size, (off_t) off);
                if (k < 0)
                        return -errno;
                lat[f.n_reads++] = now_monotonic_usec() - s;
        }
        if (f.n_reads > 0) {
                uint64_t sum = 0;
                for (size_t i = 0; i < f.n_reads; i++)
                        sum += lat[i];
                qsort(lat, f.n_reads, sizeof(uint64_t), cmp_u64);
                f.read_p50_usec = lat[f.n_reads / 2];
                f.read_p99_usec = lat[f.n_reads * 99 / 100];
                f.read_mean_usec = sum / f.n_reads;
        }
        *ret = f;
        return 0;
}

int bench_file(const char *dir, uint64_t size, uint64_t page_size, uint64_t deadline_usec,
               const volatile sig_atomic_t *stop, BenchFile *ret) {
        size = size / BENCH_BLOCK * BENCH_BLOCK;
        if (!dir || size == 0 || !page_size_valid(page_size))
                return -EINVAL;
        _cleanup_close_ int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (dfd < 0)
                return -errno;
        char name[64];
        int fd = bench_temp_file(dfd, O_RDWR | O_DIRECT, name);
        if (fd < 0)
                return fd;
        int r = 0;
        if (fallocate(fd, 0, 0, (off_t) size) < 0 && errno != EOPNOTSUPP)
                r = -errno;
        if (r >= 0)
                r = measure_io(fd, size, page_size, deadline_usec, stop, ret);
        (void) unlinkat(dfd, name, 0);
        close(fd);
        return r;
}

int bench_file_encrypted(const char *dir, uint64_t size, uint64_t page_size, uint64_t deadline_usec,
                         const volatile sig_atomic_t *stop, BenchFile *ret, char **ret_reason) {
        size = size / BENCH_BLOCK * BENCH_BLOCK;
        if (!dir || size == 0 || !page_size_valid(page_size))
                return -EINVAL;
        _cleanup_close_ int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (dfd < 0)
                return -errno;
        char name[64];
        int fd = bench_temp_file(dfd, O_RDWR, name);
        if (fd < 0)
                return fd;
        _cleanup_free_ char *path = path_join(dir, name), *node = NULL;
        _cleanup_free_ uint8_t *zero = calloc(1, BENCH_BLOCK);
        char dm_name[64 + sizeof CRYPT_NAME_PREFIX];
        snprintf(dm_name, sizeof dm_name, CRYPT_NAME_PREFIX "bench%s", name + strlen(".nodeswap-bench"));
        int r = path && zero ? 0 : -ENOMEM;
        /* As an encrypted swap file is made: every block written, the data after the marker page. */
        for (uint64_t off = 0; r >= 0 && off < size + CRYPT_DATA_OFFSET; off += BENCH_BLOCK)
                if (pwrite(fd, zero, BENCH_BLOCK, (off_t) off) != BENCH_BLOCK)
                        r = errno ? -errno : -EIO;
        if (r >= 0 && fdatasync(fd) < 0)
                r = -errno;
        if (r >= 0)
                r = crypt_map_file(fd, path, size + CRYPT_DATA_OFFSET, dm_name, &node, ret_reason);
        if (r >= 0) {
                int nfd = open(node, O_RDWR | O_DIRECT | O_CLOEXEC | O_NOCTTY | O_EXCL);
                r = nfd < 0 ? -errno : measure_io(nfd, size, page_size, deadline_usec, stop, ret);
                if (nfd >= 0)
                        close(nfd);
                (void) crypt_unmap(dm_name);
        }
        close(fd);
        (void) unlinkat(dfd, name, 0);
        return r;
}

int bench_cipher(double *ret_encrypt_mibs, double *ret_decrypt_mibs) {
        int r = crypt_dl_load();
        if (r < 0)
                return r;
        /* The kernel's crypto API through AF_ALG (lib/crypto_backend/crypto_cipher_kernel.c): what
         * dm-crypt uses, so its speed; -ENOTSUP (-EOPNOTSUPP) where the kernel offers none. */
        return sym_crypt_benchmark(NULL, CRYPT_CIPHER, "xts", CRYPT_KEY_BYTES, 16, BENCH_BLOCK, ret_encrypt_mibs,
                                   ret_decrypt_mibs);
}
