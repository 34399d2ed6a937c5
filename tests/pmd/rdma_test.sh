#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# rdma_test.sh CASE RDMA_PEER SROCE_STAT SROCE_PCAP
#
# The whole stack (pmd/node.h + lib/) between two processes over real DPDK
# ports, without hugepages: rdma_peer runs every opcode for N rounds and
# checks each byte.  Traffic stays on memif sockets in a private folder, on
# 127.0.0.1 (the out-of-band TCP) or on a veth pair inside a network
# namespace this script creates and deletes.
#   memif       default link; capture re-read by sroce-pcap (exit 0, every
#               opcode present); sroce-stat shows transport counters live
#   dedicated   memif with the engine on its own lcore on both sides; then
#               96 times a source region deregistered (and unmapped)
#               while the engine sends a 1 MiB WRITE from it by reference:
#               no frame reads it after (the port's copy would fault),
#               only the client's bytes arrive, and some of the
#               deregistrations landed half way through the WRITE
#   engines     memif with two, then three engine lcores (lanes) per side,
#               the client's and the server's QP on different lanes so each
#               side steers received frames between lanes: every frame
#               delayed (no sequence error or duplicate may appear), then
#               2 % TX drop; capture shared by the lanes; data verified
#   zero_copy   one copy per side: node 0 sends 4 KiB payloads by
#               reference, node 1's memif client is in zero-copy mode
#               (hugepages, added for the test if needed and given back);
#               every opcode verified, the capture clean
#   ipv6        memif, QPs addressed by IPv6 GIDs (ND resolves the peer)
#   af_packet   net_af_packet on both ends of a veth pair (MTU 1500, so
#               path MTU 1024: more packets per message), captured
#   af_packet_mtu  af_packet on a veth pair with mtu = 9000 and no mac =
#               in the configuration: on 1500-byte veths the device says it
#               clamps to the interface's MTU and carries path MTU 1024; on
#               9000-byte veths the port's ring slots grow to hold 4 KiB
#               payloads, and they are on the wire; data verified both times
#   loss        memif, 5% of frames dropped on each side's transmit: all
#               data still verified, retransmissions in the counters, the
#               capture (retransmissions included) still clean
#   bad_config  unknown key, bad address, missing port, unknown driver,
#               bad EAL option, unavailable core, engines without dedicated
#               mode or without queues for them, missing file: exactly one
#               line on stderr ("sroce: ..."), exit 2, no crash
set -u
case_name=$1
peer_bin=$2
stat_bin=$3
pcap_bin=$4

tmp=$(mktemp -d /tmp/sroce-rdma-test.XXXXXX)
tcp=$((20000 + $$ % 20000))
. "$(dirname "$0")/../harness.sh"

# run_pair PREFIX ROUNDS [EXTRA...]: server (a.conf) in the background,
# client (b.conf) in the foreground; PREFIX runs both (e.g. ip netns exec).
run_pair() {
	prefix=$1
	rounds=$2
	shift 2
	SROCE_CONFIG=$tmp/a.conf $prefix timeout 100 "$peer_bin" server \
		--tcp $tcp --rounds "$rounds" "$@" > "$tmp/server.log" 2>&1 &
	pids="$!"
	SROCE_CONFIG=$tmp/b.conf $prefix timeout 100 "$peer_bin" client \
		--tcp $tcp --rounds "$rounds" "$@" > "$tmp/client.log" 2>&1 ||
		fail "client"
	wait $pids || fail "server"
	pids=""
	grep "^rdma_peer" "$tmp/client.log" "$tmp/server.log"
}

# counter LOG NAME: a counter's value in a log (0 when absent)
counter() {
	v=$(awk -v n="$2" '$1 == n { print $2 }' "$1" | head -1)
	echo "${v:-0}"
}

