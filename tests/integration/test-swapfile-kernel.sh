#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The swap file modules (execute/swapfile.c, probe/swapfile.c, probe/mounts.c, plan/placement.c)
# against the real kernel: swap files on loop-mounted ext4, xfs and btrfs images and a tmpfs; and
# resizes of an active file by `nodeswap apply`, whose plan goes through a bridge step by step.
# Needs root. Everything it sets up lives below one temporary directory and is torn down by the
# trap, even on failure: only swap areas below that directory are swapped off, only the loop
# devices this script attached are detached, and nodeswap's state (which apply writes) is removed.
# usage: test-swapfile-kernel.sh PATH-TO-swapfile-driver PATH-TO-nodeswap
set -uo pipefail

DRIVER=${1:?usage: $0 PATH-TO-swapfile-driver PATH-TO-nodeswap}
NODESWAP=${2:?usage: $0 PATH-TO-swapfile-driver PATH-TO-nodeswap}

skip() { echo "SKIP: $*"; exit 77; }
[ "$(id -u)" = 0 ] || skip "needs root"
for tool in losetup mkfs.ext4 mkfs.xfs mkfs.btrfs lsattr mount umount swapon swapoff truncate stat getconf ln mv; do
        command -v "$tool" >/dev/null || skip "$tool is not installed"
done
for fs in ext4 xfs btrfs tmpfs; do
        grep -qw "$fs" /proc/filesystems || modprobe "$fs" 2>/dev/null || true
        grep -qw "$fs" /proc/filesystems || skip "the kernel has no $fs"
done
[ -e /proc/swaps ] || skip "the kernel has no swap support"
# one test of this machine's kernel at a time (tests/lib/common.sh: kernel_test_begin)
mkdir -p /run/lock
exec 9>/run/lock/nodeswap-kernel.lock
flock 9
if [ -e /var/lib/nodeswap ] || [ -e /run/nodeswap ] || [ -e /run/nodeswap-state ]; then
        skip "this host already has nodeswap state (/var/lib/nodeswap, /run/nodeswap or /run/nodeswap-state); not touching it"
fi

PAGE=$(getconf PAGESIZE)
OTHER_PAGE=16384
[ "$PAGE" = 16384 ] && OTHER_PAGE=4096
MiB=$((1024 * 1024))

# /mnt, not /tmp: every directory above a swap file must be root-owned and not world-writable;
# and not /run either, where a policy's [File] Path= may not point (apply_file below).
T=$(mktemp -d -p /mnt nodeswap-swapfile-test.XXXXXX) || exit 1
LOOPS=()
MOUNTS=()
HOG=
CG=

