/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * nodeswap allowance [--request SIZE] [--limit SIZE] [--qos burstable|guaranteed|besteffort] [--critical]
 *                    [--priority N] [--static-pod]
 *
 * The swap the kubelet's LimitedSwap gives one container on this node:
 *   request / MemTotal × SwapTotal, rounded down
 * or 0 and the reason. SIZE is a Kubernetes quantity (256Mi, 1Gi, 500M, 1.5G).
 * The node's numbers are MemTotal and SwapTotal as they are now, and the kubelet's effective
 * swapBehavior as its files are now (every file it reads, merged: what the kubelet does after its
 * next start); when the policy asks for another swapBehavior, the text output says so.
 *
 * --json prints one object:
 *   request        bytes, or null without --request
 *   limit          bytes, or null without --limit
 *   qos            "burstable" | "guaranteed" | "besteffort" | null (not given: derived)
 *   critical       true | false (--critical: a system-*-critical priority class)
 *   static_pod     true | false (--static-pod: a static pod or its mirror pod)
 *   priority       the --priority given, or null
 *   swap           bytes of swap the container gets (0 when none)
 *   reason         why it gets none, one sentence; null when it gets swap
 *   swap_behavior  the kubelet's effective swapBehavior: "LimitedSwap" | "NoSwap" | null (no file
 *                  sets it: the default, NoSwap)
 *   cgroup         "v1" | "hybrid" | "v2" | "unknown" (cgroup_mode_to_string)
 *   mem_total      node MemTotal, bytes
 *   swap_total     node SwapTotal, bytes
 *   page_size      the kernel's page size, bytes
 *   zswap          true when zswap is on (or the policy turns it on): what the container swaps is
 *                  kept compressed in its pool first, charged to the container's cgroup
 *   density        the node's density from the running containers (nodeswap(8), status --pods):
 *                  containers, allowances, swap_total, share, ceiling, zram_ratio, ceiling_zram
 *
 * Exit status: 0; 2 for a bad SIZE or --qos, a request above the limit, or an invalid policy;
 * 1 when the host cannot be read.
 */
#include <inttypes.h>

#include "plan/allowance.h"
#include "plan/check.h"
#include "policy/size.h"
#include "plan/zswap.h"
#include "cli/cli.h"
#include "report/json.h"
#include "report/log.h"
#include "report/status.h"
#include "probe/pods.h"

static int parse_size_option(const char *name, const char *value, bool *ret_has, uint64_t *ret) {
        if (!value) {
                *ret_has = false;
                *ret = 0;
                return 0;
        }
        uint64_t v;
        if (quantity_parse(value, &v) < 0)
                return log_error_errno(EINVAL, "Invalid %s '%s': expected a Kubernetes quantity such as 256Mi, 1Gi, 500M",
                                       name, value);
        *ret_has = true;
        *ret = v;
        return 0;
}

static int print_json(const AllowanceInput *in, uint64_t swap, AllowanceReason reason, const Density *d, const Policy *p,
                      const HostState *h, const Findings *fs) {
        _cleanup_json_ json_object *o = json_object_new_object();
        if (!o ||
            json_add_int(o, "version", NODESWAP_JSON_VERSION) < 0 ||
            json_add(o, "findings", findings_to_json(fs)) < 0 ||
            (in->has_request ? json_add_u64(o, "request", in->request) : json_add_null(o, "request")) < 0 ||
            (in->has_limit ? json_add_u64(o, "limit", in->limit) : json_add_null(o, "limit")) < 0 ||
            json_add_string(o, "qos", in->qos != POD_QOS_AUTO ? pod_qos_to_string(in->qos) : NULL) < 0 ||
            json_add_bool(o, "critical", in->critical) < 0 ||
            json_add_bool(o, "static_pod", in->static_pod) < 0 ||
            (in->has_priority ? json_add_int(o, "priority", in->priority) : json_add_null(o, "priority")) < 0 ||
            json_add_u64(o, "swap", swap) < 0 ||
            json_add_string(o, "reason", reason != ALLOWANCE_GRANTED ? allowance_reason_to_string(reason) : NULL) < 0 ||
            json_add_string(o, "swap_behavior",
                            in->behavior != SWAP_BEHAVIOR_UNSET ? swap_behavior_to_string(in->behavior) : NULL) < 0 ||
            json_add_string(o, "cgroup", strempty(cgroup_mode_to_string(in->cgroup))) < 0 ||
            json_add_u64(o, "mem_total", in->mem_total) < 0 ||
            json_add_u64(o, "swap_total", in->swap_total) < 0 ||
            json_add_u64(o, "page_size", h->page_size) < 0 ||
            json_add_bool(o, "zswap", zswap_on_after(p, h, false)) < 0 ||
            density_to_json(d, o) < 0)
                return -ENOMEM;
        return json_print(stdout, o);
}

