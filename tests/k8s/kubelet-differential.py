#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The kubelet's configuration, the real kubelet against nodeswap (issue 36, item 2).

usage: kubelet-differential.py NODESWAP FIXTURES KUBELET... [--seed N] [--trees N] [--only I]

Generates --trees kubelet configuration trees from --seed (each tree from the seed and its index,
so --only I repeats one), in the shapes nodeswap reads: k3s's (k3s-agent.service, no --config
file: a kubelet-arg config=FILE is copied by k3s to 10-cli-config.conf of its own --config-dir,
with its 00-k3s-defaults.conf there, the other kubelet-arg entries of /etc/rancher/k3s/config.yaml
as flags), rke2's (rke2-agent.service: the same agent code under /var/lib/rancher/rke2 and
/etc/rancher/rke2, its kubelet the binary /var/lib/rancher/rke2/bin/kubelet) and kubeadm's (kubelet.service,
--config=/var/lib/kubelet/config.yaml, the flags of kubeadm-flags.env and /etc/default/kubelet).
The drop-ins and subdirectories set or leave out swapBehavior, failSwapOn, evictionHard (in part
or whole; memory.available in bytes or a percentage, 0% and 100% among them),
mergeDefaultEvictionSettings, nulls; some lack apiVersion or kind, a few are not YAML; a few
kubeadm trees lack their --config file; flags go over them.
A memory.available the eviction manager refuses (101%, -5%, 0, abc) is not generated: the kubelet
loads and logs it and refuses it only later, in run()'s ParseThresholdConfig() after the container
runtime answered, where this harness does not follow (tests/unit/test-kubelet-config.c holds
nodeswap to the source there).

