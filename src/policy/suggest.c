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

/* The search for the name nearest to s, one candidate at a time, so that names can come from an
 * array or straight from the schema's tables. */
typedef struct Nearest {
        const char *s;
        size_t len;
        const char *best;
        size_t best_d;
} Nearest;

static Nearest nearest_init(const char *s) {
        return (Nearest) { .s = s, .len = strlen(s), .best_d = SIZE_MAX };
}

static void nearest_consider(Nearest *n, const char *name) {
        if (n->len > 64)
                return;
        size_t d = strcasecmp(n->s, name) == 0 ? 0 :
                   n->len >= 3 && strncasecmp(n->s, name, n->len) == 0 ? 1 :  /* an abbreviation */
                   edit_distance(n->s, name);
        if (d < n->best_d) {
                n->best_d = d;
                n->best = name;
        }
}

/* The nearest name if near enough to be a likely typo; NULL otherwise. */
static const char *nearest_result(const Nearest *n) {
        size_t limit = n->len / 3 > 2 ? n->len / 3 : 2;
        return n->best_d <= limit ? n->best : NULL;
}

/* The nearest of names to s, if near enough to be a likely typo; NULL otherwise. A name equal but
 * for case, or starting with s (three letters or more), always qualifies. */
const char *suggest(const char *s, const char *const *names, size_t n) {
        Nearest near = nearest_init(s);
        for (size_t i = 0; i < n; i++)
                nearest_consider(&near, names[i]);
        return nearest_result(&near);
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
/* Unknown sections and keys, named from the schema's tables (a new section or key is suggested
 * without a change here) */

int report_unknown_section(ParseState *st, const char *name) {
        Nearest near = nearest_init(name);
        for (size_t i = 0; i < schema_n_sections; i++)
                nearest_consider(&near, schema_sections[i].name);
        const char *s = nearest_result(&near);
        if (s)
                return err_at(st, st->line, NULL, NULL, NULL, "unknown section [%s], did you mean [%s]?", name, s);

        char known[256] = "";
        for (size_t i = 0; i < schema_n_sections; i++)
                if (strlen(known) + strlen(schema_sections[i].name) + 3 < sizeof(known)) {
                        if (i > 0)
                                strcat(known, ", ");
                        strcat(known, schema_sections[i].name);
                }
        return err_at(st, st->line, NULL, NULL, NULL, "unknown section [%s] (known: %s)", name, known);
}

int report_unknown_key(ParseState *st, const SectionDef *sec, const char *key, const char *value) {
        const char *elsewhere[2];
        size_t n_elsewhere = 0;

        Nearest near = nearest_init(key);
        for (size_t k = 0; k < schema_n_keys; k++)
                if (streq(schema_keys[k].section, sec->name))
                        nearest_consider(&near, schema_keys[k].name);
        const char *s = nearest_result(&near);

        /* A typo of a key of this section. */
        if (s && edit_distance(key, s) <= 1)
                return err_at(st, st->line, sec->name, key, value, "unknown key '%s', did you mean '%s'?", key, s);

        /* A known key put into the wrong section. */
        for (size_t k = 0; k < schema_n_keys; k++)
                if (streq(schema_keys[k].name, key)) {
                        if (n_elsewhere < ELEMENTSOF(elsewhere))
                                elsewhere[n_elsewhere] = schema_keys[k].section;
                        n_elsewhere++;  /* three or more: too many to name */
                }
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
