#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# link_test.sh CASE FRAME_ECHO SROCE_STAT KERNEL_PEER
#
# Two-process integration tests of pmd over real DPDK vdevs, without
# hugepages.  Traffic stays on net_memif sockets in a private folder or on a
# veth pair inside a network namespace this script creates and deletes.
#   memif      default link, node roles by first come; 128 B and 9000 B
#   backpressure  memif; 2000 jumbo frames in flight at once, 4x the ring:
#              the full ring holds the sender back (tx_wait), none dropped
#   capture    memif with a capture file, re-read by tshark / libpcap
#   fault      memif; 5% TX drop set live through sroce-stat, seen in counters
#   af_packet  net_af_packet on both ends of a veth pair in a netns
#   kernel     net_af_packet against the Linux stack: the kernel resolves
#              sroce (ARP, ND) and sroce resolves the kernel
set -u
case_name=$1
echo_bin=$2
stat_bin=$3
peer_py=$4

tmp=$(mktemp -d /tmp/sroce-pmd-test.XXXXXX)
. "$(dirname "$0")/../harness.sh"

# wait_stats: until the one device running has made its stats file; sets
# stats_file (the pid in its name is frame_echo's, not timeout's)
wait_stats() {
	i=0
	stats_file=""
	while [ -z "$stats_file" ]; do
		stats_file=$(ls "$tmp"/stats/sroce-*.stats 2>/dev/null | head -1)
		i=$((i + 1))
		[ $i -gt 100 ] && fail "no stats file"
		sleep 0.1
	done
}

mkdir -p "$tmp/stats"

case "$case_name" in
memif)
	export SROCE_RUN_DIR="$tmp/run"
	unset SROCE_CONFIG SROCE_NODE
	for size in 128 9000; do
		timeout 60 "$echo_bin" echo --timeout-ms 30000 > "$tmp/echo.log" 2>&1 &
		pids="$!"
		sleep 0.3
		timeout 60 "$echo_bin" send --peer 10.0.0.1 --count 2000 \
			--size $size --timeout-ms 30000 > "$tmp/send.log" 2>&1 ||
			fail "memif send size $size"
		wait $pids || fail "memif echo size $size"
		pids=""
		grep "^frame_echo" "$tmp/send.log"
	done
	;;
backpressure)
	export SROCE_RUN_DIR="$tmp/run"
	unset SROCE_CONFIG SROCE_NODE
	timeout 60 "$echo_bin" echo --timeout-ms 30000 > "$tmp/echo.log" 2>&1 &
	pids="$!"
	sleep 0.3
	# The echoes may find the echo side's own port full (it does not
	# wait for them): what must arrive is every frame sent.
	timeout 60 "$echo_bin" send --peer 10.0.0.1 --count 2000 --window 2000 \
		--size 9000 --min-ratio 0 --timeout-ms 30000 > "$tmp/send.log" 2>&1 ||
		{ cat "$tmp/send.log"; fail "backpressure send"; }
	wait $pids || fail "backpressure echo"
	pids=""
	cat "$tmp/send.log" "$tmp/echo.log"
	grep -q "^frame_echo: sent 2000 " "$tmp/send.log" ||
		fail "backpressure: not all 2000 frames sent"
	grep -q "^frame_echo: received 2000 " "$tmp/echo.log" ||
		fail "backpressure: frames lost on the way"
	grep -q "^  tx_wait " "$tmp/send.log" ||
		fail "backpressure: the ring never filled (no tx_wait)"
	! grep -q "^  tx_full " "$tmp/send.log" ||
		fail "backpressure: frames dropped at a full ring"
	;;
capture)
	conf a "port = default" "node = 0" "run_dir = $tmp/run" \
		"stats_dir = $tmp/stats"
	conf b "port = default" "node = 1" "run_dir = $tmp/run" \
		"stats_dir = $tmp/stats" "capture = $tmp/b.pcap"
	SROCE_CONFIG=$tmp/a.conf timeout 60 "$echo_bin" echo --timeout-ms 30000 \
		> "$tmp/echo.log" 2>&1 &
	pids="$!"
	SROCE_CONFIG=$tmp/b.conf timeout 60 "$echo_bin" send --peer 10.0.0.1 \
		--count 500 --timeout-ms 30000 > "$tmp/send.log" 2>&1 ||
		fail "capture send"
	wait $pids || fail "capture echo"
	pids=""
	# 500 out, 500 back, 3 BYE, ARP request + reply.
	if command -v tshark >/dev/null 2>&1; then
		n=$(tshark -r "$tmp/b.pcap" 2>/dev/null | wc -l)
		roce=$(tshark -r "$tmp/b.pcap" -Y "udp.dstport == 4791" 2>/dev/null | wc -l)
		arp=$(tshark -r "$tmp/b.pcap" -Y arp 2>/dev/null | wc -l)
		echo "capture: $n frames, $roce UDP/4791, $arp ARP (tshark)"
		[ "$roce" -ge 1003 ] || fail "capture holds $roce UDP/4791 frames"
		[ "$arp" -ge 2 ] || fail "capture holds $arp ARP frames"
	else
		n=$(python3 -c "import sys;d=open(sys.argv[1],'rb').read();print(len(d))" "$tmp/b.pcap")
		echo "capture: $n bytes (no tshark)"
		[ "$n" -gt 100000 ] || fail "capture too small"
	fi
	;;
