#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# abi_bind_now.sh SHIM_DIR
#
# Every perftest and ibverbs-utils binary resolves, with immediate binding,
# against the drop-in library: ldd -r (LD_BIND_NOW) must name the shim for
# libibverbs.so.1 and report no undefined symbol and no missing version —
# for the binary and everything it pulls in (librdmacm, libmlx5, libefa).
# Then each one actually starts under LD_BIND_NOW=1 and prints its help.
set -u
dir=$1
LC_ALL=C
export LC_ALL

bins=""
for b in ib_write_bw ib_read_bw ib_send_bw ib_atomic_bw ib_write_lat \
	 ib_read_lat ib_send_lat ib_atomic_lat ibv_devices ibv_devinfo \
	 ibv_asyncwatch ibv_rc_pingpong ibv_uc_pingpong ibv_ud_pingpong \
	 ibv_srq_pingpong ibv_xsrq_pingpong; do
	p=$(command -v $b) && bins="$bins $p"
done
[ -n "$bins" ] || { echo "SKIP: no perftest / ibverbs-utils"; exit 77; }

fail=0
count=0
for b in $bins; do
	out=$(LD_LIBRARY_PATH=$dir LD_BIND_NOW=1 ldd -r "$b" 2>&1)
	if ! echo "$out" | grep -q "libibverbs.so.1 => $dir/libibverbs.so.1"; then
		echo "FAIL: $b does not load the shim:"
		echo "$out" | grep libibverbs
		fail=1
	fi
	if echo "$out" | grep -E "undefined symbol|version .* not found|not found" ; then
		echo "FAIL: $b has unresolved symbols against the shim"
		fail=1
	fi
	# Start it: the loader binds every symbol before main.
	LD_LIBRARY_PATH=$dir LD_BIND_NOW=1 timeout 10 "$b" --help >/tmp/bind.$$ 2>&1
	rc=$?
	if [ $rc -eq 124 ] || { [ $rc -gt 128 ] && [ $rc -lt 160 ]; } ||
	   grep -q "symbol lookup error\|version .* not found" /tmp/bind.$$; then
		echo "FAIL: $b --help under LD_BIND_NOW=1: rc $rc"
		cat /tmp/bind.$$
		fail=1
	fi
	count=$((count + 1))
done
rm -f /tmp/bind.$$
[ $fail -eq 0 ] && echo "ok: $count binaries bind against the shim"
exit $fail
