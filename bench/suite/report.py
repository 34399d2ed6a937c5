#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""report.py RAW_DIR OUT_DIR — the benchmark suite's report.

Reads what scripts/bench.sh left in RAW_DIR (raw link tables, the JSON
lines of sroce-bench-rdma and sroce-bench-stages, perftest output, the
wire and mr micro-benchmarks, machine.txt) and writes to OUT_DIR:

  results.txt   the tables (what the README shows)
  results.json  {"machine": {...}, "records": [...], "goals": [...]}
  results.csv   one row per figure
  bandwidth.png bandwidth against message size, sroce and the raw link
                (gnuplot; skipped when it is missing)

The raw link and sroce's points are the best of their repeats (the
machine is shared).  Ratios are to the raw memif link of the same run: byte rates to its
4 KiB-frame Gbit/s, message rates to its 64 B frames/s, latencies to half
its 64 B round trip (READ: the whole round trip).  The raw link counts
frame bytes at the receiver; sroce counts payload bytes.  The round-two
goals come from pairs of runs made back to back when the run has them
(paired.py): the one comparison this kind of VM allows.
Standard library only.
"""
import csv
import glob
import json
import os
import re
import subprocess
import sys

import paired


def read(path):
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.read()
    except OSError:
        return ""


def json_lines(path):
    out = []
    for line in read(path).splitlines():
        if line.startswith("{"):
            try:
                out.append(json.loads(line))
            except ValueError:
                pass
    return out


def parse_machine(raw):
    m = {}
    for line in read(os.path.join(raw, "machine.txt")).splitlines():
        if "=" in line:
            k, v = line.split("=", 1)
            m[k] = v
    return m


def parse_link(path, link):
    recs = []
    for line in read(path).splitlines():
        f = line.split()
        if len(f) == 4 and f[0].isdigit() and re.match(r"^[0-9.]+$", f[2]):
            recs.append({"source": "link", "link": link, "test": "frames",
                         "size": int(f[0]), "frames": int(f[1]),
                         "mfps": float(f[2]), "gbps": float(f[3])})
        mo = re.search(r"RTT min ([0-9.]+) us, median ([0-9.]+) us, "
                       r"mean ([0-9.]+) us, p99 ([0-9.]+) us", line)
        if mo:
            recs.append({"source": "link", "link": link, "test": "pingpong",
                         "size": 64, "rtt_min_us": float(mo.group(1)),
                         "rtt_median_us": float(mo.group(2)),
                         "rtt_p99_us": float(mo.group(4))})
    return recs


def best_link(raw, link):
    """The best of the runs: highest Gbit/s per frame, lowest median RTT."""
    best = {}
    for path in sorted(glob.glob(os.path.join(raw, f"link_{link}.*.txt"))):
        for r in parse_link(path, link):
            key = (r["test"], r["size"])
            old = best.get(key)
            if old is None or (r["test"] == "frames" and r["gbps"] > old["gbps"]) \
                    or (r["test"] == "pingpong" and
                        r["rtt_median_us"] < old["rtt_median_us"]):
                best[key] = r
    return [best[k] for k in sorted(best)]


def parse_perftest(raw):
    recs = []
    for path in sorted(glob.glob(os.path.join(raw, "perftest", "*.txt"))):
        name = os.path.basename(path)[:-4]
        text = read(path)
        parts = name.split("-")
        kind = parts[0]
        rows = [l.split() for l in text.splitlines()
                if re.match(r"^\s*[0-9]+\s+[0-9]+\s+[0-9.]+", l)]
        ok = "failed" not in text and rows
        if kind == "bw" and ok:
            op, size, qps = parts[1].upper(), int(parts[2]), int(parts[3][1:])
            r = rows[-1]
            recs.append({"source": "perftest", "test": "bw", "op": op,
                         "size": size, "qps": qps, "mode": "inline",
                         "gbps": float(r[3]), "mmps": float(r[4])})
        elif kind == "bwt" and ok:         # bwt-OP-SIZE-qN-tDEPTH: -t DEPTH
            op, size, qps = parts[1].upper(), int(parts[2]), int(parts[3][1:])
            r = rows[-1]
            recs.append({"source": "perftest", "test": "bw-depth", "op": op,
                         "size": size, "qps": qps, "depth": int(parts[4][1:]),
                         "mode": "inline", "gbps": float(r[3]),
                         "mmps": float(r[4])})
        elif kind == "bwref" and ok:       # bwref-OP-SIZE-q1-forN: before -q N
            op, size = parts[1].upper(), int(parts[2])
            r = rows[-1]
            recs.append({"source": "perftest", "test": "bw-ref", "op": op,
                         "size": size, "qps": 1, "for_qps": int(parts[4][3:]),
                         "mode": "inline", "gbps": float(r[3]),
                         "mmps": float(r[4])})
        elif kind == "lat" and ok:
            op, size, mode = parts[1].upper(), int(parts[2]), parts[3]
            r = rows[-1]
            recs.append({"source": "perftest", "test": "lat", "op": op,
                         "size": size, "mode": mode,
                         "median_us": float(r[4]), "p99_us": float(r[7]),
                         "half_rtt": op != "READ"})
        elif kind == "atomic" and ok:
            op = "FETCH_ADD" if "FETCH" in name else "CMP_SWAP"
            recs.append({"source": "perftest", "test": "atomic", "op": op,
                         "qps": 1, "mode": "inline",
                         "mops": float(rows[-1][-1])})
        elif not ok:
            recs.append({"source": "perftest", "test": "failed",
                         "name": name})
    return recs


def parse_pairs(raw):
    """The paired runs (paired_bench.sh): one dict of figures per pair."""
    pairs = []
    for path in glob.glob(os.path.join(raw, "paired", "*.c2c.txt")):
        i = int(os.path.basename(path).split(".")[0])
        base = os.path.join(raw, "paired", str(i))
        p = {"pair": i}
        for suffix, key in ((".c2c.txt", "c2c_ns"), (".c2c-end.txt", "c2c_end_ns")):
            for r in json_lines(base + suffix):
                p[key] = r["one_way_ns"]
        for r in parse_link(base + ".link.txt", "memif"):
            if r["test"] == "frames" and r["size"] == 64:
                p["raw_mfps_64"] = r["mfps"]
            elif r["test"] == "frames" and r["size"] == 4096:
                p["raw_gbps_4k"] = r["gbps"]
            elif r["test"] == "pingpong":
                p["raw_rtt_us"] = r["rtt_median_us"]
        for r in json_lines(base + ".rdma.txt"):
            if r.get("test") == "bw" and r.get("qps") == 1:
                want = {("WRITE", 64): ("w64_mmps", "mmps"),
                        ("WRITE", 65536): ("w64k_gbps", "gbps"),
                        ("READ", 65536): ("r64k_gbps", "gbps")}.get((r["op"], r["size"]))
                if want:
                    p[want[0]] = r[want[1]]
            elif r.get("test") == "lat" and r["op"] == "WRITE" and r["size"] == 64:
                p["lat_us"] = r["median_us"]
        rows = [l.split() for l in read(base + ".perftest.txt").splitlines()
                if re.match(r"^\s*64\s+[0-9]+\s+[0-9.]+", l)]
        if rows:
            p["pt_w64_mmps"] = float(rows[-1][4])
        pairs.append(p)
    return paired.ratios(sorted(pairs, key=lambda p: p["pair"]))


def stages_of(recs, payload):
    """sroce-bench-stages' ns per packet of one payload: {(side, stage): ns}."""
    return {(r["side"], r["stage"]): r["ns"] for r in recs
            if r["source"] == "stages" and r.get("payload") == payload}


