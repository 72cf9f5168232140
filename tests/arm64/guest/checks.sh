#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The arm64 checks, run inside the 16 KiB-page VM by nodeswap-arm64-test.service (see
# tests/arm64/run-vm.sh and tests/e2e/README.md, "arm64 with 16 KiB pages").
# Results: one line per check, "PASS|FAIL|INFO arm64: <check>: <details>", copied after every
# line to the raw results disk (virtio serial "arm64-results"), between a BEGIN and an END line.
# The image carries /var/lib/nodeswap/swapfile with a swap header written on the host for 4 KiB
# pages, and either /root/nodeswap.deb (installed here with dpkg) or nodeswap installed by meson.
set -u
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export LC_ALL=C

RUN=/run/nodeswap-arm64
RESULTS=$RUN/results
OUTDEV=/dev/disk/by-id/virtio-arm64-results
SWAPFILE=/var/lib/nodeswap/swapfile
POLICY=/etc/nodeswap/nodeswap.conf.d/50-arm64.conf
PAGE=16384
ZRAM_SIZE=$((128 * 1024 * 1024))
FILE_SIZE=$((64 * 1024 * 1024))
mkdir -p "$RUN/out"
: >"$RESULTS"

flush() {
        [[ -b $OUTDEV ]] || OUTDEV=/dev/vdb
        [[ -b $OUTDEV ]] && dd if="$RESULTS" of="$OUTDEV" bs=64k conv=notrunc,fsync status=none 2>/dev/null
        return 0
}
line() {        # line STATUS CHECK [DETAILS]
        local msg="$1 arm64: $2${3:+: ${3//$'\n'/ | }}"
        echo "$msg" >>"$RESULTS"
        echo "$msg"
        flush
}
pass() { line PASS "$@"; }
fail() { line FAIL "$@"; }
info() { line INFO "$@"; }
expect() {      # expect CHECK GOT WANT
        if [[ $2 == "$3" ]]; then pass "$1" "$2"; else fail "$1" "got '$2', want '$3'"; fi
}
# ns NAME ARGS...: run nodeswap, its output in $RUN/out/NAME, its exit status in $rc
ns() {
        local name=$1
        shift
        nodeswap "$@" >"$RUN/out/$name" 2>&1
        rc=$?
}
out() { cat "$RUN/out/$1"; }
# the size /proc/swaps shows for an area of SIZE bytes: all its pages but the header page, in KiB
shown_kib() { echo $(( ($1 / PAGE - 1) * PAGE / 1024 )); }
swaps_size() { awk -v d="$1" 'NR > 1 && $1 == d { print $3 }' /proc/swaps; }
swaps_prio() { awk -v d="$1" 'NR > 1 && $1 == d { print $5 }' /proc/swaps; }
zram_swaps() { awk 'NR > 1 && $1 ~ /^\/dev\/zram/ { print $1 }' /proc/swaps; }
magic_at() { dd if="${2:-$SWAPFILE}" bs=1 skip=$(($1 - 10)) count=10 status=none 2>/dev/null; }
# What /proc/swaps can show for swap FILE, in KiB: the kernel (iomap, ext4) uses only the whole
# PAGE-aligned pages of the file's physical extents (physically contiguous extents merged), at
# most the pages the header covers, less the header page. A 4 KiB-block ext4 can place an
# extent off a 16 KiB boundary; then a page is lost there. filefrag -v gives the extents.
extents_kib() {
        filefrag -v "$1" | awk -v page=$PAGE -v size="$(stat -c %s "$1")" '
                /^File size of/ { bs = $(NF - 1); next }
                { gsub(/\.\./, " "); gsub(/:/, " ") }
                $1 ~ /^[0-9]+$/ && NF >= 6 {
                        if (n && $4 == pe + 1) { pe = $5; next }
                        if (n) total += whole(ps, pe)
                        ps = $4; pe = $5; n++
                }
                function whole(a, b,   first, next_) {
                        first = int((a * bs + page - 1) / page); next_ = int((b + 1) * bs / page)
                        return next_ > first ? next_ - first : 0
                }
                END {
                        if (n) total += whole(ps, pe)
                        if (total > size / page) total = size / page
                        print (total - 1) * page / 1024
                }'
}
# file_size_check NAME FILE SIZE: FILE in /proc/swaps at the size its extents allow, and how
# that compares to the full size (every page but the header page)
file_size_check() {
        local got want full=$(shown_kib "$3")
        got=$(swaps_size "$2")
        want=$(extents_kib "$2")
        expect "$1 in /proc/swaps at the size its extents allow (KiB)" "$got" "$want"
        if [[ $got == "$full" ]]; then
                pass "$1 at its full size (KiB)" "$got"
        else
                info "$1 below its full size" "$got of $full KiB: $(( (full - got) / 16 )) page(s) of its extents are not 16 KiB-aligned on this 4 KiB-block ext4 ($(filefrag "$2" | sed 's/.*: //'))"
        fi
}
elapsed() { echo $(( $(date +%s) - t0 )); }

