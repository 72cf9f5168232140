/* SPDX-License-Identifier: GPL-2.0-or-later */
/* zram's part of the plan: nodeswap's zram device (kept, swapped on again, or made), and the
 * zram devices and writeback files nodeswap made and no longer uses. */
#include "plan/zram.h"

#include "plan/context.h"
#include "plan/file.h"
#include "plan/placement.h"
#include "plan/zram-knobs.h"
#include "probe/zram.h"

/* The hint for an algorithm the kernel does not offer: the offered one nearest to a name asked
 * for, else the first offered. */
static char *algorithm_hint(char **wanted, char **offered, const char *have) {
        const char *near = NULL;
        for (char **w = wanted; w && *w && !near; w++)
                near = policy_suggest(*w, offered);
        if (near)
                return strdup_printf("did you mean %s? This kernel offers %s: write [Zram] Algorithm=%s", near, have,
                                     near);
        return strdup_printf("this kernel offers %s: write [Zram] Algorithm= with one of them, e.g. "
                             "Algorithm=%s", have, offered && offered[0] ? offered[0] : "lz4");
}

/* A new zram device as the policy wants it (zram-create), with algorithm chosen (NULL: left to the
 * device) and why. */
static int plan_zram_create(PlanContext *c, const char *algorithm, const char *why) {
        const Policy *p = c->p;
        const HostState *h = c->h;
        Plan *plan = c->plan;

        _cleanup_free_ char *knobs = zram_knobs_describe(p, algorithm);
        _cleanup_free_ char *want = knobs ? strdup_printf("%s, %s%s, priority %d%s%s", B(p->zram.size),
                                                  algorithm ?: "first offered of the preference list", knobs,
                                                  p->zram.priority, p->zram.mem_limit ? ", mem_limit " : "",
                                                  p->zram.mem_limit ? B(p->zram.mem_limit) : "") : NULL;
        if (!want)
                return -ENOMEM;
        Action *a = plan_add(plan, ACTION_ZRAM_CREATE, "zram", NULL, want, why);
        if (!a)
                return -ENOMEM;
        a->zram_create.size = p->zram.size;
        a->zram_create.mem_limit = p->zram.mem_limit;
        a->zram_create.priority = p->zram.priority;
        if (algorithm && !(a->zram_create.algorithm = strdup(algorithm)))
                return -ENOMEM;
        c->new_swap += swap_usable(p->zram.size, h->page_size);
        return 0;
}

/* zram takes a backing device only before it is initialised (backing_dev_store() refuses with
 * EBUSY after disksize, drivers/block/zram/zram_drv.c), and two devices cannot share the
 * Writeback= file: the device z of ours that holds it is swapped off and reset (zram-remove, which
 * takes its loop device or mapping away) before the new one is set up on the file. Make before
 * break: a bridge swap file beside the Writeback= file (plan_bridge_up(), as a swap file's
 * replacement uses) holds z's pages meanwhile, encrypted unless WritebackEncrypt=no, and goes once
 * the new device is on. Without room for the bridge apply refuses, and --force swaps z off without
 * one (its pages must fit in memory). A run stopped between two steps leaves swap on (z, the bridge
 * or the new device), and the next run goes on from what it finds: a bridge that is on is kept and
 * taken down after the new device. */
