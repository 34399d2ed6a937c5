#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# counters.sh SHIM_DIR SROCE_STAT
#
# The transport's counters of processes on the drop-in libibverbs move in
# sroce-stat, per device and per QP: Debian's ib_write_bw and ib_read_bw
# between two processes on the default link, one dropping 3 % of the
# frames it sends (fault rule): the WRITE client, the READ server.  While they run, sroce-stat shows, for
# the server, sequence errors detected and NAKed (xport_seq_err,
# xport_seq_nak_sent) and, for the client, the NAKs received and the
# retransmissions (xport_seq_nak_rcvd, xport_retry), on the device and on
# its QP; in the READ run, the server answers the READs whose responses
# it lost again (xport_req_dup) and the client retries.
set -u
dir=$1
stat_bin=$2
command -v ib_write_bw >/dev/null || { echo "SKIP: no perftest"; exit 77; }

tmp=$(mktemp -d /tmp/sroce-verbs-counters.XXXXXX)
. "$(dirname "$0")/../harness.sh"
export LD_LIBRARY_PATH=$dir
unset SROCE_NODE
mkdir -p "$tmp/stats"
# conf N: node N's configuration, dropping 3 % of its frames when N is
# the node that loses
conf() {
	printf '%s\n' "port = default" "node = $1" "run_dir = $tmp" \
		"stats_dir = $tmp/stats" > "$tmp/node$1.conf"
	[ "$1" = "$lossy" ] &&
		printf '%s\n' "fault = tx drop prob=3%" "fault_seed = 5" \
			>> "$tmp/node$1.conf"
	true
}

# value NAME FILE: the first "NAME value" line's value (0 when absent)
value() {
	v=$(awk -v n="$1" '$1 == n { print $2; exit }' "$2")
	echo "${v:-0}"
}

# run PROG: server and client; snapshots of both sides' counters while
# the client runs (the stats files go with the processes).
run() {
	prog=$1
	lossy=$2
	conf 0
	conf 1
	port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
	SROCE_CONFIG=$tmp/node0.conf timeout 100 $prog -d sroce0 -s 65536 \
		-n 2000 -p "$port" > "$tmp/server.log" 2>&1 &
	spid=$!
	pids=$spid
	sleep 0.5
	SROCE_CONFIG=$tmp/node1.conf timeout 100 $prog -d sroce0 -s 65536 \
		-n 2000 -p "$port" 127.0.0.1 > "$tmp/client.log" 2>&1 &
	cpid=$!
	pids="$spid $cpid"
	rm -f "$tmp/server.stat" "$tmp/client.stat"
	# each process's file; the memif role in its header says which
	while kill -0 $cpid 2>/dev/null; do
		for f in "$tmp"/stats/*.stats; do
			[ -f "$f" ] || continue
			"$stat_bin" -f "$f" -q > "$tmp/s.new" 2>/dev/null || continue
			# the last look while the QP exists (perftest destroys
			# it before it exits)
			grep -q "^ *qp [0-9]*:" "$tmp/s.new" || continue
			if grep -q "role=server" "$tmp/s.new"; then
				mv "$tmp/s.new" "$tmp/server.stat"
			else
				mv "$tmp/s.new" "$tmp/client.stat"
			fi
		done
		sleep 0.2
	done
	wait $cpid || { cat "$tmp/client.log"; fail "$prog client"; }
	wait $spid || { cat "$tmp/server.log"; fail "$prog server"; }
	pids=""
	[ -f "$tmp/server.stat" ] && [ -f "$tmp/client.stat" ] ||
		fail "$prog: sroce-stat never read the processes' counters"
}

# want SIDE NAME: the counter moved on SIDE's device and on its QP
want() {
	dv=$(value "xport_$2" "$tmp/$1.stat")
	qv=$(awk -v n="xport_$2" '/^ *qp / { q = 1 } q && $1 == n { print $2; exit }' \
		"$tmp/$1.stat")
	echo "$1: xport_$2 device $dv, QP ${qv:-0}"
	[ -n "${SROCE_TEST_VERBOSE:-}" ] && cat "$tmp/$1.stat"
	[ "$dv" -gt 0 ] || { cat "$tmp/$1.stat"; fail "$1: xport_$2 is 0"; }
	[ "${qv:-0}" -gt 0 ] || { cat "$tmp/$1.stat"; fail "$1: QP xport_$2 is 0"; }
}

run ib_write_bw 1
want server seq_err
want server seq_nak_sent
want client seq_nak_rcvd
want client retry
[ "$(value fault_drop "$tmp/client.stat")" -gt 0 ] || fail "no frame dropped"

run ib_read_bw 0
want server req_dup
want client retry
[ "$(value fault_drop "$tmp/server.stat")" -gt 0 ] || fail "no frame dropped"
echo "ok: the drop-in's transport counters move in sroce-stat"
