#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# pair.sh SHIM_DIR KIND PROGRAM ARGS...
#
# KIND may end in "-blocked": a case that fails because of a known bug
# below the shim (see verbs-shim/README.md, "Known failures"); it is
# skipped unless SROCE_VERBS_BLOCKED=1.  KIND may end in "-engines2":
# both devices in dedicated mode with two engine lcores each
# (pmd/CONFIG.md, engines).
#
# One of Debian's own, unmodified RDMA programs, server and client, as two
# processes on this machine, with the drop-in libibverbs: the default link
# (net_memif, sockets in a private folder, no hugepages), node 0 the
# server, node 1 the client; TCP exchange over 127.0.0.1.  KIND says what
# a good run prints:
#   pingpong   "<n> iters in <t> seconds" on both sides (ibv_*_pingpong)
#   perftest   a "#bytes" table with at least one row of numbers (the
#              client; some servers print nothing)
#   verified   "messages verified" on both sides (this suite's own
#              two-process programs, manyqp)
#   success    "success" on both sides (ibv_xsrq_pingpong)
# Both must exit 0.
set -u
dir=$1
kind=$2
prog=$3
shift 3
command -v "$prog" >/dev/null || { echo "SKIP: no $prog"; exit 77; }
engines=0
case $kind in
*-engines2)
	kind=${kind%-engines2}
	engines=2 ;;
*-blocked)
	kind=${kind%-blocked}
	if [ "${SROCE_VERBS_BLOCKED:-0}" != 1 ]; then
		echo "SKIP: blocked by a lib/ or pmd/ bug (SROCE_VERBS_BLOCKED=1 runs it)"
		exit 77
	fi ;;
esac

tmp=$(mktemp -d /tmp/sroce-verbs-pair.XXXXXX)
. "$(dirname "$0")/../harness.sh"

export LD_LIBRARY_PATH=$dir SROCE_RUN_DIR=$tmp
unset SROCE_CONFIG
cfg0="" cfg1=""
if [ "$engines" -gt 0 ]; then
	for n in 0 1; do
		printf '%s\n' "port = default" "node = $n" "run_dir = $tmp" \
			"stats_dir = off" "mode = dedicated" "engines = $engines" \
			> "$tmp/node$n.conf"
	done
	cfg0=$tmp/node0.conf cfg1=$tmp/node1.conf
fi
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
limit=${SROCE_PAIR_TIMEOUT:-100}

SROCE_CONFIG=$cfg0 SROCE_NODE=0 timeout "$limit" "$prog" "$@" -p "$port" > "$tmp/server.log" 2>&1 &
spid=$!
pids=$spid
# the client retries its TCP connect, but give the server its listen first
sleep 0.5
SROCE_CONFIG=$cfg1 SROCE_NODE=1 timeout "$limit" "$prog" "$@" -p "$port" 127.0.0.1 > "$tmp/client.log" 2>&1
crc=$?
wait $spid
src=$?
pids=""

show() {
	for f in server client; do
		echo "--- $f"
		grep -v "mp action callback\|memif_connect_client" "$tmp/$f.log"
	done
}
if [ $src -ne 0 ] || [ $crc -ne 0 ]; then
	show
	echo "FAIL: $prog $*: server exit $src, client exit $crc"
	exit 1
fi
case $kind in
pingpong)
	for f in server client; do
		grep -q "iters in .* seconds" "$tmp/$f.log" ||
			{ show; echo "FAIL: $f printed no result"; exit 1; }
	done ;;
perftest)
	grep -q "#bytes" "$tmp/client.log" &&
	grep -Eq "^ *[0-9]+ +[0-9]+ +[0-9.]+" "$tmp/client.log" ||
		{ show; echo "FAIL: the client printed no numbers"; exit 1; } ;;
verified)
	for f in server client; do
		grep -q "messages verified" "$tmp/$f.log" ||
			{ show; echo "FAIL: $f verified nothing"; exit 1; }
	done ;;
success)
	for f in server client; do
		grep -qx "success" "$tmp/$f.log" ||
			{ show; echo "FAIL: $f did not say success"; exit 1; }
	done ;;
esac
grep -E "iters in|verified|^ *[0-9]+ +[0-9]+ +[0-9.]+" "$tmp/client.log" | tail -3
echo "ok: $prog $*"