# Payloads from this size go out by reference (pmd tx_ref_min's default):
# the sender's copy is then the port's own, already in the raw link's cost.
TX_REF_MIN = 4096


def stage_sums(recs, payload, by_ref=True):
    """
    The stages of one packet: sender's sum, receiver's sum, the ICRC.
    by_ref: without the sender's copy where the payload goes by reference.
    """
    st = stages_of(recs, payload)
    if not st:
        return None
    snd_stages = ("build", "icrc") if by_ref and payload >= TX_REF_MIN else \
        ("build", "copy", "icrc")
    snd = sum(st.get(("requester", k), 0) for k in snd_stages)
    rcv = sum(st.get(("responder", k), 0)
              for k in ("parse", "icrc", "lookup", "copy"))
    return snd, rcv, st.get(("requester", "icrc"), 0)


def round_two_bounds(recs, w64, w64k, r64k, nlat, pw64, ref_mfps, ref_rtt,
                     l4k):
    """
    Why each round-two goal is or is not reachable, from this run's own
    figures: the raw link's cost per frame and side (1 / its frames/s, one
    core each side, as sroce has) plus the stages one packet needs on its
    sender and its receiver (sroce-bench-stages, the same lib/ calls) give
    the best ratio any design with these stages could reach on this link.
    """
    out = []
    s64, s4k = stage_sums(recs, 64), stage_sums(recs, 4096)
    if w64 and ref_mfps and s64:
        link = 1000 / ref_mfps
        work = max(s64[0], s64[1])
        out.append(f"- WRITE 64 B messages/s (goal 60 % of raw frames/s): the raw link "
                   f"spends {link:.0f} ns per frame and side; 60 % leaves "
                   f"{link * (1 / 0.6 - 1):.0f} ns per packet for sroce's own work, "
                   f"whose stages alone take {work:.0f} ns on the busier side "
                   f"({s64[2]:.0f} ns of it the ICRC): at most "
                   f"{link / (link + work) * 100:.0f} % with nothing else to do; "
                   f"measured {w64['mmps'] / ref_mfps * 100:.0f} %.")
    if l4k and s4k and (w64k or r64k):
        link = 1000 / l4k["mfps"]
        work = max(s4k[0], s4k[1])
        bound = link / (link + work) * 100
        meas = "; ".join(f"{name} measured {r['gbps'] / l4k['gbps'] * 100:.0f} %"
                         for name, r in (("WRITE", w64k), ("READ", r64k)) if r)
        out.append(f"- WRITE / READ 64 KiB (goals 90 % / 85 % of raw 4 KiB-frame bytes): "
                   f"{link:.0f} ns per 4 KiB frame and side on the raw link; the "
                   f"sender's stages take {s4k[0]:.0f} ns, the receiver's "
                   f"{s4k[1]:.0f} (ICRC {s4k[2]:.0f} each; the receiver copies the "
                   f"payload, the sender sends it by reference): at most "
                   f"{bound:.0f} %; {meas}. 90 % would leave "
                   f"{link * (1 / 0.9 - 1):.0f} ns per packet.")
    if nlat and ref_rtt and s64:
        half = ref_rtt / 2 * 1000
        one_way = s64[0] + s64[1]
        out.append(f"- WRITE 64 B latency (goal 1.3x half the raw RTT): half the raw "
                   f"RTT is {half:.0f} ns; one WRITE's stages on its way "
                   f"(sender + receiver) add {one_way:.0f} ns: at best "
                   f"{(half + one_way) / half:.2f}x; measured "
                   f"{nlat['median_us'] * 1000 / half:.2f}x.")
    deep = find(recs, source="perftest", test="bw-depth", op="WRITE", size=64,
                qps=1)
    if pw64 and w64:
        line = (f"- ib_write_bw -s 64 through the drop-in (goal 95 % of native): "
                f"{pw64['mmps'] / w64['mmps'] * 100:.0f} % with perftest's defaults "
                "(one work request per ibv_post_send, the engine run every 16 "
                "posts and at each CQ poll, at most 128 outstanding, a completion "
                "every 100), where the native bench posts chains of 32, runs the "
                "engine once per chain and keeps up to 256 in flight: the same "
                "transport, more rounds per message")
        if deep:
            line += (f"; with -t {deep['depth']} in the same run "
                     f"{deep['mmps']:.2f} M msg/s, "
                     f"{deep['mmps'] / w64['mmps'] * 100:.0f} % of native")
        out.append(line + ".")
    if not out:
        return []
    return ["\nRound-two goals against what this run's own stages allow "
            "(raw link cost per frame and side + sroce-bench-stages per packet; "
            "docs/performance.md, \"What bounds the round-two goals\"; "
            "\"measured\" here is from the best of this run's repeats, each "
            "figure on its own; the paired runs above are what the goals are "
            "judged on)\n",
            "\n".join(out) + "\n"]


