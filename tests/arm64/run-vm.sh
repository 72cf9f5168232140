#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# nodeswap on arm64 with 16 KiB pages, like a Raspberry Pi 5: boots the cached Debian 12 arm64
# root (build-root.sh) with the 16 KiB-page kernel it holds (Debian 12's prebuilt
# linux-image-6.12.*+deb12-arm64-16k-unsigned, its modules and a small initramfs) under
# qemu-system-aarch64 -M virt -cpu max,pauth=off (TCG), installs nodeswap from the arm64 package,
# and runs guest/checks.sh inside: the page size, a swap file whose header was written on this
# (amd64) machine for 4 KiB pages (check finds it, apply rewrites it), a zram device and the file
# at their full size in /proc/swaps, status and allowance, revert. See tests/e2e/README.md.
#
# usage: run-vm.sh [BUILD_DIR]   (BUILD_DIR is not used: nodeswap is built for arm64 here)
# env:   NODESWAP_ARM64_DEB   the arm64 .deb to install. Unset: built here from debian/ with the
#                             README's arm64 package command (dpkg-buildpackage -a arm64) in a
#                             copy of this tree; without debian/ or dpkg-buildpackage, nodeswap
#                             is cross-built with meson (aarch64-linux-gnu.ini) and installed
#                             into the image instead, and the output says so.
#        ARM64_TIMEOUT        seconds for the boot and the checks (default 900)
#        ARM64_KEEP=1         keep the temporary directory (image, serial log, results)
#        ARM64_CACHE_DIR, E2E_MIRROR, E2E_SECURITY_MIRROR: see build-root.sh
# exit:  0 all checks passed, 1 a check failed or the VM did not finish, 77 cannot run here (with
#        CI=true, a root that cannot be built is a failure, not a skip)
set -euo pipefail
{
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
SRC=$(cd "$HERE/../.." && pwd)
TIMEOUT=${ARM64_TIMEOUT:-900}
KEEP=${ARM64_KEEP:-0}
. "$HERE/../lib/vm-build.sh"
skip() { echo "SKIP arm64: $*"; exit 77; }
log() { echo "arm64: $*"; }

[[ $(id -u) == 0 ]] || skip "needs root (the cached root and kernel, chroot-free image with owners)"
for tool in qemu-system-aarch64 mkfs.ext4 mkswap timeout flock; do
        command -v "$tool" >/dev/null || skip "$tool not installed"
done
t_start=$(date +%s)

# --- the cached root, with its kernel -----------------------------------------------------------
rc=0; TARBALL=$("$HERE/build-root.sh") || rc=$?
if (( rc == 77 )); then
        [[ ${CI:-} == true ]] && { echo "FAIL arm64: no arm64 root under CI=true (build-root.sh could not build it; reason above)"; exit 1; }
        skip "no arm64 root (build-root.sh skipped, reason above)"
fi
(( rc == 0 )) || { echo "FAIL arm64: building the arm64 root failed"; exit 1; }
t_cache=$(date +%s)

TMP=$(mktemp -d /var/tmp/nodeswap-arm64.XXXXXX)
PIDFILE=$TMP/qemu.pid
QPID=
cleanup() {
        local rc=$? pid
        set +e
        stop_bg
        [[ -n $QPID ]] && kill "$QPID" 2>/dev/null      # timeout(1) passes TERM on to qemu
        pid=$(cat "$PIDFILE" 2>/dev/null)
        if [[ -n $pid && $(cat "/proc/$pid/comm" 2>/dev/null) == qemu-system-aar* ]]; then
                kill "$pid" 2>/dev/null
                for _ in $(seq 50); do [[ -e /proc/$pid ]] || break; sleep 0.1; done
                kill -9 "$pid" 2>/dev/null
        fi
        [[ -n $QPID ]] && wait "$QPID" 2>/dev/null
        if [[ $KEEP == 1 ]]; then log "kept $TMP"; else rm -rf --one-file-system "$TMP"; fi
        exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM HUP

# --- nodeswap for arm64 --------------------------------------------------------------------------
DEB=${NODESWAP_ARM64_DEB:-}
MESON_BUILD=
# copy_tree DEST: this tree as it is (committed or not; ignored files and meson build directories
# left out) into DEST
copy_tree() {
        local skip=()
        while IFS= read -r -d '' d; do
                [[ -d $SRC/$d/meson-private ]] && skip+=("$d")
        done < <(git -C "$SRC" ls-files -z --others --exclude-standard --directory)
        git -C "$SRC" ls-files -z --cached --others --exclude-standard | sort -zu |
                while IFS= read -r -d '' f; do
                        for d in "${skip[@]}"; do [[ $f == "$d"* ]] && continue 2; done
                        [[ -e $SRC/$f || -L $SRC/$f ]] && printf '%s\0' "$f"
                done | (cd "$SRC" && xargs -0 -r cp --parents -d -t "$1")
}
if [[ -z $DEB && -f $SRC/debian/control ]]; then
        why=
        command -v dpkg-buildpackage >/dev/null || why="dpkg-buildpackage not installed"
        [[ -z $why ]] && ! git -C "$SRC" rev-parse --git-dir >/dev/null 2>&1 && why="$SRC is not a git work tree"
        [[ -z $why ]] && ! (cd "$SRC" && dpkg-checkbuilddeps -a arm64 -Pcross,nocheck) >"$TMP/deps.log" 2>&1 &&
                why="missing build dependencies: $(cat "$TMP/deps.log")"
        if [[ -n $why ]]; then
                log "cannot build the arm64 package here ($why)"
        else
                # in a copy: the package lands in the copy's parent directory, not next to the clone
                log "building the arm64 package (dpkg-buildpackage -a arm64 -Pcross,nocheck)"
                mkdir -p "$TMP/pkg/src"
                copy_tree "$TMP/pkg/src"
                run_bg env -C "$TMP/pkg/src" DEB_BUILD_OPTIONS=nocheck nice -n 10 \
                        dpkg-buildpackage -b -us -uc -a arm64 -Pcross,nocheck >"$TMP/pkg/build.log" 2>&1 || {
                        tail -n 30 "$TMP/pkg/build.log"
                        echo "FAIL arm64: the arm64 package did not build (log above)"
                        exit 1
                }
                DEB=$(ls "$TMP"/pkg/nodeswap_*_arm64.deb)
        fi
fi
if [[ -n $DEB ]]; then
        [[ -f $DEB ]] || { echo "FAIL arm64: no such package $DEB"; exit 1; }
        log "installing from the package $DEB"
elif command -v aarch64-linux-gnu-gcc >/dev/null; then
        log "no arm64 package: nodeswap is cross-built with meson and installed into the image, not from a package"
        MESON_BUILD=$TMP/build-arm64
        run_bg nice -n 10 meson setup "$MESON_BUILD" "$SRC" --cross-file "$HERE/aarch64-linux-gnu.ini" \
                -Dtests=false --prefix=/usr --sysconfdir=/etc -Dsystemdunitdir=/lib/systemd/system \
                >"$TMP/meson.log" 2>&1 &&
                run_bg nice -n 10 ninja -C "$MESON_BUILD" >>"$TMP/meson.log" 2>&1 || {
                tail -n 30 "$TMP/meson.log"; echo "FAIL arm64: the meson cross build failed"; exit 1; }
else
        skip "neither an arm64 package (NODESWAP_ARM64_DEB, debian/) nor aarch64-linux-gnu-gcc"
fi
t_build=$(date +%s)

# --- the image -----------------------------------------------------------------------------------
ROOT=$TMP/root
mkdir "$ROOT"
tar --numeric-owner --xattrs --acls -C "$ROOT" -xf "$TARBALL"
# The kernel and its initramfs, from the root (build-root.sh installed Debian's 16k kernel there).
# qemu's -kernel takes an arm64 Image; Debian's vmlinuz is one, but a gzip-compressed one (as
# some arm64 kernels ship) is unpacked first.
KREL=$(cd "$ROOT/boot" && ls -d vmlinuz-*-arm64-16k 2>/dev/null | sed 's/^vmlinuz-//' | sort -V | tail -n 1)
[[ -n $KREL && -f $ROOT/boot/initrd.img-$KREL ]] || {
        echo "FAIL arm64: the arm64 root $TARBALL has no 16k kernel with an initramfs ($(ls "$ROOT/boot" | tr '\n' ' '))"; exit 1; }
if [[ $(od -An -N2 -tx1 "$ROOT/boot/vmlinuz-$KREL" | tr -d ' ') == 1f8b ]]; then
        gzip -dc "$ROOT/boot/vmlinuz-$KREL" >"$TMP/Image"
else
        cp "$ROOT/boot/vmlinuz-$KREL" "$TMP/Image"
fi
cp "$ROOT/boot/initrd.img-$KREL" "$TMP/initrd.img"
KERNEL=$TMP/Image
if [[ -n $DEB ]]; then
        install -m 0644 "$DEB" "$ROOT/root/nodeswap.deb"
else
        meson install -C "$MESON_BUILD" --destdir "$ROOT" --no-rebuild --quiet >>"$TMP/meson.log" 2>&1 || {
                tail -n 30 "$TMP/meson.log"; echo "FAIL arm64: meson install failed"; exit 1; }
fi
install -D -m 0755 "$HERE/guest/checks.sh" "$ROOT/usr/local/lib/nodeswap-arm64/checks.sh"
install -m 0644 "$HERE/guest/nodeswap-arm64-test.service" "$ROOT/etc/systemd/system/"
mkdir -p "$ROOT/etc/systemd/system/multi-user.target.wants"
ln -s /etc/systemd/system/nodeswap-arm64-test.service "$ROOT/etc/systemd/system/multi-user.target.wants/"
od -An -N16 -tx1 /dev/urandom | tr -d ' \n' >"$ROOT/etc/machine-id"
echo >>"$ROOT/etc/machine-id"
# A swap file as an amd64 machine makes it: 4 KiB pages (given explicitly, whatever this host
# uses), written with data all through, so that the image keeps it without holes.
install -d -m 0700 "$ROOT/var/lib/nodeswap"
head -c $((64 * 1024 * 1024)) /dev/urandom >"$ROOT/var/lib/nodeswap/swapfile"
chmod 0600 "$ROOT/var/lib/nodeswap/swapfile"
mkswap -q -p 4096 -L made-for-4k "$ROOT/var/lib/nodeswap/swapfile" >/dev/null

IMG=$TMP/disk.img
truncate -s 1G "$IMG"
mkfs.ext4 -q -F -L arm64-root -d "$ROOT" "$IMG"
rm -rf --one-file-system "$ROOT"
RESULTS=$TMP/results.img
truncate -s 4M "$RESULTS"
t_image=$(date +%s)
log "image ready in $(( t_image - t_build )) s"

# --- boot ----------------------------------------------------------------------------------------
# one of the machine's two VM slots, shared with the e2e's VMs (tests/lib/vm-slot.sh)
. "$HERE/../lib/vm-slot.sh"
vm_slot 8 1800 arm64 || { echo "FAIL arm64: waited 1800 s for a VM slot"; exit 1; }
SERIAL=$TMP/serial.log
t_boot=$(date +%s)
log "booting $KREL (timeout ${TIMEOUT}s): qemu-system-aarch64 -M virt -cpu max,pauth=off, no network"
# pauth=off: Debian's kernel (and its arm64 binaries) sign return addresses where the CPU has
# pointer authentication, and qemu emulates its QARMA algorithm slowly under TCG (qemu's arm CPU
# feature documentation); the Pi 5's Cortex-A76 has no pointer authentication either.
timeout -k 10 "$TIMEOUT" qemu-system-aarch64 \
        -nodefaults -M virt -cpu max,pauth=off -accel tcg,thread=multi -m 1024 -smp 2 \
        -kernel "$KERNEL" -initrd "$TMP/initrd.img" \
        -append "root=/dev/vda rw rootfstype=ext4 console=ttyAMA0 panic=-1 quiet systemd.show_status=error arm64.kernel=$KREL" \
        -drive file="$IMG",if=none,id=root,format=raw,cache=unsafe \
        -device virtio-blk-pci,drive=root,addr=0x4 \
        -drive file="$RESULTS",if=none,id=results,format=raw \
        -device virtio-blk-pci,drive=results,serial=arm64-results,addr=0x5 \
        -nic none -display none -monitor none -serial file:"$SERIAL" \
        -no-reboot -pidfile "$PIDFILE" </dev/null >"$TMP/qemu.log" 2>&1 &
QPID=$!
qrc=0
wait "$QPID" || qrc=$?
QPID=
t_end=$(date +%s)

tr -d '\0' <"$RESULTS" | sed -n '/^BEGIN$/,/^END$/p' >"$TMP/results.txt"
grep -v '^LOG ' "$TMP/results.txt" | grep -v '^BEGIN$\|^END$' || true
passed=$(grep -c '^PASS ' "$TMP/results.txt" || true)
failed=$(grep -c '^FAIL ' "$TMP/results.txt" || true)
finished=0
grep -qx END "$TMP/results.txt" && finished=1
if (( failed > 0 || finished == 0 )); then
        grep '^LOG ' "$TMP/results.txt" || true
        (( qrc == 124 )) && echo "FAIL arm64: the VM did not power off within ${TIMEOUT}s"
        (( finished == 0 )) && { echo "FAIL arm64: the checks did not finish (qemu exit $qrc)"; failed=$((failed + 1)); }
        echo "--- qemu:"; cat "$TMP/qemu.log"
        echo "--- the end of the serial console:"; tail -n 60 "$SERIAL"
fi
log "times: root (with its kernel) from cache $((t_cache - t_start))s, nodeswap for arm64 $((t_build - t_cache))s, image $((t_image - t_build))s, boot and checks $((t_end - t_boot))s"
echo "arm64: $passed passed, $failed failed"
(( failed == 0 ))
exit
}