static void print_text(const AllowanceInput *in, uint64_t swap, AllowanceReason reason,
                       const Policy *p, const HostState *h, int verbosity) {
        char a[FORMAT_BYTES_MAX], b[FORMAT_BYTES_MAX], c[FORMAT_BYTES_MAX];

        if (verbosity < 0) {
                /* -q: the result line only */
                printf("Swap: %s\n", reason == ALLOWANCE_GRANTED ? format_bytes(a, sizeof a, swap) : "0");
                return;
        }

        char prio[32] = "";
        if (in->has_priority)
                snprintf(prio, sizeof prio, ", priority %" PRId64, in->priority);
        printf("Request %s, limit %s%s%s%s%s%s\n",
               in->has_request ? format_bytes(a, sizeof a, in->request) : "none",
               in->has_limit ? format_bytes(b, sizeof b, in->limit) : "none",
               in->qos != POD_QOS_AUTO ? ", QoS " : "",
               in->qos != POD_QOS_AUTO ? pod_qos_to_string(in->qos) : "",
               in->critical ? ", critical priority" : "", prio,
               in->static_pod ? ", static or mirror pod" : "");
        printf("Node: RAM %s, swap %s, page size %s\n", format_bytes(a, sizeof a, in->mem_total),
               format_bytes(b, sizeof b, in->swap_total), format_bytes(c, sizeof c, h->page_size));

        if (reason != ALLOWANCE_GRANTED) {
                printf("Swap: 0\n  because %s.\n", allowance_reason_to_string(reason));
        } else {
                _cleanup_free_ char *f = allowance_formula(in, swap);
                printf("Swap: %s\n  %s\n", format_bytes(a, sizeof a, swap), strempty(f));

                uint64_t zram = 0;
                for (size_t i = 0; i < h->n_swaps; i++)
                        if (h->swaps[i].kind == SWAP_KIND_ZRAM)
                                zram += h->swaps[i].size;
                if (zram > 0)
                        printf("  %s of the node's swap is zram: what a container swaps there stays in RAM,\n"
                               "  compressed, and no pod's memory limit accounts for it.\n",
                               format_bytes(a, sizeof a, zram));
        }

        /* Who pays for compressed swap: zswap's pool is charged to the page's cgroup, zram's device
         * memory to none (Documentation/admin-guide/cgroup-v2.rst, memory.zswap.current). */
        if (zswap_on_after(p, h, false))
                printf("zswap is on%s:\n"
                       "  what a container swaps is first kept compressed in RAM, in zswap's pool, and that\n"
                       "  counts against its memory limit (memory.zswap.current); zram's memory would not.\n",
                       p->backend_set && (p->backends & BACKEND_ZSWAP) ? " (the policy's Backend=zswap file)" : "");

        if (p->swap_behavior != SWAP_BEHAVIOR_UNSET && p->swap_behavior != in->behavior) {
                /* what the kubelet would give once nodeswap apply has written the policy's drop-in,
                 * with the swap as it is now */
                AllowanceInput then = *in;
                uint64_t then_swap;
                AllowanceReason then_reason;
                then.behavior = p->swap_behavior;
                if (allowance_compute(&then, &then_swap, &then_reason) < 0)
                        return;
                printf("The policy asks for swapBehavior %s (nodeswap apply writes it); with it and "
                       "today's swap: %s%s%s.\n",
                       swap_behavior_to_string(p->swap_behavior),
                       then_reason == ALLOWANCE_GRANTED ? format_bytes(a, sizeof a, then_swap) : "0",
                       then_reason == ALLOWANCE_GRANTED ? "" : ", because ",
                       strempty(allowance_reason_to_string(then_reason)));
        }
}

