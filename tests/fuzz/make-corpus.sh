#!/usr/bin/env bash
# Regenerate the seed corpus from the policies the project already has: conf/ (the commented
# default and the examples), the policies in the fixture trees, the hostile policies, and
# combinations of a main file with drop-ins (separated by a "#--- dropin" line, as fuzz-policy
# splits them). The size corpus holds one file per expression, its first byte picking the machine.
#   make-corpus.sh SRC_DIR
set -euo pipefail
SRC=$(readlink -f "${1:?usage: $0 SRC_DIR}")
out=$SRC/tests/fuzz/corpus
rm -rf "$out/policy" "$out/size" "$out/kubelet"
mkdir -p "$out/policy" "$out/size" "$out/kubelet"

i=0
add() { cp "$1" "$out/policy/$(printf '%03d' $i)-$(basename "$1")"; i=$((i + 1)); }
for f in "$SRC"/conf/nodeswap.conf "$SRC"/conf/examples/*.conf "$SRC"/tests/policies/hostile/*.conf; do
	[ -f "$f" ] && add "$f"
done
while IFS= read -r f; do add "$f"; done < <(find "$SRC/tests/fixtures" -path '*nodeswap*' -name '*.conf' \
	! -path '*kubelet.conf.d*' -type f | sort)

# main file + drop-ins: a later drop-in overriding, emptying and breaking what came before
ex=$SRC/conf/examples
{ cat "$ex/zram-plus-file.conf"; echo '#--- dropin'; printf '[Zram]\nSize=2G\nPriority=5\n'; echo '#--- dropin'
  printf '[Conflicts]\nUnits=\nUnits=zramswap.service\n'; } >"$out/policy/900-main-and-dropins.conf"
{ cat "$ex/nvme-file.conf"; echo '#--- dropin'; printf '[Swap]\nBackend=zram file\n[File]\nPriority=100\n'; } \
	>"$out/policy/901-dropin-equal-priority.conf"
{ printf '[Swap]\nBackend=zram\n'; echo '#--- dropin'; printf '[Zram]\nMemLimit=ram\n'; echo '#--- dropin'
  printf '[Zram]\nSize=min(ram / 4, 2G)\n[Sysctl]\nSwappiness=180\nPageCluster=0\n'; } >"$out/policy/902-memlimit.conf"
{ printf '\xef\xbb\xbf[Swap]\r\nBackend=file\r\n[File]\r\nPath=/srv//swap/./node.swap\r\nSize=25%%\r\n'
  echo '#--- dropin'; printf '[Kubelet]\nSwapBehavior=LimitedSwap\nDropIn=/etc/kubelet.conf.d/99-swap.conf\nUnit=kubelet.service\n'; } \
	>"$out/policy/903-bom-crlf-kubelet.conf"
# the daemons' I/O (issue 38): a value, then a drop-in with no, then an empty one (the default)
{ printf '[Kubelet]\nSwapBehavior=LimitedSwap\nIOLatencyTargetSec=25ms\n'; echo '#--- dropin'
  printf '[Kubelet]\nIOLatencyTargetSec=no\n'; echo '#--- dropin'; printf '[Kubelet]\nIOLatencyTargetSec=\nIOLatencyTargetSec=10s\n'; } \
	>"$out/policy/906-io-latency.conf"

{ cat "$ex/pi5-nvme-zswap.conf"; echo '#--- dropin'; printf '[Zswap]\nCompressor=\nMaxPoolPercent=\nShrinker=no\n'; echo '#--- dropin'
  printf '[Swap]\nBackend=zram zswap file\n[Zswap]\nAcceptThresholdPercent=101\n'; } >"$out/policy/904-zswap-dropins.conf"
# zram writeback and the knobs of issue 17: a drop-in turning writeback off again, parameters
# and recompression, and the swap file's discard
{ cat "$ex/pi5-nvme-zram-writeback.conf"; echo '#--- dropin'
  printf '[Zram]\nWriteback=\nWritebackLimit=\nAlgorithm=zstd(level=-3,dict=/etc/zd) lz4(level=1)\nRecompressAlgorithm=zstd(level=19) deflate\n'
  echo '#--- dropin'; printf '[Swap]\nBackend=zram file\n[File]\nDiscard=pages\nPriority=5\nEncrypt=no\n[Zram]\nWritebackInterval=0\nWritebackIdleAfter=1h 30min\n'; } \
	>"$out/policy/905-writeback-dropins.conf"

n=0
size() { printf "\\x$(printf '%02x' "$1")%s" "$2" >"$out/size/$(printf '%03d' $n)"; n=$((n + 1)); }
m=0
for e in '512M' '1.5G' '50%' '12.5%' 'ram' 'ram / 2' 'min(ram / 2, 8G)' 'max(ram / 4, 1G)' 'ram / 3 * 2' \
	'(ram - 1G) / 2' '-(-ram)' 'min(ram, max(1G, 2G), 3G)' '8T' '0.5K' '100' '4096' '1e9' '256Mi' '1.5Gi' \
	'500m' '+1Ki' '2E' '7Ei' '1e-3' '1.0000000001G' 'ram * 1000000' 'ram / 0' '99999999999999999999999999999999999999'; do
	size $((m % 8)) "$e"
	m=$((m + 1))
done
# kubelet configuration files: every drop-in and config.yaml of the fixture trees (one of each
# content), and a few shapes they do not have
k=0
while IFS= read -r f; do
	cmp -s "$f" "$out/kubelet/"*"-$(basename "$f")" 2>/dev/null && continue
	cp "$f" "$out/kubelet/$(printf '%03d' $k)-$(basename "$f")"; k=$((k + 1))
done < <(find "$SRC/tests/fixtures" \( -path '*kubelet.conf.d*' -o -path '*/var/lib/kubelet/config.yaml' \) -type f | sort)
printf 'apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\nx: &a {swapBehavior: LimitedSwap}\nmemorySwap: *a\nfailSwapOn: null\n' \
	>"$out/kubelet/900-anchor-null.conf"
printf 'apiVersion: kubelet.config.k8s.io/v1beta1\r\nkind: KubeletConfiguration\r\nmemorySwap: ~\r\nfailSwapOn: "false"\r\n' \
	>"$out/kubelet/901-crlf-quoted-bool.conf"
echo "$i policy seeds, $n size seeds, $((k + 2)) kubelet seeds"
