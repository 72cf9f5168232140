/* SPDX-License-Identifier: GPL-2.0-or-later */
/* hotcold HOT_MIB COLD_MIB PASSES: a workload with a hot and a cold part, for nodeswap trial
 * (e2e scenario trial, issue 27).
 *
 * It fills COLD_MIB MiB of anonymous memory once (the cold part), then HOT_MIB MiB (the hot
 * part), then makes PASSES passes over the hot part, each pass reading every word, checking it
 * against what the pass before wrote and writing the pass's own value. At the end it reads the
 * cold part back and checks every word, and checks the hot part against the last pass. It prints
 * what it did and exits 0 when every word was intact, 3 when any was not (the count of wrong
 * words is printed), 2 on a usage error, 1 when it cannot map its memory.
 *
 * In a memory cgroup: without swap it needs about HOT + COLD MiB (anonymous memory cannot be
 * reclaimed, so at a smaller memory.max the kernel's OOM killer ends it as soon as the fill
 * outgrows the limit); with swap it needs about HOT MiB of memory, since the cold part, filled
 * first and untouched until the end, ages on the kernel's LRU lists and is what reclaim swaps
 * out. With memory.swap.max about memory.max (LimitedSwap on a node whose SwapTotal is its
 * MemTotal), memory and swap together hold about twice the limit, so for HOT <= COLD the smallest
 * limit it finishes at with swap is about half the one without.
 *
 * The data: in every 4 KiB block the first quarter is pseudo-random (splitmix64 of the word's
 * index and a tag) and the rest a 128-byte pattern that depends on the block's number and the
 * tag, the idea of memhog.c's "compressible" mode: zstd and lz4 compress such a block about 3:1,
 * no block is one byte repeated (zram stores those as "same" pages without compressing) and no
 * two blocks are equal. Unlike memhog's sequential xorshift, every word is a function of its
 * index, so any pass can check any word without replaying the sequence. The tag is 0 for the
 * cold part and the pass number (from 1) for the hot part, so every pass writes new data and
 * the hot pages are dirty again after every pass. The output is the same for the same arguments. */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define BLOCK_WORDS (4096 / sizeof(uint64_t))
#define RANDOM_WORDS (BLOCK_WORDS / 4)
#define PATTERN_WORDS 16
#define MAX_MIB (1024 * 1024)   /* 1 TiB: far beyond any test, small enough not to overflow */
#define MAX_PASSES 1000000

static uint64_t splitmix64(uint64_t x) {
        x += 0x9E3779B97F4A7C15ULL;
        x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
        x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
        return x ^ (x >> 31);
}

/* The word at index i of a part, for tag: part is 'c' or 'h', so that the two parts differ. */
static uint64_t word(uint64_t i, uint64_t part, uint64_t tag) {
        uint64_t block = i / BLOCK_WORDS, w = i % BLOCK_WORDS;
        if (w < RANDOM_WORDS)
                return splitmix64(i ^ (part << 56) ^ (tag << 40));
        return (block * 0x100000001ULL + (w % PATTERN_WORDS) * 0x0101010101010101ULL) ^
                (part << 56) ^ (tag << 32);
}

static int parse(const char *s, unsigned long max, unsigned long *ret) {
        char *end;
        errno = 0;
        if (*s < '0' || *s > '9')
                return -1;
        unsigned long v = strtoul(s, &end, 10);
        if (errno || *end || v > max)
                return -1;
        *ret = v;
        return 0;
}

static uint64_t *map(size_t words, const char *what) {
        if (words == 0)
                return NULL;
        uint64_t *m = mmap(NULL, words * sizeof(uint64_t), PROT_READ | PROT_WRITE,
                           MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (m == MAP_FAILED) {
                fprintf(stderr, "hotcold: cannot map the %s part (%zu bytes): %s\n", what,
                        words * sizeof(uint64_t), strerror(errno));
                exit(1);
        }
        return m;
}

int main(int argc, char **argv) {
        unsigned long hot_mib, cold_mib, passes;
        if (argc != 4 || parse(argv[1], MAX_MIB, &hot_mib) < 0 || parse(argv[2], MAX_MIB, &cold_mib) < 0 ||
            parse(argv[3], MAX_PASSES, &passes) < 0) {
                fprintf(stderr, "usage: hotcold HOT_MIB COLD_MIB PASSES (MiB up to %d, passes up to %d)\n",
                        MAX_MIB, MAX_PASSES);
                return 2;
        }
        setvbuf(stdout, NULL, _IOLBF, 0);
        size_t hot_words = (size_t) hot_mib * 1024 * 1024 / sizeof(uint64_t);
        size_t cold_words = (size_t) cold_mib * 1024 * 1024 / sizeof(uint64_t);
        printf("hotcold: hot %lu MiB, cold %lu MiB, %lu passes\n", hot_mib, cold_mib, passes);

        /* cold first: the oldest pages, the ones reclaim takes when the hot part needs room */
        uint64_t *cold = map(cold_words, "cold");
        for (size_t i = 0; i < cold_words; i++)
                cold[i] = word(i, 'c', 0);
        printf("hotcold: filled the cold part (%zu words)\n", cold_words);
        uint64_t *hot = map(hot_words, "hot");
        for (size_t i = 0; i < hot_words; i++)
                hot[i] = word(i, 'h', 0);
        printf("hotcold: filled the hot part (%zu words)\n", hot_words);

        uint64_t wrong_hot = 0, wrong_cold = 0;
        for (unsigned long p = 1; p <= passes; p++) {
                uint64_t wrong = 0;
                for (size_t i = 0; i < hot_words; i++) {
                        if (hot[i] != word(i, 'h', p - 1))
                                wrong++;
                        hot[i] = word(i, 'h', p);
                }
                printf("hotcold: pass %lu of %lu over the hot part: %" PRIu64 " words wrong\n", p, passes, wrong);
                wrong_hot += wrong;
        }
        for (size_t i = 0; i < hot_words; i++)
                if (hot[i] != word(i, 'h', passes))
                        wrong_hot++;
        for (size_t i = 0; i < cold_words; i++)
                if (cold[i] != word(i, 'c', 0))
                        wrong_cold++;
        if (wrong_hot || wrong_cold) {
                printf("hotcold: corrupt: %" PRIu64 " hot and %" PRIu64 " cold words wrong\n", wrong_hot, wrong_cold);
                return 3;
        }
        printf("hotcold: ok: %zu hot words checked %lu times, %zu cold words checked once\n",
               hot_words, passes + 1, cold_words);
        return 0;
}
