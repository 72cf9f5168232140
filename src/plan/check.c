/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "plan/check.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdarg.h>

#include "plan/allowance.h"
#include "plan/kubelet.h"
#include "plan/noswap.h"
#include "plan/pressure.h"
#include "plan/reclaim.h"
#include "plan/zswap.h"

/* The rules, in the order check_rules() applies them. Each looks at Policy, HostState and the plan.
 * Their ids, severities and summaries are rows of the table in verdict.h.
 * Where the policy says what the node will be (apply writes it), the rule looks at the policy;
 * where it does not, at the node as it is.
 *
 * id                       severity  when
 * cgroup-v1-limitedswap    error     LimitedSwap (policy, else current drop-in) on cgroup v1 or hybrid
 * swap-controller-off-limitedswap
 *                          error     LimitedSwap, swap on or planned, and the kubelet's cgroup has no
 *                                    memory.swap.max: the kubelet sets no swap limit at all
 * swap-controller-off      warning   the same under NoSwap: no pod is kept out of swap
 * limitedswap-little-swap  warning   LimitedSwap and SwapTotal < MemTotal / 4: a container gets less
 *                                    than a quarter of its request as swap (or none at all)
 * swap-priority-shared     warning   two active swap areas with one priority (pages round-robin)
 * swappiness-zram-churn    warning   swappiness >= 180 (policy, else current), zram swap on or planned,
 *                                    and pods NoSwap (no LimitedSwap)
 * psi-off                  warning   /proc/pressure/memory absent and zram swap on or planned
 * psi-off-info             info      absent otherwise
 * memory-thrashing         warning   the node's or a pod's full memory stall (PSI full avg60) is at or
 *                                    above 10 % (plan/pressure.c says why), with the pods that stall
 *                                    most (status, check and metrics only: probe_pressure())
 * memory-stall-zram        info      beside it, on a node with zram swap: compression counts as stall
 * zswap-with-zram          warning   zswap on after the plan (the policy's Backend=zswap file, else
 *                                    what a revert writes back, else the kernel's) and zram swap
 *                                    planned or on and not swapped off by the plan: every page is
 *                                    compressed by zswap, then by zram
 * zram-too-large           warning   a zram device (the policy's planned one, or one that is not
 *                                    nodeswap's) whose disksize is above 2 × MemTotal, or above
 *                                    MemTotal with no mem_limit. At a typical 2:1..4:1 compression a
 *                                    full device of 2 × MemTotal needs all of RAM; without a
 *                                    mem_limit nothing stops it, and no pod's limit accounts for it.
 * swapfile-storage         error     the swap file sits on mmc or rotational storage that the
 *                                    policy's [File] Storage= does not allow (apply refuses)
 * swapfile-storage-wear    warning   ... that Storage= allows (flash wear, slow)
 * swapfile-not-regular     error     something other than a regular file at [File] Path=
 * swapfile-pagesize        warning   the file's swap header was made for another page size (apply
 *                                    rewrites it)
 * swapfile-permissions     error     the file is readable or writable by group/others, or not root's,
 *                                    and off (apply refuses to swap it on)
 * swapfile-permissions-active
 *                          warning   ... and on: apply does not swap it off (that would not make it
 *                                    safer); chmod/chown fix it
 * swapfile-unsafe-path     error     a symlink or a directory not root's or writable by group or
 *                                    others is on the path of the file (apply refuses to swap it on)
 * swapfile-not-swap        error     the file carries no swap signature, or more than one, and is
 *                                    off (apply refuses to overwrite it)
 * swapfile-holes           warning   the file is off and has holes or shared, compressed or inline
 *                                    extents, which the kernel refuses (apply makes it anew)
 * swapfile-cow             warning   the file is off, on btrfs without No_COW or with compression,
 *                                    which the kernel refuses (apply makes it anew)
 * kubelet-swap-stale       warning   the kubelet unit started before nodeswap's last swap change
 *                                    (unknown without systemd: no finding)
 * dropin-name              error     the kubelet drop-in's name does not end in .conf (ignored)
 * dropin-invalid           error     the drop-in exists without apiVersion or kind (the kubelet
 *                                    does not start), and the policy does not rewrite it
 * dropin-order             warning   the drop-in's name sorts before k3s's 00-k3s-defaults.conf
 * host-unreadable          warning   a state file this user may not read (non-root status, check)
 * kubelet-config-invalid   warning   another file the kubelet reads is not valid YAML, not a mapping,
 *                                    or lacks apiVersion/kind (the kubelet does not start)
 * kubelet-swap-behavior    info      every file that sets swapBehavior, in merge order, and the one
 *                                    that wins (when a file other than nodeswap's drop-in sets it)
 * dropin-overridden        error     the policy sets SwapBehavior= but a file merged after nodeswap's
 *                                    drop-in sets another (nodeswap apply refuses)
 * kubelet-fail-swap-on     error     the --fail-swap-on flag, or else the file that wins, says true
 *                                    while the node has (or the policy plans) swap: the kubelet does
 *                                    not start
 * kubelet-config-dir-missing
 *                          error     the --config-dir a flag names does not exist or is no directory
 *                                    (and apply does not create it): the kubelet does not start
 * kubelet-flag-invalid     error     --fail-swap-on (or --merge-default-eviction-settings) is no
 *                                    boolean, or an --eviction-hard pair has no '<': the kubelet
 *                                    does not start
 * memory-eviction-missing  warning   the node has (or the policy plans) swap, and the kubelet runs
 *                                    (after apply) without a hard memory.available threshold: a file
 *                                    or flag set evictionHard without it; not with MemoryEviction=off
 * memory-eviction-flag     error     LimitedSwap with MemoryEviction= set, and an --eviction-hard flag
 *                                    without memory.available (the drop-in cannot win over a flag)
 * conflict-unit-unmasked   warning   nodeswap manages swap (Backend= set), systemd runs, the node
 *                                    is not reverted, and a conflict unit exists unmasked
 * rpi-swap                 info      Raspberry Pi OS's rpi-swap is installed: its mechanism (from
 *                                    its configuration) and which of its units are masked
 * eviction-after-oom, eviction-before-swap, eviction-ramp, eviction-zram
 *                                    the kubelet's memory.available threshold among the watermarks
 *                                    the plan leaves: plan/reclaim-check.c, check_reclaim(), last
 */

#define K3S_DEFAULTS_DROPIN "00-k3s-defaults.conf"

/* A rule's finding. A rule whose id the plan reported already adds nothing: the plan's finding
 * says the same, closer to its cause. */
static int add(Findings *fs, Verdict v, char *message, char *hint) {
        return findings_add(fs, v, message, hint);
}

/* The same, naming the policy key behind it. */
static int add_at(Findings *fs, Verdict v, const Policy *p, PolicyKey k, const char *value, char *message,
                  char *hint) {
        return findings_add_at(fs, v, p, k, value, message, hint);
}