cleanup() {
        local name rest m l
        if [ -n "$HOG" ]; then
                kill "$HOG" 2>/dev/null
                wait "$HOG" 2>/dev/null
                HOG=
        fi
        [ -n "$CG" ] && [ -d "$CG" ] && { rmdir "$CG" || echo "cleanup: rmdir $CG failed" >&2; }
        while read -r name rest; do
                case $name in "$T"/*) swapoff "$name" || echo "cleanup: swapoff $name failed" >&2 ;; esac
        done < <(tail -n +2 /proc/swaps)
        for ((i = ${#MOUNTS[@]} - 1; i >= 0; i--)); do
                umount "${MOUNTS[i]}" || umount -l "${MOUNTS[i]}" || echo "cleanup: umount ${MOUNTS[i]} failed" >&2
        done
        for l in "${LOOPS[@]}"; do
                losetup -d "$l" || echo "cleanup: losetup -d $l failed" >&2
        done
        rm -rf "$T" /var/lib/nodeswap /run/nodeswap /run/nodeswap-state /run/nodeswap.lock
}
trap cleanup EXIT
. "$(dirname "$(readlink -f "$0")")/../lib/common.sh"
DRIVER=$(under_test "$DRIVER" "$T") || exit 1
NODESWAP=$(under_test "$NODESWAP" "$T") || exit 1

FAILED=0
ok() { echo "ok: $*"; }
bad() { echo "FAIL: $*"; FAILED=1; }
like() { [[ $1 == $2 ]]; }       # like STRING PATTERN: a glob match
check() {       # check DESCRIPTION COMMAND...
        local what=$1; shift
        if "$@"; then ok "$what"; else bad "$what"; fi
}

# attach IMAGE: a loop device for the image in $ATTACHED, remembered for teardown (no subshell,
# so that LOOPS keeps it)
attach() {
        ATTACHED=$(losetup --find --show "$1") || { echo "losetup $1 failed" >&2; exit 1; }
        LOOPS+=("$ATTACHED")
}

# image NAME SIZE MKFS...: a sparse image, formatted, attached and mounted at $T/NAME
image() {
        local name=$1 size=$2; shift 2
        truncate -s "$size" "$T/$name.img"
        attach "$T/$name.img"
        local l=$ATTACHED
        "$@" "$l" >/dev/null 2>&1 || { echo "$* $l failed" >&2; exit 1; }
        mkdir "$T/$name"
        mount "$l" "$T/$name" || { echo "mount $l failed" >&2; exit 1; }
        MOUNTS+=("$T/$name")
        eval "LOOP_$name=$l"
}

# swaps_line PATH: the /proc/swaps line of PATH, empty if it is not swap
swaps_line() { awk -v p="$1" '$1 == p' /proc/swaps; }
prio_of() { swaps_line "$1" | awk '{ print $5 }'; }
size_kib_of() { swaps_line "$1" | awk '{ print $3 }'; }
no_temp_files() { ! ls -A "$1" | grep -q '^\.#'; }
sectors_written() { awk '{ print $7 }' "/sys/block/$(basename "$1")/stat"; }
allocated() { echo $(($(stat -c '%b * %B' "$1"))); }
json() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2" 2>/dev/null; }
# apply_file PATH SIZE PRIORITY [OPTION...]: nodeswap apply --json of a policy with the swap file
# PATH of SIZE (e.g. 48M) at PRIORITY on virtual storage, and nothing else; the JSON in $T/apply.json,
# stderr in $T/apply.err, the exit status returned. Each apply starts without nodeswap's state, so
# that the files of the other sections (recorded by their applies) are not deleted as old ones;
# with KEEP_STATE=1 it runs on the state the apply before it left.
apply_file() {
        local path=$1 size=$2 prio=$3; shift 3
        [ -n "${KEEP_STATE:-}" ] || rm -rf /var/lib/nodeswap /run/nodeswap-state
        # NodeFeatures=no: the steps compared below are the file's (the labels: test-cli-features.sh)
        printf '[Swap]\nBackend=file\n[File]\nEncrypt=no\nPath=%s\nSize=%s\nPriority=%s\nStorage=virtual\n[Kubelet]\nNodeFeatures=no\n' \
                "$path" "$size" "$prio" >"$T/policy.conf"
        chmod 0644 "$T/policy.conf"
        "$NODESWAP" apply --json --config "$T/policy.conf" "$@" >"$T/apply.json" 2>"$T/apply.err"
}
# judge PATH SIZE [ROOT]: whether nodeswap reuses the existing file at PATH, as `nodeswap plan`
# decides it (probe reads the file, plan judges it) for a policy with the swap file PATH of SIZE
# (e.g. 16M) on virtual storage, at the priority it is on with (if it is): "reusable" when the plan
# keeps it or only swaps it on; otherwise "not reusable: " and the plan's first error ("ID:
# message"), or its first other action on PATH ("KIND: reason"). It changes nothing.
judge() {
        local path=$1 size=$2 root=${3:-/} prio
        prio=$(prio_of "$path")
        printf '[Swap]\nBackend=file\n[File]\nEncrypt=no\nPath=%s\nSize=%s\nPriority=%s\nStorage=virtual\n' \
                "$path" "$size" "${prio:-10}" >"$T/judge.conf"
        chmod 0644 "$T/judge.conf"
        "$NODESWAP" plan --json --root "$root" --config "$T/judge.conf" >"$T/judge.json" 2>"$T/judge.err"
        python3 - "$T/judge.json" "$path" <<'EOF_PY'
import json, sys
d = json.load(open(sys.argv[1]))
errors = ["%s: %s" % (f["id"], f["message"]) for f in d["findings"] if f["severity"] == "error"]
other = ["%s: %s" % (a["kind"], a["reason"]) for a in d["actions"]
         if a["target"] == sys.argv[2] and a["kind"] != "swapon"]
print("not reusable: " + (errors + other)[0] if errors + other else "reusable")
EOF_PY
}
# made_anew WHAT PATH SIZE PRIORITY PROBLEM: the file at PATH, which is off and which the kernel
# refuses, is replaced: plan deletes it and makes it anew, naming PROBLEM (a glob) in the reason,
# and apply does so and swaps the new file on at PRIORITY.
made_anew() {
        local what=$1 path=$2 size=$3 prio=$4 problem=$5 out rc
        out=$(judge "$path" "$size")
        check "$what: plan replaces the file, naming the problem ($out)" like "$out" "not reusable: file-remove: *$problem*"
        check "$what: ... which the kernel indeed refuses" bash -c "! swapon '$path' 2>/dev/null"
        apply_file "$path" "$size" "$prio"; rc=$?
        check "$what: apply exits 0 ($(cat "$T/apply.err"))" [ "$rc" = 0 ]
        check "$what: ... deleted and made anew ($(steps))" [ "$(steps)" = "file-remove ${path##*/} file-create ${path##*/}" ]
        check "$what: ... on at priority $prio" [ "$(prio_of "$path")" = "$prio" ]
}
# steps: the apply's actions as "kind name[:result]" (name: the file name only)
steps() { json "$T/apply.json" '" ".join("%s %s" % (a["kind"], a["target"].rsplit("/", 1)[-1]) for a in d["actions"])'; }
results() { json "$T/apply.json" '" ".join(a["result"] for a in d["actions"])'; }
# the steps of a bridged resize of the file NAME, as plan lays them out
bridged() { echo "file-create .#$1.bridge swapoff $1 file-remove $1 file-create $1 swapoff .#$1.bridge file-remove .#$1.bridge"; }

