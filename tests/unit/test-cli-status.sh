#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# nodeswap status, check and allowance, the built binary on the fixture trees.
# Usage: test-cli-status.sh NODESWAP FIXTURES
set -uo pipefail

fx=$2
failed=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$(dirname "$(readlink -f "$0")")/../lib/common.sh"
ns=$(under_test "$1" "$tmp") || exit 1
out=$tmp/out
# nodeswap refuses policy files others may write; a checkout's modes follow the umask
limited=$tmp/limitedswap-only.conf
zramfile=$tmp/zram-file-limitedswap.conf
install -m 0644 "$fx/status/limitedswap-only.conf" "$limited"
install -m 0644 "$fx/status/zram-file-limitedswap.conf" "$zramfile"

# run EXPECTED_EXIT ARGS...: run nodeswap, output into $out, check the exit status
run() {
        local want=$1 rc
        shift
        "$ns" "$@" >"$out" 2>&1
        rc=$?
        if [ "$rc" != "$want" ]; then
                echo "FAIL: nodeswap $* exited $rc, expected $want"
                sed 's/^/    /' "$out"
                failed=1
                return 1
        fi
}

# has PATTERN (extended regex) in the last output
has() {
        if ! grep -Eq -- "$1" "$out"; then
                echo "FAIL: no /$1/ in:"
                sed 's/^/    /' "$out"
                failed=1
        fi
}
lacks() {
        if grep -Eq -- "$1" "$out"; then
                echo "FAIL: /$1/ should not be in:"
                sed 's/^/    /' "$out"
                failed=1
        fi
}

# check: LimitedSwap on the hybrid VPS is an error (exit 1), with options before or after the command
run 1 --root "$fx/vps-cgroupv1" --config "$limited" check --json && {
        has '"id": *"cgroup-v1-limitedswap"'
        has '"severity": *"error"'
        has '"errors": *1'
}
run 1 check --root "$fx/vps-cgroupv1" --config "$limited" && {
        has '^error +cgroup-v1-limitedswap: LimitedSwap needs cgroup v2'
        has 'hint: '
}
# check: the stock Pi under a zram + file LimitedSwap policy has warnings only (exit 0)
run 0 check --json --root "$fx/rpi-untouched" --config "$zramfile" && {
        has '"errors": *0'
        has '"warnings": *3'
        has '"id": *"conflict-unit-unmasked"'
        has '"id": *"swap-unencrypted"'    # the file the plan makes with Encrypt=no
        lacks '"id": *"limitedswap-little-swap"'   # judged with the swap the plan leaves (8 GiB zram + file)
        has '"id": *"psi-off"'
        lacks 'cgroup-v1-limitedswap'
}
# check: a swap header made for 4 KiB pages on a 16 KiB kernel
run 1 check --json --root "$fx/stale-file" --config "$zramfile" && has '"id": *"swapfile-pagesize"'