SwapBehavior check_swap_behavior(const Policy *p, const HostState *h) {
        if (p && p->swap_behavior != SWAP_BEHAVIOR_UNSET)
                return p->swap_behavior;
        KubeletEffective e;
        kubelet_config_effective(&h->kubelet, NULL, NULL, &e);
        return e.swap_behavior;
}

static bool zram_swap_on_or_planned(const Policy *p, const HostState *h) {
        if (p->backend_set && (p->backends & BACKEND_ZRAM))
                return true;
        for (size_t i = 0; i < h->n_swaps; i++)
                if (h->swaps[i].kind == SWAP_KIND_ZRAM)
                        return true;
        return false;
}

static const char *basename_of(const char *path) {
        const char *s = strrchr(path, '/');
        return s ? s + 1 : path;
}

static int check_cgroup(const Policy *p, const HostState *h, SwapBehavior b, Findings *fs) {
        if (b != SWAP_BEHAVIOR_LIMITED_SWAP || !cgroup_mode_is_v1(h->cgroup))
                return 0;
        Verdict v = VERDICT_CGROUP_V1_LIMITEDSWAP;
        return add_at(fs, v, p, POLICY_KEY_KUBELET_SWAP_BEHAVIOR,
                   p->swap_behavior != SWAP_BEHAVIOR_UNSET ? swap_behavior_to_string(p->swap_behavior) : NULL,
                   strdup_printf("LimitedSwap needs cgroup v2, and this node runs cgroup %s: since "
                                 "Kubernetes 1.35 the kubelet refuses to start, older ones give "
                                 "no container any swap",
                                 h->cgroup == CGROUP_HYBRID ? "v1 with a v2 hierarchy beside it (hybrid)" : "v1"),
                   strdup("boot with the unified hierarchy (systemd.unified_cgroup_hierarchy=1, and "
                          "cgroup_no_v1=all on older systems) or set [Kubelet] SwapBehavior=NoSwap"));
}

static int check_little_swap(const Policy *p, const HostState *h, const Plan *pl, SwapBehavior b, Findings *fs) {
        if (b != SWAP_BEHAVIOR_LIMITED_SWAP || h->mem_total == 0)
                return 0;
        /* The swap the node has once the plan ran (what the kubelet then reads). */
        uint64_t swap_total = pl && p->backend_set ? pl->swap_total_after : h->swap_total;
        const char *sb = p->swap_behavior != SWAP_BEHAVIOR_UNSET ? swap_behavior_to_string(p->swap_behavior) : NULL;
        if (swap_total == 0)
                return add_at(fs, VERDICT_LIMITEDSWAP_LITTLE_SWAP, p, POLICY_KEY_KUBELET_SWAP_BEHAVIOR, sb,
                           strdup("LimitedSwap is set but the node has no swap: no container gets any"),
                           strdup("configure a swap backend ([Swap] Backend=) and run nodeswap apply"));
        if ((unsigned __int128) swap_total * 4 >= h->mem_total)
                return 0;
        char s[FORMAT_BYTES_MAX], m[FORMAT_BYTES_MAX];
        double pct = 100.0 * (double) swap_total / (double) h->mem_total;
        return add_at(fs, VERDICT_LIMITEDSWAP_LITTLE_SWAP, p, POLICY_KEY_KUBELET_SWAP_BEHAVIOR, sb,
                   strdup_printf("LimitedSwap with %s of swap on %s of RAM: a container gets %.1f %% of "
                                 "its memory request as swap (under a quarter)",
                                 format_bytes(s, sizeof s, swap_total),
                                 format_bytes(m, sizeof m, h->mem_total), pct),
                   strdup("give the node more swap (a larger zram device or a swap file), or see "
                          "nodeswap allowance --request SIZE for what a container gets"));
}

static int check_priorities(const Policy *p, const HostState *h, Findings *fs) {
        for (size_t i = 0; i < h->n_swaps; i++)
                for (size_t j = i + 1; j < h->n_swaps; j++) {
                        if (h->swaps[i].priority != h->swaps[j].priority)
                                continue;
                        /* report the first pair only: one finding, stable */
                        return add(fs, VERDICT_SWAP_PRIORITY_SHARED,
                                   strdup_printf("%s and %s share priority %d: the kernel spreads pages "
                                                 "round-robin between them, so zram and a drive fill "
                                                 "alike instead of zram first",
                                                 h->swaps[i].path, h->swaps[j].path, h->swaps[i].priority),
                                   strdup("give each swap area its own priority ([Zram] Priority= above "
                                          "[File] Priority=) and run nodeswap apply"));
                }
        return 0;
}

static int check_swappiness(const Policy *p, const HostState *h, SwapBehavior b, Findings *fs) {
        int sw = p->swappiness >= 0 ? p->swappiness : h->swappiness;
        if (sw < 180 || b == SWAP_BEHAVIOR_LIMITED_SWAP || !zram_swap_on_or_planned(p, h))
                return 0;
        return add_at(fs, VERDICT_SWAPPINESS_ZRAM_CHURN, p, POLICY_KEY_SYSCTL_SWAPPINESS, NULL,
                   strdup_printf("vm.swappiness is %d with zram swap while pods may not swap (NoSwap): "
                                 "system services reclaim only anonymous memory into zram while pods "
                                 "can only drop page cache, so the same pages churn through zram and "
                                 "pods re-read their files from disk", sw),
                   strdup("set [Sysctl] Swappiness=60 (or lower), or let pods swap with "
                          "[Kubelet] SwapBehavior=LimitedSwap"));
}

static int check_psi(const Policy *p, const HostState *h, Findings *fs) {
        if (h->psi)
                return 0;
        bool zram = zram_swap_on_or_planned(p, h);
        return add(fs, zram ? VERDICT_PSI_OFF : VERDICT_PSI_OFF_INFO,
                   strdup(zram ? "pressure stall information is off: the time tasks wait for memory, "
                                 "including zram compression, cannot be seen"
                               : "pressure stall information is off: memory pressure cannot be measured"),
                   strdup("add psi=1 to the kernel command line (on a Raspberry Pi: "
                          "/boot/firmware/cmdline.txt) and reboot"));
}

/* zram swap after the plan: the policy's, or a device on now that the plan does not swap off. */
static bool zram_swap_after(const Policy *p, const HostState *h, const Plan *pl) {
        if (p->backend_set && (p->backends & BACKEND_ZRAM))
                return true;
        for (size_t i = 0; i < h->n_swaps; i++) {
                const SwapDevice *s = &h->swaps[i];
                bool off = false;
                for (size_t j = 0; j < pl->n_actions && !off; j++) {
                        const Action *a = &pl->actions[j];
                        off = (a->kind == ACTION_SWAPOFF && streq_ptr(a->target, s->path)) ||
                              (a->kind == ACTION_STOP_UNIT && s->unit && streq_ptr(a->target, s->unit));
                }
                if (s->kind == SWAP_KIND_ZRAM && !off)
                        return true;
        }
        return false;
}

