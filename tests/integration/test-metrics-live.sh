#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# nodeswap metrics on this machine's real kernel: with a zram swap device nodeswap applied, the
# exposition says so, promtool accepts it, and an unprivileged user gets a well-formed exposition
# that says what it could not read. Everything is reverted and restored by the trap, pass or fail.
# Exit 77 (skip) when it cannot run here.
set -uo pipefail

HERE=$(dirname "$(readlink -f "$0")")
. "$HERE/../lib/common.sh"
kernel_test_begin setpriv
if ! command -v promtool >/dev/null; then
	[ "${CI:-}" = true ] && { echo "FAIL: promtool missing (apt-get install prometheus)"; exit 1; }
	echo "SKIP: promtool missing (apt-get install prometheus)"
	exit 77
fi

tmp=$(mktemp -d /tmp/nodeswap-metrics-test.XXXXXX)
kernel_save
cleanup() {
	kernel_restore
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM
NODESWAP=$(under_test "${1:?usage: $0 path/to/nodeswap}" "$tmp") || exit 1
chmod 0755 "$tmp"

z=$(policy zram <<EOF
[Swap]
Backend=zram
[Zram]
Size=32M
Algorithm=lz4 lzo-rle
Priority=77
EOF
)

"$NODESWAP" metrics --pods --config "$z" >"$tmp/before.prom" 2>"$tmp/err"
check "before apply: exit 0" [ $? = 0 ]
check "before apply: promtool" promtool check metrics <"$tmp/before.prom"
check "before apply: the node does not match" grep -qx 'nodeswap_policy_match 0' "$tmp/before.prom"

"$NODESWAP" apply --config "$z" >"$tmp/apply.out" 2>&1
check "apply exits 0" [ $? = 0 ]
dev=$(awk 'NR > 1 && $5 == 77 { print $1 }' /proc/swaps)
check "a zram swap at priority 77 ($dev)" [ -n "$dev" ]

"$NODESWAP" metrics --pods --config "$z" >"$tmp/root.prom" 2>"$tmp/err"
check "as root: exit 0" [ $? = 0 ]
check "as root: promtool" promtool check metrics <"$tmp/root.prom"
check "as root: the device is nodeswap's" grep -qx "nodeswap_swap_owned{path=\"$dev\"} 1" "$tmp/root.prom"
check "as root: its priority" grep -qx "nodeswap_swap_priority{path=\"$dev\"} 77" "$tmp/root.prom"
check "as root: its algorithm" grep -q "^nodeswap_zram_info{device=\"${dev#/dev/}\",algorithm=\"lz4\",swap=\"1\",owned=\"1\"} 1$" "$tmp/root.prom"
check "as root: the node matches" grep -qx 'nodeswap_policy_match 1' "$tmp/root.prom"
check "as root: the last apply succeeded" grep -qx 'nodeswap_last_run_success{command="apply"} 1' "$tmp/root.prom"
check "as root: the page size" grep -qx "nodeswap_page_size_bytes $(getconf PAGESIZE)" "$tmp/root.prom"
check "as root: no unreadable file" bash -c "! grep -q '^nodeswap_unreadable_info{' '$tmp/root.prom'"

setpriv --reuid=65534 --regid=65534 --clear-groups "$NODESWAP" metrics --pods --config "$z" >"$tmp/nobody.prom" 2>"$tmp/err"
rc=$?
check "as nobody: exit 0 (rc $rc: $(head -c 200 "$tmp/err"))" [ $rc = 0 ]
check "as nobody: promtool" promtool check metrics <"$tmp/nobody.prom"
check "as nobody: the swap area is still seen" grep -qx "nodeswap_swap_priority{path=\"$dev\"} 77" "$tmp/nobody.prom"
check "as nobody: nodeswap's state is said to be unreadable" grep -q '^nodeswap_unreadable_info{path="/var/lib/nodeswap/state"} 1$' "$tmp/nobody.prom"
check "as nobody: the swap file's directory is said to be unreadable" grep -q '^nodeswap_unreadable_info{path="/var/lib/nodeswap/swapfile"} 1$' "$tmp/nobody.prom"

"$NODESWAP" revert --config "$z" >"$tmp/revert.out" 2>&1
check "revert exits 0" [ $? = 0 ]
[ "$fails" = 0 ]
