#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# trace.sh SHIM_DIR SROCE_STAT
#
# sroce-stat --trace on a process on the drop-in libibverbs: Debian's
# ib_write_bw between two processes on the default link, the client
# dropping 1 % of its frames; while it runs, the client's QP is traced for
# 300 events: its WRITEs with PSNs and window, the ACKs that come back.
set -u
dir=$1
stat_bin=$2
command -v ib_write_bw >/dev/null || { echo "SKIP: no perftest"; exit 77; }

tmp=$(mktemp -d /tmp/sroce-verbs-trace.XXXXXX)
. "$(dirname "$0")/../harness.sh"
export LD_LIBRARY_PATH=$dir
unset SROCE_NODE
mkdir -p "$tmp/stats"
for n in 0 1; do
	printf '%s\n' "port = default" "node = $n" "run_dir = $tmp" \
		"stats_dir = $tmp/stats" > "$tmp/node$n.conf"
done
printf '%s\n' "fault = tx drop prob=1%" "fault_seed = 5" >> "$tmp/node1.conf"
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
SROCE_CONFIG=$tmp/node0.conf timeout 100 ib_write_bw -d sroce0 -s 65536 \
	-n 20000 -p "$port" > "$tmp/server.log" 2>&1 &
spid=$!
pids=$spid
sleep 0.5
SROCE_CONFIG=$tmp/node1.conf timeout 100 ib_write_bw -d sroce0 -s 65536 \
	-n 20000 -p "$port" 127.0.0.1 > "$tmp/client.log" 2>&1 &
cpid=$!
pids="$spid $cpid"
# the client's stats file and its QP, once it has one
f="" qpn=""
for i in $(seq 1 200); do
	for s in "$tmp"/stats/sroce-"$cpid"-*.stats "$tmp"/stats/*.stats; do
		[ -f "$s" ] || continue
		"$stat_bin" -f "$s" -q > "$tmp/s.txt" 2>/dev/null || continue
		grep -q "role=client" "$tmp/s.txt" || continue
		qpn=$(sed -n 's/^ *qp \([0-9]*\):.*/\1/p' "$tmp/s.txt" | head -n 1)
		[ -n "$qpn" ] && f=$s && break 2
	done
	sleep 0.05
done
[ -n "$qpn" ] || fail "no client QP in sroce-stat -q"
"$stat_bin" -f "$f" --trace "$qpn" --count 300 --timeout 60 \
	> "$tmp/trace.txt" 2> "$tmp/trace.log" || fail "sroce-stat --trace $qpn"
hex=$(printf %x "$qpn")
[ "$(grep -c "^[0-9]*\.[0-9]\{6\} qp 0x$hex " "$tmp/trace.txt")" -eq 300 ] ||
	fail "want 300 lines of qp 0x$hex: $(head -n 5 "$tmp/trace.txt")"
grep -qE "qp 0x$hex req  WRITE_(FIRST|MIDDLE|LAST) psn=[0-9]+ len=4096 window=\[[0-9]+\.\.[0-9]+\) rd_out=0" \
	"$tmp/trace.txt" || fail "no WRITE in the trace"
grep -q "qp 0x$hex req  got ACKNOWLEDGE psn=" "$tmp/trace.txt" ||
	fail "no ACK in the trace"
grep -q "300 events" "$tmp/trace.log" || fail "summary: $(cat "$tmp/trace.log")"
wait $cpid || fail "ib_write_bw client"
wait $spid || fail "ib_write_bw server"
pids=""
echo "ok: sroce-stat --trace follows a drop-in libibverbs QP"
