#!/usr/bin/env bash
# Faults and security on copies of a fixture tree (no kernel touched):
#  - zram hot_add failing (the control file is a directory: mode 000 would not stop root): apply
#    exits 1 with a clear message, and the tree is unchanged but for apply's lock file;
#  - the kubelet drop-in directory, when missing, is created 0700 (its parents too);
#  - apply killed (SIGKILL, fault injection of the test build: NODESWAP_FAULT_KILL_AFTER=N) right
#    after each of its steps: the rerun exits 0 and leaves the tree as an apply that was never
#    stopped does (what the next plan would do is the same), and the sweep reaches every step;
#  - policy files that others than root own or may write are refused: see test-policy.c
#    (refuse_group_or_world_writable, refuse_foreign_owner) and tests/policies/hostile/.
#   test-faults-fixture.sh path/to/nodeswap FIXTURE_DIR
set -uo pipefail
FIXTURE=$(readlink -f "${2:?usage: $0 NODESWAP FIXTURE_DIR}")

tmp=$(mktemp -d /tmp/nodeswap-faults-fixture.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
chmod 0755 "$tmp"
. "$(dirname "$(readlink -f "$0")")/../lib/common.sh"
NODESWAP=$(under_test "$1" "$tmp") || exit 1
snapshot() {
	(cd "$1" && find . ! -path ./run/nodeswap.lock -printf '%p %y %m %u:%g %l\n' | sort &&
		find . -type f ! -path ./run/nodeswap.lock -print0 | sort -z | xargs -0 sha256sum)
}
policy() { printf "$2" >"$tmp/$1.conf"; chmod 0644 "$tmp/$1.conf"; echo "$tmp/$1.conf"; }

# --- hot_add failing ------------------------------------------------------------------------------
root=$tmp/hotadd
cp -a "$FIXTURE/rpi-untouched" "$root"
rm "$root/sys/class/zram-control/hot_add"
mkdir -m 0755 "$root/sys/class/zram-control/hot_add"
before=$(snapshot "$root")
z=$(policy zram '[Swap]\nBackend=zram\n[Zram]\nSize=1G\nAlgorithm=lz4\nPriority=100\n')
"$NODESWAP" apply --root "$root" --config "$z" >"$tmp/out" 2>"$tmp/err"
check "hot_add failing: apply exits 1" [ $? = 1 ]
check "hot_add failing: a clear message ($(grep -o 'Failed to set up a zram device.*' "$tmp/out"))" \
	grep -q "Failed to set up a zram device (1.0 GiB, lz4, priority 100): Is a directory" "$tmp/out"
check "hot_add failing: the tree is unchanged" [ "$(snapshot "$root")" = "$before" ]
"$NODESWAP" apply --json --root "$root" --config "$z" >"$tmp/out.json" 2>"$tmp/err"
check "hot_add failing: the JSON says ok=false, changed=false" \
	[ "$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["ok"], d["changed"])' "$tmp/out.json")" = "False False" ]

# --- the kubelet drop-in directory is created 0700 -------------------------------------------------
root=$tmp/kubelet
cp -a "$FIXTURE/rpi-untouched" "$root"
rm -rf "$root/var/lib/rancher/k3s/agent/etc"
k=$(policy kubelet '[Kubelet]\nSwapBehavior=LimitedSwap\n')
"$NODESWAP" apply --root "$root" --config "$k" >"$tmp/out" 2>"$tmp/err"
check "drop-in: apply exits 0" [ $? = 0 ]
d=$root/var/lib/rancher/k3s/agent/etc
check "drop-in: the missing parent is created 0700 ($(stat -c %a "$d"))" [ "$(stat -c %a "$d")" = 700 ]
check "drop-in: kubelet.conf.d is created 0700 ($(stat -c %a "$d/kubelet.conf.d"))" [ "$(stat -c %a "$d/kubelet.conf.d")" = 700 ]
check "drop-in: owned by root" [ "$(stat -c %u "$d/kubelet.conf.d")" = "$(id -u)" ]
check "drop-in: the drop-in is written" grep -q 'failSwapOn: false' "$d/kubelet.conf.d/90-nodeswap.conf"
check "drop-in: and is not writable by others ($(stat -c %a "$d/kubelet.conf.d/90-nodeswap.conf"))" \
	[ $(( 0$(stat -c %a "$d/kubelet.conf.d/90-nodeswap.conf") & 022 )) = 0 ]

# --- killed after every step ---------------------------------------------------------------------
# A swap file policy on rpi-untouched (under --root the file is made in the tree, swapon and
# systemd are skipped; the fixture's zram-control cannot hand out new devices as the kernel does,
# so zram is the kernel test's, tests/integration/test-faults-kernel.sh). What a rerun after a kill
# leaves must be what an apply never stopped leaves: compared through the plan a next run would
# make (the trees differ in the state's timestamps and the header's UUID).
if fault_injection_built "$NODESWAP"; then
	fxtree() { cp -a "$FIXTURE/rpi-untouched" "$1"; }
	next_plan() {
		"$NODESWAP" plan --json --root "$1" --config "$zsk" 2>/dev/null |
			python3 -c 'import json,sys; print([(a["kind"], a["target"], a["want"]) for a in json.load(sys.stdin)["actions"]])'
	}
	zsk=$(policy zsk '[Swap]\nBackend=file\n[File]\nPath=/var/lib/nodeswap/swapfile\nSize=1M\nPriority=10\n[Sysctl]\nSwappiness=100\nPageCluster=0\n[Kubelet]\nSwapBehavior=LimitedSwap\n')
	fxtree "$tmp/ref"
	steps=$("$NODESWAP" plan --json --root "$tmp/ref" --config "$zsk" 2>/dev/null | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["actions"]))')
	"$NODESWAP" apply -q --root "$tmp/ref" --config "$zsk" >/dev/null 2>&1
	check "kill sweep: the reference apply exits 0" [ $? = 0 ]
	want=$(next_plan "$tmp/ref")
	n=0 bad=0
	while :; do
		n=$((n + 1))
		rm -rf "$tmp/k"
		fxtree "$tmp/k"
		NODESWAP_FAULT_KILL_AFTER=$n "$NODESWAP" apply -q --root "$tmp/k" --config "$zsk" >/dev/null 2>"$tmp/err"
		rc=$?
		[ $rc = 137 ] || break
		grep -q "^fault injection: killed after step $n " "$tmp/err" || { fail "kill sweep N=$n: no message naming the step"; bad=1; }
		"$NODESWAP" apply -q --root "$tmp/k" --config "$zsk" >/dev/null 2>"$tmp/err"
		rc=$?
		[ $rc = 0 ] || { fail "kill sweep N=$n: the rerun exits $rc: $(cat "$tmp/err")"; bad=1; }
		got=$(next_plan "$tmp/k")
		[ "$got" = "$want" ] || { fail "kill sweep N=$n: the rerun left another tree: next plan $got, not $want"; bad=1; }
		[ $n -le $((steps + 1)) ] || break
	done
	check "kill sweep: an apply not killed after the last step exits 0 ($rc)" [ $rc = 0 ]
	check "kill sweep: every one of the $steps steps was reached ($((n - 1)))" [ $((n - 1)) = "$steps" ]
	check "kill sweep: each rerun converged" [ $bad = 0 ]
else
	echo "SKIP: kill sweep: $NODESWAP is not a test build (meson configure build -Dfault-injection=true)"
fi

echo "$fails check(s) failed"
[ "$fails" = 0 ]