static int check_zswap_zram(const Policy *p, const HostState *h, const Plan *pl, Findings *fs) {
        if (!zswap_on_after(p, h, false) || !zram_swap_after(p, h, pl))
                return 0;
        bool ours = p->backend_set && (p->backends & BACKEND_ZSWAP);
        return add_at(fs, VERDICT_ZSWAP_WITH_ZRAM, p, POLICY_KEY_SWAP_BACKEND, NULL,
                      strdup_printf("zswap is %s and a zram swap device is %s: pages go through zswap's pool "
                                    "before they reach zram, so they are compressed twice and held in RAM twice",
                                    ours ? "wanted (Backend=zswap file)" : "on",
                                    p->backend_set && (p->backends & BACKEND_ZRAM) ? "planned" : "on"),
                      strdup(ours ? "swap the zram device off (list its unit in [Conflicts] Units=)"
                                  : "turn zswap off (echo N >/sys/module/zswap/parameters/enabled, and drop "
                                    "zswap.enabled=1 from the kernel command line), or use Backend=zswap file "
                                    "instead of zram"));
}

static bool zram_too_large(uint64_t disksize, uint64_t mem_limit, uint64_t mem_total) {
        if (mem_total == 0 || disksize == 0)
                return false;
        if ((unsigned __int128) disksize > (unsigned __int128) mem_total * 2)
                return true;
        return mem_limit == 0 && disksize > mem_total;
}

static int zram_too_large_finding(Findings *fs, const Policy *p, const char *what, uint64_t disksize,
                                  uint64_t mem_limit, uint64_t mem_total) {
        char d[FORMAT_BYTES_MAX], m[FORMAT_BYTES_MAX];
        format_bytes(d, sizeof d, disksize);
        format_bytes(m, sizeof m, mem_total);
        return add_at(fs, VERDICT_ZRAM_TOO_LARGE, p, p ? POLICY_KEY_ZRAM_SIZE : _POLICY_KEY_MAX,
                      p ? p->zram.size_expr : NULL,
                   mem_limit == 0
                   ? strdup_printf("%s holds up to %s on %s of RAM with no mem_limit: filled at a "
                                   "typical 2:1 to 4:1 compression it takes RAM that no pod's memory "
                                   "limit accounts for", what, d, m)
                   : strdup_printf("%s holds up to %s, more than twice the %s of RAM: even at 2:1 "
                                   "compression a full device needs all of it", what, d, m),
                   strdup("lower [Zram] Size= (e.g. min(ram / 2, 8G)) or cap it with [Zram] MemLimit="));
}

static int check_zram_size(const Policy *p, const HostState *h, Findings *fs) {
        int r;
        bool planned = p->backend_set && (p->backends & BACKEND_ZRAM);
        if (planned && zram_too_large(p->zram.size, p->zram.mem_limit, h->mem_total)) {
                r = zram_too_large_finding(fs, p, "the policy's zram device ([Zram] Size=)",
                                           p->zram.size, p->zram.mem_limit, h->mem_total);
                if (r < 0)
                        return r;
        }
        for (size_t i = 0; i < h->n_zrams; i++) {
                const ZramDevice *z = &h->zrams[i];
                if (planned && z->ours)
                        continue;       /* the policy's device, judged above */
                if (!zram_too_large(z->disksize, z->mem_limit, h->mem_total))
                        continue;
                _cleanup_free_ char *what = strdup_printf("/dev/zram%d", z->id);
                if (!what)
                        return -ENOMEM;
                r = zram_too_large_finding(fs, NULL, what, z->disksize, z->mem_limit, h->mem_total);
                if (r < 0)
                        return r;
        }
        return 0;
}

static int check_swapfile(const Policy *p, const HostState *h, Findings *fs) {
        const SwapFileState *f = &h->file;
        int r;

        if (!p->file.path)
                return 0;

        bool wanted = p->backend_set && (p->backends & BACKEND_FILE);
        unsigned bad = f->storage & (STORAGE_MMC | STORAGE_ROTATIONAL);
        if (bad && (wanted || f->swap_on)) {
                bool allowed = wanted && (p->file.storage & bad);
                r = add_at(fs, allowed ? VERDICT_SWAPFILE_STORAGE_WEAR : VERDICT_SWAPFILE_STORAGE, p,
                        POLICY_KEY_FILE_STORAGE, NULL,
                        strdup_printf("the swap file %s is on %s storage (%s): %s", p->file.path,
                                      strempty(storage_kind_to_string((StorageKind) bad)), f->storage_device ?: "unknown device",
                                      bad == STORAGE_MMC
                                      ? "swapping wears out an SD card or eMMC and is slow"
                                      : "a spinning disk makes swapping slow"),
                        strdup(allowed
                               ? "move [File] Path= to NVMe or SSD storage"
                               : "move [File] Path= to NVMe or SSD storage; apply refuses it unless "
                                 "[File] Storage= lists it"));
                if (r < 0)
                        return r;
        }

        if (!f->exists)
                return 0;

        if (!f->is_regular)
                return add_at(fs, VERDICT_SWAPFILE_NOT_REGULAR, p, POLICY_KEY_FILE_PATH, p->file.path,
                           strdup_printf("%s is not a regular file (a symlink, directory or device): "
                                         "it cannot be a swap file", p->file.path),
                           strdup("remove it or choose another [File] Path="));

        if (f->has_header && f->header_page_size != 0 && h->page_size != 0 &&
            f->header_page_size != h->page_size) {
                r = add(fs, VERDICT_SWAPFILE_PAGESIZE,
                        strdup_printf("the swap header of %s was made for %" PRIu64 "-byte pages and "
                                      "this kernel uses %" PRIu64 ": swapon fails with EINVAL",
                                      p->file.path, f->header_page_size, h->page_size),
                        strdup("run nodeswap apply: it rewrites the header for this page size"));
                if (r < 0)
                        return r;
        }

        if ((f->mode & 077) || f->uid != 0) {
                r = add_at(fs, f->swap_on ? VERDICT_SWAPFILE_PERMISSIONS_ACTIVE : VERDICT_SWAPFILE_PERMISSIONS, p,
                           POLICY_KEY_FILE_PATH, p->file.path,
                        strdup_printf("the swap file %s has mode %04o and owner uid %u: whoever can "
                                      "read it can read swapped-out memory",
                                      p->file.path, f->mode, f->uid),
                        strdup_printf("chown root:root %s && chmod 0600 %s", p->file.path, p->file.path));
                if (r < 0)
                        return r;
        }

        if (f->path_problem) {
                r = add_at(fs, VERDICT_SWAPFILE_UNSAFE_PATH, p, POLICY_KEY_FILE_PATH, p->file.path,
                           strdup_printf("%s: others could replace the swap file", f->path_problem),
                           strdup("make every directory above it root's and not writable by group or others, "
                                  "without symlinks, or choose another [File] Path="));
                if (r < 0)
                        return r;
        }
        if (f->checked && !f->has_header && !f->swap_on) {
                r = add_at(fs, VERDICT_SWAPFILE_NOT_SWAP, p, POLICY_KEY_FILE_PATH, p->file.path,
                           strdup_printf("%s: apply refuses to use it as swap", strempty(f->header_problem)),
                           strdup("remove it or choose another [File] Path=: nodeswap does not overwrite "
                                  "other data"));
                if (r < 0)
                        return r;
        }
        /* (an active file passed the kernel's own checks) */
        if (f->allocation_problem && !f->swap_on) {
                r = add(fs, VERDICT_SWAPFILE_HOLES,
                        strdup_printf("%s: the kernel refuses it with EINVAL", f->allocation_problem),
                        strdup("run nodeswap apply: it deletes the file and makes it anew with fallocate"));
                if (r < 0)
                        return r;
        }
        if (f->nocow_problem && !f->swap_on) {
                r = add(fs, VERDICT_SWAPFILE_COW,
                        strdup_printf("%s: the kernel refuses a copy-on-write swap file", f->nocow_problem),
                        strdup("run nodeswap apply: it deletes the file and makes it anew with No_COW set"));
                if (r < 0)
                        return r;
        }
        return 0;
}

