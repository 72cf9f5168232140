/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The policy: its lifetime, the built-in revert policy, and the errors policy_load() returns.
 *
 * The rest lives next to it: schema.c (every key, its parser and its default), load.c (the search
 * path, trust checks and files), parse.c (the line reader in front of inih), suggest.c ("did you
 * mean"), validate.c (checks across keys), values.c (value checks several keys share) and size.c
 * (size expressions).
 */

#include "policy/parse.h"
#include "shared/page-size.h"

/* ---------------------------------------------------------------------------------------------- */
/* Errors */

void policy_error_done(PolicyError *e) {
        free(e->file);
        free(e->section);
        free(e->key);
        free(e->value);
        free(e->message);
        *e = (PolicyError) {};
}

void policy_errors_clear(PolicyErrors *e) {
        if (!e)
                return;
        for (size_t i = 0; i < e->n; i++)
                policy_error_done(&e->errors[i]);
        free(e->errors);
        *e = (PolicyErrors) {};
}

/* Values come from files anyone may hand us: never print control characters raw. */
static void fputs_escaped(const char *s, FILE *f) {
        for (; *s; s++) {
                unsigned char c = (unsigned char) *s;
                if (c < 0x20 || c == 0x7f)
                        fprintf(f, "\\x%02x", c);
                else
                        fputc(c, f);
        }
}

char *policy_error_format(const PolicyError *e) {
        char *buf = NULL;
        size_t size = 0;
        FILE *f = open_memstream(&buf, &size);
        if (!f)
                return NULL;

        if (e->file) {
                fputs_escaped(e->file, f);
                if (e->line > 0)
                        fprintf(f, ":%u", e->line);
                fputs(": ", f);
        }
        if (e->section || e->key) {
                if (e->section)
                        fprintf(f, "[%s]", e->section);
                if (e->key) {
                        if (e->section)
                                fputc(' ', f);
                        fputs_escaped(e->key, f);
                        fputc('=', f);
                        if (e->value)
                                fputs_escaped(e->value, f);
                }
                fputs(": ", f);
        }
        fputs_escaped(strempty(e->message), f);

        if (fclose(f) != 0) {
                free(buf);
                return NULL;
        }
        return buf;
}

/* ---------------------------------------------------------------------------------------------- */
/* Defaults */

void policy_done(Policy *p) {
        if (!p)
                return;
        strv_free(p->files);
        free(p->zram.size_expr);
        free(p->zram.mem_limit_expr);
        strv_free(p->zram.algorithms);
        strv_free(p->zswap.compressors);
        strv_free(p->zram.algorithm_params);
        strv_free(p->zram.recompress);
        strv_free(p->zram.recompress_params);
        free(p->zram.writeback);
        free(p->file.path);
        free(p->file.size_expr);
        free(p->dropin);
        free(p->kubelet_unit);
        free(p->memory_eviction);
        strv_free(p->conflict_units);
        strv_free(p->no_swap_units);
        *p = (Policy) {};
}

bool policy_context_valid(const PolicyContext *ctx) {
        return ctx && ctx->ram > 0 && page_size_valid(ctx->page_size);
}

/* The policy "nodeswap revert" plans against: the built-in defaults (so the [Conflicts] units and
 * the kubelet drop-in path are known) with Backend=none and SwapBehavior=NoSwap. plan() treats
 * PlanOptions.revert specially (it unmasks instead of masking, removes nodeswap's own devices and
 * drop-in, restores sysctls); this policy only supplies the names it needs. found is true: it is a
 * policy to act on, even though no file was read. */
int policy_revert(Policy *ret, const PolicyContext *ctx) {
        Policy p;
        int r = policy_init_defaults(&p, ctx);
        if (r < 0)
                return r;
        p.found = true;
        p.backend_set = true;
        p.backends = 0;
        p.swap_behavior = SWAP_BEHAVIOR_NO_SWAP;
        *ret = p;
        return 0;
}

/* ---------------------------------------------------------------------------------------------- */
/* Parse state */