# status: a swap file on a disk says whether it is encrypted; zram says nothing of it
run 0 status --root "$fx/matching" --config "$zramfile" && {
        has '^      not encrypted: swapped-out pages stay readable on the disk$'
        [ "$(grep -Ec '^      (not )?encrypted:' "$out")" = 1 ] || { echo "FAIL: one encryption line (the file's), not zram's"; failed=1; }
}
run 0 status --json --root "$fx/matching" --config "$zramfile" && has '"encrypted": *false'
# an encrypted file (probe/crypt.h): /proc/swaps lists its mapping dm-0, whose name, slave loop0 and
# loop0's backing file are in sysfs as the kernel shows them; the file starts with the marker
enc=$tmp/encrypted
cp -a "$fx/matching" "$enc"
f=/var/lib/nodeswap/swapfile
dd if=/dev/zero of="$enc$f" bs=1K count=64 status=none
printf 'NODESWAP-CRYPT-1\n' | dd of="$enc$f" conv=notrunc status=none
chmod 0600 "$enc$f"
sed -i "\|^$f |d" "$enc/proc/swaps"
printf '%-40s%s\t%s\t\t%s\t\t%s\n' /dev/dm-0 partition 56 0 10 >>"$enc/proc/swaps"
mkdir -p "$enc/sys/block/dm-0/dm" "$enc/sys/block/dm-0/slaves/loop0" "$enc/sys/block/loop0/loop"
echo nodeswap-var-lib-nodeswap-swapfile >"$enc/sys/block/dm-0/dm/name"
echo "$f" >"$enc/sys/block/loop0/loop/backing_file"
echo 1 >"$enc/sys/block/loop0/loop/dio"
run 0 status --root "$enc" --config "$zramfile" && {
        has "^  $f +file "
        has '^      encrypted: dm-crypt aes-xts-plain64, 512-bit key, ephemeral \(made at setup, never stored\); mapping /dev/dm-0, loop device with direct I/O$'
        lacks 'dm-0 +partition'
}
run 0 status --json --root "$enc" --config "$zramfile" && {
        has '"encrypted": *true'
        has '"cipher": *"aes-xts-plain64"'
        has '"key_bits": *512'
        has '"ephemeral_key": *true'
        has '"mapping": *"/dev/dm-0"'
}
run 0 metrics --root "$enc" --config "$zramfile" && {
        has '^nodeswap_swap_encrypted\{path="/var/lib/nodeswap/swapfile"\} 1$'
        lacks '^nodeswap_swap_encrypted\{path="/dev/zram1"\}'
}
# the same node under its own policy (the file encrypted, 64K): nothing in clear
encconf=$tmp/encrypted.conf
sed -e 's/^Size=40K$/Size=64K/' -e 's/^Encrypt=no$/Encrypt=yes/' "$zramfile" >"$encconf"
chmod 0644 "$encconf"
run 0 check --json --root "$enc" --config "$encconf" && lacks '"id": *"swap-unencrypted"'
printf '6.1.0-57-amd64\n' >"$enc/proc/sys/kernel/osrelease" 2>/dev/null || { mkdir -p "$enc/proc/sys/kernel"; printf '6.1.0-57-amd64\n' >"$enc/proc/sys/kernel/osrelease"; }
run 0 check --json --root "$enc" --config "$encconf" && has '"id": *"tmpfs-swap"'
run 0 check --root "$enc" --config "$encconf" && has 'pods get swap \(LimitedSwap\) on Linux 6.1.0-57-amd64, whose tmpfs has no noswap'

# zram writing back to nodeswap's mapping of its file ([Zram] WritebackEncrypt=yes): zram1's
# backing_dev is dm-5, named for the file, whose one slave loop1 is backed by it
wbe=$tmp/wb-encrypted
cp -a "$enc" "$wbe"
mkdir -p "$wbe/sys/block/dm-5/dm" "$wbe/sys/block/dm-5/slaves/loop1" "$wbe/sys/block/loop1/loop"
echo nodeswap-var-lib-nodeswap-wb >"$wbe/sys/block/dm-5/dm/name"
echo /var/lib/nodeswap/wb >"$wbe/sys/block/loop1/loop/backing_file"
echo 1 >"$wbe/sys/block/loop1/loop/dio"
echo /dev/dm-5 >"$wbe/sys/block/zram1/backing_dev"
echo none >"$wbe/sys/block/zram0/backing_dev"
head -c 65536 /dev/zero >"$wbe/var/lib/nodeswap/wb"
chmod 0600 "$wbe/var/lib/nodeswap/wb"
wbconf=$tmp/wb.conf
sed -e 's|^\[Zram\]$|[Zram]\nWriteback=/var/lib/nodeswap/wb|' "$encconf" >"$wbconf"
chmod 0644 "$wbconf"
run 0 status --root "$wbe" --config "$encconf" && {
        has '^      writeback to /dev/dm-5: '
        has '^      writeback file /var/lib/nodeswap/wb encrypted: dm-crypt aes-xts-plain64, 512-bit key, ephemeral \(made at setup, never stored\); loop device with direct I/O$'
}
run 0 status --json --root "$wbe" --config "$encconf" && {
        has '"file": *"/var/lib/nodeswap/wb"'
        has '"loop_dio": *true'
}
run 0 metrics --root "$wbe" --config "$wbconf" && has '^nodeswap_swap_encrypted\{path="/dev/zram1"\} 1$'
run 0 check --json --root "$wbe" --config "$wbconf" && lacks '"id": *"swap-unencrypted"'
# ... and in clear: zram1 on loop1 itself
echo /dev/loop1 >"$wbe/sys/block/zram1/backing_dev"
run 0 status --root "$wbe" --config "$encconf" && has '^      writeback not encrypted: pages written back stay readable on the disk$'
run 0 metrics --root "$wbe" --config "$wbconf" && has '^nodeswap_swap_encrypted\{path="/dev/zram1"\} 0$'
sed -i 's|^Writeback=.*|&\nWritebackEncrypt=no|' "$wbconf"
run 0 check --root "$wbe" --config "$wbconf" && has 'swap-unencrypted: pods get swap \(LimitedSwap\) and /dev/zram1 writes idle pages back to a disk in clear'

