#!/usr/bin/env bash
# nodeswap side by side with the tools an operator would otherwise use, on this machine, in one run.
# Usage (root): tests/bench/run.sh BUILD_DIR
# Writes tests/bench/results/latest.{md,json}. See tests/bench/README.md for what is measured and how.
#
# It uses the real kernel: a zram device of its own (and the host's zram0 for the tools that insist
# on zram0, left as found: disksize 0, algorithm as before), a sparse ext4 image on a loop device
# of its own, a memory cgroup of its own, and the sysctls (saved and restored). Everything is undone
# by the trap, pass or fail. It holds the machine-wide kernel test lock for its whole run.
#
# Environment: BENCH_RUNS (default 15; BENCH_FAST_RUNS, default 50, for the series of a few ms), BENCH_DD16_RUNS (dd of 16 GiB; default 3),
# BENCH_ZRAM_ROUNDS, BENCH_ZRAM_ROUND (default 20 rounds of 10 runs: the interleaved zram nodeswap / C floor series),
# BENCH_SWITCH_RUNS (default 15), BENCH_WAIT_QUIET (seconds to wait for no qemu VM; default 0), BENCH_FILE_SIZES (default "2G 16G"), BENCH_OUT (results directory;
# default tests/bench/results next to this script).
set -euo pipefail

BUILD=$(readlink -f "${1:?usage: $0 BUILD_DIR}")
HERE=$(dirname "$(readlink -f "$0")")
NODESWAP=$BUILD/src/nodeswap
GENERATOR=$BUILD/src/generator/nodeswap-generator
ZRAM_GENERATOR=${ZRAM_GENERATOR:-/lib/systemd/system-generators/zram-generator}
RUNS=${BENCH_RUNS:-15}
# series of a few milliseconds each get more runs: on a shared machine their medians need them
FAST_RUNS=${BENCH_FAST_RUNS:-$((RUNS > 50 ? RUNS : 50))}
DD16_RUNS=${BENCH_DD16_RUNS:-3}
SWITCH_RUNS=${BENCH_SWITCH_RUNS:-15}
FILE_SIZES=${BENCH_FILE_SIZES:-"2G 16G"}
RESULTS=${BENCH_OUT:-$HERE/results}

die() { echo "bench: $*" >&2; exit 1; }
say() { echo "bench: $*" >&2; }

[ "$(id -u)" = 0 ] || die "needs root (real zram, loop devices, swapon, cgroups)"
[ -x "$NODESWAP" ] && [ -x "$GENERATOR" ] || die "no nodeswap build in $BUILD (meson setup build && ninja -C build)"
for t in gcc python3 strace mkfs.ext4 losetup mount mkswap swapon swapoff fallocate dd "$ZRAM_GENERATOR" \
	/usr/sbin/zramswap /sbin/dphys-swapfile /lib/systemd/systemd-makefs; do
	command -v "$t" >/dev/null || die "$t missing (apt-get install systemd-zram-generator zram-tools dphys-swapfile strace)"
done
[ -e /sys/class/zram-control/hot_add ] || die "no zram in this kernel"
CGV1=/sys/fs/cgroup/memory
[ -e $CGV1/memory.limit_in_bytes ] || die "needs the cgroup v1 memory controller at $CGV1"

# Timings are noisy while a VM runs: BENCH_WAIT_QUIET=SECONDS waits (at most that long) for no qemu.
quiet_wait=${BENCH_WAIT_QUIET:-0}
while [ "$quiet_wait" -gt 0 ] && pgrep qemu >/dev/null; do
	[ "$quiet_wait" = "${BENCH_WAIT_QUIET:-0}" ] && say "a qemu VM is running; waiting up to ${BENCH_WAIT_QUIET}s for it to end"
	sleep 5
	quiet_wait=$((quiet_wait - 5))
done

mkdir -p /run/lock
exec 9>/run/lock/nodeswap-kernel.lock
say "waiting for the kernel test lock"
flock 9

