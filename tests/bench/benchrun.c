/* SPDX-License-Identifier: GPL-2.0-or-later */
/* benchrun: time a command the way a service manager runs it, and nothing else.
 *
 *   benchrun --name NAME --runs N [--warmup W] [--prepare SH] [--after SH]
 *            [--stat /sys/block/loopN/stat --sync DIR] [--baseline PROGRAM]
 *            --out FILE.json -- CMD ARGS [::: CMD ARGS ...]
 *
 * Each run: --prepare (through /bin/sh -c, untimed), then the timed part: every CMD of the
 * sequence is forked and exec'd directly (no shell) in order, as systemd runs ExecStart= lines,
 * stopping at the first failure; then --after (untimed; a non-zero exit fails the benchmark).
 * The clock (CLOCK_MONOTONIC) starts just before the first fork and stops when the last child
 * has been reaped. Recorded per run: wall time, the largest ru_maxrss of the children (KiB), and
 * with --stat the sectors written to that block device (field 7 of its stat file) times 512,
 * read after syncfs(DIR) before and after the run, so write-back that a tool leaves behind is
 * counted too; with --baseline, the time of PROGRAM (e.g. /bin/true) run alone just before the
 * timed part, so that the cost of one process start can be subtracted run by run, pairs taken
 * under the same load; and the page faults and CPU time (user + system) of the children. Warm-up runs are done the same way and not recorded. A command that fails makes
 * benchrun fail: a benchmark of something that did not work is no benchmark.
 * Children's stdout and stderr go to NAME.log next to FILE.json. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static uint64_t now_ns(void) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t) ts.tv_sec * 1000000000ULL + (uint64_t) ts.tv_nsec;
}

static int run_shell(const char *script, int log_fd, int run) {
        if (!script)
                return 0;
        pid_t pid = fork();
        if (pid < 0)
                return -errno;
        if (pid == 0) {
                char idx[16];
                snprintf(idx, sizeof idx, "%d", run);
                setenv("BENCH_RUN", idx, 1);
                dup2(log_fd, STDOUT_FILENO);
                dup2(log_fd, STDERR_FILENO);
                execl("/bin/sh", "sh", "-ec", script, (char *) NULL);
                _exit(127);
        }
        int status;
        if (waitpid(pid, &status, 0) < 0)
                return -errno;
        return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -EIO;
}

static int read_sectors_written(const char *stat_path, const char *sync_dir, uint64_t *ret) {
        int fd = open(sync_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0)
                return -errno;
        int r = syncfs(fd);
        close(fd);
        if (r < 0)
                return -errno;
        FILE *f = fopen(stat_path, "re");
        if (!f)
                return -errno;
        uint64_t v[7];
        int n = fscanf(f, "%" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64,
                       &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6]);
        fclose(f);
        if (n != 7)
                return -EINVAL;
        *ret = v[6];
        return 0;
}

typedef struct Sample {
        uint64_t wall_ns;
        long maxrss_kib;
        long minflt;            /* page faults of all the children together */
        uint64_t cpu_ns;        /* user + system CPU time of all the children together */
        int64_t bytes_written;  /* -1: not measured */
        uint64_t baseline_ns;   /* the --baseline command, timed right before this run */
} Sample;