static int check_kubelet_stale(const Policy *p, const HostState *h, Findings *fs) {
        if (h->kubelet_started_usec == 0 || h->state.swap_changed_usec <= h->kubelet_started_usec)
                return 0;
        const char *unit = h->kubelet_unit ?: "the kubelet unit";
        return add(fs, VERDICT_KUBELET_SWAP_STALE,
                   strdup_printf("%s started before the last swap change: the kubelet reads the "
                                 "node's swap capacity only at start, so it still works with the old "
                                 "SwapTotal", unit),
                   strdup_printf("systemctl restart %s", h->kubelet_unit ?: "<kubelet unit>"));
}

static int check_dropin(const Policy *p, const HostState *h, Findings *fs) {
        const char *path = p->dropin ?: h->dropin_path;
        int r;

        if (!path || (p->swap_behavior == SWAP_BEHAVIOR_UNSET && !h->dropin))
                return 0;       /* nodeswap leaves the kubelet alone and there is nothing there */

        const char *name = basename_of(path);
        if (!endswith(name, ".conf")) {
                r = add_at(fs, VERDICT_DROPIN_NAME, p, POLICY_KEY_KUBELET_DROPIN, p->dropin,
                        strdup_printf("the kubelet drop-in %s does not end in .conf: the kubelet "
                                      "ignores it", path),
                        strdup("set [Kubelet] DropIn= to a name ending in .conf, e.g. "
                               "90-nodeswap.conf"));
                if (r < 0)
                        return r;
        }

        const KubeletConfigFile *ours = kubelet_config_find(&h->kubelet, path);
        if (h->dropin && ours && ours->invalid && p->swap_behavior == SWAP_BEHAVIOR_UNSET) {
                /* (A policy that sets SwapBehavior= rewrites the drop-in: the plan has it.) */
                r = add(fs, VERDICT_DROPIN_INVALID,
                        ours->invalid_line > 0
                        ? strdup_printf("the kubelet drop-in %s:%u: %s: the kubelet refuses it and does "
                                        "not start", path, ours->invalid_line, ours->invalid_reason)
                        : strdup_printf("the kubelet drop-in %s: %s: the kubelet refuses it and does not "
                                        "start", path, ours->invalid_reason),
                        strdup("run nodeswap apply to rewrite it (apiVersion: "
                               "kubelet.config.k8s.io/v1beta1, kind: KubeletConfiguration)"));
                if (r < 0)
                        return r;
        }

        if (strcmp(name, K3S_DEFAULTS_DROPIN) < 0) {
                r = add_at(fs, VERDICT_DROPIN_ORDER, p, POLICY_KEY_KUBELET_DROPIN, p->dropin,
                        strdup_printf("the kubelet drop-in %s sorts before k3s's own "
                                      K3S_DEFAULTS_DROPIN ": drop-ins merge in name order, so "
                                      "k3s's defaults override it", path),
                        strdup("name it so it sorts after " K3S_DEFAULTS_DROPIN ", e.g. "
                               "90-nodeswap.conf"));
                if (r < 0)
                        return r;
        }
        return 0;
}

static SwapBehavior normalized(SwapBehavior b) {
        return b == SWAP_BEHAVIOR_UNSET ? SWAP_BEHAVIOR_NO_SWAP : b;
}

/* The kubelet without a swap controller (swapControllerAvailable() false) writes no memory.swap.max
 * into any container: LimitedSwap gives nothing the kernel enforces, NoSwap no protection. */
static int check_swap_controller(const Policy *p, const HostState *h, const Plan *pl, SwapBehavior b, Findings *fs) {
        uint64_t swap_total = pl && p->backend_set ? pl->swap_total_after : h->swap_total;
        if (!h->kubelet_no_swap_controller || swap_total == 0)
                return 0;
        const char *unit = strempty(h->kubelet_unit);
        if (b == SWAP_BEHAVIOR_LIMITED_SWAP)
                return add(fs, VERDICT_SWAP_CONTROLLER_OFF_LIMITEDSWAP,
                           strdup_printf("LimitedSwap, but /sys/fs/cgroup/system.slice/%s has no memory.swap.max "
                                         "(swap accounting is off): the kubelet sets no swap limit, so no "
                                         "container's allowance is enforced", unit),
                           strdup("turn swap accounting on (no swapaccount=0 or cgroup.memory=noswap on the "
                                  "kernel command line) and restart the kubelet"));
        return add(fs, VERDICT_SWAP_CONTROLLER_OFF,
                   strdup_printf("/sys/fs/cgroup/system.slice/%s has no memory.swap.max (swap accounting is off): "
                                 "the kubelet sets no swap limit, so NoSwap keeps no pod out of the node's swap", unit),
                   strdup("turn swap accounting on (no swapaccount=0 or cgroup.memory=noswap on the kernel "
                          "command line) and restart the kubelet"));
}

/* On a node whose pods swap, the kubelet's unit may swap too: its cgroup's memory.swap.max (or,
 * without a cgroup, systemd's MemorySwapMax) is not 0, and this plan does not set it. KEP-2400's
 * best practices keep the kubelet and the runtime out of swap so that the node still answers under
 * pressure. */