# check_capture FILE ROUNDS: sroce-pcap accepts every frame (exit 0) and
# every opcode of a round is there at least ROUNDS times
check_capture() {
	"$pcap_bin" --summary "$1" > "$tmp/pcap.log" 2>&1 ||
		fail "sroce-pcap: bad ICRC or malformed frame in $1"
	cat "$tmp/pcap.log"
	# A|B: either (WRITE_WITH_IMM of 4 KiB is one packet at path MTU 4096)
	for op in SEND_FIRST SEND_LAST SEND_ONLY_WITH_IMMEDIATE \
		SEND_ONLY_WITH_INVALIDATE WRITE_FIRST WRITE_LAST \
		"WRITE_ONLY_WITH_IMMEDIATE|WRITE_LAST_WITH_IMMEDIATE" \
		READ_REQUEST READ_RESPONSE_FIRST READ_RESPONSE_LAST \
		READ_RESPONSE_ONLY FETCH_ADD COMPARE_SWAP ATOMIC_ACKNOWLEDGE \
		ATOMIC_WRITE FLUSH ACKNOWLEDGE; do
		n=$(awk -v op="$op" '$2 == "RC" && $3 ~ "^(" op ")$" { s += $1 }
			END { print s + 0 }' "$tmp/pcap.log")
		[ "$n" -ge "$2" ] ||
			fail "capture has $n RC $op frames, want >= $2"
	done
}

# memif_conf [EXTRA_A] [EXTRA_B]: the default link in this folder
memif_conf() {
	conf a "port = default" "node = 0" "run_dir = $tmp/run" \
		"stats_dir = $tmp/stats" ${1:+"$1"} ${3:+"$3"}
	conf b "port = default" "node = 1" "run_dir = $tmp/run" \
		"stats_dir = $tmp/stats" ${2:+"$2"} ${4:+"$4"}
}

# by_ref: frames both sides sent with their payload by reference (from
# the counters rdma_peer prints at its end)
by_ref() {
	awk '$1 == "tx_by_ref" { s += $2 } END { print s + 0 }' \
		"$tmp/client.log" "$tmp/server.log"
}

mkdir -p "$tmp/stats"

case "$case_name" in
memif)
	memif_conf "" "capture = $tmp/b.pcap"
	# Half way the client pauses (traffic in flight before and after):
	# sroce-stat must show the transport's counters per device and QP.
	( i=0
	  while [ ! -f "$tmp/pause.ready" ] && [ $i -lt 400 ]; do
		i=$((i + 1)); sleep 0.05
	  done
	  for f in "$tmp"/stats/sroce-*.stats; do
		"$stat_bin" -f "$f" -q >> "$tmp/live.txt" 2>&1
	  done
	  touch "$tmp/pause" ) &
	watcher=$!
	run_pair "" 40 --pause "$tmp/pause"
	wait $watcher
	check_capture "$tmp/b.pcap" 40
	grep -q "xport_tx_pkts" "$tmp/live.txt" ||
		fail "sroce-stat did not show transport counters"
	grep -q "^  qp [0-9]*: sent_pkts=[1-9]" "$tmp/live.txt" ||
		fail "sroce-stat did not show per-QP counters"
	echo "sroce-stat half way:"
	grep "^device\|xport_tx_pkts\|^  qp \|tx_by_ref" "$tmp/live.txt"
	# payloads of 4 KiB left registered memory by reference
	# (the capture above saw them whole, with a good ICRC)
	awk '$1 == "tx_by_ref" && $2 > 0 { ok = 1 } END { exit !ok }' \
		"$tmp/live.txt" || fail "no frame sent by reference"
	;;
dedicated)
	memif_conf "mode = dedicated" "mode = dedicated"
	# then regions deregistered and unmapped while the engine sends a
	# WRITE from them by reference: no frame reads them after
	run_pair "" 20 --dereg-race 96
	[ "$(by_ref)" -gt 0 ] || fail "no frame sent by reference"
	;;
