/* SPDX-License-Identifier: GPL-2.0-or-later */
/* "Did you mean": unknown sections, keys and values named with the nearest known one. */

#include "policy/suggest.h"

static size_t edit_distance(const char *a, const char *b) {
        size_t la = strlen(a), lb = strlen(b);
        size_t row[lb + 1];

        for (size_t j = 0; j <= lb; j++)
                row[j] = j;
        for (size_t i = 1; i <= la; i++) {
                size_t diag = row[0];
                row[0] = i;
                for (size_t j = 1; j <= lb; j++) {
                        size_t up = row[j];
                        size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
                        size_t best = diag + cost;
                        if (row[j - 1] + 1 < best)
                                best = row[j - 1] + 1;
                        if (up + 1 < best)
                                best = up + 1;
                        row[j] = best;
                        diag = up;
                }
        }
        return row[lb];
}

/* The nearest of names to s, if near enough to be a likely typo; NULL otherwise. A name equal but
 * for case, or starting with s (three letters or more), always qualifies. */
const char *suggest(const char *s, const char *const *names, size_t n) {
        const char *best = NULL;
        size_t best_d = SIZE_MAX, len = strlen(s);

        if (len > 64)
                return NULL;
        for (size_t i = 0; i < n; i++) {
                size_t d = strcasecmp(s, names[i]) == 0 ? 0 :
                           len >= 3 && strncasecmp(s, names[i], len) == 0 ? 1 :  /* an abbreviation */
                           edit_distance(s, names[i]);
                if (d < best_d) {
                        best_d = d;
                        best = names[i];
                }
        }
        size_t limit = len / 3 > 2 ? len / 3 : 2;
        return best_d <= limit ? best : NULL;
}

const char *policy_suggest(const char *s, char *const *names) {
        size_t n = 0;
        for (char *const *i = names; i && *i; i++)
                n++;
        if (!s || n == 0 || n > 64)
                return NULL;
        const char *l[64];
        for (size_t i = 0; i < n; i++)
                l[i] = names[i];
        return suggest(s, l, n);
}

/* ---------------------------------------------------------------------------------------------- */
/* Value checks */

int report_unknown_section(ParseState *st, const char *name) {
        const char *names[schema_n_sections];
        for (size_t i = 0; i < schema_n_sections; i++)
                names[i] = schema_sections[i].name;
        const char *s = suggest(name, names, ELEMENTSOF(names));
        if (s)
                return err_at(st, st->line, NULL, NULL, NULL, "unknown section [%s], did you mean [%s]?", name, s);
        return err_at(st, st->line, NULL, NULL, NULL,
                      "unknown section [%s] (known: Swap, Zram, File, Sysctl, Kubelet, Conflicts)", name);
}

int report_unknown_key(ParseState *st, const SectionDef *sec, const char *key, const char *value) {
        const char *names[8], *elsewhere[schema_n_sections];
        size_t n = 0, n_elsewhere = 0;

        for (size_t k = 0; k < sec->n_keys && n < ELEMENTSOF(names); k++)
                names[n++] = sec->keys[k].name;
        const char *s = suggest(key, names, n);

        /* A typo of a key of this section. */
        if (s && edit_distance(key, s) <= 1)
                return err_at(st, st->line, sec->name, key, value, "unknown key '%s', did you mean '%s'?", key, s);

        /* A known key put into the wrong section. */
        for (size_t i = 0; i < schema_n_sections; i++)
                for (size_t k = 0; k < schema_sections[i].n_keys; k++)
                        if (streq(schema_sections[i].keys[k].name, key))
                                elsewhere[n_elsewhere++] = schema_sections[i].name;
        if (n_elsewhere == 1)
                return err_at(st, st->line, sec->name, key, value, "unknown key '%s' in [%s]; it belongs in [%s]",
                              key, sec->name, elsewhere[0]);
        if (n_elsewhere == 2)
                return err_at(st, st->line, sec->name, key, value,
                              "unknown key '%s' in [%s]; it belongs in [%s] or [%s]", key, sec->name,
                              elsewhere[0], elsewhere[1]);

        if (s)
                return err_at(st, st->line, sec->name, key, value, "unknown key '%s', did you mean '%s'?", key, s);
        return err_at(st, st->line, sec->name, key, value, "unknown key '%s' in [%s]", key, sec->name);
}