image ext4 128M mkfs.ext4 -q -F -b 4096 -E lazy_itable_init=0,lazy_journal_init=0
image xfs 300M mkfs.xfs -q -f
image btrfs 256M mkfs.btrfs -q -f
mkdir "$T/tmpfs"
mount -t tmpfs -o size=64M,mode=0700 nodeswap-test "$T/tmpfs" || exit 1
MOUNTS+=("$T/tmpfs")

# ---- ext4: create, then everything a second run must not do ----
F=$T/ext4/var/lib/nodeswap/swapfile
out=$("$DRIVER" create / "$F" $((16 * MiB)) "$PAGE" 123 virtual 2>&1)
check "ext4: create succeeds ($out)" [ $? = 0 ]
check "ext4: file is regular, 0600, root:root" [ "$(stat -c '%F %a %u %g' "$F")" = "regular file 600 0 0" ]
check "ext4: missing parents were created 0700 root" \
        [ "$(stat -c '%a %u' "$T/ext4/var" "$T/ext4/var/lib" "$T/ext4/var/lib/nodeswap" | sort -u)" = "700 0" ]
check "ext4: no holes ($(allocated "$F") bytes allocated)" [ "$(allocated "$F")" -ge $((16 * MiB)) ]
check "ext4: swapped on at priority 123" [ "$(prio_of "$F")" = 123 ]
check "ext4: /proc/swaps says file" [ "$(swaps_line "$F" | awk '{ print $2 }')" = file ]
check "ext4: no temporary file left" no_temp_files "$T/ext4/var/lib/nodeswap"
command -v blkid >/dev/null &&
        check "ext4: blkid sees a swap area labelled nodeswap" [ "$(blkid -p -o value -s TYPE -s LABEL "$F" | xargs)" = "nodeswap swap" ]
out=$(judge "$F" 16M)
check "ext4: plan keeps the active file ($out)" [ "$out" = reusable ]
out=$("$DRIVER" probe / "$F" "$PAGE")
check "ext4: ... and probe finds nothing wrong with it ($out)" [ "$out" = none ]

# The kernel facts swapfile.h relies on.
check "kernel: an active swap file cannot be renamed" bash -c "! mv '$F' '$F.moved' 2>/dev/null"
check "kernel: an active swap file cannot be deleted" bash -c "! rm -f '$F' 2>/dev/null"
check "kernel: an active swap file can be hard-linked" ln "$F" "$F.link"
check "kernel: /proc/swaps keeps the name it was swapped on with" [ -n "$(swaps_line "$F")" ]
check "kernel: swapoff through another name works" swapoff "$F.link"
check "kernel: ... and the area is off" [ -z "$(swaps_line "$F")" ]
rm -f "$F.link"

# A second create / plan of a correct file writes nothing (the file is off now, so that no
# swapped-out page can write to the image either).
sync
before_sectors=$(sectors_written "$LOOP_ext4")
before_times=$(stat -c '%X %Y %Z' "$F")
out=$("$DRIVER" create / "$F" $((16 * MiB)) "$PAGE" 123 virtual 2>&1)
check "ext4: a second create refuses to replace the file ($out)" like "$out" "EEXIST:*"
out=$(judge "$F" 16M)
check "ext4: plan reuses the file ($out)" [ "$out" = reusable ]
sync
check "ext4: nothing written to the image by plan/create" [ "$(sectors_written "$LOOP_ext4")" = "$before_sectors" ]
check "ext4: atime, mtime and ctime unchanged" [ "$(stat -c '%X %Y %Z' "$F")" = "$before_times" ]

# plan finds each problem.
cp --sparse=never -p "$F" "$T/ext4/var/lib/nodeswap/copy"
chmod 0644 "$T/ext4/var/lib/nodeswap/copy"
out=$(judge "$T/ext4/var/lib/nodeswap/copy" 16M)
check "plan: wrong mode found ($out)" like "$out" "not reusable: swapfile-permissions: *mode 0644*"
rm -f "$T/ext4/var/lib/nodeswap/copy"
out=$(judge "$F" 32M)
check "plan: wrong size found ($out)" like "$out" "not reusable: file-remove: size changed*"

# ---- a header made for another page size: found, rewritten, then usable ----
G=$T/ext4/var/lib/nodeswap/foreign
fallocate -l $((16 * MiB)) "$G" && chmod 0600 "$G"
"$DRIVER" header "$G" "$OTHER_PAGE"
out=$(judge "$G" 16M)
check "page size: plan finds the foreign header ($out)" \
        like "$out" "not reusable: file-mkswap: *header made for $OTHER_PAGE-byte pages, kernel uses $PAGE*"
check "page size: swapon of the foreign header fails" bash -c "! swapon '$G' 2>/dev/null"
out=$("$DRIVER" rewrite / "$G" "$PAGE")
check "page size: rewrite says rewritten ($out)" [ "$out" = rewritten ]
out=$("$DRIVER" rewrite / "$G" "$PAGE")
check "page size: a second rewrite writes nothing ($out)" [ "$out" = unchanged ]
out=$(judge "$G" 16M)
check "page size: plan reuses the file after the rewrite ($out)" [ "$out" = reusable ]
check "page size: the kernel takes the rewritten file" swapon -p 5 "$G"
out=$("$DRIVER" rewrite / "$G" "$PAGE" 2>&1)
check "page size: rewrite refuses an active file ($out)" like "$out" "EBUSY:*"
swapoff "$G"
out=$("$DRIVER" remove / "$G")
check "remove: deletes an inactive swap file ($out)" [ "$out" = removed ] 
check "remove: ... and it is gone" [ ! -e "$G" ]