engines)
	# run_lanes N ROUNDS FAULT RC_TIMEOUT: both sides with N engine lcores
	# and the fault rule; the client's QP on another lane than the server's
	run_lanes() {
		memif_conf "mode = dedicated" "mode = dedicated" "engines = $1" \
			"engines = $1"
		printf '%s\n' "fault = $3" "fault_seed = 21" >> "$tmp/a.conf"
		printf '%s\n' "fault = $3" "fault_seed = 22" \
			"capture = $tmp/b.pcap" >> "$tmp/b.conf"
		SROCE_CONFIG=$tmp/a.conf timeout 100 "$peer_bin" server --tcp $tcp \
			--rounds "$2" --rc-timeout "$4" > "$tmp/server.log" 2>&1 &
		pids="$!"
		SROCE_CONFIG=$tmp/b.conf timeout 100 "$peer_bin" client --tcp $tcp \
			--rounds "$2" --rc-timeout "$4" --spare-qps 1 \
			> "$tmp/client.log" 2>&1 || fail "client ($1 lanes)"
		wait $pids || fail "server ($1 lanes)"
		pids=""
		grep "^rdma_peer" "$tmp/client.log" "$tmp/server.log"
		check_capture "$tmp/b.pcap" "$2"
		for side in server client; do
			steered=$(counter "$tmp/$side.log" rx_steered)
			full=$(counter "$tmp/$side.log" drop_steer_full)
			echo "engines $1: $side steered $steered frames between lanes"
			[ "$steered" -ge 100 ] ||
				fail "$side: only $steered frames steered between lanes"
			[ "$full" -eq 0 ] ||
				fail "$side: $full frames lost at a full steering ring"
		done
	}
	# 1. two lanes, every frame delayed 20 us (held per lane): nothing
	#    lost, so a frame of a QP that left on another lane's queue, or
	#    was taken in on two lanes, would show as a sequence error.  (A
	#    1 s transport timeout: six pollers on two CPUs can stall a lane
	#    for milliseconds, and a timeout's retransmission is a legal
	#    duplicate, not a reordering.)
	run_lanes 2 30 "tx delay us=20" 18
	for side in server client; do
		for name in out_of_seq_request rcvd_seq_err; do
			v=$(counter "$tmp/$side.log" $name)
			[ "$v" -eq 0 ] || fail "two lanes: $side $name = $v"
		done
		[ "$(counter "$tmp/$side.log" fault_delay)" -ge 100 ] ||
			fail "two lanes: $side delayed too few frames"
	done
	# 2. three lanes (client QP on lane 0, server QP on lane 2) under 2 %
	#    TX drop: retransmissions cross the lanes, every byte still checked
	run_lanes 3 30 "tx drop prob=2%" 12
	for side in server client; do
		drops=$(counter "$tmp/$side.log" fault_drop)
		echo "engines 3: $side dropped $drops frames"
		[ "$drops" -ge 5 ] || fail "three lanes: $side only $drops frames dropped"
	done
	;;
zero_copy)
	# One copy per side: node 0 sends payloads by reference (its port
	# copies them into the ring), node 1's memif client runs in zero-copy
	# mode, so the transport places a frame's payload into the MR straight
	# from the link's shared memory.  DPDK's zero-copy memif wants
	# hugepages in one file per segment list.
	if ! sr_hugepages_free 160; then
		echo "SKIP: memif zero-copy needs 160 free 2 MiB hugepages; the kernel gave $(sr_hugepages_avail)"
		exit 77
	fi
	mkdir -p "$tmp/run"
	conf a "port = net_memif0,role=server,socket=$tmp/run/zc.sock,id=0,rsize=9,bsize=9216" \
		"ipv4 = 10.0.0.1/24" "mac = 02:53:52:00:00:01" "mtu = 9000" \
		"stats_dir = $tmp/stats" "hugepages = no"
	conf b "port = net_memif0,role=client,socket=$tmp/run/zc.sock,id=0,rsize=9,bsize=9216,zero-copy=yes" \
		"ipv4 = 10.0.0.2/24" "mac = 02:53:52:00:00:02" "mtu = 9000" \
		"stats_dir = $tmp/stats" "hugepages = yes" \
		"eal = --single-file-segments" "capture = $tmp/b.pcap"
	run_pair "" 20
	check_capture "$tmp/b.pcap" 20
	n=$(awk '$1 == "tx_by_ref" { print $2 }' "$tmp/server.log")
	echo "node 0 sent ${n:-0} frames by reference"
	[ "${n:-0}" -gt 0 ] || fail "node 0 sent no frame by reference"
	n=$(awk '$1 == "tx_by_ref" { print $2 }' "$tmp/client.log")
	[ -z "$n" ] || fail "node 1 (zero-copy) sent $n frames by reference"
	;;
