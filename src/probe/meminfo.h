/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include "policy/policy.h"

/* The node's memory (/proc/meminfo) and page size: the one reader of both, used by probe(), by
 * the CLI before it loads the policy and by nodeswap-generator. Everything below root
 * (path_join_root). */

typedef struct MemInfo {
        /* bytes; 0 when the field is missing */
        uint64_t mem_total, mem_available, swap_total, swap_free;
        bool has_mem_total;
        /* "Zswap:" (the pool) and "Zswapped:" (what it holds), kernels >= 5.19 built with zswap */
        bool has_zswap;
        uint64_t zswap, zswapped;
} MemInfo;

/* Parse the text of /proc/meminfo: "Key:   N kB" lines. Fields nodeswap does not use, lines that
 * are not "Key: number" and values that overflow are skipped; a field given twice takes the
 * last value. Returns 0 (ret always written), -EINVAL for a NULL text. */
int meminfo_parse(const char *text, MemInfo *ret);

/* Read and parse root/proc/meminfo. -errno when it cannot be read. */
int meminfo_read(const char *root, MemInfo *ret);

/* The kernel's page size: sysconf(_SC_PAGESIZE) on the host; below a fixture root the first
 * "KernelPageSize:" of root/proc/self/smaps when there is one (a tree taken from a 16 KiB-page
 * node), else the host's. Never fails (4096 when even sysconf does). Not checked: callers test
 * it with page_size_valid() where a header depends on it. */
uint64_t page_size_read(const char *root);

/* What policy sizes are evaluated against, read before the policy: MemTotal and the page size.
 * -ENOENT when /proc/meminfo has no MemTotal, -errno when it cannot be read. */
int probe_context(const char *root, PolicyContext *ret);
