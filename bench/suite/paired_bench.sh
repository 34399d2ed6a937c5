#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# paired_bench.sh BUILD RAW PAIRS SECONDS — the round-two goals (#21) as
# pairs of runs back to back: the raw memif link, then sroce on the same
# link, PAIRS times, so that each ratio compares two runs of one stretch of
# the machine.  On the 2-CPU VMs sroce is measured on, the host moves the
# virtual CPUs, and a cache line between them takes about 55 ns in one
# minute and about 215 ns in the next: the raw link's figures and sroce's
# change together by up to 3x, and a ratio of two runs made minutes apart
# measures the move, not sroce.  Each pair starts with sroce-bench-c2c, the
# cache line's one-way time, printed beside it (docs/performance.md,
# "Paired runs").
#
# Per pair I, in RAW/paired/: I.c2c.txt, I.link.txt (link_bench.sh memif,
# SECONDS per frame size), I.rdma.txt (sroce-bench-rdma: WRITE and READ of
# 64 B and 64 KiB on 1 QP, SECONDS each, and the latency ping-pongs), and
# I.perftest.txt (ib_write_bw -s 64 through the drop-in).  report.py turns
# them into ratios per pair: min, median and max.  The probe runs again at
# the end of the pair (I.c2c-end.txt): a pair whose probes disagree saw
# the machine change under it, and report.py leaves it out of the goals.
set -u
build=$1
raw=$2
pairs=$3
secs=$4
out=$raw/paired
mkdir -p "$out"
here=$(dirname "$0")
load() { cut -d' ' -f1 /proc/loadavg; }

for i in $(seq "$pairs"); do
	echo "== pair $i of $pairs (load $(load)) =="
	"$build/bench/link/sroce-bench-c2c" > "$out/$i.c2c.txt" 2>&1 ||
		echo "paired: c2c probe failed (see $out/$i.c2c.txt)"
	LINK_SECONDS=$secs sh "$here/../link/link_bench.sh" \
		"$build/bench/link/link_bench" memif > "$out/$i.link.txt" 2>&1 ||
		echo "paired: raw memif link failed (see $out/$i.link.txt)"
	"$build/bench/rdma/sroce-bench-rdma" --only bw,lat --ops write,read \
		--qps 1 --sizes 64,65536 --seconds "$secs" --repeat 1 \
		--lat-iters 20000 > "$out/$i.rdma.txt" 2>&1 ||
		echo "paired: sroce-bench-rdma failed (see $out/$i.rdma.txt)"
	sh "$here/perftest_pair.sh" "$build/verbs-shim" ib_write_bw -x 1 -s 64 \
		-q 1 -D 1 --report_gbits > "$out/$i.perftest.txt" 2>&1 ||
		echo "paired: perftest failed (see $out/$i.perftest.txt)"
	"$build/bench/link/sroce-bench-c2c" > "$out/$i.c2c-end.txt" 2>&1 ||
		echo "paired: c2c probe failed (see $out/$i.c2c-end.txt)"
	head -1 "$out/$i.c2c.txt"
	head -1 "$out/$i.c2c-end.txt"
done
exit 0