fault)
	conf a "port = default" "node = 0" "run_dir = $tmp/run" \
		"stats_dir = $tmp/stats" "fault_seed = 7"
	conf b "port = default" "node = 1" "run_dir = $tmp/run" \
		"stats_dir = $tmp/stats"
	SROCE_CONFIG=$tmp/a.conf timeout 60 "$echo_bin" echo --timeout-ms 40000 \
		> "$tmp/echo.log" 2>&1 &
	pids="$!"
	wait_stats
	"$stat_bin" -f "$stats_file" -F "tx drop prob=5%" \
		> "$tmp/stat.log" 2>&1 || fail "sroce-stat could not set the rule"
	"$stat_bin" -f "$stats_file" > "$tmp/live.log" 2>&1
	SROCE_CONFIG=$tmp/b.conf timeout 60 "$echo_bin" send --peer 10.0.0.1 \
		--count 4000 --min-ratio 0.85 --timeout-ms 40000 \
		> "$tmp/send.log" 2>&1 || fail "fault send"
	wait $pids || fail "fault echo"
	pids=""
	grep "^frame_echo" "$tmp/send.log"
	drops=$(awk '$1 == "fault_drop" { print $2 }' "$tmp/echo.log")
	lost=$(sed -n 's/.* lost \([0-9]*\) .*/\1/p' "$tmp/send.log")
	echo "fault: echo side fault_drop=$drops, sender lost=$lost of 4000"
	[ -n "$drops" ] && [ "$drops" -ge 80 ] && [ "$drops" -le 400 ] ||
		fail "fault_drop $drops not about 5%"
	[ "$lost" = "$drops" ] || fail "lost $lost != dropped $drops"
	grep -q "fault tx drop prob=0.05" "$tmp/live.log" ||
		fail "sroce-stat does not show the rule"
	;;
af_packet)
	ns=sroce-test-$$
	ip netns add $ns || fail "ip netns add"
	sr_veth_pair $ns sr0 sr1 || fail "veth"
	conf a "port = net_af_packet0,iface=sr0" "ipv4 = 10.66.0.1/24" \
		"mac = 02:66:00:00:00:01" "stats_dir = $tmp/stats"
	conf b "port = net_af_packet0,iface=sr1" "ipv4 = 10.66.0.2/24" \
		"mac = 02:66:00:00:00:02" "stats_dir = $tmp/stats"
	SROCE_CONFIG=$tmp/a.conf ip netns exec $ns timeout 60 "$echo_bin" echo \
		--timeout-ms 30000 > "$tmp/echo.log" 2>&1 &
	pids="$!"
	sleep 0.5
	SROCE_CONFIG=$tmp/b.conf ip netns exec $ns timeout 60 "$echo_bin" send \
		--peer 10.66.0.1 --count 2000 --size 1024 --timeout-ms 30000 \
		> "$tmp/send.log" 2>&1 || fail "af_packet send"
	wait $pids || fail "af_packet echo"
	pids=""
	grep "^frame_echo" "$tmp/send.log"
	;;
kernel)
	ns=sroce-test-$$
	ip netns add $ns || fail "ip netns add"
	ip -n $ns link add sr0 type veth peer name kr0 || fail "veth"
	ip -n $ns link set lo up
	# sroce owns sr0: keep the kernel's own IPv6 off it.
	ip netns exec $ns sysctl -qw net.ipv6.conf.sr0.disable_ipv6=1
	ip -n $ns link set sr0 up
	ip -n $ns addr add 10.77.0.1/24 dev kr0
	ip -n $ns addr add fd77::1/64 dev kr0 nodad
	ip -n $ns link set kr0 up
	conf a "port = net_af_packet0,iface=sr0" "ipv4 = 10.77.0.2/24" \
		"ipv6 = fd77::2/64" "mac = 02:77:00:00:00:02" \
		"stats_dir = $tmp/stats"
	SROCE_CONFIG=$tmp/a.conf ip netns exec $ns timeout 60 "$echo_bin" echo \
		--resolve 10.77.0.1 --resolve fd77::1 --timeout-ms 30000 \
		> "$tmp/echo.log" 2>&1 &
	pids="$!"
	ip netns exec $ns timeout 40 python3 "$peer_py" 10.77.0.2 fd77::2 \
		> "$tmp/peer.log" 2>&1 || fail "kernel peer"
	wait $pids || fail "sroce echo against the kernel"
	pids=""
	cat "$tmp/peer.log"
	grep "resolved" "$tmp/echo.log"
	ip -n $ns neigh show dev kr0 > "$tmp/neigh.log"
	cat "$tmp/neigh.log"
	grep -q "10.77.0.2 lladdr 02:77:00:00:00:02" "$tmp/neigh.log" ||
		fail "kernel has no ARP entry for sroce"
	grep -q "fd77::2 lladdr 02:77:00:00:00:02" "$tmp/neigh.log" ||
		fail "kernel has no ND entry for sroce"
	;;
*)
	fail "unknown case $case_name"
	;;
esac
echo "PASS: $case_name"
