# SPDX-License-Identifier: BSD-3-Clause
# harness.sh — sourced by the two-process test scripts (tests/pmd/
# link_test.sh and rdma_test.sh, tests/verbs/pair.sh) after they set
# `tmp` (their private folder): background processes in `pids` and the
# namespace in `ns` are removed on exit, hugepages added by
# sr_hugepages_free (scripts/hugepages.sh) given back; fail MSG prints every log and exits 1; conf
# NAME LINES... writes $tmp/NAME.conf.
ns=""
pids=""
. "$(dirname "$0")/../../scripts/hugepages.sh"

cleanup() {
	for p in $pids; do
		kill "$p" 2>/dev/null
	done
	wait 2>/dev/null
	[ -n "$ns" ] && ip netns del "$ns" 2>/dev/null
	sr_hugepages_restore
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

conf() {
	name=$1
	shift
	printf '%s\n' "$@" > "$tmp/$name.conf"
}

. "$(dirname "$0")/../../scripts/veth.sh"
