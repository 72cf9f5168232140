#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Backend=zswap file, the built binary on a fixture tree (rpi-untouched with tests/fixtures/zswap's
# zswap parameters, /proc/crypto and /proc/cmdline): plan, apply and revert through --root (the
# parameter files of the tree are written), the kernel command line's say, parameters this kernel
# lacks, check's zswap-with-zram, status and allowance.
# Usage: test-cli-zswap.sh NODESWAP FIXTURES
set -uo pipefail

fx=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$(dirname "$(readlink -f "$0")")/../lib/common.sh"
ns=$(under_test "$1" "$tmp") || exit 1
out=$tmp/out
not() { ! "$@"; }

# a fresh tree in $root
fresh() {
	root=$tmp/root
	rm -rf "$root"
	cp -a "$fx/rpi-untouched" "$root" && cp -a "$fx/zswap/overlay/." "$root/" || exit 1
	rm -f "$root/etc/nodeswap/nodeswap.conf"
	Z=$root/sys/module/zswap/parameters
}
run() {	# run EXPECTED_EXIT ARGS...
	local want=$1 rc
	shift
	"$ns" "$@" >"$out" 2>&1
	rc=$?
	[ "$rc" = "$want" ] || { fail "nodeswap $* exited $rc, expected $want"; sed 's/^/    /' "$out"; return 1; }
}
has() { grep -Eq -- "$1" "$out" || { fail "no /$1/ in:"; sed 's/^/    /' "$out"; }; }
lacks() { ! grep -Eq -- "$1" "$out" || { fail "/$1/ should not be in:"; sed 's/^/    /' "$out"; }; }
val() { cat "$Z/$1"; }

pz=$(policy zswap <<EOF
[Swap]
Backend=zswap file
[File]
Size=1G
[Zswap]
Compressor=zstd lz4 lzo
MaxPoolPercent=25
EOF
)

# --- plan: the first offered compressor, enabled last ----------------------------------------
fresh
run 0 plan --root "$root" --config "$pz" && {
	has '^ *[0-9]+\. setting zswap.compressor: lzo -> zstd \(policy \[Zswap\] Compressor=zstd lz4 lzo: the first the crypto API offers \(zstd lzo-rle lzo lz4\)\)'
	has '^ *[0-9]+\. setting zswap.max_pool_percent: 20 -> 25 '
	has '^ *[0-9]+\. setting zswap.enabled: N -> Y '
	lacks 'accept_threshold_percent|shrinker_enabled'
}
run 0 plan --json --root "$root" --config "$pz" &&
	check "plan --json: the value written and no restore" \
		[ "$(json "$out" '[(a["value"], a["restore"]) for a in d["actions"] if a["kind"] == "zswap-set"][0]')" = "('zstd', False)" ] &&
	check "plan: enabled is the last zswap action" \
		[ "$(json "$out" '[a["target"] for a in d["actions"] if a["kind"] == "zswap-set"]')" = "['zswap.compressor', 'zswap.max_pool_percent', 'zswap.enabled']" ]
run 0 plan -v --root "$root" --config "$pz" && {
	has "^  \[Zswap\] Compressor= +zstd lz4 lzo  \($pz:6\)$"
	has '^  \[Zswap\] Shrinker= +\(empty: the kernel.s value\)  \(default\)$'
	has '^  zswap +off, compressor lzo; the crypto API offers zstd lzo-rle lzo lz4$'
}
check "plan wrote nothing" [ "$(val compressor)$(val enabled)" = lzoN ]

# --- apply writes the tree's parameter files and keeps the old values; revert puts them back ---
run 0 apply --root "$root" --config "$pz" && {
	check "apply: compressor zstd" [ "$(val compressor)" = zstd ]
	check "apply: max_pool_percent 25" [ "$(val max_pool_percent)" = 25 ]
	check "apply: enabled Y" [ "$(val enabled)" = Y ]
	check "apply: accept_threshold_percent untouched" [ "$(val accept_threshold_percent)" = 90 ]
	for kv in enabled=N compressor=lzo max_pool_percent=20; do
		check "state keeps $kv" grep -qx "saved_zswap_$kv" "$root/var/lib/nodeswap/state"
	done
	check "state keeps no unchanged parameter" not grep -q saved_zswap_accept "$root/var/lib/nodeswap/state"
}
run 0 plan --root "$root" --config "$pz" && lacks 'setting zswap'
# a second apply with another pool size keeps the first saved value
sed -i 's/^MaxPoolPercent=25/MaxPoolPercent=30/' "$pz"
run 0 apply --root "$root" --config "$pz" &&
	check "second apply: the value from before nodeswap stays saved" grep -qx saved_zswap_max_pool_percent=20 "$root/var/lib/nodeswap/state"
run 0 status --root "$root" --config "$pz" && {
	has '^Zswap:$'
	has '^  zswap +on, compressor zstd, pool at most 30% of RAM, accepts again below 90% of that$'
	has '^  charged +to the cgroup of each page it holds'
}
run 0 revert --root "$root" --config "$pz" && {
	has '^ *([0-9]+\. )?setting zswap.enabled: Y -> N \(restoring the value from before nodeswap\)'
	check "revert: enabled first" [ "$(grep -m1 -o 'setting zswap\.[a-z_]*' "$out")" = "setting zswap.enabled" ]
	check "revert: every parameter as before" [ "$(val enabled) $(val compressor) $(val max_pool_percent) $(val accept_threshold_percent)" = "N lzo 20 90" ]
	check "revert: nothing saved any more" not grep -q saved_zswap_ "$root/var/lib/nodeswap/state"
}
run 0 revert --root "$root" --config "$pz" && lacks 'setting zswap'

