#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# flows_test.sh BUILD_ROOT — issue 20: two sender processes with 2 RC
# WRITE QPs each, in their own namespaces, into one receiver process
# behind bneck's 100 Mbit/s port (the benchmark's set-up,
# bench/suite/cc_bench.sh, one short run of its 4-QP case).
#
# CC on (DCQCN, ECT(0), marking from 8 KiB of queue): every process exits
# 0 (no WRITE failed: no RETRY_EXC), the switch marked CE, the receiver
# sent CNPs and the senders received them, and every QP delivered bytes,
# none less than 10 % of an equal share.  CC off in the same test: the
# switch dropped (so the queue was a real bottleneck).  Functional facts
# only; the figures are the benchmark's.
set -u
build=$1
src=$(cd "$(dirname "$0")/../.." && pwd)
[ "$(id -u)" = 0 ] || { echo "SKIP: not root"; exit 77; }
command -v python3 >/dev/null || { echo "SKIP: no python3"; exit 77; }
out=$(mktemp -d /tmp/sroce-flows.XXXXXX)
trap 'rm -rf "$out"' EXIT INT TERM
fail() {
	echo "FAIL: $*"
	for f in "$out"/cc/*; do echo "--- $f"; grep -v '^[SL] ' "$f" | tail -20; done
	exit 1
}

CC_CASES=2 CC_MODES="on off" CC_SECONDS=${FLOWS_SECONDS:-4} CC_NO_REPORT=1 \
	sh "$src/bench/suite/cc_bench.sh" "$build" "$out" 1 ||
	fail "cc_bench.sh did not run"
d=$out/cc

# port NAME RUN: the bottleneck port's figure at the end of RUN
port() {
	awk -v k="$1" '$1 == "port" && $2 ~ /p3$/ {
		for (i = 3; i < NF; i += 2) if ($i == k) v = $(i + 1) }
		END { print v + 0 }' "$d/$2.bneck.end"
}
# sum NAME FILES: a counter summed over the processes' "C" lines
sum() {
	n=$1; shift
	cat "$@" | awk -v n="$n" '$1 == "C" && $3 == n { s += $4 } END { print s + 0 }'
}

on=on-q4-r1
off=off-q4-r1
[ "$(cat "$d/$on.status")" = ok ] || fail "CC on: a process failed (RETRY_EXC?)"
! grep -q '^E ' "$d/$on".s* || fail "CC on: a WRITE failed"
[ "$(sum retry_exc "$d/$on".s*)" -eq 0 ] || fail "CC on: RETRY_EXC"
marked=$(port marked $on)
sent=$(sum cnp_sent "$d/$on.recv")
rcvd=$(sum cnp_rcvd "$d/$on".s*)
echo "CC on: $marked CE marks, $sent CNPs sent, $rcvd received"
[ "$marked" -gt 0 ] || fail "CC on: the switch marked nothing"
[ "$sent" -gt 0 ] || fail "CC on: the receiver sent no CNP"
[ "$rcvd" -gt 0 ] || fail "CC on: the senders received no CNP"
# every QP's share: 4 QPs, each > 0 and >= 10 % of the mean
cat "$d/$on".s* | awk '$1 == "Q" { b[++n] = $4; s += $4 }
	END {
		if (n != 4) { print "FAIL: " n " QPs reported, not 4"; exit 1 }
		for (i = 1; i <= n; i++) {
			printf "QP %d: %d bytes (%.0f %% of an equal share)\n", i, b[i], 100 * b[i] * n / s
			if (b[i] <= 0 || b[i] * n * 10 < s) { print "FAIL: QP starved"; exit 1 }
		}
	}' || fail "CC on: a QP got no fair share"

[ "$(cat "$d/$off.status")" = ok ] || fail "CC off: a process failed"
drops=$(port dropped $off)
echo "CC off: $drops frames dropped at the switch"
[ "$drops" -gt 0 ] || fail "CC off: the queue never overflowed"
echo "ok: 2 processes x 2 QPs through bneck: CC on marked, CNPs both ways, every QP served; CC off dropped"
