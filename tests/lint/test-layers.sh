#!/usr/bin/env bash
# layers.sh against small trees whose violations are known: it must find each one, at its line,
# and nothing in a tree that holds the rules (comments naming calls included).
#   test-layers.sh path/to/layers.sh
set -uo pipefail
LAYERS=$(readlink -f "${1:?usage: $0 path/to/layers.sh}")
. "$(dirname "$(readlink -f "$0")")/../lib/common.sh"

tmp=$(mktemp -d /tmp/nodeswap-layers-test.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

put() { mkdir -p "$(dirname "$1")"; cat >"$1"; }

# --- a tree that holds every rule ------------------------------------------------------------------
good=$tmp/good/src
put "$good/shared/util.h" <<'EOF'
#pragma once
int util(void);
EOF
put "$good/probe/zram.c" <<'EOF'
#include "shared/util.h"
#include "probe/zram.h"
/* read(2) the attribute; "printf" in a comment is no call */
int zram_read(void) { return 0; }
EOF
put "$good/plan/plan.c" <<'EOF'
#include "probe/zram.h"
#include "policy/policy.h"
// open( in a comment, and a name that only ends in a call: reopen_count
static int reopen_count(void) { return 1; }
int plan(void) { return reopen_count(); }
EOF
put "$good/report/report.c" <<'EOF'
#include "plan/plan.h"
#include <stdio.h>
void report(void) { printf("ok\n"); }
EOF
put "$good/generator/main.c" <<'EOF'
#include "probe/state.h"
/* never /sys/class/zram-control: the generator writes units only */
int main(void) { return 0; }
EOF
"$LAYERS" --enforce "$good" >"$tmp/good.out"
check "a tree that holds the rules passes (exit $?)" [ $? = 0 ]
check "and says so" grep -q 'holds every rule' "$tmp/good.out"

# --- a tree with one violation of each rule ---------------------------------------------------------
bad=$tmp/bad/src
cp -a "$tmp/good/src" "$tmp/bad/"
put "$bad/probe/pods.h" <<'EOF'
#pragma once
#include "plan/allowance.h"
EOF
put "$bad/execute/execute.h" <<'EOF'
#pragma once

#include "cli/cli.h"
#include "report/report.h"
EOF
put "$bad/policy/load.c" <<'EOF'
#include "util.h"
int load(void) {
        fprintf(stderr, "no\n");
        return 0;
}
EOF
put "$bad/plan/kubelet.c" <<'EOF'
#include "plan/kubelet.h"
#include <json-c/json.h>
int write_dropin(const char *p) {
        return mkdir(p, 0700);
}
int dropin_gone(const char *p) { return unlink(p); }
uint64_t stale(const HostState *h) { return now_usec() - h->kubelet_started_usec; }
EOF
put "$bad/generator/main.c" <<'EOF'
#include "cli/cli.h"
static const char *z = "/sys/class/zram-control/hot_add";
int main(void) { sd_bus *b = 0; return !z + !b; }
EOF
"$LAYERS" --enforce "$bad" >"$tmp/bad.out"
check "a tree with violations fails when enforced (exit $?)" [ $? = 1 ]
"$LAYERS" "$bad" >"$tmp/bad-report.out"
check "and is skipped, not passed, when not (exit $?)" [ $? = 77 ]
want() { check "finds $1" grep -qF "$1" "$tmp/bad.out"; }
want 'probe/pods.h:2: include: "plan/allowance.h": probe/ may not include plan/'
want 'execute/execute.h:3: include: "cli/cli.h": execute/ may not include cli/'
want 'execute/execute.h:4: include: "report/report.h": execute/ may not include report/'
want 'policy/load.c:1: include: "util.h" names no layer'
want 'policy/load.c:3: logs:'
want 'plan/kubelet.c:2: plan-json:'
want 'plan/kubelet.c:4: plan-io: mkdir()'
want 'plan/kubelet.c:6: plan-io: unlink()'
want 'plan/kubelet.c:7: plan-io: now_usec()'
want 'generator/main.c:1: include: "cli/cli.h": generator/ may not include cli/'
want 'generator/main.c:2: generator:'
want 'generator/main.c:3: generator:'
found=$(grep -c '^[a-z]*/[a-z-]*\.[ch]:[0-9]*: ' "$tmp/bad.out")
check "and nothing else ($found findings)" [ "$found" = 12 ]
check "counts them" grep -q '^layers: 12 violation(s)' "$tmp/bad.out"

echo "$fails check(s) failed"
[ "$fails" = 0 ]
