#!/bin/sh
# Fuzz the RoCEv2 parser for a bounded time (default 60 s), seeded with every
# frame of the shared rxe captures and the crafted mixed capture.
#   tests/fuzz/run.sh [SECONDS]
set -eu
secs=${1:-60}
src=$(cd "$(dirname "$0")/../.." && pwd)
build=${FUZZ_BUILD:-$src/build-fuzz}
captures=${CAPTURES:-$src/../shared/captures}
if [ ! -f "$build/build.ninja" ]; then
	CC=clang meson setup "$build" "$src" -Dfuzz=true \
		-Db_sanitize=address,undefined -Db_lundef=false
fi
ninja -C "$build" tests/fuzz/fuzz-parse tests/fuzz/pcap2corpus tests/mkpcap
corpus=$(mktemp -d)
"$build/tests/mkpcap" "$corpus/mixed.pcap"
"$build/tests/fuzz/pcap2corpus" "$corpus" "$captures"/*.pcap "$corpus/mixed.pcap"
rm -f "$corpus/mixed.pcap"
UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
	"$build/tests/fuzz/fuzz-parse" -max_total_time="$secs" -print_final_stats=1 "$corpus"
rm -rf "$corpus"