# status: the node nodeswap made
run 0 status --json --root "$fx/matching" --config "$zramfile" && {
        has '"path": *"/dev/zram1"'
        has '"algorithm": *"lz4"'
        has '"mem_used_total": *65536'
        has '"storage": *"nvme"'
        has '"swap_behavior": *"LimitedSwap"'
        has '"reverted": *false'
        has '"page_size": *4096,$'
        lacks '"pods"'
}
# a zram device that writes back (bd_stat counts 4 KiB units): bytes written back, kept and read,
# and what is left of the day's WritebackLimit=; none of it without a backing device
cp -a "$fx/matching" "$tmp/wb"
z=$tmp/wb/sys/block/zram1
printf '/dev/loop3\n' >"$z/backing_dev"
printf '      10      2     300\n' >"$z/bd_stat"
printf '1\n' >"$z/writeback_limit_enable"
printf '256\n' >"$z/writeback_limit"
run 0 status --root "$tmp/wb" --config "$zramfile" &&
        has '^      writeback to /dev/loop3: 1.2 MiB written back, 40.0 KiB kept there, 8.0 KiB read back; 1.0 MiB left of the day.s limit$'
run 0 status --json --root "$tmp/wb" --config "$zramfile" && {
        has '"backing_dev": *"/dev/loop3"'
        has '"written": *1228800'
        has '"stored": *40960'
        has '"read": *8192'
        has '"limit_left": *1048576'
}
run 0 status --json --root "$fx/matching" --config "$zramfile" && has '"writeback": *null'
run 0 status --root "$fx/matching" --config "$zramfile" && lacks 'writeback to'
run 0 status --json --root "$fx/rpi-untouched" --config "$zramfile" && has '"page_size": *16384,$'
run 0 status --root "$fx/rpi-untouched" --config "$zramfile" && {
        has '^  /dev/zram0 .* owner distro \(conflict\)'
        has 'no pod.s memory limit accounts for it'
        has 'vm.swappiness +60'
        has 'dev-zram0.swap +not masked'
        has '^Reverted: no'
        has '^  page size 16.0 KiB \(swap headers are written for it\)$'
}
run 0 status --json --root "$fx/stale-file" && {
        has '"reverted": *true'
        has '"swap_behavior": *"NoSwap"'
}
run 0 status --pods --root "$fx/pods/systemd" --config "$limited" && {
        has 'SWAP.MAX +SWAP.CUR +ZSWAP.CUR'
        has '^  burstable +1.0 GiB +256.0 MiB +258.6 MiB +50.0 MiB +12.0 MiB +kubepods.slice/.*/cri-containerd-aaaa1111.scope$'
        # a container without memory.zswap.current (no zswap accounting) shows '-'
        has '^  besteffort +max +4.0 KiB +0 B +0 B +- +kubepods.slice/'
}

