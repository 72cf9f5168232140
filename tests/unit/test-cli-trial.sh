#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# nodeswap trial through the binary (issue 27): --compare on the recorded trials of
# tests/fixtures/trial/root (text and JSON: side by side, grouped by command, a bad record named
# and skipped), the argument errors (exit 2, each message saying what to give), and a trial on a
# node it cannot run on (exit 1, saying why, nothing run): no systemd, cgroup v1, and --root. The
# runs themselves need a real systemd: the e2e VM's trial scenario.
# Usage: test-cli-trial.sh NODESWAP FIXTURES
set -uo pipefail

fx=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$(dirname "$(readlink -f "$0")")/../lib/common.sh"
ns=$(under_test "$1" "$tmp") || exit 1
out=$tmp/out
root=$fx/trial/root

# --- --compare -----------------------------------------------------------------------------
run 0 trial --compare --root "$root"
has '^/usr/bin/make -j4 Image$'
has '20261201T100000Z +\| 20261201T120000Z'
has '\| zram lz4 +\| file'
has '^  288.0 MiB swap +\| ok 1/1 1750.0s out 30.00G w 2.40G z 210.0 MiB +\| ok 1/1 1700.0s out 30.00G w 40.00G z —'
has '^  432.0 MiB no swap +\| oom 0/1 — '
has '^/usr/local/bin/hog --hot 32M$'
has 'Skipped .*20261201T140000Z.json: not a version 1 trial record'

run 0 trial --compare --root "$root" -- make -j4 Image
has '^/usr/bin/make -j4 Image$'
lacks 'hog'
run 0 trial --compare --root "$root" -- make -j8 Image
has "No trial of 'make -j8 Image' recorded"

"$ns" trial --compare --json --root "$root" -- /usr/bin/make -j4 Image >"$tmp/c.json" 2>/dev/null
check "compare --json: two trials of the one command" \
	[ "$(json "$tmp/c.json" '[t["id"] for t in d["trials"]]')" = "['20261201T100000Z', '20261201T120000Z']" ]
check "compare --json: backends" [ "$(json "$tmp/c.json" '[t["backend"] for t in d["trials"]]')" = "['zram', 'file']" ]
check "compare --json: rows limit x swap, highest first" \
	[ "$(json "$tmp/c.json" '[(r["limit_bytes"] >> 20, r["swap"]) for r in d["commands"][0]["rows"]]')" = \
	  "[(1152, False), (576, False), (432, False), (432, True), (288, True), (256, True)]" ]
check "compare --json: a file run's writes, zram's RAM null on it" \
	[ "$(json "$tmp/c.json" '[(c["disk_written_bytes"], c["zram_ram_peak_bytes"]) for c in d["commands"][0]["rows"][4]["cells"]]')" = \
	  "[(2400000000, 220200960), (40000000000, None)]" ]
check "compare --json: oom cell" [ "$(json "$tmp/c.json" 'd["commands"][0]["rows"][2]["cells"][0]["result"]')" = oom ]

# --compare of density records (tests/fixtures/trial/density: the idle replicas on zram and on the
# file, the hot replicas on zram): per command one column a backend, the densities, ratio, ceiling,
# the scheduler's view, a row per point with its costs, and what the figures leave out
dn=$fx/trial/density
run 0 trial --compare --root "$dn"
has '^Density trials of /usr/local/lib/nodeswap-e2e/replica idle 40$'
has '^Density trials of /usr/local/lib/nodeswap-e2e/replica hot 40$'
has '^  swap +\| zram zstd +\| file +$'
has '^  density no swap / swap +\| 9 / 16 \(1\.78×\) +\| 6 / 9 \(1\.50×\) +$'
has '^  ceiling 1 \+ swap/RAM +\| 2\.00× \(zram 1\.98×\) +\| 1\.32× +$'
has '^  scheduler admits +\| 110 \(maxPods\); 16 at ≤ 117\.0 MiB +\| 110 \(maxPods\); 9 at ≤ 117\.0 MiB'
has '^  request / limit / swap +\| 16\.0 MiB / 48\.0 MiB / 16\.0 MiB +\| 40\.0 MiB / 48\.0 MiB / 13\.0 MiB'
has '^  16 swap +\| held 1/1 3\.4s 1\.1% out 0\.24G w 0\.00G z 81\.0 MiB +\| +$'
has '^  9 no swap +\| held 1/1 2\.9s 0\.4% out 0\.00G w 0\.00G z 0 B +\| slow 0/1 4\.7s 0\.0% out 0\.00G w 0\.00G z — +$'
has '^  10 no swap +\| oom 0/1 — — '
has 'the figures leave out what a pod adds on a node'
lacks 'No trial recorded'
lacks 'Left out'
run 0 trial --compare --root "$dn" -- replica hot 40
has '^Density trials of /usr/local/lib/nodeswap-e2e/replica hot 40$'
lacks 'idle 40'
"$ns" trial --compare --json --root "$dn" -- replica idle 40 >"$tmp/d.json" 2>/dev/null
check "compare --json, density: the runs' lists empty" [ "$(json "$tmp/d.json" '(d["trials"], d["commands"])')" = "([], [])" ]
check "compare --json, density: one entry a trial of the command, backends" \
	[ "$(json "$tmp/d.json" '[(t["id"], t["backend"]) for t in d["density_trials"]]')" = "[('20261203T200400Z', 'zram'), ('20261203T200900Z', 'file')]" ]
