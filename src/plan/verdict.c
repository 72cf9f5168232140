/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The table of verdicts (verdict.h) and the one way every command prints a finding. */
#include "plan/verdict.h"
#include "shared/string-table.h"

#include <assert.h>

#define VERDICT_ROW(name, i, sev, sum) [VERDICT_##name] = { .id = i, .severity = SEVERITY_##sev, .summary = sum },
static const VerdictInfo verdict_table[_VERDICT_MAX] = { VERDICT_TABLE(VERDICT_ROW) };
#undef VERDICT_ROW

static const char *const severity_table[_SEVERITY_MAX] = {
        [SEVERITY_INFO] = "info",
        [SEVERITY_WARNING] = "warning",
        [SEVERITY_ERROR] = "error",
};

DEFINE_STRING_TABLE_TO_STRING(severity, Severity, severity_table);

const VerdictInfo *verdict_info(Verdict v) {
        if ((size_t) v >= ELEMENTSOF(verdict_table))
                return NULL;
        return &verdict_table[v];
}

static void finding_done(Finding *f) {
        free(f->message);
        free(f->hint);
        free(f->file);
        free(f->section);
        free(f->key);
        free(f->value);
}

void findings_free(Finding *f, size_t n) {
        for (size_t i = 0; i < n; i++)
                finding_done(&f[i]);
        free(f);
}

void findings_done(Findings *fs) {
        findings_free(fs->f, fs->n);
        *fs = (Findings) {};
}

size_t findings_count(const Findings *fs, Severity s) {
        size_t n = 0;
        for (size_t i = 0; i < fs->n; i++)
                n += fs->f[i].severity == s;
        return n;
}

bool findings_has(const Findings *fs, Verdict v) {
        for (size_t i = 0; i < fs->n; i++)
                if (fs->f[i].verdict == v)
                        return true;
        return false;
}

static int push(Findings *fs, Finding *f) {
        Finding *n = realloc(fs->f, sizeof(Finding) * (fs->n + 1));
        if (!n) {
                finding_done(f);
                return -ENOMEM;
        }
        fs->f = n;
        fs->f[fs->n++] = *f;
        return 0;
}

static Finding finding_new(Verdict v, char *message, char *hint) {
        const VerdictInfo *i = verdict_info(v);
        assert(i);
        return (Finding) { .verdict = v, .severity = i->severity, .id = i->id, .message = message, .hint = hint };
}

int findings_add(Findings *fs, Verdict v, char *message, char *hint) {
        if (!message) {
                free(hint);
                return -ENOMEM;
        }
        Finding f = finding_new(v, message, hint);
        return push(fs, &f);
}

static int dup_or_null(const char *s, char **ret) {
        *ret = NULL;
        if (s && !(*ret = strdup(s)))
                return -ENOMEM;
        return 0;
}

int findings_add_at(Findings *fs, Verdict v, const Policy *p, PolicyKey k, const char *value, char *message,
                    char *hint) {
        if (!message) {
                free(hint);
                return -ENOMEM;
        }
        Finding f = finding_new(v, message, hint);
        const Origin *o = p && (size_t) k < _POLICY_KEY_MAX ? &p->origin[k] : NULL;
        if (o && o->file) {
                f.line = o->line;
                if (dup_or_null(o->file, &f.file) < 0 || dup_or_null(policy_key_section(k), &f.section) < 0 ||
                    dup_or_null(policy_key_name(k), &f.key) < 0 || dup_or_null(value, &f.value) < 0) {
                        finding_done(&f);
                        return -ENOMEM;
                }
        }
        return push(fs, &f);
}

int findings_add_policy_error(Findings *fs, Verdict v, const PolicyError *e) {
        Finding f = finding_new(v, NULL, NULL);
        f.line = e->line;
        if (dup_or_null(e->message, &f.message) < 0 || !f.message || dup_or_null(e->file, &f.file) < 0 ||
            dup_or_null(e->section, &f.section) < 0 || dup_or_null(e->key, &f.key) < 0 ||
            dup_or_null(e->value, &f.value) < 0 ||
            dup_or_null(v == VERDICT_POLICY_UNREADABLE ? "run as root, or make it readable"
                                                       : "fix the line named (nodeswap.conf(5) lists every key); "
                                                         "nothing is applied while the policy has an error",
                        &f.hint) < 0) {
                finding_done(&f);
                return -ENOMEM;
        }
        return push(fs, &f);
}

int findings_merge(Findings *to, Findings *from, bool unique_ids) {
        for (size_t i = 0; i < from->n; i++) {
                if (unique_ids && findings_has(to, from->f[i].verdict)) {
                        finding_done(&from->f[i]);
                        continue;
                }
                int r = push(to, &from->f[i]);
                if (r < 0) {
                        for (size_t j = i + 1; j < from->n; j++)
                                finding_done(&from->f[j]);
                        free(from->f);
                        *from = (Findings) {};
                        return r;
                }
        }
        free(from->f);
        *from = (Findings) {};
        return 0;
}

char *finding_where(const Finding *f) {
        if (!f->file)
                return NULL;
        char line[16] = "";
        if (f->line > 0)
                snprintf(line, sizeof line, ":%u", f->line);
        if (!f->key)
                return strdup_printf("%s%s", f->file, line);
        return strdup_printf("%s%s: %s%s%s%s=%s", f->file, line, f->section ? "[" : "", strempty(f->section),
                             f->section ? "] " : "", f->key, strempty(f->value));
}

void finding_print(FILE *out, const Finding *f, bool color) {
        const char *on = !color ? "" : f->severity == SEVERITY_ERROR ? "\033[31m"
                                     : f->severity == SEVERITY_WARNING ? "\033[33m" : "";
        const char *off = color && *on ? "\033[0m" : "";
        _cleanup_free_ char *where = finding_where(f);
        fprintf(out, "%s%-7s%s %s: %s\n", on, strempty(severity_to_string(f->severity)), off, f->id,
                strempty(f->message));
        if (where)
                fprintf(out, "        at: %s\n", where);
        if (f->hint)
                fprintf(out, "        hint: %s\n", f->hint);
}
