#!/bin/sh
# Install, build and run sroce's main job.
#   scripts/demo.sh            (from the repository root, as root)
# Until the two-node demo lands, the main job is the pcap inspector over the
# shared rxe captures: every RoCEv2 frame decoded and its ICRC checked.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
sh scripts/deps.sh
build=${SROCE_BUILD:-build}
[ -f "$build/build.ninja" ] || meson setup "$build"
ninja -C "$build"
captures=${CAPTURES:-$root/../shared/captures}
status=0
for f in "$captures"/*.pcap; do
	echo "== $(basename "$f")"
	"$build/tools/sroce-pcap/sroce-pcap" --summary "$f" || status=1
done
exit $status
