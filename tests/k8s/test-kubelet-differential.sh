#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The differential test of the kubelet's configuration (issue 36): generated trees through the real
# kubelets of tests/k8s/build.sh's cache and through nodeswap status (kubelet-differential.py says
# how). Needs root (mount namespaces, chroot) and the cached binaries, which .ci/run's phase
# cache-k8s builds before the tests; without them it skips with the reason, and fails under CI=true.
# usage: test-kubelet-differential.sh NODESWAP FIXTURES
# env:   K8S_DIFF_SEED (default: a random seed, printed), K8S_DIFF_TREES (default 200),
#        K8S_CACHE_DIR (as tests/k8s/build.sh)
set -uo pipefail
here=$(dirname "$(readlink -f "$0")")
skip() {
	if [[ ${CI:-} == true ]]; then
		echo "FAIL (CI=true): $*"
		exit 1
	fi
	echo "SKIP: $*"
	exit 77
}
[[ $(id -u) == 0 ]] || skip "needs root (mount namespaces and chroot for the real kubelet)"
for c in unshare chroot mount python3; do
	command -v "$c" >/dev/null || skip "no $c"
done
key=$(bash "$here/build.sh" --key 2>&1) || skip "tests/k8s/build.sh --key: $key"
dir=${K8S_CACHE_DIR:-/var/cache/nodeswap-k8s}/$key
[[ -f $dir/versions ]] ||
	skip "the real kubelets are not built ($dir): run bash tests/k8s/build.sh (.ci/run's phase cache-k8s does)"
kubelets=("$dir"/bin/kubelet-v*)
[[ -x ${kubelets[0]} ]] || skip "no kubelet in $dir/bin"
exec python3 "$here/kubelet-differential.py" "$1" "$2" "${kubelets[@]}" --trees "${K8S_DIFF_TREES:-200}" \
	${K8S_DIFF_SEED:+--seed "$K8S_DIFF_SEED"}
