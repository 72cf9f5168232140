#!/usr/bin/env bash
# nodeswap apply / revert on this machine's real kernel: a real zram device, a real swap file on a
# loop-mounted ext4 image, real sysctls. Everything the test touches is saved first and restored by
# the trap, pass or fail; it never touches a zram device, swap area, loop device or mount it did
# not create. Exit 77 (skip) when it cannot run here.
set -uo pipefail

HERE=$(dirname "$(readlink -f "$0")")
. "$HERE/../lib/common.sh"
kernel_test_begin mkfs.ext4 losetup mount blkid python3
contains() { [[ "$1" == *"$2"* ]]; }

tmp=$(mktemp -d /tmp/nodeswap-apply-test.XXXXXX)
mnt=$(mktemp -d /mnt/nodeswap-apply-test.XXXXXX)
loopdev=
kernel_save
cleanup() {
	kernel_restore "$mnt"
	[ -n "$loopdev" ] && losetup -d "$loopdev"
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM
NODESWAP=$(under_test "${1:?usage: $0 path/to/nodeswap}" "$tmp") || exit 1

truncate -s 300M "$tmp/ext4.img"
mkfs.ext4 -q -F "$tmp/ext4.img"
loopdev=$(losetup --find --show "$tmp/ext4.img")
mount "$loopdev" "$mnt"

swap_line() { awk -v d="$1" '$1 == d' /proc/swaps; }

z1=$(policy zram <<EOF
[Swap]
Backend=zram
[Zram]
Size=64M
Algorithm=zstd lz4
Priority=100
[Sysctl]
Swappiness=100
PageCluster=0
EOF
)

# --- a bad policy changes nothing ----------------------------------------------------------
bad=$(policy bad <<EOF
[Swap]
Backend=zram
[Zram]
Prority=5
Size=-1G
EOF
)
swaps_before=$(cat /proc/swaps)
"$NODESWAP" apply --config "$bad" >"$tmp/out" 2>"$tmp/err"
check "bad policy exits 2" [ $? = 2 ]
check "bad policy names file, line and key" grep -q "$bad:4: \[Zram\] Prority=5: unknown key 'Prority', did you mean 'Priority'?" "$tmp/err"
check "bad policy reports every error" grep -q "$bad:5: \[Zram\] Size=-1G" "$tmp/err"
check "bad policy touched no swap" [ "$(cat /proc/swaps)" = "$swaps_before" ]
check "bad policy touched no sysctl" [ "$(cat /proc/sys/vm/swappiness)" = "$saved_swappiness" ]
check "bad policy wrote no state" [ ! -e /var/lib/nodeswap ]

# --- zram ------------------------------------------------------------------------------------
"$NODESWAP" apply --json --config "$z1" >"$tmp/a1.json"
check "zram apply exits 0" [ $? = 0 ]
check "zram apply changed" [ "$(json "$tmp/a1.json" 'd["changed"]')" = True ]
dev=$(our_zram)
check "one new zram device is swapped on" [ "$(echo "$dev" | grep -c zram)" = 1 ]
check "at priority 100" [ "$(swap_line "$dev" | awk '{print $5}')" = 100 ]
check "with lz4 active (zstd not offered here)" grep -q '\[lz4\]' "/sys/block/${dev#/dev/}/comp_algorithm"
check "the report says why lz4" grep -q "zstd not offered by this kernel, using lz4" "$tmp/a1.json"
check "64 MiB" [ "$(cat "/sys/block/${dev#/dev/}/disksize")" = $((64 << 20)) ]
check "labelled nodeswap" [ "$(blkid -o value -s LABEL "$dev")" = nodeswap ]
check "swappiness 100" [ "$(cat /proc/sys/vm/swappiness)" = 100 ]
check "page-cluster 0" [ "$(cat /proc/sys/vm/page-cluster)" = 0 ]
for z in $zram_before; do
	check "pre-existing $z untouched" [ "$(cat /sys/block/$z/disksize)" = 0 ]
done

"$NODESWAP" apply --json --config "$z1" >"$tmp/a2.json"
check "re-apply exits 0" [ $? = 0 ]
check "re-apply changes nothing" [ "$(json "$tmp/a2.json" 'd["changed"]')" = False ]
check "re-apply has no actions" [ "$(json "$tmp/a2.json" 'len(d["actions"])')" = 0 ]
check "same device still on" [ "$(our_zram)" = "$dev" ]

# --- resize: make before break -----------------------------------------------------------------
z2=$(policy zram2 < <(sed 's/^Size=64M/Size=128M/' "$z1"))
"$NODESWAP" apply --json --config "$z2" >"$tmp/a3.json"
check "resize exits 0" [ $? = 0 ]
order=$(json "$tmp/a3.json" '" ".join(a["kind"] for a in d["actions"])')
check "new device before the old goes off ($order)" contains "$order" "zram-create swapoff zram-remove"
dev2=$(our_zram)
check "exactly one nodeswap device after the resize" [ "$(echo "$dev2" | grep -c zram)" = 1 ]
check "it is the new one" [ "$dev2" != "$dev" ]
check "128 MiB" [ "$(cat "/sys/block/${dev2#/dev/}/disksize")" = $((128 << 20)) ]
check "the old device is gone" [ ! -e "/sys/block/${dev#/dev/}" ]

# --- add a swap file: zram and file together --------------------------------------------------
# with the reclaim keys set to values close to this machine's own (4 MiB more reserve, a slightly
# wider watermark gap): shared machine, nothing another test would notice
want_min_free=$((saved_min_free_kbytes + 4096))
want_wsf=$((saved_watermark_scale_factor < 2990 ? saved_watermark_scale_factor + 5 : saved_watermark_scale_factor - 5))
zf=$(policy zramfile <<EOF
[Swap]
Backend=zram file
[Zram]
Size=128M
Priority=100
Algorithm=zstd lz4
[File]
Encrypt=no
Path=$mnt/swap/swapfile
Size=64M
Priority=10
[Sysctl]
Swappiness=100
PageCluster=0
MinFreeKbytes=$want_min_free
WatermarkScaleFactor=$want_wsf
EOF
)
"$NODESWAP" apply --json --config "$zf" >"$tmp/a4.json"
check "zram+file apply exits 0" [ $? = 0 ]
check "file swapped on at priority 10" [ "$(swap_line "$mnt/swap/swapfile" | awk '{print $5}')" = 10 ]
check "file is 0600 root" [ "$(stat -c '%a %u' "$mnt/swap/swapfile")" = "600 0" ]
check "file has no holes" [ $(( $(stat -c '%b' "$mnt/swap/swapfile") * 512 )) -ge $((64 << 20)) ]
check "zram untouched" [ "$(our_zram)" = "$dev2" ]
check "min_free_kbytes $want_min_free" [ "$(cat /proc/sys/vm/min_free_kbytes)" = "$want_min_free" ]
check "watermark_scale_factor $want_wsf" [ "$(cat /proc/sys/vm/watermark_scale_factor)" = "$want_wsf" ]
check "the values from before are saved" grep -qx "saved_min_free_kbytes=$saved_min_free_kbytes" /var/lib/nodeswap/state
check "and the one written" grep -qx "set_min_free_kbytes=$want_min_free" /var/lib/nodeswap/state
check "the zones' min watermarks follow (status)" \
	[ "$("$NODESWAP" status --json --config "$zf" | python3 -c 'import json,sys; print(sum(z["min"] for z in json.load(sys.stdin)["zones"]) // 1024)')" -gt "$saved_min_free_kbytes" ]
"$NODESWAP" apply --json --config "$zf" >"$tmp/a5.json"
check "zram+file re-apply changes nothing" [ "$(json "$tmp/a5.json" 'd["changed"]')" = False ]

# --- resize the active swap file: a bridge, every step an action ---------------------------------
zf96=$(policy zramfile96 < <(sed 's/^Size=64M/Size=96M/' "$zf"))
# file_steps JSON: the actions on files below $mnt/swap, as "kind path ..."
file_steps() {
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(" ".join("%s %s" % (a["kind"], a["target"]) for a in d["actions"] if a["target"].startswith(sys.argv[2])))' "$1" "$mnt/swap/"
}
b="$mnt/swap/.#swapfile.bridge"
want="file-create $b swapoff $mnt/swap/swapfile file-remove $mnt/swap/swapfile file-create $mnt/swap/swapfile swapoff $b file-remove $b"
"$NODESWAP" plan --json --config "$zf96" >"$tmp/p6.json"
check "plan shows the bridge steps in order ($(file_steps "$tmp/p6.json"))" [ "$(file_steps "$tmp/p6.json")" = "$want" ]
"$NODESWAP" apply --json --config "$zf96" >"$tmp/a6.json"
check "file resize exits 0" [ $? = 0 ]
check "apply runs them in that order ($(file_steps "$tmp/a6.json"))" [ "$(file_steps "$tmp/a6.json")" = "$want" ]
check "every step done" [ "$(json "$tmp/a6.json" 'all(a["result"] == "done" for a in d["actions"])')" = True ]
# (the kernel's count can be a few KiB short of the file: ext4 with 1 KiB blocks here, and swapon
# takes whole pages of each extent)
check "the file is 96 MiB and on with more than the old 64 MiB ($(swap_line "$mnt/swap/swapfile"))" \
	[ "$(stat -c %s "$mnt/swap/swapfile")" = $((96 << 20)) -a "$(swap_line "$mnt/swap/swapfile" | awk '{print $3}')" -gt $((64 * 1024)) ]
check "no bridge left, on or on disk" [ -z "$(swap_line "$b")" -a ! -e "$b" ]
check "the state records the file and no bridge" [ "$(grep '^swap_file=' /var/lib/nodeswap/state)" = "swap_file=$mnt/swap/swapfile" ]
"$NODESWAP" apply --json --config "$zf96" >"$tmp/a7.json"
check "file resize re-apply changes nothing" [ "$(json "$tmp/a7.json" 'd["changed"]')" = False ]

# --- revert -------------------------------------------------------------------------------------
"$NODESWAP" revert --json --config "$zf" >"$tmp/r1.json"
check "revert exits 0" [ $? = 0 ]
check "no nodeswap zram device left" [ -z "$(our_zram)" ]
check "the zram device is removed" [ ! -e "/sys/block/${dev2#/dev/}" ]
check "file swapped off" [ -z "$(swap_line "$mnt/swap/swapfile")" ]
check "file kept without --purge" [ -f "$mnt/swap/swapfile" ]
check "swappiness restored" [ "$(cat /proc/sys/vm/swappiness)" = "$saved_swappiness" ]
check "page-cluster restored" [ "$(cat /proc/sys/vm/page-cluster)" = "$saved_page_cluster" ]
check "min_free_kbytes restored" [ "$(cat /proc/sys/vm/min_free_kbytes)" = "$saved_min_free_kbytes" ]
check "watermark_scale_factor restored" [ "$(cat /proc/sys/vm/watermark_scale_factor)" = "$saved_watermark_scale_factor" ]
check "nothing of them left in the state" [ -z "$(grep -E '^(saved|set)_(min_free|watermark)' /var/lib/nodeswap/state)" ]
check "state says reverted" grep -qx 'reverted=yes' /var/lib/nodeswap/state
"$NODESWAP" revert --json --config "$zf" >"$tmp/r2.json"
check "second revert changes nothing" [ "$(json "$tmp/r2.json" 'd["changed"]')" = False ]
"$NODESWAP" revert --purge --json --config "$zf" >"$tmp/r3.json"
check "revert --purge deletes the file" [ ! -e "$mnt/swap/swapfile" ]

# --- [File] Path= moved: nodeswap's old file goes off after the new one is on, and is deleted ----
file_policy() {	# file_policy NAME PATH
	policy "$1" <<EOF
[Swap]
Backend=file
[File]
Encrypt=no
Path=$2
Size=32M
Priority=10
EOF
}
pa=$(file_policy file-a "$mnt/swap/a")
pb=$(file_policy file-b "$mnt/swap/b")
# killed right after the file-create action (the test build's fault injection: every action is a
# step), the record is already saved
if fault_injection_built "$NODESWAP"; then
	"$NODESWAP" plan --json --config "$pa" >"$tmp/m0.json"
	n=$(json "$tmp/m0.json" '[a["kind"] for a in d["actions"]].index("file-create") + 1')
	NODESWAP_FAULT_KILL_AFTER=$n "$NODESWAP" apply --json --config "$pa" >/dev/null 2>"$tmp/err"
	check "killed after file-create: killed there ($(cat "$tmp/err"))" grep -q "killed after step $n (file-create)" "$tmp/err"
	check "killed after file-create: a is on" [ -n "$(swap_line "$mnt/swap/a")" ]
	check "killed after file-create: the state records a" grep -qx "swap_file=$mnt/swap/a" /var/lib/nodeswap/state
else
	echo "SKIP: killed after file-create: $NODESWAP is not a test build (meson configure build -Dfault-injection=true)"
fi
"$NODESWAP" apply --json --config "$pa" >"$tmp/m1.json"
check "apply Path=a exits 0" [ $? = 0 ]
check "a is on" [ -n "$(swap_line "$mnt/swap/a")" ]
check "the state records a" grep -qx "swap_file=$mnt/swap/a" /var/lib/nodeswap/state
"$NODESWAP" apply --json --config "$pb" >"$tmp/m2.json"
check "apply Path=b exits 0" [ $? = 0 ]
check "b is on" [ -n "$(swap_line "$mnt/swap/b")" ]
check "a is off" [ -z "$(swap_line "$mnt/swap/a")" ]
check "a is deleted" [ ! -e "$mnt/swap/a" ]
check "a went off after b came on, then was deleted" \
	python3 -c 'import json,sys; k=[(a["kind"],a["target"]) for a in json.load(open(sys.argv[1]))["actions"]]; c=k.index(("file-create",sys.argv[2]+"/b")); o=k.index(("swapoff",sys.argv[2]+"/a")); r=k.index(("file-remove",sys.argv[2]+"/a")); sys.exit(not c<o<r)' "$tmp/m2.json" "$mnt/swap"
check "the state forgot a and records b" \
	[ "$(grep '^swap_file=' /var/lib/nodeswap/state)" = "swap_file=$mnt/swap/b" ]
"$NODESWAP" status --json --config "$pb" >"$tmp/s1.json"
check "status lists b as nodeswap's, on" \
	[ "$(json "$tmp/s1.json" '[(f["path"], f["state"]) for f in d["swap_files"]]')" = "[('$mnt/swap/b', 'on')]" ]
"$NODESWAP" apply --json --config "$pb" >"$tmp/m3.json"
check "re-apply Path=b changes nothing" [ "$(json "$tmp/m3.json" 'd["changed"]')" = False ]
"$NODESWAP" revert --purge --json --config "$pb" >"$tmp/m4.json"
check "revert --purge exits 0" [ $? = 0 ]
check "revert --purge swaps b off" [ -z "$(swap_line "$mnt/swap/b")" ]
check "revert --purge deletes b" [ ! -e "$mnt/swap/b" ]
check "the state records no swap file" [ -z "$(grep '^swap_file=' /var/lib/nodeswap/state)" ]

# --- issue 17: algorithm parameters and Discard= reach the kernel -----------------------------
# algorithm_params is write-only and swapon(2)'s flags show nowhere, so strace watches the calls;
# the kernel taking them (the write's full length, swapon returning 0) is the proof.
if [ -n "${NODESWAP_TEST_WRAPPER:-}" ] || ! command -v strace >/dev/null; then
	echo "SKIP: algorithm parameters and Discard= (strace missing, or under a test wrapper)"
else
	kp=$(policy knobs <<EOF
[Swap]
Backend=zram file
[Zram]
Size=64M
Priority=100
Algorithm=zstd(level=3) lz4(level=2)
[File]
Encrypt=no
Path=$mnt/swap/discard
Size=32M
Priority=10
Discard=pages
EOF
)
	if [ -e "$(ls -d /sys/block/zram* 2>/dev/null | head -n 1)/algorithm_params" ]; then
		# LeakSanitizer cannot run under ptrace: leaks are checked in every other run of apply
		ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 \
			strace -f -qq -e trace=write,swapon -e signal=none -s 64 -o "$tmp/knobs.strace" \
			"$NODESWAP" apply --json --config "$kp" >"$tmp/k1.json" 2>"$tmp/k1.err"
		check "apply with lz4(level=2) and Discard=pages exits 0" [ $? = 0 ]
		check "algorithm_params got 'algo=lz4 level=2' whole" grep -Eq 'write\([0-9]+, "algo=lz4 level=2", 16\) += 16$' "$tmp/knobs.strace"
		check "the file was swapped on with SWAP_FLAG_DISCARD and SWAP_FLAG_DISCARD_PAGES" \
			grep -Eq "swapon\(\"$mnt/swap/discard\", SWAP_FLAG_PREFER\|SWAP_FLAG_DISCARD\|SWAP_FLAG_DISCARD_PAGES\|10\) += 0$" "$tmp/knobs.strace"
		check "the zram device is not swapped on with a discard flag" \
			grep -Eq 'swapon\("/dev/zram[0-9]+", SWAP_FLAG_PREFER\|100\) += 0$' "$tmp/knobs.strace"
		"$NODESWAP" revert --purge --json --config "$kp" >"$tmp/k2.json"
		check "revert --purge after the knobs exits 0" [ $? = 0 ]
		check "no nodeswap zram device left after the knobs" [ -z "$(our_zram)" ]
	else
		echo "SKIP: this kernel's zram has no algorithm_params"
	fi
	wp=$(policy writeback <<EOF
[Swap]
Backend=zram
[Zram]
Size=64M
Writeback=$mnt/swap/wb
WritebackEncrypt=no
EOF
)
	if [ ! -e "$(ls -d /sys/block/zram* 2>/dev/null | head -n 1)/backing_dev" ]; then
		"$NODESWAP" plan --json --config "$wp" >"$tmp/w1.json" 2>"$tmp/w1.err"
		check "without CONFIG_ZRAM_WRITEBACK, Writeback= is refused by plan (exit 1)" [ $? = 1 ]
		check "... as zram-feature-unavailable" \
			[ "$(json "$tmp/w1.json" '[f["id"] for f in d["findings"] if f["severity"] == "error"]')" = "['zram-feature-unavailable']" ]
		"$NODESWAP" apply --json --config "$wp" >"$tmp/w2.json" 2>"$tmp/w2.err"
		check "... and apply refuses it, making no file" [ $? = 1 -a ! -e "$mnt/swap/wb" ]
	fi
fi

echo "$fails check(s) failed"
[ "$fails" = 0 ]