static int check_kubelet_unit_swappable(const Policy *p, const HostState *h, const Plan *pl, SwapBehavior b,
                                        Findings *fs) {
        if (b != SWAP_BEHAVIOR_LIMITED_SWAP || h->cgroup != CGROUP_V2 || !h->kubelet_unit)
                return 0;
        for (size_t i = 0; i < h->n_no_swap_units; i++) {
                const NoSwapUnit *u = &h->no_swap_units[i];
                if (!u->kubelet)
                        continue;
                bool swappable = u->cgroup_read == 1 ? u->cgroup_swap_max != 0
                                 : u->property_known ? u->property != 0
                                                     : false;
                int a = pl ? plan_find_action(pl, ACTION_UNIT_SWAP_MAX, u->name) : -1;
                if (!swappable || (a >= 0 && !pl->actions[a].unit_swap_max.restore))
                        return 0;
                _cleanup_free_ char *now = no_swap_now(u);
                if (!now)
                        return -ENOMEM;
                return add(fs, VERDICT_KUBELET_UNIT_SWAPPABLE,
                           strdup_printf("pods get swap (LimitedSwap), and %s may swap too (%s%s%s%s): "
                                         "under memory pressure the kubelet and its container runtime are swapped out "
                                         "and the node stops answering", u->name, now,
                                         u->operator_where ? ", MemorySwapMax=" : "", strempty(u->operator_value),
                                         u->operator_where ? " set by the unit's own files" : ""),
                           u->operator_where
                                   ? strdup_printf("set MemorySwapMax=0 in %s (nodeswap leaves the unit's own setting "
                                                   "alone)", u->operator_where)
                                   : strdup("list kubelet in [Kubelet] NoSwapUnits= (the default) and run nodeswap apply"));
        }
        return 0;
}

/* Pods get swap, and a swap area on a disk keeps their pages in clear: one that is on and stays
 * on after the plan (not encrypted, not zram), the swap file the plan makes with Encrypt=no, or a
 * zram device that writes pages back to a disk. Kubernetes' "Swap memory management" page: "It is
 * deeply encouraged to encrypt the swap space". */
static int check_unencrypted(const Policy *p, const HostState *h, const Plan *pl, SwapBehavior b, Findings *fs) {
        if (b != SWAP_BEHAVIOR_LIMITED_SWAP)
                return 0;
        for (size_t i = 0; i < h->n_swaps; i++) {
                const SwapDevice *s = &h->swaps[i];
                const char *why = NULL;
                if (s->kind == SWAP_KIND_ZRAM) {
                        const ZramDevice *z = host_find_zram(h, s->zram_id);
                        if (!z || !z->wb.backing_dev || z->wb.backing_encrypted)
                                continue;
                        why = "writes idle pages back to a disk";
                } else if (!s->encrypted)
                        why = "is on a disk";
                else
                        continue;
                if (pl && (plan_find_action(pl, ACTION_SWAPOFF, s->path) >= 0 ||
                           (s->unit && plan_find_action(pl, ACTION_STOP_UNIT, s->unit) >= 0)))
                        continue;       /* the plan takes it off */
                bool ours = p->file.path && streq(s->path, p->file.path);
                bool our_zram = s->kind == SWAP_KIND_ZRAM && s->owner == SWAP_OWNER_NODESWAP &&
                                policy_writeback_is_file(p);
                int r = add(fs, VERDICT_SWAP_UNENCRYPTED,
                            strdup_printf("pods get swap (LimitedSwap) and %s %s in clear: pages of their memory "
                                          "(tokens, keys, passwords) stay readable there after the pod, a reboot "
                                          "and the node are gone", s->path, why),
                            strdup(ours       ? "set [File] Encrypt=yes (the default) and run nodeswap apply: the file is "
                                                "made anew, encrypted, through the bridge"
                                   : our_zram ? "set [Zram] WritebackEncrypt=yes (the default) and run nodeswap apply: "
                                                "the zram device is set up anew on the file's mapping, through a bridge"
                                              : "encrypt it with dm-crypt and a key made at boot, or swap it off"));
                if (r < 0)
                        return r;
        }
        for (size_t i = 0; pl && i < pl->n_actions; i++) {
                const Action *a = &pl->actions[i];
                if (a->kind == ACTION_ZRAM_CREATE && policy_writeback_is_file(p) && !p->zram.writeback_encrypt) {
                        int r = add(fs, VERDICT_SWAP_UNENCRYPTED,
                                   strdup_printf("pods get swap (LimitedSwap) and the zram device is set up to write "
                                                 "idle pages back to %s with [Zram] WritebackEncrypt=no: pages of "
                                                 "their memory stay readable on the disk", p->zram.writeback),
                                   strdup("set [Zram] WritebackEncrypt=yes (the default)"));
                        if (r < 0)
                                return r;
                        continue;
                }
                if (a->kind != ACTION_FILE_CREATE || a->file_create.encrypt || !streq_ptr(a->target, p->file.path))
                        continue;
                return add(fs, VERDICT_SWAP_UNENCRYPTED,
                           strdup_printf("pods get swap (LimitedSwap) and the swap file %s is made with "
                                         "[File] Encrypt=no: pages of their memory stay readable on the disk",
                                         a->target),
                           strdup("set [File] Encrypt=yes (the default)"));
        }
        return 0;
}

/* Whether release ("6.1.0-57-amd64") is before major.minor; false when it cannot be read. */
static bool kernel_before(const char *release, unsigned major, unsigned minor) {
        unsigned a, b;
        if (!release || sscanf(release, "%u.%u", &a, &b) != 2)
                return false;
        return a < major || (a == major && b < minor);
}

/* Pods get swap on a kernel whose tmpfs cannot be kept out of swap: the kubelet mounts a
 * memory-backed emptyDir with noswap where the kernel has it (6.3 and later, Kubernetes' "Swap
 * memory management"), so before that a Burstable pod's tmpfs pages (secrets written to
 * /dev/shm-like volumes) can be swapped out too. */
static int check_tmpfs_swap(const HostState *h, SwapBehavior b, Findings *fs) {
        if (b != SWAP_BEHAVIOR_LIMITED_SWAP || !kernel_before(h->kernel_release, 6, 3))
                return 0;
        return add(fs, VERDICT_TMPFS_SWAP,
                   strdup_printf("pods get swap (LimitedSwap) on Linux %s, whose tmpfs has no noswap: "
                                 "memory-backed emptyDir volumes of Burstable pods can be swapped out",
                                 h->kernel_release),
                   strdup("run a kernel of 6.3 or later, keep secrets out of memory-backed emptyDir volumes of "
                          "Burstable pods, or keep the swap encrypted ([File] Encrypt=yes)"));
}

/* failSwapOn true, from a flag or a file other than nodeswap's drop-in, on a node with swap. */
static int check_fail_swap_on(const HostState *h, const KubeletEffective *e, Findings *fs) {
        _cleanup_free_ char *src = kubelet_fail_swap_on_source(e);
        if (!src)
                return -ENOMEM;
        const KubeletFlag *flag = e->fail_swap_on_flag;
        if (flag)
                return add(fs, VERDICT_KUBELET_FAIL_SWAP_ON,
                           strdup_printf("%s, and this node %s swap: the kubelet applies its flags over every "
                                         "file and refuses to start", src, h->swap_total > 0 ? "has" : "will have"),
                           strdup_printf("remove --%s from %s or make it false", flag->name, flag->file));
        if (kubelet_fail_swap_on_null(e))
                /* the null deleted the key and the kubelet's default came back (1.32+, or the
                 * --config file's own null: v1beta1's SetDefaults_KubeletConfiguration) */
                return add(fs, VERDICT_KUBELET_FAIL_SWAP_ON,
                           strdup_printf("%s sets failSwapOn: null, which brings back the kubelet's default, true, "
                                         "and this node %s swap: the kubelet refuses to start", src,
                                         h->swap_total > 0 ? "has" : "will have"),
                           strdup_printf("set failSwapOn: false in %s instead of null", e->fail_swap_on_from->path));
        return add(fs, VERDICT_KUBELET_FAIL_SWAP_ON,
                   strdup_printf("%s sets failSwapOn: true, and this node %s swap: the kubelet "
                                 "refuses to start", src, h->swap_total > 0 ? "has" : "will have"),
                   strdup_printf("set failSwapOn: false in %s or remove it", e->fail_swap_on_from->path));
}

