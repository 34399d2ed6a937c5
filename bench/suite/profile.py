#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""profile.py BENCH_RDMA OP SIZE [QPS] — where the time of one sroce
bandwidth test goes, per node, by stage.

Runs sroce-bench-rdma for one 5 s point and attaches `perf record -e
cpu-clock` to both processes for 2 s in the middle of it
(a software clock: it works in VMs without PMU counters), then groups the
samples of each process (node 1 = requester for WRITE/SEND, node 0 =
responder) by symbol into stages: ICRC, parse, build, copy, MR lookup,
transport, completions/queues, clock reads, device lock, pmd rx/tx, memif
driver (DPDK), kernel, the benchmark loop, other; with each stage's share
of the node's CPU nanoseconds per data packet (the benchmark's figure).  Inlined functions count
in their caller (the MR lookup inlines into the responder: see
sroce-bench-stages for its own cost).  Prints a table; needs perf.
"""
import collections
import glob
import os
import re
import subprocess
import sys
import tempfile
import time

STAGES = [
    ("ICRC", r"crc32|icrc"),
    ("parse", r"sr_parse"),
    ("build", r"sr_build"),
    ("copy", r"memmove|memcpy|sr_mr_copy|sr_dma_|sr_mr_ref_map"),
    ("MR lookup", r"sr_mr_lookup|sr_mr_ref|xlate|sr_mr_hold"),
    ("clock reads", r"now_ns|rte_get_tsc|clock_gettime"),
    ("device lock", r"pthread_mutex|__lll_lock|futex"),
    ("completions/queues", r"sr_cq_|sr_comp_complete|sr_wc|sr_sq_|sr_rq_|post_send|post_recv"),
    ("transport", r"sr_req_|sr_resp_|sr_comp_|sr_tx_|sr_dev_poll|sr_dev_rx|sr_qp_|sr_ack|sr_psn"),
    ("pmd rx/tx", r"sr_rxtx|sr_pmd_progress|sr_engine|sr_node_|rte_pktmbuf|rte_mempool|rte_eth|sr_port|sr_classify|sr_fault|sr_capture|sr_stats|sr_neigh|common_ring|bulk"),
    ("benchmark loop", r"rb_|main$"),
]


def stage_of(dso, sym):
    if dso.startswith("[kernel") or sym.startswith("[k]"):
        return "kernel"
    if "memif" in dso:
        return "memif driver (DPDK)"
    for name, rx in STAGES:
        if re.search(rx, sym):
            return name
    if "librte" in dso:
        return "pmd rx/tx"
    return "other"


def read_children(pid):
    kids = []
    for task in glob.glob(f"/proc/{pid}/task/*/children"):
        try:
            with open(task) as f:
                kids += [int(x) for x in f.read().split()]
        except OSError:
            pass
    return kids


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    bench, op, size = sys.argv[1], sys.argv[2].lower(), sys.argv[3]
    qps = sys.argv[4] if len(sys.argv) > 4 else "1"
    with tempfile.TemporaryDirectory() as tmp:
        data = os.path.join(tmp, "perf.data")
        proc = subprocess.Popen(
            [bench, "--only", "bw", "--ops", op, "--sizes", size, "--qps", qps,
             "--seconds", "5"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            text=True)
        time.sleep(2.5)           # past the set-up, well before the end
        kids = read_children(proc.pid)
        rec = subprocess.run(
            ["perf", "record", "-q", "-e", "cpu-clock", "-F", "9999", "-o", data,
             "-p", ",".join(str(p) for p in [proc.pid] + kids), "--",
             "sleep", "2"], capture_output=True, text=True)
        out, err = proc.communicate()
        figures = [l for l in out.splitlines() if l.startswith(op.upper())]
        rep = subprocess.run(
            ["perf", "report", "-i", data, "--stdio", "--sort", "pid,dso,sym",
             "-F", "overhead,pid,dso,sym"],
            capture_output=True, text=True).stdout
    by = collections.defaultdict(lambda: collections.Counter())
    tops = collections.defaultdict(list)
    for line in rep.splitlines():
        m = re.match(r"\s*([0-9.]+)%\s+(\d+):\S+\s+(\S+)\s+\[(.)\]\s+(.+?)\s*$",
                     line)
        if not m:
            continue
        pct, pid, dso, sym = float(m.group(1)), int(m.group(2)), m.group(3), m.group(5)
        if m.group(4) == "k":
            dso = "[kernel]"
        by[pid][stage_of(dso, sym)] += pct
        tops[pid].append((pct, sym, dso))
    if len(by) < 2:
        sys.exit("profile.py: perf saw fewer than two processes:\n" +
                 rec.stderr + err)
    pids = sorted(by, key=lambda p: -sum(by[p].values()))[:2]
    pids.sort(key=lambda p: p != proc.pid)   # node 1 is the parent
    names = {pids[0]: "node 1 (requester)", pids[1]: "node 0 (responder)"}
    if op == "read":
        names = {pids[0]: "node 1 (requester)", pids[1]: "node 0 (responder, READ data)"}
    print(f"sroce-bench-rdma {op.upper()} {size} B, {qps} QP: " +
          (figures[0] if figures else "(no figure)"))
    stages = sorted({s for p in pids for s in by[p]},
                    key=lambda s: -(by[pids[0]][s] + by[pids[1]][s]))
    # ns per data packet of each node, as the benchmark measured them
    # (process CPU time / packets): node 1's is the last column.
    nspkt = {}
    if figures:
        f = figures[0].split()   # op size QPs Gbit/s Mmsg/s n0 n1 retries
        nspkt = {pids[0]: float(f[6]), pids[1]: float(f[5])}
    print(f"{'stage':<22} " + " ".join(f"{names[p] + ' %':>34} {'ns/pkt':>7}"
                                       for p in pids))
    for s in stages:
        row = []
        for p in pids:
            share = by[p][s] / sum(by[p].values())
            row.append(f"{share * 100:33.1f}% {share * nspkt.get(p, 0):7.1f}")
        print(f"{s:<22} " + " ".join(row))
    for p in pids:
        print(f"\ntop symbols, {names[p]}:")
        tot = sum(by[p].values())
        for pct, sym, dso in sorted(tops[p], reverse=True)[:int(os.environ.get("SROCE_PROFILE_TOP", "12"))]:
            print(f"  {pct / tot * 100:5.1f}%  {sym}  ({os.path.basename(dso)})")


if __name__ == "__main__":
    main()
