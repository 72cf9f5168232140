#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Golden tests for nodeswap-generator.
#
# usage: test-generator.sh GENERATOR FIXTURES UNITDIR [CASE...]
#
# Every FIXTURES/CASE/ holds
#   root/          the host as the generator sees it (NODESWAP_ROOT)
#   expected       the three output directories after the run: one line per entry,
#                  "PATH TYPE MODE LINK-TARGET", sorted, then "== FILE" and the contents of
#                  every regular file; @UNITDIR@ stands for the unit directory of the build
#   exit-status    (optional) the exit status, 0 when missing
#   before/        (optional) copied into the output directories before the run
#   stderr         (optional) strings the messages must contain, one a line; without this file
#                  the generator must print nothing
# An expected listing can be regenerated with NODESWAP_GOLDEN_UPDATE=1 (check the diff!).
set -u
umask 022

gen=$1 fixtures=$2 unitdir=$3
shift 3
export LC_ALL=C

cases=("$@")
if [ ${#cases[@]} -eq 0 ]; then
        for d in "$fixtures"/*/; do
                cases+=("$(basename "$d")")
        done
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$(dirname "$(readlink -f "$0")")/../lib/common.sh"
gen=$(under_test "$gen" "$tmp") || exit 1
failed=0

listing() {
        (
                cd "$1" || exit 1
                find normal early late -mindepth 1 -printf '%p %y %m %l\n' | sed 's/ $//' | sort
                find normal early late -type f | sort | while read -r f; do
                        echo "== $f"
                        cat "$f"
                done
        )
}

for c in "${cases[@]}"; do
        dir=$fixtures/$c
        out=$tmp/$c
        mkdir -p "$out/normal" "$out/early" "$out/late"
        if [ -d "$dir/before" ]; then
                cp -a "$dir/before/." "$out/"
                chmod -R go-w "$out"    # modes as under umask 022, whatever the checkout did
        fi

        # A copy, so that a checkout made under umask 002 still passes the policy's check that
        # no one but its owner may write it.
        cp -a "$dir/root" "$out/root" && chmod -R go-w "$out/root"

        rc=0
        NODESWAP_ROOT=$out/root SYSTEMD_LOG_TARGET=console \
                "$gen" "$out/normal" "$out/early" "$out/late" 2>"$out/stderr" || rc=$?

        listing "$out" >"$out/actual"
        if [ "${NODESWAP_GOLDEN_UPDATE:-0}" = 1 ]; then
                sed "s|$unitdir/|@UNITDIR@/|g" "$out/actual" >"$dir/expected"
        fi
        sed "s|@UNITDIR@|$unitdir|g" "$dir/expected" >"$out/expected"

        ok=1
        if ! diff -u "$out/expected" "$out/actual" >"$out/diff"; then
                echo "FAIL $c: output differs from $dir/expected"
                cat "$out/diff"
                ok=0
        fi

        want_rc=0
        [ -f "$dir/exit-status" ] && want_rc=$(cat "$dir/exit-status")
        if [ "$rc" != "$want_rc" ]; then
                echo "FAIL $c: exit status $rc, expected $want_rc"
                ok=0
        fi

        if [ -f "$dir/stderr" ]; then
                while IFS= read -r line; do
                        [ -n "$line" ] || continue
                        if ! grep -qF -- "$line" "$out/stderr"; then
                                echo "FAIL $c: messages lack: $line"
                                ok=0
                        fi
                done <"$dir/stderr"
        elif [ -s "$out/stderr" ]; then
                echo "FAIL $c: unexpected messages"
                ok=0
        fi

        if [ $ok = 1 ]; then
                echo "ok   $c"
        else
                echo "---- messages of $c:"
                cat "$out/stderr"
                failed=1
        fi
done

exit $failed