int verb_allowance(const CliContext *c) {
        AllowanceInput in = {};
        int r;

        if (parse_size_option("--request", c->request, &in.has_request, &in.request) < 0 ||
            parse_size_option("--limit", c->limit, &in.has_limit, &in.limit) < 0)
                return EXIT_USAGE;
        if (c->qos && pod_qos_from_string(c->qos, &in.qos) < 0) {
                log_error("Invalid --qos '%s': expected burstable, guaranteed or besteffort", c->qos);
                return EXIT_USAGE;
        }
        if (in.has_request && in.has_limit && in.request > in.limit) {
                log_error("--request %s is above --limit %s: the API server rejects such a container", c->request,
                          c->limit);
                return EXIT_USAGE;
        }
        in.critical = c->critical;
        in.static_pod = c->static_pod;
        if (c->priority) {
                /* spec.priority is an int32 */
                char *end = NULL;
                errno = 0;
                long long v = strtoll(c->priority, &end, 10);
                if (errno != 0 || end == c->priority || *end || v < INT32_MIN || v > INT32_MAX) {
                        log_error("Invalid --priority '%s': expected a pod priority, an integer such as 1000 or "
                                  "2000000000", c->priority);
                        return EXIT_USAGE;
                }
                in.has_priority = true;
                in.priority = v;
        }

        Policy p;
        HostState h;
        Findings fs = {};
        r = cli_load(c, LOAD_READ_ONLY, &p, &h, &fs);
        if (r != EXIT_OK) {
                findings_done(&fs);
                return r;
        }
        /* An invalid policy does not stop the answer, which comes from the node. */
        if (!c->json)
                for (size_t i = 0; i < fs.n; i++)
                        finding_print(stderr, &fs.f[i], colors_enabled(STDERR_FILENO));
        if (c->verbosity > 0 && !c->json)
                explain_print(stdout, &p, &h, false);

        KubeletEffective eff;
        kubelet_config_effective(&h.kubelet, NULL, NULL, &eff);
        if (eff.swap_behavior_unknown)
                log_warning("Warning: %s:%u sets swapBehavior %s, neither NoSwap nor LimitedSwap (the kubelet "
                            "refuses it); taking it as unset", eff.swap_behavior_from->path,
                            eff.swap_behavior_from->swap_behavior_line, eff.swap_behavior_value);
        in.behavior = eff.swap_behavior;
        in.cgroup = h.cgroup;
        in.no_swap_controller = h.kubelet_no_swap_controller;
        in.mem_total = h.mem_total;
        in.swap_total = h.swap_total;

        /* What the running containers' allowances take of the node's swap (issue 26); a tree this
         * user may not read counts as none. */
        PodSwap *pods = NULL;
        size_t n_pods = 0;
        if (pods_probe(c->root, &pods, &n_pods) < 0) {
                pods = NULL;
                n_pods = 0;
        }
        Density density = {};
        int dr = h.mem_total > 0 ? allowance_density(&h, pods, n_pods, &density) : -EINVAL;
        pod_swaps_free(pods, n_pods);

        uint64_t swap;
        AllowanceReason reason;
        r = dr < 0 ? dr : allowance_compute(&in, &swap, &reason);
        if (r < 0) {
                log_error("Cannot compute the allowance: MemTotal of this node is unknown");
                r = EXIT_FAIL;
        } else if (c->json) {
                r = print_json(&in, swap, reason, &density, &p, &h, &fs) < 0 ? EXIT_FAIL : EXIT_OK;
                if (r != EXIT_OK)
                        log_error_errno(ENOMEM, "Failed to build the JSON output: %m");
        } else {
                print_text(&in, swap, reason, &p, &h, c->verbosity);
                if (c->verbosity >= 0)
                        density_print_text(stdout, &density);
                r = EXIT_OK;
        }

        findings_done(&fs);
        host_state_done(&h);
        policy_done(&p);
        return r;
}
