#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# [Kubelet] NoSwapUnits= through the built binary on fixture trees: plan's line and JSON for the
# kubelet's unit, status's text and JSON (each unit's memory.swap.max and who keeps it out of
# swap), check's kubelet-unit-swappable, and apply and revert under --root (the systemd calls are
# skipped there: nothing is recorded, no drop-in removed).
# Usage: test-cli-noswap.sh NODESWAP FIXTURES
set -uo pipefail

fx=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$(dirname "$(readlink -f "$0")")/../lib/common.sh"
ns=$(under_test "$1" "$tmp") || exit 1
out=$tmp/out
fails=0

fresh() {	# fresh TREE: a copy in $root
	root=$tmp/root
	rm -rf "$root"
	cp -a --sparse=never "$fx/$1" "$root" || exit 1
}
run() {	# run EXPECTED_EXIT ARGS...
	local want=$1 rc
	shift
	"$ns" "$@" >"$out" 2>&1
	rc=$?
	[ "$rc" = "$want" ] || { fail "nodeswap $* exited $rc, expected $want"; sed 's/^/    /' "$out"; return 1; }
}
has() { grep -Eq -- "$1" "$out" && pass "/$1/" || { fail "no /$1/ in:"; sed 's/^/    /' "$out"; }; }
lacks() { ! grep -Eq -- "$1" "$out" && pass "no /$1/" || { fail "/$1/ should not be in:"; sed 's/^/    /' "$out"; }; }
is() {	# is EXPR WANT: the JSON in $out
	local got
	got=$(json "$out" "$1")
	[ "$got" = "$2" ] && pass "$1 = $2" || { fail "$1 = '$got', expected '$2'"; sed 's/^/    /' "$out" | head -40; }
}

limited=$(policy limited <<EOF
[Swap]
Backend=file
[File]
Size=4G
[Kubelet]
SwapBehavior=LimitedSwap
EOF
)
optout=$(policy optout <<EOF
[Swap]
Backend=file
[File]
Size=4G
[Kubelet]
SwapBehavior=LimitedSwap
NoSwapUnits=
EOF
)
matching=$(policy matching <<EOF
[Swap]
Backend=zram file
[Zram]
Size=8G
Algorithm=zstd lz4
Priority=100
[File]
Size=40K
Encrypt=no
Priority=10
[Sysctl]
Swappiness=60
PageCluster=0
[Kubelet]
SwapBehavior=LimitedSwap
EOF
)
cg=sys/fs/cgroup/system.slice/k3s-agent.service

# --- the untouched Pi with a swappable k3s-agent: plan keeps it out of swap --------------------
fresh rpi-untouched
mkdir -p "$root/$cg" && echo max >"$root/$cg/memory.swap.max"
run 0 plan --root "$root" --config "$limited" &&
	has "keeping k3s-agent.service out of swap: memory.swap.max max -> MemorySwapMax=0"
run 0 plan --json --root "$root" --config "$limited" &&
	is "[a['restore'] for a in d['actions'] if a['id'] == 'unit-swap-max:k3s-agent.service']" "[False]"
run 0 status --json --root "$root" --config "$limited" && {
	is "d['no_swap_units'][0]['unit']" "k3s-agent.service"
	is "d['no_swap_units'][0]['memory_swap_max']" "max"
	is "d['no_swap_units'][0]['set_by']" "None"
	is "d['no_swap_units'][0]['listed']" "True"
}
run 0 status --root "$root" --config "$limited" &&
	has "k3s-agent.service +memory.swap.max max \(not yet: nodeswap apply sets MemorySwapMax=0\), the kubelet's unit"
# apply under --root: systemd is not asked, so nothing is recorded for the unit
run 0 apply --root "$root" --config "$limited"
if grep -q '^no_swap_unit=' "$root/var/lib/nodeswap/state" 2>/dev/null; then
	fail "apply under --root recorded a unit it could not set"
else
	pass "nothing recorded under --root"
fi

# --- opted out: check warns -----------------------------------------------------------------
fresh rpi-untouched
mkdir -p "$root/$cg" && echo max >"$root/$cg/memory.swap.max"
run 0 check --root "$root" --config "$optout" &&
	has "warning kubelet-unit-swappable: pods get swap \(LimitedSwap\), and k3s-agent.service may swap too"
run 0 plan --root "$root" --config "$optout" && lacks "out of swap"
# an operator's own MemorySwapMax= is named, and left alone
mkdir -p "$root/etc/systemd/system/k3s-agent.service.d"
printf '[Service]\nMemorySwapMax=1G\n' >"$root/etc/systemd/system/k3s-agent.service.d/override.conf"
run 0 check --root "$root" --config "$limited" &&
	has "hint: set MemorySwapMax=0 in /etc/systemd/system/k3s-agent.service.d/override.conf:2"
run 0 status --json --root "$root" --config "$limited" && {
	is "d['no_swap_units'][0]['set_by']" "operator"
	is "d['no_swap_units'][0]['source']" "/etc/systemd/system/k3s-agent.service.d/override.conf:2"
}

# --- the matching node: nodeswap's setting in effect; revert takes it away ------------------
fresh matching
mkdir -p "$root/$cg" && echo 0 >"$root/$cg/memory.swap.max"
run 0 status --json --root "$root" --config "$matching" && {
	is "d['no_swap_units'][0]['set_by']" "nodeswap"
	is "d['no_swap_units'][0]['memory_swap_max']" "0"
}
run 0 check --root "$root" --config "$matching" && lacks "kubelet-unit-swappable"
run 0 plan --root "$root" --config "$matching" && lacks "out of swap|swap again"
run 0 revert --dry-run --root "$root" --config "$matching" &&
	has "letting k3s-agent.service swap again: memory.swap.max 0 -> MemorySwapMax as its unit files say \(max\) \(nodeswap revert\)"
# the revert itself stops at the fixture's zram device (none to remove below --root); the step is
# skipped there anyway: the drop-in and the record stay for a revert on the host
run 1 revert --root "$root" --config "$matching"
if [ -f "$root/run/systemd/system.control/k3s-agent.service.d/50-MemorySwapMax.conf" ] &&
   grep -q '^no_swap_unit=k3s-agent.service$' "$root/var/lib/nodeswap/state"; then
	pass "control drop-in and record left under --root"
else
	fail "control drop-in or record gone under --root"
fi

echo "$fails failure(s)"
[ "$fails" = 0 ]
