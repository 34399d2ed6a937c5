#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# cc_bench.sh BUILD OUT [RUNS] — congestion control end to end (issue 20):
# two sender processes, each in its own network namespace, WRITE on RC QPs
# into one receiver process behind one bottleneck port of bneck (the test
# switch, tests/cc/bneck.c) running in a fourth namespace:
#
#     h1 (sender 1) --\
#                      sw: bneck, port to h3 at RATE Mbit/s, QUEUE bytes --> h3 (receiver)
#     h2 (sender 2) --/
#
# Every host's link runs at CC_LINE Mbit/s (line_rate; default: the
# bottleneck's rate).  Cases: 1 QP per sender (2 in all) and 2 per sender (4), each with CC on
# (DCQCN, ECT(0), bneck marking CE between KMIN and KMAX of queue) and CC
# off (ECN off too: only tail drop), RUNS times (3), in the order
# on/off alternating so that the machine's load hits both alike.
# sroce-cc-flow (bench/cc/cc_flow.c) keeps 4 WRITEs of 64 KiB in flight on
# each QP for SECONDS and logs each QP's acknowledged bytes and paced rate
# every 100 ms; bneck logs its ports every 100 ms.  bench/cc/cc_report.py
# turns the logs into the figures (OUT/cc.txt, OUT/cc.json) and the rate
# plot (OUT/cc-rates.png, with cc-rate-plot).  Figures only: nothing is
# asserted, except that the tools ran.
#
# The rate: three inline-progress sroce processes poll, and bneck spins
# while its queue is not empty, on this 2-core machine; 100 Mbit/s (about
# 11 600 frames/s through bneck's two AF_PACKET syscalls each) is what it
# carries without bneck itself becoming the bottleneck (bench notes in
# docs/congestion.md).  Traffic stays in the namespaces made here.
set -eu
build=$1
out=$2
runs=${3:-3}
rate=${CC_RATE:-100}
queue=${CC_QUEUE:-65536}
kmin=${CC_KMIN:-8192}
kmax=${CC_KMAX:-32768}
pmax=${CC_PMAX:-20}
seconds=${CC_SECONDS:-6}
line=${CC_LINE:-$rate}            # the hosts' links (line_rate), Mbit/s
# DCQCN's parameters for this slow line (docs/congestion.md, "Parameters
# for a slow line"): ConnectX's defaults are made for 25-100 Gbit/s and a
# round trip of microseconds; at 100 Mbit/s, behind a 5 ms queue, their
# 300 us increase timer with F = 1 and 5/50 Mbit/s steps overshoot every
# round trip.  F = 5 (the DCQCN paper's), the timer at 3 ms (about the
# round trip here), steps of 1 Mbit/s (1 % of the line).  CC_EXTRA=""
# runs ConnectX's defaults; any other CC_EXTRA replaces these lines.
slow_line='dcqcn = rpg_threshold=5
dcqcn = rpg_time_reset=3000
dcqcn = rpg_ai_rate=1
dcqcn = rpg_hai_rate=1'
extra=${CC_EXTRA-$slow_line}
cases=${CC_CASES:-"1 2"}          # QPs per sender
modes=${CC_MODES:-"on off"}
root=$(cd "$(dirname "$0")/../.." && pwd)
flow=$build/bench/cc/sroce-cc-flow
bneck=$build/bench/cc/bneck
plot=$build/bench/cc/cc-rate-plot
[ -x "$flow" ] && [ -x "$bneck" ] || { echo "cc_bench: build $flow and $bneck first"; exit 1; }
[ "$(id -u)" = 0 ] || { echo "cc_bench: needs root (namespaces)"; exit 1; }
mkdir -p "$out/cc"
tag=cb$$
tmp=$(mktemp -d /tmp/sroce-cc-bench.XXXXXX)
pids=""
cleanup() {
	for p in $pids; do kill "$p" 2>/dev/null || true; done
	wait 2>/dev/null || true
	for n in sw h1 h2 h3; do ip netns del "$tag$n" 2>/dev/null || true; done
	rm -rf "$tmp"
}
trap cleanup EXIT INT TERM

for n in sw h1 h2 h3; do ip netns add "$tag$n"; done
for i in 1 2 3; do
	ip link add "${tag}p$i" type veth peer name "${tag}h$i"
	ip link set "${tag}p$i" netns "${tag}sw"
	ip link set "${tag}h$i" netns "$tag""h$i"
	ip -n "${tag}sw" link set "${tag}p$i" up
	ip netns exec "${tag}h$i" sysctl -qw "net.ipv6.conf.${tag}h$i.disable_ipv6=1"
	ip -n "${tag}h$i" link set "${tag}h$i" up
	ip -n "${tag}h$i" link set lo up
