#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Builds (once) the Debian 12 arm64 root file system that the arm64 VM test boots, with its
# kernel, and prints the path of the cached tarball. mmdebstrap --arch=arm64 installs it, running
# the arm64 maintainer scripts under qemu-user through binfmt_misc. Minimal: systemd, udev,
# util-linux, kmod, nodeswap's runtime libraries, and Debian 12's prebuilt kernel with 16 KiB
# pages (linux-image-6.12.*+deb12-arm64-16k-unsigned from bookworm-security, the newest apt on
# this machine knows) with its modules and a small initramfs (virtio-blk and ext4, which are
# modules there; made by the kernel's postinst with initramfs-tools, once). The kernel is
# installed last, by install-kernel.sh in a customize hook, with its module index made by this
# machine's depmod (natively; under qemu-user the postinst's depmod took minutes), after every
# other package's trigger has run (with the kernel among them, the initramfs trigger of udev, kmod
# and klibc made the initramfs a second time). Every phase prints its seconds. run-vm.sh boots
# /boot/vmlinuz-* and /boot/initrd.img-* from the tarball. The cache key is a hash of the package
# list, the suite, the kernel package's name and version and RECIPE_VERSION; the build runs in a
# temporary directory next to the cache, under a lock, and the tarball is renamed into place only
# when complete.
#
# usage: build-root.sh          prints the cached tarball path (builds it when missing)
#        build-root.sh --key    prints the cache key only
# env:   ARM64_CACHE_DIR (default /var/cache/nodeswap-arm64)
#        E2E_MIRROR      (default: the bookworm mirror apt uses on this machine)
#        E2E_SECURITY_MIRROR (default: the bookworm-security mirror apt uses on this machine)
# exit:  0 ok, 77 when it cannot be built here (not root, no mmdebstrap, arch-test or depmod, no aarch64
#        binfmt handler, no mirror, apt here knows no arm64 16k kernel: dpkg --add-architecture
#        arm64 and apt-get update), 1 error (with the step that failed)
set -euo pipefail
trap 'echo "build-root.sh: the arm64 VM root failed at line $LINENO (exit $?): $BASH_COMMAND" >&2' ERR

# Bump when anything below changes what ends up in the root.
# 4: libcryptsetup12 and dmsetup, for swap through a dm-crypt mapping with 16 KiB pages (issue 37).
RECIPE_VERSION=4

PACKAGES=(
        systemd systemd-sysv udev util-linux mount kmod
        # nodeswap's runtime libraries (libsystemd0, libmount1, libblkid1 come with the above)
        libinih1 libjson-c5 libyaml-0-2
        # encrypted swap (issue 37): nodeswap links libcryptsetup; dmsetup's udev rules let a
        # dm-crypt mapping's activation finish without waiting on udev
        libcryptsetup12 dmsetup
        # the kernel's initramfs and its Pre-Depends (the kernel package itself is KERNEL below,
        # installed by install-kernel.sh after these)
        initramfs-tools linux-base
)
# The kernel: Debian 12's 16 KiB-page arm64 kernel (like the Raspberry Pi 5's), the newest apt knows.
KERNEL_PATTERN='^linux-image-6\.12\.[0-9]+\+deb12-arm64-16k-unsigned$'

CACHE_DIR=${ARM64_CACHE_DIR:-/var/cache/nodeswap-arm64}
SUITE=bookworm
HERE=$(dirname "$(readlink -f "$0")")
. "$HERE/../lib/vm-build.sh"
skip() { echo "SKIP: $*" >&2; exit 77; }

KERNEL=$(newest_package "$KERNEL_PATTERN" arm64) ||
        skip "apt on this machine knows no linux-image-6.12.*+deb12-arm64-16k-unsigned (dpkg --add-architecture arm64, bookworm-security in /etc/apt/sources.list*, apt-get update)"
cache_key() {
        printf 'recipe %s\nsuite %s\narch arm64\n%s\nkernel %s\n' "$RECIPE_VERSION" "$SUITE" "${PACKAGES[*]}" "$KERNEL" |
                sha256sum | cut -c1-16
}

KEY=$(cache_key)
TARBALL=$CACHE_DIR/root-$KEY.tar

cache_lookup "$KEY" "$TARBALL" "$@"

[[ $(id -u) == 0 ]] || skip "building the arm64 VM root needs root"
command -v mmdebstrap >/dev/null || skip "mmdebstrap not installed"
command -v arch-test >/dev/null || skip "arch-test not installed (mmdebstrap needs it for a foreign architecture)"
command -v depmod >/dev/null || skip "depmod not installed (kmod; install-kernel.sh indexes the kernel's modules with it)"
[[ $(cat /proc/sys/fs/binfmt_misc/qemu-aarch64 2>/dev/null | head -n1) == enabled ]] ||
        skip "no aarch64 binfmt_misc handler (qemu-user-static; see tests/arm64/binfmt.sh)"
MIRROR=${E2E_MIRROR:-$(find_mirror || true)}
[[ -n $MIRROR ]] || skip "no $SUITE mirror found in /etc/apt/sources.list* (set E2E_MIRROR)"
mirror_reachable "$MIRROR" || skip "mirror $MIRROR cannot be reached for the first build of the arm64 root"
SECURITY_MIRROR=${E2E_SECURITY_MIRROR:-$(SUITE=$SUITE-security find_mirror || true)}
[[ -n $SECURITY_MIRROR ]] ||
        skip "no $SUITE-security mirror found in /etc/apt/sources.list* (set E2E_SECURITY_MIRROR); the kernel comes from there"
SUITE=$SUITE-security mirror_reachable "$SECURITY_MIRROR" ||
        skip "mirror $SECURITY_MIRROR ($SUITE-security) cannot be reached for the first build of the arm64 root"