# ---- a file with holes, which the kernel refuses: plan replaces it, apply makes it anew ----
H=$T/ext4/var/lib/nodeswap/holes
truncate -s $((16 * MiB)) "$H" && chmod 0600 "$H" && "$DRIVER" header "$H" "$PAGE"
made_anew holes "$H" 16M 20 "$H has holes"
check "holes: ... without holes" [ "$(allocated "$H")" -ge $((16 * MiB)) ]
swapoff "$H" && rm -f "$H"

# ---- symlinks and unsafe parents are refused, nothing is written through them ----
echo precious >"$T/ext4/victim"
ln -s "$T/ext4/victim" "$T/ext4/var/lib/nodeswap/planted"
out=$("$DRIVER" create / "$T/ext4/var/lib/nodeswap/planted" $((16 * MiB)) "$PAGE" 10 virtual 2>&1)
check "symlink at the path: refused ($out)" like "$out" "ELOOP:*symlink*"
check "symlink at the path: its target is untouched" [ "$(cat "$T/ext4/victim")" = precious ]
ln -s "$T/ext4/nowhere" "$T/ext4/var/lib/nodeswap/dangling"
out=$("$DRIVER" create / "$T/ext4/var/lib/nodeswap/dangling" $((16 * MiB)) "$PAGE" 10 virtual 2>&1)
check "dangling symlink at the path: refused ($out)" like "$out" "ELOOP:*"
check "dangling symlink at the path: nothing created through it" [ ! -e "$T/ext4/nowhere" ]
out=$(judge "$T/ext4/var/lib/nodeswap/planted" 16M)
check "symlink at the path: plan refuses it ($out)" like "$out" "not reusable: swapfile-not-regular: *not a regular file*"
mkdir -m 0700 "$T/ext4/real"
ln -s "$T/ext4/real" "$T/ext4/linkdir"
out=$("$DRIVER" create / "$T/ext4/linkdir/swapfile" $((16 * MiB)) "$PAGE" 10 virtual 2>&1)
check "symlink in a parent: refused ($out)" like "$out" "ELOOP:*"
check "symlink in a parent: nothing created behind it" [ -z "$(ls -A "$T/ext4/real")" ]
mkdir -m 0777 "$T/ext4/open"
out=$("$DRIVER" create / "$T/ext4/open/swapfile" $((16 * MiB)) "$PAGE" 10 virtual 2>&1)
check "world-writable parent: refused ($out)" like "$out" "EPERM:*writable by group or others*"
check "world-writable parent: nothing created" [ -z "$(ls -A "$T/ext4/open")" ]
mkdir -m 0700 "$T/ext4/nobody" && chown 65534 "$T/ext4/nobody"
out=$("$DRIVER" create / "$T/ext4/nobody/swapfile" $((16 * MiB)) "$PAGE" 10 virtual 2>&1)
check "parent owned by another user: refused ($out)" like "$out" "EPERM:*not root*"

# ---- not enough room: refused before anything is written ----
mkdir -m 0700 "$T/ext4/small"
out=$("$DRIVER" create / "$T/ext4/small/swapfile" $((256 * MiB)) "$PAGE" 10 virtual 2>&1)
check "too small: refused with ENOSPC ($out)" like "$out" "ENOSPC:*not enough room*"
check "too small: nothing left in the directory" [ -z "$(ls -A "$T/ext4/small")" ]
out=$("$DRIVER" create / "$T/ext4/new/dirs/swapfile" $((256 * MiB)) "$PAGE" 10 virtual 2>&1)
check "too small: no directories created either" [ ! -e "$T/ext4/new" ]

# ---- fallocate fails after the checks passed (here: RLIMIT_FSIZE): the temporary file goes ----
mkdir -m 0700 "$T/ext4/limited"
out=$( (ulimit -f 8192; trap '' XFSZ; "$DRIVER" create / "$T/ext4/limited/swapfile" $((16 * MiB)) "$PAGE" 10 virtual) 2>&1)
check "fallocate fails: reported ($out)" like "$out" "EFBIG:*cannot allocate 16.0 MiB*"
check "fallocate fails: no temporary file left" [ -z "$(ls -A "$T/ext4/limited")" ]

# ---- storage kinds: a loop device is virtual; without virtual in Storage= it is refused ----
out=$("$DRIVER" create / "$T/ext4/small/swapfile" $((16 * MiB)) "$PAGE" 10 nvme,ssd 2>&1)
check "storage: virtual disk refused when not listed ($out)" \
        like "$out" "EMEDIUMTYPE:*virtual disk ($(basename "$LOOP_ext4"))*does not list virtual*"

