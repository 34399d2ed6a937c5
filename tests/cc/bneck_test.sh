#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# bneck (the test switch) in its own namespaces: two senders and a receiver
# on veths into a switch namespace.  Two ECT(0) UDP floods into one 50
# Mbit/s port must be marked CE (with a valid IPv4 checksum: the receiver's
# kernel counts them), the port never sends above its rate nor queues above
# its limit; the same floods Not-ECT are never marked, only tail-dropped.
# Needs root (namespaces) and nft.  Usage: bneck_test.sh BNECK
set -u
bneck=$1
tag=bn$$
tmp=$(mktemp -d /tmp/sroce-bneck.XXXXXX)
pids=""
cleanup() {
	for p in $pids; do kill "$p" 2>/dev/null; done
	wait 2>/dev/null
	for n in sw h1 h2 h3; do ip netns del "$tag$n" 2>/dev/null; done
	rm -rf "$tmp"
}
trap cleanup EXIT INT TERM
fail() { echo "FAIL: $*"; cat "$tmp"/*.log 2>/dev/null; exit 1; }
command -v nft >/dev/null || { echo "SKIP: no nft"; exit 77; }
[ "$(id -u)" = 0 ] || { echo "SKIP: not root"; exit 77; }

for n in sw h1 h2 h3; do ip netns add "$tag$n" || fail "netns"; done
for i in 1 2 3; do
	ip link add "${tag}p$i" type veth peer name "${tag}h$i" || fail veth
	ip link set "${tag}p$i" netns "${tag}sw"
	ip link set "${tag}h$i" netns "$tag""h$i"
	ip -n "${tag}sw" link set "${tag}p$i" up
	ip -n "${tag}h$i" addr add "10.78.0.$i/24" dev "${tag}h$i"
	ip -n "${tag}h$i" link set "${tag}h$i" up
	ip -n "${tag}h$i" link set lo up
done
ip netns exec "${tag}h3" nft -f - <<NFT || fail "nft"
table inet obs {
	chain in {
		type filter hook input priority 0; policy accept;
		udp dport 4791 ip ecn ce counter
		udp dport 4791 ip ecn ect0 counter
		udp dport 4791 ip ecn not-ect counter
	}
}
NFT

# flood TOS: two senders, 1.5 s each, as fast as the socket goes.
flood() {
	for h in 1 2; do
		ip netns exec "${tag}h$h" python3 -c "
import socket, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.setsockopt(socket.IPPROTO_IP, socket.IP_TOS, $1)
t = time.time()
while time.time() - t < 1.5:
    for i in range(64):
        try: s.sendto(b'x' * 1000, ('10.78.0.3', 4791))
        except OSError: pass
    time.sleep(0.0002)
" &
		pids="$pids $!"
	done
	wait
	pids=""
}

# run TOS NAME: bneck for 3 s around a flood; stats in $tmp/NAME.stats.
run() {
	ip netns exec "${tag}sw" "$bneck" -p "${tag}p1" -p "${tag}p2" -p "${tag}p3" \
		-r 50 -q 131072 -k 10000 -K 40000 -P 20 -t 3 \
		>"$tmp/$2.stats" 2>"$tmp/$2.log" &
	bp=$!
	sleep 0.3
	flood "$1"
	wait $bp || fail "bneck exited $?"
}

field() { # field NAME PORT-SUFFIX FILE
	awk -v k="$1" -v p="${tag}$2" '$1 == "port" && $2 == p {
		for (i = 3; i < NF; i += 2) if ($i == k) print $(i + 1) }' "$3"
}

run 2 ect
cat "$tmp/ect.stats"
el=$(awk '$1 == "elapsed" { print $2 }' "$tmp/ect.stats")
txb=$(field tx_bytes p3 "$tmp/ect.stats")
marked=$(field marked p3 "$tmp/ect.stats")
qmax=$(field qmax p3 "$tmp/ect.stats")
[ "$marked" -gt 0 ] || fail "ECT(0) flood into a full port: nothing marked"
[ "$qmax" -le 131072 ] || fail "queue $qmax above its limit"
# The token bucket: at most rate * time + one saved frame.
awk -v b="$txb" -v t="$el" 'BEGIN { exit !(b <= 50e6 / 8 * t + 9216) }' ||
	fail "port sent $txb bytes in $el s, above 50 Mbit/s"
ce=$(ip netns exec "${tag}h3" nft list table inet obs | awk '/ecn ce counter/ { print $(NF - 2) }')
[ "$ce" -gt 0 ] || fail "no CE-marked packet reached the receiver's input"

run 0 notect
cat "$tmp/notect.stats"
[ "$(field marked p3 "$tmp/notect.stats")" -eq 0 ] || fail "Not-ECT traffic marked"
[ "$(field dropped p3 "$tmp/notect.stats")" -gt 0 ] || fail "Not-ECT overload: no tail drop"
echo "ok: ECT(0) marked $marked, receiver counted $ce CE; Not-ECT only dropped"