def parse_mr(raw):
    recs = []
    for line in read(os.path.join(raw, "mr.txt")).splitlines():
        mo = re.match(r"\s*([0-9]+) pages:\s+([0-9.]+) M pairs/s", line)
        if mo:
            recs.append({"source": "lib", "test": "frmr", "npages":
                         int(mo.group(1)), "mpairs": float(mo.group(2))})
    return recs


def parse_wire(raw):
    recs = []
    for line in read(os.path.join(raw, "wire.txt")).splitlines():
        mo = re.match(r"(.+?)\s+([0-9]+)B\s+([0-9.]+)\s+([0-9.]+)$", line)
        if mo:
            recs.append({"source": "lib", "test": "wire",
                         "stage": mo.group(1).strip(),
                         "size": int(mo.group(2)), "ns": float(mo.group(3))})
    return recs


def find(recs, **kw):
    for r in recs:
        if all(r.get(k) == v for k, v in kw.items()):
            return r
    return None


def fmt(v, nd=2):
    if v is None:
        return "-"
    if isinstance(v, str):
        return v
    return f"{v:.{nd}f}"


def table(head, rows):
    w = [max(len(str(x)) for x in col) for col in zip(head, *rows)]
    line = lambda r: "| " + " | ".join(str(x).rjust(w[i]) if i else
                                        str(x).ljust(w[i])
                                        for i, x in enumerate(r)) + " |"
    sep = "|" + "|".join("-" * (n + 1) + (":" if i else "-")
                         for i, n in enumerate(w)) + "|"
    return "\n".join([line(head), sep] + [line(r) for r in rows])


