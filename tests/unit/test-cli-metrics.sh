#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# nodeswap metrics on the fixture trees, compared with golden files, and checked by promtool.
# Usage: test-cli-metrics.sh NODESWAP FIXTURES
# NODESWAP_UPDATE_GOLDEN=1 rewrites the golden files from the current output (review the diff).
# promtool (Debian's prometheus package) is required under CI=true and skipped with a note
# elsewhere.
set -uo pipefail

fx=$2
gold=$fx/metrics/golden
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$(dirname "$(readlink -f "$0")")/../lib/common.sh"
ns=$(under_test "$1" "$tmp") || exit 1
limited=$tmp/limitedswap-only.conf
zramfile=$tmp/zram-file-limitedswap.conf
install -m 0644 "$fx/status/limitedswap-only.conf" "$limited"
install -m 0644 "$fx/status/zram-file-limitedswap.conf" "$zramfile"
# The trees with a swap file, copied without holes: how sparse a checkout leaves the fixture's
# swap file depends on how it was copied (git, tar, cp), and a sparse one adds a swapfile-holes
# warning to nodeswap_findings.
for t in matching metrics/zswap-writeback; do
        mkdir -p "$tmp/fx/$t"
        cp -a --sparse=never "$fx/$t/." "$tmp/fx/$t/"
done
version=$("$ns" --version | sed -n 's/^nodeswap //p')

promtool=$(command -v promtool || true)
if [ -z "$promtool" ]; then
        if [ "${CI:-}" = true ]; then
                fail "promtool missing (apt-get install prometheus)"
        else
                echo "NOTE: promtool missing: the format is checked by the golden files only"
        fi
fi

# golden NAME EXPECTED_EXIT ARGS...: the exposition equals $gold/NAME.prom (@VERSION@ for the
# version) and promtool finds nothing in it.
golden() {
        local name=$1 want=$2 rc
        shift 2
        "$ns" metrics "$@" >"$tmp/$name.prom" 2>"$tmp/$name.err"
        rc=$?
        check "$name: exit $want" [ "$rc" = "$want" ]
        if [ "${NODESWAP_UPDATE_GOLDEN:-}" = 1 ]; then
                sed "s/version=\"$version\"/version=\"@VERSION@\"/" "$tmp/$name.prom" >"$gold/$name.prom"
        fi
        if sed "s/@VERSION@/$version/" "$gold/$name.prom" | diff -u - "$tmp/$name.prom"; then
                pass "$name: as $gold/$name.prom"
        else
                fail "$name: differs from $gold/$name.prom"
        fi
        if [ -n "$promtool" ]; then
                check "$name: promtool check metrics" "$promtool" check metrics <"$tmp/$name.prom"
        fi
}

# A node that matches its zram + file policy.
golden matching 0 --root "$tmp/fx/matching" --config "$zramfile"
# zswap on with debugfs readable, zram written back to its backing device, a failed last apply,
# a drop-in whose name needs label escaping, containers with zswap, cri-o and containerd.
golden zswap-writeback 0 --pods --root "$tmp/fx/metrics/zswap-writeback" --config "$zramfile"
# The Pi as Raspberry Pi OS leaves it: the policy does not match yet.
golden rpi-untouched 0 --root "$fx/rpi-untouched" --config "$zramfile"
# No policy at all: nothing planned, so no match families.
golden no-policy 0 --root "$fx/rpi-untouched"
# Each container's swap on the systemd cgroup driver's layout (cgroupfs's names: test-metrics.c).
golden pods-systemd 0 --pods --root "$fx/pods/systemd" --config "$limited"
# issue 26: peak, events, allowance, request and the density on a 6.5+ kernel
golden pods-allowance 0 --pods --root "$fx/pods/allowance" --config "$limited"
# A root without /proc/meminfo cannot be read: nodeswap_up 0, exit 1, still well formed.
mkdir -p "$tmp/empty"
golden unreadable 1 --root "$tmp/empty" --config "$limited"

# --output: written atomically, 0644 for node-exporter, no temporary file left, a symlink at the
# path replaced and never followed.
out=$tmp/textfile
mkdir -p "$out"
echo keep >"$tmp/target"
ln -s "$tmp/target" "$out/nodeswap.prom"
"$ns" metrics --root "$tmp/fx/matching" --config "$zramfile" --output "$out/nodeswap.prom"
check "--output: exit 0" [ $? = 0 ]
check "--output: a regular file replaced the symlink" [ -f "$out/nodeswap.prom" ] && [ ! -L "$out/nodeswap.prom" ]
check "--output: the symlink's target untouched" grep -qx keep "$tmp/target"
check "--output: mode 0644" [ "$(stat -c %a "$out/nodeswap.prom")" = 644 ]
check "--output: same text as standard output" cmp -s "$out/nodeswap.prom" "$tmp/matching.prom"
check "--output: no temporary file left" [ "$(ls -A "$out")" = nodeswap.prom ]
"$ns" metrics --root "$tmp/fx/matching" --config "$zramfile" --output "$tmp/no-such-dir/nodeswap.prom" 2>"$tmp/err"
check "--output into a missing directory: exit 1" [ $? = 1 ]
check "--output into a missing directory: says which" grep -q "no-such-dir/nodeswap.prom" "$tmp/err"

exit $((fails > 0))