# --- Backend= without zswap puts the values back -----------------------------------------------
fresh
run 0 apply --root "$root" --config "$pz"
pf=$(policy file "$(sed 's/^Backend=.*/Backend=file/' "$pz")")
run 0 plan --root "$root" --config "$pf" && has "^ *[0-9]+\. setting zswap.enabled: Y -> N \(Backend= no longer names zswap"
run 0 apply --root "$root" --config "$pf" && {
	check "Backend=file: every parameter as before" [ "$(val enabled) $(val compressor) $(val max_pool_percent)" = "N lzo 20" ]
	check "Backend=file: nothing saved any more" not grep -q saved_zswap_ "$root/var/lib/nodeswap/state"
}
# no Backend= at all: nodeswap manages no swap and leaves zswap alone, saved values included
fresh
run 0 apply --root "$root" --config "$pz"
pn=$(policy none-set '[Sysctl]
Swappiness=60')
run 0 plan --root "$root" --config "$pn" && lacks 'setting zswap'

# --- the kernel command line's parameters are never written ------------------------------------
fresh
printf 'console=tty1 zswap.enabled=0 "zswap.max-pool-percent=25" -- zswap.compressor=lz4\n' >"$root/proc/cmdline"
run 0 plan --root "$root" --config "$pz" && {
	has '^warning zswap-cmdline: the kernel command line sets zswap.enabled=0 and the policy wants Y: nodeswap leaves it as the command line says \(now N\); the swap file is used without zswap'
	has "at: $pz:2: \[Swap\] Backend=zswap file"
	lacks 'setting zswap.enabled'
	lacks 'setting zswap.max_pool_percent' # 30 wanted, 25 on the command line: warned, not written
	has 'setting zswap.compressor'       # after "--": init's, not the kernel's
}
run 0 plan --root "$root" --config "$(policy same "$(sed 's/^MaxPoolPercent=.*/MaxPoolPercent=25/' "$pz")")" &&
	lacks 'max_pool_percent'    # the command line agrees: no finding, no action
run 0 status --root "$root" --config "$pz" && {
	has '^  command line +zswap.enabled=0 \(nodeswap never writes it\)$'
	has '^  command line +zswap.max_pool_percent=25 '
}
run 0 status --json --root "$root" --config "$pz" && {
	check "status --json: zswap off, lzo, no shrinker_enabled" \
		[ "$(json "$out" '(d["zswap"]["enabled"], d["zswap"]["compressor"], d["zswap"]["shrinker_enabled"])')" = "(False, 'lzo', None)" ]
	check "status --json: the command line's zswap parameters" \
		[ "$(json "$out" 'sorted(d["zswap"]["cmdline"].items())')" = "[('enabled', '0'), ('max_pool_percent', '25')]" ]
}
run 0 apply --root "$root" --config "$pz" && check "command line: enabled not written" [ "$(val enabled)" = N ]
run 0 revert --root "$root" --config "$pz" && lacks 'setting zswap.enabled'

# --- what this kernel lacks ------------------------------------------------------------------
fresh
ps=$(policy shrinker "$(cat "$pz")
Shrinker=yes")
run 1 plan --root "$root" --config "$ps" && {
	has '^error +zswap-parameter-unavailable: \[Zswap\] Shrinker=yes: this kernel.s zswap has no shrinker_enabled parameter'
	has "at: $ps:8: \[Zswap\] Shrinker=yes"
}
run 1 apply --root "$root" --config "$ps" && check "refused: nothing written" [ "$(val compressor)$(val enabled)" = lzoN ]
pc=$(policy nocomp "$(sed 's/^Compressor=.*/Compressor=842 deflate/' "$pz")")
run 1 plan --root "$root" --config "$pc" &&
	has '^error +zswap-compressor-unavailable: none of \[Zswap\] Compressor=842 deflate is offered by this kernel.s crypto API \(it offers zstd lzo-rle lzo lz4\)'
fresh
rm -rf "$root/sys/module/zswap"
run 1 plan --root "$root" --config "$pz" && has '^error +zswap-unavailable: '
run 0 status --root "$root" --config "$pz" && lacks '^Zswap:'
run 0 status --json --root "$root" --config "$pz" && check "status --json: zswap null without zswap" [ "$(json "$out" 'd["zswap"]')" = None ]

# --- zswap in front of zram ------------------------------------------------------------------
fresh
printf 'Y\n' >"$Z/enabled"
pr=$(policy zram '[Swap]
Backend=zram')
run 0 check --root "$root" --config "$pr" && has '^warning zswap-with-zram: zswap is on and a zram swap device is planned'
# the policy's zswap, and the distro's zram0 that apply swaps off: no warning
run 0 check --root "$root" --config "$pz" && lacks zswap-with-zram
# no policy: zswap on and the distro's zram0 on
run 0 check --root "$root" --config "$(policy empty '# nothing')" && has '^warning zswap-with-zram: zswap is on and a zram swap device is on'

# --- allowance says who pays ------------------------------------------------------------------
run 0 allowance --request 256Mi --root "$root" --config "$pz" &&
	has "counts against its memory limit \(memory.zswap.current\); zram's memory would not"

echo "$fails failure(s)"
[ "$fails" = 0 ]
