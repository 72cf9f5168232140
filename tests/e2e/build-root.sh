#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Builds (once) the Debian 12 root file system the e2e VM boots, and prints the path of the
# cached tarball. The cache key is a hash of the package list and RECIPE_VERSION below: change
# either and a new root is built; anything else reuses the cache. The build is atomic: it
# happens in a temporary directory next to the cache and the tarball is renamed into place
# only when complete, so an interrupted build leaves no half cache.
#
# usage: build-root.sh            prints the cached tarball path (builds it when missing)
#        build-root.sh --key      prints the cache key only
# env:   E2E_CACHE_DIR  (default /var/cache/nodeswap-e2e)
#        E2E_MIRROR     (default: the bookworm mirror apt uses on this machine)
#        E2E_SECURITY_MIRROR (default: the bookworm-security mirror apt uses on this machine)
# exit:  0 ok, 77 when the root cannot be built here (not root, no debootstrap, no mirror, apt on
#        this machine does not know the 6.12 kernel), 1 error (with the step that failed)
#
# Two kernels: Debian 12's 6.1 (linux-image-amd64, from bookworm), the oldest kernel nodeswap
# supports, and Debian 12's 6.12 (linux-image-6.12.*+deb12-amd64-unsigned, from
# bookworm-security), the kernel Raspberry Pi OS runs; run-e2e.sh boots 6.12 for the scenarios and
# 6.1 for one boot. The 6.12 package is the newest one apt on this machine knows (apt-get update
# first); its name and version are part of the cache key.
#
# The kernels are installed after debootstrap, by the root's own apt, once the small initramfs
# (MODULES=list: virtio_pci, virtio_blk, ext4) is configured: each kernel's postinst makes its
# initramfs once, small. (With linux-image-amd64 in debootstrap's --include, 6.1's postinst made
# a MODULES=most initramfs during debootstrap, about 17 minutes on a loaded 2-core machine, which
# had to be made again.) Every step prints its seconds ("step NAME N s"), and the slowest
# maintainer scripts are listed from the root's dpkg.log.
set -euo pipefail
trap 'echo "build-root.sh: the e2e VM root failed at line $LINENO (exit $?): $BASH_COMMAND" >&2' ERR

# Bump when anything below changes what ends up in the root (configuration, initramfs, ...).
# 7: gcc and libc6-dev, for scenario trial's compile workload (issue 27).
# 8: the real node's runtime (containerd, runc, the CNI plugins, busybox-static for images built
#    offline) and dm-crypt's user space (libcryptsetup12, dmsetup with its udev rules), for the
#    real-kubelet and encrypted-swap issues (36, 37); containerd is installed disabled.
RECIPE_VERSION=8

PACKAGES=(
        systemd systemd-sysv udev dbus initramfs-tools kmod
        systemd-zram-generator openssh-server python3 iproute2 util-linux procps e2fsprogs
        # runtime libraries of nodeswap (libsystemd0, libmount1, libblkid1 come with the above)
        libinih1 libjson-c5 libyaml-0-2
        # Ansible's apt module (the role installs nodeswap's .deb with it) imports python3-apt on
        # the node; without it the module would try to apt-get it, and the VM has no network
        python3-apt
        # scenario trial (issue 27) runs a workload "that compiles a few files" under nodeswap
        # trial: gcc -O2 -c on generated C files in the guest
        gcc libc6-dev
        # the real node (issue 36): Debian's containerd and runc run the real kubelet's pods, the
        # CNI plugins make containerd report the network ready (a bridge/host-local conflist),
        # and busybox-static is what the offline images are built from (no image pulls)
        containerd runc containernetworking-plugins busybox-static
        # encrypted swap (issue 37): nodeswap links libcryptsetup; dmsetup brings the udev rules
        # without which activating a dm-crypt mapping waits on udev, and the tests' dmsetup table
        libcryptsetup12 dmsetup
)
# Installed after debootstrap (with the 6.12 kernel below), once the initramfs is configured.
KERNEL_PACKAGES=(linux-image-amd64)

CACHE_DIR=${E2E_CACHE_DIR:-/var/cache/nodeswap-e2e}
SUITE=bookworm
# The kernel Raspberry Pi OS runs, from Debian 12's security archive: the newest apt knows.
KERNEL_612_PATTERN='^linux-image-6\.12\.[0-9]+\+deb12-amd64-unsigned$'

skip() { echo "SKIP: $*" >&2; exit 77; }

