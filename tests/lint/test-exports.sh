#!/usr/bin/env bash
# exports.py against small trees whose exports are known: it must pass a tree whose every export is
# used by product code (calls, callbacks, cleanup macros, same-file callers, #define bodies), and
# name each unused or test-only export of a tree that plants them, at its line, with the tests that
# use it; a name found only in a comment or a string is no use.
#   test-exports.sh path/to/exports.py
set -uo pipefail
EXPORTS=$(readlink -f "${1:?usage: $0 path/to/exports.py}")
. "$(dirname "$(readlink -f "$0")")/../lib/common.sh"

tmp=$(mktemp -d /tmp/nodeswap-exports-test.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

put() { mkdir -p "$(dirname "$1")"; cat >"$1"; }

# --- a tree whose every export is used ------------------------------------------------------------
good=$tmp/good
put "$good/src/shared/util.h" <<'EOF'
#pragma once
int util_len(const char *s);
void thing_free(void *p);
#define DEFINE_CLEANUP(name, f) static inline void name##p(void *p) { f(p); }
DEFINE_CLEANUP(thing_free, thing_free);
#define UTIL_TWICE(s) (util_twice(s))
int util_twice(const char *s);
int util_table_entry(int x);
int util_local(int x);
int util_caller(int x);
EOF
put "$good/src/shared/util.c" <<'EOF'
#include "shared/util.h"
static int helper(void) { return 1; }

int util_len(const char *s) {
        return s ? helper() : 0;
}

void thing_free(void *p) {
        (void) p;
}

int util_twice(const char *s)
{
        return 2 * util_len(s);
}

int util_table_entry(int x) { return x; }
static int (*const table[])(int) = { util_table_entry };

int util_local(int x) { return x + 1; }
int util_caller(int x) { return util_local(x) + table[0](x); }
EOF
put "$good/src/cli/main.c" <<'EOF'
#include "shared/util.h"
int main(int argc, char **argv) {
        return UTIL_TWICE(argv[0]) + util_caller(argc);
}
EOF
"$EXPORTS" "$good/src" >"$tmp/good.out"
check "a tree whose exports are all used passes (exit $?)" [ $? = 0 ]
check "and says so ($(cat "$tmp/good.out"))" grep -q 'every export of .* is used by product code (6 exports)' "$tmp/good.out"

# --- the same tree with exports no product code uses ----------------------------------------------
bad=$tmp/bad
cp -a "$good" "$tmp/bad-copy" && mv "$tmp/bad-copy" "$bad"
put "$bad/src/probe/swapfile.h" <<'EOF'
#pragma once
#include <stdint.h>
int swapfile_verify(const char *root, const char *path, uint64_t size,
                    uint64_t page_size, char **ret_problem);
int swapfile_dead(void);
int swapfile_named(void);
EOF
put "$bad/src/probe/swapfile.c" <<'EOF'
#include "probe/swapfile.h"

/* swapfile_named() is named here, and in a string below: neither is a use */
int swapfile_verify(const char *root, const char *path, uint64_t size,
                    uint64_t page_size, char **ret_problem) {
        return root && path && size && page_size && ret_problem;
}

int swapfile_dead(void) { return 0; }

int swapfile_named(void) { return 1; }
static const char *why = "swapfile_named";
const char *swapfile_why(void) { return why; }
EOF
put "$bad/src/cli/status.c" <<'EOF'
#include "probe/swapfile.h"
const char *swapfile_why(void);
int status(void) { return swapfile_why() != 0; }
EOF
put "$bad/tests/unit/test-swapfile.c" <<'EOF'
#include "probe/swapfile.h"
int main(void) { return swapfile_verify("/", "/swapfile", 1, 4096, 0); }
EOF
put "$bad/tests/integration/test-swapfile-kernel.sh" <<'EOF'
"$DRIVER" verify / "$F"   # the driver calls swapfile_verify
EOF
"$EXPORTS" "$bad/src" "$bad/tests" >"$tmp/bad.out"
check "a tree with unused exports fails (exit $?)" [ $? = 1 ]
want() { check "finds $1" grep -qF "$1" "$tmp/bad.out"; }
want 'src/probe/swapfile.c:4: swapfile_verify: used only by tests (tests/integration/test-swapfile-kernel.sh, tests/unit/test-swapfile.c)'
want 'src/probe/swapfile.c:9: swapfile_dead: unused'
want 'src/probe/swapfile.c:11: swapfile_named: unused'
found=$(grep -c '^src/.*: ' "$tmp/bad.out")
check "and nothing else ($found findings: status() is no export anyone calls, yet a caller of one)" [ "$found" = 4 ]
want 'src/cli/status.c:3: status: unused'
check "counts them" grep -q '^4 export(s) no product code uses' "$tmp/bad.out"

echo "$fails check(s) failed"
[ "$fails" = 0 ]
