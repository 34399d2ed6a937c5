#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The benchmark suite in one run: how close sroce comes to this machine's
# limits, side by side.
#   scripts/bench.sh [BUILD_DIR]      (from the repository root, as root)
#
#   1. the raw link (bench/link): memif between two processes and
#      af_packet on a veth pair in a namespace made and deleted here;
#   2. sroce's own figures (bench/rdma): WRITE/READ/SEND bandwidth and
#      message rate, latency, atomics, FRMR work requests, on memif, then
#      WRITE on the af_packet veth;
#   2a. copies per payload byte: copied, sent by reference, received
#      from memif's memory (bench/suite/onecopy_bench.sh);
#   2b. the host's own NIC (iface:): AF_XDP vs af_packet, raw frames and
#      perftest WRITE on a veth pair between two namespaces
#      (bench/suite/hostnic_bench.sh);
#   2d. congestion control: 2 sender processes, 2 and 4 QPs, through the
#      test switch bneck, CC on and off (bench/suite/cc_bench.sh);
#   2e. the round-two goals as pairs of runs back to back: the raw memif
#      link, then sroce and the drop-in on it, with the cache line's time
#      between the CPUs (bench/suite/paired_bench.sh);
#   3. progress modes: inline, dedicated with 1 and with 2 engine lcores
#      per device (WRITE, 1 and 4 QPs);
#   4. Debian's unmodified perftest on the drop-in libibverbs;
#   5. micro-benchmarks: per-packet stages, lib/wire, lib/mr;
#   6. where the time goes: perf profiles of WRITE 64 B and 4 KiB (when
#      perf works here);
# then bench/suite/report.py writes bench-results/results.{txt,json,csv}
# and bandwidth.png.  About 13 minutes on 2 cores.  Prints figures, never
# asserts timing.  SROCE_BENCH_QUICK=1: fewer points (a tooling check);
# SROCE_BENCH_OUT: where the results go; SROCE_BENCH_COMMIT: the label of
# the sources when they are not a git checkout; SROCE_BENCH_MAX_LOAD: wait
# for the 1-minute load average to fall to this first (a shared machine).
# Traffic stays on memif sockets and on the veth pairs made here.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
. scripts/veth.sh
build=${1:-${SROCE_BUILD_BENCH:-build-bench}}
out=${SROCE_BENCH_OUT:-$root/bench-results}
quick=${SROCE_BENCH_QUICK:-0}

# ---- dependencies and build ----
sh scripts/deps.sh
if ! command -v gnuplot >/dev/null; then
	echo "sroce: installing: gnuplot-nox (the bandwidth plot)"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
		--no-install-recommends gnuplot-nox >/dev/null ||
	{ apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install \
		-y -qq --no-install-recommends gnuplot-nox >/dev/null; } ||
	echo "sroce: no gnuplot: no plot"
fi
# The benchmarks need no Check tests: a release build without them.
if [ ! -f "$build/build.ninja" ]; then
	meson setup "$build" -Dbuildtype=release -Dtests=disabled > "$build.setup.log" 2>&1 ||
		{ tail -5 "$build.setup.log"; exit 1; }
	rm -f "$build.setup.log"
fi
ninja -C "$build" >/dev/null
build=$(cd "$build" && pwd)

raw=$out/raw
rm -rf "$raw"
mkdir -p "$raw/perftest"
ns=""
tmp=$(mktemp -d /tmp/sroce-bench.XXXXXX)
trap '[ -n "$ns" ] && ip netns del "$ns" 2>/dev/null; rm -rf "$tmp"' EXIT INT TERM

step() { printf '[%s] %s\n' "$(date +%H:%M:%S)" "$*"; }
load() { cut -d' ' -f1 /proc/loadavg; }

# ---- a quiet moment: SROCE_BENCH_MAX_LOAD=L waits (10 min at most) ----
if [ -n "${SROCE_BENCH_MAX_LOAD:-}" ]; then
	for i in $(seq 40); do
		awk -v l="$(load)" -v m="$SROCE_BENCH_MAX_LOAD" 'BEGIN { exit !(l <= m) }' && break
		step "1-minute load $(load) > $SROCE_BENCH_MAX_LOAD: waiting"
		sleep 15
	done
fi

# ---- the machine ----
{
	echo "cpu=$(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -1)"
	echo "cpus=$(nproc)"
	echo "mem_gib=$(awk '/MemTotal/ { printf "%.0f", $2 / 1048576 }' /proc/meminfo)"
	echo "kernel=$(uname -r)"
	echo "os=$(. /etc/os-release && echo "$PRETTY_NAME")"
	echo "dpdk=$(pkg-config --modversion libdpdk 2>/dev/null || echo unknown)"
	echo "perftest=$(dpkg-query -W -f='${Version}' perftest 2>/dev/null || echo none)"
	echo "container=$(systemd-detect-virt -c 2>/dev/null || echo none)"
	echo "hypervisor=$(grep -q hypervisor /proc/cpuinfo && echo yes || echo no)"
	echo "commit=${SROCE_BENCH_COMMIT:-$(git rev-parse --short HEAD 2>/dev/null || echo unknown)}"
	echo "date=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
	echo "load_start=$(load)"
} > "$raw/machine.txt"

