#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""cc_report.py DIR — the figures of bench/suite/cc_bench.sh's logs.
   cc_report.py --json DIR — the same as one JSON object.
   cc_report.py --csv DIR SUFFIX — each QP's rate every sample of the runs
   on-SUFFIX and off-SUFFIX (e.g. q4-r1), for cc-rate-plot.

Per run (MODE-qN-rR.*): the senders' "S" lines (each QP's acknowledged
bytes over time), "Q"/"C"/"E" lines (bytes, counters, a failed WRITE),
bneck's "L" lines (the bottleneck port's counters every 100 ms).

Convergence: the figures of the window [start + CONV, end] (CONV = 1 s;
start is when the flows began, end = start + the flows' seconds), except
'drops all' (the whole run).  Utilisation = bytes the bottleneck port sent
in the window / (rate x window): the frames' bytes, so headers count and
100 % is the port full.  Goodput = the QPs' acknowledged payload in the
window.  Jain's index over the per-QP payload bytes in the window.
Queueing delay = the port's mean queue seen by departing frames (and the
largest queue) in the window x 8 / rate.  Retransmissions: the senders'
go-back-N restarts (sequence NAK or timeout, counter 'retry') and, of
them, timeouts.  Each figure: min / median / max over the runs.
"""
import glob
import json
import os
import re
import statistics
import sys

CONV_NS = 1_000_000_000


def read_setup(d):
    s = {}
    with open(os.path.join(d, "setup")) as f:
        for line in f:
            k, _, v = line.strip().partition(" ")
            s[k] = v
    return s


def at(series, t):
    """Linear interpolation of [(t, v)] at t (clamped to the ends)."""
    if not series:
        return 0.0
    if t <= series[0][0]:
        return series[0][1]
    for (t0, v0), (t1, v1) in zip(series, series[1:]):
        if t0 <= t <= t1:
            return v0 if t1 == t0 else v0 + (v1 - v0) * (t - t0) / (t1 - t0)
    return series[-1][1]


def parse_run(d, name):
    flows = {}      # (sender, qp) -> [(t, bytes, paced_bps)]
    counters = {}   # name -> sum over senders
    errors = []
    for f in sorted(glob.glob(os.path.join(d, name + ".s*"))):
        for line in open(f, errors="replace"):
            p = line.split()
            if not p:
                continue
            if p[0] == "S" and len(p) == 6:
                flows.setdefault((int(p[2]), int(p[3])), []).append(
                    (int(p[1]), int(p[4]), int(p[5])))
            elif p[0] == "C" and len(p) == 4:
                counters[p[2]] = counters.get(p[2], 0) + int(p[3])
            elif p[0] == "E":
                errors.append(line.strip())
    recv = {}
    rf = os.path.join(d, name + ".recv")
    if os.path.exists(rf):
        for line in open(rf, errors="replace"):
            p = line.split()
            if len(p) == 4 and p[0] == "C":
                recv[p[2]] = int(p[3])
    port = []       # (t, tx, tx_bytes, marked, dropped, qsum, qmax)
    bf = os.path.join(d, name + ".bneck")
    if os.path.exists(bf):
        for line in open(bf):
            p = line.split()
            if len(p) == 9 and p[0] == "L" and p[2].endswith("p3"):
                port.append(tuple(int(x) for x in [p[1]] + p[3:]))
    status = open(os.path.join(d, name + ".status")).read().strip() \
        if os.path.exists(os.path.join(d, name + ".status")) else "?"
    return flows, counters, recv, port, errors, status


def figures(d, name, setup):
    rate_bps = float(setup["rate_mbps"]) * 1e6
    seconds = float(setup["seconds"])
    flows, counters, recv, port, errors, status = parse_run(d, name)
    if not flows or not port:
        return None
    start = max(s[0][0] for s in flows.values())
    end = start + int(seconds * 1e9)
    a, b = start + CONV_NS, end
    per_qp = []
    for key in sorted(flows):
        s = [(t, v) for t, v, _ in flows[key]]
        per_qp.append(at(s, b) - at(s, a))
    n = len(per_qp)
    sq = sum(x * x for x in per_qp)
    jain = (sum(per_qp) ** 2) / (n * sq) if sq > 0 else 0.0
    col = {k: [(p[0], p[i]) for p in port]
           for i, k in enumerate(["t", "tx", "bytes", "marked", "dropped",
                                  "qsum", "qmax"]) if i > 0}
    dt = (b - a) / 1e9
    tx = at(col["tx"], b) - at(col["tx"], a)
    qmean = (at(col["qsum"], b) - at(col["qsum"], a)) / tx if tx > 0 else 0
    qmax = max([p[6] for p in port if a <= p[0] <= b + 100_000_000] or [0])
    return {
        "status": status,
        "errors": len(errors),
        "drops_conv": round(at(col["dropped"], b) - at(col["dropped"], a)),
        "drops_all": port[-1][4],
        "marked": port[-1][3],
        "util_pct": 100.0 * (at(col["bytes"], b) - at(col["bytes"], a)) * 8
                    / (rate_bps * dt),
        "goodput_mbps": sum(per_qp) * 8 / dt / 1e6,
        "jain": jain,
        "min_share_pct": 100.0 * min(per_qp) / (sum(per_qp) / n) if sum(per_qp) else 0,
        "qmean_kib": qmean / 1024,
        "qmax_kib": qmax / 1024,
        "qdelay_mean_ms": qmean * 8 / rate_bps * 1e3,
        "qdelay_max_ms": qmax * 8 / rate_bps * 1e3,
        "retry": counters.get("retry", 0),
        "timeout": counters.get("timeout", 0),
        "retry_exc": counters.get("retry_exc", 0),
        "cnp_sent": recv.get("cnp_sent", 0),
        "cnp_rcvd": counters.get("cnp_rcvd", 0),
    }


def runs(d):
    out = {}
    for f in sorted(glob.glob(os.path.join(d, "*.status"))):
        name = os.path.basename(f)[:-len(".status")]
        m = re.match(r"(on|off)-q(\d+)-r(\d+)$", name)
        if m:
            out.setdefault((m.group(1), int(m.group(2))), []).append(name)
    return out


ROWS = [("drops after conv.", "drops_conv", "%.0f"),
        ("drops, whole run", "drops_all", "%.0f"),
        ("CE marks", "marked", "%.0f"),
        ("utilisation %", "util_pct", "%.1f"),
        ("goodput Mbit/s", "goodput_mbps", "%.1f"),
        ("Jain's index", "jain", "%.3f"),
        ("smallest QP, % of fair", "min_share_pct", "%.0f"),
        ("queue mean KiB", "qmean_kib", "%.1f"),
        ("queue max KiB", "qmax_kib", "%.1f"),
        ("q. delay mean ms", "qdelay_mean_ms", "%.2f"),
        ("q. delay max ms", "qdelay_max_ms", "%.2f"),
        ("retransmissions", "retry", "%.0f"),
        ("  of them timeouts", "timeout", "%.0f"),
        ("RETRY_EXC", "retry_exc", "%.0f"),
        ("CNPs sent", "cnp_sent", "%.0f"),
        ("CNPs received", "cnp_rcvd", "%.0f")]


def summary(d):
    setup = read_setup(d)
    res = {}
    for (mode, nq), names in sorted(runs(d).items(), key=lambda x: (x[0][1], x[0][0] != "on")):
        figs = [f for f in (figures(d, n, setup) for n in names) if f]
        res["%s-q%d" % (mode, nq)] = {"runs": len(names), "ok": sum(
            1 for f in figs if f["status"] == "ok"), "figures": figs}
    return setup, res


def text(d):
    setup, res = summary(d)
    print("bottleneck %s Mbit/s, queue %s B, CE marking %s..%s B (Pmax %s %%), "
          "%s s flows, figures after the first 1 s; min / median / max over runs"
          % (setup["rate_mbps"], setup["queue"], setup["kmin"], setup["kmax"],
             setup["pmax"], setup["seconds"]))
    print("DCQCN: %s" % (setup.get("dcqcn") or "ConnectX's defaults"))
    cases = list(res)
    print("%-24s" % "" + "".join("%-24s" % ("CC %s, %s QPs (%d/%d ok)" % (
        c.split("-")[0], c.split("-q")[1], res[c]["ok"], res[c]["runs"])) for c in cases))
    for label, key, fmt in ROWS:
        line = "%-24s" % label
        for c in cases:
            v = sorted(f[key] for f in res[c]["figures"])
            if not v:
                line += "%-24s" % "-"
                continue
            cell = "/".join(fmt % x for x in (v[0], statistics.median(v), v[-1]))
            line += "%-24s" % cell
        print(line)


def csv(d, suffix):
    setup = read_setup(d)
    print("panel,qp,t_s,rate_mbps,paced_mbps")
    for mode in ("on", "off"):
        flows = parse_run(d, "%s-%s" % (mode, suffix))[0]
        if not flows:
            continue
        t0 = max(s[0][0] for s in flows.values())
        for (snd, qp), s in sorted(flows.items()):
            for (ta, va, _), (tb, vb, pb) in zip(s, s[1:]):
                if tb <= ta or ta < t0:
                    continue
                print("CC %s,sender %d QP %d,%.3f,%.2f,%.2f" % (
                    mode, snd, qp, (tb - t0) / 1e9,
                    (vb - va) * 8 / ((tb - ta) / 1e9) / 1e6, pb / 1e6))
    _ = setup


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "--csv":
        csv(sys.argv[2], sys.argv[3])
    elif len(sys.argv) == 3 and sys.argv[1] == "--json":
        print(json.dumps({"setup": summary(sys.argv[2])[0],
                          "cases": summary(sys.argv[2])[1]}, indent=1))
    elif len(sys.argv) == 2:
        text(sys.argv[1])
    else:
        sys.exit(__doc__)
