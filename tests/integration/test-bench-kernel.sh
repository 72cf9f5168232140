#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# nodeswap bench on this machine's real kernel: every algorithm the kernel offers measured through
# a real zram device, the drive under a directory of the host's file system, within the 60 s
# bound; the policy it recommends is accepted by nodeswap check; and nothing is left behind (no
# zram device, no file, no swap, the sysctls as they were), also when SIGINT ends it while its
# zram device exists or SIGTERM while its file does. Exit 77 (skip) when it cannot run here.
set -uo pipefail

HERE=$(dirname "$(readlink -f "$0")")
. "$HERE/../lib/common.sh"
kernel_test_begin python3 setpriv

tmp=$(mktemp -d /tmp/nodeswap-bench-test.XXXXXX)
dir=$(mktemp -d /var/tmp/nodeswap-bench-test.XXXXXX)
kernel_save
cleanup() {
	kernel_restore
	rm -rf "$tmp" "$dir"
}
trap cleanup EXIT
trap 'exit 1' INT TERM
NODESWAP=$(under_test "${1:?usage: $0 path/to/nodeswap}" "$tmp") || exit 1

swaps_before=$(cat /proc/swaps)
sysctls() { cat /proc/sys/vm/swappiness /proc/sys/vm/page-cluster; }
sysctls_before=$(sysctls)
zram_list() { ls /sys/block | grep '^zram' | sort; }
# left_behind WHAT: nothing of bench's is left
left_behind() {
	check "$1: no zram device left" [ "$(zram_list)" = "$zram_before" ]
	check "$1: no file left in $dir" [ -z "$(ls -A "$dir")" ]
	check "$1: swap as it was" [ "$(cat /proc/swaps)" = "$swaps_before" ]
	check "$1: sysctls as they were" [ "$(sysctls)" = "$sysctls_before" ]
}

# --- a full run, JSON ----------------------------------------------------------------------
start=$(date +%s)
"$NODESWAP" bench --json --dir "$dir" >"$tmp/bench.json" 2>"$tmp/err"
rc=$?
secs=$(( $(date +%s) - start ))
check "bench exits 0" [ $rc = 0 ]
check "bench finished within 60 s (took $secs s)" [ "$secs" -le 60 ]
check "JSON version 1" [ "$(json "$tmp/bench.json" 'd["version"]')" = 1 ]
offered=$(python3 -c 'import re,sys; print(" ".join(sorted(re.sub(r"[\[\]]","",open(sys.argv[1]).read()).split())))' \
	"/sys/block/$(zram_list | head -1)/comp_algorithm" 2>/dev/null)
check "every offered algorithm measured ($offered)" [ "$(json "$tmp/bench.json" '" ".join(sorted(a["algorithm"] for a in d["zram"] if a["error"] is None))')" = "$offered" ]
check "compression: random pages do not compress, text does" [ "$(json "$tmp/bench.json" 'all(a["random"]["compression_ratio"] < 1.05 and a["text"]["compression_ratio"] > 1.3 for a in d["zram"])')" = True ]
check "CPU per GiB out measured for each algorithm" [ "$(json "$tmp/bench.json" 'all(a["all"]["cpu_seconds_per_gib_out"] > 0 for a in d["zram"])')" = True ]
check "RAM per GiB held between 0 and 1.1" [ "$(json "$tmp/bench.json" 'all(0 < a["all"]["ram_per_gib_held"] < 1.1 for a in d["zram"])')" = True ]
check "the drive measured" [ "$(json "$tmp/bench.json" 'd["file"]["error"] is None and d["file"]["reads"] > 0 and d["file"]["write_bytes_per_second"] > 0')" = True ]
check "random reads of the page size" [ "$(json "$tmp/bench.json" 'd["page_size"]')" = "$(getconf PAGESIZE)" ]
# the encrypted swap file's path: measured where the kernel has dm-crypt (the e2e VM), else a
# reason (this machine has no device-mapper); the cipher's speed where it has AF_ALG, else a reason
check "the encrypted file measured, or why not ($(json "$tmp/bench.json" 'd["file_encrypted"]["error"]'))" \
	[ "$(json "$tmp/bench.json" 'd["file_encrypted"]["cipher"] == "aes-xts-plain64" and d["file_encrypted"]["key_bits"] == 512 and (d["file_encrypted"]["error"] is not None or d["file_encrypted"]["write_bytes_per_second"] > 0)')" = True ]