check "compare --json, density: densities, ratio, ceiling, admitted, the request for the density" \
	[ "$(json "$tmp/d.json" '[(t["density_no_swap"], t["density_swap"], t["ratio"], round(t["ceiling"], 2), t["admitted"], t["request_for_density_swap_bytes"] >> 20) for t in d["density_trials"]]')" = \
	  "[(9, 16, 1.78, 2.0, 110, 117), (6, 9, 1.5, 1.32, 110, 117)]" ]
check "compare --json, density: no pod overhead measured, and said so" \
	eval '[ "$(json "$tmp/d.json" "[t[\"pod_overhead_bytes\"] for t in d[\"density_trials\"]]")" = "[None, None]" ] &&
	      json "$tmp/d.json" "d[\"pod_overhead\"]" | grep -q "leave out what a pod adds"'
check "compare --json, density: rows without swap first, by replicas" \
	[ "$(json "$tmp/d.json" '[(r["replicas"], r["swap"]) for r in d["density_commands"][0]["rows"]]')" = \
	  "[(1, False), (6, False), (7, False), (8, False), (9, False), (10, False), (8, True), (9, True), (10, True), (11, True), (16, True), (17, True)]" ]
check "compare --json, density: a point of one backend only is null in the other's column" \
	[ "$(json "$tmp/d.json" '[c and (c["result"], c["swapped_out_bytes"] >> 20, c["zram_ram_peak_bytes"] >> 20) for c in d["density_commands"][0]["rows"][10]["cells"]]')" = \
	  "[('held', 243, 81), None]" ]
