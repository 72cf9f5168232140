#!/usr/bin/env python3
# report.py RAW_DIR RESULTS_DIR MOUNT: turn benchrun's raw series into latest.md and latest.json.
# Every figure is a median over the recorded runs; "above start" subtracts the median of one
# process start (/bin/true) measured in the same run. Budgets come from the issue
# "Benchmarks against the tools nodeswap replaces"; a missed budget is shown as missed.
import json
import os
import re
import statistics
import sys

raw, out, mnt = sys.argv[1], sys.argv[2], sys.argv[3]


def load(name):
    p = os.path.join(raw, name + '.json')
    if not os.path.exists(p):
        return None
    with open(p) as f:
        return json.load(f)


machine = load('machine')
machine.update(load('machine-end') or {})
series = {}
for fn in sorted(os.listdir(raw)):
    if fn.endswith('.json') and fn not in ('machine.json', 'machine-end.json', 'noop-second.json'):
        d = load(fn[:-5])
        if isinstance(d, dict) and 'wall_ns' in d:
            series[d['name']] = d

# One process start: /bin/true at the beginning and at the end of the run, pooled.
start_samples = series['process-start']['wall_ns'] + (series.get('process-start-end') or {}).get('wall_ns', [])
start_ms = statistics.median(start_samples) / 1e6
start_faults = statistics.median(series['process-start'].get('page_faults') or [0])


def stats(name):
    d = series.get(name)
    if not d:
        return None
    ms = [x / 1e6 for x in d['wall_ns']]
    s = {
        'runs': len(ms),
        'median_ms': statistics.median(ms),
        'min_ms': min(ms),
        'max_ms': max(ms),
        # paired with the /bin/true run just before each run when there is one
        'above_start_ms': (statistics.median([(w - b) / 1e6 for w, b in zip(d['wall_ns'], d['baseline_ns'])])
                           if d.get('baseline_ns') else statistics.median(ms) - start_ms),
        'max_rss_kib': max(d['maxrss_kib']),
        'page_faults_median': statistics.median(d['page_faults']) if d.get('page_faults') else None,
        'cpu_ms_median': statistics.median(d['cpu_ns']) / 1e6 if d.get('cpu_ns') else None,
        'command': d['command'],
        'wall_ms': [round(x, 3) for x in ms],
    }
    if d.get('bytes_written') is not None:
        s['bytes_written_median'] = statistics.median(d['bytes_written'])
        s['bytes_written'] = d['bytes_written']
    return s


S = {name: stats(name) for name in series}


def ratio(a, b):
    """how many times more work above a process start b does than a"""
    if not S.get(a) or not S.get(b) or S[a]['above_start_ms'] <= 0:
        return None
    return S[b]['above_start_ms'] / S[a]['above_start_ms']


def fmt_ms(v):
    return '—' if v is None else (f'{v:.3f}' if abs(v) < 10 else f'{v:.1f}' if abs(v) < 1000 else f'{v:.0f}')


def fmt_bytes(v):
    if v is None:
        return '—'
    if v < 4 << 20:
        return f'{v / 1024:.0f} KiB'
    return f'{v / (1 << 20):.0f} MiB'


def fmt_n(v):
    return '—' if v is None else f'{v:.0f}'


def fmt_x(v):
    return '—' if v is None else f'{v:.1f}×'


# --- no-op: what the strace of one run shows ---------------------------------------------------------
noop = {'sys_proc_writes': [], 'opened_for_writing': [], 'connects': [], 'children': 0, 'changed': None,
        'restart_actions': None}
st = os.path.join(raw, 'noop.strace')
if os.path.exists(st):
    for line in open(st):
        m = re.search(r'\b(write|pwrite64|writev)\((\d+)<([^>]*)>', line)
        if m and (m.group(3).startswith('/sys/') or m.group(3).startswith('/proc/')):
            noop['sys_proc_writes'].append(line.strip())
        m = re.search(r'\b(open|openat|creat)\([^"]*"([^"]*)", ([A-Z_|]+)', line)
        if m and re.search(r'O_WRONLY|O_RDWR|O_CREAT|O_TRUNC', m.group(3)) and '= -1' not in line:
            noop['opened_for_writing'].append(f'{m.group(2)} ({m.group(3)})')
        if re.search(r'\bconnect\(', line):
            noop['connects'].append(line.strip())
        if re.search(r'\b(fork|vfork|clone|clone3)\(', line) and '= -1' not in line:
            noop['children'] += 1