echo BEGIN >"$RESULTS"
flush
read -r up _ </proc/uptime
info "booted" "this service started ${up%.*} s after the kernel"
info "kernel" "$(uname -srvm)"
# the kernel the host booted (run-vm.sh: Debian 12's linux-image-6.12.*+deb12-arm64-16k)
want_kernel=$(tr ' ' '\n' </proc/cmdline | sed -n 's/^arm64\.kernel=//p')
expect "the kernel the host chose (uname -r)" "$(uname -r)" "${want_kernel:-unknown: no arm64.kernel= on the command line}"
t0=$(date +%s)

# --- the kernel: 16 KiB pages -----------------------------------------------------------------
expect "getconf PAGESIZE" "$(getconf PAGESIZE)" "$PAGE"
expect "KernelPageSize" "$(awk '/^KernelPageSize:/ { print $2 $3; exit }' /proc/self/smaps)" "16kB"
# what the Pi 5's kernel has too, and nodeswap's status and check read
expect "cgroup v2 with the memory controller" "$(grep -ow memory /sys/fs/cgroup/cgroup.controllers)" memory
check_file() { if [[ -r $2 ]]; then pass "$1" "$2"; else fail "$1" "$2 missing"; fi; }
check_file "PSI" /proc/pressure/memory
check_file "zswap" /sys/module/zswap/parameters/enabled

# --- nodeswap, from the arm64 package when there is one -----------------------------------------
if [[ -f /root/nodeswap.deb ]]; then
        expect "package architecture" "$(dpkg-deb -f /root/nodeswap.deb Architecture)" arm64
        if dpkg -i /root/nodeswap.deb >"$RUN/out/dpkg" 2>&1; then
                pass "dpkg -i nodeswap.deb" "$(dpkg-query -W -f '${Package} ${Version} ${Architecture} ${db:Status-Abbrev}' nodeswap)"
        else
                fail "dpkg -i nodeswap.deb" "$(tail -n 5 "$RUN/out/dpkg")"
        fi
        expect "nodeswap from the package" "$(dpkg -S /usr/sbin/nodeswap 2>/dev/null)" "nodeswap: /usr/sbin/nodeswap"
else
        info "nodeswap" "no package in the image: installed from the meson cross build"
fi
if ! command -v nodeswap >/dev/null; then
        fail "nodeswap installed" "not on PATH"
else
        ns version --version
        expect "nodeswap --version" "$rc" 0
fi
info "install" "$(elapsed) s"

# --- the swap file made for 4 KiB pages ---------------------------------------------------------
expect "old header: SWAPSPACE2 at 4096 - 10" "$(magic_at 4096)" SWAPSPACE2
if swapon "$SWAPFILE" >"$RUN/out/swapon-old" 2>&1; then
        fail "swapon refuses the 4 KiB header" "it was accepted"
        swapoff "$SWAPFILE"
else
        pass "swapon refuses the 4 KiB header" "$(cat "$RUN/out/swapon-old")"