if [ "$quick" = 1 ]; then
	rep=1 sizes=64,4096,65536 lat=1000 secs=0.2
else
	rep=3 sizes=64,1024,4096,65536,1048576 lat=5000 secs=1
fi

# ---- 1. the raw link (memif: best of 2 x $rep runs, half of them after
# sroce's, so both sample the same stretch of a shared machine) ----
link_memif() {  # link_memif FIRST LAST
	for i in $(seq "$1" "$2"); do
		step "raw link: memif, run $i (load $(load))"
		sh bench/link/link_bench.sh "$build/bench/link/link_bench" memif \
			> "$raw/link_memif.$i.txt" 2>&1 ||
			echo "sroce: raw memif link failed (see $raw/link_memif.$i.txt)"
	done
}
link_memif 1 "$rep"
step "raw link: af_packet on veth (load $(load))"
sh bench/link/link_bench.sh "$build/bench/link/link_bench" af_packet \
	> "$raw/link_af_packet.1.txt" 2>&1 ||
	echo "sroce: raw af_packet link failed (see $raw/link_af_packet.1.txt)"

# ---- 2. sroce, native ----
rdma=$build/bench/rdma/sroce-bench-rdma
step "sroce over memif: bandwidth, latency, atomics, FRMR (load $(load))"
"$rdma" --seconds $secs --repeat $rep --sizes $sizes --lat-iters $lat \
	> "$raw/rdma_inline.txt" 2>&1 ||
	echo "sroce: sroce-bench-rdma failed (see $raw/rdma_inline.txt)"

# ---- 2a. copies per payload byte: copied, by reference, zero-copy
# receive ($rep alternating runs; raw/rdma_onecopy.txt) ----
step "one copy per side: copies vs by reference vs zero-copy (load $(load))"
sh bench/suite/onecopy_bench.sh "$build" "$raw" "$rep" $secs > "$raw/onecopy.txt" 2>&1 ||
	echo "sroce: one-copy benchmark failed (see $raw/onecopy.txt)"

step "sroce over af_packet on veth: WRITE, latency (load $(load))"
ns=sroce-bench-$$
if ip netns add "$ns" 2>/dev/null; then
	ip -n "$ns" link set lo up                  # the TCP exchange
	sr_veth_pair "$ns" sb0 sb1
	for n in 0 1; do
		printf '%s\n' "port = net_af_packet0,iface=sb$n" "ipv4 = 10.88.0.$((n + 1))/24" \
			"mac = 02:88:00:00:00:0$((n + 1))" "stats_dir = off" > "$tmp/afp$n.conf"
	done
	ip netns exec "$ns" "$rdma" --config0 "$tmp/afp0.conf" --config1 "$tmp/afp1.conf" \
		--mode af_packet --only bw,lat --ops write --qps 1 --sizes 64,1024,65536 \
		--seconds $secs --repeat 1 --lat-iters 1000 > "$raw/rdma_af_packet.txt" 2>&1 ||
		echo "sroce: sroce-bench-rdma on af_packet failed (see $raw/rdma_af_packet.txt)"
	ip netns del "$ns"
fi
ns=""

# ---- 2b. the host's own NIC (port = iface:NAME): AF_XDP vs af_packet on a
# veth pair between two namespaces, raw frames and perftest WRITE, $rep runs
# (min / median / max in raw/hostnic/table.md, docs/host-nic.md) ----
step "host NIC: AF_XDP vs af_packet on veth (load $(load))"
sh bench/suite/hostnic_bench.sh "$build" "$raw" "$rep" > "$raw/hostnic.txt" 2>&1 ||
	echo "sroce: host NIC benchmark failed (see $raw/hostnic.txt)"

# ---- 2c. the shared device: through sroced vs embedded on the same veth,
# and 1-8 client pairs at once ($rep runs), on af_packet and on host NICs
# (raw/sroced/table.md, raw/sroced-hostnic/table.md; docs/sroced.md) ----
step "sroced: through the daemon vs embedded (load $(load))"
sh bench/suite/sroced_bench.sh "$build" "$raw" "$rep" > "$raw/sroced.txt" 2>&1 ||
	echo "sroce: sroced benchmark failed (see $raw/sroced.txt)"
step "sroced on host NICs (AF_XDP): through the daemon vs embedded (load $(load))"
sh bench/suite/sroced_bench.sh "$build" "$raw" "$rep" hostnic > "$raw/sroced-hostnic.txt" 2>&1 ||
	echo "sroce: sroced host-NIC benchmark failed (see $raw/sroced-hostnic.txt)"