ipv6)
	memif_conf "" "capture = $tmp/b.pcap"
	run_pair "" 20 --gid 2
	check_capture "$tmp/b.pcap" 20
	n=$("$pcap_bin" "$tmp/b.pcap" | grep -c "fd00:5352::2 > fd00:5352::1")
	echo "ipv6: $n RoCEv2 frames fd00:5352::2 > fd00:5352::1"
	[ "$n" -ge 100 ] || fail "only $n IPv6 RoCEv2 frames"
	counter_nd=$(counter "$tmp/client.log" nd_tx)
	[ "$counter_nd" -ge 1 ] || fail "no neighbour solicitation sent"
	;;
af_packet)
	ns=sroce-rdma-$$
	ip netns add $ns || fail "ip netns add"
	ip -n $ns link set lo up
	sr_veth_pair $ns sr0 sr1 || fail "veth"
	ip netns exec $ns sysctl -qw net.ipv6.conf.sr0.disable_ipv6=1
	ip netns exec $ns sysctl -qw net.ipv6.conf.sr1.disable_ipv6=1
	# path MTU 1024: payloads go by reference from 1 KiB (not the default)
	conf a "port = net_af_packet0,iface=sr0" "ipv4 = 10.67.0.1/24" \
		"mac = 02:67:00:00:00:01" "stats_dir = $tmp/stats" "mtu = 1500" \
		"tx_ref_min = 1024"
	conf b "port = net_af_packet0,iface=sr1" "ipv4 = 10.67.0.2/24" \
		"mac = 02:67:00:00:00:02" "stats_dir = $tmp/stats" "mtu = 1500" \
		"capture = $tmp/b.pcap" "tx_ref_min = 1024"
	run_pair "ip netns exec $ns" 20
	check_capture "$tmp/b.pcap" 20
	n=$(by_ref)
	echo "frames sent by reference: $n"
	[ "$n" -gt 0 ] || fail "af_packet sent no frame by reference"
	;;
af_packet_mtu)
	ns=sroce-rdma-$$
	ip netns add $ns || fail "ip netns add"
	ip -n $ns link set lo up
	sr_veth_pair $ns sr0 sr1 || fail "veth"
	for v in 1500 9000; do
		ip -n $ns link set sr0 mtu $v
		ip -n $ns link set sr1 mtu $v
		conf a "port = net_af_packet0,iface=sr0" "ipv4 = 10.67.0.1/24" \
			"stats_dir = $tmp/stats" "mtu = 9000"
		conf b "port = net_af_packet0,iface=sr1" "ipv4 = 10.67.0.2/24" \
			"stats_dir = $tmp/stats" "mtu = 9000" \
			"capture = $tmp/b$v.pcap"
		run_pair "ip netns exec $ns" 5
		max=$("$pcap_bin" "$tmp/b$v.pcap" | grep -o 'payload=[0-9]*' |
			cut -d= -f2 | sort -n | tail -1)
		echo "veth MTU $v: largest payload $max"
		if [ $v = 1500 ]; then
			grep -q "^sroce: port 'net_af_packet0' carries an IP MTU of 1500 (the interface's MTU" \
				"$tmp/client.log" || fail "no line about the clamped MTU"
			[ "$max" -eq 1024 ] || fail "payload $max at veth MTU 1500"
		else
			grep -q "carries an IP MTU" "$tmp/client.log" &&
				fail "clamped at veth MTU 9000"
			[ "$max" -eq 4096 ] || fail "payload $max at veth MTU 9000"
		fi
	done
	;;
