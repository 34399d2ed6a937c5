#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# ucx.sh LIB_DIR TMPFILES_CONF — Debian's UCX (ucx-utils 1.13) on sroce
# with nothing but the drop-in in its library path (LD_LIBRARY_PATH=LIB_DIR,
# no launcher, no GLIBC_TUNABLES: UCX dlopens libuct_ib, which loads the
# drop-in then): ucx_info lists sroce0 with rc_verbs and ud_verbs;
# ucx_perftest runs UCT tests (am_lat, put_bw over rc_verbs; am_lat over
# ud_verbs) and UCP tests (tag_lat, tag_bw with UCX_TLS=rc_verbs,ud_verbs:
# UCP connects over ud_verbs, wc.sl carrying the network header type) as
# two processes on the default link, their own TCP exchange over
# 127.0.0.1.  UCX needs /dev/infiniband/sroce0: made here from the
# systemd-tmpfiles file an installed sroce puts in place (TMPFILES_CONF).
set -u
libdir=$1
tmpfiles=$2
command -v ucx_perftest >/dev/null || { echo "SKIP: no ucx_perftest (ucx-utils)"; exit 77; }
if [ ! -e /dev/infiniband/sroce0 ] && [ "$(id -u)" = 0 ]; then
	if command -v systemd-tmpfiles >/dev/null; then
		systemd-tmpfiles --create "$tmpfiles"
	else                            # the file's line for sroce0, by hand
		mkdir -p /dev/infiniband
		mknod -m 666 /dev/infiniband/sroce0 c 1 3
	fi
fi
[ -c /dev/infiniband/sroce0 ] ||
	{ echo "SKIP: no /dev/infiniband/sroce0 (not root)"; exit 77; }
tmp=$(mktemp -d /tmp/sroce-ucx.XXXXXX)
. "$(dirname "$0")/../harness.sh"
export SROCE_RUN_DIR=$tmp LD_LIBRARY_PATH=$libdir
unset GLIBC_TUNABLES
unset SROCE_CONFIG

SROCE_NODE=0 timeout 30 ucx_info -d > "$tmp/info.log" 2>&1 ||
	fail "ucx_info -d exit $?"
for tl in rc_verbs ud_verbs; do
	awk '/Memory domain: sroce0/ { md = 1 } md && /Transport: '$tl'/ { print; exit }' \
		"$tmp/info.log" | grep -q . || fail "ucx_info -d lists no $tl on sroce0"
done
echo "ok: ucx_info -d: sroce0 with rc_verbs and ud_verbs"

port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
pair() {
	what=$1
	shift
	SROCE_NODE=0 timeout 60 ucx_perftest -p "$port" "$@" > "$tmp/server.log" 2>&1 &
	spid=$!
	pids=$spid
	sleep 2
	SROCE_NODE=1 timeout 50 ucx_perftest -p "$port" "$@" -n 2000 127.0.0.1 \
		> "$tmp/client.log" 2>&1
	crc=$?
	wait $spid
	src=$?
	pids=""
	[ $crc -eq 0 ] && [ $src -eq 0 ] || fail "$what: client exit $crc, server exit $src"
	grep -q "^Final:" "$tmp/client.log" || fail "$what: no Final line"
	echo "ok: $what $(grep '^Final:' "$tmp/client.log" | tr -s ' ')"
}
pair "UCT rc_verbs am_lat" -d sroce0:1 -x rc_verbs -t am_lat
pair "UCT rc_verbs put_bw" -d sroce0:1 -x rc_verbs -t put_bw
pair "UCT ud_verbs am_lat" -d sroce0:1 -x ud_verbs -t am_lat
export UCX_TLS=rc_verbs,ud_verbs UCX_NET_DEVICES=sroce0:1
pair "UCP tag_lat" -t tag_lat
pair "UCP tag_bw" -t tag_bw
