/* SPDX-License-Identifier: GPL-2.0-or-later */
/* nodeswap writeback: what nodeswap-writeback.timer runs. For each zram device of nodeswap's:
 * mark idle pages, recompress them (RecompressAlgorithm=), write them back (Writeback=), within
 * the day's WritebackLimit=; only when WritebackInterval= has passed since the last run (--force:
 * now). */
#include <inttypes.h>
#include <json-c/json.h>

#include "cli/cli.h"
#include "execute/zram-writeback.h"
#include "report/log.h"
#include "shared/sd-dl.h"

static void print_text(int id, const WritebackRun *w, bool wb) {
        char a[FORMAT_BYTES_MAX], b[FORMAT_BYTES_MAX];
        if (!w->due) {
                printf("/dev/zram%d: not due yet (WritebackInterval=); --force runs it now\n", id);
                return;
        }
        if (w->waiting_for_idle) {
                printf("/dev/zram%d: every page marked idle (this kernel cannot tell a page's age); the pages "
                       "nobody touches until the next run are written back then\n", id);
                return;
        }
        printf("/dev/zram%d: idle pages%s", id, w->idle_by_age ? " (by age)" : " (untouched since the last run)");
        if (w->recompressed)
                fputs(" recompressed", stdout);
        if (wb)
                printf("%s %s written back", w->recompressed ? "," : "", format_bytes(a, sizeof a, w->written));
        if (w->limit_reached)
                fputs(", the day's WritebackLimit= is used up", stdout);
        else if (w->budget_left != UINT64_MAX)
                printf(", %s of the day's budget left", format_bytes(b, sizeof b, w->budget_left));
        fputs(w->budget_reset ? " (budget renewed)\n" : "\n", stdout);
}

static json_object *run_json(int id, const WritebackRun *w) {
        json_object *o = json_object_new_object();
        if (!o)
                return NULL;
        char dev[32];
        snprintf(dev, sizeof dev, "/dev/zram%d", id);
        json_object_object_add(o, "device", json_object_new_string(dev));
        json_object_object_add(o, "due", json_object_new_boolean(w->due));
        json_object_object_add(o, "idle_by_age", json_object_new_boolean(w->idle_by_age));
        json_object_object_add(o, "waiting_for_idle", json_object_new_boolean(w->waiting_for_idle));
        json_object_object_add(o, "recompressed", json_object_new_boolean(w->recompressed));
        json_object_object_add(o, "written_bytes", json_object_new_int64((int64_t) w->written));
        json_object_object_add(o, "budget_reset", json_object_new_boolean(w->budget_reset));
        json_object_object_add(o, "limit_reached", json_object_new_boolean(w->limit_reached));
        json_object_object_add(o, "budget_left_bytes",
                               w->budget_left == UINT64_MAX ? NULL : json_object_new_int64((int64_t) w->budget_left));
        return o;
}

int verb_writeback(const CliContext *c) {
        Policy p = {};
        HostState h = {};
        _cleanup_close_ int lock = -EBADF;
        int ret = cli_load(c, LOAD_APPLY, &p, &h, NULL);
        if (ret != EXIT_OK)
                return ret;

        json_object *arr = c->json ? json_object_new_array() : NULL;
        size_t n = 0;
        if (!(p.backends & BACKEND_ZRAM) || (!p.zram.writeback && !p.zram.recompress)) {
                if (!c->json && c->verbosity >= 0)
                        printf("The policy has no [Zram] Writeback= or RecompressAlgorithm=: nothing to do.\n");
                goto done;
        }
        if (cli_take_lock(c, &lock) < 0) {
                ret = EXIT_FAIL;
                goto done;
        }
        for (size_t i = 0; i < h.n_zrams; i++) {
                const ZramDevice *z = &h.zrams[i];
                if (!z->ours || z->disksize == 0)
                        continue;
                WritebackRun w;
                _cleanup_free_ char *reason = NULL;
                int r = zram_writeback_run(c->root, &p, z->id, c->force, &w, &reason);
                n++;
                if (r < 0) {
                        if (reason)
                                log_error("%s", reason);
                        else
                                log_error_errno(r, "Failed to run writeback on /dev/zram%d: %m", z->id);
                        ret = EXIT_FAIL;
                        continue;
                }
                if (arr)
                        json_object_array_add(arr, run_json(z->id, &w));
                else if (c->verbosity >= 0)
                        print_text(z->id, &w, p.zram.writeback != NULL);
        }
        if (n == 0 && !c->json && c->verbosity >= 0)
                printf("No zram device of nodeswap's is set up: nothing to do (run nodeswap apply).\n");
done:
        if (arr) {
                json_object *o = json_object_new_object();
                json_object_object_add(o, "version", json_object_new_int(NODESWAP_JSON_VERSION));
                json_object_object_add(o, "devices", arr);
                puts(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE));
                json_object_put(o);
        }
        host_state_done(&h);
        policy_done(&p);
        return ret;
}
