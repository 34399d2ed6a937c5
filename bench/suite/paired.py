# SPDX-License-Identifier: BSD-3-Clause
"""The round-two goals (#21) from pairs of runs made back to back.

paired_bench.sh leaves, per pair I, RAW/paired/I.{c2c,link,rdma,perftest,
c2c-end}.txt: the cache line's one-way time between the two CPUs, the raw
memif link, sroce on the same link, perftest through the drop-in, and the
cache line's time again.  Each ratio is taken within one pair, so both of
its runs saw the same stretch of the machine; a pair whose two probes
differ by more than SAME_STRETCH times saw the machine change under it and
is shown but not counted.  The pairs that count fall into two kinds of
stretch, the CPUs near each other (a line crosses in tens of ns) or far
apart (hundreds); a goal is met when the median of each kind present
meets it (it must hold wherever the VM's CPUs are), and each kind's
range is shown.
"""

# Two probes further apart than this: not one stretch of the machine.
SAME_STRETCH = 2.0
# A cache line's one-way time from which the two CPUs count as far apart.
FAR_NS = 100.0
import glob
import json
import os
import re
import statistics


def _read(path):
    try:
        with open(path, errors="replace") as f:
            return f.read()
    except OSError:
        return ""


def _pair(raw, i):
    p = {"pair": i}
    base = os.path.join(raw, "paired", str(i))
    for suffix, key in ((".c2c.txt", "c2c_ns"), (".c2c-end.txt", "c2c_end_ns")):
        for line in _read(base + suffix).splitlines():
            if line.startswith("{"):
                p[key] = json.loads(line)["one_way_ns"]
    a, b = p.get("c2c_ns"), p.get("c2c_end_ns")
    p["one_stretch"] = not (a and b) or max(a, b) <= SAME_STRETCH * min(a, b)
    for line in _read(base + ".link.txt").splitlines():
        f = line.split()
        if len(f) == 4 and f[0] in ("64", "4096") and re.match(r"^[0-9.]+$", f[2]):
            if f[0] == "64":
                p["raw_mfps_64"] = float(f[2])
            else:
                p["raw_gbps_4k"] = float(f[3])
        mo = re.search(r"RTT min [0-9.]+ us, median ([0-9.]+) us", line)
        if mo:
            p["raw_rtt_us"] = float(mo.group(1))
    for line in _read(base + ".rdma.txt").splitlines():
        if not line.startswith("{"):
            continue
        r = json.loads(line)
        if r.get("test") == "bw" and r.get("qps") == 1:
            if r["op"] == "WRITE" and r["size"] == 64:
                p["w64_mmps"] = r["mmps"]
            elif r["op"] == "WRITE" and r["size"] == 65536:
                p["w64k_gbps"] = r["gbps"]
            elif r["op"] == "READ" and r["size"] == 65536:
                p["r64k_gbps"] = r["gbps"]
        elif r.get("test") == "lat" and r["op"] == "WRITE" and r["size"] == 64:
            p["lat_us"] = r["median_us"]
    rows = [l.split() for l in _read(base + ".perftest.txt").splitlines()
            if re.match(r"^\s*64\s+[0-9]+\s+[0-9.]+", l)]
    if rows:
        p["pt_w64_mmps"] = float(rows[-1][4])
    return p


def parse(raw):
    """The pairs of this run, in order, with the ratios each allows."""
    pairs = []
    for path in glob.glob(os.path.join(raw, "paired", "*.c2c.txt")):
        i = int(os.path.basename(path).split(".")[0])
        pairs.append(_pair(raw, i))
    pairs.sort(key=lambda p: p["pair"])
    for p in pairs:
        def ratio(name, num, den, scale=1.0):
            if num in p and den in p and p[den] > 0:
                p[name] = p[num] / (p[den] * scale)
        ratio("w64k", "w64k_gbps", "raw_gbps_4k")
        ratio("r64k", "r64k_gbps", "raw_gbps_4k")
        ratio("w64", "w64_mmps", "raw_mfps_64")
        ratio("dropin", "pt_w64_mmps", "w64_mmps")
        ratio("lat", "lat_us", "raw_rtt_us", 0.5)
    return pairs


