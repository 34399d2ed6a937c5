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

import statistics

# Two probes further apart than this: not one stretch of the machine.
SAME_STRETCH = 2.0
# A cache line's one-way time from which the two CPUs count as far apart.
FAR_NS = 100.0


def ratios(pairs):
    """Each pair's ratios, and whether its two probes saw one stretch.

    A pair is a dict of its figures (report.py's parse_pairs): c2c_ns,
    c2c_end_ns, raw_mfps_64, raw_gbps_4k, raw_rtt_us, w64_mmps, w64k_gbps,
    r64k_gbps, lat_us, pt_w64_mmps, whichever its files gave."""
    for p in pairs:
        a, b = p.get("c2c_ns"), p.get("c2c_end_ns")
        p["one_stretch"] = not (a and b) or max(a, b) <= SAME_STRETCH * min(a, b)
        for name, num, den, scale in (("w64k", "w64k_gbps", "raw_gbps_4k", 1.0),
                                      ("r64k", "r64k_gbps", "raw_gbps_4k", 1.0),
                                      ("w64", "w64_mmps", "raw_mfps_64", 1.0),
                                      ("dropin", "pt_w64_mmps", "w64_mmps", 1.0),
                                      ("lat", "lat_us", "raw_rtt_us", 0.5)):
            if num in p and den in p and p[den] > 0:
                p[name] = p[num] / (p[den] * scale)
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
