#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Backend=zswap file on this machine's real kernel (CONFIG_ZSWAP): apply sets zswap's module
# parameters in front of a swap file on a loop-mounted ext4 image, a second apply changes nothing,
# dropping zswap from Backend= and revert put every parameter back byte for byte. Every zswap
# parameter is saved before anything runs and written back by the trap, pass or fail; swap, the
# loop device, the mount and the sysctls as in test-apply-kernel.sh. Exit 77 (skip) when it cannot
# run here.
set -uo pipefail

not() { ! "$@"; }
HERE=$(dirname "$(readlink -f "$0")")
. "$HERE/../lib/common.sh"
Z=/sys/module/zswap/parameters
[ -d "$Z" ] || { echo "SKIP: this kernel has no zswap ($Z)"; exit 77; }
kernel_test_begin mkfs.ext4 losetup mount python3

tmp=$(mktemp -d /tmp/nodeswap-zswap-test.XXXXXX)
mnt=$(mktemp -d /mnt/nodeswap-zswap-test.XXXXXX)
loopdev=
PARAMS=$(cd "$Z" && ls)
# zswap_save / zswap_same: every parameter file's bytes, kept in $tmp/saved/NAME
mkdir "$tmp/saved"
for p in $PARAMS; do cat "$Z/$p" >"$tmp/saved/$p"; done
# same NAME: the parameter shows the bytes saved at the start (through a pipe: cmp would compare
# sysfs's st_size of 4096 first)
same() { cat "$Z/$1" | cmp -s - "$tmp/saved/$1"; }
zswap_same() {  # every parameter shows the bytes saved at the start
	local p
	for p in $PARAMS; do same "$p" || { echo "  $p: $(cat "$Z/$p") (was $(cat "$tmp/saved/$p"))"; return 1; }; done
}
zswap_restore() {
	local p v
	# enabled first when it was off (zswap stops before its settings change), last otherwise
	v=$(cat "$tmp/saved/enabled")
	[ "$v" = N ] && printf '%s' "$v" >"$Z/enabled"
	for p in $PARAMS; do
		[ "$p" = enabled ] && continue
		same "$p" || printf '%s' "$(cat "$tmp/saved/$p")" >"$Z/$p" ||
			echo "cleanup: could not restore $Z/$p" >&2
	done
	same enabled || printf '%s' "$v" >"$Z/enabled"
	zswap_same || echo "cleanup: zswap parameters NOT all restored" >&2
}
kernel_save
cleanup() {
	kernel_restore "$mnt"
	zswap_restore
	[ -n "$loopdev" ] && losetup -d "$loopdev"
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM
NODESWAP=$(under_test "${1:?usage: $0 path/to/nodeswap}" "$tmp") || exit 1

truncate -s 200M "$tmp/ext4.img"
mkfs.ext4 -q -F "$tmp/ext4.img"
loopdev=$(losetup --find --show "$tmp/ext4.img")
mount "$loopdev" "$mnt"

# The compressor: the second one the crypto API offers of lzo-rle/lzo, so that apply changes it.
offered=$(awk '/^name/ {n=$3} /^type/ && ($3=="scomp" || $3=="acomp" || $3=="compression") {print n}' /proc/crypto | sort -u)
want=
for c in lzo-rle lzo deflate; do
	grep -qx "$c" <<<"$offered" && [ "$c" != "$(cat "$Z/compressor")" ] && { want=$c; break; }
done
[ -n "$want" ] || { echo "SKIP: no second compressor in /proc/crypto to switch to"; exit 77; }
grep -q '\bzswap\.' /proc/cmdline && { echo "SKIP: the kernel command line sets zswap parameters"; exit 77; }

shrinker=
[ -e "$Z/shrinker_enabled" ] && shrinker="Shrinker=$( [ "$(cat "$Z/shrinker_enabled")" = Y ] && echo no || echo yes)"
accept=
[ -e "$Z/accept_threshold_percent" ] && accept="AcceptThresholdPercent=77"
pz=$(policy zswap <<EOF
[Swap]
Backend=zswap file
[File]
Encrypt=no
Path=$mnt/swapfile
Size=32M
[Zswap]
Compressor=zstd lz4 $want
MaxPoolPercent=13
$accept
$shrinker
EOF
)

# --- a policy whose compressors the kernel lacks changes nothing ------------------------------
pbad=$(policy bad "$(sed 's/^Compressor=.*/Compressor=nosuch-compressor/' "$pz")")
"$NODESWAP" apply --config "$pbad" >"$tmp/out" 2>"$tmp/err"
check "no offered compressor: apply exits 1" [ $? = 1 ]
check "no offered compressor: the finding names the key" grep -q "zswap-compressor-unavailable" "$tmp/err"
line=$(grep -n '^Compressor=' "$pbad" | cut -d: -f1)
check "no offered compressor: the finding names file and line" grep -q "$pbad:$line: \[Zswap\] Compressor=nosuch-compressor" "$tmp/err"
check "no offered compressor: zswap untouched" zswap_same
check "no offered compressor: no swap file" [ ! -e "$mnt/swapfile" ]

# --- plan shows the zswap actions, enabled last -----------------------------------------------
"$NODESWAP" plan --json --config "$pz" >"$tmp/plan.json"
check "plan: compressor $want" [ "$(json "$tmp/plan.json" '[a["want"] for a in d["actions"] if a["target"] == "zswap.compressor"][0]')" = "$want" ]
check "plan: enabled is the last zswap action" \
	[ "$(json "$tmp/plan.json" '[a["target"] for a in d["actions"] if a["kind"] == "zswap-set"][-1]')" = zswap.enabled ]
check "plan: the file before zswap" \
	[ "$(json "$tmp/plan.json" '[a["kind"] for a in d["actions"]].index("file-create") < [a["kind"] for a in d["actions"]].index("zswap-set")')" = True ]
check "plan changed nothing" zswap_same

# --- apply --------------------------------------------------------------------------------------
"$NODESWAP" apply --config "$pz" >"$tmp/out" 2>&1
check "apply exits 0" [ $? = 0 ]
cat "$tmp/out"
check "apply: enabled Y" [ "$(cat "$Z/enabled")" = Y ]
check "apply: compressor $want" [ "$(cat "$Z/compressor")" = "$want" ]
check "apply: max_pool_percent 13" [ "$(cat "$Z/max_pool_percent")" = 13 ]
[ -n "$accept" ] && check "apply: accept_threshold_percent 77" [ "$(cat "$Z/accept_threshold_percent")" = 77 ]
[ -n "$shrinker" ] && check "apply: shrinker_enabled flipped" not same shrinker_enabled
check "apply: the swap file is on" grep -q "^$mnt/swapfile " /proc/swaps
for p in enabled compressor max_pool_percent; do
	check "state keeps $p as it was" grep -qx "saved_zswap_$p=$(cat "$tmp/saved/$p")" /var/lib/nodeswap/state
done
"$NODESWAP" status >"$tmp/status" 2>&1
check "status shows zswap on with $want" grep -q "zswap  *on, compressor $want" "$tmp/status"

"$NODESWAP" apply --config "$pz" >"$tmp/out" 2>&1
check "second apply changes nothing" grep -q "Nothing to do" "$tmp/out"

# --- Backend= without zswap puts the parameters back, the file stays -------------------------
pf=$(policy file "$(sed 's/^Backend=.*/Backend=file/' "$pz")")
"$NODESWAP" apply --config "$pf" >"$tmp/out" 2>&1
check "apply Backend=file exits 0" [ $? = 0 ] || cat "$tmp/out"
check "Backend=file: every zswap parameter back byte for byte" zswap_same
check "Backend=file: nothing saved any more" not grep -q saved_zswap_ /var/lib/nodeswap/state
check "Backend=file: the swap file stays on" grep -q "^$mnt/swapfile " /proc/swaps

# --- apply again, then revert -----------------------------------------------------------------
"$NODESWAP" apply --config "$pz" >"$tmp/out" 2>&1
check "apply again exits 0" [ $? = 0 ] || cat "$tmp/out"
check "apply again: zswap on" [ "$(cat "$Z/enabled")" = Y ]
"$NODESWAP" revert --config "$pz" >"$tmp/out" 2>&1
check "revert exits 0" [ $? = 0 ]
cat "$tmp/out"
check "revert: every zswap parameter back byte for byte" zswap_same
check "revert: nothing saved any more" not grep -q saved_zswap_ /var/lib/nodeswap/state
check "revert: the swap file is off" not grep -q "^$mnt/swapfile " /proc/swaps
"$NODESWAP" revert --config "$pz" >"$tmp/out" 2>&1
check "second revert changes no zswap parameter" not grep -q zswap "$tmp/out"

echo "$fails failure(s)"
[ "$fails" = 0 ]
