/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* The policy's schema: one table of rows (schema.c), a row per key: its section and name, its
 * parser, where its value goes in Policy, its bounds and its default. A new key is its field in
 * Policy and its PolicyKey (policy.h), and its row; a generic parser (sizes, plain numbers,
 * percentages, time spans, paths, yes/no) or one of its own. */

#include "policy/parse.h"

typedef struct KeyDef KeyDef;

/* Parses value into st->p where k says. Returns 0; -EINVAL with *ret_msg saying why; -ENOMEM. */
typedef int (*KeyParser)(ParseState *st, const KeyDef *k, const char *value, char **ret_msg);

struct KeyDef {
        const char *section;
        const char *name;
        PolicyKey id;
        KeyParser parse;
        size_t offset;          /* where the value goes: offsetof(Policy, ...) */
        size_t expr;            /* sizes: where the expression as written goes (has_expr);
                                 * algorithm lists: where their parameters go */
        bool has_expr;
        uint64_t min, max;      /* numbers, percentages, time spans; algorithm lists: how many */
        uint64_t unit;          /* sizes: rounded down to this, 0: the page size */
        const char *what;       /* the value's name in messages ("priority", "a swap file") */
        const char *const *dirs;/* paths: where the value may not live (NULL-terminated) */
        const char *def;        /* the default as a policy file writes it; NULL: the parser's empty */
        bool empty_is_value;    /* an empty assignment is not the default (Units= empties the list) */
};

typedef struct SectionDef {
        const char *name;
} SectionDef;

extern const KeyDef schema_keys[];
extern const size_t schema_n_keys;
extern const SectionDef schema_sections[];
extern const size_t schema_n_sections;

const SectionDef *schema_section_find(const char *name);
const KeyDef *schema_key_find(const SectionDef *sec, const char *name);
const KeyDef *schema_key(PolicyKey id);

/* Parses one assignment with the key's parser; an empty value is the key's default. */
int schema_parse(ParseState *st, const KeyDef *k, const char *value, char **ret_msg);