# plan -v: before the plan, the policy with where each value came from, and the host facts
run 0 plan -v --root "$fx/rpi-untouched" --config "$zramfile" && {
        has '^Policy files, in the order applied:$'
        has "^  \[Zram\] Size= +8G = 8\.0 GiB  \($zramfile:6\)$"
        has "^  \[File\] Size= +40K = 32\.0 KiB  \($zramfile:12\)$"
        has '^  \[File\] Storage= +nvme ssd virtual  \(default\)$'
        has '^  \[Zram\] MemLimit= +none  \(default\)$'
        has '^  swap +/dev/zram0: zram, 2\.0 GiB, 0 B used, priority 100, owner conflict$'
        has '^  zram algorithms +lzo-rle lzo lz4 zstd deflate 842 +\(offered by this kernel, from zram0\)$'
        has '^  under it +ext4 on nvme0n1 \(nvme\), mounted at /'
        has '^  systemd +booted \(PID 1\): units can be masked$'
        has '^ 9\. creating zram swap: 8\.0 GiB, zstd'
}
run 0 plan --root "$fx/rpi-untouched" --config "$zramfile" && lacks '^Policy files'
# the matching node is what this policy asks for
run 0 plan --root "$fx/matching" --config "$zramfile" && has '^Nothing to do: the node matches the policy.$'
run 0 plan -v --json --root "$fx/rpi-untouched" --config "$zramfile" && lacks '^Policy files'
# plan -v on a node with a swap file nodeswap made at a path the policy no longer names
moved=$tmp/moved-root
cp -a "$fx/matching" "$moved"
printf 'swap_file=/var/lib/nodeswap/old-swapfile\n' >>"$moved/var/lib/nodeswap/state"
run 0 plan -v --root "$moved" --config "$zramfile" && has '^  made by nodeswap +/var/lib/nodeswap/old-swapfile: gone$'

# revert -v: the files read and the host, not the policy's values (revert plans from NoSwap)
run 0 revert -v --dry-run --root "$fx/matching" --config "$zramfile" && {
        has '^revert: '
        lacks '^Policy:$'
        has '^  sysctls +vm\.swappiness='
}

# allowance: 256Mi / 16608080 kB x 8388640 kB on the matching node
run 0 allowance --json --root "$fx/matching" --config "$zramfile" --request 256Mi --limit 1Gi && {
        has '"swap": *135585113'
        has '"request": *268435456'
        has '"reason": *null'
        has '"page_size": *4096,?$'
}
run 0 --root "$fx/matching" --config "$zramfile" allowance --request 256Mi && {
        has '^Node: RAM 15.8 GiB, swap 8.0 GiB, page size 4.0 KiB$'
        has '^Swap: 129.3 MiB'
        has '256.0 MiB request / 15.8 GiB MemTotal'
}
run 0 allowance --json --root "$fx/matching" --config "$zramfile" --request 512Mi --limit 512Mi && {
        has '"swap": *0'
        has '"reason": *"the memory request equals the limit'
}
run 0 allowance --root "$fx/vps-cgroupv1" --config "$limited" --request 256Mi && has '^Swap: 0'
# the page size of the node's kernel: 16 KiB on the Pi 5 (the fixture's KernelPageSize)
run 0 allowance --json --root "$fx/rpi-untouched" --config "$zramfile" --request 256Mi && has '"page_size": *16384,?$'
run 0 allowance --root "$fx/rpi-untouched" --config "$zramfile" --request 256Mi &&
        has '^Node: RAM .*, page size 16.0 KiB$'
run 2 allowance --root "$fx/matching" --config "$zramfile" --request lots && has 'Invalid --request'
run 2 allowance --root "$fx/matching" --config "$zramfile" --request 256Mi --qos platinum && has 'Invalid --qos'

