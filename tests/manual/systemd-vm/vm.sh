#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Manual check of src/probe/systemd.c and nodeswap-generator against a real systemd (Debian 12 VM).
# Not part of "meson test": it needs root, qemu and the VM root that tests/e2e/build-root.sh
# caches (used read-only here), and takes a few minutes under TCG.
#
# usage: vm.sh BUILD_DIR [E2E_GUEST_DIR]
#   E2E_GUEST_DIR: tests/e2e/guest (zram-generator.conf, rpi-zram-writeback.*, k3s-agent.service, k3s)
# It installs BUILD_DIR into the root with a stand-in /usr/local/sbin/nodeswap that only records
# its arguments, a zram policy, the smoke program (smoke.c) and three test units, boots once,
# and prints the results runner.sh wrote (PASS/FAIL/INFO lines and the generator checks).
set -euo pipefail
pgrep qemu-system-x8 >/dev/null && { echo "another qemu is running"; exit 1; }
D=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
BUILD=$(cd "${1:?usage: vm.sh BUILD_DIR [E2E_GUEST_DIR]}" && pwd)
SRC=$(cd "$D/../../.." && pwd)
E=${2:-$SRC/tests/e2e/guest}
TARBALL=$(ls -t "${E2E_CACHE_DIR:-/var/cache/nodeswap-e2e}"/root-*.tar | head -n 1)
T=$(mktemp -d /var/tmp/sdvm.XXXXXX)
trap 'rm -rf --one-file-system "$T"' EXIT
gcc -std=gnu11 -Wall -D_GNU_SOURCE -I"$SRC/src" "$D/smoke.c" "$BUILD/src/libnodeswap.a" -lsystemd -o "$T/sdsmoke"
R=$T/root; mkdir "$R"
tar --numeric-owner --xattrs --acls -C "$R" -xf "$TARBALL"
meson install -C "$BUILD" --destdir "$R" --no-rebuild --quiet
install -m 0644 "$E/zram-generator.conf" "$R/etc/systemd/zram-generator.conf"
install -m 0644 "$E/rpi-zram-writeback.service" "$E/rpi-zram-writeback.timer" "$R/lib/systemd/system/"
install -m 0644 "$E/k3s-agent.service" "$R/etc/systemd/system/"
install -m 0755 "$E/k3s" "$R/usr/local/bin/k3s"
install -D -m 0755 "$D/fake-nodeswap" "$R/usr/local/sbin/nodeswap"
install -D -m 0755 "$D/runner.sh" "$R/usr/local/lib/sdvm/runner.sh"
install -m 0755 "$T/sdsmoke" "$R/usr/local/bin/sdsmoke"
install -m 0644 "$D"/smoke-*.service "$R/lib/systemd/system/"
install -m 0644 "$D/smoke-ok.service" "$R/etc/systemd/system/smoke-etc.service"
install -m 0644 "$D/sdvm.service" "$R/etc/systemd/system/"
install -D -m 0644 "$SRC/tests/fixtures/generator/zram/root/etc/nodeswap/nodeswap.conf" "$R/etc/nodeswap/nodeswap.conf"
chroot "$R" systemctl enable k3s-agent.service rpi-zram-writeback.timer sdvm.service
od -An -N16 -tx1 /dev/urandom | tr -d ' \n' >"$R/etc/machine-id"; echo >>"$R/etc/machine-id"
cp "$(ls "$R"/boot/vmlinuz-* | sort -V | tail -n 1)" "$T/vmlinuz"
cp "$(ls "$R"/boot/initrd.img-* | sort -V | tail -n 1)" "$T/initrd.img"
truncate -s 1536M "$T/disk.img"; mkfs.ext4 -q -F -d "$R" "$T/disk.img"; rm -rf --one-file-system "$R"
truncate -s 1M "$T/results.img"
timeout -k 10 900 qemu-system-x86_64 -machine pc -accel tcg,thread=multi -m 2048 -smp 2 \
  -kernel "$T/vmlinuz" -initrd "$T/initrd.img" \
  -append "root=/dev/vda rw console=ttyS0,115200 quiet net.ifnames=0 panic=1 systemd.show_status=error" \
  -drive file="$T/disk.img",if=virtio,format=raw,cache=unsafe \
  -drive file="$T/results.img",if=virtio,format=raw \
  -nic user,model=virtio-net-pci,restrict=on -display none -monitor none -serial file:"$T/serial.log" -no-reboot </dev/null || echo "qemu rc=$?"
tr -d '\000' < "$T/results.img"
grep -q '^SMOKE OK' "$T/results.img"
