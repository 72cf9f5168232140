/* SPDX-License-Identifier: GPL-2.0-or-later */
/* replica idle|hot MIB [SECONDS]: a replica for nodeswap trial --density (issue 39), the two cases
 * the density trial tells apart.
 *
 *   idle  fills MIB MiB of anonymous memory once (the sandbox case of the Kubernetes blog's "Scaling
 *         Kubernetes Workloads with Node Swap": a session that loads its data and then waits), then
 *         touches none of it again: all of it goes cold, and reclaim can swap it all out.
 *   hot   fills MIB MiB, then makes pass after pass over all of it, each pass checking every word
 *         against what the pass before wrote and writing its own: every page stays hot, so swap
 *         buys it little (a page swapped out is needed again within one pass).
 *
 * Both print one line when the fill is done ("replica: loaded"), and then run until SIGTERM
 * (what nodeswap trial's stop sends: they exit 0 at once, so that stopping many swapped-out
 * replicas does not swap them all back in) or, with SECONDS, for that long, after which they check
 * every word and exit 0 when all were intact, 3 when any was not (the count is printed). A wrong
 * word in one of hot's passes ends it at once with 3. 2: a usage error, 1: no memory mapped.
 *
 * The data is hotcold.c's: in every 4 KiB block a quarter pseudo-random (splitmix64 of the word's
 * index and a tag), the rest a 128-byte pattern of the block's number and the tag; zstd and lz4
 * compress it about 3:1, and no block is one byte repeated (zram's "same" pages) or equal to
 * another. Every word is a function of its index, so the output is the same for the same
 * arguments and any word can be checked at any time. */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define BLOCK_WORDS (4096 / sizeof(uint64_t))
#define RANDOM_WORDS (BLOCK_WORDS / 4)
#define PATTERN_WORDS 16
#define MAX_MIB (1024 * 1024)
#define MAX_SECONDS (365UL * 24 * 3600)

static volatile sig_atomic_t stop = 0;

static void on_term(int sig) {
        (void) sig;
        stop = 1;
}

static uint64_t splitmix64(uint64_t x) {
        x += 0x9E3779B97F4A7C15ULL;
        x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
        x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
        return x ^ (x >> 31);
}

static uint64_t word(uint64_t i, uint64_t tag) {
        uint64_t block = i / BLOCK_WORDS, w = i % BLOCK_WORDS;
        if (w < RANDOM_WORDS)
                return splitmix64(i ^ (tag << 40));
        return (block * 0x100000001ULL + (w % PATTERN_WORDS) * 0x0101010101010101ULL) ^ (tag << 32);
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

static double now(void) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (double) ts.tv_sec + (double) ts.tv_nsec / 1e9;
}

int main(int argc, char **argv) {
        unsigned long mib, seconds = 0;
        int hot = argc >= 2 && strcmp(argv[1], "hot") == 0;
        if ((argc != 3 && argc != 4) || (!hot && strcmp(argv[1], "idle") != 0) || parse(argv[2], MAX_MIB, &mib) < 0 ||
            mib == 0 || (argc == 4 && (parse(argv[3], MAX_SECONDS, &seconds) < 0 || seconds == 0))) {
                fprintf(stderr, "usage: replica idle|hot MIB [SECONDS] (MIB 1 to %d)\n", MAX_MIB);
                return 2;
        }
        struct sigaction sa = { .sa_handler = on_term };
        sigemptyset(&sa.sa_mask);
        sigaction(SIGTERM, &sa, NULL);
        sigaction(SIGINT, &sa, NULL);
        setvbuf(stdout, NULL, _IOLBF, 0);

        size_t words = (size_t) mib * 1024 * 1024 / sizeof(uint64_t);
        uint64_t *m = mmap(NULL, words * sizeof(uint64_t), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (m == MAP_FAILED) {
                fprintf(stderr, "replica: cannot map %lu MiB: %s\n", mib, strerror(errno));
                return 1;
        }
        double t0 = now();
        for (size_t i = 0; i < words; i++)
                m[i] = word(i, 0);
        printf("replica: loaded %lu MiB (%s) in %.2f s\n", mib, hot ? "hot" : "idle", now() - t0);

        uint64_t tag = 0, passes = 0;
        double end = seconds ? now() + (double) seconds : 0;
        while (!stop && (!end || now() < end)) {
                if (!hot) {
                        /* idle: a sleep that SIGTERM cuts short */
                        struct timespec ts = { .tv_sec = 0, .tv_nsec = 200 * 1000 * 1000 };
                        nanosleep(&ts, NULL);
                        continue;
                }
                uint64_t wrong = 0;
                for (size_t i = 0; i < words && !stop; i++) {
                        if (m[i] != word(i, tag))
                                wrong++;
                        m[i] = word(i, tag + 1);
                }
                if (stop)
                        break;
                tag++;
                passes++;
                if (wrong) {
                        printf("replica: corrupt: %" PRIu64 " words wrong in pass %" PRIu64 "\n", wrong, passes);
                        return 3;
                }
        }
        if (stop) {
                printf("replica: stopped after %" PRIu64 " passes\n", passes);
                return 0;
        }
        uint64_t wrong = 0;
        for (size_t i = 0; i < words; i++)
                if (m[i] != word(i, tag))
                        wrong++;
        if (wrong) {
                printf("replica: corrupt: %" PRIu64 " of %zu words wrong at the end\n", wrong, words);
                return 3;
        }
        printf("replica: ok: %zu words intact after %" PRIu64 " passes\n", words, passes);
        return 0;
}
