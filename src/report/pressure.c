/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "report/pressure.h"
#include "report/json.h"

#include <inttypes.h>

static void line_text(FILE *f, const char *kind, const PressureLine *l) {
        if (!l->present) {
                fprintf(f, "  %-15s missing (the kernel wrote no \"%s\" line)\n", kind, kind);
                return;
        }
        fprintf(f, "  %-15s avg10 %.2f %%, avg60 %.2f %%, avg300 %.2f %%, total %" PRIu64 ".%06" PRIu64 " s\n", kind,
                l->avg10, l->avg60, l->avg300, l->total_us / 1000000, l->total_us % 1000000);
}

void pressure_print_text(FILE *f, const NodePressure *np) {
        if (!np->probed)
                return;
        fprintf(f, "\nMemory pressure (PSI):\n");
        if (np->memory.malformed)
                fprintf(f, "  stall           unknown: /proc/pressure/memory is not in the kernel's format "
                           "nodeswap reads\n");
        else if (!np->memory.present)
                fprintf(f, "  stall           missing: no /proc/pressure/memory (PSI is off: psi=0, a kernel "
                           "without CONFIG_PSI)\n");
        else {
                line_text(f, "some", &np->memory.some);
                line_text(f, "full", &np->memory.full);
        }
        const SwapTraffic *t = &np->traffic;
        if (t->has_pswp)
                fprintf(f, "  swap traffic    pswpin %" PRIu64 ", pswpout %" PRIu64 " pages since boot\n", t->pswpin,
                        t->pswpout);
        else
                fprintf(f, "  swap traffic    missing: no pswpin/pswpout in /proc/vmstat\n");
        if (t->has_zswp)
                fprintf(f, "  zswap traffic   zswpin %" PRIu64 ", zswpout %" PRIu64 " pages since boot\n", t->zswpin,
                        t->zswpout);
}

static const char *avg60_text(char *buf, size_t len, const Pressure *p) {
        if (!p->present || !p->full.present)
                return "-";
        snprintf(buf, len, "%.2f%%", p->full.avg60);
        return buf;
}

static const char *count_text(char *buf, size_t len, bool known, uint64_t v) {
        if (!known)
                return "-";
        snprintf(buf, len, "%" PRIu64, v);
        return buf;
}

void pressure_print_pods_text(FILE *f, const PodSwap *pods, size_t n) {
        if (n == 0)
                return;
        fprintf(f, "\nMemory stall (PSI full avg60; swap traffic in pages; -: the kernel keeps none):\n");
        fprintf(f, "  %-10s %-10s %-10s %-10s %s\n", "CONTAINER", "POD", "PSWPIN", "PSWPOUT", "CGROUP");
        for (size_t i = 0; i < n; i++) {
                const CgroupPressure *c = &pods[i].pressure;
                char a[32], b[32], d[32], e[32];
                fprintf(f, "  %-10s %-10s %-10s %-10s %s\n", avg60_text(a, sizeof a, &c->container),
                        avg60_text(b, sizeof b, &c->pod), count_text(d, sizeof d, c->traffic.has_pswp, c->traffic.pswpin),
                        count_text(e, sizeof e, c->traffic.has_pswp, c->traffic.pswpout), pods[i].name);
        }
}

static int line_to_json(json_object *o, const char *kind, const PressureLine *l) {
        static const char *const keys[][4] = {
                { "some_avg10", "some_avg60", "some_avg300", "some_total_us" },
                { "full_avg10", "full_avg60", "full_avg300", "full_total_us" },
        };
        const char *const *k = keys[streq(kind, "full")];
        if (!l->present)
                return json_add_null(o, k[0]) < 0 || json_add_null(o, k[1]) < 0 || json_add_null(o, k[2]) < 0 ||
                                       json_add_null(o, k[3]) < 0
                               ? -ENOMEM
                               : 0;
        return json_add_double(o, k[0], l->avg10) < 0 || json_add_double(o, k[1], l->avg60) < 0 ||
                               json_add_double(o, k[2], l->avg300) < 0 || json_add_u64(o, k[3], l->total_us) < 0
                       ? -ENOMEM
                       : 0;
}

int pressure_to_json(const Pressure *p, json_object **ret) {
        if (!p->present) {
                *ret = NULL;
                return 0;
        }
        _cleanup_json_ json_object *o = json_object_new_object();
        if (!o || line_to_json(o, "some", &p->some) < 0 || line_to_json(o, "full", &p->full) < 0)
                return -ENOMEM;
        *ret = TAKE_PTR(o);
        return 0;
}

static int count_to_json(json_object *o, const char *key, bool known, uint64_t v) {
        return known ? json_add_u64(o, key, v) : json_add_null(o, key);
}

int swap_traffic_to_json(const SwapTraffic *t, json_object **ret) {
        _cleanup_json_ json_object *o = json_object_new_object();
        if (!o || count_to_json(o, "pswpin", t->has_pswp, t->pswpin) < 0 ||
            count_to_json(o, "pswpout", t->has_pswp, t->pswpout) < 0 ||
            count_to_json(o, "zswpin", t->has_zswp, t->zswpin) < 0 ||
            count_to_json(o, "zswpout", t->has_zswp, t->zswpout) < 0)
                return -ENOMEM;
        *ret = TAKE_PTR(o);
        return 0;
}

/* key: the object, or null when v is NULL */
static int add_or_null(json_object *o, const char *key, json_object *v) {
        return v ? json_add(o, key, v) : json_add_null(o, key);
}

int node_pressure_to_json(const NodePressure *np, json_object *o) {
        json_object *p = NULL, *t = NULL;
        if (pressure_to_json(&np->memory, &p) < 0)
                return -ENOMEM;
        if (add_or_null(o, "memory_pressure", p) < 0)
                return -ENOMEM;
        if (swap_traffic_to_json(&np->traffic, &t) < 0 || json_add(o, "swap_traffic", t) < 0)
                return -ENOMEM;
        return 0;
}

int cgroup_pressure_to_json(const CgroupPressure *c, json_object *o) {
        json_object *cp = NULL, *pp = NULL, *t = NULL;
        if (pressure_to_json(&c->container, &cp) < 0 || add_or_null(o, "memory_pressure", cp) < 0 ||
            pressure_to_json(&c->pod, &pp) < 0 || add_or_null(o, "pod_memory_pressure", pp) < 0 ||
            swap_traffic_to_json(&c->traffic, &t) < 0 || json_add(o, "swap_traffic", t) < 0)
                return -ENOMEM;
        return 0;
}