static int plan_zram_rebuild(PlanContext *c, const ZramDevice *z, const char *algorithm, const char *why) {
        const Policy *p = c->p;
        const HostState *h = c->h;
        _cleanup_free_ char *dev = strdup_printf("/dev/zram%d", z->id);
        _cleanup_free_ char *bridge = swapfile_bridge_path(p->zram.writeback);
        if (!dev || !bridge)
                return -ENOMEM;
        const SwapDevice *on = z->swap_on ? host_find_swap(h, dev) : NULL;
        const SwapDevice *bridge_on = host_find_swap(h, bridge);
        bool bridged = false;
        if (on) {
                uint64_t size = swapfile_bridge_size(on->used, h->page_size);
                uint64_t need = bridge_on ? 0 : size + swapfile_margin(size);
                bridged = h->writeback.fs_free >= need;
                if (!bridged && !c->o->force) {
                        c->keep[on - h->swaps] = KEEP_ON;       /* stays as it is */
                        return plan_find(c->plan, VERDICT_SWAPFILE_NO_SPACE, p, POLICY_KEY_ZRAM_WRITEBACK,
                                         p->zram.writeback,
                                         strdup("run 'nodeswap apply --force' to swap the zram device off first "
                                                "(its pages must fit in memory), or free space"),
                                         "%s: not enough room beside %s for the bridge that carries the pages of "
                                         "%s while it is reset for its new backing device (need %s, have %s)",
                                         bridge, p->zram.writeback, dev, B(need), B(h->writeback.fs_free));
                }
                if (!bridged && on->used > h->mem_available &&
                    plan_find(c->plan, VERDICT_SWAPOFF_FORCED, p, -1, NULL,
                              strdup("watch for the OOM killer; without --force apply refuses this"),
                              "--force: swapping %s off without a bridge although %s of pages may not fit in "
                              "memory (MemAvailable %s)",
                              dev, B(on->used), B(h->mem_available)) < 0)
                        return -ENOMEM;
                if (bridged) {
                        int r = plan_bridge_up(c, bridge, size, p->zram.priority, p->zram.writeback_encrypt,
                                               "zram's pages",
                                               "the zram device's pages while it is reset for its new backing "
                                               "device (zram takes one only before it is initialised)");
                        if (r < 0)
                                return r;
                } else if (bridge_on)
                        c->keep[bridge_on - h->swaps] = KEEP_REPLACED;
                c->keep[on - h->swaps] = KEEP_REPLACED;
                _cleanup_free_ char *now = strdup_printf("on, %s used, priority %d", B(on->used), on->priority);
                if (!now)
                        return -ENOMEM;
                Action *a = plan_add(c->plan, ACTION_SWAPOFF, dev, now, "off",
                                     bridged ? "rebuilt on the writeback file: its pages go to memory or to the bridge"
                                             : "rebuilt on the writeback file, --force without room for a bridge: its "
                                               "pages go to memory");
                if (!a)
                        return -ENOMEM;
                a->swapoff.used = on->used;
        } else if (bridge_on)
                /* z is off already (a run stopped after its swapoff): the bridge goes after the new
                 * device, below, and not in plan_swapoff() too. */
                c->keep[bridge_on - h->swaps] = KEEP_REPLACED;
        const char *wb = !z->wb.backing_dev ? "none"
                         : streq_ptr(z->wb.backing_dev, h->writeback.mapping) ? "the file, encrypted"
                                                                            : "the file, in clear";
        _cleanup_free_ char *now = strdup_printf("initialised, writeback to %s", wb);
        if (!now)
                return -ENOMEM;
        Action *a = plan_add(c->plan, ACTION_ZRAM_REMOVE, dev, now, "removed",
                             "reset for a new device on its writeback file, as the policy has it");
        if (!a)
                return -ENOMEM;
        a->zram_remove.zram_id = z->id;
        int r = plan_zram_create(c, algorithm, why);
        if (r < 0 || (!bridged && !bridge_on))
                return r;
        return plan_bridge_down(c, bridge, bridge_on ? bridge_on->encrypted : p->zram.writeback_encrypt,
                                "the new zram device");
}

