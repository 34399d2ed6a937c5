#!/bin/sh
# Install, build and run the whole test suite: every suite but bench and
# interop on a normal build, then the unit suite again under AddressSanitizer
# and UndefinedBehaviorSanitizer, then the interop suite against Linux
# rdma_rxe in the rxe-vm lab (scripts/interop.sh: the lab's packages and
# guest images the first time, a few minutes).
#   scripts/test.sh            (from the repository root, as root)
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
sh scripts/deps.sh

build=${SROCE_BUILD:-build}
[ -f "$build/build.ninja" ] || meson setup "$build" -Ddeveloper=true
ninja -C "$build"
meson test -C "$build" --no-suite bench --no-suite interop --print-errorlogs

asan=${SROCE_BUILD_ASAN:-build-asan}
[ -f "$asan/build.ninja" ] ||
	meson setup "$asan" -Ddeveloper=true -Db_sanitize=address,undefined \
		-Db_lundef=false -Dpmd=disabled
ninja -C "$asan"
ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
LSAN_OPTIONS=suppressions=$root/tests/lsan.supp \
	meson test -C "$asan" --suite unit --print-errorlogs

SROCE_BUILD=$build sh scripts/interop.sh
