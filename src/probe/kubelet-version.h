/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stddef.h>

/* The kubelet's version, read from the Go build information of its executable, without running
 * it. Go (1.18 and later) writes a section .go.buildinfo into every binary it links (its
 * runtime/debug.ReadBuildInfo() reads it back; `go version -m FILE` prints it): a header
 * "\xff Go buildinf:", then the Go version and the module information as length-prefixed
 * strings. The module information names every module linked in ("dep PATH VERSION") and the
 * build flags when the build was not -trimpath'd ("build -ldflags=..."). The kubelet's version is
 *   - the version of the module k8s.io/kubernetes: "dep" in the binaries that embed the kubelet
 *     (k3s: github.com/k3s-io/k3s requires k8s.io/kubernetes vX.Y.Z, replaced by k3s's fork),
 *     "mod" (the main package's module) in a kubelet built from the Go module proxy as
 *     tests/k8s/build.sh builds it, or
 *   - the value of -X k8s.io/component-base/version.gitVersion=vX.Y.Z in recorded -ldflags
 *     (Kubernetes' own hack/lib/version.sh sets it).
 * Where it looks: the executable of the kubelet unit's ExecStart= (kubeadm's /usr/bin/kubelet,
 * k3s's /usr/local/bin/k3s), then, for k3s, the k3s binary it unpacked into
 * /var/lib/rancher/k3s/data/current/bin/k3s, for rke2 /var/lib/rancher/rke2/bin/kubelet.
 * Kubernetes' release binaries are built from inside k8s.io/kubernetes with -trimpath: they name
 * no version there. Then the version is the one the unit's kubelet logged when it started (its
 * "Kubelet version" line, read from the journal below root through libsystemd's sd-journal): the
 * running kubelet's (the first entries of the processes in the unit's cgroup, this boot), else the
 * newest the unit logged; that is the kubelet which ran last, stale after an upgrade without a
 * restart. Without either the version stays unknown. */

typedef struct KubeletVersion {
        unsigned major, minor;  /* 0.0: unknown */
        char *text;             /* "v1.31.0" as found, NULL: unknown */
        char *path;             /* the host path it was read from, NULL: unknown */
} KubeletVersion;

void kubelet_version_done(KubeletVersion *v);

/* The version in the Go build information of the ELF file at path below root; *ret stays
 * unknown when the file is missing, no ELF, has no build information or names no version.
 * Returns 0 or -ENOMEM. */
int kubelet_version_of_file(const char *root, const char *path, KubeletVersion *ret);

/* The version of the kubelet the unit (and the executable of its ExecStart=, exec; NULL: none)
 * runs, from the places above. Returns 0 or -ENOMEM. */
int kubelet_version_read(const char *root, const char *unit, const char *exec, KubeletVersion *ret);
