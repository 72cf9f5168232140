#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# build-root.sh's customize hook (mmdebstrap runs it on this machine, with the arm64 root as $1):
# installs the arm64 kernel package $2 (release $3) into the root with the module index made by
# this machine's own depmod. Under qemu-user the kernel's postinst spent over three minutes in
# depmod (it reads every one of the 16k kernel's ~4000 xz-compressed modules, all emulated); the
# host's depmod (the same kmod 30 as the root's: both Debian 12) makes the same files natively
# in seconds. So: the package is downloaded with mmdebstrap's apt (natively, as mmdebstrap does),
# unpacked by the root's dpkg, indexed here, then configured by the root's dpkg with a depmod in
# /usr/local/sbin (first in dpkg's PATH) that lets the postinst's own "depmod RELEASE" through
# at once when the index is there, and hands every other call (mkinitramfs: depmod -b DIR) to
# the real one. The wrapper is removed afterwards; nothing of it stays in the root.
# Prints a "step NAME N s" line per step into $4 (build-root.sh prints them).
set -euo pipefail
root=$1 pkg=$2 release=$3 steps=$4
t() {   # t NAME CMD...: run CMD, record its seconds
        local name=$1 s rc=0
        shift
        s=$(date +%s)
        "$@" || rc=$?
        printf 'step   kernel %-26s %5d s  exit %d  (load %s)\n' "$name" "$(($(date +%s) - s))" "$rc" \
                "$(cut -d' ' -f1-3 /proc/loadavg)" >>"$steps"
        return "$rc"
}
download() { APT_CONFIG=$MMDEBSTRAP_APT_CONFIG apt-get install --download-only -y -q --no-install-recommends "$pkg"; }
t download download
deb=$(cd "$root" && ls var/cache/apt/archives/"${pkg}"_*.deb)
[[ $(wc -w <<<"$deb") == 1 ]] || { echo "install-kernel.sh: no single $pkg in $root/var/cache/apt/archives: $deb" >&2; exit 1; }
t unpack chroot "$root" dpkg --unpack "/$deb"
t depmod depmod -b "$root" "$release"
[[ -s $root/lib/modules/$release/modules.dep ]] || { echo "install-kernel.sh: depmod made no modules.dep" >&2; exit 1; }
mkdir -p "$root/usr/local/sbin"
[[ ! -e $root/usr/local/sbin/depmod ]] || { echo "install-kernel.sh: $root/usr/local/sbin/depmod exists" >&2; exit 1; }
cat >"$root/usr/local/sbin/depmod" <<WRAP
#!/bin/sh
# installing the kernel only (tests/arm64/install-kernel.sh): its index is made already
if [ "\$*" = "$release" ] && [ -s /lib/modules/$release/modules.dep ]; then exit 0; fi
exec /sbin/depmod "\$@"
WRAP
chmod 0755 "$root/usr/local/sbin/depmod"
rc=0
t configure chroot "$root" env PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
        dpkg --configure --pending || rc=$?
rm -f "$root/usr/local/sbin/depmod"
exit "$rc"