# ---- resize of the active file without room for the bridge: refused, the old file stays on ----
# A size that fits once the old 16 MiB are freed, but not next to them and a bridge:
# size + margin > free, size + margin <= free + 16 MiB (margin = 16 MiB + size / 64).
swapon -p 123 "$F"
avail=$(df -B1 --output=avail "$T/ext4" | tail -n 1)
want=$(((avail - 8 * MiB) / MiB))
apply_file "$F" "${want}M" 124
rc=$?
check "ext4: resize without room for the bridge: apply exits 1 ($rc)" [ "$rc" = 1 ]
check "ext4: ... the error says what to do ($(json "$T/apply.json" '[f["hint"] for f in d["findings"] if f["severity"] == "error"]'))" \
        [ "$(json "$T/apply.json" '[f["id"] for f in d["findings"] if "nodeswap apply --force" in f["hint"]]')" = "['swapfile-no-space']" ]
check "ext4: ... nothing done, the old file stays on" [ "$(prio_of "$F") $(size_kib_of "$F")" = "123 $((16 * 1024 - PAGE / 1024))" ]
check "ext4: ... no bridge made" no_temp_files "$T/ext4/var/lib/nodeswap"

# ---- tmpfs: refused, naming it ----
out=$("$DRIVER" create / "$T/tmpfs/swapfile" $((16 * MiB)) "$PAGE" 10 nvme,ssd,virtual 2>&1)
check "tmpfs: refused ($out)" like "$out" "EMEDIUMTYPE:*$T/tmpfs is on tmpfs, which cannot hold a swap file*"
check "tmpfs: nothing created" [ -z "$(ls -A "$T/tmpfs")" ]

# ---- xfs ----
X=$T/xfs/swapfile
out=$("$DRIVER" create / "$X" $((32 * MiB)) "$PAGE" 7 virtual 2>&1)
check "xfs: create succeeds ($out)" [ $? = 0 ]
check "xfs: 0600 root:root" [ "$(stat -c '%a %u %g' "$X")" = "600 0 0" ]
check "xfs: no holes" [ "$(allocated "$X")" -ge $((32 * MiB)) ]
check "xfs: swapped on at priority 7" [ "$(prio_of "$X")" = 7 ]
out=$(judge "$X" 32M)
check "xfs: plan keeps the active file ($out)" [ "$out" = reusable ]
out=$("$DRIVER" probe / "$X" "$PAGE")
check "xfs: ... and probe finds nothing wrong with it ($out)" [ "$out" = none ]

# a reflinked copy shares its blocks: the kernel refuses it, so plan replaces it (written blocks:
# unwritten extents are not shared by a reflink)
head -c $((16 * MiB)) /dev/zero >"$T/xfs/r1" && chmod 0600 "$T/xfs/r1" && "$DRIVER" header "$T/xfs/r1" "$PAGE"
if cp --reflink=always -p "$T/xfs/r1" "$T/xfs/r2" 2>/dev/null; then
        out=$(judge "$T/xfs/r2" 16M)
        check "xfs: plan replaces a reflinked copy for its shared blocks ($out)" like "$out" "not reusable: file-remove: *shares blocks with another file*"
        check "xfs: ... which the kernel indeed refuses" bash -c "! swapon '$T/xfs/r2' 2>/dev/null"
else
        echo "note: this xfs has no reflink: shared extents not tested"
fi
rm -f "$T/xfs/r1" "$T/xfs/r2"

# resize of an active file by apply: a bridge carries it, step by step; /proc/swaps ends up naming the path
apply_file "$X" 48M 8; rc=$?
check "xfs: apply resizing the active file exits 0 ($(cat "$T/apply.err"))" [ "$rc" = 0 ]
check "xfs: ... through the bridge, step by step ($(steps))" [ "$(steps)" = "$(bridged swapfile)" ]
check "xfs: ... every step done ($(results))" [ "$(results)" = "done done done done done done" ]
check "xfs: /proc/swaps shows the path at the new size" [ "$(size_kib_of "$X")" = $((48 * 1024 - PAGE / 1024)) ]
check "xfs: ... at the new priority" [ "$(prio_of "$X")" = 8 ]
check "xfs: no bridge or temporary file left, nothing else swapped on below $T/xfs" \
        [ "$(ls -A "$T/xfs")" = swapfile ] 
check "xfs: only one swap area below $T/xfs" [ "$(grep -c "^$T/xfs/" /proc/swaps)" = 1 ]
out=$(judge "$X" 48M)
check "xfs: plan keeps the resized file ($out)" [ "$out" = reusable ]
out=$("$DRIVER" probe / "$X" "$PAGE")
check "xfs: ... and probe finds nothing wrong with it ($out)" [ "$out" = none ]

apply_file "$X" 48M 8
check "xfs: a second apply changes nothing ($(steps))" [ "$(json "$T/apply.json" 'd["changed"]')" = False ]

# a new priority alone: the same file is swapped on again behind a bridge
apply_file "$X" 48M 6; rc=$?
check "xfs: apply of a new priority exits 0 ($(cat "$T/apply.err"))" [ "$rc" = 0 ]
check "xfs: ... bridge, swapoff, swapon ($(steps))" \
        [ "$(steps)" = "file-create .#swapfile.bridge swapoff swapfile swapon swapfile swapoff .#swapfile.bridge file-remove .#swapfile.bridge" ]