try:
    d = load('noop-second')
    noop['changed'] = d.get('changed')
    noop['restart_actions'] = sum(1 for a in d.get('actions', []) if a.get('kind') == 'restart-unit')
    noop['actions'] = [a.get('kind') for a in d.get('actions', [])]
except Exception as e:  # noqa: BLE001 (the report says so)
    noop['error'] = str(e)

# --- switch ----------------------------------------------------------------------------------------------
switch_runs = []
p = os.path.join(raw, 'switch-runs.txt')
if os.path.exists(p):
    for line in open(p):
        f = line.split()
        if len(f) >= 6 and not f[0].startswith('-'):
            switch_runs.append({'run': int(f[0]), 'zram_used_before_kib': int(f[1]),
                                'file_used_after_kib': int(f[2] or 0), 'zram_devices_left': int(f[3]),
                                'oom_kills': int(f[4]), 'memhog': ' '.join(f[5:])})

zramswap_note = open(os.path.join(raw, 'zramswap-note.txt')).read().strip() if os.path.exists(
    os.path.join(raw, 'zramswap-note.txt')) else ''

# --- budgets -----------------------------------------------------------------------------------------------
budgets = []


def budget(what, target, measured, ok):
    budgets.append({'budget': what, 'target': target, 'measured': measured,
                    'met': None if ok is None else bool(ok)})


g = S.get('gen-nodeswap')
budget('generator: work above one process start', '≤ 0.7 ms', f"{fmt_ms(g and g['above_start_ms'])} ms",
       g and g['above_start_ms'] <= 0.7)
r = ratio('gen-nodeswap', 'gen-zram-generator')
budget('generator: less work than zram-generator', '≥ 30×', fmt_x(r), r and r >= 30)
z, fl = S.get('zram-nodeswap'), S.get('zram-floor')
zr = z and fl and fl['above_start_ms'] > 0 and z['above_start_ms'] / fl['above_start_ms']
budget('zram: nodeswap apply vs the C floor (above start)', '≤ 1.25×', fmt_x(zr), zr and zr <= 1.25)
# The two series run interleaved in rounds (run.sh): the median of the rounds' ratios, each taken
# under one load, is the steadier figure on a shared machine.
zrounds = load('zram-rounds')
zrr = zrounds and [x for x in zrounds['ratios'] if x is not None]
zrm = statistics.median(zrr) if zrr else None
budget('zram: nodeswap apply vs the C floor, median of the interleaved rounds\' ratios (issue 16: ≤ 2×)', '≤ 2×',
       fmt_x(zrm) + (f" ({len(zrr)} rounds of {zrounds['round_runs']}, {fmt_x(min(zrr))}–{fmt_x(max(zrr))})" if zrr else ''),
       zrm and zrm <= 2)
r = ratio('zram-nodeswap', 'zram-zram-generator')
budget('zram: less work than zram-generator --setup-device + swapon', '≥ 15×', fmt_x(r), r and r >= 15)
for size in ('16G', '2G'):
    n = S.get(f'file-{size}-nodeswap')
    if n:
        if size == '16G':
            budget(f'swap file {size}: bytes nodeswap writes', '< 1 MiB', fmt_bytes(n.get('bytes_written_median')),
                   n.get('bytes_written_median') is not None and n['bytes_written_median'] < (1 << 20))
        r = ratio(f'file-{size}-nodeswap', f'file-{size}-dphys-swapfile')
        if size == '16G':
            budget(f'swap file {size}: faster than dd (dphys-swapfile)', '≥ 50×', fmt_x(r), r and r >= 50)
        else:
            budget(f'swap file {size}: faster than dd (for information; the budget is at 16 GiB)', '—', fmt_x(r), None)
        fa = S.get(f'file-{size}-fallocate')
        if size == '16G' and fa:
            budget(f'swap file {size}: bytes written by the fallocate + mkswap floor (for information)', '—',
                   fmt_bytes(fa.get('bytes_written_median')), None)
n = S.get('noop-nodeswap')
budget('no-op apply: work above one process start', '≤ 2 ms', f"{fmt_ms(n and n['above_start_ms'])} ms",
       n and n['above_start_ms'] <= 2)
budget('no-op apply: writes under /sys and /proc', '0', str(len(noop['sys_proc_writes'])),
       len(noop['sys_proc_writes']) == 0)
budget('no-op apply: restarts', '0', f"{noop['restart_actions']} restart actions, {len(noop['connects'])} connect()s",
       noop['restart_actions'] == 0)
ok_switch = switch_runs and all(x['memhog'].startswith('ok') and x['oom_kills'] == 0 and x['zram_devices_left'] == 0
                                 and x['file_used_after_kib'] >= 0.9 * x['zram_used_before_kib'] for x in switch_runs)
