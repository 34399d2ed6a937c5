#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# storm_test.sh BNECK SHIM_DIR — issue 20, point 5: 16 RC QPs into a
# receiver behind a small queue complete without RETRY_EXC, retry_cnt 7.
#
# Debian's ib_write_bw -q 16 through the drop-in libibverbs, client and
# server in their own namespaces, joined through bneck (the test switch,
# tests/cc/bneck.c) running a 100 Mbit/s port with a 24 KiB tail-drop
# queue in a third namespace.  Congestion control and ECN are off at both
# ends, as against rxe, so only the requester's behaviour after a loss
# decides: each loss used to resend the QP's whole 128-packet window, 16
# such bursts overflowed the queue again at every timeout, and the run
# ended in RETRY_EXC; with slow start the retransmissions are clocked by
# the ACKs.  Asserts: both perftest ends exit 0 (a RETRY_EXC completion
# fails them), and the switch did drop (the queue was the bottleneck).
set -u
bneck=$1
dir=$2
command -v ib_write_bw >/dev/null || { echo "SKIP: no perftest"; exit 77; }
[ "$(id -u)" = 0 ] || { echo "SKIP: not root"; exit 77; }
tag=st$$
tmp=$(mktemp -d /tmp/sroce-storm.XXXXXX)
pids=""
cleanup() {
	for p in $pids; do kill "$p" 2>/dev/null; done
	wait 2>/dev/null
	for n in sw h1 h2; do ip netns del "$tag$n" 2>/dev/null; done
	rm -rf "$tmp"
}
trap cleanup EXIT INT TERM
fail() {
	for p in $pids; do kill "$p" 2>/dev/null; done; wait 2>/dev/null
	echo "FAIL: $*"
	for f in "$tmp"/*.log "$tmp"/*.stats; do
		[ -f "$f" ] && { echo "--- $f"; tail -30 "$f"; }
	done
	exit 1
}

for n in sw h1 h2; do ip netns add "$tag$n" || fail "netns"; done
for i in 1 2; do
	ip link add "${tag}p$i" type veth peer name "${tag}h$i" || fail veth
	ip link set "${tag}p$i" netns "${tag}sw"
	ip link set "${tag}h$i" netns "$tag""h$i"
	ip -n "${tag}sw" link set "${tag}p$i" up
	ip netns exec "${tag}h$i" sysctl -qw "net.ipv6.conf.${tag}h$i.disable_ipv6=1"
	ip -n "${tag}h$i" link set "${tag}h$i" up
	ip -n "${tag}h$i" link set lo up
	printf '%s\n' "port = net_af_packet0,iface=${tag}h$i" \
		"ipv4 = 10.79.1.$i/24" "mac = 02:79:00:00:00:0$i" \
		"mtu = 1500" "cc = off" "ecn = off" "run_dir = $tmp" \
		> "$tmp/h$i.conf"
done

# perftest's TCP on a direct veth (bneck forwards through AF_PACKET and
# would pass the kernel's offloaded, not yet computed TCP checksums on)
ip link add "${tag}c1" type veth peer name "${tag}c2" || fail veth
for i in 1 2; do
	ip link set "${tag}c$i" netns "${tag}h$i"
	ip -n "${tag}h$i" addr add "10.79.0.$i/24" dev "${tag}c$i"
	ip -n "${tag}h$i" link set "${tag}c$i" up
done

ip netns exec "${tag}sw" "$bneck" -p "${tag}p1" -p "${tag}p2" \
	-r 100 -q 24576 -t 60 -s "$tmp/bneck.stats" > "$tmp/bneck.out" \
	2> "$tmp/bneck.log" &
bpid=$!
pids=$bpid
sleep 0.3

export LD_LIBRARY_PATH=$dir
# 16 QPs x 30 x 64 KiB = 30 MiB: about 2.5 s at 100 Mbit/s
args="-d sroce0 -q 16 -s 65536 -n 30 -p 18515"
SROCE_CONFIG=$tmp/h2.conf ip netns exec "${tag}h2" timeout ${STORM_TIMEOUT:-90} \
	ib_write_bw $args > "$tmp/server.log" 2>&1 &
spid=$!
pids="$pids $spid"
sleep 1
SROCE_CONFIG=$tmp/h1.conf ip netns exec "${tag}h1" timeout ${STORM_TIMEOUT:-90} \
	ib_write_bw $args 10.79.0.2 > "$tmp/client.log" 2>&1 ||
	fail "ib_write_bw client (RETRY_EXC?)"
wait $spid || fail "ib_write_bw server"
kill "$bpid" 2>/dev/null
wait "$bpid" 2>/dev/null
pids=""
cat "$tmp/client.log" | tail -4
stats=$tmp/bneck.out
[ -s "$tmp/bneck.stats" ] && stats=$tmp/bneck.stats
drops=$(awk -v p="${tag}p2" '$1 == "port" && $2 == p {
	for (i = 3; i < NF; i += 2) if ($i == "dropped") v = $(i + 1) }
	END { print v + 0 }' "$stats")
echo "bottleneck drops: $drops"
[ "$drops" -gt 0 ] || fail "the queue never overflowed: no test of the storm"
echo "ok: 16 QPs through a 24 KiB queue completed, $drops frames dropped"
