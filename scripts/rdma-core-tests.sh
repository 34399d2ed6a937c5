#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# rdma-core's own test suite (v44, pyverbs) on sroce, as rdma-core documents
# it: tests/run_tests.py --dev sroce0, one process per test module, each on
# its own default link (a private memif folder), through sroce-run.
#
#   sh scripts/rdma-core-tests.sh [MODULE...]     (from the repository root, as root)
#
# The tests come from Debian's archive, never from this repository:
# Debian 12's python3-pyverbs ships rdma-core 44.0's tests/ folder (gzipped,
# in /usr/share/doc/rdma-core/tests; identical to the v44.0 tag's; taken from
# the .deb itself where dpkg leaves docs out); failing that, `apt-get source
# rdma-core` (a deb-src line for bookworm is added if apt has none).  They
# are copied to $RDMA_CORE_TESTS_DIR (default /tmp/sroce-rdma-core-tests),
# outside the tree.
#
# Prints one line per module (pass, fail, error, skip, and "crash" for a
# module whose process died or timed out) and the totals; the logs stay in
# $RDMA_CORE_TESTS_DIR/logs.  Exit status 0 when no test failed, 77 (a skip
# for meson) when python3-pyverbs or the tests cannot be had, 1 otherwise.
# Meson runs it as the suite 'pyverbs' (tests/verbs/meson.build).
# Environment: SROCE_BUILD (default build), RDMA_CORE_TESTS_TIMEOUT (seconds
# per module, default 600), SROCE_CONFIG (devices; default link when unset).
# Three tests register MAP_HUGETLB buffers (test_odp's two, test_parent_
# domain's one) and skip on a machine with no free 2 MiB pages: as root,
# the script reserves 16 for its run when fewer are free, and gives them
# back at the end (RDMA_CORE_TESTS_HUGEPAGES=0: leave the machine alone).
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
build=${SROCE_BUILD:-$root/build}
case $build in /*) ;; *) build=$root/$build ;; esac
run=$build/tools/sroce-run/sroce-run
work=${RDMA_CORE_TESTS_DIR:-/tmp/sroce-rdma-core-tests}
tmo=${RDMA_CORE_TESTS_TIMEOUT:-600}
py=/usr/bin/python3     # Debian's, where python3-pyverbs is installed

if [ ! -x "$run" ]; then
	echo "rdma-core-tests: no $run: build sroce first (meson setup build && ninja -C build)" >&2
	exit 2
fi

# python3-pyverbs (and with it the tests) from Debian's archive
if ! dpkg-query -W -f='${Status}' python3-pyverbs 2>/dev/null | grep -q "ok installed"; then
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq && apt-get install -y -qq --no-install-recommends python3-pyverbs >/dev/null ||
		{ echo "rdma-core-tests: cannot install python3-pyverbs" >&2; exit 77; }
fi

tests=$work/rdma-core/tests
if [ ! -f "$tests/run_tests.py" ]; then
	rm -rf "$work/rdma-core"
	mkdir -p "$work/rdma-core"
	doc=/usr/share/doc/rdma-core/tests
	if [ ! -f $doc/run_tests.py ]; then
		# the package's own copy, where dpkg leaves docs out (path-exclude)
		ver=$(dpkg-query -W -f='${Version}' python3-pyverbs)
		rm -rf "$work/deb" && mkdir -p "$work/deb" &&
			(cd "$work/deb" && apt-get download -qq "python3-pyverbs=$ver" >/dev/null 2>&1) &&
			dpkg-deb -x "$work"/deb/python3-pyverbs_*.deb "$work/deb/root" &&
			doc=$work/deb/root/usr/share/doc/rdma-core/tests
	fi
	if [ -f $doc/run_tests.py ]; then
		cp -r $doc "$work/rdma-core/"
		gunzip -f "$tests"/*.gz
	else
		if ! apt-get source --print-uris rdma-core >/dev/null 2>&1; then
			cat > /etc/apt/sources.list.d/sroce-deb-src.sources <<-EOF
			Types: deb-src
			URIs: http://deb.debian.org/debian
			Suites: bookworm
			Components: main
			Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
			EOF
			apt-get update -qq
		fi
		(cd "$work" && apt-get source -qq rdma-core >/dev/null) ||
			{ echo "rdma-core-tests: apt-get source rdma-core failed" >&2; exit 77; }
		src=$(ls -d "$work"/rdma-core-[0-9]* | head -n 1)
		cp -r "$src/tests" "$work/rdma-core/"
	fi
fi

# 2 MiB pages for the MAP_HUGETLB tests (see above), returned at the end.
. "$root/scripts/hugepages.sh"
if [ "${RDMA_CORE_TESTS_HUGEPAGES:-1}" != 0 ] && [ "$(id -u)" = 0 ]; then
	sr_hugepages_free 16 || true
fi

# The per-run folders go whatever ends the script (a timeout, Ctrl-C).
chkdir="" dir=""
trap 'rm -rf ${chkdir:+"$chkdir"} ${dir:+"$dir"}; sr_hugepages_restore' EXIT
trap 'exit 130' INT TERM

# The drop-in, not rdma-core's libibverbs, must be what pyverbs runs on.
chkdir=$(mktemp -d /tmp/sroce-rct.XXXXXX)
chk=$(SROCE_RUN_DIR=$chkdir "$run" "$py" -c '
import pyverbs.device as d
names = [x.name.decode() for x in d.get_device_list()]
libs = {l.split()[-1] for l in open("/proc/self/maps") if "libibverbs.so" in l}
print(" ".join(names), "|", " ".join(sorted(libs)))' 2>&1 | tail -n 1)
rm -rf "$chkdir"
case $chk in
*"sroce0 "*"|"*"$build/verbs-shim/libibverbs.so"*) ;;
*)	echo "rdma-core-tests: pyverbs does not run on the drop-in: $chk" >&2; exit 1 ;;
esac
case ${chk#*| } in
*" "*) echo "rdma-core-tests: two libibverbs loaded: $chk" >&2; exit 1 ;;
esac

if [ $# -gt 0 ]; then
	mods="$*"
else
	mods=$(cd "$tests" && ls test_*.py | sed 's/\.py$//')
fi
mkdir -p "$work/logs"
printf '%-26s %5s %5s %5s %5s  %s\n' module pass fail error skip note
tp=0 tf=0 te=0 ts=0 bad=0
for m in $mods; do
	log=$work/logs/$m.log
	dir=$(mktemp -d /tmp/sroce-rct.XXXXXX)
	(cd "$work/rdma-core" && SROCE_RUN_DIR=$dir SROCE_NODE=0 \
		timeout -k 10 "$tmo" "$run" "$py" tests/run_tests.py --dev sroce0 -v \
		"tests.$m" > "$log" 2>&1)
	rc=$?
	rm -rf "$dir"
	# unittest's summary: "Ran N tests", then "OK" or "FAILED", with
	# (failures=, errors=, skipped=, expected failures=, unexpected successes=)
	ran=$(sed -n 's/^Ran \([0-9]*\) tests\{0,1\} in .*/\1/p' "$log" | tail -n 1)
	sum=$(grep -E '^(OK|FAILED)( \(|$)' "$log" | tail -n 1)
	get() { echo "$sum" | sed -n "s/.*[(, ]$1=\([0-9]*\).*/\1/p"; }
	f=$(get failures); e=$(get errors); s=$(get skipped)
	x=$(get 'expected failures'); u=$(get 'unexpected successes')
	note=""
	if [ -z "$ran" ] || [ -z "$sum" ]; then
		ran=0 f=0 e=0 s=0 x=0 u=0
		note="crash (exit $rc): no summary, see $log"
		bad=$((bad + 1))
	fi
	f=${f:-0} e=${e:-0} s=${s:-0} x=${x:-0} u=${u:-0}
	p=$((ran - f - e - s - x - u))
	printf '%-26s %5d %5d %5d %5d  %s\n' "$m" "$p" "$f" "$e" "$s" "$note"
	tp=$((tp + p)) tf=$((tf + f)) te=$((te + e)) ts=$((ts + s))
done
run_=$((tp + tf + te))
pct=0
[ $run_ -gt 0 ] && pct=$((tp * 1000 / run_))
printf '%-26s %5d %5d %5d %5d  %d.%d %% of the tests that ran passed\n' total \
	"$tp" "$tf" "$te" "$ts" $((pct / 10)) $((pct % 10))
echo "logs: $work/logs"
[ $((tf + te + bad)) -eq 0 ]
