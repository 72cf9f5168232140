#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Builds (once) the real Kubernetes binaries the tests run, and prints the cached directory that
# holds them:
#   DIR/bin/kubelet-v1.36.3         the kubelet nodeswap is proven against (1.32+ merge rule)
#   DIR/bin/kubelet-v1.31.0         the older minor: 1.30 and 1.31 merge drop-ins the old way
#                                   (kubernetes PR 127421 changed the rule in 1.32), so the
#                                   differential test covers both rules
#   DIR/bin/kube-apiserver-v1.36.3  the API server of the e2e VM's real node
#   DIR/bin/etcd                    its store: etcd v3.6 (see ETCD_VERSION below for why)
#   DIR/versions                    "NAME VERSION" lines of the above
# DIR is /var/cache/nodeswap-k8s/KEY, KEY a hash of RECIPE_VERSION, the versions below and the Go
# version that builds them: change any and a new directory is built; anything else reuses it.
# The build is atomic (a temporary directory beside the cache, renamed into place only when
# every binary is in it) and locked (one build at a time; a second run waits and then reuses).
#
# usage: build.sh            prints the cached directory (builds it when missing)
#        build.sh --key      prints the cache key only
# env:   K8S_CACHE_DIR (default /var/cache/nodeswap-k8s); GOMODCACHE and GOCACHE (default
#        /var/cache/nodeswap-go/mod and /var/cache/nodeswap-go/build: the module and build
#        caches every Kubernetes build on the machine shares, so that a rebuild of the same
#        versions with the same flags hits the build cache)
# exit:  0 ok; 77 when it cannot build here (no Go 1.26 or newer, not root) and CI is unset;
#        1 error (the step that failed), or what would be 77 under CI=true
#
# How: k8s.io/kubernetes replaces its staging modules (k8s.io/api, k8s.io/client-go, ...) with
# ./staging/src/... in its go.mod, so `go install k8s.io/kubernetes/cmd/kubelet@vX` is refused.
# A wrapper module per version requires k8s.io/kubernetes vX and replaces every staging module
# named in that release's replace block with the published k8s.io/<module> v0.Y.Z; then
# `CGO_ENABLED=0 go build -trimpath` builds the command from the wrapper. Everything comes from
# the Go module proxy (go.sum is checked against the checksum database as usual).
#
# Go: 1.36 needs Go 1.26. Go is NOT from Debian (bookworm's golang-go is 1.19): it is installed
# at /usr/local/go by the machine image of the project's machines (the polyglot kind: "Go ...
# installed before the session starts"). Elsewhere, install Go 1.26 or newer and put it in PATH.
#
# Cold build times on this 2-core machine, each alone (the rest of a run beside them slows them):
# tests/e2e/README.md's table of phases has them (phase cache-k8s).
set -euo pipefail
trap 'echo "tests/k8s/build.sh: failed at line $LINENO (exit $?): $BASH_COMMAND" >&2' ERR

# Bump when anything below changes what ends up in the directory.
# 1: kubelet v1.36.3 and v1.31.0, kube-apiserver v1.36.3, etcd v3.6.17 (issue 36).
RECIPE_VERSION=1
# v1.31.0, not v1.31.14: the proxy refuses staging modules that v1.31.14's kubelet imports
# (2026-12-03: "k8s.io/kube-scheduler@v0.31.14: reading
# https://proxy.golang.org/k8s.io/kube-scheduler/@v/v0.31.14.zip: 403 Forbidden / server
# response: This module version is not available.", and so endpointslice, kube-proxy and
# kube-controller-manager v0.31.14); it serves every staging module at v0.31.0.
# mergeKubeletConfigurations and loadConfigFile are the same in both.
KUBELET_VERSIONS=(1.36.3 1.31.0)
APISERVER_VERSION=1.36.3
# etcd, not kine: the API server's own store (what kubeadm runs), pure Go (CGO_ENABLED=0 as the
# rest), one binary with no configuration file; kine's SQLite backend needs cgo (a C toolchain
# in the build, a second flavour of build flags) and exists to let k3s skip etcd. 3.6 is the
# series the 1.36 API server is tested with (Debian 12's etcd 3.4 is older than it supports).
ETCD_VERSION=3.6.17