# (ratio key, goal label, goal, lower is better)
GOALS = [
    ("w64k", "WRITE 64 KiB, 1 QP / raw memif 4 KiB bytes (round two)", 0.90, False),
    ("r64k", "READ 64 KiB, 1 QP / raw memif 4 KiB bytes", 0.85, False),
    ("w64", "WRITE 64 B, 1 QP, msg/s / raw memif 64 B frames/s", 0.60, False),
    ("dropin", "ib_write_bw -s 64 (drop-in) / native sroce, msg/s", 0.95, False),
    ("lat", "WRITE 64 B latency, half RTT / half raw memif RTT", 1.3, True),
]


def _shown(v, low):
    return f"{v:.2f}x" if low else f"{v * 100:.0f} %"


def _kind(p):
    return "far" if p.get("c2c_ns", 0) >= FAR_NS else "near"


def goals(pairs):
    """Goal rows [figure, goal, measured, status]: met in every kind of stretch."""
    rows = []
    for key, label, goal, low in GOALS:
        parts, ok = [], True
        for kind in ("near", "far"):
            vals = [p[key] for p in pairs
                    if key in p and p["one_stretch"] and _kind(p) == kind]
            if not vals:
                continue
            med = statistics.median(vals)
            ok = ok and (med <= goal if low else med >= goal)
            parts.append(f"CPUs {kind}: {_shown(med, low)} ({_shown(min(vals), low)}"
                         f"-{_shown(max(vals), low)}, {len(vals)} pairs)")
        if not parts:
            continue
        want = f"<= {goal:.1f}x" if low else f">= {goal * 100:.0f} %"
        rows.append([label + " [paired]", want, "; ".join(parts),
                     "met" if ok else "not met"])
    return rows


def table(pairs, fmt, table_fn):
    """The pairs, one row each: the c2c probe, the raw link, sroce, ratios."""
    def f(p, k, nd=2, pct=False):
        if k not in p:
            return "-"
        return f"{p[k] * 100:.0f} %" if pct else fmt(p[k], nd)
    rows = [[f"{p['pair']}" + ("" if p["one_stretch"] else " (changed)"),
             f(p, "c2c_ns", 0) + " / " + f(p, "c2c_end_ns", 0),
             f(p, "raw_mfps_64", 1),
             f(p, "raw_gbps_4k", 0), f(p, "raw_rtt_us"),
             f(p, "w64_mmps"), f(p, "w64", pct=True),
             f(p, "w64k_gbps", 0), f(p, "w64k", pct=True),
             f(p, "r64k_gbps", 0), f(p, "r64k", pct=True),
             f(p, "lat_us"), f(p, "lat"), f(p, "pt_w64_mmps"),
             f(p, "dropin", pct=True)] for p in pairs]
    return ("\nPaired runs: the raw memif link, then sroce on it, back to "
            "back (bench/suite/paired_bench.sh; c2c: a cache line's one-way "
            "time between the two CPUs before and after the pair, ns — a pair "
            "whose two differ by more than 2x is marked changed and not "
            "counted in the goals, and from 100 ns the CPUs count as far "
            "apart; raw: 64 B "
            "Mframes/s, 4 KiB-frame Gbit/s, 64 B ping-pong RTT us; sroce 1 QP: "
            "WRITE 64 B M msg/s, WRITE / READ 64 KiB Gbit/s, WRITE 64 B half "
            "RTT us; drop-in: perftest ib_write_bw -s 64 M msg/s)\n\n" +
            table_fn(["pair", "c2c", "raw 64", "raw 4K", "raw RTT",
                      "W64", "/raw", "W64K", "/raw", "R64K", "/raw",
                      "lat", "/raw half", "drop-in", "/native"], rows))