. "$(dirname "$(readlink -f "$0")")/../lib/vm-build.sh"

KERNEL_612=$(newest_package "$KERNEL_612_PATTERN" amd64) ||
        skip "apt on this machine knows no linux-image-6.12.*+deb12-amd64-unsigned (bookworm-security in /etc/apt/sources.list*, then apt-get update)"
cache_key() {
        printf 'recipe %s\nsuite %s\n%s\n%s\nkernel %s\n' "$RECIPE_VERSION" "$SUITE" "${PACKAGES[*]}" \
                "${KERNEL_PACKAGES[*]}" "$KERNEL_612" |
                sha256sum | cut -c1-16
}
KEY=$(cache_key)
TARBALL=$CACHE_DIR/root-$KEY.tar

cache_lookup "$KEY" "$TARBALL" "$@"

[[ $(id -u) == 0 ]] || skip "building the VM root needs root"
command -v debootstrap >/dev/null || skip "debootstrap not installed"
MIRROR=${E2E_MIRROR:-$(find_mirror || true)}
[[ -n $MIRROR ]] || skip "no $SUITE mirror found in /etc/apt/sources.list* (set E2E_MIRROR)"
mirror_reachable "$MIRROR" || skip "mirror $MIRROR cannot be reached for the first build of the VM root"
SECURITY_MIRROR=${E2E_SECURITY_MIRROR:-$(SUITE=$SUITE-security find_mirror || true)}
[[ -n $SECURITY_MIRROR ]] ||
        skip "no $SUITE-security mirror found in /etc/apt/sources.list* (set E2E_SECURITY_MIRROR); the 6.12 kernel comes from there"
SUITE=$SUITE-security mirror_reachable "$SECURITY_MIRROR" ||
        skip "mirror $SECURITY_MIRROR ($SUITE-security) cannot be reached for the first build of the VM root"

mkdir -p "$CACHE_DIR"
cache_wait "$CACHE_DIR/.lock" "$TARBALL"
remove_stale "$CACHE_DIR"/.build-*

WORK=$(mktemp -d "$CACHE_DIR/.build-$KEY.XXXXXX")
ROOT=$WORK/root

# Long steps run in the background and are waited for: bash runs a trap only between commands,
# so a TERM (meson's timeout, Ctrl-C) would otherwise wait for debootstrap to finish.
CHILD=
run() {
        local rc=0
        "$@" &
        CHILD=$!
        wait "$CHILD" || rc=$?
        CHILD=
        return "$rc"
}
# Stop a process we started and everything it started (dpkg, chroot, ...), children first.
kill_tree() {
        local c
        kill -STOP "$1" 2>/dev/null || true
        for c in $(pgrep -P "$1"); do kill_tree "$c"; done
        kill -TERM "$1" 2>/dev/null || true
        kill -CONT "$1" 2>/dev/null || true
}

