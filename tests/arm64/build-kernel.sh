#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Builds (once) the arm64 kernel with 16 KiB pages that the arm64 VM test boots, and prints the
# path of the cached Image. Source: Debian 12's linux-source-6.1 (/usr/src/linux-source-6.1.tar.xz),
# cross-compiled with crossbuild-essential-arm64 from `make tinyconfig` plus kernel.config.
# The cache key is a hash of kernel.config, RECIPE_VERSION and the linux-source-6.1 package
# version: change any and a new kernel is built; anything else reuses the cache. The build runs
# in a temporary directory next to the cache, under a lock, and the Image is renamed into place
# only when complete: an interrupted build leaves no half cache.
#
# usage: build-kernel.sh          prints the cached Image path (builds it when missing)
#        build-kernel.sh --key    prints the cache key only
# env:   ARM64_CACHE_DIR (default /var/cache/nodeswap-arm64), ARM64_KERNEL_JOBS (default 2)
# exit:  0 ok, 77 when it cannot be built here (no linux-source-6.1, no cross compiler), 1 error
set -euo pipefail

# Bump when anything below changes what ends up in the Image.
RECIPE_VERSION=1

HERE=$(cd "$(dirname "$0")" && pwd)
FRAGMENT=$HERE/kernel.config
CACHE_DIR=${ARM64_CACHE_DIR:-/var/cache/nodeswap-arm64}
SOURCE=/usr/src/linux-source-6.1.tar.xz
CROSS=aarch64-linux-gnu-
JOBS=${ARM64_KERNEL_JOBS:-2}

skip() { echo "SKIP: $*" >&2; exit 77; }
. "$HERE/../lib/vm-build.sh"

source_version() { dpkg-query -W -f '${Version}' linux-source-6.1 2>/dev/null; }

cache_key() {
        { printf 'recipe %s\nsource linux-source-6.1 %s\n' "$RECIPE_VERSION" "$(source_version)"
          cat "$FRAGMENT"; } | sha256sum | cut -c1-16
}

KEY=$(cache_key)
IMAGE=$CACHE_DIR/Image-$KEY

cache_lookup "$KEY" "$IMAGE" "$@"

[[ -r $SOURCE && -n $(source_version) ]] || skip "linux-source-6.1 is not installed ($SOURCE)"
command -v "${CROSS}gcc" >/dev/null || skip "${CROSS}gcc not installed (crossbuild-essential-arm64)"
for t in make bc flex bison xz; do
        command -v "$t" >/dev/null || skip "$t not installed (needed to build the kernel)"
done
[[ -w ${CACHE_DIR%/*} || -w $CACHE_DIR ]] || skip "cannot write $CACHE_DIR"

mkdir -p "$CACHE_DIR"
cache_wait "$CACHE_DIR/.kernel.lock" "$IMAGE"
remove_stale "$CACHE_DIR"/.kernel-*
WORK=$(mktemp -d "$CACHE_DIR/.kernel-$KEY.XXXXXX")
cleanup() {
        set +e
        stop_bg
        rm -rf --one-file-system "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

start=$(date +%s)
echo "Building the arm64 16 KiB-page kernel (key $KEY, linux-source-6.1 $(source_version)); this takes 10 to 30 minutes on 2 cores ..." >&2
run_bg tar -C "$WORK" -xJf "$SOURCE" || { echo "unpacking $SOURCE failed" >&2; exit 1; }
SRC=$WORK/linux-source-6.1
MAKE=(nice -n 10 make -C "$SRC" ARCH=arm64 CROSS_COMPILE="$CROSS" -j"$JOBS")

run_bg "${MAKE[@]}" tinyconfig >"$WORK/config.log" 2>&1 || { cat "$WORK/config.log" >&2; exit 1; }
run_bg env ARCH=arm64 CROSS_COMPILE="$CROSS" "$SRC/scripts/kconfig/merge_config.sh" -m -O "$SRC" \
        "$SRC/.config" "$FRAGMENT" >>"$WORK/config.log" 2>&1 || { cat "$WORK/config.log" >&2; exit 1; }
run_bg "${MAKE[@]}" olddefconfig >>"$WORK/config.log" 2>&1 || { cat "$WORK/config.log" >&2; exit 1; }
# Kconfig drops a symbol silently when a dependency is missing: every line must have survived.
missing=$(grep -E '^CONFIG_[A-Z0-9_]+=' "$FRAGMENT" | grep -vxF -f "$SRC/.config" || true)
if [[ -n $missing ]]; then
        printf 'these options of %s did not make it into the kernel configuration:\n%s\n' "$FRAGMENT" "$missing" >&2
        exit 1
fi

run_bg "${MAKE[@]}" Image >"$WORK/build.log" 2>&1 || {
        tail -n 60 "$WORK/build.log" >&2
        echo "kernel build failed (log above)" >&2
        exit 1
}
cp "$SRC/.config" "$WORK/config"
cp "$SRC/arch/arm64/boot/Image" "$WORK/Image"
sync -f "$WORK/Image" "$WORK/config"
mv -f "$WORK/config" "$CACHE_DIR/config-$KEY"       # for reference: what this Image was built from
mv -f "$WORK/Image" "$IMAGE"
echo "Built $IMAGE in $(( $(date +%s) - start )) s" >&2
echo "$IMAGE"
