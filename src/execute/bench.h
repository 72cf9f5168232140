/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <signal.h>

#include "shared/util.h"

/* The measurements behind "nodeswap bench" (the CLI decides what to measure and recommends).
 *
 * zram: pages of a few kinds of content written to a zram device of bench's own with O_DIRECT,
 * straight to the block device, not through swap (no workload page is pushed out), and read back;
 * the CPU time of the writing thread around the write(2)s is the compression cost (zram compresses
 * in the submitter's context), around the read(2)s the decompression cost; mm_stat gives the
 * sizes. file: a temporary file in a directory, written and read with O_DIRECT.
 *
 * Every function removes what it created before it returns, on every path, and stops early (with
 * what it has measured so far) at the deadline (CLOCK_MONOTONIC µs, now_monotonic_usec()) or when *stop becomes
 * non-zero (a signal handler sets it). Nothing here logs. */

typedef enum BenchContent {
        BENCH_CONTENT_TEXT,     /* log and JSON lines: words, numbers, punctuation */
        BENCH_CONTENT_CODE,     /* machine code: the running executable's bytes */
        BENCH_CONTENT_RANDOM,   /* incompressible, like media or an already-compressed cache */
        _BENCH_CONTENT_MAX,
} BenchContent;
const char *bench_content_to_string(BenchContent c);

typedef struct BenchZramKind {
        uint64_t written;               /* bytes written (and read back) */
        uint64_t orig, compr, mem_used; /* mm_stat after the writes */
        uint64_t write_cpu_nsec;        /* thread CPU time in write(2) */
        uint64_t read_cpu_nsec;         /* thread CPU time in read(2) */
} BenchZramKind;

typedef struct BenchZram {
        BenchZramKind kinds[_BENCH_CONTENT_MAX];
        int device_id;                  /* the device it used (gone again) */
} BenchZram;

/* Measure algorithm on a zram device hot_add'ed for the purpose (-EOPNOTSUPP without
 * /sys/class/zram-control: bench never takes a device it did not create), bytes_per_kind of each
 * content, the device reset between kinds (it never holds more than bytes_per_kind) and
 * hot_removed at the end. */
int bench_zram(const char *algorithm, uint64_t bytes_per_kind, uint64_t deadline_usec,
               const volatile sig_atomic_t *stop, BenchZram *ret);

typedef struct BenchFile {
        uint64_t written;               /* bytes written */
        uint64_t write_usec;            /* wall time of the writes and the final fdatasync */
        uint64_t write_cpu_nsec;        /* thread CPU time in write(2) and fdatasync(2) */
        uint64_t write_node_cpu_nsec;   /* the node's busy CPU time meanwhile (/proc/stat), which
                                         * counts dm-crypt's threads too */
        size_t n_reads;                 /* random reads of page_size done */
        uint64_t read_p50_usec, read_p99_usec, read_mean_usec;
} BenchFile;

/* Measure the drive under dir: a file ".nodeswap-bench.XXXXXX" (0600, O_EXCL|O_NOFOLLOW) of size
 * bytes written sequentially with O_DIRECT in 1 MiB blocks, then read at random page_size-aligned
 * offsets of page_size bytes, one at a time, with O_DIRECT; unlinked before returning. -EINVAL
 * when the file system does not do O_DIRECT (tmpfs, ...). */
int bench_file(const char *dir, uint64_t size, uint64_t page_size, uint64_t deadline_usec,
               const volatile sig_atomic_t *stop, BenchFile *ret);
/* The same through the encrypted swap file's path ([File] Encrypt=yes, execute/crypt.h): the
 * temporary file written in full, a loop device with direct I/O and a plain dm-crypt mapping
 * ("nodeswap-bench.XXXXXX") with a new key over it, the same writes and reads on the mapping with
 * O_DIRECT; the mapping, its loop device and the file are gone again before it returns. *ret_reason
 * (may be NULL) says why the mapping could not be made. */
int bench_file_encrypted(const char *dir, uint64_t size, uint64_t page_size, uint64_t deadline_usec,
                         const volatile sig_atomic_t *stop, BenchFile *ret, char **ret_reason);
/* The cipher's own speed in the kernel (aes-xts with the 512-bit key of the encrypted swap file),
 * through libcryptsetup's crypt_benchmark() and the kernel's crypto API for user space (AF_ALG), in
 * MiB/s. -ENOTSUP or -EOPNOTSUPP where the kernel offers no AF_ALG, -ELIBACC without libcryptsetup. */
int bench_cipher(double *ret_encrypt_mibs, double *ret_decrypt_mibs);

/* Fill buf (a multiple of 4096 bytes) with content of kind c; *state carries the generator on. */
typedef struct BenchGenerator {
        uint64_t rng;
        int code_fd;                    /* /proc/self/exe, -1 until opened */
        uint64_t code_size, code_offset;
} BenchGenerator;
void bench_generator_init(BenchGenerator *g, uint64_t seed);
void bench_generator_done(BenchGenerator *g);
int bench_generate(BenchGenerator *g, BenchContent c, uint8_t *buf, size_t len);

