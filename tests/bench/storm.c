/* SPDX-License-Identifier: GPL-2.0-or-later */
/* storm TARGET_MIB RATE_MIB_S HOLD_S hot|cold random|compressible [SEED]: a memory stressor for
 * the swap storm on the real node (e2e scenario kube, issue 38 item 4).
 *
 * Modelled on the stressor of Google's swap study for the Kubernetes blog ("Tuning Linux Swap for
 * Kubernetes: A Deep Dive", 2025; simple-swap-test in ajaysundark/k8s-memory-swap-stress-tests,
 * whose flags are a target, an increment, a delay between increments, a hold time and a hold
 * strategy, hot touching random locations or sleep); written here, no line of theirs.
 *
 * It maps TARGET_MIB MiB of anonymous memory and writes it one MiB at a time at RATE_MIB_S MiB/s
 * (0: as fast as it can), sleeping between MiBs to keep to the rate, then holds it for HOLD_S
 * seconds: hot keeps writing one word into pseudo-randomly chosen pages all the time (every page
 * of the target stays in use, so what the kernel swaps out comes back at once), cold sleeps.
 * random content is a pseudo-random sequence that no compressor shrinks; compressible is, in
 * every 4 KiB page, a pseudo-random first quarter and a 128-byte pattern that depends on the
 * page's number for the rest (memhog.c's scheme: zstd and lz4 compress it about 3:1, no page is
 * one byte repeated, no two pages are equal). SEED (default 1) seeds both sequences, so the same
 * arguments make the same memory and the same order of touches.
 *
 * It prints one line when the fill is done ("filled MIB MiB in MS ms: RATE MiB/s"), one when the
 * hold is ("held hot|cold S s: N touches"), and exits 0; 2 on a usage error, 1 when it cannot map
 * its memory. Over its cgroup's limit and swap it is the memory cgroup's OOM killer that ends it. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define MIB ((size_t) 1 << 20)
#define PAGE 4096
#define PAGE_WORDS (PAGE / sizeof(uint64_t))
#define RANDOM_WORDS (PAGE_WORDS / 4)
#define PATTERN_WORDS 16

static uint64_t next(uint64_t *s) {     /* xorshift64* */
        *s ^= *s >> 12;
        *s ^= *s << 25;
        *s ^= *s >> 27;
        return *s * 0x2545F4914F6CDD1DULL;
}

static double now(void) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (double) ts.tv_sec + (double) ts.tv_nsec / 1e9;
}

static void sleep_until(double t) {
        double d = t - now();
        if (d <= 0)
                return;
        struct timespec ts = { .tv_sec = (time_t) d, .tv_nsec = (long) ((d - (double) (time_t) d) * 1e9) };
        while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
                ;
}

static int parse(const char *s, unsigned long max, unsigned long *ret) {
        char *end;
        errno = 0;
        unsigned long v = strtoul(s, &end, 10);
        if (errno || end == s || *end || s[0] == '-' || v > max)
                return -1;
        *ret = v;
        return 0;
}

int main(int argc, char **argv) {
        unsigned long target, rate, hold, seed = 1;
        int hot, compressible;
        if ((argc != 6 && argc != 7) || parse(argv[1], 1UL << 20, &target) < 0 || target == 0 ||
            parse(argv[2], 1UL << 20, &rate) < 0 || parse(argv[3], 1UL << 30, &hold) < 0 ||
            (strcmp(argv[4], "hot") != 0 && strcmp(argv[4], "cold") != 0) ||
            (strcmp(argv[5], "random") != 0 && strcmp(argv[5], "compressible") != 0) ||
            (argc == 7 && (parse(argv[6], ~0UL, &seed) < 0 || seed == 0))) {
                fprintf(stderr, "usage: storm TARGET_MIB RATE_MIB_S HOLD_S hot|cold random|compressible [SEED]\n");
                return 2;
        }
        hot = strcmp(argv[4], "hot") == 0;
        compressible = strcmp(argv[5], "compressible") == 0;

        size_t bytes = (size_t) target * MIB, pages = bytes / PAGE;
        uint64_t *m = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (m == MAP_FAILED) {
                perror("storm: mmap");
                return 1;
        }

        uint64_t s = seed;
        double t0 = now();
        for (size_t mib = 0; mib < target; mib++) {
                for (size_t p = mib * (MIB / PAGE); p < (mib + 1) * (MIB / PAGE); p++) {
                        uint64_t *w = m + p * PAGE_WORDS;
                        for (size_t i = 0; i < PAGE_WORDS; i++)
                                w[i] = !compressible || i < RANDOM_WORDS
                                        ? next(&s)
                                        : (uint64_t) p * 0x100000001ULL + (i % PATTERN_WORDS) * 0x0101010101010101ULL;
                }
                if (rate > 0)
                        sleep_until(t0 + (double) (mib + 1) / (double) rate);
        }
        double filled = now() - t0;
        printf("filled %lu MiB in %.0f ms: %.1f MiB/s\n", target, filled * 1000, (double) target / (filled > 0 ? filled : 1e-9));
        fflush(stdout);

        unsigned long long touches = 0;
        double end = now() + (double) hold;
        if (hot) {
                /* one word into a pseudo-random page, in the random quarter for compressible content
                 * so that a touched page compresses as before; the clock read every 256 touches */
                while (now() < end)
                        for (int k = 0; k < 256; k++, touches++) {
                                uint64_t r = next(&s);
                                m[(r % pages) * PAGE_WORDS + (r >> 40) % RANDOM_WORDS] = r;
                        }
        } else
                sleep_until(end);
        printf("held %s %lu s: %llu touches\n", hot ? "hot" : "cold", hold, touches);
        fflush(stdout);
        return 0;
}
