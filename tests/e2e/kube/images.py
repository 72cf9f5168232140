#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""images.py OUTDIR BUSYBOX [MEMHOG [STORM]]: the e2e node's two container images, built offline.

The VM has no network, so nothing is pulled: the harness builds the images here and the guest
imports them with `ctr -n k8s.io images import` before the kubelet starts (tests/e2e/README.md,
"The real node"). Each is one layer, written as a docker archive (the format of `docker save`:
manifest.json naming the image config and the layer tar by their digests, RepoTags giving the
name), which containerd's importer reads (containerd images/archive/importer.go: ImportIndex
takes manifest.json when the tar has no index.json):

  OUTDIR/pause.tar     nodeswap-e2e.test/pause:1     /bin/busybox, entrypoint `sleep` for ever:
                       the pod sandbox (containerd's sandbox_image)
  OUTDIR/workload.tar  nodeswap-e2e.test/workload:1  /bin/busybox and /bin/sh, and with MEMHOG
                       tests/bench/memhog.c built static as /usr/local/bin/memhog, with STORM
                       tests/bench/storm.c (the storm's stressor) as /usr/local/bin/storm

BUSYBOX is the static busybox of the VM root itself (Debian's busybox-static, build-root.sh
recipe 8), so the images hold nothing the root does not. Every byte is fixed (mtime 0, uid 0,
sorted), so the same inputs give the same image IDs run after run. Prints "NAME DIGEST" lines.
"""
import hashlib
import io
import json
import os
import sys
import tarfile

TAGS = {"pause": "nodeswap-e2e.test/pause:1", "workload": "nodeswap-e2e.test/workload:1"}
PATH_ENV = "PATH=/usr/local/bin:/usr/bin:/bin"


def layer(files):
    """files: [(path, mode, bytes or ('link', target))] -> uncompressed tar bytes"""
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.PAX_FORMAT) as t:
        dirs = set()
        for path, _, _ in files:
            parts = path.split("/")[:-1]
            for i in range(1, len(parts) + 1):
                dirs.add("/".join(parts[:i]))
        entries = [(d, 0o755, None) for d in dirs] + list(files)
        for path, mode, data in sorted(entries, key=lambda e: e[0]):
            ti = tarfile.TarInfo(path)
            ti.mtime, ti.uid, ti.gid, ti.uname, ti.gname, ti.mode = 0, 0, 0, "root", "root", mode
            if data is None:
                ti.type = tarfile.DIRTYPE
                t.addfile(ti)
            elif isinstance(data, tuple):
                ti.type, ti.linkname = tarfile.SYMTYPE, data[1]
                t.addfile(ti)
            else:
                ti.size = len(data)
                t.addfile(ti, io.BytesIO(data))
    return buf.getvalue()


def archive(out, tag, files, entrypoint, cmd):
    lay = layer(files)
    diff = hashlib.sha256(lay).hexdigest()
    config = json.dumps({
        "architecture": "amd64", "os": "linux", "created": "1970-01-01T00:00:00Z",
        "config": {"Entrypoint": entrypoint, "Cmd": cmd, "Env": [PATH_ENV], "WorkingDir": "/"},
        "rootfs": {"type": "layers", "diff_ids": ["sha256:" + diff]},
        "history": [{"created": "1970-01-01T00:00:00Z", "created_by": "tests/e2e/kube/images.py"}],
    }, sort_keys=True, separators=(",", ":")).encode()
    cdigest = hashlib.sha256(config).hexdigest()
    manifest = json.dumps([{"Config": cdigest + ".json", "RepoTags": [tag],
                            "Layers": [diff + "/layer.tar"]}], separators=(",", ":")).encode()
    members = [(cdigest + ".json", config), (diff + "/layer.tar", lay), ("manifest.json", manifest)]
    with tarfile.open(out + ".tmp", mode="w", format=tarfile.PAX_FORMAT) as t:
        d = tarfile.TarInfo(diff)
        d.type, d.mode, d.mtime = tarfile.DIRTYPE, 0o755, 0
        t.addfile(d)
        for name, data in members:
            ti = tarfile.TarInfo(name)
            ti.size, ti.mode, ti.mtime = len(data), 0o644, 0
            t.addfile(ti, io.BytesIO(data))
    os.replace(out + ".tmp", out)
    return "sha256:" + cdigest


def main():
    if len(sys.argv) not in (3, 4, 5):
        sys.exit("usage: images.py OUTDIR BUSYBOX [MEMHOG [STORM]]")
    outdir, busybox = sys.argv[1], sys.argv[2]
    bb = open(busybox, "rb").read()
    base = [("bin/busybox", 0o755, bb), ("bin/sh", 0o777, ("link", "busybox")),
            ("bin/sleep", 0o777, ("link", "busybox"))]
    # the sandbox only has to stay; containerd stops it with SIGKILL (StopPodSandbox)
    print("pause", archive(os.path.join(outdir, "pause.tar"), TAGS["pause"], base,
                           ["/bin/sleep"], ["2147483647"]))
    work = list(base)
    if len(sys.argv) >= 4:
        work.append(("usr/local/bin/memhog", 0o755, open(sys.argv[3], "rb").read()))
    if len(sys.argv) == 5:
        work.append(("usr/local/bin/storm", 0o755, open(sys.argv[4], "rb").read()))
    print("workload", archive(os.path.join(outdir, "workload.tar"), TAGS["workload"], work,
                              None, ["/bin/sleep", "2147483647"]))


if __name__ == "__main__":
    main()