loss)
	memif_conf "fault = tx drop prob=5%" "fault = tx drop prob=5%" \
		"fault_seed = 11" "capture = $tmp/b.pcap"
	echo "fault_seed = 12" >> "$tmp/b.conf"
	run_pair "" 60 --rc-timeout 12
	check_capture "$tmp/b.pcap" 60
	drops=$(( $(counter "$tmp/server.log" fault_drop) +
		  $(counter "$tmp/client.log" fault_drop) ))
	retries=0
	for name in xport_RETRY xport_TIMEOUT xport_READ_RESUME; do
		retries=$((retries + $(counter "$tmp/server.log" $name) +
			   $(counter "$tmp/client.log" $name)))
	done
	echo "loss: $drops frames dropped, $retries retransmissions started"
	[ "$drops" -ge 50 ] || fail "only $drops frames dropped"
	[ "$retries" -ge 10 ] || fail "only $retries retransmissions counted"
	[ "$(counter "$tmp/client.log" retries)" -gt 0 ] ||
		fail "link counter 'retries' not filled"
	;;
bad_config)
	# each: config lines, then a word the error line must hold
	n=0
	check_bad() {
		want=$1
		shift
		n=$((n + 1))
		printf '%s\n' "$@" > "$tmp/bad$n.conf"
		SROCE_CONFIG=$tmp/bad$n.conf timeout 30 "$peer_bin" client \
			--tcp $tcp --timeout-ms 2000 > "$tmp/bad$n.out" 2> "$tmp/bad$n.err"
		rc=$?
		lines=$(grep -c . "$tmp/bad$n.err")
		echo "bad config $n: exit $rc: $(grep "^sroce: " "$tmp/bad$n.err")"
		[ "$rc" -ne 0 ] && [ "$rc" -lt 124 ] || fail "bad config $n: exit $rc"
		[ "$lines" -eq 1 ] && grep -q "^sroce: " "$tmp/bad$n.err" ||
			fail "bad config $n: $lines lines on stderr, want one 'sroce:' line"
		grep -q "$want" "$tmp/bad$n.err" || fail "bad config $n: no '$want'"
	}
	check_bad "unknown key" "port = default" "ipv4 = 10.0.0.1" "colour = blue"
	check_bad "IPv4" "port = net_ring0" "ipv4 = 10.0.0.300"
	check_bad "port" "ipv4 = 10.0.0.1/24"
	check_bad "port .net_nosuch0. did not probe" "port = net_nosuch0" "ipv4 = 10.0.0.1/24" \
		"stats_dir = off"
	check_bad "EAL" "port = net_ring0" "ipv4 = 10.0.0.1/24" \
		"eal = --no-such-eal-option" "stats_dir = off"
	check_bad "core 900 unavailable" "port = net_ring0" \
		"ipv4 = 10.0.0.1/24" "eal = --lcores=77@(900)" "stats_dir = off"
	check_bad "engines = 2 needs mode = dedicated" "port = net_ring0" \
		"ipv4 = 10.0.0.1/24" "engines = 2" "stats_dir = off"
	# af_packet has one queue pair unless qpairs= says more (no traffic:
	# the port is refused before it starts)
	check_bad "engines = 2 needs as many" "port = net_af_packet0,iface=lo" \
		"ipv4 = 10.0.0.1/24" "mode = dedicated" "engines = 2" \
		"stats_dir = off"
	SROCE_CONFIG=$tmp/none.conf timeout 30 "$peer_bin" client \
		> "$tmp/missing.out" 2> "$tmp/missing.err"
	rc=$?
	echo "missing file: exit $rc: $(cat "$tmp/missing.err")"
	[ "$rc" -ne 0 ] && [ "$rc" -lt 124 ] || fail "missing file: exit $rc"
	;;
*)
	fail "unknown case $case_name"
	;;
esac
echo "PASS: $case_name"