Each tree goes through every KUBELET binary given (the real kubelet's own loading) and through
`nodeswap status --json --root TREE`, and every disagreement on swapBehavior, failSwapOn,
evictionHard's memory.available and whether the kubelet starts at all is printed with the seed,
the tree and both answers; the exit code is 1 when there is one.

How the kubelet is asked: the tree holds the kubelet binary where its unit starts it
(/usr/bin/kubelet, /usr/local/bin/k3s: a hard link, which is also where nodeswap reads the
kubelet's version), and the kubelet runs chrooted into the tree, in new mount, PID, network, IPC
and UTS namespaces, with the flags its unit would give it and -v=5. With -v=5 it logs its
configuration after loading, merging and validating it and before it touches the node
(kubernetes/kubernetes cmd/kubelet/app/server.go, NewKubeletCommand's RunE: the V(5) line
"KubeletConfiguration" with the internal type as JSON, in v1.31 and v1.36 alike), and is
stopped there (killed). One that rejects its flags or configuration exits before that line with
"command failed" and one of CONFIG_ERRORS: it does not start (any other failure stops the test:
the tree lacks something the kubelet needs, such as the certificates k3s writes). In the chroot it
can write only into the tree (its self-signed serving certificate under var/lib/kubelet/pki); the
one host mount it gets is the cgroup v2 hierarchy, bound read-only (the kubelet refuses a cgroup
v1 host since 1.35 and looks at /sys/fs/cgroup's file system type). The test checks that no
kubelet cgroup and none of the kubelet's directories appeared on the host.

--keep leaves the trees in the temporary directory (and prints it).
"""
import argparse
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import kubelet_config_log  # noqa: E402  (tests/lib: the kubelet's configuration line, shared with the e2e)

K3S_DIR = "/var/lib/rancher/k3s/agent/etc/kubelet.conf.d"
RKE2_DIR = "/var/lib/rancher/rke2/agent/etc/kubelet.conf.d"
# rke2's unit as its installer writes it (the lines nodeswap reads: ExecStart=)
RKE2_UNIT = """[Unit]
Description=Rancher Kubernetes Engine v2 (agent)
Wants=network-online.target
After=network-online.target
Conflicts=rke2-server.service

[Service]
Type=notify
KillMode=process
Delegate=yes
ExecStart=/usr/local/bin/rke2 agent

[Install]
WantedBy=multi-user.target
"""
KUBEADM_DIR = "/etc/kubernetes/kubelet.conf.d"
KUBEADM_CONFIG = "/var/lib/kubelet/config.yaml"
# How the kubelet's NewKubeletCommand() (cmd/kubelet/app/server.go) words the errors of its flags
# and configuration, before it logs the configuration: those mean "does not start"; any other
# failure before that line is the test's own (a file its tree lacks) and stops the test.
CONFIG_ERRORS = ("failed to parse kubelet flag", "failed to load kubelet config file",
                 "failed to load Kubelet config file", "failed to merge kubelet configs",
                 "failed to precedence kubeletConfigFlag", "failed to validate kubelet configuration",
                 "failed to set feature gates")
HEADER = "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n"


# --- generating a tree -----------------------------------------------------------------------

def q(v):
    """A YAML scalar: None is null, strings quoted (so "" and "5%" stay strings)."""
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "true" if v else "false"
    return json.dumps(v)


def gen_fields(rng, config_file):
    """The lines of one file's swap and eviction fields (a --config file gets no nulls inside
    evictionHard: the kubelet's typed decoding reads them as empty thresholds, not a merge)."""
    out = []
    r = rng.random()
    if r < 0.45:
        out.append("failSwapOn: " + q(rng.choice([True, False, None])))
    r = rng.random()
    if r < 0.35:
        out.append("memorySwap:\n  swapBehavior: " + q(rng.choice(["LimitedSwap", "NoSwap", "", None])))
    elif r < 0.42:
        out.append("memorySwap: null")
    elif r < 0.46:
        out.append("memorySwap: {}")
    r = rng.random()
    if r < 0.1:
        out.append("evictionHard: null")
    elif r < 0.5:
        keys = []
        # a percentage stays one in the configuration (the eviction manager takes it of the node's
        # capacity later); 0% and 100% are no threshold (pkg/kubelet/eviction/helpers.go,
        # parseThresholdStatement)
        choices = ["100Mi", "250Mi", "5%", "0%", "100%"] + ([] if config_file else [None])
        if rng.random() < 0.7:
            keys.append(("memory.available", rng.choice(choices)))
        if rng.random() < 0.5:
            keys.append(("nodefs.available", "7%"))
        if rng.random() < 0.3:
            keys.append(("imagefs.available", "12%"))
        if keys:
            out.append("evictionHard:\n" + "".join(f"  {k}: {q(v)}\n" for k, v in keys).rstrip("\n"))
        else:
            out.append("evictionHard: {}")
    if rng.random() < 0.25:
        out.append("mergeDefaultEvictionSettings: " + q(rng.choice([True, False])))
    return out


def gen_file(rng, config_file=False):
    head = HEADER
    if not config_file:
        r = rng.random()
        if r < 0.04:
            head = "kind: KubeletConfiguration\n"             # no apiVersion
        elif r < 0.07:
            head = "apiVersion: kubelet.config.k8s.io/v1beta1\n"  # no kind
    body = head + "".join(line + "\n" for line in gen_fields(rng, config_file))
    if rng.random() < 0.03:
        body += rng.choice(["evictionHard: [\n", "failSwapOn: false\n  x: : y\n"])  # not YAML
    return body


def gen_dropins(rng, d):
    files = {}
    for _ in range(rng.choice([0, 1, 1, 2, 2, 3, 4])):
        sub = rng.choice(["", "", "", "sub/", "zz/"])
        name = f"{d}/{sub}{rng.choice(['10', '20', '50', '80', '95'])}-{rng.choice(['site', 'swap', 'evict'])}.conf"
        files[name] = gen_file(rng)
    if rng.random() < 0.1:
        files[f"{d}/99-ignored.conf.bak"] = HEADER + "failSwapOn: true\nmemorySwap:\n  swapBehavior: NoSwap\n"
    return files


def gen_flags(rng):
    flags = []
    if rng.random() < 0.15:
        flags.append(("fail-swap-on", rng.choice(["true", "false"])))
    if rng.random() < 0.15:
        flags.append(("eviction-hard", rng.choice(["memory.available<300Mi", "nodefs.available<10%",
                                                   "memory.available<2%,nodefs.available<10%"])))
    return flags


def generate(seed, i, fixtures):
    """One tree: {"shape", "files": {path: text}, "args": [kubelet's flags], "binary": path}."""
    rng = random.Random(f"{seed}-{i}")
    r = rng.random()
    shape = "k3s" if r < 0.35 else "rke2" if r < 0.5 else "kubeadm"
    files = {}
    absent = []
    flags = gen_flags(rng)
    if shape in ("k3s", "rke2"):
        # k3s's own flags before the kubelet-arg entries (k3s-io/k3s pkg/daemons/agent: the
        # drop-in directory with its 00-k3s-defaults.conf, whose containerRuntimeEndpoint is "",
        # and the endpoint of its containerd as a flag). rke2 runs the same agent code with its
        # own data directory and program name (00-rke2-defaults.conf, /etc/rancher/rke2), and its
        # kubelet as a binary of its own, /var/lib/rancher/rke2/bin/kubelet
        d = K3S_DIR if shape == "k3s" else RKE2_DIR
        args = [f"--config-dir={d}", "--container-runtime-endpoint=unix:///run/k3s/containerd/containerd.sock"]
        if rng.random() < 0.8:
            with open(os.path.join(fixtures, "kubelet/k3s-eviction", K3S_DIR.lstrip("/"),
                                   "00-k3s-defaults.conf")) as f:
                files[f"{d}/00-{shape}-defaults.conf"] = f.read().replace("/rancher/k3s/", f"/rancher/{shape}/")
        files.update(gen_dropins(rng, d))
        if shape == "rke2":
            absent.append("/etc/systemd/system/k3s-agent.service")
            files["/etc/systemd/system/rke2-agent.service"] = RKE2_UNIT
        entries = list(flags)
        if rng.random() < 0.2:
            # kubelet-arg config=FILE never reaches the kubelet: before every start k3s takes it out
            # of the kubelet's flags and copies FILE to 10-cli-config.conf in its --config-dir
            # (k3s-io/k3s pkg/agent extractConfigArgs()), where the kubelet reads it as a drop-in;
            # the tree holds both, as after an earlier start
            text = gen_file(rng, config_file=True)
            files[f"/etc/rancher/{shape}/kubelet.yaml"] = text
            files[f"{d}/10-cli-config.conf"] = text
            entries.insert(0, ("config", f"/etc/rancher/{shape}/kubelet.yaml"))
        if entries:
            files[f"/etc/rancher/{shape}/config.yaml"] = "kubelet-arg:\n" + "".join(
                f"  - {json.dumps(n + '=' + v)}\n" for n, v in entries)
        args += [f"--{n}={v}" for n, v in flags]
        binary = "/usr/local/bin/k3s" if shape == "k3s" else "/var/lib/rancher/rke2/bin/kubelet"
    else:
        args = [f"--config={KUBEADM_CONFIG}"]  # 10-kubeadm.conf's
        if rng.random() < 0.04:
            absent.append(KUBEADM_CONFIG)   # before kubeadm init or join wrote it
        else:
            files[KUBEADM_CONFIG] = gen_file(rng, config_file=True)
        kubeadm_args = []
        if rng.random() < 0.85:
            kubeadm_args.append(f"--config-dir={KUBEADM_DIR}")
            files.update(gen_dropins(rng, KUBEADM_DIR))
        files["/var/lib/kubelet/kubeadm-flags.env"] = f'KUBELET_KUBEADM_ARGS="{" ".join(kubeadm_args)}"\n'
        extra = [f"--{n}={v}" for n, v in flags]
        if extra:
            files["/etc/default/kubelet"] = f"KUBELET_EXTRA_ARGS='{' '.join(extra)}'\n"
        args += kubeadm_args + extra
        binary = "/usr/bin/kubelet"
    return {"shape": shape, "files": files, "absent": absent, "args": args, "binary": binary}


def describe(tree):
    s = [f"  shape {tree['shape']}; the kubelet's flags: {' '.join(tree['args'])}"]
    for path in sorted(tree["files"]):
        s.append(f"  --- {path}")
        s.extend("  | " + line for line in tree["files"][path].rstrip("\n").split("\n"))
    for path in tree.get("absent", []):
        s.append(f"  --- {path}: absent")
    return "\n".join(s)


def build_tree(tree, fixtures, kubelet, dest, pki):
    base = "vps-cgroupv1" if tree["shape"] == "kubeadm" else "rpi-untouched"
    shutil.copytree(os.path.join(fixtures, base), dest, symlinks=True)
    for path in tree.get("absent", []):
        os.unlink(dest + path)
    for path, text in tree["files"].items():
        p = dest + path
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, "w") as f:
            f.write(text)
    b = dest + tree["binary"]
    os.makedirs(os.path.dirname(b), exist_ok=True)
    os.link(kubelet, b)
    os.makedirs(dest + "/sys/fs/cgroup", exist_ok=True)
    if tree["shape"] != "kubeadm":
        # k3s and rke2 make their drop-in directory before they start the kubelet (they write
        # their 00-*-defaults.conf into it), so the kubelet never meets it missing; a tree without
        # drop-ins still has it (without it the real kubelet refuses to start: "failed to walk
        # through kubelet dropin directory", a failure no k3s or rke2 node shows)
        os.makedirs(dest + (K3S_DIR if tree["shape"] == "k3s" else RKE2_DIR), exist_ok=True)
        # the files 00-k3s-defaults.conf names, which k3s writes before it starts the kubelet
        # (the kubelet loads them before it logs its configuration): any certificate will do. An
        # rke2 tree whose drop-in directory was not drawn has no agent directory yet (the fixture
        # is k3s's)
        agent = dest + f"/var/lib/rancher/{tree['shape']}/agent/"
        os.makedirs(agent, exist_ok=True)
        for name, src in (("client-ca.crt", "kubelet.crt"), ("serving-kubelet.crt", "kubelet.crt"),
                          ("serving-kubelet.key", "kubelet.key")):
            shutil.copy(os.path.join(pki, src), agent + name)


def make_pki(kubelet, tmp, cg2, timeout):
    """A certificate and key for the k3s trees: the self-signed pair a kubelet without TLS files
    writes into var/lib/kubelet/pki before it logs its configuration (so no openssl is needed)."""
    root = os.path.join(tmp, "pki-root")
    os.makedirs(root + "/usr/bin")
    os.makedirs(root + "/sys/fs/cgroup")
    os.link(kubelet, root + "/usr/bin/kubelet")
    res = ask_kubelet(root, {"binary": "/usr/bin/kubelet", "args": []}, cg2, timeout)
    if not res["starts"]:
        raise RuntimeError("a kubelet without configuration did not start: " + res["error"])
    return root + "/var/lib/kubelet/pki"

# --- asking the real kubelet -------------------------------------------------------------------

def cgroup2_mount():
    """Where this host's cgroup v2 hierarchy is mounted (the hybrid layout: unified)."""
    with open("/proc/self/mountinfo") as f:
        for line in f:
            parts = line.split(" - ")
            if len(parts) == 2 and parts[1].split()[0] == "cgroup2":
                return parts[0].split()[4]
    return None


def ask_kubelet(root, tree, cg2, timeout):
    """{"starts": bool, "error": str, "config": dict}"""
    script = ('mount --make-rprivate / && mount --bind "$1" "$2/sys/fs/cgroup" && '
              'mount -o remount,bind,ro "$2/sys/fs/cgroup" && shift 2 && exec chroot "$@"')
    cmd = ["unshare", "--mount", "--pid", "--fork", "--net", "--ipc", "--uts", "--",
           "sh", "-c", script, "sh", cg2, root, root, tree["binary"]] + tree["args"] + ["-v=5"]
    p = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                         start_new_session=True, text=True, errors="replace")
    def stop():
        # the kubelet first (unshare's child, PID 1 of the new PID namespace), so that unshare reaps
        # it; then whatever is left of the group
        try:
            with open(f"/proc/{p.pid}/task/{p.pid}/children") as f:
                for child in f.read().split():
                    os.kill(int(child), signal.SIGKILL)
            p.wait(timeout=10)
        except (OSError, ValueError, subprocess.TimeoutExpired):
            pass
        try:
            os.killpg(p.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    timer = threading.Timer(timeout, stop)     # a kubelet that hangs silently
    timer.start()
    try:
        config, error, lines = kubelet_config_log.read(p.stderr)
        if error is not None:
            if not any(w in error for w in CONFIG_ERRORS):
                raise RuntimeError("the kubelet failed for another reason than its configuration "
                                   "(the test's tree lacks something):\n" + error)
    finally:
        timer.cancel()
        stop()
        p.wait()
        p.stderr.close()
    if config is not None:
        return {"starts": True, "config": config}
    if error:
        return {"starts": False, "error": error}
    raise RuntimeError("the kubelet neither logged its configuration nor failed:\n" + "".join(lines[-20:]))


def kubelet_view(res):
    if not res["starts"]:
        return {"starts": False}
    c = res["config"]
    mem = (c.get("EvictionHard") or {}).get("memory.available")
    if mem in ("0%", "100%"):          # parseThresholdStatement: no threshold
        mem = None
    sb = (c.get("MemorySwap") or {}).get("SwapBehavior") or None
    return {"starts": True, "swap_behavior": sb, "fail_swap_on": c.get("FailSwapOn"),
            "memory_available": mem}


def nodeswap_view(nodeswap, root, tmp):
    p = subprocess.run([nodeswap, "status", "--json", "--root", root, "--config", os.path.join(tmp, "policy.conf")],
                       capture_output=True, text=True, timeout=60)
    if p.returncode not in (0, 1):
        raise RuntimeError(f"nodeswap status exited {p.returncode}: {p.stderr}")
    k = json.loads(p.stdout)["kubelet"]
    if not k["starts"]:
        return {"starts": False}
    return {"starts": True, "swap_behavior": k["swap_behavior"], "fail_swap_on": k["fail_swap_on"],
            "memory_available": k["memory_eviction"]["threshold"]}


# --- the host stays as it was --------------------------------------------------------------------

def host_snapshot():
    """What a kubelet would leave on this host: cgroups it creates (kubepods, kubepods.slice,
    kubelet.slice and the like, in every hierarchy), its state and log directories. Other cgroups
    come and go with the machine's other work and are not compared."""
    kube = []
    for d, sub, _ in os.walk("/sys/fs/cgroup"):
        if "kube" in os.path.basename(d):
            kube.append(d)
        if d.count("/") > 6:
            sub[:] = []
    paths = []
    for p in ("/var/lib/kubelet", "/etc/kubernetes", "/var/log/pods", "/var/log/containers",
              "/run/containerd", "/var/lib/rancher", "/etc/rancher"):
        if os.path.lexists(p):
            paths.append((p, sorted(os.listdir(p)) if os.path.isdir(p) else None))
    return sorted(kube), paths


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("nodeswap")
    ap.add_argument("fixtures")
    ap.add_argument("kubelets", nargs="+")
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("--trees", type=int, default=200)
    ap.add_argument("--only", type=int, default=None)
    ap.add_argument("--timeout", type=float, default=60)
    ap.add_argument("--keep", action="store_true", help="keep the trees (and print where)")
    a = ap.parse_args()
    seed = a.seed if a.seed is not None else random.SystemRandom().randrange(1 << 31)
    print(f"seed {seed} (repeat with --seed {seed}; one tree with --only I)", flush=True)
    cg2 = cgroup2_mount()
    if not cg2:
        # the kubelet looks at /sys/fs/cgroup's type, and 1.35+ refuse cgroup v1
        print("SKIP: no cgroup v2 hierarchy mounted on this host")
        return 1 if os.environ.get("CI") == "true" else 77
    before = host_snapshot()
    tmp = tempfile.mkdtemp(prefix="nodeswap-kubelet-diff.")
    failures = 0
    counts = {}
    t0 = time.monotonic()
    try:
        os.chmod(tmp, 0o755)
        with open(os.path.join(tmp, "policy.conf"), "w") as f:
            f.write("[Kubelet]\nSwapBehavior=LimitedSwap\n")
        os.chmod(os.path.join(tmp, "policy.conf"), 0o600)
        # the binaries, copied once next to the trees (the hard links need one file system)
        bins = []
        for k in a.kubelets:
            dst = os.path.join(tmp, os.path.basename(k))
            shutil.copy(k, dst)
            bins.append(dst)
        pki = make_pki(bins[0], tmp, cg2, a.timeout)
        indices = [a.only] if a.only is not None else range(a.trees)
        for i in indices:
            tree = generate(seed, i, a.fixtures)
            for k in bins:
                root = os.path.join(tmp, f"tree-{i}-{os.path.basename(k)}")
                build_tree(tree, a.fixtures, k, root, pki)
                res = ask_kubelet(root, tree, cg2, a.timeout)
                real = kubelet_view(res)
                ours = nodeswap_view(a.nodeswap, root, tmp)
                key = (os.path.basename(k), "starts" if real["starts"] else "does not start")
                counts[key] = counts.get(key, 0) + 1
                if real != ours:
                    failures += 1
                    why = f"\n  the kubelet's error: {res['error']}" if not res["starts"] else ""
                    print(f"DISAGREE seed {seed} tree {i} ({os.path.basename(k)}):\n"
                          f"  kubelet:  {real}\n  nodeswap: {ours}{why}\n{describe(tree)}", flush=True)
                if not a.keep:
                    shutil.rmtree(root)
    finally:
        if a.keep:
            print(f"the trees are in {tmp}")
        else:
            shutil.rmtree(tmp, ignore_errors=True)
    after = host_snapshot()
    if before != after:
        print(f"the host changed: the kubelet's paths before {before[1]} after {after[1]}; "
              f"its cgroups +{sorted(set(after[0]) - set(before[0]))} "
              f"-{sorted(set(before[0]) - set(after[0]))}")
        failures += 1
    else:
        print(f"the host is as it was: no kubelet cgroup ({len(after[0])} before and after), "
              f"the kubelet's paths unchanged ({', '.join(p for p, _ in after[1]) or 'none present'})")
    for (k, what), n in sorted(counts.items()):
        print(f"{k}: {n} trees, the kubelet {what}")
    print(f"{failures} disagreements in {time.monotonic() - t0:.0f} s (seed {seed})")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