/* The swap devices nodeswap's backends want to keep, and the actions to bring them up. */
int plan_zram(PlanContext *c) {
        const Policy *p = c->p;
        const HostState *h = c->h;
        Plan *plan = c->plan;

        if (!h->zram_control && h->n_zrams == 0)
                return plan_find(plan, VERDICT_ZRAM_UNAVAILABLE, p, POLICY_KEY_SWAP_BACKEND, NULL,
                                 strdup("load the zram module (modprobe zram) or use [Swap] Backend=file"),
                                 "[Zram] is wanted but this kernel has no zram (/sys/class/zram-control is "
                                 "missing)");

        /* The kernel's offer is the same for every device; read it off any. */
        char **offered = NULL;
        for (size_t i = 0; i < h->n_zrams; i++)
                if (h->zrams[i].algorithms_offered && h->zrams[i].algorithms_offered[0]) {
                        offered = h->zrams[i].algorithms_offered;
                        break;
                }
        const char *algorithm = NULL;
        _cleanup_free_ char *why = NULL;
        if (offered) {
                int r = zram_pick_algorithm(offered, p->zram.algorithms, &algorithm, &why);
                if (r == -ENOENT) {
                        _cleanup_free_ char *want = strv_join(p->zram.algorithms, " ");
                        _cleanup_free_ char *have = strv_join(offered, " ");
                        if (!want || !have)
                                return -ENOMEM;
                        return plan_find(plan, VERDICT_ZRAM_ALGORITHM_UNAVAILABLE, p, POLICY_KEY_ZRAM_ALGORITHM,
                                         want, algorithm_hint(p->zram.algorithms, offered, have),
                                         "[Zram] Algorithm=%s: none of these is offered by this kernel, which offers '%s'",
                                         want, have);
                }
                if (r < 0)
                        return r;
        }
        int k = zram_knobs_check(p, h, algorithm, &plan->findings);
        if (k != 0)
                return k < 0 ? k : 0;

        /* One of our devices that already matches? */
        const SwapDevice *match = NULL;
        for (size_t i = 0; i < h->n_swaps; i++) {
                const SwapDevice *s = &h->swaps[i];
                if (s->kind != SWAP_KIND_ZRAM || s->owner != SWAP_OWNER_NODESWAP || match)
                        continue;
                const ZramDevice *z = host_find_zram(h, s->zram_id);
                if (!z || z->disksize != p->zram.size || s->priority != p->zram.priority ||
                    z->mem_limit != p->zram.mem_limit || !algorithm || !streq_ptr(z->algorithm, algorithm) ||
                    !zram_knobs_match(p, h, z))
                        continue;
                match = s;
                c->keep[i] = KEEP_ON;
        }
        if (match)
                return 0;

        /* Ours, initialised with the wanted settings but swapped off (someone ran swapoff)? */
        for (size_t i = 0; i < h->n_zrams; i++) {
                const ZramDevice *z = &h->zrams[i];
                if (!z->ours || z->swap_on || z->disksize != p->zram.size || z->mem_limit != p->zram.mem_limit ||
                    !algorithm || !streq_ptr(z->algorithm, algorithm) || !zram_knobs_match(p, h, z))
                        continue;
                _cleanup_free_ char *dev = strdup_printf("/dev/zram%d", z->id);
                _cleanup_free_ char *want = strdup_printf("on, priority %d", p->zram.priority);
                if (!dev || !want)
                        return -ENOMEM;
                Action *a = plan_add(plan, ACTION_SWAPON, dev, "off", want,
                                     "nodeswap's zram device is initialised but not swapped on");
                if (!a)
                        return -ENOMEM;
                a->swapon.priority = p->zram.priority;
                c->new_swap += swap_usable(z->disksize, h->page_size);
                return 0;
        }

        /* A device of ours on the Writeback= file that is not what the policy wants (another size or
         * algorithm, or WritebackEncrypt= changed): rebuilt on the file (plan_zram_rebuild()). */
        for (size_t i = 0; i < h->n_zrams; i++) {
                const ZramDevice *z = &h->zrams[i];
                if (z->ours && zram_knobs_holds_file(p, h, z))
                        return plan_zram_rebuild(c, z, algorithm, why);
        }
        return plan_zram_create(c, algorithm, why);
}

/* nodeswap's own zram devices that are not swapped on and that the plan does not swap on again:
 * left behind by a run that stopped between swapoff and the removal (a held device, EBUSY from
 * reset, a kill). Nothing else would ever remove them. */
