#!/bin/sh
# Install, build and run sroce's main job.
#   scripts/demo.sh            (from the repository root, as root)
# The main job is the two-node demo: two sroce processes on the default
# memif link connect an RC queue pair, check RDMA READ, WRITE, SEND and both
# atomics byte for byte, then print a bandwidth and latency table
# (examples/two_node/main.c).  Exit status 0 only when every check held.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
sh scripts/deps.sh
build=${SROCE_BUILD:-build}
[ -f "$build/build.ninja" ] || meson setup "$build"
ninja -C "$build"
exec "$build/examples/two_node/sroce-demo"
