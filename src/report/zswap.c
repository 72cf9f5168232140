/* SPDX-License-Identifier: GPL-2.0-or-later */
/* zswap as status shows it: its parameters, what the kernel command line fixes, and the pool. */
#include "report/zswap.h"

#include <inttypes.h>
#include <json-c/json.h>

void zswap_print_text(FILE *f, const ZswapState *z) {
        char a[FORMAT_BYTES_MAX], b[FORMAT_BYTES_MAX];
        if (z->enabled < 0)
                return;

        fprintf(f, "\nZswap:\n");
        fprintf(f, "  zswap           %s, compressor %s", z->enabled ? "on" : "off", z->compressor ?: "unknown");
        const char *pool = z->param[ZSWAP_PARAM_MAX_POOL_PERCENT], *acc = z->param[ZSWAP_PARAM_ACCEPT_THRESHOLD_PERCENT],
                   *shr = z->param[ZSWAP_PARAM_SHRINKER_ENABLED];
        if (pool)
                fprintf(f, ", pool at most %s%% of RAM", pool);
        if (acc)
                fprintf(f, ", accepts again below %s%% of that", acc);
        if (shr)
                fprintf(f, ", shrinker %s", zswap_value_equal(ZSWAP_PARAM_SHRINKER_ENABLED, shr, "Y") ? "on" : "off");
        fputc('\n', f);
        if (z->meminfo) {
                fprintf(f, "  pool            %s of RAM holds %s of pages", format_bytes(a, sizeof a, z->pool_bytes),
                        format_bytes(b, sizeof b, z->stored_bytes));
                if (z->pool_bytes > 0)
                        fprintf(f, " (%.1f:1)", (double) z->stored_bytes / (double) z->pool_bytes);
                fprintf(f, " (/proc/meminfo Zswap, Zswapped)\n");
        }
        if (z->debugfs)
                fprintf(f, "  pages           %" PRIu64 " stored, %" PRIu64 " written back to swap since boot (debugfs)\n",
                        z->stored_pages, z->written_back_pages);
        for (size_t i = 0; i < _ZSWAP_PARAM_MAX; i++)
                if (z->cmdline[i])
                        fprintf(f, "  command line    zswap.%s=%s (nodeswap never writes it)\n", zswap_param_to_string(i),
                                z->cmdline[i]);
        if (z->enabled)
                fprintf(f, "  charged         to the cgroup of each page it holds (memory.zswap.current): it counts "
                           "against the pod's memory limit\n");
}

static json_object *string_or_null(const char *s) {
        return s ? json_object_new_string(s) : NULL;
}

json_object *zswap_to_json(const ZswapState *z, bool *ret_oom) {
        if (z->enabled < 0)
                return NULL;
        json_object *o = json_object_new_object(), *cmd = json_object_new_object();
        if (!o || !cmd) {
                json_object_put(o);
                json_object_put(cmd);
                *ret_oom = true;
                return NULL;
        }
        json_object_object_add(o, "enabled", json_object_new_boolean(z->enabled));
        for (size_t i = 0; i < _ZSWAP_PARAM_MAX; i++)
                if (i != ZSWAP_PARAM_ENABLED)
                        json_object_object_add(o, zswap_param_to_string(i), string_or_null(z->param[i]));
        json_object_object_add(o, "pool_bytes", z->meminfo ? json_object_new_uint64(z->pool_bytes) : NULL);
        json_object_object_add(o, "stored_bytes", z->meminfo ? json_object_new_uint64(z->stored_bytes) : NULL);
        json_object_object_add(o, "stored_pages", z->debugfs ? json_object_new_uint64(z->stored_pages) : NULL);
        json_object_object_add(o, "written_back_pages",
                               z->debugfs ? json_object_new_uint64(z->written_back_pages) : NULL);
        for (size_t i = 0; i < _ZSWAP_PARAM_MAX; i++)
                if (z->cmdline[i])
                        json_object_object_add(cmd, zswap_param_to_string(i), json_object_new_string(z->cmdline[i]));
        json_object_object_add(o, "cmdline", cmd);
        return o;
}