cleanup() {
        set +e
        if [[ -n $CHILD ]]; then
                kill_tree "$CHILD"
                local st
                for _ in $(seq 100); do         # up to 20 s until it is gone or a zombie
                        st=$(sed 's/.*) //' "/proc/$CHILD/stat" 2>/dev/null | cut -d' ' -f1)
                        [[ -n $st && $st != Z ]] || break
                        sleep 0.2
                done
                kill -KILL "$CHILD" 2>/dev/null
                wait "$CHILD" 2>/dev/null
        fi
        # debootstrap and update-initramfs mount things inside the root: never rm -rf through them
        umount_under "$WORK"
        rm -rf --one-file-system "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

start=$(date +%s)
echo "Building the e2e VM root ($SUITE, key $KEY, ${KERNEL_612% *} ${KERNEL_612#* }) from $MIRROR and $SECURITY_MIRROR; this takes a few minutes ..." >&2

include=$(IFS=,; echo "${PACKAGES[*]}")
step debootstrap run debootstrap --variant=minbase --include="$include" "$SUITE" "$ROOT" "$MIRROR" \
        >"$WORK/debootstrap.log" 2>&1 || {
        tail -n 40 "$WORK/debootstrap.log" >&2
        echo "debootstrap failed (log above)" >&2
        exit 1
}

# Small initramfs: only what is needed to mount /dev/vda (faster to load under emulation). Set
# before the kernels are installed: each kernel's postinst makes its initramfs with this, once.
sed -i 's/^MODULES=.*/MODULES=list/' "$ROOT/etc/initramfs-tools/initramfs.conf"
printf 'virtio_pci\nvirtio_blk\next4\n' >>"$ROOT/etc/initramfs-tools/modules"
mount -t proc proc "$ROOT/proc"

# Both kernels, 6.1 from bookworm and 6.12 from bookworm-security (debootstrap takes one suite),
# with the chroot's apt and the resolver debootstrap copied in; both are emptied below.
printf 'deb %s %s main\ndeb %s %s-security main\n' "$MIRROR" "$SUITE" "$SECURITY_MIRROR" "$SUITE" >"$ROOT/etc/apt/sources.list"
step apt-update run chroot "$ROOT" apt-get update -q >"$WORK/kernel.log" 2>&1 &&
        step kernels run chroot "$ROOT" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
                "${KERNEL_PACKAGES[@]}" "${KERNEL_612% *}" >>"$WORK/kernel.log" 2>&1 || {
        tail -n 40 "$WORK/kernel.log" >&2
        echo "installing ${KERNEL_PACKAGES[*]} and ${KERNEL_612% *} from $MIRROR and $SECURITY_MIRROR failed (log above)" >&2
        exit 1
}
grep -h '^update-initramfs: Generating' "$WORK/kernel.log" | sed 's/^/  /' >&2 || true
umount "$ROOT/proc"
dpkg_times "$ROOT/var/log/dpkg.log"

# --- configuration that every run shares -------------------------------------------------
echo nodeswap-e2e >"$ROOT/etc/hostname"
printf '127.0.0.1 localhost\n127.0.1.1 nodeswap-e2e\n' >"$ROOT/etc/hosts"
printf 'LABEL=e2e-root / ext4 rw,errors=remount-ro 0 1\n' >"$ROOT/etc/fstab"
# The guest must never reach out: no apt sources, no time sync, no resolver.
: >"$ROOT/etc/apt/sources.list"
: >"$ROOT/etc/resolv.conf"

# A static address on the user-mode NIC, so the host's port forward reaches sshd.
mkdir -p "$ROOT/etc/systemd/network"
cat >"$ROOT/etc/systemd/network/10-e2e.network" <<'NET'
[Match]
Name=eth0 en*

[Network]
Address=10.0.2.15/24
Gateway=10.0.2.2
LinkLocalAddressing=no
IPv6AcceptRA=no
NET
chroot "$ROOT" systemctl enable systemd-networkd.service >/dev/null 2>&1
chroot "$ROOT" systemctl enable ssh.service >/dev/null 2>&1 || true
# containerd runs only where a scenario starts it (k3s's shape runs it inside k3s-agent.service,
# as k3s does; kubeadm's enables containerd.service): the other scenarios' guest stays as it was
chroot "$ROOT" systemctl disable containerd.service >/dev/null 2>&1 || true

# Key-based root login only (the key is made per run and put in by run-e2e.sh).
mkdir -p "$ROOT/etc/ssh/sshd_config.d"
cat >"$ROOT/etc/ssh/sshd_config.d/10-e2e.conf" <<'SSH'
PermitRootLogin prohibit-password
PasswordAuthentication no
UseDNS no
SSH

# machine-id is written per run; an empty one here means "first boot" semantics we do not want.
: >"$ROOT/etc/machine-id"
chroot "$ROOT" apt-get clean
rm -rf "$ROOT"/var/lib/apt/lists/* "$ROOT"/var/cache/apt/*.bin

# both kernels, each with its initramfs: 6.1 (the oldest supported) and 6.12
release_612=${KERNEL_612% *}
release_612=${release_612#linux-image-}
for v in "6.1.*-amd64" "${release_612%-unsigned}"; do
        compgen -G "$ROOT/boot/vmlinuz-$v" >/dev/null && compgen -G "$ROOT/boot/initrd.img-$v" >/dev/null || {
                echo "the root lacks the kernel or initramfs $v: $(ls "$ROOT/boot")" >&2
                exit 1
        }
done
# the small initramfs, not MODULES=most (that one is several times the size)
ls -l "$ROOT"/boot/initrd.img-* | sed 's/^/  /' >&2

step tar run tar --numeric-owner --xattrs --acls -C "$ROOT" -cf "$WORK/root.tar" .
step sync sync -f "$WORK/root.tar"
mv -f "$WORK/root.tar" "$TARBALL"
step_total "e2e root"
echo "Built $TARBALL in $(( $(date +%s) - start )) s" >&2
echo "$TARBALL"