check "xfs: ... on at priority 6, same size" [ "$(prio_of "$X") $(size_kib_of "$X")" = "6 $((48 * 1024 - PAGE / 1024))" ]
check "xfs: ... nothing else left" [ "$(ls -A "$T/xfs")" = swapfile ]

# a step that fails midway (here the new file's fallocate, past RLIMIT_FSIZE: the 16 MiB bridge
# fits under the limit, the new 64 MiB file does not): apply stops there with the bridge still on,
# so the node keeps swap, and the next apply finishes the remaining steps
out=$( (ulimit -f $((20 * 1024)); trap '' XFSZ; apply_file "$X" 64M 6; echo "rc=$?") 2>&1)
check "xfs: a resize failing at the new file: apply exits 1 ($out)" [ "$out" = rc=1 ]
check "xfs: ... the first three steps done, the new file failed ($(results))" \
        like "$(results)" "done done done failed*"
check "xfs: ... with the reason ($(json "$T/apply.json" '[a["message"] for a in d["actions"] if a["result"] == "failed"]'))" \
        like "$(json "$T/apply.json" '[a["message"] for a in d["actions"] if a["result"] == "failed"]')" "*cannot allocate 64.0 MiB*"
check "xfs: ... the bridge stays on, the old file is gone ($(grep "^$T/xfs/" /proc/swaps | awk '{ print $1 }'))" \
        [ -n "$(swaps_line "$T/xfs/.#swapfile.bridge")" -a ! -e "$X" ]
KEEP_STATE=1 apply_file "$X" 64M 6; rc=$?
check "xfs: the rerun exits 0 ($(cat "$T/apply.err"))" [ "$rc" = 0 ]
check "xfs: ... and does what remained ($(steps))" \
        [ "$(steps)" = "file-create swapfile swapoff .#swapfile.bridge file-remove .#swapfile.bridge" ]
check "xfs: ... on at 64 MiB, priority 6" [ "$(size_kib_of "$X") $(prio_of "$X")" = "$((64 * 1024 - PAGE / 1024)) 6" ]
check "xfs: ... nothing else left" [ "$(ls -A "$T/xfs")" = swapfile ]
KEEP_STATE=1 apply_file "$X" 64M 6
check "xfs: ... and a third apply changes nothing" [ "$(json "$T/apply.json" 'd["changed"]')" = False ]

# resize of an inactive file: deleted and made anew, no bridge needed
swapoff "$X"
apply_file "$X" 24M 9; rc=$?
check "xfs: apply resizing the inactive file exits 0 ($(cat "$T/apply.err"))" [ "$rc" = 0 ]
check "xfs: ... without a bridge ($(steps))" [ "$(steps)" = "file-remove swapfile file-create swapfile" ]
check "xfs: ... on at the new size and priority" \
        [ "$(size_kib_of "$X") $(prio_of "$X")" = "$((24 * 1024 - PAGE / 1024)) 9" ]
check "xfs: ... nothing else left" [ "$(ls -A "$T/xfs")" = swapfile ]

out=$("$DRIVER" remove / "$X")
check "xfs: remove of an active file ($out)" [ "$out" = removed ]
check "xfs: ... it is off" [ -z "$(swaps_line "$X")" ]
check "xfs: ... and gone" [ ! -e "$X" ]
out=$("$DRIVER" remove / "$X")
check "xfs: a second remove finds nothing ($out)" [ "$out" = "nothing there" ]
echo data >"$T/xfs/notswap" && chmod 0600 "$T/xfs/notswap"
out=$("$DRIVER" remove / "$T/xfs/notswap" 2>&1)
check "remove refuses a file without a swap signature ($out)" like "$out" "EMEDIUMTYPE:*"
check "... and keeps it" [ "$(cat "$T/xfs/notswap")" = data ]

# resize of an active file that holds pages: a process in a memory cgroup of our own is pushed
# into swap, the file is resized under it, and its memory must come through intact.
CGROOT=/sys/fs/cgroup/memory
if [ -w "$CGROOT/cgroup.procs" ] && command -v perl >/dev/null; then
        CG=$CGROOT/$(basename "$T")
        mkdir "$CG" && echo $((16 * MiB)) >"$CG/memory.limit_in_bytes"
        Y=$T/xfs/busy
        out=$("$DRIVER" create / "$Y" $((64 * MiB)) "$PAGE" 32000 virtual 2>&1)
        check "busy: create succeeds ($out)" [ $? = 0 ]
        sh -c 'echo $$ >"$1/cgroup.procs" && exec perl -e "$2" "$3" "$4"' sh "$CG" '
                use Digest::MD5 qw(md5_hex);
                my $n = 6 << 20, $s = "";       # 24 MiB of 32-bit words, grown in place
                vec($s, $n - 1, 32) = 0;
                vec($s, $_, 32) = ($_ * 2654435761) & 0xffffffff for 0 .. $n - 1;
                my $sum = md5_hex($s);
                open(my $f, ">", $ARGV[0]) or die; print $f "$sum\n"; close $f;
                sleep 1 until -e $ARGV[1];
                exit(md5_hex($s) eq $sum ? 0 : 1);' "$T/hog.ready" "$T/hog.go" &
        HOG=$!
        for _ in $(seq 100); do [ -s "$T/hog.ready" ] && break; sleep 0.2; done
        used=$(swaps_line "$Y" | awk '{ print $4 }')
        check "busy: the process was pushed into the swap file (${used:-0} KiB used)" [ "${used:-0}" -gt 0 ]
        apply_file "$Y" 96M 32000; rc=$?
        check "busy: apply resizing a file holding pages exits 0 ($(cat "$T/apply.err") $(results) $(json "$T/apply.json" '[a["message"] for a in d["actions"] if a["result"] == "failed"]'))" [ "$rc" = 0 ]
        check "busy: ... through the bridge ($(steps))" [ "$(steps)" = "$(bridged busy)" ]
        bsize=$(json "$T/apply.json" '[a["want"] for a in d["actions"]][0]')
        check "busy: ... a bridge sized for the pages in use ($bsize; ${used:-0} KiB used)" \
                python3 -c 'import sys; sys.exit(not float(sys.argv[1].split()[0]) * 1024 > int(sys.argv[2]) + 16 * 1024)' "$bsize" "${used:-0}"
        check "busy: /proc/swaps shows the path at the new size" [ "$(size_kib_of "$Y")" = $((96 * 1024 - PAGE / 1024)) ]
        check "busy: no bridge left on or on disk" [ -z "$(ls -A "$T/xfs" | grep '^\.#')" ]
        check "busy: nothing else below $T/xfs is swap" [ "$(grep -c "^$T/xfs/" /proc/swaps)" = 1 ]
        touch "$T/hog.go"
        wait "$HOG"
        rc=$?
        HOG=
        check "busy: the process's memory came through intact (exit $rc)" [ "$rc" = 0 ]
        rmdir "$CG" && CG=
        out=$("$DRIVER" remove / "$Y")
        check "busy: removed ($out)" [ "$out" = removed ]
else
        echo "note: no writable v1 memory cgroup or no perl: resize of a file holding pages not tested"
fi

# ---- btrfs: NOCOW, single device only, no compression ----
B=$T/btrfs/swap/swapfile
out=$("$DRIVER" create / "$B" $((32 * MiB)) "$PAGE" 11 virtual 2>&1)
check "btrfs: create succeeds ($out)" [ $? = 0 ]
check "btrfs: the file has the No_COW attribute ($(lsattr "$B" 2>&1))" like "$(lsattr "$B" 2>/dev/null | awk '{ print $1 }')" "*C*"
check "btrfs: 0600 root:root" [ "$(stat -c '%a %u %g' "$B")" = "600 0 0" ]
check "btrfs: swapped on at priority 11" [ "$(prio_of "$B")" = 11 ]
out=$(judge "$B" 32M)
check "btrfs: plan keeps the active file ($out)" [ "$out" = reusable ]
out=$("$DRIVER" probe / "$B" "$PAGE")
check "btrfs: ... and probe finds nothing wrong with it ($out)" [ "$out" = none ]
apply_file "$B" 40M 12; rc=$?
check "btrfs: apply resizing the active file exits 0 ($(cat "$T/apply.err"))" [ "$rc" = 0 ]
check "btrfs: ... through the bridge ($(steps))" [ "$(steps)" = "$(bridged swapfile)" ]
check "btrfs: ... on at the new size and priority" [ "$(size_kib_of "$B") $(prio_of "$B")" = "$((40 * 1024 - PAGE / 1024)) 12" ]
check "btrfs: ... the new file has No_COW" like "$(lsattr "$B" 2>/dev/null | awk '{ print $1 }')" "*C*"
check "btrfs: ... no bridge left" no_temp_files "$T/btrfs/swap"
swapoff "$B"
out=$(judge "$B" 40M)
check "btrfs: ... plan reuses the resized file once it is off ($out)" [ "$out" = reusable ]
touch "$T/btrfs/swap/cow" && chmod 0600 "$T/btrfs/swap/cow" && fallocate -l $((32 * MiB)) "$T/btrfs/swap/cow" &&
        "$DRIVER" header "$T/btrfs/swap/cow" "$PAGE"
made_anew "btrfs without No_COW" "$T/btrfs/swap/cow" 32M 13 "without the No_COW attribute"
check "btrfs: ... with No_COW" like "$(lsattr "$T/btrfs/swap/cow" 2>/dev/null | awk '{ print $1 }')" "*C*"
swapoff "$T/btrfs/swap/cow" && rm -f "$T/btrfs/swap/cow"

truncate -s 256M "$T/btrfsc.img"
attach "$T/btrfsc.img"; LC=$ATTACHED
mkfs.btrfs -q -f "$LC" >/dev/null 2>&1
mkdir "$T/btrfsc" && mount -o compress=zstd "$LC" "$T/btrfsc" && MOUNTS+=("$T/btrfsc")
out=$("$DRIVER" create / "$T/btrfsc/swapfile" $((32 * MiB)) "$PAGE" 11 virtual 2>&1)
check "btrfs compressed: refused ($out)" like "$out" "EMEDIUMTYPE:*compression*"

truncate -s 256M "$T/btrfsm1.img" "$T/btrfsm2.img"
attach "$T/btrfsm1.img"; LM1=$ATTACHED
attach "$T/btrfsm2.img"; LM2=$ATTACHED
mkfs.btrfs -q -f -d single -m single "$LM1" "$LM2" >/dev/null 2>&1
mkdir "$T/btrfsm" && mount "$LM1" "$T/btrfsm" && MOUNTS+=("$T/btrfsm")
out=$("$DRIVER" create / "$T/btrfsm/swapfile" $((32 * MiB)) "$PAGE" 11 virtual 2>&1)
check "btrfs over two devices: refused ($out)" like "$out" "EMEDIUMTYPE:*more than one device*"

# ---- a foreign root: the file is made, swapon is skipped ----
R=$T/ext4/root
D=devices/pci0000:00/0000:00:05.0/virtio1/host0/target0:0:0/0:0:0:0/block/sda
mkdir -p "$R/proc/self" "$R/sys/dev/block" "$R/sys/class/block" "$R/sys/$D/sda1" "$R/sys/$D/queue"
chmod 0700 "$R"
printf '1 0 8:1 / / rw,relatime - ext4 /dev/sda1 rw\n' >"$R/proc/self/mountinfo"
cp /proc/meminfo "$R/proc/meminfo"      # for plan (judge)
: >"$R/proc/swaps"
echo 1 >"$R/sys/$D/sda1/partition"
echo 1 >"$R/sys/$D/queue/rotational"
ln -s "../../$D/sda1" "$R/sys/class/block/sda1"
ln -s "../../$D" "$R/sys/class/block/sda"
ln -s "../../$D/sda1" "$R/sys/dev/block/8:1"
out=$("$DRIVER" inspect "$R" /var/lib/nodeswap/swapfile)
check "foreign root: a rotational disk on virtio (sda1) counts as virtual" like "$out" "*device=sda"$'\n'"kind=virtual*"
out=$("$DRIVER" create "$R" /var/lib/nodeswap/swapfile $((16 * MiB)) "$PAGE" 10 virtual)
check "foreign root: created, swapon skipped ($out)" [ $? = 2 ]
check "foreign root: the file is there" [ "$(stat -c '%a %u' "$R/var/lib/nodeswap/swapfile")" = "600 0" ]
check "foreign root: nothing swapped on" [ -z "$(swaps_line "$R/var/lib/nodeswap/swapfile")" ]
out=$(judge /var/lib/nodeswap/swapfile 16M "$R")
check "foreign root: plan reuses the file ($out)" [ "$out" = reusable ]

# ---- the same resize with --force: the old file goes off and is deleted first, no bridge ----
avail=$(df -B1 --output=avail "$T/ext4" | tail -n 1)
want=$(((avail - 8 * MiB) / MiB))
apply_file "$F" "${want}M" 124 --force; rc=$?
check "ext4: apply --force without room for the bridge exits 0 ($(cat "$T/apply.err"))" [ "$rc" = 0 ]
check "ext4: ... swapoff, delete, create ($(steps))" [ "$(steps)" = "swapoff swapfile file-remove swapfile file-create swapfile" ]
check "ext4: ... on at the new size and priority ($(swaps_line "$F"))" \
        [ "$(size_kib_of "$F") $(prio_of "$F")" = "$((want * 1024 - PAGE / 1024)) 124" ]
check "ext4: ... no temporary file left" no_temp_files "$T/ext4/var/lib/nodeswap"

# ---- remove an active file on ext4 ----
out=$("$DRIVER" remove / "$F")
check "ext4: remove of the active file ($out)" [ "$out" = removed ]
check "ext4: ... it is off" [ -z "$(swaps_line "$F")" ]
check "ext4: ... and gone" [ ! -e "$F" ]

# ---- the loop device rpi-swap's masked rpi-setup-loop@ leaves on its file: detached by nodeswap ----
B=$T/ext4/var/swap-backing
truncate -s $((8 * MiB)) "$B"
attach "$B"
held=$ATTACHED
out=$("$DRIVER" loop-detach /foreign-root "$B" 2>&1)
check "loop-detach under a foreign root does nothing ($out)" [ -n "$(losetup -n -O NAME -j "$B")" ]
# another opener: the device goes when it is last closed (LOOP_CLR_FD). Not fd 9: that is the
# kernel lock, and closing it let the next kernel test in while this one still had its state.
exec 7<"$held"
out=$("$DRIVER" loop-detach / "$B")
check "loop-detach: one device detached ($out)" [ "$out" = 1 ]
exec 7<&-
for _ in $(seq 50); do [ -z "$(losetup -n -O NAME -j "$B")" ] && break; sleep 0.1; done
check "loop-detach: no loop device left on the file ($(losetup -n -O NAME -j "$B"))" [ -z "$(losetup -n -O NAME -j "$B")" ]
[ -z "$(losetup -n -O NAME -j "$B")" ] && unset 'LOOPS[-1]'
out=$("$DRIVER" loop-detach / "$B")
check "loop-detach of a file without a loop device: 0 ($out)" [ "$out" = 0 ]

cleanup
trap - EXIT
check "teardown: no swap area of this test left" bash -c "! grep -q '^$T/' /proc/swaps"
check "teardown: no loop device of this test left" bash -c "! losetup -a | grep -q '$T/'"
check "teardown: $T removed" [ ! -e "$T" ]

exit $FAILED