done
ip netns exec "${tag}sw" sysctl -qw "net.ipv6.conf.all.disable_ipv6=1"

# one_run MODE QPS RUN: one case, logs in $out/cc/MODE-qQPS-rRUN.*
one_run() {
	mode=$1 nq=$2 run=$3
	name=$mode-q$((2 * nq))-r$run
	for i in 1 2 3; do
		printf '%s\n' "port = net_af_packet0,iface=${tag}h$i" \
			"ipv4 = 10.80.1.$i/24" "mac = 02:80:00:00:00:0$i" \
			"mtu = 1500" "run_dir = $tmp" "stats_dir = off" \
			> "$tmp/h$i.conf"
		if [ "$mode" = off ]; then
			printf '%s\n' "cc = off" "ecn = off" >> "$tmp/h$i.conf"
		else
			printf '%s\n' "cc = dcqcn" "ecn = ect0" >> "$tmp/h$i.conf"
		fi
		# every host's link as fast as the bottleneck (2:1 incast,
		# as the DCQCN paper's testbed): line_rate paces each QP to it
		echo "line_rate = $line" >> "$tmp/h$i.conf"
		[ -n "$extra" ] && printf '%s\n' "$extra" >> "$tmp/h$i.conf"
	done
	rm -f "$out/cc/$name".*
	ip netns exec "${tag}sw" "$bneck" -p "${tag}p1" -p "${tag}p2" \
		-p "${tag}p3" -r "$rate" -q "$queue" -k "$kmin" -K "$kmax" \
		-P "$pmax" -t $((seconds + 40)) -l "$out/cc/$name.bneck" \
		> "$out/cc/$name.bneck.end" 2>&1 &
	bpid=$!
	pids=$bpid
	sleep 0.3
	SROCE_CONFIG=$tmp/h3.conf ip netns exec "${tag}h3" timeout $((seconds + 40)) \
		"$flow" recv --ctl "$tmp/ctl" --senders 2 \
		> "$out/cc/$name.recv" 2>&1 &
	rpid=$!
	pids="$pids $rpid"
	for i in 1 2; do
		SROCE_CONFIG=$tmp/h$i.conf ip netns exec "${tag}h$i" \
			timeout $((seconds + 40)) "$flow" send --ctl "$tmp/ctl" \
			--id "$i" --qps "$nq" --seconds "$seconds" \
			> "$out/cc/$name.s$i" 2>&1 &
		eval "spid$i=\$!"
		pids="$pids $!"
	done
	st=ok
	wait "$spid1" || st=fail
	wait "$spid2" || st=fail
	wait "$rpid" || st=fail
	kill "$bpid" 2>/dev/null || true
	wait "$bpid" 2>/dev/null || true
	pids=""
	echo "$st" > "$out/cc/$name.status"
	printf '%s %s\n' "$name" "$st"
}

for run in $(seq "$runs"); do
	for nq in $cases; do
		for mode in $modes; do
			one_run "$mode" "$nq" "$run"
		done
	done
done
printf 'rate_mbps %s\nline_mbps %s\nqueue %s\nkmin %s\nkmax %s\npmax %s\nseconds %s\nruns %s\nport %s\n' \
	"$rate" "$line" "$queue" "$kmin" "$kmax" "$pmax" "$seconds" "$runs" "${tag}p3" \
	> "$out/cc/setup"
echo "dcqcn $(printf '%s\n' "$extra" | sed -n 's/^dcqcn = //p' | tr '\n' ' ')" \
	>> "$out/cc/setup"
[ -n "${CC_NO_REPORT:-}" ] && exit 0
python3 "$root/bench/cc/cc_report.py" "$out/cc" > "$out/cc.txt"
python3 "$root/bench/cc/cc_report.py" --json "$out/cc" > "$out/cc.json"
cat "$out/cc.txt"
if [ -x "$plot" ]; then
	python3 "$root/bench/cc/cc_report.py" --csv "$out/cc" q4-r1 > "$out/cc/rates.csv"
	"$plot" "$out/cc/rates.csv" "$out/cc-rates.png" \
		"each QP's acknowledged WRITE rate: 2 senders x 2 QPs into bneck's $rate Mbit/s port (run 1 of $runs)" &&
		echo "rate plot: $out/cc-rates.png"
fi
