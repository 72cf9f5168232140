/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <json-c/json.h>

#include "plan/verdict.h"

/* Checked json-c. json-c returns NULL when it cannot allocate an object and -1 when it cannot add
 * one, and json_object_object_add(o, key, NULL) stores JSON null without complaint: a document
 * built with the bare calls has null where memory ran out. These add one member (json_add_*) or
 * one element (json_append_*) and return 0, or -ENOMEM. A NULL string, a negative tristate and
 * json_add_null() give JSON null on purpose. json_add() and json_append() own the value they are
 * given, also when they fail, and take a NULL value for an allocation that failed. */
int json_add(json_object *o, const char *key, json_object *v);
int json_add_null(json_object *o, const char *key);
int json_add_string(json_object *o, const char *key, const char *s);
int json_add_int(json_object *o, const char *key, int64_t v);
int json_add_u64(json_object *o, const char *key, uint64_t v);
int json_add_double(json_object *o, const char *key, double v);
int json_add_bool(json_object *o, const char *key, bool v);
/* v < 0: null (unknown), else true or false */
int json_add_tristate(json_object *o, const char *key, int v);
int json_append(json_object *a, json_object *v);
int json_append_string(json_object *a, const char *s);

static inline void json_object_putp(json_object **o) {
        json_object_put(*o);
}
#define _cleanup_json_ _cleanup_(json_object_putp)

/* The document as nodeswap prints every --json output: pretty, "/" not escaped, then a newline. */
int json_print(FILE *f, json_object *o);

/* The findings as JSON: an array of {"id", "severity", "message", "hint", "file", "line",
 * "section", "key", "value"} (nodeswap(8), JSON OUTPUT); NULL on ENOMEM. */
json_object *findings_to_json(const Findings *fs);