def main():
    raw, out = sys.argv[1], sys.argv[2]
    machine = parse_machine(raw)
    recs = []
    for link in ("memif", "af_packet"):
        recs += best_link(raw, link)
    for path in sorted(glob.glob(os.path.join(raw, "rdma_*.txt"))):
        for r in json_lines(path):
            r["source"] = "sroce"
            r.pop("bench", None)
            recs.append(r)
    for r in json_lines(os.path.join(raw, "stages.txt")):
        r["source"] = "stages"
        r.pop("bench", None)
        recs.append(r)
    recs += parse_perftest(raw)
    recs += parse_mr(raw)
    recs += parse_wire(raw)

    # The raw memif references of this run.
    l4k = find(recs, source="link", link="memif", test="frames", size=4096)
    l64 = find(recs, source="link", link="memif", test="frames", size=64)
    lpp = find(recs, source="link", link="memif", test="pingpong")
    ref_gbps = l4k["gbps"] if l4k else None
    ref_mfps = l64["mfps"] if l64 else None
    ref_rtt = lpp["rtt_median_us"] if lpp else None
    for r in recs:
        if r["source"] not in ("sroce", "perftest"):
            continue
        if "gbps" in r and ref_gbps:
            r["ratio_gbps_to_link_4k"] = round(r["gbps"] / ref_gbps, 4)
        if "mmps" in r and ref_mfps:
            r["ratio_mmps_to_link_64"] = round(r["mmps"] / ref_mfps, 4)
        if "mops" in r and ref_mfps:
            r["ratio_mops_to_link_64"] = round(r["mops"] / ref_mfps, 4)
        if "median_us" in r and ref_rtt:
            base = ref_rtt / 2 if r.get("half_rtt") else ref_rtt
            r["ratio_lat_to_link"] = round(r["median_us"] / base, 3)

    txt = []
    m = machine
    txt.append(f"Machine: {m.get('cpu', '?')}, {m.get('cpus', '?')} CPUs, "
               f"{m.get('mem_gib', '?')} GiB, {m.get('os', '?')}, kernel "
               f"{m.get('kernel', '?')}, container {m.get('container', '?')}, "
               f"hypervisor {m.get('hypervisor', '?')}; DPDK {m.get('dpdk', '?')}, "
               f"perftest {m.get('perftest', '?')}; sroce {m.get('commit', '?')}, "
               f"{m.get('date', '?')}; 1-minute load {m.get('load_start', '?')} "
               f"at start, {m.get('load_end', '?')} at end.")

    # Goals.
    w64k = find(recs, source="sroce", test="bw", mode="inline", op="WRITE",
                size=65536, qps=1)
    w64 = find(recs, source="sroce", test="bw", mode="inline", op="WRITE",
               size=64, qps=1)
    plat = find(recs, source="perftest", test="lat", op="WRITE", size=64,
                mode="inline")
    plat_d = find(recs, source="perftest", test="lat", op="WRITE", size=64,
                  mode="dedicated")
    nlat = find(recs, source="sroce", test="lat", mode="inline", op="WRITE",
                size=64)
    fr = find(recs, source="lib", test="frmr", npages=1)
    goals = []
    if w64k and ref_gbps:
        goals.append(["RDMA WRITE 64 KiB, 1 QP / raw memif 4 KiB bytes",
                      ">= 60 %", f"{w64k['gbps'] / ref_gbps * 100:.0f} % "
                      f"({w64k['gbps']:.2f} / {ref_gbps:.2f} Gbit/s)",
                      "met" if w64k["gbps"] >= 0.6 * ref_gbps else "not met"])
    if w64:
        goals.append(["RDMA WRITE 64 B, 1 QP", ">= 5 M msg/s",
                      f"{w64['mmps']:.2f} M msg/s",
                      "met" if w64["mmps"] >= 5 else
                      f"not met ({5 / max(w64['mmps'], 1e-9):.1f}x short)"])
    for lat, label in ((plat, "ib_write_lat 64 B (perftest, inline)"),
                       (nlat, "WRITE latency 64 B (native, half RTT)")):
        if lat:
            goals.append([label, "<= 2 us", f"{lat['median_us']:.2f} us",
                          "met" if lat["median_us"] <= 2 else "not met"])
    if fr:
        goals.append(["FRMR fast-register + invalidate, 1 core (lib/mr)",
                      ">= 10 M pairs/s", f"{fr['mpairs']:.1f} M pairs/s",
                      "met" if fr["mpairs"] >= 10 else "not met"])

    # Round two (issue 21): ratios to the raw link of the same run.
    r64k = find(recs, source="sroce", test="bw", mode="inline", op="READ",
                size=65536, qps=1)
    pw64 = find(recs, source="perftest", test="bw", op="WRITE", size=64, qps=1)

    def ratio_goal(label, num, den, goal, fmt_num, low_is_good=False):
        r = num / den
        ok = r <= goal if low_is_good else r >= goal
        shown = (f"{r:.2f}x" if low_is_good else f"{r * 100:.0f} %")
        want = (f"<= {goal:.1f}x" if low_is_good else f">= {goal * 100:.0f} %")
        goals.append([label, want, f"{shown} ({fmt_num})",
                      "met" if ok else "not met"])

    # Paired runs (raw link and sroce back to back) when the run has them:
    # a ratio of two runs minutes apart on this kind of VM measures the
    # host's moves as much as sroce (paired.py).
    pairs = parse_pairs(raw)
    if pairs:
        goals += paired.goals(pairs)
    else:
        if w64k and ref_gbps:
            ratio_goal("WRITE 64 KiB, 1 QP / raw memif 4 KiB bytes (round two)",
                       w64k["gbps"], ref_gbps, 0.90,
                       f"{w64k['gbps']:.2f} / {ref_gbps:.2f} Gbit/s")
        if r64k and ref_gbps:
            ratio_goal("READ 64 KiB, 1 QP / raw memif 4 KiB bytes",
                       r64k["gbps"], ref_gbps, 0.85,
                       f"{r64k['gbps']:.2f} / {ref_gbps:.2f} Gbit/s")
        if w64 and ref_mfps:
            ratio_goal("WRITE 64 B, 1 QP, msg/s / raw memif 64 B frames/s",
                       w64["mmps"], ref_mfps, 0.60,
                       f"{w64['mmps']:.2f} / {ref_mfps:.2f} M/s")
        if pw64 and w64:
            ratio_goal("ib_write_bw -s 64 (drop-in) / native sroce, msg/s",
                       pw64["mmps"], w64["mmps"], 0.95,
                       f"{pw64['mmps']:.2f} / {w64['mmps']:.2f} M msg/s")
        if nlat and ref_rtt:
            ratio_goal("WRITE 64 B latency, half RTT / half raw memif RTT",
                       nlat["median_us"], ref_rtt / 2, 1.3,
                       f"{nlat['median_us']:.2f} / {ref_rtt / 2:.2f} us",
                       low_is_good=True)

    # Thousands of QPs, round robin (perftest -q N): rate kept from 1 QP,
    # measured just before (else the perftest section's 1-QP run).
    pq1 = find(recs, source="perftest", test="bw", op="WRITE", size=64, qps=1)
    for q in (1024, 8192):
        pq = find(recs, source="perftest", test="bw", op="WRITE", size=64, qps=q)
        ref = find(recs, source="perftest", test="bw-ref", op="WRITE",
                   size=64, for_qps=q) or pq1
        if pq and ref:
            ratio = pq["mmps"] / ref["mmps"]
            goals.append([f"ib_write_bw 64 B, {q} QPs / 1 QP (messages/s)",
                          ">= 80 %", f"{ratio * 100:.0f} % ({pq['mmps']:.2f} / "
                          f"{ref['mmps']:.2f} M msg/s)",
                          "met" if ratio >= 0.8 else "not met"])

    txt.append("\nGoals\n")
    txt.append(table(["figure", "goal", "measured", ""], goals))
    if pairs:
        txt.append(paired.table(pairs, fmt, table))
    txt += round_two_bounds(recs, w64, w64k, r64k, nlat, pw64, ref_mfps,
                            ref_rtt, l4k)
    if plat_d:
        txt.append(f"\nib_write_lat 64 B with dedicated engine lcores: "
                   f"{plat_d['median_us']:.2f} us median — not a goal here: "
                   "each node's engine lcore and perftest's polling thread "
                   "share the node's one core, so every hand-over waits for "
                   "the scheduler; dedicated mode is for machines with a "
                   "spare core per device.\n")

    # Raw link.
    rows = []
    for link in ("memif", "af_packet"):
        for r in recs:
            if r["source"] == "link" and r["link"] == link and r["test"] == "frames":
                rows.append([link, r["size"], fmt(r["mfps"], 3), fmt(r["gbps"])])
    txt.append("\nRaw link, one core each side (frame bytes at the receiver)\n")
    txt.append(table(["link", "frame B", "Mframes/s", "Gbit/s"], rows))
    rows = []
    for link in ("memif", "af_packet"):
        p = find(recs, source="link", link=link, test="pingpong")
        if p:
            rows.append([link, fmt(p["rtt_min_us"]), fmt(p["rtt_median_us"]),
                         fmt(p["rtt_p99_us"])])
    txt.append("\n64 B ping-pong round trip (us)\n")
    txt.append(table(["link", "min", "median", "p99"], rows))

    # Bandwidth.
    sizes = sorted({r["size"] for r in recs if r["source"] == "sroce"
                    and r.get("test") == "bw" and r.get("mode") == "inline"})
    rows = []
    for op in ("WRITE", "READ", "SEND"):
        for s in sizes:
            row = [op, s]
            for q in (1, 4):
                r = find(recs, source="sroce", test="bw", mode="inline", op=op,
                         size=s, qps=q)
                row += [fmt(r and r["gbps"]), fmt(r and r["mmps"], 3),
                        fmt(r and r.get("ratio_gbps_to_link_4k"))]
            for q in (1, 4):
                r = find(recs, source="perftest", test="bw", op=op, size=s, qps=q)
                row += [fmt(r and r["gbps"])]
            rows.append(row)
    txt.append("\nBandwidth over memif, inline progress (payload Gbit/s; "
               "ratio: to the raw memif 4 KiB-frame Gbit/s; best of the "
               "repeats)\n")
    txt.append(table(["op", "size B", "1 QP Gbit/s", "1 QP Mmsg/s", "ratio",
                      "4 QP Gbit/s", "4 QP Mmsg/s", "ratio",
                      "perftest 1 QP", "perftest 4 QP"], rows))

    # Latency.
    rows = []
    for op in ("WRITE", "READ", "SEND"):
        for s in (64, 4096, 1048576):
            r = find(recs, source="sroce", test="lat", mode="inline", op=op, size=s)
            p = find(recs, source="perftest", test="lat", op=op, size=s,
                     mode="inline")
            rows.append([op, s, fmt(r and r["median_us"]), fmt(r and r["p99_us"]),
                         fmt(r and r.get("ratio_lat_to_link")),
                         fmt(p and p["median_us"]), fmt(p and p["p99_us"])])
    txt.append("\nLatency over memif (us; WRITE and SEND half the round trip, "
               "READ the whole; ratio: to the raw memif 64 B ping-pong, "
               f"median RTT {fmt(ref_rtt)} us)\n")
    txt.append(table(["op", "size B", "sroce median", "sroce p99", "ratio",
                      "perftest median", "perftest p99"], rows))

    # Atomics and FRMR.
    rows = []
    for op in ("FETCH_ADD", "CMP_SWAP"):
        r = find(recs, source="sroce", test="atomic", mode="inline", op=op)
        p = find(recs, source="perftest", test="atomic", op=op)
        rows.append([op, fmt(r and r["mops"], 3),
                     fmt(r and r.get("ratio_mops_to_link_64"), 3),
                     fmt(p and p["mops"], 3)])
    txt.append("\nAtomics, 1 QP (M ops/s; ratio: to raw memif 64 B frames/s)\n")
    txt.append(table(["op", "sroce", "ratio", "perftest"], rows))
    rows = []
    for n in (1, 16, 256):
        lib = find(recs, source="lib", test="frmr", npages=n)
        wr = find(recs, source="sroce", test="frmr_wr", mode="inline", npages=n)
        rows.append([n, fmt(lib and lib["mpairs"]), fmt(wr and wr["mpairs"])])
    txt.append("\nFRMR fast-register + invalidate pairs (M/s, one core)\n")
    txt.append(table(["pages", "lib/mr direct", "work requests via the QP"], rows))

    # Progress modes.
    rows = []
    for mode in ("inline", "dedicated-1", "dedicated-2"):
        row = [mode]
        for q in (1, 4):
            for s in (64, 4096, 65536):
                r = find(recs, source="sroce", test="bw", mode=mode,
                         op="WRITE", size=s, qps=q)
                row.append(fmt(r and r["gbps"]))
        rows.append(row)
    txt.append("\nProgress modes, RDMA WRITE (Gbit/s).  inline: the consumer's "
               "thread progresses; dedicated-1: one engine lcore per device; "
               "dedicated-2: two engine lcores (lanes) per device, QPs shared "
               "by QPN — with 1 QP one lane works; the consumer and the "
               "engines float on every CPU\n")
    txt.append(table(["mode", "1 QP 64 B", "1 QP 4 KiB", "1 QP 64 KiB",
                      "4 QP 64 B", "4 QP 4 KiB", "4 QP 64 KiB"], rows))

    # Copies per payload byte (bench/suite/onecopy_bench.sh).
    rows = []
    for mode, what in (("copies", "copied (tx_ref_min = off): 4 copies a byte"),
                       ("by-ref", "sent by reference (the default): 3"),
                       ("zero-copy", "and received from memif's memory: 2, one per side")):
        cells = []
        for op, size in (("WRITE", 4096), ("WRITE", 65536), ("READ", 4096),
                         ("READ", 65536)):
            v = sorted(r["gbps"] for r in recs
                       if r["source"] == "sroce" and r.get("mode") == mode and
                       r["test"] == "bw" and r["op"] == op and
                       r["size"] == size and r["qps"] == 1)
            cells.append(" / ".join(fmt(x, 1) for x in
                                    (v[0], v[len(v) // 2], v[-1])) if v else "-")
        if any(c != "-" for c in cells):
            rows.append([what] + cells)
    if rows:
        txt.append("\nOne copy per side: the default memif link, 1 QP, Gbit/s "
                   "(min / median / max of the alternating runs; "
                   "docs/performance.md, \"One copy per side\")\n")
        txt.append(table(["payload", "WRITE 4 KiB", "WRITE 64 KiB",
                          "READ 4 KiB", "READ 64 KiB"], rows))

    # Other links.
    rows = []
    for r in recs:
        if r["source"] == "sroce" and r.get("mode") == "af_packet":
            if r["test"] == "bw":
                rows.append([f"WRITE {r['size']} B", fmt(r["gbps"]) + " Gbit/s",
                             fmt(r["mmps"], 3) + " Mmsg/s"])
            elif r["test"] == "lat":
                rows.append([f"{r['op']} {r['size']} B latency",
                             fmt(r["median_us"]) + " us", fmt(r["p99_us"]) + " us p99"])
    if rows:
        txt.append("\nsroce over net_af_packet on a veth pair (MTU 1500, path MTU 1024)\n")
        txt.append(table(["figure", "", ""], rows))

    # Per-packet cost.
    rows = []
    for s, frame in ((64, 64), (4096, 4096)):
        bw = find(recs, source="sroce", test="bw", mode="inline", op="WRITE",
                  size=s, qps=1)
        lf = find(recs, source="link", link="memif", test="frames", size=frame)
        st = stages_of(recs, s)
        sums = stage_sums(recs, s, by_ref=False)   # every stage measured
        link_ns = 1000 / lf["mfps"] if lf else None
        rows.append([f"{s} B", fmt(bw and bw["ns_pkt_n1"], 0), fmt(bw and bw["ns_pkt_n0"], 0),
                     fmt(st.get(("requester", "build")), 1),
                     fmt(st.get(("requester", "copy")), 1),
                     fmt(st.get(("requester", "icrc")), 1),
                     fmt(st.get(("responder", "parse")), 1),
                     fmt(st.get(("responder", "lookup")), 1),
                     fmt(st.get(("responder", "copy")), 1),
                     fmt(st.get(("responder", "icrc")), 1),
                     fmt(link_ns, 0), fmt(sums and sums[0] + sums[1], 0)])
    txt.append("\nPer-packet cost of RDMA WRITE, 1 QP (ns).  Measured: process CPU "
               "time / data packets (both nodes poll, so idle polling counts).  "
               "Stages: sroce-bench-stages, the same lib/ calls on one core.  "
               "Link: 1 / raw memif frames/s (pmd + memif, both sides)\n")
    txt.append(table(["payload", "requester measured", "responder measured",
                      "build", "copy tx", "ICRC tx", "parse", "MR lookup",
                      "copy rx", "ICRC rx", "link", "stages sum"], rows))
    for size in (64, 4096):
        prof = read(os.path.join(raw, f"profile_write_{size}.txt")).strip()
        if prof and "stage" in prof:
            body = prof.split("\n\ntop symbols")[0]
            txt.append(f"\nWhere the time goes, RDMA WRITE {size} B (perf, "
                       "cpu-clock samples of each node; bench/suite/profile.py)\n")
            txt.append("```\n" + body + "\n```")
    fails = [r["name"] for r in recs if r.get("test") == "failed"]
    if fails:
        txt.append("\nperftest runs that failed: " + ", ".join(fails))

    os.makedirs(out, exist_ok=True)
    text = "\n".join(txt) + "\n"
    with open(os.path.join(out, "results.txt"), "w") as f:
        f.write(text)
    with open(os.path.join(out, "results.json"), "w") as f:
        json.dump({"machine": machine, "goals": [dict(zip(
            ["figure", "goal", "measured", "status"], g)) for g in goals],
            "pairs": pairs, "records": recs}, f, indent=1)
    keys = ["source", "link", "test", "mode", "op", "size", "qps", "npages",
            "side", "stage", "gbps", "mmps", "mfps", "mops", "mpairs",
            "median_us", "p99_us", "rtt_median_us", "rtt_p99_us", "ns",
            "ns_pkt_n0", "ns_pkt_n1", "ratio_gbps_to_link_4k",
            "ratio_mmps_to_link_64", "ratio_mops_to_link_64",
            "ratio_lat_to_link", "load"]
    with open(os.path.join(out, "results.csv"), "w", newline="") as f:
        wr = csv.DictWriter(f, fieldnames=keys, extrasaction="ignore")
        wr.writeheader()
        for r in recs:
            wr.writerow(r)
    plot(recs, out)
    sys.stdout.write(text)


def plot(recs, out):
    series = []
    for label, pick in (
            ("sroce WRITE 1 QP", dict(source="sroce", test="bw", mode="inline", op="WRITE", qps=1)),
            ("sroce READ 1 QP", dict(source="sroce", test="bw", mode="inline", op="READ", qps=1)),
            ("sroce SEND 1 QP", dict(source="sroce", test="bw", mode="inline", op="SEND", qps=1)),
            ("sroce WRITE 4 QPs", dict(source="sroce", test="bw", mode="inline", op="WRITE", qps=4)),
            ("perftest ib\\_write\\_bw 1 QP", dict(source="perftest", test="bw", op="WRITE", qps=1)),
            ("raw memif link", dict(source="link", link="memif", test="frames")),
            ("raw af\\_packet veth", dict(source="link", link="af_packet", test="frames"))):
        pts = sorted((r["size"], r["gbps"]) for r in recs
                     if all(r.get(k) == v for k, v in pick.items()))
        if pts:
            series.append((label, pts))
    if not series:
        return
    dat = os.path.join(out, "bandwidth.dat")
    with open(dat, "w") as f:
        for label, pts in series:
            f.write(f"# {label}\n")
            for s, g in pts:
                f.write(f"{s} {g}\n")
            f.write("\n\n")
    cmds = [
        "set terminal pngcairo size 960,600 font 'sans,11'",
        f"set output '{os.path.join(out, 'bandwidth.png')}'",
        "set logscale x 2",
        "set xtics ('64' 64, '256' 256, '1K' 1024, '4K' 4096, '16K' 16384, "
        "'64K' 65536, '256K' 262144, '1M' 1048576)",
        "set xlabel 'message size (raw link: frame size)'",
        "set ylabel 'Gbit/s at the receiver'",
        "set key top left",
        "set grid",
        "set title 'sroce over net\\_memif vs the raw link, 1 core per side'",
        "plot " + ", ".join(
            f"'{dat}' index {i} using 1:2 with linespoints lw 2 "
            f"{'dt 2 ' if label.startswith('raw') else ''}title '{label}'"
            for i, (label, _) in enumerate(series)),
    ]
    try:
        subprocess.run(["gnuplot"], input="\n".join(cmds), text=True,
                       check=True, capture_output=True)
    except (OSError, subprocess.CalledProcessError) as e:
        print(f"report.py: no plot ({e})", file=sys.stderr)
    finally:
        os.unlink(dat)


if __name__ == "__main__":
    main()
