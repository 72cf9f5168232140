/* SPDX-License-Identifier: GPL-2.0-or-later */
/* json-c with every allocation checked, and the findings as JSON. */
#include "report/json.h"

int json_add(json_object *o, const char *key, json_object *v) {
        if (!v || json_object_object_add(o, key, v) < 0) {
                json_object_put(v);
                return -ENOMEM;
        }
        return 0;
}

int json_add_null(json_object *o, const char *key) {
        return json_object_object_add(o, key, NULL) < 0 ? -ENOMEM : 0;
}

int json_add_string(json_object *o, const char *key, const char *s) {
        return s ? json_add(o, key, json_object_new_string(s)) : json_add_null(o, key);
}

int json_add_int(json_object *o, const char *key, int64_t v) {
        return json_add(o, key, json_object_new_int64(v));
}

int json_add_u64(json_object *o, const char *key, uint64_t v) {
        return json_add(o, key, json_object_new_uint64(v));
}

int json_add_double(json_object *o, const char *key, double v) {
        return json_add(o, key, json_object_new_double(v));
}

int json_add_bool(json_object *o, const char *key, bool v) {
        return json_add(o, key, json_object_new_boolean(v));
}

int json_add_tristate(json_object *o, const char *key, int v) {
        return v < 0 ? json_add_null(o, key) : json_add_bool(o, key, v > 0);
}

int json_append(json_object *a, json_object *v) {
        if (!v || json_object_array_add(a, v) < 0) {
                json_object_put(v);
                return -ENOMEM;
        }
        return 0;
}

int json_append_string(json_object *a, const char *s) {
        return json_append(a, json_object_new_string(s));
}

int json_print(FILE *f, json_object *o) {
        const char *s = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE);
        if (!s)
                return -ENOMEM;
        fprintf(f, "%s\n", s);
        return 0;
}

static json_object *finding_to_json(const Finding *f) {
        _cleanup_json_ json_object *o = json_object_new_object();
        if (!o ||
            json_add_string(o, "id", f->id) < 0 ||
            json_add_string(o, "severity", severity_to_string(f->severity)) < 0 ||
            json_add_string(o, "message", f->message) < 0 ||
            json_add_string(o, "hint", f->hint) < 0 ||
            json_add_string(o, "file", f->file) < 0 ||
            (f->file && f->line > 0 ? json_add_int(o, "line", f->line) : json_add_null(o, "line")) < 0 ||
            json_add_string(o, "section", f->section) < 0 ||
            json_add_string(o, "key", f->key) < 0 ||
            json_add_string(o, "value", f->value) < 0)
                return NULL;
        return TAKE_PTR(o);
}

json_object *findings_to_json(const Findings *fs) {
        _cleanup_json_ json_object *a = json_object_new_array();
        if (!a)
                return NULL;
        for (size_t i = 0; i < fs->n; i++)
                if (json_append(a, finding_to_json(&fs->f[i])) < 0)
                        return NULL;
        return TAKE_PTR(a);
}
