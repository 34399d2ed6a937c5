#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# pair.sh PROGRAM [ARGS...] — run PROGRAM as node 0 and node 1 of the
# default memif link (its sockets in a private
# folder), node 0 first; both must exit 0 and print "PASS".
set -u
prog=$1
shift
tmp=$(mktemp -d /tmp/sroce-ndk-pair.XXXXXX)
pid=""
cleanup() {
	[ -n "$pid" ] && kill "$pid" 2>/dev/null
	wait 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT INT TERM
export SROCE_RUN_DIR=$tmp
unset SROCE_CONFIG
SROCE_NODE=0 timeout 60 "$prog" "$@" > "$tmp/node0.log" 2>&1 &
pid=$!
sleep 0.3
SROCE_NODE=1 timeout 60 "$prog" "$@" > "$tmp/node1.log" 2>&1
rc1=$?
wait "$pid"
rc0=$?
pid=""
for n in 0 1; do
	echo "--- node $n"
	grep -v "mp action callback\|memif_connect_client" "$tmp/node$n.log"
done
[ $rc0 -eq 0 ] && [ $rc1 -eq 0 ] || { echo "FAIL: exit $rc0 / $rc1"; exit 1; }
grep -q PASS "$tmp/node0.log" && grep -q PASS "$tmp/node1.log" || { echo "FAIL: no PASS"; exit 1; }
exit 0