fi

mkdir -p "${POLICY%/*}"
cat >"$POLICY" <<POL
[Swap]
Backend=zram file

[Zram]
Size=128M
Algorithm=zstd
Priority=100

[File]
Path=$SWAPFILE
Size=64M
Priority=10
Storage=nvme ssd virtual rotational mmc
# the header made for 4 KiB pages is rewritten in place (a plain file); the encrypted file is
# checked below
Encrypt=no

[Sysctl]
Swappiness=80
PageCluster=0
POL
chmod 0644 "$POLICY"
swappiness_before=$(cat /proc/sys/vm/swappiness)
# Debian's kernel has zram as a module (the kernel built for this test had it built in). At boot
# nodeswap.service pulls in modprobe@zram.service for a policy with zram (nodeswap-generator(8));
# this apply runs by hand, so the test starts that unit first, as the boot would.
systemctl start modprobe@zram.service
check_file "zram module loaded (modprobe@zram.service)" /sys/class/zram-control

ns check-before check --json
# A header apply rewrites is a warning, not an error (one verdict: an error is what apply refuses).
expect "check exits 0 on the 4 KiB header (a warning: apply rewrites it)" "$rc" 0
if grep -q '"id": *"swapfile-pagesize"' "$RUN/out/check-before"; then
        pass "check finds swapfile-pagesize" "$(grep -o 'made for [0-9]*-byte pages and this kernel uses [0-9]*' "$RUN/out/check-before")"
else
        fail "check finds swapfile-pagesize" "$(out check-before)"
fi

