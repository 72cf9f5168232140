/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* "Did you mean": the nearest known name to a misspelt one (suggest.c); policy_suggest() is the
 * public form (policy.h). */

#include "policy/schema.h"

/* The nearest of names to s, if near enough to be a likely typo; NULL otherwise. A name equal but
 * for case, or starting with s (three letters or more), always qualifies. */
const char *suggest(const char *s, const char *const *names, size_t n);

/* Record an unknown section or key at the current line, naming the nearest known one (or, for a
 * key, the section it belongs in). 0 or -ENOMEM. */
int report_unknown_section(ParseState *st, const char *name);
int report_unknown_key(ParseState *st, const SectionDef *sec, const char *key, const char *value);
