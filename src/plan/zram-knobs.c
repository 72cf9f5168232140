/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "plan/zram-knobs.h"

#include "policy/policy.h"

const char *zram_knobs_params_for(const Policy *p, const char *algorithm) {
        if (!algorithm)
                return NULL;
        for (size_t i = 0; p->zram.algorithms && p->zram.algorithms[i]; i++)
                if (streq(p->zram.algorithms[i], algorithm)) {
                        const char *par = p->zram.algorithm_params ? p->zram.algorithm_params[i] : NULL;
                        return par && *par ? par : NULL;
                }
        return NULL;
}

static bool any_params(char **params) {
        for (char **i = params; i && *i; i++)
                if (**i)
                        return true;
        return false;
}

static int feature_missing(Findings *fs, const Policy *p, PolicyKey k, const char *value, const char *what,
                           const char *attr, const char *since) {
        char *msg = strdup_printf("[Zram] %s=%s: this kernel's zram has no %s (%s)", policy_key_name(k),
                                  strempty(value), attr, what);
        char *hint = strdup_printf("%s; or remove [Zram] %s=", since, policy_key_name(k));
        if (!msg || !hint) {
                free(msg);
                free(hint);
                return -ENOMEM;
        }
        int r = findings_add_at(fs, VERDICT_ZRAM_FEATURE_UNAVAILABLE, p, k, value, msg, hint);
        return r < 0 ? r : 1;
}

int zram_knobs_check(const Policy *p, const HostState *h, const char *algorithm, Findings *fs) {
        const ZramDevice *z = h->n_zrams > 0 ? &h->zrams[0] : NULL;
        int n = 0, r;

        if (!z)
                return 0;

        /* The parameters of the algorithm chosen, or of any of the list while none is chosen. */
        if ((algorithm ? zram_knobs_params_for(p, algorithm) != NULL : any_params(p->zram.algorithm_params)) &&
            !z->has_algorithm_params) {
                r = feature_missing(fs, p, POLICY_KEY_ZRAM_ALGORITHM, NULL,
                                    "algorithm parameters such as zstd(level=3)", "algorithm_params",
                                    "kernels from 6.12 on have it");
                if (r < 0)
                        return r;
                n += r;
        }
        if (p->zram.recompress && !z->wb.has_recomp_algorithm) {
                _cleanup_free_ char *v = strv_join(p->zram.recompress, " ");
                if (!v)
                        return -ENOMEM;
                r = feature_missing(fs, p, POLICY_KEY_ZRAM_RECOMPRESS_ALGORITHM, v, "recompression",
                                    "recomp_algorithm", "it needs CONFIG_ZRAM_MULTI_COMP (kernels from 6.2 on)");
                if (r < 0)
                        return r;
                n += r;
        }
        if (!p->zram.writeback)
                return n;
        if (!z->wb.has_backing_dev) {
                r = feature_missing(fs, p, POLICY_KEY_ZRAM_WRITEBACK, p->zram.writeback, "writeback",
                                    "backing_dev", "it needs CONFIG_ZRAM_WRITEBACK");
                return r < 0 ? r : n + r;
        }
        if (p->zram.writeback_limit > 0 && !z->wb.has_writeback_limit) {
                char v[FORMAT_BYTES_MAX];
                r = feature_missing(fs, p, POLICY_KEY_ZRAM_WRITEBACK_LIMIT,
                                    format_bytes(v, sizeof v, p->zram.writeback_limit), "a cap on writeback",
                                    "writeback_limit", "kernels from 5.6 on have it");
                if (r < 0)
                        return r;
                n += r;
        }

        const WritebackTarget *t = &h->writeback;
        const char *problem = NULL;
        if (!policy_writeback_is_file(p)) {
                if (!t->exists)
                        problem = "no such block device";
                else if (!t->is_block)
                        problem = "not a block device (a file for writeback must live outside /dev)";
        } else if (t->exists) {
                if (!t->is_regular)
                        problem = "not a regular file (a symbolic link is never followed)";
                else if (t->uid != 0 || (t->mode & 0022))
                        problem = "the file may be written by others than root: it would hold swapped-out memory";
                else if (t->size < ZRAM_WRITEBACK_UNIT)
                        problem = "the file is empty: remove it and nodeswap makes one as large as [Zram] Size=";
        }
        if (problem) {
                char *msg = strdup_printf("[Zram] Writeback=%s: %s", p->zram.writeback, problem);
                if (!msg)
                        return -ENOMEM;
                r = findings_add_at(fs, VERDICT_ZRAM_WRITEBACK_TARGET, p, POLICY_KEY_ZRAM_WRITEBACK,
                                    p->zram.writeback, msg, NULL);
                if (r < 0)
                        return r;
                n++;
        }
        return n;
}

const char *zram_knobs_backing_dev(const Policy *p, const HostState *h) {
        if (!p->zram.writeback)
                return NULL;
        if (!policy_writeback_is_file(p))
                return p->zram.writeback;
        /* WritebackEncrypt=yes: the mapping over the file's loop device; no: that loop device. */
        return p->zram.writeback_encrypt ? h->writeback.mapping : h->writeback.loop_device;
}

bool zram_knobs_match(const Policy *p, const HostState *h, const ZramDevice *z) {
        if (!p->zram.writeback)
                return !z->wb.backing_dev;
        const char *want = zram_knobs_backing_dev(p, h);
        return want && streq_ptr(z->wb.backing_dev, want);
}

bool zram_knobs_holds_file(const Policy *p, const HostState *h, const ZramDevice *z) {
        if (!p->zram.writeback || !policy_writeback_is_file(p) || !z->wb.backing_dev)
                return false;
        return streq_ptr(z->wb.backing_dev, h->writeback.loop_device) ||
               streq_ptr(z->wb.backing_dev, h->writeback.mapping);
}

char *zram_knobs_describe(const Policy *p, const char *algorithm) {
        char b[FORMAT_BYTES_MAX];
        const char *par = zram_knobs_params_for(p, algorithm);
        _cleanup_free_ char *rec = p->zram.recompress ? strv_join(p->zram.recompress, " ") : NULL;
        _cleanup_free_ char *limit = p->zram.writeback && p->zram.writeback_limit
                ? strdup_printf(", at most %s a day", format_bytes(b, sizeof b, p->zram.writeback_limit))
                : strdup("");
        if ((p->zram.recompress && !rec) || !limit)
                return NULL;
        return strdup_printf("%s%s%s%s%s%s%s%s%s", par ? " (" : "", par ?: "", par ? ")" : "",
                             rec ? ", recompression " : "", strempty(rec),
                             p->zram.writeback ? ", writeback to " : "", strempty(p->zram.writeback),
                             !policy_writeback_is_file(p) ? ""
                             : p->zram.writeback_encrypt ? " (encrypted, on a loop device)"
                                                         : " (on a loop device)",
                             limit);
}
