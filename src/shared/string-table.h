/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* The names of an enum's values, written once as a table indexed by the value:
 *
 *   static const char *const fruit_table[_FRUIT_MAX] = {
 *           [FRUIT_APPLE] = "apple",
 *           [FRUIT_PEAR] = "pear",
 *   };
 *   DEFINE_STRING_TABLE_LOOKUP(fruit, Fruit, fruit_table);
 *
 * defines
 *
 *   const char *fruit_to_string(Fruit v);                  the name; NULL for a value without one
 *   int fruit_from_string(const char *s, Fruit *ret);      0 and *ret; -EINVAL (ret untouched)
 *                                                          for NULL or a name not in the table
 *
 * whose prototypes go into the module's header. DEFINE_STRING_TABLE_TO_STRING() defines the first
 * alone, for names that are printed and never parsed; the DEFINE_PRIVATE_ forms define them static,
 * for an enum that one file keeps to itself. A slot left NULL names nothing, so a table of
 * bit flags ([STORAGE_SSD] = "ssd" with STORAGE_SSD = 1 << 1) works as well: a value with several
 * bits, or none, has no name. Matching is exact (case-sensitive), as in the policy. */

#include "shared/util.h"

/* The index of s in table[0..n), or -EINVAL. */
static inline int string_table_lookup(const char *const *table, size_t n, const char *s) {
        if (!s)
                return -EINVAL;
        for (size_t i = 0; i < n; i++)
                if (table[i] && streq(table[i], s))
                        return (int) i;
        return -EINVAL;
}

#define _DEFINE_STRING_TABLE_TO_STRING(scope, name, type, table)                                       \
        scope const char *name##_to_string(type v) {                                                    \
                return (size_t) v < ELEMENTSOF(table) ? table[(size_t) v] : NULL;                       \
        }

#define _DEFINE_STRING_TABLE_FROM_STRING(scope, name, type, table)                                     \
        scope int name##_from_string(const char *s, type *ret) {                                        \
                int _i_ = string_table_lookup(table, ELEMENTSOF(table), s);                             \
                if (_i_ < 0)                                                                            \
                        return _i_;                                                                     \
                *ret = (type) _i_;                                                                      \
                return 0;                                                                               \
        }

#define DEFINE_STRING_TABLE_TO_STRING(name, type, table) _DEFINE_STRING_TABLE_TO_STRING(, name, type, table)
#define DEFINE_STRING_TABLE_FROM_STRING(name, type, table) _DEFINE_STRING_TABLE_FROM_STRING(, name, type, table)
#define DEFINE_STRING_TABLE_LOOKUP(name, type, table)                                                  \
        DEFINE_STRING_TABLE_TO_STRING(name, type, table)                                               \
        DEFINE_STRING_TABLE_FROM_STRING(name, type, table)

/* The same as static functions, for an enum private to one file. */
#define DEFINE_PRIVATE_STRING_TABLE_TO_STRING(name, type, table)                                       \
        _DEFINE_STRING_TABLE_TO_STRING(static, name, type, table)
#define DEFINE_PRIVATE_STRING_TABLE_LOOKUP(name, type, table)                                          \
        _DEFINE_STRING_TABLE_TO_STRING(static, name, type, table)                                      \
        _DEFINE_STRING_TABLE_FROM_STRING(static, name, type, table)
