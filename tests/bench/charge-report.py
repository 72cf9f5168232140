#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""charge-report.py BACKENDS_JSON: the Markdown tables of e2e scenario "charge" (who pays for
compressed swap, and what each backend costs), from the records the e2e harness wrote with
E2E_CHARGE_DIR (one JSON object a line: the host, the VM's "meta" record, one record per backend).
Nothing here is measured or assumed: every number comes from the file. See tests/e2e/README.md."""
import json
import statistics
import sys

MIB = 1 << 20


def mib(b):
    return f"{b / MIB:.1f}"


def num(v):
    """A counter the guest may have found missing ("none"): None then."""
    try:
        return int(v)
    except (TypeError, ValueError):
        return None


def median_run(recs):
    """One record of the medians of every numeric field of a backend's rounds."""
    out = dict(recs[0])
    for k, v in recs[0].items():
        if k in ("round", "backend", "memory_max_mib", "hog_mib"):
            continue
        vals = [num(r.get(k)) if not isinstance(r.get(k), float) else r.get(k) for r in recs]
        if all(isinstance(x, (int, float)) for x in vals):
            out[k] = statistics.median(vals)
    return out


def summary(runs, per_gib):
    """The README's table: one column a backend, the numbers an operator compares."""
    def pool(r):
        z = num(r["zswap_current"])
        return (num(r["stat_zswap"]) or 0) if z is None else z

    def held(b, r):
        return {"zram": r["zram_mem_used_total"], "zswap": pool(r), "file": 0}[b]

    def out_bytes(r):
        return r["swapped_out_pages"] * 4096

    def cpu(b):
        v = sorted(per_gib.get(b, []))
        if not v:
            return "-"
        return f"{statistics.median(v):.0f} s ({v[0]:.0f}–{v[-1]:.0f})"

    base = runs["none"]
    cols = ("zram", "zswap", "file")
    rows = [
        ("the cgroup's memory.current (memory.max "
         f"{runs['zram']['memory_max_mib']} MiB)",
         lambda b, r: f"{mib(r['memory_current'])} MiB"
         + (f", of it {mib(pool(r))} MiB pool" if b == "zswap" else "")),
        ("the process's own resident pages (memory.stat anon)", lambda b, r: f"{mib(r['anon'])} MiB"),
        ("swapped out (pswpout + zswpout)", lambda b, r: f"{mib(out_bytes(r))} MiB"),
        ("compressed RAM outside every cgroup (zram mm_stat mem_used_total)",
         lambda b, r: f"{mib(r['zram_mem_used_total'])} MiB"),
        ("RAM the process holds in all", lambda b, r: f"{mib(r['memory_current'] + r['zram_mem_used_total'])} MiB"),
        ("RAM per GiB swapped out", lambda b, r: f"{held(b, r) / out_bytes(r):.2f} GiB" if out_bytes(r) else "-"),
        ("drive writes per GiB swapped out",
         lambda b, r: f"{max(0, r['disk_written'] - base['disk_written']) / out_bytes(r):.2f} GiB"
         if out_bytes(r) else "-"),
        ("CPU per GiB swapped out: the process's system time above the no-swap baseline "
         "(median, range of the rounds; emulated, relative)", lambda b, r: cpu(b)),
        ("who pays for the RAM", lambda b, r: {"zram": "nobody: the node", "zswap": "the pod (memory.current)",
                                                 "file": "no RAM: the drive"}[b]),
    ]
    out = ["| | zram | zswap + file | file |", "|---|---:|---:|---:|"]
    for name, f in rows:
        out.append(f"| {name} | " + " | ".join(f(b, runs[b]) for b in cols) + " |")
    return out


def main():
    args = sys.argv[1:]
    only_summary = args[:1] == ["--summary"]
    if only_summary:
        args = args[1:]
    if len(args) != 1:
        sys.exit("usage: charge-report.py [--summary] BACKENDS_JSON")
    sys.argv[1:] = args
    host, meta, runs = {}, {}, {}
    with open(sys.argv[1]) as f:
        for n, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                r = json.loads(line)
            except ValueError as e:
                sys.exit(f"{sys.argv[1]}:{n}: not JSON: {e}")
            if "host" in r:
                host = r["host"]
            elif r.get("meta"):
                meta = r
            elif "backend" in r:
                runs.setdefault(r["backend"], []).append(r)
    missing = [b for b in ("none", "zram", "zswap", "file") if b not in runs]
    if missing or not meta:
        sys.exit(f"{sys.argv[1]}: incomplete: missing {', '.join(missing) or 'the meta record'}")

    rounds = {b: len(v) for b, v in runs.items()}
    per_gib = {}        # backend: [hog system s above none's, per GiB swapped out], one per round
    for b in ("zram", "zswap", "file"):
        for r in runs[b]:
            base_r = next((x for x in runs["none"] if x.get("round") == r.get("round")), runs["none"][0])
            gib = r["swapped_out_pages"] * 4096 / (1 << 30)
            if gib:
                per_gib.setdefault(b, []).append((r["hog_system_us"] - base_r["hog_system_us"]) / 1e6 / gib)
    runs = {b: median_run(v) for b, v in runs.items()}
    base = runs["none"]
    if only_summary:
        print("\n".join(summary(runs, per_gib)))
        return
    out = []
    w = out.append
    w(f"# Swap backends compared: who pays, CPU, RAM, drive writes ({meta['date']})")
    w("")
    w(f"Measured by e2e scenario `charge` (tests/e2e/README.md) in the e2e VM: kernel "
      f"{meta['kernel']}, {meta['ncpu']} vCPUs ({meta['cpu']}), {int(meta['mem_kb']) // 1024} MiB, "
      f"{host.get('qemu', 'qemu')} with TCG (software emulation, no KVM) on a host with "
      f"{host.get('ncpu', '?')} CPUs ({host.get('cpu', '?')}), load average {host.get('load_before', '?')} "
      f"when the VM started{', tree ' + host['tree'] if host.get('tree') else ''}. Emulated CPU time is many times "
      f"a real machine's, and a guest's CPU time includes the time its vCPU thread waited for the "
      f"loaded host, so it moves between rounds (the per-round column shows by how much): compare "
      f"the backends with each other, not with a real machine, and trust the RAM and write "
      f"columns more than the CPU ones.")
    w("")
    w(f"One process fills {base['hog_mib']} MiB of compressible anonymous memory (a quarter of "
      f"every 4 KiB block random, the rest a repeated pattern) in a cgroup of its own with "
      f"`memory.max` {runs['zram']['memory_max_mib']} MiB, then reads it all back and checks it. "
      f"zram and zswap both compress with {meta['alg']}; zswap's pool allocator is "
      f"{meta['zpool']}, like zram's. The swap file is on the VM's root ext4 ({meta['disk']}). "
      f"`none` is the same process without a limit and without swapping: the cost of filling the "
      f"memory, subtracted below. Every backend was measured {min(rounds.values())} "
      f"{'time' if min(rounds.values()) == 1 else 'times'} in the same boot; the tables show the median of each number.")
    w("")
    w("## Summary")
    w("")
    out.extend(summary(runs, per_gib))
    w("")
    w("## Where the swapped memory is charged")
    w("")
    w("| backend | memory.current | of it: anon | of it: zswap pool (memory.zswap.current) | "
      "memory.swap.current | compressed RAM outside every cgroup (zram mm_stat mem_used_total) | "
      "RAM in use: cgroup + outside |")
    w("|---|---:|---:|---:|---:|---:|---:|")
    for b in ("none", "zram", "zswap", "file"):
        r = runs[b]
        z = num(r["zswap_current"])
        if z is None:
            z = num(r["stat_zswap"])
        lim = "no limit" if r["memory_max_mib"] is None else f"{r['memory_max_mib']} MiB"
        w(f"| {b} (max: {lim}) | {mib(r['memory_current'])} MiB | {mib(r['anon'])} MiB | "
          f"{'-' if z is None else mib(z) + ' MiB'} | {mib(r['swap_current'])} MiB | "
          f"{mib(r['zram_mem_used_total'])} MiB | "
          f"{mib(r['memory_current'] + r['zram_mem_used_total'])} MiB |")
    w("")
    w("With zswap the compressed pool is part of `memory.current` and the process's own resident "
      "pages shrink by about as much; with zram the compressed pages sit outside every cgroup, "
      "so the process holds more RAM in total than its `memory.max`.")
    w("")
    w("## Cost per GiB swapped out")
    w("")
    w("| backend | swapped out | hog CPU, system | above `none`, per GiB swapped out: median (each round) | "
      "reclaim: memory.max events, pages scanned / stolen | whole VM system+irq+softirq | "
      "RAM held for the swapped pages | GiB of RAM per GiB swapped out | compression | drive writes (above `none`) | per GiB "
      "swapped out | who pays for the RAM |")
    w("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|")
    payer = {
        "zram": "nobody: the node (outside every cgroup, invisible to the kubelet)",
        "zswap": "the pod: its cgroup's memory.current",
        "file": "nobody: no RAM (the drive holds it)",
    }
    for b in ("zram", "zswap", "file"):
        r = runs[b]
        gib = r["swapped_out_pages"] * 4096 / (1 << 30)
        sys_ms = r["hog_system_us"] / 1000
        disk = max(0, r["disk_written"] - base["disk_written"])
        if b == "zram":
            ram = r["zram_mem_used_total"]
            ratio = f"{r['zram_orig'] / r['zram_compr']:.2f}:1" if r["zram_compr"] else "-"
        elif b == "zswap":
            ram = num(r["zswap_current"])
            if ram is None:
                ram = num(r["stat_zswap"]) or 0
            zd = num(r["stat_zswapped"])      # bytes, as memory.stat shows it
            ratio = f"{zd / ram:.2f}:1" if zd and ram else "-"
        else:
            ram, ratio = 0, "none"
        each = ", ".join(f"{v:.1f}" for v in per_gib.get(b, []))
        w(f"| {b} | {mib(r['swapped_out_pages'] * 4096)} MiB | {sys_ms:.0f} ms | {statistics.median(per_gib[b]) if per_gib.get(b) else 0:.1f} s ({each}) | "
          f"{r['max_events']:.0f}, {r['pgscan']:.0f} / {r['pgsteal']:.0f} | {r['vm_system_ms']:.0f} ms | "
          f"{mib(ram)} MiB | {(ram / (r['swapped_out_pages'] * 4096) if gib else 0):.2f} | {ratio} | {mib(disk)} MiB | "
          f"{(disk / MIB / gib if gib else 0):.0f} MiB | {payer[b]} |")
    w("")
    w(f"`none`: hog system {base['hog_system_us'] / 1000:.0f} ms, user {base['hog_user_us'] / 1000:.0f} ms, "
      f"VM system {base['vm_system_ms']} ms, {mib(base['disk_written'])} MiB written by the rest of the VM "
      f"in its window. Swapped out = pswpout + zswpout. Hog CPU is the cgroup's `cpu.stat` "
      f"system_usec: memory.max makes the process reclaim (and so compress, or submit the writes) "
      f"itself. The whole VM's system time comes from `/proc/stat` (tick-sampled, which an emulated "
      f"VM undercounts: read it as a rough cross-check, not as a cost). Drive writes are "
      f"`/sys/block/{meta['disk']}/stat` sectors written, after `sync`.")
    print("\n".join(out))


if __name__ == "__main__":
    main()