static int plan_stale_zram(PlanContext *c) {
        const HostState *h = c->h;
        if (!c->o->revert && !c->p->backend_set)
                return 0;
        for (size_t i = 0; i < h->n_zrams; i++) {
                const ZramDevice *z = &h->zrams[i];
                if (!z->ours || z->swap_on)
                        continue;
                _cleanup_free_ char *dev = strdup_printf("/dev/zram%d", z->id);
                if (!dev)
                        return -ENOMEM;
                if (plan_find_action(c->plan, ACTION_SWAPON, dev) >= 0 || plan_find_action(c->plan, ACTION_ZRAM_REMOVE, dev) >= 0)
                        continue;
                Action *a = plan_add(c->plan, ACTION_ZRAM_REMOVE, dev, z->disksize > 0 ? "initialised, off" : "reset",
                                     "removed", "a zram device nodeswap created and no longer uses");
                if (!a)
                        return -ENOMEM;
                a->zram_remove.zram_id = z->id;
        }
        return 0;
}

/* Whether the plan lets go of loop device `loop`: it removes the zram device of nodeswap's whose
 * backing device it is (the reset drops zram's hold, and autoclear detaches it). */
static bool plan_frees_loop(const PlanContext *c, const char *loop) {
        for (size_t i = 0; i < c->plan->n_actions; i++) {
                const Action *a = &c->plan->actions[i];
                const ZramDevice *z = a->kind == ACTION_ZRAM_REMOVE ? host_find_zram(c->h, a->zram_remove.zram_id) : NULL;
                if (z && streq_ptr(z->wb.backing_dev, loop))
                        return true;
        }
        return false;
}

/* The [Zram] Writeback= files nodeswap created (the state's writeback_file= records), as
 * plan_recorded_files() does for swap files: apply deletes one the policy's Writeback= no longer
 * names once no loop device is on it (after the zram device that held it is removed), revert
 * --purge deletes them all, again after the device. The file the policy's Writeback= names stays
 * even when Backend= no longer has zram: only revert --purge deletes it. A file is deleted only
 * while it is a regular file (a symlink is never followed); a record whose file is gone is
 * forgotten by execute. A file nodeswap did not make is never recorded, so never deleted. */
static int plan_writeback_files(PlanContext *c) {
        const HostState *h = c->h;
        if (c->o->revert ? !c->o->purge : !c->p->backend_set)
                return 0;
        for (size_t i = 0; i < h->n_recorded_wb_files; i++) {
                const RecordedWritebackFile *f = &h->recorded_wb_files[i];
                if (!f->exists || (!c->o->revert && streq_ptr(f->path, c->p->zram.writeback)))
                        continue;
                if (plan_find_action(c->plan, ACTION_FILE_REMOVE, f->path) >= 0)
                        continue;
                bool held = f->loop_device && !plan_frees_loop(c, f->loop_device);
                if (!f->is_regular || held) {
                        int r = plan_find(c->plan, VERDICT_SWAPFILE_RECORD_LEFT_ALONE, c->p, -1, NULL,
                                          strdup_printf("look at %s and delete it yourself if it is not needed, then "
                                                        "run nodeswap apply (it forgets a record whose file is gone)",
                                                        f->path),
                                          "%s: recorded as a zram writeback file nodeswap created, but it %s%s; "
                                          "left alone", f->path,
                                          !f->is_regular ? "is no longer a regular file (a symlink?)"
                                                         : "still backs ",
                                          !f->is_regular ? "" : f->loop_device);
                        if (r < 0)
                                return r;
                        continue;
                }
                Action *a = plan_add(c->plan, ACTION_FILE_REMOVE, f->path,
                                     f->loop_device ? "present, its loop device goes with the zram device above"
                                                    : "present, not in use",
                                     "deleted",
                                     c->o->revert ? "revert --purge: zram's writeback file, created by nodeswap"
                                                  : "zram's writeback file, created by nodeswap, no longer the "
                                                    "policy's [Zram] Writeback=");
                if (!a)
                        return -ENOMEM;
                a->file_remove.role = ACTION_FILE_WRITEBACK;
        }
        return 0;
}

int plan_zram_leftovers(PlanContext *c) {
        int r = plan_stale_zram(c);
        if (r >= 0)
                r = plan_writeback_files(c);
        return r;
}
