#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# abi_symbols.sh SHIM [REFERENCE]
#
# The drop-in libibverbs exports exactly what rdma-core's does: the same
# SONAME, the same version definitions with the same parents, and the same
# (version, symbol) pairs — default and non-default (compat) versions alike
# — and nothing else, but for one node of sroce's own: SROCE_PRIVATE_1,
# the drop-in librdmacm's way to the device's CM, with only sroce_*,
# sr_cm_* and sr_cma_* in it.
set -eu
shim=$1
ref=${2:-/usr/lib/x86_64-linux-gnu/libibverbs.so.1}
LC_ALL=C
export LC_ALL

[ -f "$ref" ] || { echo "SKIP: no $ref"; exit 77; }

syms() {
	objdump -T "$1" | awk 'NF >= 2 && $(NF-1) != "*UND*" && $(NF-3) != "*UND*" && $0 !~ /\*UND\*/ && $(NF-1) ~ /^\(?[A-Za-z_]/ && $2 == "g" { print $(NF-1), $NF }' | sort -u
}
verdefs() {
	objdump -p "$1" | awk '/^Version definitions:/ { on = 1; next }
		/^Version References:/ { on = 0 } on && NF > 0 { print }' |
		awk 'NF == 4 { print $2, $4; next } { print "  parent", $1 }'
}
soname() {
	objdump -p "$1" | awk '/SONAME/ { print $2 }'
}

fail=0
if [ "$(soname "$shim")" != "$(soname "$ref")" ]; then
	echo "FAIL: SONAME $(soname "$shim") != $(soname "$ref")"
	fail=1
fi
syms "$ref" > /tmp/abi_ref.$$
syms "$shim" | grep -v '^SROCE_PRIVATE_1 ' > /tmp/abi_shim.$$
if syms "$shim" | grep '^SROCE_PRIVATE_1 ' | grep -v -E ' (sroce_|sr_cm_|sr_cma_|SROCE_PRIVATE_1$)'; then
	echo "FAIL: SROCE_PRIVATE_1 exports more than sroce_*, sr_cm_*, sr_cma_*"
	fail=1
fi
if ! diff -u /tmp/abi_ref.$$ /tmp/abi_shim.$$; then
	echo "FAIL: exported symbols differ (- rdma-core, + shim)"
	fail=1
fi
verdefs "$ref" > /tmp/abi_vref.$$
verdefs "$shim" | grep -v ' SROCE_PRIVATE_1$' > /tmp/abi_vshim.$$
if ! diff -u /tmp/abi_vref.$$ /tmp/abi_vshim.$$; then
	echo "FAIL: version definitions differ"
	fail=1
fi
n=$(wc -l < /tmp/abi_ref.$$)
nv=$(grep -c -v parent /tmp/abi_vref.$$)
rm -f /tmp/abi_ref.$$ /tmp/abi_shim.$$ /tmp/abi_vref.$$ /tmp/abi_vshim.$$
[ $fail -eq 0 ] && echo "ok: $n symbol versions, $nv version definitions, SONAME $(soname "$shim")"
exit $fail