# a root with both kinds: both tables, the runs' first
mkdir -p "$tmp/mixed/var/lib/nodeswap/trials"
cp "$root"/var/lib/nodeswap/trials/*.json "$dn"/var/lib/nodeswap/trials/*.json "$tmp/mixed/var/lib/nodeswap/trials/"
run 0 trial --compare --root "$tmp/mixed"
has '^/usr/bin/make -j4 Image$'
has '^Density trials of /usr/local/lib/nodeswap-e2e/replica idle 40$'
run 0 trial --compare --root "$tmp/mixed" -- make -j4 Image
lacks 'Density trials'
"$ns" trial --compare --json --root "$tmp/mixed" >"$tmp/m.json" 2>/dev/null
check "compare --json, both kinds: 4 trials with runs, 3 density trials" \
	[ "$(json "$tmp/m.json" '(len(d["trials"]), len(d["density_trials"]), len(d["density_commands"]))')" = "(4, 3, 2)" ]

# no record at all
mkdir -p "$tmp/empty"
run 0 trial --compare --root "$tmp/empty"
has 'No trial recorded in /var/lib/nodeswap/trials'

# --- argument errors: exit 2 -----------------------------------------------------------------
run 2 trial --limits 48M
has "needs a command after '--'"
run 2 trial -- /bin/true
has 'needs --limits L1,L2,..., --find-floor or --density'
run 2 trial --density -- /bin/true
has 'needs --request R and --limit L'
run 2 trial --density --request 32Mi --limit 64Mi --limits 48M -- /bin/true
has 'takes --request and --limit, not --limits'
run 2 trial --limits 48M --hold 10 -- /bin/true
has 'go with nodeswap trial --density'
run 2 trial --limits 48M --memory 1Gi -- /bin/true
has 'go with nodeswap trial --density'
run 2 trial --compare --density
has 'takes only --json, --svg, --root and -- COMMAND'
run 2 trial --compare --limits 48M
has 'takes only --json, --svg, --root and -- COMMAND'
run 2 trial --find-floor --limits 48M -- /bin/true
has '--find-floor takes --limits LO,HI'
run 2 status -- /bin/true
has "does not take a command after '--'"
run 2 status --limits 48M
has 'does not take the trial options'

# the numbers, on a root where the node can be read (cgroup v2, systemd): the values are checked
# before anything about the node decides
mk_root() {     # mk_root DIR CGROUP_FSTYPE [systemd]
	mkdir -p "$1/proc/self" "$1/sys/fs/cgroup"
	printf 'MemTotal:        4026532 kB\nMemFree:         3000000 kB\nMemAvailable:    3500000 kB\nSwapTotal:       2097148 kB\nSwapFree:        2097148 kB\n' >"$1/proc/meminfo"
	printf 'Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n' >"$1/proc/swaps"
	printf '25 1 0:23 / /sys/fs/cgroup rw,nosuid,nodev,noexec,relatime shared:9 - %s %s rw\n' "$2" "$2" >"$1/proc/self/mountinfo"
	[ "${3:-}" = systemd ] && mkdir -p "$1/run/systemd/system"
	return 0
}
mk_root "$tmp/v2" cgroup2 systemd
for bad in "--limits 1K" "--limits 48M,,x" "--limits 0"; do
	run 2 trial --root "$tmp/v2" $bad -- /bin/true
	has 'Invalid --limits value'
done
run 2 trial --root "$tmp/v2" --find-floor --limits 96M,48M -- /bin/true
has 'two sizes, LO below HI'
run 2 trial --root "$tmp/v2" --limits 48M --runs 0 -- /bin/true
has "Invalid --runs '0'"
run 2 trial --root "$tmp/v2" --limits 48M --cpus two -- /bin/true
has "Invalid --cpus 'two'"
run 2 trial --root "$tmp/v2" --limits 48M --timeout 5y -- /bin/true
has "Invalid --timeout '5y'"
run 2 trial --root "$tmp/v2" --limits 48M --seed -1 -- /bin/true
has "Invalid --seed '-1'"
run 2 trial --root "$tmp/v2" --limits 48M --drive-tbw 0 -- /bin/true
has "Invalid --drive-tbw '0'"

for bad in "--request 32x" "--request 64Mi --limit 32Mi" "--limit 512Ki" "--replicas-max 0" "--around x" "--hold 0" "--memory 32Mi"; do
	run 2 trial --root "$tmp/v2" --density --request 32Mi --limit 64Mi $bad -- /bin/true
	has "Invalid --|is above --limit"
done

# --density's refusals, before the host's: SwapTotal 0, no allowance (a request equal to the
# limit, or zero), an allowance above SwapFree; then a node it could run on is still refused for
# --root. 32Mi / 4026532 kB × 2097148 kB = 17476266 bytes (float64, truncated), 17473536 in pages.
run 1 trial --root "$tmp/v2" --density --request 64Mi --limit 64Mi -- /bin/true
has 'gets no swap on this node \(the memory request equals the limit'
run 1 trial --root "$tmp/v2" --density --request 0 --limit 64Mi -- /bin/true
has 'gets no swap on this node \(a request of zero gets no swap\)'
mk_root "$tmp/noswap" cgroup2 systemd
sed -i 's/^SwapTotal:.*/SwapTotal:             0 kB/; s/^SwapFree:.*/SwapFree:              0 kB/' "$tmp/noswap/proc/meminfo"
run 1 trial --root "$tmp/noswap" --density --request 32Mi --limit 64Mi -- /bin/true
has 'this node has none \(SwapTotal 0\): nothing was run'
mk_root "$tmp/full" cgroup2 systemd
sed -i 's/^SwapFree:.*/SwapFree:          16000 kB/' "$tmp/full/proc/meminfo"
run 1 trial --root "$tmp/full" --density --request 32Mi --limit 64Mi -- /bin/true
has "One replica's allowance, 16.7 MiB, is more than the node's free swap \\(SwapFree 15.6 MiB\\)"
mk_root "$tmp/tight" cgroup2 systemd
sed -i 's/^MemAvailable:.*/MemAvailable:      50000 kB/' "$tmp/tight/proc/meminfo"
run 1 trial --root "$tmp/tight" --density --request 32Mi --limit 64Mi -- /bin/true
has "The replicas' budget, 48.8 MiB \\(MemAvailable less memory.available\\), is less than one replica's limit, 64.0 MiB"
run 1 trial --root "$tmp/v2" --density --request 32Mi --limit 64Mi -- /bin/true
has 'runs commands on this host only'
check "density: a refused trial recorded nothing" [ ! -e "$tmp/v2/var/lib/nodeswap" ]

# --- a node it cannot run on: exit 1, nothing run, nothing recorded -------------------------
mk_root "$tmp/nosd" cgroup2
run 1 trial --root "$tmp/nosd" --limits 48M -- /bin/true
has 'this host was not booted with systemd'
mk_root "$tmp/v1" tmpfs systemd
run 1 trial --root "$tmp/v1" --limits 48M -- /bin/true
has 'needs cgroup v2'
run 1 trial --root "$tmp/v2" --limits 48M -- /bin/true
has "runs commands on this host only; --root '$tmp/v2' is for --compare"
check "nothing recorded below the roots" [ -z "$(find "$tmp/nosd" "$tmp/v1" "$tmp/v2" -path '*trials*')" ]

# this host, when it was not booted with systemd (the build machine): a clear message
if [ ! -d /run/systemd/system ]; then
	run 1 trial --limits 48M -- /bin/true
	has 'not booted with systemd'
fi

[ "$fails" = 0 ]