# The host must be quiet where we measure: no swap at all, zram0 free, no nodeswap state.
[ "$(tail -n +2 /proc/swaps | wc -l)" = 0 ] || die "this host has swap active; the benchmark wants none"
[ ! -e /var/lib/nodeswap ] && [ ! -e /run/nodeswap ] && [ ! -e /run/nodeswap-state ] || die "this host has nodeswap state; not touching it"
zram0_free=0
if [ -e /sys/block/zram0 ] && [ "$(cat /sys/block/zram0/disksize)" = 0 ]; then
	zram0_free=1
	zram0_algo=$(sed 's/.*\[\(.*\)\].*/\1/' /sys/block/zram0/comp_algorithm)
fi
[ "$zram0_free" = 1 ] || die "zram0 missing or in use; zram-generator and zramswap need a free zram0"
avail_kib=$(df --output=avail /var/tmp | tail -1)
[ "$avail_kib" -gt $((45 * 1024 * 1024)) ] || die "needs 45 GiB free in /var/tmp for the ext4 image (has $((avail_kib / 1024 / 1024)) GiB)"

tmp=$(mktemp -d /var/tmp/nodeswap-bench.XXXXXX)
mnt=$(mktemp -d /mnt/nodeswap-bench.XXXXXX)
raw=$tmp/raw
mkdir -p "$raw"
saved_swappiness=$(cat /proc/sys/vm/swappiness)
saved_page_cluster=$(cat /proc/sys/vm/page-cluster)
zram_before=$(ls /sys/block | grep '^zram' | sort)
cg=$CGV1/nodeswap-bench.$$
loopdev=
genout=

cleanup() {
	local dev id pid
	set +e
	for pid in $(cat "$cg/cgroup.procs" 2>/dev/null); do kill -9 "$pid"; done
	while read -r dev _; do
		case "$dev" in
		"$mnt"/*) swapoff "$dev" ;;
		/dev/zram0) swapoff "$dev" ;;
		/dev/zram*) id=${dev#/dev/}; grep -qx "$id" <<<"$zram_before" || swapoff "$dev" ;;
		esac
	done < <(tail -n +2 /proc/swaps)
	for d in /sys/block/zram*; do
		id=${d##*/}
		if [ "$id" = zram0 ]; then
			if [ "$(cat $d/disksize)" != 0 ]; then echo 1 >$d/reset; fi
			echo "$zram0_algo" >$d/comp_algorithm
			continue
		fi
		grep -qx "$id" <<<"$zram_before" && continue
		echo 1 >"$d/reset"
		echo "${id#zram}" >/sys/class/zram-control/hot_remove
	done
	if [ -d "$cg" ]; then
		for i in 1 2 3 4 5 6 7 8 9 10; do rmdir "$cg" 2>/dev/null && break; sleep 0.2; done
	fi
	mountpoint -q "$mnt" && umount "$mnt"
	[ -n "$loopdev" ] && losetup -d "$loopdev"
	rmdir "$mnt" 2>/dev/null
	rm -rf /var/lib/nodeswap /run/nodeswap /run/nodeswap.lock
	echo "$saved_swappiness" >/proc/sys/vm/swappiness
	echo "$saved_page_cluster" >/proc/sys/vm/page-cluster
	[ -n "$genout" ] && rm -rf "$genout"
	if [ -n "${BENCH_KEEP:-}" ]; then say "kept $tmp"; else rm -rf "$tmp"; fi
}
trap cleanup EXIT
trap 'exit 1' INT TERM

# --- helpers -----------------------------------------------------------------------------------
for p in benchrun floor-zram memhog; do
	gcc -O2 -Wall -Wextra -Werror -o "$tmp/$p" "$HERE/$p.c"
done
# Every run is paired with a /bin/true started just before it, under the same load: "work above one
# process start" is the median of the differences.
BR() { "$tmp/benchrun" --baseline /bin/true "$@"; }

policy() {      # policy NAME <<EOF: a root-owned 0644 policy file, prints its path
	cat >"$tmp/$1.conf"
	chmod 0644 "$tmp/$1.conf"
	echo "$tmp/$1.conf"
}