/* No hard memory.available threshold once the plan ran (e: with nodeswap's drop-in, when the policy
 * writes one): memory pressure ends in the kernel's OOM killer. Under LimitedSwap with
 * MemoryEviction= set, an --eviction-hard flag without it is an error (the drop-in cannot win over
 * a flag); MemoryEviction=off says the operator knows, and silences the warning. */
static int check_memory_eviction(const Policy *p, const HostState *h, bool swap, const KubeletEffective *e,
                                 Findings *fs) {
        if (e->memory_available || !p->memory_eviction)
                return 0;
        _cleanup_free_ char *src = kubelet_memory_eviction_source(e);
        if (!src)
                return -ENOMEM;
        if (e->eviction_hard_flag && p->swap_behavior == SWAP_BEHAVIOR_LIMITED_SWAP)
                return add_at(fs, VERDICT_MEMORY_EVICTION_FLAG, p, POLICY_KEY_KUBELET_MEMORY_EVICTION,
                              p->memory_eviction,
                              strdup_printf("%s sets evictionHard without memory.available: the kubelet applies its "
                                            "flags over every file, so nodeswap's drop-in cannot add the policy's "
                                            "memory.available<%s (nodeswap apply refuses)", src, p->memory_eviction),
                              strdup_printf("add memory.available<%s to --%s in %s (or remove the flag), or set "
                                            "[Kubelet] MemoryEviction=off", p->memory_eviction,
                                            e->eviction_hard_flag->name, e->eviction_hard_flag->file));
        if (!swap)
                return 0;
        bool nobody = !e->eviction_hard_flag && !e->eviction_hard_from;
        return add(fs, VERDICT_MEMORY_EVICTION_MISSING,
                   nobody
                   ? strdup_printf("the kubelet has no --config file, so no default evictionHard, and no file or flag "
                                   "sets memory.available, and this node %s swap: the kubelet evicts no pod on memory "
                                   "pressure, the kernel's OOM killer decides (BestEffort pods first)",
                                   h->swap_total > 0 ? "has" : "will have")
                   : strdup_printf("%s sets evictionHard without memory.available, and this node %s swap: the kubelet "
                                   "evicts no pod on memory pressure, the kernel's OOM killer decides (BestEffort pods "
                                   "first)", src, h->swap_total > 0 ? "has" : "will have"),
                   p->swap_behavior == SWAP_BEHAVIOR_LIMITED_SWAP
                   ? strdup_printf("remove memory.available: null (or evictionHard: null) from the file that sets it "
                                   "after %s, or set [Kubelet] MemoryEviction=off to accept it", strempty(p->dropin))
                   : strdup("set [Kubelet] SwapBehavior=LimitedSwap (nodeswap's drop-in then sets memory.available, "
                            "[Kubelet] MemoryEviction=), or add evictionHard memory.available to a drop-in of your own"));
}

/* What stops the kubelet in its command line: a --config-dir it cannot walk, a --fail-swap-on that
 * is no boolean. */
static int check_kubelet_flags(const Policy *p, const HostState *h, const KubeletEffective *e, Findings *fs) {
        const KubeletConfig *c = &h->kubelet;
        int r;
        /* (apply creates the directory when it writes the policy's drop-in there) */
        if (c->config_dir_error != 0 &&
            !(p->swap_behavior != SWAP_BEHAVIOR_UNSET && p->dropin && kubelet_config_reads(c, p->dropin))) {
                r = add(fs, VERDICT_KUBELET_CONFIG_DIR_MISSING,
                        strdup_printf("the kubelet's --config-dir %s, from %s, %s: the kubelet does not start",
                                      c->config_dir, strempty(c->config_dir_source),
                                      c->config_dir_error == ENOENT ? "does not exist"
                                      : c->config_dir_error == ENOTDIR ? "is not a directory"
                                      : strerror(c->config_dir_error)),
                        strdup_printf("create %s or remove the flag from %s", c->config_dir,
                                      c->config_dir_flag->file));
                if (r < 0)
                        return r;
        }
        if (c->config_file_missing) {
                /* loadConfigFile(): "failed to load kubelet config file ... no such file or
                 * directory", before the kubelet touches anything (the real v1.31.0 and v1.36.3) */
                r = add(fs, VERDICT_KUBELET_CONFIG_FILE_MISSING,
                        strdup_printf("the kubelet's --config file %s (kubeadm's 10-kubeadm.conf passes it) does not "
                                      "exist: the kubelet does not start", c->config_file),
                        strdup_printf("run kubeadm init or kubeadm join, which write %s, or write it yourself "
                                      "(apiVersion: kubelet.config.k8s.io/v1beta1, kind: KubeletConfiguration)",
                                      c->config_file));
                if (r < 0)
                        return r;
        }
        if (e->memory_available_invalid) {
                /* refused by ParseThresholdConfig() once the configuration is loaded
                 * (kubelet_threshold_parse()) */
                _cleanup_free_ char *src = kubelet_memory_eviction_source(e);
                if (!src)
                        return -ENOMEM;
                r = add(fs, e->memory_available_flag ? VERDICT_KUBELET_FLAG_INVALID : VERDICT_KUBELET_CONFIG_INVALID,
                        strdup_printf("%s: evictionHard memory.available \"%s\" is %s: the kubelet refuses it and does "
                                      "not start", src, e->memory_available, e->memory_available_invalid),
                        strdup_printf("set a quantity (100Mi) or a percentage between 0%% and 100%% of MemTotal in %s",
                                      e->memory_available_flag ? e->memory_available_flag->file
                                      : e->memory_available_from ? e->memory_available_from->path : "it"));
                if (r < 0)
                        return r;
        }
        if (e->invalid_flag) {
                _cleanup_free_ char *src = kubelet_flag_source(e->invalid_flag);
                if (!src)
                        return -ENOMEM;
                r = add(fs, VERDICT_KUBELET_FLAG_INVALID,
                        strdup_printf("%s: not a boolean (true, false, 1, 0, t, f): the kubelet does not start", src),
                        strdup_printf("set it to true or false in %s", e->invalid_flag->file));
                if (r < 0)
                        return r;
        }
        if (e->unknown_flag) {
                /* mergeDefaultEvictionSettings is a configuration field with no flag (v1.36
                 * cmd/kubelet/app/options/options.go registers none): pflag's "unknown flag" */
                _cleanup_free_ char *src = kubelet_flag_source(e->unknown_flag);
                if (!src)
                        return -ENOMEM;
                r = add(fs, VERDICT_KUBELET_FLAG_INVALID,
                        strdup_printf("%s: the kubelet has no such flag and does not start", src),
                        strdup_printf("remove it from %s; mergeDefaultEvictionSettings: true belongs in the "
                                      "kubelet's --config file, the only file that reads it", e->unknown_flag->file));
                if (r < 0)
                        return r;
        }
        if (c->eviction_hard_flag_invalid) {
                /* LangleSeparatedMapStringString.Set(): "malformed pair, expect string<string" */
                _cleanup_free_ char *src = kubelet_flag_source(c->eviction_hard_flag_invalid);
                if (!src)
                        return -ENOMEM;
                r = add(fs, VERDICT_KUBELET_FLAG_INVALID,
                        strdup_printf("%s: a pair without '<' (SIGNAL<VALUE, comma-separated): the kubelet does not "
                                      "start", src),
                        strdup_printf("write it as SIGNAL<VALUE pairs in %s", c->eviction_hard_flag_invalid->file));
                if (r < 0)
                        return r;
        }
        return 0;
}

