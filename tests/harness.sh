# SPDX-License-Identifier: BSD-3-Clause
# harness.sh — sourced by the two-process test scripts (tests/pmd/
# link_test.sh and rdma_test.sh, tests/verbs/pair.sh) after they set
# `tmp` (their private folder): background processes in `pids` and the
# namespace in `ns` are removed on exit, hugepages added by
# hugepages_free given back; fail MSG prints every log and exits 1; conf
# NAME LINES... writes $tmp/NAME.conf.
ns=""
pids=""
hp_was=""

cleanup() {
	for p in $pids; do
		kill "$p" 2>/dev/null
	done
	wait 2>/dev/null
	[ -n "$ns" ] && ip netns del "$ns" 2>/dev/null
	[ -z "$hp_was" ] || echo "$hp_was" > /proc/sys/vm/nr_hugepages
	[ -n "${SROCE_KEEP_TMP:-}" ] || rm -rf "$tmp"
}
trap cleanup EXIT INT TERM

fail() {
	echo "FAIL: $*"
	for f in "$tmp"/*.log; do
		[ -f "$f" ] && { echo "--- $f"; cat "$f"; }
	done
	# meson prints a failed test's last 100 lines: say it again there
	echo "FAIL: $*"
	exit 1
}

# hugepages_free N: at least N free 2 MiB pages (added for the test and
# given back at exit); false when the kernel has not that many
hugepages_free() {
	free=$(sed -n 's/^HugePages_Free: *//p' /proc/meminfo)
	[ "${free:-0}" -ge "$1" ] && return 0
	[ -n "$hp_was" ] || hp_was=$(cat /proc/sys/vm/nr_hugepages)
	echo $(($(cat /proc/sys/vm/nr_hugepages) + $1 - ${free:-0})) \
		> /proc/sys/vm/nr_hugepages 2>/dev/null
	free=$(sed -n 's/^HugePages_Free: *//p' /proc/meminfo)
	[ "${free:-0}" -ge "$1" ]
}

conf() {
	name=$1
	shift
	printf '%s\n' "$@" > "$tmp/$name.conf"
}

. "$(dirname "$0")/../../scripts/veth.sh"