budget('switch zram → file: process survives, checksum ok, pages on the file', 'every run',
       f"{sum(1 for x in switch_runs if x['memhog'].startswith('ok'))}/{len(switch_runs)} ok", ok_switch)

# --- markdown -----------------------------------------------------------------------------------------------
rows = [
    ('0 start only', '`nodeswap --version` (loader + libraries)', 'startup-nodeswap', None),
    ('1 generator', 'nodeswap-generator (full policy)', 'gen-nodeswap', None),
    ('1 generator', 'zram-generator (zram0 section)', 'gen-zram-generator', 'gen-nodeswap'),
    ('2 zram 2 GiB lz4 prio 100', '`nodeswap apply`', 'zram-nodeswap', None),
    ('2 zram 2 GiB lz4 prio 100', 'C floor (hot_add, sysfs, header, swapon)', 'zram-floor', 'zram-nodeswap'),
    ('2 zram 2 GiB lz4 prio 100', 'zram-generator --setup-device + swapon', 'zram-zram-generator', 'zram-nodeswap'),
    ('2 zram 2 GiB lz4 prio 100', 'zram-tools `zramswap start`', 'zram-zramswap', 'zram-nodeswap'),
]
sizes = sorted({n.split('-')[1] for n in S if n.startswith('file-')},
               key=lambda x: float(x[:-1]) * {'K': 1, 'M': 1 << 10, 'G': 1 << 20, 'T': 1 << 30}[x[-1]])
for size in sizes:
    label = f'3 swap file {size[:-1]} {size[-1]}iB, ext4 on loop'
    rows += [
        (label, '`nodeswap apply`', f'file-{size}-nodeswap', None),
        (label, 'fallocate + mkswap + swapon', f'file-{size}-fallocate', f'file-{size}-nodeswap'),
        (label, 'dphys-swapfile setup + swapon (dd)', f'file-{size}-dphys-swapfile', f'file-{size}-nodeswap'),
    ]
rows += [
    ('4 no-op apply (node matches)', '`nodeswap apply`', 'noop-nodeswap', None),
    ('5 switch zram → file, 512 MiB out', '`nodeswap apply`', 'switch-nodeswap', None),
]

md = []
md.append('# nodeswap benchmarks: latest run\n')
md.append(f"{machine['date']} · {machine['nproc']} CPUs ({machine['cpu']}) · "
          f"{machine['mem_total_kib'] / 1048576:.1f} GiB RAM · kernel {machine['kernel']} · {machine['nodeswap']}  ")
vm = machine.get('qemu_running_at_start', 0) or machine.get('qemu_running_at_end', 0)
md.append(f"Other load: {'a qemu VM was running (figures are noisier)' if vm else 'no qemu VM running'} "
          f"(qemu processes at start/end: {machine.get('qemu_running_at_start')}/{machine.get('qemu_running_at_end')}; "
          f"load average at start {machine.get('loadavg_at_start')}, at end {machine.get('loadavg_at_end')}).  ")
md.append(f"One process start (`/bin/true`, fork+exec+wait): **{start_ms:.3f} ms** median over "
          f"{len(start_samples)} runs (half at the start, half at the end of the run; {start_faults:.0f} page faults); "
          "\"above start\" is the median over runs of (run − a `/bin/true` started just before it, under the same "
          "load): one process start subtracted per command line measured, whatever number of processes the tool "
          "starts itself. Page faults and CPU time are summed over every process a tool starts.\n")
md.append('| measurement | tool | runs | median ms | above start ms | ratio to nodeswap (above start) | '
          'bytes written | peak RSS | page faults | CPU ms |')
md.append('|---|---|---:|---:|---:|---:|---:|---:|---:|---:|')
for label, tool, name, vs in rows:
    s = S.get(name)
    if not s:
        md.append(f'| {label} | {tool} | — | not run | | | | | | |')
        continue
    rt = ratio(vs, name) if vs else None
    md.append(f"| {label} | {tool} | {s['runs']} | {fmt_ms(s['median_ms'])} | {fmt_ms(s['above_start_ms'])} | "
              f"{fmt_x(rt) if vs else ''} | {fmt_bytes(s.get('bytes_written_median'))} | "
              f"{s['max_rss_kib'] / 1024:.1f} MiB | {fmt_n(s['page_faults_median'])} | {fmt_ms(s['cpu_ms_median'])} |")
md.append('')
md.append('| budget | target | measured | met |')
md.append('|---|---|---|---|')
for b in budgets:
    met = 'yes' if b['met'] else ('**MISSED**' if b['met'] is not None else '—')
    md.append(f"| {b['budget']} | {b['target']} | {b['measured']} | {met} |")