/* Runs the ":::"-separated sequence argv[0..argc). Returns 0 or -EIO (a command failed). */
static int run_sequence(int argc, char **argv, int log_fd, uint64_t *ret_ns, long *ret_maxrss, long *ret_minflt,
                        uint64_t *ret_cpu_ns) {
        long maxrss = 0, minflt = 0;
        uint64_t cpu = 0;
        uint64_t start = now_ns();
        for (int i = 0; i < argc;) {
                int j = i;
                while (j < argc && strcmp(argv[j], ":::") != 0)
                        j++;
                char *saved = argv[j < argc ? j : argc];
                argv[j < argc ? j : argc] = NULL;
                pid_t pid = fork();
                if (pid == 0) {
                        dup2(log_fd, STDOUT_FILENO);
                        dup2(log_fd, STDERR_FILENO);
                        execvp(argv[i], argv + i);
                        _exit(127);
                }
                argv[j < argc ? j : argc] = saved;
                if (pid < 0)
                        return -errno;
                int status;
                struct rusage ru;
                if (wait4(pid, &status, 0, &ru) < 0)
                        return -errno;
                if (ru.ru_maxrss > maxrss)
                        maxrss = ru.ru_maxrss;
                minflt += ru.ru_minflt + ru.ru_majflt;
                cpu += (uint64_t) (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000000ULL +
                       (uint64_t) (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000ULL;
                if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
                        dprintf(log_fd, "benchrun: '%s' failed (status %d)\n", argv[i], status);
                        return -EIO;
                }
                i = j + 1;
        }
        *ret_ns = now_ns() - start;
        *ret_maxrss = maxrss;
        *ret_minflt = minflt;
        *ret_cpu_ns = cpu;
        return 0;
}

static void json_string(FILE *f, const char *s) {
        fputc('"', f);
        for (; *s; s++) {
                if (*s == '"' || *s == '\\')
                        fprintf(f, "\\%c", *s);
                else if ((unsigned char) *s < 0x20)
                        fprintf(f, "\\u%04x", *s);
                else
                        fputc(*s, f);
        }
        fputc('"', f);
}

int main(int argc, char **argv) {
        const char *name = NULL, *prepare = NULL, *after = NULL, *stat_path = NULL, *sync_dir = NULL,
                   *out = NULL, *baseline = NULL;
        int runs = 15, warmup = 2, i;

        for (i = 1; i < argc; i++) {
                const char *a = argv[i];
                const char *v = i + 1 < argc ? argv[i + 1] : NULL;
                if (strcmp(a, "--") == 0) {
                        i++;
                        break;
                }
                if (!v) {
                        fprintf(stderr, "benchrun: %s needs a value\n", a);
                        return 2;
                }
                if (strcmp(a, "--name") == 0)
                        name = v;
                else if (strcmp(a, "--runs") == 0)
                        runs = atoi(v);
                else if (strcmp(a, "--warmup") == 0)
                        warmup = atoi(v);
                else if (strcmp(a, "--prepare") == 0)
                        prepare = v;
                else if (strcmp(a, "--after") == 0)
                        after = v;
                else if (strcmp(a, "--stat") == 0)
                        stat_path = v;
                else if (strcmp(a, "--sync") == 0)
                        sync_dir = v;
                else if (strcmp(a, "--out") == 0)
                        out = v;
                else if (strcmp(a, "--baseline") == 0)
                        baseline = v;
                else {
                        fprintf(stderr, "benchrun: unknown option %s\n", a);
                        return 2;
                }
                i++;
        }
        if (!name || !out || i >= argc || runs < 1 || warmup < 0 || (!stat_path != !sync_dir)) {
                fprintf(stderr, "usage: benchrun --name NAME --runs N [--warmup W] [--prepare SH] [--after SH] "
                                "[--stat FILE --sync DIR] --out FILE -- CMD [ARGS] [::: CMD [ARGS]]...\n");
                return 2;
        }
        int cargc = argc - i;
        char **cargv = argv + i;

        char logp[4096];
        snprintf(logp, sizeof logp, "%.*s%s.log", (int) (strrchr(out, '/') ? strrchr(out, '/') - out + 1 : 0), out,
                 name);
        int log_fd = open(logp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        if (log_fd < 0) {
                fprintf(stderr, "benchrun: cannot open %s: %m\n", logp);
                return 1;
        }

        Sample *s = calloc((size_t) runs, sizeof(Sample));
        if (!s)
                return 1;
        for (int k = -warmup; k < runs; k++) {
                uint64_t before = 0, after_sectors = 0, ns = 0;
                long rss = 0, flt = 0;
                uint64_t cpu = 0;
                dprintf(log_fd, "--- %s run %d\n", name, k);
                if (run_shell(prepare, log_fd, k) < 0) {
                        fprintf(stderr, "benchrun: %s: --prepare failed in run %d (see %s)\n", name, k, logp);
                        return 1;
                }
                uint64_t base_ns = 0;
                if (baseline) {
                        char *bargv[] = { (char *) baseline, NULL };
                        long brss, bflt;
                        uint64_t bcpu;
                        if (run_sequence(1, bargv, log_fd, &base_ns, &brss, &bflt, &bcpu) < 0) {
                                fprintf(stderr, "benchrun: %s: the baseline failed in run %d\n", name, k);
                                return 1;
                        }
                }
                if (stat_path && read_sectors_written(stat_path, sync_dir, &before) < 0) {
                        fprintf(stderr, "benchrun: cannot read %s: %m\n", stat_path);
                        return 1;
                }
                if (run_sequence(cargc, cargv, log_fd, &ns, &rss, &flt, &cpu) < 0) {
                        fprintf(stderr, "benchrun: %s: the command failed in run %d (see %s)\n", name, k, logp);
                        return 1;
                }
                if (stat_path && read_sectors_written(stat_path, sync_dir, &after_sectors) < 0) {
                        fprintf(stderr, "benchrun: cannot read %s: %m\n", stat_path);
                        return 1;
                }
                if (run_shell(after, log_fd, k) < 0) {
                        fprintf(stderr, "benchrun: %s: --after check failed in run %d (see %s)\n", name, k, logp);
                        return 1;
                }
                if (k >= 0) {
                        s[k].wall_ns = ns;
                        s[k].maxrss_kib = rss;
                        s[k].minflt = flt;
                        s[k].cpu_ns = cpu;
                        s[k].baseline_ns = base_ns;
                        s[k].bytes_written = stat_path ? (int64_t) ((after_sectors - before) * 512) : -1;
                }
        }

        FILE *f = fopen(out, "we");
        if (!f) {
                fprintf(stderr, "benchrun: cannot write %s: %m\n", out);
                return 1;
        }
        fprintf(f, "{\"name\": ");
        json_string(f, name);
        fprintf(f, ", \"warmup\": %d, \"command\": ", warmup);
        size_t len = 0;
        for (int k = 0; k < cargc; k++)
                len += strlen(cargv[k]) + 1;
        char *cmd = calloc(1, len + 1);
        for (int k = 0; k < cargc; k++) {
                strcat(cmd, cargv[k]);
                if (k + 1 < cargc)
                        strcat(cmd, " ");
        }
        json_string(f, cmd);
        free(cmd);
        fprintf(f, ",\n \"wall_ns\": [");
        for (int k = 0; k < runs; k++)
                fprintf(f, "%s%" PRIu64, k ? ", " : "", s[k].wall_ns);
        fprintf(f, "],\n \"maxrss_kib\": [");
        for (int k = 0; k < runs; k++)
                fprintf(f, "%s%ld", k ? ", " : "", s[k].maxrss_kib);
        fprintf(f, "],\n \"page_faults\": [");
        for (int k = 0; k < runs; k++)
                fprintf(f, "%s%ld", k ? ", " : "", s[k].minflt);
        fprintf(f, "],\n \"cpu_ns\": [");
        for (int k = 0; k < runs; k++)
                fprintf(f, "%s%" PRIu64, k ? ", " : "", s[k].cpu_ns);
        fprintf(f, "],\n \"baseline_ns\": ");
        if (baseline) {
                fprintf(f, "[");
                for (int k = 0; k < runs; k++)
                        fprintf(f, "%s%" PRIu64, k ? ", " : "", s[k].baseline_ns);
                fprintf(f, "]");
        } else
                fprintf(f, "null");
        fprintf(f, ",\n \"bytes_written\": ");
        if (stat_path) {
                fprintf(f, "[");
                for (int k = 0; k < runs; k++)
                        fprintf(f, "%s%" PRId64, k ? ", " : "", s[k].bytes_written);
                fprintf(f, "]");
        } else
                fprintf(f, "null");
        fprintf(f, "}\n");
        if (fclose(f) != 0)
                return 1;
        free(s);
        return 0;
}
