/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <json-c/json.h>
#include <stdio.h>

#include "probe/pods.h"
#include "probe/pressure.h"

/* status's memory pressure and swap traffic (probe/pressure.h), as text and JSON. A figure the
 * kernel does not give is said to be missing (text) or null (JSON), never 0. */

/* status's "Memory pressure:" block: the node's PSI lines and /proc/vmstat's swap traffic. */
void pressure_print_text(FILE *f, const NodePressure *np);
/* status --pods' "Memory stall:" table: each container's and its pod's full avg60, its swap traffic. */
void pressure_print_pods_text(FILE *f, const PodSwap *pods, size_t n);

/* {"some_avg10", ..., "full_total_us"} into *ret, or NULL (JSON null) when the file was missing.
 * Returns 0 or -ENOMEM. */
int pressure_to_json(const Pressure *p, json_object **ret);
/* {"pswpin", "pswpout", "zswpin", "zswpout"}, each null when the kernel does not count it. */
int swap_traffic_to_json(const SwapTraffic *t, json_object **ret);
/* The node's "memory_pressure" and "swap_traffic" members of status's object. */
int node_pressure_to_json(const NodePressure *np, json_object *o);
/* A container's "memory_pressure", "pod_memory_pressure" and "swap_traffic" members. */
int cgroup_pressure_to_json(const CgroupPressure *c, json_object *o);
