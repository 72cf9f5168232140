/* SPDX-License-Identifier: GPL-2.0-or-later */
/* charge-hog MIB READY_FILE RESULT_FILE: the working set of e2e scenario "charge" (who pays for
 * compressed swap). Fills MIB MiB of anonymous memory with compressible data, writes "ready" to
 * READY_FILE and waits for SIGUSR1; then reads all of it back, compares every word with what it
 * wrote, writes "ok WORDS" or "corrupt WORDS_WRONG" to RESULT_FILE and exits 0 or 3.
 *
 * The data: in every 4 KiB block, the first quarter is a pseudo-random sequence and the rest
 * repeats a 128-byte pattern that depends on the block's number. zstd and lzo compress such a
 * block to about a quarter and a bit (about 3.5:1, near what zram reports for real workloads),
 * no block is the same byte repeated (zram and zswap store those without compressing), and no
 * two blocks are equal. tests/bench/memhog.c writes incompressible data on purpose, which zswap
 * rejects (a compressed page larger than a page goes straight to the swap device): that would
 * hide the pool this test measures. */
#define _GNU_SOURCE
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#define BLOCK_WORDS (4096 / sizeof(uint64_t))
#define RANDOM_WORDS (BLOCK_WORDS / 4)
#define PATTERN_WORDS 16

static volatile sig_atomic_t go;

static void on_usr1(int sig) {
        (void) sig;
        go = 1;
}

static uint64_t next(uint64_t *s) {     /* xorshift64* */
        *s ^= *s >> 12;
        *s ^= *s << 25;
        *s ^= *s >> 27;
        return *s * 0x2545F4914F6CDD1DULL;
}

/* The word at index i; s is the random sequence's state, advanced on the random words only. */
static uint64_t word(size_t i, uint64_t *s) {
        size_t block = i / BLOCK_WORDS, w = i % BLOCK_WORDS;
        if (w < RANDOM_WORDS)
                return next(s);
        return (uint64_t) block * 0x100000001ULL + (w % PATTERN_WORDS) * 0x0101010101010101ULL;
}

static int write_file(const char *path, const char *text) {
        char tmp[4096];
        if (snprintf(tmp, sizeof tmp, "%s.tmp", path) >= (int) sizeof tmp)
                return -1;
        FILE *f = fopen(tmp, "we");
        if (!f)
                return -1;
        fputs(text, f);
        if (fclose(f) != 0)
                return -1;
        return rename(tmp, path);
}

int main(int argc, char **argv) {
        if (argc != 4) {
                fprintf(stderr, "usage: charge-hog MIB READY_FILE RESULT_FILE\n");
                return 2;
        }
        char *end;
        unsigned long mib = strtoul(argv[1], &end, 10);
        if (*end || mib == 0 || mib > 65536) {
                fprintf(stderr, "charge-hog: bad size '%s' (MiB, 1-65536)\n", argv[1]);
                return 2;
        }
        size_t words = (size_t) mib * 1024 * 1024 / sizeof(uint64_t);
        sigset_t set, old;
        sigemptyset(&set);
        sigaddset(&set, SIGUSR1);
        sigprocmask(SIG_BLOCK, &set, &old);
        signal(SIGUSR1, on_usr1);

        uint64_t *m = mmap(NULL, words * sizeof(uint64_t), PROT_READ | PROT_WRITE,
                           MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (m == MAP_FAILED) {
                perror("mmap");
                return 1;
        }
        uint64_t s = 0x9E3779B97F4A7C15ULL;
        for (size_t i = 0; i < words; i++)
                m[i] = word(i, &s);
        if (write_file(argv[2], "ready\n") < 0) {
                perror(argv[2]);
                return 1;
        }
        while (!go)
                sigsuspend(&old);

        size_t wrong = 0;
        s = 0x9E3779B97F4A7C15ULL;
        for (size_t i = 0; i < words; i++)
                if (m[i] != word(i, &s))
                        wrong++;
        char msg[64];
        snprintf(msg, sizeof msg, "%s %zu\n", wrong ? "corrupt" : "ok", wrong ? wrong : words);
        if (write_file(argv[3], msg) < 0) {
                perror(argv[3]);
                return 1;
        }
        return wrong ? 3 : 0;
}
