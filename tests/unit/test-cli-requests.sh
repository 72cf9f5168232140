#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The request each container needs (issue 26) through the built binary: status --pods (text and
# JSON), check's container-swap-fail and the density, on tests/fixtures/pods/allowance (a
# LimitedSwap node, 8 GiB of zram at 3:1, containers below, at and over their allowance, one with
# its request in memory.min) and tests/fixtures/pods/systemd (a kernel without memory.swap.peak
# and memory.swap.events: said to be missing, never 0), and tests/fixtures/pods/whole-pages
# (memory.swap.max in whole pages as the kernel keeps it, the e2e's real node). The expected figures are computed here
# from the kubelet's formula (calcSwapForBurstablePods: float64 request / MemTotal × SwapTotal,
# truncated), not taken from nodeswap.
# Usage: test-cli-requests.sh NODESWAP FIXTURES
set -uo pipefail
fx=$(readlink -f "${2:?usage: $0 NODESWAP FIXTURES}")
tmp=$(mktemp -d /tmp/nodeswap-cli-requests.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
chmod 0755 "$tmp"
. "$(dirname "$(readlink -f "$0")")/../lib/common.sh"
ns=$(under_test "$1" "$tmp") || exit 1
out=$tmp/out
r=$fx/pods/allowance
old=$fx/pods/systemd
limited=$(policy limited $'[Kubelet]\nSwapBehavior=LimitedSwap')


# The kubelet's arithmetic on this node (MemTotal 16608080 kB, SwapTotal 8388604 kB)
k() {
	/usr/bin/python3 -c '
import sys
mem, swap, Mi = 16608080 * 1024, 8388604 * 1024, 1 << 20
kswap = lambda req: int(float(req) / float(mem) * float(swap))
print(eval(sys.argv[1]))' "$1"
}

# pod ID EXPR: EXPR over the container p whose cgroup ends in ID.scope, in the JSON in $out
pod() { json "$out" "[(lambda p: $2)(p) for p in d['pods'] if p['cgroup'].endswith('$1.scope')][0]"; }

run 0 status --pods --json --root "$r" --config "$limited"
check "below: request 256Mi from memory.swap.max, its allowance, peak and events, no need" \
	[ "$(pod b1e10001 '(p["request"], p["request_source"], p["allowance"], p["allowance_state"], p["swap_peak"], p["swap_events"], p["needed"])')" = \
	  "(268435456, 'memory.swap.max', $(k 'kswap(256*Mi)'), 'below', 100663296, {'high': 0, 'max': 0, 'fail': 0}, None)" ]
check "memory.min: the request the kubelet kept there (768Mi)" \
	[ "$(pod 5e5e0004 '(p["request"], p["request_source"], p["memory_min"], p["allowance_state"])')" = "(805306368, 'memory.min', 805306368, 'below')" ]
check "at: hit its allowance (max 57): it needs more than its peak, which its request of 512Mi gives" \
	[ "$(pod a7a70002 '(p["request"], p["allowance_state"], p["needed"]["at_least"], p["needed"]["quantity"], p["needed"]["swap"])')" = \
	  "(536870912, 'at', True, '512Mi', $(k 'kswap(512*Mi)//4096*4096'))" ]
# over: resized from 1Gi to 384Mi in place, 500 MiB at its peak: the smallest whole Mi whose
# allowance covers 500 MiB
need=$(k 'next(m for m in range(1, 16219) if kswap(m*Mi) >= 500*Mi)')
check "over: request 384Mi, allowance under its 400 MiB in swap, needs ${need}Mi for its 500 MiB peak" \
	[ "$(pod 0fe70003 '(p["request"], p["allowance"], p["allowance_state"], p["needed"]["at_least"], p["needed"]["quantity"], p["needed"]["request"], p["needed"]["allowance"])')" = \
	  "(402653184, $(k 'kswap(384*Mi)'), 'over', False, '${need}Mi', $(k "$need*Mi"), $(k "kswap($need*Mi)"))" ]
check "density: the four allowances against 8 GiB of swap, 1 + swap/RAM, and at zram's 3:1" \
	[ "$(json "$out" '(d["density"]["containers"], d["density"]["allowances"], round(d["density"]["ceiling"], 4), round(d["density"]["zram_ratio"], 3), round(d["density"]["ceiling_zram"], 4))')" = \
	  "(4, $(k 'kswap(256*Mi)+kswap(512*Mi)+kswap(384*Mi)+kswap(768*Mi)'), $(k 'round(1 + swap/mem, 4)'), 3.0, $(k 'round(1 + swap*(1-489335467/1468006400)/mem, 4)'))" ]

run 0 status --pods --root "$r" --config "$limited"
has "^  512\.0 MiB +258\.6 MiB +255\.6 MiB +258\.6 MiB +0/57/57 +at +kubepods.*a7a70002\.scope\$"
has "^      hit its allowance 57 times: it needs a request above 512\.0 MiB; each 1Mi more gives"
has "^      for 500\.0 MiB of swap \(its peak\): request ${need}Mi, which gives .* and reserves ${need}\.0 MiB of the node's 15\.8 GiB at the scheduler \(\+$((need - 384))\.0 MiB\)\$"
has "^Density:  the allowances of 4 containers take .* of the node's 8\.0 GiB of swap"
has "pods hold at most 1\.51 × what fits in RAM alone \(1 \+ swap/RAM\); 1\.34 × with zram's pages in RAM at its 3\.00:1\$"

# --- allowance: the same density beside the answer for one container ------------------------------
run 0 allowance --json --root "$r" --config "$limited" --request 256Mi --limit 1Gi
check "allowance --json: the density of the running containers" \
	[ "$(json "$out" '(d["density"]["containers"], d["density"]["allowances"], round(d["density"]["ceiling"], 4))')" = \
	  "(4, $(k 'kswap(256*Mi)+kswap(512*Mi)+kswap(384*Mi)+kswap(768*Mi)'), $(k 'round(1 + swap/mem, 4)'))" ]
run 0 allowance --root "$r" --config "$limited" --request 256Mi --limit 1Gi
has "^Density:  the allowances of 4 containers take "
run 0 allowance -q --root "$r" --config "$limited" --request 256Mi --limit 1Gi
lacks '^Density'

# --- check: container-swap-fail for the container whose swap-outs failed, and only for it -------
run 0 check --json --root "$r" --config "$limited"
check "check: one container-swap-fail, a warning, naming a7a70002 and its 57 failed swap-outs" \
	[ "$(json "$out" '[(f["severity"], f["message"].split(":")[0].split("/")[-1], "57 swap-outs failed" in f["message"]) for f in d["findings"] if f["id"] == "container-swap-fail"]')" = \
	  "[('warning', 'cri-containerd-a7a70002.scope', True)]" ]
run 0 check --root "$old" --config "$limited"
lacks container-swap-fail

# --- a kernel without memory.swap.peak and memory.swap.events: missing, never 0 -----------------
run 0 status --pods --json --root "$old" --config "$limited"
check "old kernel: swap_peak and swap_events null" \
	[ "$(pod aaaa1111 '(p["swap_peak"], p["swap_events"], p["allowance_state"])')" = "(None, None, 'below')" ]
run 0 status --pods --root "$old" --config "$limited"
has "^  256\.0 MiB +258\.6 MiB +50\.0 MiB +missing +missing +below +kubepods"

# --- memory.swap.max in whole pages, as the kernel keeps it (tests/fixtures/pods/whole-pages) -----
# The e2e's real node (tests/e2e/README.md, "The real node"): MemTotal 2021408 kB, a 256M swap file
# (SwapTotal 262140 kB), 4 KiB pages; a Burstable container of 64Mi/128Mi, for which the real
# kubelet v1.36.3 asked for 8702803 bytes and the kernel keeps 8699904 (whole pages). The request
# behind it is 64Mi, not the 67086502 bytes whose allowance is exactly 8699904.
run 0 status --pods --json --root "$fx/pods/whole-pages" --config "$limited"
check "whole pages: request 64Mi from memory.swap.max 8699904 (the kubelet's 8702803 rounded down)" \
	[ "$(pod 6d4a91f0 '(p["request"], p["request_source"], p["allowance"], p["allowance_state"])')" = \
	  "(67108864, 'memory.swap.max', 8699904, 'below')" ]

[ "$fails" = 0 ]