# --- apply: the zram device and the file, for 16 KiB pages --------------------------------------
t1=$(date +%s)
ns apply apply --json
expect "apply exits 0" "$rc" 0
info "apply" "$(( $(date +%s) - t1 )) s"
zram=$(zram_swaps)
if [[ $(wc -w <<<"$zram") == 1 ]]; then
        expect "zram in /proc/swaps at its full size (KiB)" "$(swaps_size "$zram")" "$(shown_kib $ZRAM_SIZE)"
        expect "zram priority" "$(swaps_prio "$zram")" 100
        expect "zram algorithm" "$(grep -o '\[[a-z0-9-]*\]' "/sys/block/${zram#/dev/}/comp_algorithm")" "[zstd]"
        # Debian's 6.12 has zram's own backends (6.12) and builds lz4, lz4hc, zstd and deflate, no
        # lzo (CONFIG_ZRAM_BACKEND_LZO is not set); its default is lz4
        expect "zram offers lz4 and zstd" "$(tr -d '[]' <"/sys/block/${zram#/dev/}/comp_algorithm" |
                tr ' ' '\n' | grep -x 'lz4\|zstd' | sort | tr '\n' ' ')" "lz4 zstd " \
                "$(cat "/sys/block/${zram#/dev/}/comp_algorithm")"
else
        fail "one zram device in /proc/swaps" "$(cat /proc/swaps)"
fi
file_size_check "rewritten swap file" "$SWAPFILE" $FILE_SIZE
expect "swap file priority" "$(swaps_prio "$SWAPFILE")" 10
expect "new header: SWAPSPACE2 at 16384 - 10" "$(magic_at $PAGE)" SWAPSPACE2
expect "no header left at 4096 - 10" "$(magic_at 4096 | tr -d '\0')" ""
expect "vm.swappiness" "$(cat /proc/sys/vm/swappiness)" 80

# util-linux swapon accepts the file nodeswap wrote
swapoff "$SWAPFILE"
if swapon -p 10 "$SWAPFILE" >"$RUN/out/swapon-new" 2>&1; then
        pass "util-linux swapon accepts the rewritten file" "$(swaps_size "$SWAPFILE") KiB"
else
        fail "util-linux swapon accepts the rewritten file" "$(cat "$RUN/out/swapon-new")"
fi
ns apply-again apply --json
expect "apply again exits 0" "$rc" 0
if grep -q '"changed": *false' "$RUN/out/apply-again"; then pass "apply again changes nothing"; else fail "apply again changes nothing" "$(out apply-again)"; fi

ns check-after check --json
if grep -q swapfile-pagesize "$RUN/out/check-after"; then fail "check after apply" "$(out check-after)"; else pass "check after apply: no swapfile-pagesize"; fi

# --- status and allowance report the page size ------------------------------------------------
ns status status
expect "status exits 0" "$rc" 0
if grep -q '^  page size 16.0 KiB' "$RUN/out/status"; then pass "status shows the page size" "$(grep '^  page size' "$RUN/out/status")"; else fail "status shows the page size" "$(out status)"; fi
ns status-json status --json
expect "status --json page_size" "$(grep -o '"page_size": *[0-9]*' "$RUN/out/status-json" | grep -o '[0-9]*$')" "$PAGE"
ns allowance allowance --request 256Mi --limit 1Gi
expect "allowance exits 0" "$rc" 0
if grep -q 'page size 16.0 KiB' "$RUN/out/allowance"; then pass "allowance shows the page size" "$(grep 'page size' "$RUN/out/allowance")"; else fail "allowance shows the page size" "$(out allowance)"; fi
ns allowance-json allowance --json --request 256Mi
expect "allowance --json page_size" "$(grep -o '"page_size": *[0-9]*' "$RUN/out/allowance-json" | grep -o '[0-9]*$')" "$PAGE"

# --- revert ----------------------------------------------------------------------------------
ns revert revert
expect "revert exits 0" "$rc" 0
expect "no swap left after revert" "$(awk 'NR > 1' /proc/swaps)" ""
expect "vm.swappiness back" "$(cat /proc/sys/vm/swappiness)" "$swappiness_before"
# --- a swap file nodeswap creates: after the revert, a policy with another Path= ----------------
# (after the revert: seen in a run, a moved Path= while the rewritten file was on left that file
# on, and revert left it on too: nodeswap did not take the file whose header it had rewritten
# for one of its own once Path= no longer named it)
NEWFILE=/var/lib/nodeswap/created-swapfile
sed -i "s|^Path=.*|Path=$NEWFILE|" "$POLICY"
ns apply-new apply --json
expect "apply with a new Path= exits 0" "$rc" 0
if [[ -f $NEWFILE ]]; then
        file_size_check "created swap file" "$NEWFILE" $FILE_SIZE
        expect "created swap file priority" "$(swaps_prio "$NEWFILE")" 10
        expect "created file: SWAPSPACE2 at 16384 - 10" "$(magic_at $PAGE "$NEWFILE")" SWAPSPACE2
        old_kib=$(swaps_size "$SWAPFILE")
        info "the old file" "${old_kib:-not} in /proc/swaps; $( [[ -e $SWAPFILE ]] && echo kept || echo deleted)"
else
        fail "apply with a new Path= creates it" "$(out apply-new)"
fi

ns revert-new revert
expect "revert of the created file exits 0" "$rc" 0
expect "no swap left after that revert" "$(awk 'NR > 1' /proc/swaps)" ""

# --- the encrypted swap file ([File] Encrypt=yes, the default) with 16 KiB pages ----------------
# The swap header is written on the dm-crypt mapping for 16 KiB pages (its data starts after the
# file's 4 KiB marker page); pages swapped out through it come back intact.
CRYPTFILE=/var/lib/nodeswap/crypt-swapfile
printf '%s\n' "[Swap]" "Backend=file" "" "[File]" "Path=$CRYPTFILE" "Size=64M" "Priority=10" \
        "Storage=nvme ssd virtual rotational mmc" >"$POLICY"
ns apply-crypt apply --json
expect "apply of the encrypted file exits 0" "$rc" 0
dm=
for d in /sys/block/dm-*; do
        [[ $(cat "$d/dm/name" 2>/dev/null) == nodeswap-var-lib-nodeswap-crypt#2dswapfile ]] && dm=/dev/${d##*/}
done
info "the mapping" "${dm:-none}: $(dmsetup table 2>&1 | sed 's/ [0-9a-f]\{32,\} / KEY /' | tr '\n' ' ')"
if [[ -n $dm ]]; then
        expect "the mapping in /proc/swaps at priority 10" "$(swaps_prio "$dm")" 10
        # the area is the file less its marker page; /proc/swaps shows all its pages but the header page
        expect "its size: the file less the marker, in 16 KiB pages but the header (KiB)" "$(swaps_size "$dm")" \
                "$(shown_kib $(( FILE_SIZE - 4096 )))"
        expect "the header on the mapping: SWAPSPACE2 at 16384 - 10" "$(magic_at $PAGE "$dm")" SWAPSPACE2
        # (the file's bytes at 16384 - 10 are the mapping's header page, encrypted: no magic there)
        expect "the file starts with the marker, no swap signature on it" \
                "$(head -c 16 "$CRYPTFILE") $(blkid -o value -s TYPE "$CRYPTFILE" 2>/dev/null)/$([[ $(magic_at $PAGE "$CRYPTFILE") == SWAPSPACE2 || $(magic_at 4096 "$CRYPTFILE") == SWAPSPACE2 ]] && echo magic)" \
                "NODESWAP-CRYPT-1 /"
        loop=$(losetup -n -O NAME -j "$CRYPTFILE" | head -n 1)
        expect "its loop device does direct I/O" "$(cat "/sys/block/${loop#/dev/}/loop/dio" 2>/dev/null)" 1
        # 24 MiB of random data in tmpfs, written from a cgroup held at 8 MiB by memory.high (its
        # pages are charged there and swapped out; memory.max OOM-killed the writer in one run),
        # pushed out with memory.reclaim, read back against its checksum
        cg=/sys/fs/cgroup/nodeswap-arm64-crypt
        mkdir -p "$cg" && echo 8M >"$cg/memory.high"
        want=$( ( echo "$BASHPID" >"$cg/cgroup.procs" && head -c 24M /dev/urandom | tee /dev/shm/nodeswap-crypt | sha256sum ) 2>&1)
        echo 64M >"$cg/memory.reclaim" 2>/dev/null
        info "swapped through the mapping" "cgroup memory.swap.current $(cat "$cg/memory.swap.current" 2>/dev/null); /proc/swaps: $(awk 'NR > 1 { print $1, $4 }' /proc/swaps | tr '\n' ' ')"
        used=$(awk -v d="$dm" 'NR > 1 && $1 == d { print $4 }' /proc/swaps)
        if (( ${used:-0} >= 8192 )); then pass "pages went out through the mapping" "${used} KiB"; else fail "pages went out through the mapping" "${used:-0} KiB"; fi
        got=$( ( echo "$BASHPID" >"$cg/cgroup.procs" && sha256sum </dev/shm/nodeswap-crypt ) 2>&1)
        expect "they came back intact" "$got" "$want"
        rm -f /dev/shm/nodeswap-crypt
        rmdir "$cg" 2>/dev/null
else
        fail "the mapping nodeswap-var-lib-nodeswap-crypt#2dswapfile exists" "$(dmsetup ls 2>&1); $(out apply-crypt)"
fi
ns revert-crypt revert --purge
expect "revert --purge of the encrypted file exits 0" "$rc" 0
expect "no swap left" "$(awk 'NR > 1' /proc/swaps)" ""
expect "no mapping and no loop device left" \
        "$(cat /sys/block/dm-*/dm/name 2>/dev/null | grep -c '^nodeswap-') $(losetup -n -j "$CRYPTFILE" 2>/dev/null | wc -l)" "0 0"
info "checks" "$(elapsed) s from the start of the checks"

for f in "$RUN"/out/*; do
        grep -q '^FAIL' "$RESULTS" || break
        sed "s|^|LOG ${f##*/}: |" "$f" | head -n 40 >>"$RESULTS"
done
echo END >>"$RESULTS"
flush
sync
systemctl --no-block poweroff