md.append('')
md.append('Notes')
md.append('')
md.append('- Ratios are the other tool\'s work above one process start divided by nodeswap\'s; a ratio above 1 '
          'means nodeswap does less.')
md.append('- The C floor and nodeswap make a new zram device (hot_add); zram-generator and zramswap use the '
          'existing free zram0 (their design). Setup and teardown between runs are not timed.')
if zramswap_note:
    md.append(f'- zramswap: {zramswap_note}.')
noop_note = open(os.path.join(raw, 'noop-note.txt')).read().strip() if os.path.exists(
    os.path.join(raw, 'noop-note.txt')) else ''
if noop_note:
    md.append(f'- No-op apply: {noop_note}.')
zr_rounds = load('zram-rounds')
if zr_rounds:
    md.append(f"- zram: nodeswap and the C floor ran interleaved, {len(zr_rounds['ratios'])} rounds of "
              f"{zr_rounds['round_runs']} runs each, so that both saw the same load; the ratios of the rounds were "
              + ', '.join(fmt_x(x) for x in zr_rounds['ratios']) + '.')
md.append('- zram-generator as a generator runs with ZRAM_GENERATOR_ROOT (its test mode: config and /proc/meminfo '
          'from that root, no device created); it still starts `systemd-detect-virt` and tries `modprobe '
          'crypto-lz4` when lz4 is not in /proc/crypto, which is part of what it costs at boot.')
md.append('- dphys-swapfile runs as shipped, except that its config and fstab paths point at the benchmark\'s own '
          'files; it swaps on without a priority. Bytes written are sectors written to the loop device '
          '(/sys/block/loopN/stat) after syncfs, so write-back is counted.')
d16 = S.get('file-16G-dphys-swapfile')
if d16 and d16['runs'] < 15:
    md.append(f"- dd of 16 GiB (dphys-swapfile) ran {d16['runs']} times, the others at least 15.")
md.append(f"- No-op apply (strace of one run): {len(noop['sys_proc_writes'])} writes under /sys or /proc, "
          f"{len(noop['opened_for_writing'])} files opened for writing"
          f"{' (' + ', '.join(sorted(set(noop['opened_for_writing']))) + ')' if noop['opened_for_writing'] else ''}, "
          f"{len(noop['connects'])} connect() calls, {noop['children']} child processes; second apply "
          f"reported changed={noop['changed']} with actions {noop.get('actions')}.")
if switch_runs:
    md.append('- Switch: a process in its own memory cgroup (limit 256 MiB) holds 768 MiB of incompressible '
              'data, ~512 MiB of it on the zram device; timed is `nodeswap apply` of a file-only policy '
              '(file created and swapped on, zram swapped off and removed). Per run: zram used before → '
              'file used after (MiB), OOM kills, checksum: ' + '; '.join(
                  f"{x['zram_used_before_kib'] / 1024:.0f} → {x['file_used_after_kib'] / 1024:.0f}, "
                  f"{x['oom_kills']}, {x['memhog'].split()[0]}" for x in switch_runs[:20]) + '.')
st_, no_, zr_, fl_ = S.get('startup-nodeswap'), S.get('noop-nodeswap'), S.get('zram-nodeswap'), S.get('zram-floor')
if st_ and no_ and zr_ and fl_:
    md.append(f"- Where nodeswap's time goes: starting it with no work (`--version`: the loader mapping libmount, "
              f"libblkid, libjson-c, libinih and what they pull in; libsystemd is loaded with dlopen() only when "
              f"nodeswap talks to systemd) is {fmt_ms(st_['above_start_ms'])} ms "
              f"above `/bin/true` and {st_['page_faults_median'] - start_faults:.0f} more page faults; the no-op apply "
              f"takes {no_['page_faults_median']:.0f} page faults and zram provisioning "
              f"{zr_['page_faults_median']:.0f}, against {fl_['page_faults_median']:.0f} for the C floor. "
              "See tests/bench/README.md, Findings, for where the rest goes.")
md.append('')

os.makedirs(out, exist_ok=True)
with open(os.path.join(out, 'latest.md'), 'w') as f:
    f.write('\n'.join(md) + '\n')
with open(os.path.join(out, 'latest.json'), 'w') as f:
    json.dump({'machine': machine, 'process_start_ms': start_ms, 'process_start_page_faults': start_faults, 'series': S, 'budgets': budgets,
               'noop': noop, 'switch_runs': switch_runs, 'zramswap_note': zramswap_note}, f, indent=1)
print('\n'.join(md))