# Untimed teardown scripts, run by benchrun before each run.
cat >"$tmp/teardown-zram.sh" <<EOF
# zram devices that were not there before the benchmark, and nodeswap's state
for d in \$(awk 'NR > 1 && \$1 ~ /^\/dev\/zram/ && \$1 != "/dev/zram0" {print \$1}' /proc/swaps); do swapoff \$d; done
for d in /sys/block/zram*; do
	id=\${d##*/}
	case " $(echo $zram_before) " in *" \$id "*) continue ;; esac
	echo 1 >\$d/reset
	echo \${id#zram} >/sys/class/zram-control/hot_remove
done
rm -rf /run/nodeswap /run/nodeswap-state /var/lib/nodeswap
EOF
cat >"$tmp/teardown-zram0.sh" <<EOF
# the host's zram0 back to how it was found: off, disksize 0, its algorithm
if awk '\$1 == "/dev/zram0" {f = 1} END {exit !f}' /proc/swaps; then swapoff /dev/zram0; fi
if [ "\$(cat /sys/block/zram0/disksize)" != 0 ]; then echo 1 >/sys/block/zram0/reset; fi
echo $zram0_algo >/sys/block/zram0/comp_algorithm
EOF
cat >"$tmp/teardown-file.sh" <<'EOF'
# teardown-file.sh FILE: swap it off and delete it; nodeswap's state goes too
if awk -v f="$1" '$1 == f {x = 1} END {exit !x}' /proc/swaps; then swapoff "$1"; fi
rm -f "$1"
rm -rf /run/nodeswap /run/nodeswap-state /var/lib/nodeswap
EOF
cat >"$tmp/swap-active.sh" <<'EOF'
# swap-active.sh PATTERN PRIO: a swap area whose name matches PATTERN (awk regex) is on at PRIO
awk -v p="$1" -v prio="$2" 'NR > 1 && $1 ~ p && $5 == prio {x = 1} END {exit !x}' /proc/swaps
EOF

# --- machine ------------------------------------------------------------------------------------
qemu_at_start=$(pgrep -c qemu || true)
load_at_start=$(cut -d' ' -f1-3 /proc/loadavg)
python3 - "$raw/machine.json" <<EOF
import json, os, platform, subprocess, sys, datetime
cpu = next((l.split(':', 1)[1].strip() for l in open('/proc/cpuinfo') if l.startswith('model name')), '?')
mem = next(int(l.split()[1]) for l in open('/proc/meminfo') if l.startswith('MemTotal:'))
def ver(pkg):
    try:
        return subprocess.run(['dpkg-query', '-W', '-f', '\${Version}', pkg], capture_output=True, text=True).stdout or None
    except OSError:
        return None
json.dump({
    'date': datetime.datetime.now(datetime.timezone.utc).strftime('%Y-%m-%d %H:%M UTC'),
    'nproc': os.cpu_count(), 'kernel': platform.release(), 'cpu': cpu, 'mem_total_kib': mem,
    'qemu_running_at_start': int('$qemu_at_start' or 0), 'loadavg_at_start': '$load_at_start',
    'nodeswap': subprocess.run(['$NODESWAP', '--version'], capture_output=True, text=True).stdout.strip(),
    'tools': {p: ver(p) for p in ['systemd-zram-generator', 'zram-tools', 'dphys-swapfile', 'util-linux', 'coreutils']},
    'runs': $RUNS, 'dd16_runs': $DD16_RUNS, 'switch_runs': $SWITCH_RUNS,
}, open(sys.argv[1], 'w'), indent=1)
EOF

# --- 0. process start ---------------------------------------------------------------------------
say "process start (/bin/true)"
BR --name process-start --runs 50 --warmup 5 --out "$raw/process-start.json" -- /bin/true
# nodeswap's own start: the dynamic loader and its libraries (libsystemd, libmount, libblkid, ...), no work
BR --name startup-nodeswap --runs 50 --warmup 5 --out "$raw/startup-nodeswap.json" -- "$NODESWAP" --version

# --- 1. generators ------------------------------------------------------------------------------
say "generators"
g=$tmp/gen
mkdir -p "$g/ns/etc/nodeswap" "$g/ns/proc" "$g/zg/etc/systemd" "$g/zg/proc"
cp /proc/meminfo "$g/ns/proc/meminfo"
cp /proc/meminfo /proc/cmdline "$g/zg/proc/"
cat >"$g/ns/etc/nodeswap/nodeswap.conf" <<EOF
# every section: zram and a swap file, sysctls, kubelet, the default conflict units
[Swap]
Backend=zram file
[Zram]
Size=min(ram / 2, 8G)
Algorithm=zstd lz4
Priority=100
[File]
Encrypt=no
Path=/var/lib/nodeswap/swapfile
Size=16G
Priority=10
[Sysctl]
Swappiness=60
PageCluster=0
[Kubelet]
SwapBehavior=LimitedSwap
EOF
cat >"$g/zg/etc/systemd/zram-generator.conf" <<EOF
[zram0]
zram-size = min(ram / 2, 8192)
compression-algorithm = lz4
swap-priority = 100
EOF
chmod 0644 "$g/ns/etc/nodeswap/nodeswap.conf" "$g/zg/etc/systemd/zram-generator.conf"
# Generators write into /run/systemd/generator*, a tmpfs: so do they here (on a disk shared with
# other work, the runs' mkdir and symlink calls waited for its journal, a cost no boot pays).
genout=$(mktemp -d /dev/shm/nodeswap-bench-gen.XXXXXX)
o=$genout/out
NODESWAP_ROOT=$g/ns BR --name gen-nodeswap --runs "$FAST_RUNS" --warmup 3 \
	--prepare "rm -rf $o && mkdir -p $o/n $o/e $o/l" \
	--after "test -L $o/e/dev-zram0.swap && test -e $o/n/nodeswap.service.d/50-requires-mounts.conf" \
	--out "$raw/gen-nodeswap.json" -- "$GENERATOR" "$o/n" "$o/e" "$o/l"
ZRAM_GENERATOR_ROOT=$g/zg BR --name gen-zram-generator --runs "$FAST_RUNS" --warmup 3 \
	--prepare "rm -rf $o && mkdir -p $o/n $o/e $o/l" \
	--after "test -e $o/n/dev-zram0.swap" \
	--out "$raw/gen-zram-generator.json" -- "$ZRAM_GENERATOR" "$o/n" "$o/e" "$o/l"

# --- 2. zram provisioning: 2 GiB lz4 at priority 100 ----------------------------------------------
say "zram provisioning"
pz=$(policy zram <<EOF
[Swap]
Backend=zram
[Zram]
Size=2G
Algorithm=lz4
Priority=100
[Conflicts]
Units=
EOF
)
mkdir -p "$tmp/zgs/etc/systemd" "$tmp/zgs/proc"
cp /proc/meminfo /proc/cmdline "$tmp/zgs/proc/"
cat >"$tmp/zgs/etc/systemd/zram-generator.conf" <<EOF
[zram0]
zram-size = 2048
compression-algorithm = lz4
swap-priority = 100
EOF
# zram-tools' script, unchanged except that it reads our config instead of /etc/default/zramswap
sed "s|^readonly CONFIG=.*|readonly CONFIG=\"$tmp/zramswap.conf\"|" /usr/sbin/zramswap >"$tmp/zramswap"
chmod 0755 "$tmp/zramswap"
printf 'ALGO=lz4\nSIZE=2048\nPRIORITY=100\n' >"$tmp/zramswap.conf"
zramswap_note=
zramswap_path=$PATH
if ! modprobe -n zram >/dev/null 2>&1; then
	# zram is built into this kernel and there is no modprobe (or no /lib/modules): zramswap's
	# "modprobe zram" would fail although the module is there. A no-op stand-in, stated.
	mkdir -p "$tmp/shim"
	printf '#!/bin/sh\nexit 0\n' >"$tmp/shim/modprobe"
	chmod 0755 "$tmp/shim/modprobe"
	zramswap_path=$tmp/shim:$PATH
	zramswap_note="modprobe is unavailable here (zram built in, no /lib/modules): a no-op modprobe stood in"
fi

# nodeswap and the C floor interleaved, in rounds of ZRAM_ROUND runs each, so that both see the same
# load; the rounds are merged into one series each, and the ratio of each round is kept too.
# Twenty rounds: on a busy machine five rounds' ratios ranged from 0.6x to 4.8x.
ZRAM_ROUND=${BENCH_ZRAM_ROUND:-10}
zram_rounds=${BENCH_ZRAM_ROUNDS:-20}
mkdir -p "$raw/rounds"
for r in $(seq "$zram_rounds"); do
	BR --name zram-nodeswap --runs "$ZRAM_ROUND" --warmup 1 --prepare ". $tmp/teardown-zram.sh" \
		--after "sh $tmp/swap-active.sh '^/dev/zram[1-9]' 100" \
		--out "$raw/rounds/zram-nodeswap.$r.json" -- "$NODESWAP" apply -q --config "$pz"
	BR --name zram-floor --runs "$ZRAM_ROUND" --warmup 1 --prepare ". $tmp/teardown-zram.sh" \
		--after "sh $tmp/swap-active.sh '^/dev/zram[1-9]' 100" \
		--out "$raw/rounds/zram-floor.$r.json" -- "$tmp/floor-zram" $((2 << 30)) lz4 100
done
python3 - "$raw" "$zram_rounds" <<'EOF'
import json, statistics, sys
raw, n = sys.argv[1], int(sys.argv[2])
ratios = []
for name in ('zram-nodeswap', 'zram-floor'):
    merged = None
    for r in range(1, n + 1):
        d = json.load(open(f'{raw}/rounds/{name}.{r}.json'))
        if merged is None:
            merged = d
        else:
            for k, v in d.items():
                if isinstance(v, list):
                    merged[k] += v
    json.dump(merged, open(f'{raw}/{name}.json', 'w'))
def above(d):
    return statistics.median(w - b for w, b in zip(d['wall_ns'], d['baseline_ns']))
for r in range(1, n + 1):
    ns = json.load(open(f'{raw}/rounds/zram-nodeswap.{r}.json'))
    fl = json.load(open(f'{raw}/rounds/zram-floor.{r}.json'))
    ratios.append(above(ns) / above(fl) if above(fl) > 0 else None)
json.dump({'round_runs': len(json.load(open(f'{raw}/rounds/zram-floor.1.json'))['wall_ns']), 'ratios': ratios},
          open(f'{raw}/zram-rounds.json', 'w'))
EOF
. "$tmp/teardown-zram.sh"
ZRAM_GENERATOR_ROOT=$tmp/zgs BR --name zram-zram-generator --runs "$FAST_RUNS" --warmup 3 \
	--prepare ". $tmp/teardown-zram0.sh" \
	--after "sh $tmp/swap-active.sh '^/dev/zram0\$' 100 && grep -q '\[lz4\]' /sys/block/zram0/comp_algorithm" \
	--out "$raw/zram-zram-generator.json" -- \
	"$ZRAM_GENERATOR" --setup-device zram0 ::: swapon -o discard -p 100 /dev/zram0
PATH=$zramswap_path BR --name zram-zramswap --runs "$FAST_RUNS" --warmup 3 \
	--prepare ". $tmp/teardown-zram0.sh" \
	--after "sh $tmp/swap-active.sh '^/dev/zram0\$' 100 && grep -q '\[lz4\]' /sys/block/zram0/comp_algorithm" \
	--out "$raw/zram-zramswap.json" -- "$tmp/zramswap" start
. "$tmp/teardown-zram0.sh"
echo "$zramswap_note" >"$raw/zramswap-note.txt"

# --- 3. swap files on ext4 (loop device) -----------------------------------------------------------
say "swap files"
truncate -s 40G "$tmp/ext4.img"
mkfs.ext4 -q -F "$tmp/ext4.img"
loopdev=$(losetup --find --show --direct-io=on "$tmp/ext4.img")
mount "$loopdev" "$mnt"
stat=/sys/block/${loopdev#/dev/}/stat
mkdir -p "$mnt/ns" "$mnt/fa" "$mnt/dd"
# dphys-swapfile's script, unchanged except that it reads our config instead of /etc/dphys-swapfile
# and edits a copy of fstab instead of /etc/fstab
cp /etc/fstab "$tmp/fstab"
sed -e "s|/etc/\"\${PNAME}\"|$tmp/dphys-swapfile.conf|g" -e "s|/etc/\.fstab|$tmp/.fstab|g" \
	-e "s|/etc/fstab|$tmp/fstab|g" /sbin/dphys-swapfile >"$tmp/dphys-swapfile"
chmod 0755 "$tmp/dphys-swapfile"
grep -q '/etc/' "$tmp/dphys-swapfile" && die "dphys-swapfile copy still refers to /etc"

for size in $FILE_SIZES; do
	mib=$(numfmt --from=iec "$size" | awk '{print $1 / 1048576}')
	pf=$(policy "file-$size" <<EOF
[Swap]
Backend=file
[File]
Encrypt=no
Path=$mnt/ns/swapfile
Size=$size
Priority=10
Storage=virtual
[Conflicts]
Units=
EOF
)
	BR --name "file-$size-nodeswap" --runs "$RUNS" --warmup 2 --stat "$stat" --sync "$mnt" \
		--prepare "sh $tmp/teardown-file.sh $mnt/ns/swapfile" \
		--after "sh $tmp/swap-active.sh '^$mnt/ns/swapfile\$' 10" \
		--out "$raw/file-$size-nodeswap.json" -- "$NODESWAP" apply -q --config "$pf"
	sh "$tmp/teardown-file.sh" "$mnt/ns/swapfile"
	f=$mnt/fa/swapfile
	BR --name "file-$size-fallocate" --runs "$RUNS" --warmup 2 --stat "$stat" --sync "$mnt" \
		--prepare "sh $tmp/teardown-file.sh $f" \
		--after "sh $tmp/swap-active.sh '^$f\$' 10" \
		--out "$raw/file-$size-fallocate.json" -- \
		fallocate -l "$size" "$f" ::: chmod 0600 "$f" ::: mkswap "$f" ::: swapon -p 10 "$f"
	sh "$tmp/teardown-file.sh" "$f"
	f=$mnt/dd/swapfile
	printf 'CONF_SWAPFILE=%s\nCONF_SWAPSIZE=%s\nCONF_MAXSWAP=\nCONF_MAXDISK_PCT=\n' "$f" "$mib" >"$tmp/dphys-swapfile.conf"
	n=$RUNS; w=1
	if [ "$mib" -gt 4096 ]; then n=$DD16_RUNS; w=0; fi
	BR --name "file-$size-dphys-swapfile" --runs "$n" --warmup "$w" --stat "$stat" --sync "$mnt" \
		--prepare "sh $tmp/teardown-file.sh $f" \
		--after "awk -v f='$f' 'NR > 1 && \$1 == f {x = 1} END {exit !x}' /proc/swaps" \
		--out "$raw/file-$size-dphys-swapfile.json" -- "$tmp/dphys-swapfile" setup ::: "$tmp/dphys-swapfile" swapon
	sh "$tmp/teardown-file.sh" "$f"
done

# --- 4. no-op apply on a node that already matches ---------------------------------------------------
say "no-op apply"
# LimitedSwap needs cgroup v2 (plan refuses it on v1 and hybrid hosts): there the kubelet part of
# the full policy is NoSwap, which writes the same kind of drop-in.
noop_behavior=LimitedSwap
noop_note=
if [ "$(stat -fc %T /sys/fs/cgroup 2>/dev/null)" != cgroup2fs ]; then
	noop_behavior=NoSwap
	noop_note="this host has no unified cgroup v2 hierarchy, where plan refuses LimitedSwap: the full policy's kubelet part was SwapBehavior=NoSwap (the same drop-in, another value)"
fi
echo "$noop_note" >"$raw/noop-note.txt"
pn=$(policy noop <<EOF
# the full policy: zram and a swap file, sysctls, kubelet drop-in, the default conflict units
[Swap]
Backend=zram file
[Zram]
Size=2G
Algorithm=lz4
Priority=100
[File]
Encrypt=no
Path=$mnt/np/swapfile
Size=2G
Priority=10
Storage=virtual
[Sysctl]
Swappiness=100
PageCluster=0
[Kubelet]
SwapBehavior=$noop_behavior
DropIn=$mnt/kubelet.conf.d/90-nodeswap.conf
EOF
)
mkdir -p "$mnt/np" "$mnt/kubelet.conf.d"
"$NODESWAP" apply -q --config "$pn" >"$raw/noop-first-apply.txt" 2>&1 || true
"$NODESWAP" apply --json --config "$pn" >"$raw/noop-second.json" 2>"$raw/noop-second.err" || true
BR --name noop-nodeswap --runs "$FAST_RUNS" --warmup 3 \
	--after "sh $tmp/swap-active.sh '^/dev/zram[1-9]' 100 && sh $tmp/swap-active.sh '^$mnt/np/swapfile\$' 10" \
	--out "$raw/noop-nodeswap.json" -- "$NODESWAP" apply -q --config "$pn"
strace -f -y -qq -o "$raw/noop.strace" \
	-e trace=open,openat,creat,write,pwrite64,writev,truncate,ftruncate,unlink,unlinkat,rename,renameat,renameat2,mkdir,mkdirat,swapon,swapoff,connect,fork,vfork,clone,clone3,execve \
	"$NODESWAP" apply -q --config "$pn" >/dev/null 2>&1 || true
. "$tmp/teardown-zram.sh"
sh "$tmp/teardown-file.sh" "$mnt/np/swapfile"
echo "$saved_swappiness" >/proc/sys/vm/swappiness
echo "$saved_page_cluster" >/proc/sys/vm/page-cluster

# --- 5. backend switch zram -> file with 512 MiB swapped out ----------------------------------------
say "backend switch"
psz=$(policy switch-zram <<EOF
[Swap]
Backend=zram
[Zram]
Size=2G
Algorithm=lz4
Priority=100
[Conflicts]
Units=
EOF
)
psf=$(policy switch-file <<EOF
[Swap]
Backend=file
[File]
Encrypt=no
Path=$mnt/sw/swapfile
Size=2G
Priority=10
Storage=virtual
[Conflicts]
Units=
EOF
)
mkdir -p "$mnt/sw" "$cg"
echo $((256 << 20)) >"$cg/memory.limit_in_bytes"
cat >"$tmp/switch-prepare.sh" <<EOF
sh $tmp/teardown-file.sh $mnt/sw/swapfile
. $tmp/teardown-zram.sh
$NODESWAP apply -q --config $psz
rm -f $tmp/hog.ready $tmp/hog.result
setsid sh -c 'echo \$\$ >$cg/cgroup.procs; exec $tmp/memhog 768 $tmp/hog.ready $tmp/hog.result' </dev/null >/dev/null 2>&1 &
echo \$! >$tmp/hog.pid
for i in \$(seq 600); do [ -e $tmp/hog.ready ] && break; sleep 0.1; done
[ -e $tmp/hog.ready ]
# the pages that do not fit under the cgroup's limit are on the zram device now
used=\$(awk 'NR > 1 && \$1 ~ /^\/dev\/zram[1-9]/ {print \$4}' /proc/swaps)
echo "zram used before: \$used KiB"
[ "\$used" -ge $((450 << 10)) ]
echo "\$used" >$tmp/used-before
EOF
cat >"$tmp/switch-after.sh" <<EOF
file_used=\$(awk '\$1 == "$mnt/sw/swapfile" {print \$4}' /proc/swaps)
zram_left=\$(awk 'NR > 1 && \$1 ~ /^\/dev\/zram/ {n++} END {print n + 0}' /proc/swaps)
kill -USR1 \$(cat $tmp/hog.pid)
for i in \$(seq 600); do [ -e $tmp/hog.result ] && break; sleep 0.1; done
result=\$(cat $tmp/hog.result 2>/dev/null || echo missing)
oom_kill=\$(awk '\$1 == "oom_kill" {print \$2}' $cg/memory.oom_control)
echo "\$BENCH_RUN \$(cat $tmp/used-before) \$file_used \$zram_left \$oom_kill \$result" >>$raw/switch-runs.txt
case "\$result" in ok*) ;; *) exit 1 ;; esac
[ "\$zram_left" = 0 ]
EOF
: >"$raw/switch-runs.txt"
BR --name switch-nodeswap --runs "$SWITCH_RUNS" --warmup 1 \
	--prepare ". $tmp/switch-prepare.sh" --after ". $tmp/switch-after.sh" \
	--out "$raw/switch-nodeswap.json" -- "$NODESWAP" apply -q --config "$psf"
sh "$tmp/teardown-file.sh" "$mnt/sw/swapfile"
. "$tmp/teardown-zram.sh"

say "process start again"
BR --name process-start-end --runs 50 --warmup 5 --out "$raw/process-start-end.json" -- /bin/true

# --- report --------------------------------------------------------------------------------------------
qemu_at_end=$(pgrep -c qemu || true)
echo "{\"qemu_running_at_end\": ${qemu_at_end:-0}, \"loadavg_at_end\": \"$(cut -d' ' -f1-3 /proc/loadavg)\"}" >"$raw/machine-end.json"
mkdir -p "$RESULTS"
python3 "$HERE/report.py" "$raw" "$RESULTS" "$mnt"
say "results in $RESULTS/latest.md and $RESULTS/latest.json"