mkdir -p "$CACHE_DIR"
cache_wait "$CACHE_DIR/.root.lock" "$TARBALL"
remove_stale "$CACHE_DIR"/.root-*
WORK=$(mktemp -d "$CACHE_DIR/.root-$KEY.XXXXXX")
ROOT=$WORK/root
cleanup() {
        set +e
        stop_bg
        umount_under "$WORK"    # mmdebstrap mounts /proc, /sys, /dev inside the root
        rm -rf --one-file-system "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

start=$(date +%s)
echo "Building the arm64 VM root ($SUITE, key $KEY, $KERNEL) from $MIRROR and $SECURITY_MIRROR; this takes a few minutes ..." >&2

# The initramfs, set up before initramfs-tools and the kernel are installed (the kernel's postinst
# makes it): only the modules that mount the root (virtio-pci is built in), gzip (the arm64
# maintainer scripts run under qemu-user: the smaller the work, the better).
mkdir -p "$WORK/initramfs/conf.d" "$WORK/initramfs/hooks"
printf 'MODULES=list\nCOMPRESS=gzip\n' >"$WORK/initramfs/conf.d/nodeswap-vm.conf"
cat >"$WORK/initramfs/hooks/nodeswap-vm" <<'HOOK'
#!/bin/sh
# nodeswap's arm64 VM: the root is ext4 on virtio-blk, both modules in Debian's kernel
case $1 in prereqs) exit 0 ;; esac
. /usr/share/initramfs-tools/hook-functions
force_load virtio_blk
force_load ext4
HOOK
chmod 0755 "$WORK/initramfs/hooks/nodeswap-vm"

include=$(IFS=,; echo "${PACKAGES[*]}")
release=${KERNEL% *}
release=${release#linux-image-}
release=${release%-unsigned}
# mmdebstrap is one command: its hooks write the time each of its phases ended into $MARKS, and
# the step lines below are made from them (setup, then apt update + download + extraction of
# the essential packages, their installation under qemu-user, the other packages' download and
# installation, the kernel's postinst and initramfs among them).
MARKS=$WORK/marks
mark() { printf -- '--%s-hook=echo %s $(date +%%s) >>%s' "$1" "$1" "$MARKS"; }
date +%s >"$MARKS"
step mmdebstrap run_bg mmdebstrap --mode=root --arch=arm64 --variant=minbase --include="$include" \
        "$(mark setup)" "$(mark extract)" \
        --essential-hook="mkdir -p \"\$1/etc/initramfs-tools\" && cp -a '$WORK/initramfs/.' \"\$1/etc/initramfs-tools/\"" \
        "$(mark essential)" "$(mark customize)" \
        --customize-hook="'$HERE/install-kernel.sh' \"\$1\" '${KERNEL% *}' '$release' '$WORK/kernel-steps'" \
        --customize-hook="cp \"\$1/var/log/dpkg.log\" '$WORK/dpkg.log' || true" \
        "$SUITE" "$ROOT" "deb $MIRROR $SUITE main" "deb $SECURITY_MIRROR $SUITE-security main" \
        >"$WORK/mmdebstrap.log" 2>&1 || {
        tail -n 40 "$WORK/mmdebstrap.log" >&2
        echo "mmdebstrap failed (log above)" >&2
        exit 1
}
# the phases: from one mark to the next (mmdebstrap's cleanup after the last)
prev=$(head -n 1 "$MARKS")
declare -A phase_name=([setup]="setup" [extract]="update+download+extract" [essential]="essential (dpkg)"
        [customize]="include (apt)")
while read -r what t; do
        printf 'step   mmdebstrap %-24s %5d s\n' "${phase_name[$what]:-$what}" "$((t - prev))" >&2
        prev=$t
done < <(tail -n +2 "$MARKS")
cat "$WORK/kernel-steps" >&2 2>/dev/null || true
dpkg_times "$WORK/dpkg.log" 10    # mmdebstrap removes the root's own at its end
grep -h 'update-initramfs: Generating' "$WORK/mmdebstrap.log" | sed 's/^/  /' >&2 || true
for f in vmlinuz initrd.img; do
        [[ -s $ROOT/boot/$f-$release ]] || {
                tail -n 40 "$WORK/mmdebstrap.log" >&2
                echo "the arm64 root has no /boot/$f-$release (mmdebstrap log above; /boot: $(ls "$ROOT/boot"))" >&2
                exit 1
        }
done

# --- configuration that every run shares -------------------------------------------------
echo nodeswap-arm64 >"$ROOT/etc/hostname"
printf '127.0.0.1 localhost\n127.0.1.1 nodeswap-arm64\n' >"$ROOT/etc/hosts"
# The kernel mounts the root (root=/dev/vda rw); no fsck (passno 0): nothing to check in a fresh image.
printf '/dev/vda / ext4 rw,errors=remount-ro 0 0\n' >"$ROOT/etc/fstab"
# The guest never reaches out: no apt sources, no resolver.
: >"$ROOT/etc/apt/sources.list"
rm -f "$ROOT"/etc/apt/sources.list.d/*
: >"$ROOT/etc/resolv.conf"
# machine-id is written per run.
: >"$ROOT/etc/machine-id"
rm -rf "$ROOT"/var/lib/apt/lists/* "$ROOT"/var/cache/apt/*.bin "$ROOT"/var/cache/apt/archives/*.deb
test -x "$ROOT/lib/systemd/systemd"

step tar run_bg tar --numeric-owner --xattrs --acls -C "$ROOT" -cf "$WORK/root.tar" .
step sync sync -f "$WORK/root.tar"
mv -f "$WORK/root.tar" "$TARBALL"
step_total "arm64 root"
echo "Built $TARBALL in $(( $(date +%s) - start )) s" >&2
echo "$TARBALL"
