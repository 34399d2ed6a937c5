#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# install.sh BUILD_DIR — what `meson install` puts on a machine works
# from there: installed into a DESTDIR, the launcher runs Debian's perftest
# on the installed drop-in (ib_write_bw, two processes on the embedded
# default link), the installed demo passes, and the files a user needs are
# there (sroced and its unit, the private libraries, man pages), and the
# NDK and ND2 examples build against the installed headers and libraries
# with pkg-config alone.
set -u
build=$1
tmp=$(mktemp -d /tmp/sroce-install.XXXXXX)
. "$(dirname "$0")/../harness.sh"
unset LD_LIBRARY_PATH SROCE_CONFIG SROCE_NODE SROCE_DAEMON
export SROCE_DAEMON=off
DESTDIR=$tmp/root meson install -C "$build" --no-rebuild --quiet > "$tmp/install.log" 2>&1 ||
	fail "meson install"
root=$tmp/root
prefix=$(meson introspect "$build" --buildoptions |
	python3 -c 'import json,sys; print([o["value"] for o in json.load(sys.stdin) if o["name"] == "prefix"][0])')
bin=$root$prefix/bin
for f in "$bin/sroce-run" "$bin/sroce-demo" "$bin/sroce-stat" "$bin/sroce-pcap" \
	 "$root$prefix/sbin/sroced" "$root$prefix/lib/systemd/system/sroced.service" \
	 "$root$prefix/share/man/man8/sroced.8" "$root$prefix/share/man/man1/sroce-run.1"; do
	[ -e "$f" ] || fail "not installed: $f"
done
lib=$(find "$root" -name libibverbs.so.1 | head -1)
[ -n "$lib" ] || fail "no libibverbs.so.1 installed"
case $lib in */sroce/libibverbs.so.1) ;; *) fail "libibverbs.so.1 not in a private folder: $lib" ;; esac
ldd "$lib" | grep -q "$build" && fail "the installed library refers to the build tree"
grep -q "ExecStart=$prefix/sbin/sroced --foreground" "$root$prefix/lib/systemd/system/sroced.service" ||
	fail "the unit does not start the installed sroced"
# NDK / ND2 programs: headers, libraries and pkg-config files installed
src=$(cd "$(dirname "$0")/../.." && pwd)
pc=$(find "$root" -name sroce-nd2.pc | head -1)
[ -n "$pc" ] || fail "no sroce-nd2.pc installed"
libdir=$(dirname "$(dirname "$pc")")
export PKG_CONFIG_PATH=$(dirname "$pc") PKG_CONFIG_SYSROOT_DIR=$root
for ex in ndk:ndk_frmr nd2:nd2_rdma; do
	mod=${ex%%:*} prog=${ex#*:}
	# shellcheck disable=SC2046
	cc -std=c11 -D_GNU_SOURCE -o "$tmp/$prog" "$src/examples/$prog/main.c" \
		$(pkg-config --cflags --libs "sroce-$mod") -pthread > "$tmp/$prog.cc.log" 2>&1 ||
		{ cat "$tmp/$prog.cc.log"; fail "$prog does not build against the installed sroce-$mod"; }
	LD_LIBRARY_PATH=$libdir ldd "$tmp/$prog" | grep -q "not found" &&
		fail "$prog: a library is missing from the install"
	LD_LIBRARY_PATH=$libdir ldd "$tmp/$prog" | grep -q "$build" &&
		fail "$prog links the build tree"
done
unset PKG_CONFIG_PATH PKG_CONFIG_SYSROOT_DIR
# perftest through the installed launcher (not the build tree's libraries)
export SROCE_RUN_DIR=$tmp/run SROCE_DEVNODES=0
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
SROCE_NODE=0 timeout 60 "$bin/sroce-run" ib_write_bw -x 1 -n 200 -p "$port" > "$tmp/server.log" 2>&1 &
pids="$pids $!"
sleep 0.5
SROCE_NODE=1 timeout 60 "$bin/sroce-run" ib_write_bw -x 1 -n 200 -p "$port" 127.0.0.1 > "$tmp/client.log" 2>&1 ||
	fail "ib_write_bw through the installed sroce-run"
grep -Eq '^ *65536 +200 ' "$tmp/client.log" || fail "ib_write_bw printed no result"
SROCE_NODE=0 timeout 10 "$bin/sroce-run" sh -c 'echo "$LD_LIBRARY_PATH"' > "$tmp/ldpath.log"
grep -q "^$root" "$tmp/ldpath.log" || fail "the launcher does not use the installed folder"
unset SROCE_NODE
timeout 120 "$bin/sroce-demo" > "$tmp/demo.log" 2>&1 || fail "the installed sroce-demo"
echo "PASS: installed into $root: sroce-run ib_write_bw, sroce-demo, sroced + unit, man pages, NDK/ND2 examples built with pkg-config"