# ---- 2d. congestion control end to end: 2 sender processes into 1
# receiver through bneck's 100 Mbit/s port, 2 and 4 RC WRITE QPs, CC on and
# off, $rep runs (raw/cc.txt, raw/cc.json, raw/cc-rates.png;
# docs/congestion.md) ----
step "congestion control through bneck (load $(load))"
CC_SECONDS=$([ "$quick" = 1 ] && echo 3 || echo 6) \
	sh bench/suite/cc_bench.sh "$build" "$raw" "$rep" > "$raw/cc-bench.txt" 2>&1 ||
	echo "sroce: congestion-control benchmark failed (see $raw/cc-bench.txt)"

link_memif $((rep + 1)) $((2 * rep))

# ---- 2e. the round-two goals from pairs of runs, the raw link and sroce
# back to back: this kind of VM changes speed by up to 3x from one minute
# to the next (docs/performance.md, "Paired runs") ----
step "paired runs: raw link, then sroce, $((2 * rep + 2)) times (load $(load))"
sh bench/suite/paired_bench.sh "$build" "$raw" $((2 * rep + 2)) $secs \
	> "$raw/paired.txt" 2>&1 ||
	echo "sroce: paired benchmark failed (see $raw/paired.txt)"

# ---- 3. progress modes ----
for mode in dedicated-1 dedicated-2; do
	step "sroce over memif, $mode progress (load $(load))"
	"$rdma" --mode $mode --only bw --ops write --qps 1,4 --sizes 64,4096,65536 \
		--seconds $secs --repeat $rep > "$raw/rdma_$mode.txt" 2>&1 ||
		echo "sroce: sroce-bench-rdma $mode failed (see $raw/rdma_$mode.txt)"
done

# ---- 4. perftest on the drop-in libibverbs ----
pt() {  # pt NAME MODE PROGRAM ARGS...: a second try when no figure came
	name=$1 mode=$2
	shift 2
	for try in 1 2; do
		SROCE_BENCH_MODE=$mode sh bench/suite/perftest_pair.sh "$build/verbs-shim" \
			"$@" > "$raw/perftest/$name.txt" 2>&1 &&
			grep -Eq '^ *[0-9]+ +[0-9]+ +[0-9.]+ ' "$raw/perftest/$name.txt" && return 0
	done
	echo "sroce: perftest $name failed (see $raw/perftest/$name.txt)"
}
step "perftest on the drop-in libibverbs (load $(load))"
if [ "$quick" = 1 ]; then
	ptsizes="64 65536" ptqps=1
else
	ptsizes="64 1024 4096 65536 1048576" ptqps="1 4"
fi
for op in write read send; do
	for q in $ptqps; do
		for s in $ptsizes; do
			pt "bw-$op-$s-q$q" inline ib_${op}_bw -x 1 -s "$s" -q "$q" -D 1 \
				--report_gbits
		done
	done
	for s in 64 4096 1048576; do
		pt "lat-$op-$s-inline" inline ib_${op}_lat -x 1 -s "$s" -n 2000
	done
done
# perftest's own window (-t 128 by default) against a deeper one: what the
# drop-in's 64 B rate owes to perftest's pattern (report: round-two bounds)
pt "bwt-write-64-q1-t256" inline ib_write_bw -x 1 -s 64 -q 1 -t 256 -D 1 --report_gbits
# thousands of connected QPs, perftest posting round robin over them, each
# right after a 1-QP run: the goal is their ratio, and this kind of VM can
# change speed by 3x between two parts of a run (docs/performance.md)
for q in 1024 8192; do
	pt "bwref-write-64-q1-for$q" inline ib_write_bw -x 1 -s 64 -q 1 -D 1 \
		--report_gbits
	pt "bw-write-64-q$q" inline ib_write_bw -x 1 -s 64 -q $q -D 1 --report_gbits
done
pt "lat-write-64-dedicated" dedicated ib_write_lat -x 1 -s 64 -n 2000
for a in FETCH_AND_ADD CMP_AND_SWAP; do
	pt "atomic-$a" inline ib_atomic_bw -x 1 -A $a -D 1
done

# ---- 5. micro-benchmarks ----
step "micro-benchmarks: stages, wire, mr (load $(load))"
"$build/bench/rdma/sroce-bench-stages" > "$raw/stages.txt" 2>&1 || true
"$build/bench/wire/sroce-bench-wire" > "$raw/wire.txt" 2>&1 || true
"$build/bench/mr/sroce-bench-mr" > "$raw/mr.txt" 2>&1 || true

if perf stat -e cpu-clock true >/dev/null 2>&1; then
	for s in 64 4096; do
		step "profile: WRITE $s B under perf (load $(load))"
		python3 bench/suite/profile.py "$rdma" write $s > "$raw/profile_write_$s.txt" 2>&1 ||
			echo "sroce: profile failed (see $raw/profile_write_$s.txt)"
	done
fi

echo "load_end=$(load)" >> "$raw/machine.txt"
step "report"
python3 bench/suite/report.py "$raw" "$out"
