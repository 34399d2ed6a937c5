#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# link_bench.sh LINK_BENCH [memif|af_packet ...] — raw link figures between
# two processes, one core each: net_memif on a private socket, and
# net_af_packet on a veth pair in a network namespace made and deleted here.
# LINK_SECONDS: seconds per frame size (default 1).
set -u
. "$(dirname "$0")/../../scripts/veth.sh"
bin=$1
shift
links=${*:-memif af_packet}
tmp=$(mktemp -d /tmp/sroce-link-bench.XXXXXX)
ns=""
trap '[ -n "$ns" ] && ip netns del "$ns" 2>/dev/null; rm -rf "$tmp"' EXIT INT TERM

run_pair() {   # run_pair NAME CONF_A CONF_B [NETNS]
	pre=""
	[ -n "${4:-}" ] && pre="ip netns exec $4"
	SROCE_CONFIG=$2 $pre timeout 120 "$bin" rx > "$tmp/rx.log" 2>&1 &
	rxpid=$!
	sleep 0.5
	SROCE_CONFIG=$3 $pre timeout 120 "$bin" tx --peer "$5" \
		--seconds "${LINK_SECONDS:-1}" > "$tmp/tx.log" 2>&1
	wait $rxpid
	echo "== $1 =="
	grep -v "mp action callback" "$tmp/rx.log"
	grep -v "mp action callback" "$tmp/tx.log"
}

for link in $links; do
	case $link in
	memif)
		printf '%s\n' "port = default" "node = 0" "run_dir = $tmp/run" \
			"stats_dir = off" > "$tmp/a.conf"
		printf '%s\n' "port = default" "node = 1" "run_dir = $tmp/run" \
			"stats_dir = off" > "$tmp/b.conf"
		run_pair "net_memif (MTU 9000)" "$tmp/a.conf" "$tmp/b.conf" "" 10.0.0.1
		;;
	af_packet)
		ns=sroce-bench-$$
		ip netns add $ns || exit 1
		sr_veth_pair $ns sb0 sb1 || exit 1
		printf '%s\n' "port = net_af_packet0,iface=sb0" "ipv4 = 10.88.0.1/24" \
			"mac = 02:88:00:00:00:01" "stats_dir = off" > "$tmp/a.conf"
		printf '%s\n' "port = net_af_packet0,iface=sb1" "ipv4 = 10.88.0.2/24" \
			"mac = 02:88:00:00:00:02" "stats_dir = off" > "$tmp/b.conf"
		run_pair "net_af_packet on veth (MTU 1500)" "$tmp/a.conf" "$tmp/b.conf" $ns 10.88.0.1
		ip netns del $ns
		ns=""
		;;
	esac
done
