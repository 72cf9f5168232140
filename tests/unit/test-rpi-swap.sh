#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# rpi-swap's configuration -> the units nodeswap masks, through `nodeswap plan` and through
# nodeswap-generator: both must mask the same set, and `status` must name rpi-swap's mechanism.
#
# usage: test-rpi-swap.sh NODESWAP GENERATOR FIXTURES
#
# Every FIXTURES/rpi-swap/CASE/ holds
#   root/                laid over a copy of FIXTURES/rpi-untouched (its /etc/rpi removed first):
#                        rpi-swap's configuration files, its generator (or not), nodeswap's policy
#   expected-masks       the units masked, one a line, sorted (plan's mask-unit actions and the
#                        generator's /dev/null links in its early directory)
#   expected-mechanism   status --json's rpi_swap.mechanism ("null": rpi-swap not installed)
set -uo pipefail
export LC_ALL=C

fx=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$(dirname "$(readlink -f "$0")")/../lib/common.sh"
ns=$(under_test "$1" "$tmp") || exit 1
gen=$(under_test "$2" "$tmp") || exit 1
failed=0

fail() {
        echo "FAIL $case: $*"
        failed=1
}

same() {        # same WHAT EXPECTED-FILE GOT-FILE
        if ! diff -u "$2" "$3" >"$tmp/diff"; then
                fail "$1 differs from $2:"
                sed 's/^/    /' "$tmp/diff"
        fi
}

for dir in "$fx"/rpi-swap/*/; do
        case=$(basename "$dir")
        root=$tmp/$case
        cp -a "$fx/rpi-untouched" "$root"
        rm -rf "$root/etc/rpi"
        cp -a "$dir/root/." "$root/"
        chmod -R go-w "$root"   # nodeswap refuses policy files others may write

        if ! "$ns" plan --root "$root" --json >"$tmp/plan.json" 2>"$tmp/plan.err"; then
                fail "nodeswap plan exited $?: $(cat "$tmp/plan.err")"
                continue
        fi
        python3 -c '
import json, sys
for a in json.load(open(sys.argv[1]))["actions"]:
    if a["kind"] == "mask-unit":
        print(a["target"])' "$tmp/plan.json" | sort >"$tmp/plan-masks"
        same "plan's masks" "$dir/expected-masks" "$tmp/plan-masks"

        out=$tmp/$case-out
        mkdir -p "$out/normal" "$out/early" "$out/late"
        if ! NODESWAP_ROOT=$root SYSTEMD_LOG_TARGET=console "$gen" "$out/normal" "$out/early" "$out/late" \
                2>"$tmp/gen.err"; then
                fail "nodeswap-generator failed: $(cat "$tmp/gen.err")"
                continue
        fi
        find "$out/early" -mindepth 1 -lname /dev/null -printf '%f\n' | sort >"$tmp/gen-masks"
        same "the generator's masks" "$dir/expected-masks" "$tmp/gen-masks"

        "$ns" status --root "$root" --json >"$tmp/status.json" 2>"$tmp/status.err" ||
                fail "nodeswap status exited $?: $(cat "$tmp/status.err")"
        got=$(python3 -c '
import json, sys
r = json.load(open(sys.argv[1])).get("rpi_swap", "missing")
print("null" if r is None else r if isinstance(r, str) else r["mechanism"])' "$tmp/status.json")
        [[ $got == "$(cat "$dir/expected-mechanism")" ]] ||
                fail "status --json rpi_swap.mechanism: got '$got', want '$(cat "$dir/expected-mechanism")'"
        if [[ $got != null ]]; then
                "$ns" status --root "$root" >"$tmp/status.txt" 2>&1
                grep -q "^  mechanism  *$got " "$tmp/status.txt" ||
                        fail "status does not name the mechanism $got: $(cat "$tmp/status.txt")"
                "$ns" check --root "$root" --json >"$tmp/check.json" 2>&1
                grep -q "Mechanism=$got " "$tmp/check.json" ||
                        fail "check's rpi-swap finding does not name Mechanism=$got: $(cat "$tmp/check.json")"
        fi
        [[ $failed == 0 ]] && echo "ok $case: $(wc -l <"$dir/expected-masks") units masked by plan and generator alike"
done
exit $failed