static int check_kubelet_config(const Policy *p, const HostState *h, Findings *fs) {
        const KubeletConfig *c = &h->kubelet;
        const char *ours_path = p->dropin ?: h->dropin_path;
        int r;

        for (size_t i = 0; i < c->n_files; i++) {
                const KubeletConfigFile *f = &c->files[i];
                if (!f->invalid || streq_ptr(f->path, ours_path))
                        continue;       /* nodeswap's own: dropin-invalid */
                _cleanup_free_ char *src = kubelet_source(f, f->invalid_line);
                if (!src)
                        return -ENOMEM;
                if (f->copy_failed)     /* k3s's extractConfigArgs() fails: no kubelet */
                        r = add(fs, VERDICT_KUBELET_CONFIG_INVALID,
                                strdup_printf("%s: %s: k3s does not start the kubelet", f->path, f->invalid_reason),
                                strdup_printf("create %s or remove the kubelet-arg entry from %s", f->path,
                                              f->copy_failed));
                else
                        r = add(fs, VERDICT_KUBELET_CONFIG_INVALID,
                                strdup_printf("%s: %s: the kubelet refuses it and does not start", src, f->invalid_reason),
                                strdup_printf("fix %s (apiVersion: kubelet.config.k8s.io/v1beta1, kind: "
                                              "KubeletConfiguration) or remove it", f->path));
                if (r < 0)
                        return r;
        }

        KubeletEffective now;
        kubelet_config_effective(c, NULL, NULL, &now);

        /* Every file that sets swapBehavior, when there is more than nodeswap's own drop-in. */
        _cleanup_strv_free_ char **setters = NULL;
        size_t n_setters = 0;
        bool foreign = false;
        for (size_t i = 0; i < c->n_files; i++) {
                const KubeletConfigFile *f = &c->files[i];
                if (f->swap_behavior_field == KUBELET_FIELD_ABSENT)
                        continue;
                n_setters++;
                if (!streq_ptr(f->path, ours_path))
                        foreign = true;
                _cleanup_free_ char *src = kubelet_source(f, f->swap_behavior_line);
                if (!src)
                        return -ENOMEM;
                char *e = f->swap_behavior_field == KUBELET_FIELD_CLEARED
                        ? strdup_printf("%s (null: the default)", src)
                        : strdup_printf("%s (%s)", src, f->swap_behavior_value[0] ? f->swap_behavior_value : "\"\"");
                if (strv_push(&setters, e) < 0)
                        return -ENOMEM;
        }
        if (setters && (n_setters > 1 || foreign)) {
                _cleanup_free_ char *list = strv_join(setters, ", ");
                _cleanup_free_ char *win = kubelet_source(now.swap_behavior_from, now.swap_behavior_from ?
                                                          now.swap_behavior_from->swap_behavior_line : 0);
                if (!list || !win)
                        return -ENOMEM;
                r = add(fs, VERDICT_KUBELET_SWAP_BEHAVIOR,
                        strdup_printf("swapBehavior is set by %s; %s wins: %s", list, win,
                                      now.swap_behavior_unknown ? now.swap_behavior_value
                                      : swap_behavior_to_string(normalized(now.swap_behavior))),
                        strdup("the kubelet merges its drop-ins in name order, the last one that sets a "
                               "field wins; nodeswap status shows the result"));
                if (r < 0)
                        return r;
        }

        /* What the kubelet runs with once nodeswap apply wrote its drop-in. */
        _cleanup_(kubelet_config_file_done) KubeletConfigFile ours = {};
        KubeletEffective after = now;
        if (p->swap_behavior != SWAP_BEHAVIOR_UNSET && ours_path && endswith(ours_path, ".conf")) {
                /* (a name without .conf: dropin-name) */
                const char *memory_available;
                r = kubelet_dropin_memory_eviction(p, c, ours_path, &memory_available);
                if (r < 0)
                        return r;
                r = kubelet_effective_with_dropin(c, ours_path, p->swap_behavior, memory_available, &ours, &after);
                if (r < 0)
                        return r;
                const KubeletConfigFile *w = after.swap_behavior_from;
                if (w != &ours && (after.swap_behavior_unknown ||
                                   normalized(after.swap_behavior) != p->swap_behavior)) {
                        _cleanup_free_ char *src = kubelet_source(w, w ? w->swap_behavior_line : 0);
                        if (!src)
                                return -ENOMEM;
                        r = add_at(fs, VERDICT_DROPIN_OVERRIDDEN, p, POLICY_KEY_KUBELET_SWAP_BEHAVIOR,
                           swap_behavior_to_string(p->swap_behavior),
                                !kubelet_config_reads(c, ours_path)
                                ? strdup_printf("the kubelet does not read %s (its drop-in directory is %s, from "
                                                "%s): it runs with swapBehavior %s, not the policy's %s",
                                                ours_path, strempty(c->config_dir), strempty(c->config_dir_source),
                                                after.swap_behavior_unknown ? after.swap_behavior_value
                                                : swap_behavior_to_string(normalized(after.swap_behavior)),
                                                swap_behavior_to_string(p->swap_behavior))
                                : strdup_printf("%s sets swapBehavior %s and is merged after %s: the kubelet "
                                                "runs with it, not the policy's %s (nodeswap apply refuses)",
                                                src, after.swap_behavior_unknown ? after.swap_behavior_value
                                                : swap_behavior_to_string(normalized(after.swap_behavior)),
                                                ours_path, swap_behavior_to_string(p->swap_behavior)),
                                strdup_printf("remove swapBehavior from %s (or the file), or set [Kubelet] "
                                              "SwapBehavior= to what it says", w ? w->path : ours_path));
                        if (r < 0)
                                return r;
                }
        }

        bool swap = h->swap_total > 0 || (p->backend_set && p->backends != 0);
        if (swap && after.fail_swap_on && kubelet_fail_swap_on_foreign(&after, &ours)) {
                r = check_fail_swap_on(h, &after, fs);
                if (r < 0)
                        return r;
        }
        r = check_memory_eviction(p, h, swap, &after, fs);
        if (r < 0)
                return r;
        return check_kubelet_flags(p, h, &after, fs);
}