CACHE_DIR=${K8S_CACHE_DIR:-/var/cache/nodeswap-k8s}
export GOMODCACHE=${GOMODCACHE:-/var/cache/nodeswap-go/mod}
export GOCACHE=${GOCACHE:-/var/cache/nodeswap-go/build}
export GOFLAGS=-buildvcs=false CGO_ENABLED=0 GOTOOLCHAIN=local

skip() {
	if [[ ${CI:-} == true ]]; then
		echo "tests/k8s/build.sh: cannot build under CI: $*" >&2
		exit 1
	fi
	echo "SKIP: $*" >&2
	exit 77
}

# (the machine image's Go, also when the caller's PATH lacks it: .ci/run's environment is the
# machine's, not a login shell's)
[[ -x /usr/local/go/bin/go ]] && PATH=$PATH:/usr/local/go/bin
GO_VERSION=$(go env GOVERSION 2>/dev/null) ||
	skip "no Go in PATH: Go 1.26 or newer builds Kubernetes 1.36; it comes from the machine image (/usr/local/go), not from Debian's packages (bookworm's golang-go is 1.19)"
go_minor=${GO_VERSION#go1.}
go_minor=${go_minor%%.*}
[[ $go_minor =~ ^[0-9]+$ ]] && ((go_minor >= 26)) ||
	skip "$GO_VERSION is older than Go 1.26, which Kubernetes 1.36 needs; it comes from the machine image (/usr/local/go), not from Debian's packages (bookworm's golang-go is 1.19)"

KEY=$(printf 'recipe %s\nkubelet %s\napiserver %s\netcd %s\n%s\n' "$RECIPE_VERSION" \
	"${KUBELET_VERSIONS[*]}" "$APISERVER_VERSION" "$ETCD_VERSION" "$GO_VERSION" | sha256sum | cut -c1-16)
DIR=$CACHE_DIR/$KEY
if [[ ${1:-} == --key ]]; then
	echo "$KEY"
	exit 0
fi
if [[ -f $DIR/versions ]]; then
	echo "$DIR"
	exit 0
fi
[[ $(id -u) == 0 ]] || skip "building into $CACHE_DIR needs root"

. "$(dirname "$(readlink -f "$0")")/../lib/vm-build.sh"     # step, step_total

mkdir -p "$CACHE_DIR" "$GOMODCACHE" "$GOCACHE"
exec 9>"$CACHE_DIR/.lock"
echo "Waiting for the build lock $CACHE_DIR/.lock ..." >&2
flock 9
if [[ -f $DIR/versions ]]; then     # built by another run while this one waited
	echo "$DIR"
	exit 0
fi
# with the lock held no build runs: these were left by a build killed outright
for stale in "$CACHE_DIR"/.build-*; do
	[[ -d $stale ]] || continue
	echo "Removing $stale, left by an interrupted build" >&2
	rm -rf --one-file-system "$stale"
done
WORK=$(mktemp -d "$CACHE_DIR/.build-$KEY.XXXXXX")
trap 'rm -rf --one-file-system "$WORK"' EXIT
mkdir "$WORK/bin"

# wrapper VERSION: a module in $WORK/w-VERSION that builds k8s.io/kubernetes vVERSION's commands
wrapper() {
	local v=$1 minor w=$WORK/w-$1 mod
	minor=${v#*.}
	mkdir "$w"
	(cd "$w" && go mod init nodeswap.test/k8s >/dev/null 2>&1)
	mod=$(cd "$w" && go mod download -json "k8s.io/kubernetes@v$v" | sed -n 's/^[[:space:]]*"GoMod": "\(.*\)",$/\1/p')
	[[ -r $mod ]] || { echo "no go.mod of k8s.io/kubernetes v$v from the proxy" >&2; return 1; }
	{
		echo "require k8s.io/kubernetes v$v"
		echo "replace ("
		# the staging modules: "k8s.io/NAME => ./staging/src/k8s.io/NAME" in its replace block
		awk -v m="$minor" '$2 == "=>" && $3 ~ /^\.\/staging\/src\// { printf "\t%s => %s v0.%s\n", $1, $1, m }' "$mod"
		echo ")"
	} >>"$w/go.mod"
	grep -q '=> k8s.io/api v0' "$w/go.mod" || { echo "no staging replace block in $mod" >&2; return 1; }
	(cd "$w" && go get "k8s.io/kubernetes/cmd/kubelet@v$v" "k8s.io/kubernetes/cmd/kube-apiserver@v$v")
}
# build WRAPPER OUT PACKAGE [VERSION]: with VERSION, the version the command reports (--version,
# its logs, the node object's kubeletVersion), set at link time as Kubernetes' own build does
# (hack/lib/version.sh: -X k8s.io/component-base/version.gitVersion ...); the packages' compiled
# objects do not depend on it, so the build cache still serves them
build() {
	local ld=
	if [[ -n ${4:-} ]]; then
		ld="-X k8s.io/component-base/version.gitVersion=v$4"
		ld+=" -X k8s.io/component-base/version.gitMajor=${4%%.*}"
		ld+=" -X k8s.io/component-base/version.gitMinor=$(cut -d. -f2 <<<"$4")"
		ld+=" -X k8s.io/component-base/version.gitTreeState=clean"
	fi
	(cd "$1" && go build -trimpath -ldflags "$ld" -o "$2" "$3")
}

for v in "${KUBELET_VERSIONS[@]}" "$APISERVER_VERSION"; do
	[[ -d $WORK/w-$v ]] || step "modules k8s $v" wrapper "$v"
done
for v in "${KUBELET_VERSIONS[@]}"; do
	step "kubelet v$v" build "$WORK/w-$v" "$WORK/bin/kubelet-v$v" k8s.io/kubernetes/cmd/kubelet "$v"
done
step "kube-apiserver v$APISERVER_VERSION" build "$WORK/w-$APISERVER_VERSION" \
	"$WORK/bin/kube-apiserver-v$APISERVER_VERSION" k8s.io/kubernetes/cmd/kube-apiserver "$APISERVER_VERSION"

# etcd: the server module's own main package (etcd's server/main.go calls etcdmain.Main), from a
# wrapper for the same reason as above (etcd's go.mod replaces its sibling modules with ../api).
etcd_wrapper() {
	mkdir "$WORK/w-etcd"
	(cd "$WORK/w-etcd" && go mod init nodeswap.test/etcd >/dev/null 2>&1 &&
		go get "go.etcd.io/etcd/server/v3@v$ETCD_VERSION")
}
step "modules etcd $ETCD_VERSION" etcd_wrapper
step "etcd v$ETCD_VERSION" build "$WORK/w-etcd" "$WORK/bin/etcd" go.etcd.io/etcd/server/v3

{
	for v in "${KUBELET_VERSIONS[@]}"; do echo "kubelet-v$v $v"; done
	echo "kube-apiserver-v$APISERVER_VERSION $APISERVER_VERSION"
	echo "etcd $ETCD_VERSION"
	echo "go $GO_VERSION"
} >"$WORK/bin.versions"
# the versions the binaries report, checked (a wrong build fails here, not in a test)
for v in "${KUBELET_VERSIONS[@]}"; do
	"$WORK/bin/kubelet-v$v" --version | grep -qx "Kubernetes v$v"
done
"$WORK/bin/kube-apiserver-v$APISERVER_VERSION" --version | grep -qx "Kubernetes v$APISERVER_VERSION"
"$WORK/bin/etcd" --version | grep -q "^etcd Version: $ETCD_VERSION\$"

mkdir "$WORK/out"
mv "$WORK/bin" "$WORK/out/bin"
mv "$WORK/bin.versions" "$WORK/out/versions"
chmod 755 "$WORK/out"
mv -T "$WORK/out" "$DIR"
step_total "k8s binaries"
echo "$DIR"
