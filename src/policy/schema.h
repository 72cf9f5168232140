/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* The policy's schema: every section and key, its parser and its default (schema.c). A new key
 * is added there: its field in Policy and its PolicyKey (policy.h), its default (DEFAULT_*) and
 * policy_init_defaults(), its parser and its row in the section's table. */

#include "policy/parse.h"

/* Parses value into st->p. Returns 0; -EINVAL with *ret_msg saying why; -ENOMEM. */
typedef int (*KeyParser)(ParseState *st, const char *value, char **ret_msg);

typedef struct KeyDef {
        const char *name;
        KeyParser parse;
        PolicyKey id;
} KeyDef;

typedef struct SectionDef {
        const char *name;
        const KeyDef *keys;
        size_t n_keys;
} SectionDef;

extern const SectionDef schema_sections[];
extern const size_t schema_n_sections;

const SectionDef *schema_section_find(const char *name);
const KeyDef *schema_key_find(const SectionDef *sec, const char *name);
