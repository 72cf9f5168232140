/* SPDX-License-Identifier: GPL-2.0-or-later */
/* memhog MIB READY_FILE RESULT_FILE: a process whose memory must survive a swap backend switch.
 * Fills MIB MiB of anonymous memory with a pseudo-random sequence (incompressible: zram keeps
 * every page at full size, the worst case for the switch), writes "ready" to READY_FILE, and
 * waits for SIGUSR1. Then it reads all of its memory back and compares every word with the
 * sequence regenerated from the seed, writes "ok WORDS" or "corrupt WORDS_WRONG" to RESULT_FILE
 * and exits 0 or 3. Run inside a memory cgroup whose limit is below MIB, most of it sits in swap
 * while it waits. */
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
        if (argc != 4) {
                fprintf(stderr, "usage: memhog MIB READY_FILE RESULT_FILE\n");
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
                m[i] = next(&s);
        if (write_file(argv[2], "ready\n") < 0) {
                perror(argv[2]);
                return 1;
        }
        while (!go)
                sigsuspend(&old);

        size_t wrong = 0;
        s = 0x9E3779B97F4A7C15ULL;
        for (size_t i = 0; i < words; i++)
                if (m[i] != next(&s))
                        wrong++;
        char msg[64];
        snprintf(msg, sizeof msg, "%s %zu\n", wrong ? "corrupt" : "ok", wrong ? wrong : words);
        write_file(argv[3], msg);
        return wrong ? 3 : 0;
}