check "the cipher's speed, or why not ($(json "$tmp/bench.json" 'd["file_encrypted"]["cipher_error"]'))" \
	[ "$(json "$tmp/bench.json" 'd["file_encrypted"]["cipher_error"] is not None or d["file_encrypted"]["cipher_encrypt_bytes_per_second"] > 0')" = True ]
check "no loop device over a bench file left" [ -z "$(losetup -a 2>/dev/null | grep nodeswap-bench)" ]
json "$tmp/bench.json" 'd["recommendation"]["policy"]' >"$tmp/recommended.conf"
chmod 0644 "$tmp/recommended.conf"
check "a recommendation with reasons" [ "$(json "$tmp/bench.json" 'len(d["recommendation"]["reasons"]) >= 2')" = True ]
"$NODESWAP" check --config "$tmp/recommended.conf" >"$tmp/check.out" 2>&1
rc=$?
check "nodeswap check accepts the recommended policy (exit $rc)" [ $rc = 0 ]
[ $rc = 0 ] || sed 's/^/    /' "$tmp/recommended.conf" "$tmp/check.out"
"$NODESWAP" plan --config "$tmp/recommended.conf" >"$tmp/plan.out" 2>&1
check "nodeswap plan accepts it too" [ $? != 2 ]
left_behind "full run"

# --- text, and a directory without O_DIRECT (tmpfs): the drive is skipped with the reason -------
"$NODESWAP" bench --dir /dev/shm >"$tmp/text" 2>"$tmp/err"
check "tmpfs: exit 0" [ $? = 0 ]
check "text: the table" grep -q '^BACKEND  *PAGES  *MIB  *RATIO  *RAM/GIB  *CPU-OUT  *CPU-IN$' "$tmp/text"
check "text: the recommendation" grep -q '^Recommended: Backend=zram$' "$tmp/text"
check "tmpfs: the drive not measured, and why" grep -q '^file  *\/dev/shm: a file system in memory' "$tmp/text"
check "tmpfs: no file left" [ -z "$(ls -A /dev/shm | grep nodeswap-bench)" ]
left_behind "tmpfs run"

# --- interrupted: SIGINT while its zram device exists, SIGTERM while its file exists ------------
new_zram() { [ "$(zram_list)" != "$zram_before" ]; }
bench_file() { [ -n "$(ls -A "$dir")" ]; }
for sig in INT:new_zram TERM:bench_file; do
	"$NODESWAP" bench --dir "$dir" >"$tmp/int.out" 2>"$tmp/int.err" &
	pid=$!
	# wait (up to 60 s, polling every 10 ms) until bench is in the phase to interrupt
	for ((i = 0; i < 6000; i++)); do "${sig#*:}" && break; sleep 0.01; done
	seen=no
	"${sig#*:}" && seen=yes
	kill -"${sig%:*}" "$pid"
	wait "$pid"
	rc=$?
	check "SIG${sig%:*}: sent while bench held its ${sig#*:} ($seen)" [ $seen = yes ]
	check "SIG${sig%:*}: exit 1" [ $rc = 1 ]
	check "SIG${sig%:*}: says so" grep -q '^Interrupted' "$tmp/int.err"
	left_behind "SIG${sig%:*}"
done

# --- root only: it creates a zram device ----------------------------------------------------
chmod 0755 "$tmp"
setpriv --reuid=65534 --regid=65534 --clear-groups "$NODESWAP" bench >/dev/null 2>"$tmp/err"
check "as nobody: exit 1" [ $? = 1 ]
check "as nobody: says it needs root" grep -q 'needs root' "$tmp/err"
left_behind "as nobody"

# --- bench measures this node only ------------------------------------------------------------
"$NODESWAP" bench --root "$tmp" >/dev/null 2>"$tmp/err"
check "--root refused (exit 2)" [ $? = 2 ]

[ "$fails" = 0 ]
