/* SPDX-License-Identifier: GPL-2.0-or-later */
/* memhog MIB READY_FILE RESULT_FILE [random|compressible]: a process whose memory must survive
 * swapping. Fills MIB MiB of anonymous memory, writes "ready" to READY_FILE, and waits for
 * SIGUSR1. Then it reads all of its memory back and compares every word with what it wrote,
 * writes "ok WORDS" or "corrupt WORDS_WRONG" to RESULT_FILE and exits 0 or 3. Run inside a memory
 * cgroup whose limit is below MIB, most of it sits in swap while it waits.
 *
 * random (the default; the backend switch benchmark): a pseudo-random sequence, incompressible:
 * zram keeps every page at full size, the worst case for the switch.
 * compressible (e2e scenario charge): in every 4 KiB block, the first quarter random and the rest
 * a 128-byte pattern that depends on the block's number. zstd compresses such a block about 3:1,
 * near what zram reports for real workloads; no block is the same byte repeated (zram and zswap
 * store those without compressing) and no two blocks are equal. Random data would hide zswap's
 * pool: zswap rejects a page that does not compress below a page, and it goes straight to the
 * swap device. */
#define _GNU_SOURCE
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

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

#define BLOCK_WORDS (4096 / sizeof(uint64_t))
#define RANDOM_WORDS (BLOCK_WORDS / 4)
#define PATTERN_WORDS 16

static int compressible;

/* The word at index i; s is the random sequence's state, advanced on the random words only. */
static uint64_t word(size_t i, uint64_t *s) {
        size_t block = i / BLOCK_WORDS, w = i % BLOCK_WORDS;
        if (!compressible || w < RANDOM_WORDS)
                return next(s);
        return (uint64_t) block * 0x100000001ULL + (w % PATTERN_WORDS) * 0x0101010101010101ULL;
}

static int write_file(const char *path, const char *text) {
        char tmp[4096];
        snprintf(tmp, sizeof tmp, "%s.tmp", path);
        FILE *f = fopen(tmp, "we");
        if (!f)
                return -1;
        fputs(text, f);
        if (fclose(f) != 0)
                return -1;
        return rename(tmp, path);
}

int main(int argc, char **argv) {
        if (argc == 5 && strcmp(argv[4], "compressible") == 0)
                compressible = 1;
        else if (argc != 4 && !(argc == 5 && strcmp(argv[4], "random") == 0)) {
                fprintf(stderr, "usage: memhog MIB READY_FILE RESULT_FILE [random|compressible]\n");
                return 2;
        }
        size_t words = (size_t) strtoul(argv[1], NULL, 10) * 1024 * 1024 / sizeof(uint64_t);
        sigset_t set, old;
        sigemptyset(&set);
        sigaddset(&set, SIGUSR1);
        sigprocmask(SIG_BLOCK, &set, &old);
        signal(SIGUSR1, on_usr1);

        uint64_t *m = mmap(NULL, words * sizeof(uint64_t), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
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
        write_file(argv[3], msg);
        return wrong ? 3 : 0;
}