# status: the reclaim headroom beside the zones' watermarks (the headroom tree, this x86 machine's
# /proc/zoneinfo: 4 KiB pages, DMA min 21 pages = 84 KiB, the three zones' min 16894 pages = 66.0 MiB)
run 0 status --root "$fx/headroom" --config "$limited" && {
        has '^Reclaim headroom:$'
        has '^  vm.min_free_kbytes +67584 \(66.0 MiB\)$'
        has '^  vm.watermark_scale_factor 10 \(low and high each 0.10 % of RAM above the last, at least min/4\)$'
        has '^  node 0 DMA +free 15.0 MiB +min 84.0 KiB +low 104.0 KiB +high 124.0 KiB$'
        has '^  node 0 Normal +free 2.3 GiB +min 48.9 MiB +low 61.2 MiB +high 73.4 MiB$'
        has '^  all zones +free 5.3 GiB +min 66.0 MiB +low 82.5 MiB +high 99.0 MiB$'
        lacks 'Movable'
}
run 0 status --json --root "$fx/headroom" --config "$limited" && {
        has '"min_free_kbytes": *67584'
        has '"min_free_kbytes_set": *null'
        has '"watermark_scale_factor": *10'
        has '"zone": *"DMA32"'
        has '"min": *17797120'
}
# without /proc/zoneinfo and the sysctls (the VPS tree has neither): said, not invented
run 0 status --root "$fx/vps-cgroupv1" --config "$limited" && {
        has '^  vm.min_free_kbytes +unreadable$'
        has '^  zones +/proc/zoneinfo unreadable$'
}
# [Kubelet] IOLatencyTargetSec=: the disk swap shares with the daemons (reached through dm-crypt
# and loop in the iolatency tree), and system.slice's target on it: none yet, then nodeswap's
varfile=$tmp/file-var-limitedswap.conf
install -m 0644 "$fx/status/file-var-limitedswap.conf" "$varfile"
cp -a "$fx/iolatency" "$tmp/iolatency"
run 0 status --root "$tmp/iolatency" --config "$varfile" && {
        has '^The daemons. I/O \(\[Kubelet\] IOLatencyTargetSec=\):$'
        has '^  swap shares +vda \(254:0\) with /$'
        has '^  io.latency +system.slice no target on 254:0$'
}
printf 'reverted=no\nio_latency=254:0 25000\n' >"$tmp/iolatency/var/lib/nodeswap/state"
printf '254:0 target=25000\n' >"$tmp/iolatency/sys/fs/cgroup/system.slice/io.latency"
run 0 status --root "$tmp/iolatency" --config "$varfile" && has '^  io.latency +system.slice 254:0 target=25000us \(by nodeswap\)$'
run 0 status --json --root "$tmp/iolatency" --config "$varfile" && {
        has '"io_latency": *\{'
        has '"device": *"254:0"'
        has '"shared_with": *"/"'
        has '"io_controller": *true'
        has '"kernel_io_latency": *true'
        has '"target_usec": *25000'
        has '"set_by": *"nodeswap"'
}
# a kernel without io.latency (Debian's): system.slice has the io controller and no io.latency file
mv "$tmp/iolatency/sys/fs/cgroup/system.slice/io.latency" "$tmp/io.latency"
run 0 status --root "$tmp/iolatency" --config "$varfile" &&
        has '^  io.latency +none: the kernel has none \(CONFIG_BLK_CGROUP_IOLATENCY, /sys/fs/cgroup/system.slice/io.latency\)$'
run 0 status --json --root "$tmp/iolatency" --config "$varfile" && has '"kernel_io_latency": *false'
mv "$tmp/io.latency" "$tmp/iolatency/sys/fs/cgroup/system.slice/io.latency"
# cgroup v1: said, and no target
sed -i 's| - cgroup2 cgroup2 rw.*| - tmpfs tmpfs ro,mode=755|' "$tmp/iolatency/proc/self/mountinfo"
run 0 status --root "$tmp/iolatency" --config "$varfile" && has '^  io.latency +none: cgroup v1, io.latency is cgroup v2.s$'

exit $failed
