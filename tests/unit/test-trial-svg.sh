#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# nodeswap trial --svg (issue 39): the charts of a --limits trial, a --find-floor trial, a density
# trial, --compare and --compare of density trials (trial-svg-render, from tests/fixtures/trial), and --compare --svg through
# the binary, rendered with a real renderer, Debian's rsvg-convert (librsvg2-bin, in the README's
# setup command): each renders at the size it declares, its axis labels carry their units and
# its legend names every series.
# Usage: test-trial-svg.sh RENDER NODESWAP FIXTURES
set -uo pipefail

render=$1 fx=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$(dirname "$(readlink -f "$0")")/../lib/common.sh"
ns=$(under_test "$2" "$tmp") || exit 1
if ! command -v rsvg-convert >/dev/null; then
	echo "rsvg-convert is not installed (apt-get install librsvg2-bin: the README's setup command)"
	[ "${CI:-}" = true ] && exit 1
	exit 77
fi

"$render" "$fx" "$tmp" >"$tmp/sizes" || { echo "FAIL: trial-svg-render"; exit 1; }
"$ns" trial --compare --root "$fx/trial/root" --svg "$tmp/cli-compare.svg" -- make -j4 Image >"$tmp/out" 2>&1
check "trial --compare --svg exits 0 and says so" grep -q "^Drew $tmp/cli-compare.svg" "$tmp/out"
check "--svg writes the same chart as trial_compare_svg()" cmp -s "$tmp/cli-compare.svg" "$tmp/compare.svg"
# the chart is created 0600 (a trial's chart can say what runs on the node), and a symlink at FILE
# is replaced, never written through
check "--svg creates the chart 0600" [ "$(stat -c %a "$tmp/cli-compare.svg")" = 600 ]
echo "precious" >"$tmp/target"
chmod 644 "$tmp/target"
ln -s "$tmp/target" "$tmp/link.svg"
"$ns" trial --compare --root "$fx/trial/root" --svg "$tmp/link.svg" -- make -j4 Image >"$tmp/out" 2>&1
check "--svg FILE, a symlink: the file it points to is untouched" eval '[ "$(cat "$tmp/target")" = precious ] && [ "$(stat -c %a "$tmp/target")" = 644 ]'
check "--svg FILE, a symlink: FILE is now the chart, a regular file 0600" \
	eval '[ ! -L "$tmp/link.svg" ] && [ -f "$tmp/link.svg" ] && [ "$(stat -c %a "$tmp/link.svg")" = 600 ] && cmp -s "$tmp/link.svg" "$tmp/compare.svg"'

# png_size FILE: the width and height in a PNG's IHDR chunk (bytes 16-23, big-endian)
png_size() { od -An -tu1 -j16 -N8 "$1" | awk '{ printf "%d %d\n", (($1 * 256 + $2) * 256 + $3) * 256 + $4, (($5 * 256 + $6) * 256 + $7) * 256 + $8 }'; }
# texts FILE: every <text> element's content, one a line
texts() { python3 -c 'import sys, xml.etree.ElementTree as E; [print("".join(e.itertext())) for e in E.parse(sys.argv[1]).iter("{http://www.w3.org/2000/svg}text")]' "$1"; }

while read -r name w h; do
	svg=$tmp/$name.svg
	check "$name: declares $w x $h" grep -q "width=\"$w\" height=\"$h\"" "$svg"
	check "$name: rsvg-convert renders it" rsvg-convert -o "$tmp/$name.png" "$svg"
	check "$name: the PNG is $w x $h" [ "$(png_size "$tmp/$name.png")" = "$w $h" ]
	check "$name: self-contained (no href, no script)" not grep -Eqi 'href|<script|<image' "$svg"
	texts "$svg" >"$tmp/$name.txt"
	case $name in
	density) labels=("replicas (count)" "settle time (s)" "full stall (% of the hold)")
	         legend=("replicas without swap" "replicas with swap") ;;
	density-compare) labels=("replicas (count)" "settle time (s)")
	         legend=("replicas without swap" "replicas with swap") ;;
	compare) labels=("memory limit (MiB)" "wall time (s)")
	         legend=("without swap" "with swap (MemorySwapMax= the allowance)") ;;
	*)       labels=("memory limit (MiB)" "wall time (s)" "swapped out (MiB)")
	         legend=("without swap" "with swap (MemorySwapMax= the allowance)") ;;
	esac
	for l in "${labels[@]}"; do check "$name: an axis labelled '$l'" grep -qxF "$l" "$tmp/$name.txt"; done
	for l in "${legend[@]}"; do check "$name: the legend names '$l'" grep -qxF "$l" "$tmp/$name.txt"; done
	check "$name: the legend says what the markers mean" grep -qF "gave out" "$tmp/$name.txt"
done <"$tmp/sizes"
check "five charts" [ "$(wc -l <"$tmp/sizes")" = 5 ]
check "density: a point that gave out is labelled with what gave out" grep -qx oom "$tmp/density.txt"
check "compare: one panel a trial, backend in its title" \
	eval 'grep -qx "20261201T100000Z: zram lz4" "$tmp/compare.txt" && grep -qx "20261201T120000Z: file" "$tmp/compare.txt"'
check "density-compare: one panel a backend, with its densities, the other command's trial left out" \
	eval 'grep -qx "20261203T200400Z: zram zstd, 9 / 16 replicas" "$tmp/density-compare.txt" &&
	      grep -qx "20261203T200900Z: file, 6 / 9 replicas" "$tmp/density-compare.txt" &&
	      ! grep -q 20261203T200600Z "$tmp/density-compare.txt"'
check "density-compare: two panels side by side (twice a panel's width)" grep -q '^density-compare 960 ' "$tmp/sizes"

# --compare --svg through the binary: the density chart when the command's latest trial is a density
# trial, created 0600 as the other charts
dn=$fx/trial/density
"$ns" trial --compare --root "$dn" --svg "$tmp/cli-density.svg" -- replica idle 40 >"$tmp/out" 2>&1
check "trial --compare --svg of density records exits 0 and says so" grep -q "^Drew $tmp/cli-density.svg" "$tmp/out"
check "--svg writes the same chart as trial_density_compare_svg()" cmp -s "$tmp/cli-density.svg" "$tmp/density-compare.svg"
check "--svg creates the density chart 0600" [ "$(stat -c %a "$tmp/cli-density.svg")" = 600 ]
# a root with both kinds: the chart follows the latest trial of the command
mkdir -p "$tmp/mixed/var/lib/nodeswap/trials"
cp "$fx"/trial/root/var/lib/nodeswap/trials/*.json "$dn"/var/lib/nodeswap/trials/*.json "$tmp/mixed/var/lib/nodeswap/trials/"
"$ns" trial --compare --root "$tmp/mixed" --svg "$tmp/mixed.svg" >"$tmp/out" 2>&1
check "mixed records, no COMMAND: the latest trial is a density trial (the idle replicas on the file), so their density chart" \
	eval 'cmp -s "$tmp/mixed.svg" "$tmp/density-compare.svg"'
"$ns" trial --compare --root "$tmp/mixed" --svg "$tmp/mixed-make.svg" -- make -j4 Image >"$tmp/out" 2>&1
check "mixed records, -- make: the runs chart" cmp -s "$tmp/mixed-make.svg" "$tmp/compare.svg"

# the pictures for a person to look at (NODESWAP_SVG_KEEP=DIR)
[ -n "${NODESWAP_SVG_KEEP:-}" ] && cp "$tmp"/*.png "$tmp"/*.svg "$NODESWAP_SVG_KEEP"/
[ "$fails" = 0 ]
