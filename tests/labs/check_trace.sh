#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# check_trace.sh LAB_SH BUILD_DIR
#
# The live QP trace (sroce-stat --trace, docs/counters.md) on two real
# nodes on the default memif link:
#  1. scripts/lab.sh lost-packet --trace: node 1's QP, PSN 105 dropped once
#     by a fault rule; the trace shows the sequence NAK, go-back-N from 105,
#     105 resent and the WRITE's completion;
#  2. --count: a QPN that does not exist is one clear line and status 1;
#     then exactly N events of the real QP;
#  3. no running device, and a QPN that is not a number: one clear line.
set -u
lab_sh=$1 build=$2
stat=$build/tools/sroce-stat/sroce-stat
out=$(mktemp -d /tmp/sroce-trace-test.XXXXXX)
lab_pid=""
trap '[ -n "$lab_pid" ] && kill "$lab_pid" 2>/dev/null; rm -rf "$out"' EXIT INT TERM
fail=0
bad() { echo "FAIL: $*"; fail=1; }
# has FILE REGEX...: every REGEX matches some line of FILE
has() {
	f=$1
	shift
	for re in "$@"; do
		grep -qE -- "$re" "$f" || bad "$(basename "$f"): no line matches '$re'"
	done
}
# one_line FILE TEXT: FILE is exactly one line and holds TEXT
one_line() {
	[ "$(wc -l < "$1")" -eq 1 ] && grep -qF -- "$2" "$1" ||
		{ bad "want one line with '$2', got:"; cat "$1"; }
}

# 1. the lost packet, traced
SROCE_BUILD=$build SROCE_LAB_NO_BUILD=1 SROCE_LAB_OUT=$out \
	sh "$lab_sh" lost-packet --trace > "$out/lab.txt" 2>&1 || {
	cat "$out/lab.txt"
	echo "FAIL: scripts/lab.sh lost-packet --trace exited non-zero"
	exit 1
}
t=$out/lost-packet/trace.txt
has "$out/lab.txt" "^== the live trace of node 1's QP"
has "$t" "^0\.000000 qp 0x2 req  WRITE_FIRST psn=100 len=1024 window=\[100\.\.101\) rd_out=0$" \
	"qp 0x2 req  got NAK PSN sequence error psn=105 msn=0$" \
	"qp 0x2 req  go-back-N from psn=105 \(sequence NAK\), next psn was 116, retries left [0-9]+$" \
	"qp 0x2 req  WRITE_MIDDLE psn=105 len=1024 window=\[[0-9]+\.\.106\) rd_out=0 \(resent\)$" \
	"qp 0x2 req  got ACKNOWLEDGE psn=115 ACK credits=31 msn=1 " \
	"qp 0x2 comp RDMA_WRITE success len=0 wr_id=0$"
# in that order: the NAK, then the restart, then the completion
order=$(grep -nE "got NAK PSN sequence error|go-back-N from psn=105 \(sequence|comp RDMA_WRITE" "$t" |
	cut -d: -f2 | cut -c1-40 | sed 's/^[0-9.]* qp 0x2 //' | tr '\n' '|')
case $order in
	*"got NAK"*"go-back-N"*"comp RDMA_WRITE"*) ;;
	*) bad "trace order: $order" ;;
esac
grep -q "node 1: 1 x RDMA_WRITE         success" "$out/lost-packet/run.log" ||
	bad "the WRITE did not succeed"
[ "$fail" = 0 ] || cat "$t"

# 2. a running device: a QP it does not have, then --count
printf 'port = default\nmtu = 1500\n' > "$out/n.conf"
timeout 60 "$build/examples/lab/sroce-lab" --conf0 "$out/n.conf" \
	--conf1 "$out/n.conf" --trace-wait 20 send:64x4 > "$out/run.log" 2>&1 &
lab_pid=$!
i=0
until grep -q 'for sroce-stat -p' "$out/run.log" || [ $i -ge 300 ]; do
	sleep 0.1
	i=$((i + 1))
done
set -- $(sed -n 's/.*sroce-stat -p \([0-9]*\) --trace \([0-9]*\).*/\1 \2/p' "$out/run.log")
if [ $# -ne 2 ]; then
	cat "$out/run.log"
	bad "sroce-lab did not wait for a tracer"
else
	pid=$1 qpn=$2
	"$stat" -p "$pid" --trace 0x777 > "$out/none.txt" 2> "$out/none.err" &&
		bad "--trace of a QP that does not exist exited 0"
	one_line "$out/none.err" "--trace 0x777: no such QP on this device"
	[ -s "$out/none.txt" ] && bad "--trace 0x777 printed events"
	"$stat" -p "$pid" --trace "$qpn" --count 5 --timeout 30 \
		> "$out/count.txt" 2> "$out/count.err" ||
		{ bad "--trace --count 5 exited non-zero"; cat "$out/count.err"; }
	[ "$(wc -l < "$out/count.txt")" -eq 5 ] ||
		{ bad "--count 5 printed $(wc -l < "$out/count.txt") lines"; cat "$out/count.txt"; }
	has "$out/count.txt" "^0\.000000 qp 0x$(printf %x "$qpn") req  SEND_ONLY psn=100 len=64 window=\[100\.\.101\) rd_out=0$"
	has "$out/count.err" "5 events, 0 lost \(count reached\)"
fi
wait "$lab_pid" || bad "sroce-lab (send:64x4) failed: $(cat "$out/run.log")"
lab_pid=""
grep -q "node 1: 4 x SEND" "$out/run.log" || bad "the SENDs did not complete"

# 3. no running device; not a QP number
mkdir "$out/empty"
"$stat" -d "$out/empty" --trace 2 > /dev/null 2> "$out/nodev.err" &&
	bad "--trace with no device exited 0"
one_line "$out/nodev.err" "no running sroce device"
"$stat" -d "$out/empty" --trace nine > /dev/null 2> "$out/nan.err"
[ $? -eq 2 ] || bad "--trace nine: want status 2"
one_line "$out/nan.err" "--trace nine: not a QP number"

[ "$fail" = 0 ] && echo "ok: sroce-stat --trace follows a QP live"
exit "$fail"