static int check_conflict_units(const Policy *p, const HostState *h, Findings *fs) {
        /* Without systemd as PID 1 nothing starts those units (and nodeswap masks nothing). After
         * "nodeswap revert" the distribution's swap is meant to run: nothing to advise. */
        if (!p->backend_set || !h->systemd_booted || h->state.reverted)
                return 0;
        _cleanup_strv_free_ char **names = NULL;
        for (size_t i = 0; i < h->n_units; i++) {
                const UnitState *u = &h->units[i];
                if (!u->exists || u->masked)
                        continue;
                if (strv_extend(&names, u->name) < 0)
                        return -ENOMEM;
        }
        if (!names)
                return 0;
        _cleanup_free_ char *list = strv_join(names, " ");
        if (!list)
                return -ENOMEM;
        bool one = strv_length(names) == 1;
        return add(fs, VERDICT_CONFLICT_UNIT_UNMASKED,
                   strdup_printf("nodeswap manages this node's swap, but the distribution's swap "
                                 "unit%s %s %s not masked and can bring %s swap back",
                                 one ? "" : "s", list, one ? "is" : "are", one ? "its" : "their"),
                   strdup("run nodeswap apply (it masks them at runtime) and make sure "
                          "nodeswap-generator is installed (it masks them at boot)"));
}

/* rpi-swap's own units among the conflict units: those not from [Conflicts] Units=, and the
 * zram and writeback units it generates for its mechanism. */
static int check_rpi_swap(const Policy *p, const HostState *h, Findings *fs) {
        const RpiSwapConfig *rpi = &h->rpi_swap;
        if (!rpi->installed)
                return 0;
        _cleanup_strv_free_ char **units = NULL, **masked = NULL, **unmasked = NULL;
        int r = rpi_swap_units(rpi, NULL, &units);
        if (r < 0)
                return r;
        for (size_t i = 0; i < h->n_units; i++) {
                const UnitState *u = &h->units[i];
                if (!strv_contains(units, u->name) && !startswith(u->name, "rpi-remove-swap-file@"))
                        continue;
                if (!u->masked && !u->exists)
                        continue;
                if ((r = strv_extend(u->masked ? &masked : &unmasked, u->name)) < 0)
                        return r;
        }
        const char *mech = rpi_swap_mechanism_to_string(rpi->mechanism);
        _cleanup_free_ char *src = rpi->mechanism_source ? strdup_printf("set in %s", rpi->mechanism_source)
                                                         : strdup("the default");
        _cleanup_free_ char *m = masked ? strv_join(masked, " ") : strdup("none");
        _cleanup_free_ char *um = unmasked ? strv_join(unmasked, " ") : strdup("none");
        if (!src || !m || !um)
                return -ENOMEM;
        const char *who = h->state.reverted         ? "nodeswap is reverted: rpi-swap runs this node's swap"
                          : !p->backend_set          ? "nodeswap manages no swap here (no Backend=)"
                          : unmasked                 ? "nodeswap manages swap, but some of rpi-swap's units are not masked"
                                                     : "nodeswap manages swap; rpi-swap is kept off";
        return add(fs, VERDICT_RPI_SWAP,
                   strdup_printf("rpi-swap is set to Mechanism=%s (%s), [File] Path=%s; %s. Masked: %s. "
                                 "Not masked: %s",
                                 mech, src, strempty(rpi->path), who, m, um),
                   strdup(h->state.reverted || !p->backend_set ? "nodeswap apply hands the node's swap to nodeswap"
                          : unmasked ? "run nodeswap apply: it masks them (nodeswap-generator does at every boot)"
                                     : "nodeswap revert hands the node's swap back to rpi-swap"));
}

/* What this user could not read of nodeswap's records (a non-root status or check). */
static int check_unreadable(const Policy *p, const HostState *h, Findings *fs) {
        for (char **u = h->state.unreadable; u && *u; u++) {
                int r = add(fs, VERDICT_HOST_UNREADABLE,
                            strdup_printf("%s: this user may not read it; nodeswap's records (the last run, "
                                          "revert, the devices and files nodeswap made) are unknown", *u),
                            strdup("run as root for the whole picture"));
                if (r < 0)
                        return r;
        }
        return 0;
}

int check_rules(const Policy *p, const HostState *h, const Plan *pl, Findings *fs) {
        SwapBehavior b = check_swap_behavior(p, h);
        int r;

        r = check_unreadable(p, h, fs);
        if (r < 0)
                return r;

        if ((r = check_cgroup(p, h, b, fs)) < 0 ||
            (r = check_little_swap(p, h, pl, b, fs)) < 0 ||
            (r = check_swap_controller(p, h, pl, b, fs)) < 0 ||
            (r = check_kubelet_unit_swappable(p, h, pl, b, fs)) < 0 ||
            (r = check_unencrypted(p, h, pl, b, fs)) < 0 ||
            (r = check_tmpfs_swap(h, b, fs)) < 0 ||
            (r = check_priorities(p, h, fs)) < 0 ||
            (r = check_swappiness(p, h, b, fs)) < 0 ||
            (r = check_psi(p, h, fs)) < 0 ||
            (r = check_memory_pressure(p, h, fs)) < 0 ||
            (r = check_zswap_zram(p, h, pl, fs)) < 0 ||
            (r = check_zram_size(p, h, fs)) < 0 ||
            (r = check_swapfile(p, h, fs)) < 0 ||
            (r = check_kubelet_stale(p, h, fs)) < 0 ||
            (r = check_dropin(p, h, fs)) < 0 ||
            (r = check_kubelet_config(p, h, fs)) < 0 ||
            (r = check_conflict_units(p, h, fs)) < 0 ||
            (r = check_rpi_swap(p, h, fs)) < 0 ||
            (r = check_reclaim(p, h, pl, b, fs)) < 0)
                return r;
        return 0;
}

int verdict_plan(const Policy *p, const HostState *h, const PlanOptions *opts, Plan *ret) {
        Plan pl = {};
        Findings rules = {};
        int r = plan(p, h, opts, &pl);
        if (r < 0)
                return r;
        if (!opts || !opts->revert) {
                r = check_rules(p, h, &pl, &rules);
                if (r >= 0)
                        r = findings_merge(&pl.findings, &rules, true);
                findings_done(&rules);
                if (r < 0) {
                        plan_done(&pl);
                        return r;
                }
        }
        *ret = pl;
        return 0;
}
