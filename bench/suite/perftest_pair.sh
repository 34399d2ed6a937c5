#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# perftest_pair.sh SHIM_DIR PROGRAM ARGS... — one of Debian's unmodified
# perftest binaries as server (node 0) and client (node 1) on the drop-in
# libibverbs, over the default memif link in a private folder, TCP on
# 127.0.0.1.  Prints the client's output; exit status: the worse of both.
# SROCE_BENCH_MODE=dedicated runs each device's engine on its own lcore
# (pmd/CONFIG.md, mode), SROCE_BENCH_ENGINES=N on N lcores; default inline.
set -u
dir=$1
prog=$2
shift 2
command -v "$prog" >/dev/null || { echo "SKIP: no $prog"; exit 77; }
tmp=$(mktemp -d /tmp/sroce-perftest.XXXXXX)
spid=""
trap '[ -n "$spid" ] && kill "$spid" 2>/dev/null; rm -rf "$tmp"' EXIT INT TERM
export LD_LIBRARY_PATH=$dir SROCE_RUN_DIR=$tmp
unset SROCE_CONFIG
cfg0="" cfg1=""
if [ "${SROCE_BENCH_MODE:-inline}" = dedicated ]; then
	for n in 0 1; do
		printf '%s\n' "port = default" "node = $n" "run_dir = $tmp" \
			"stats_dir = off" "mode = dedicated" \
			"engines = ${SROCE_BENCH_ENGINES:-1}" > "$tmp/node$n.conf"
	done
	cfg0=$tmp/node0.conf cfg1=$tmp/node1.conf
fi
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
SROCE_CONFIG=$cfg0 SROCE_NODE=0 timeout 60 "$prog" "$@" -p "$port" > "$tmp/server.log" 2>&1 &
spid=$!
sleep 0.3
SROCE_CONFIG=$cfg1 SROCE_NODE=1 timeout 60 "$prog" "$@" -p "$port" 127.0.0.1 > "$tmp/client.log" 2>&1
crc=$?
wait "$spid"
src=$?
spid=""
grep -v "mp action callback\|memif_connect_client" "$tmp/client.log"
if [ $src -ne 0 ] || [ $crc -ne 0 ]; then
	echo "perftest_pair: $prog $*: server exit $src, client exit $crc"
	grep -v "mp action callback\|memif_connect_client" "$tmp/server.log" | tail -5
	exit 1
fi
exit 0
