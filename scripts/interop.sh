#!/bin/sh
# Interoperability with Linux rdma_rxe (suite 'interop'): install the rxe-vm
# lab's packages, build its guest images when they are missing (a few
# minutes, once), build sroce, run the suite and print one line per
# scenario.  The lab (../shared/rxe-vm) lives in its own network namespace.
#   scripts/interop.sh         (from the repository root, as root)
# RXEVM: the lab's rxe-vm script (default ../shared/rxe-vm/rxe-vm).
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
sh scripts/deps.sh

pkgs="qemu-system-x86 qemu-utils debootstrap busybox-static tcpdump iproute2
      e2fsprogs cpio kmod ethtool socat nftables tshark"
missing=""
for p in $pkgs; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
		missing="$missing $p"
done
if [ -n "$missing" ]; then
	echo "sroce: installing the rxe lab's packages:$missing"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	apt-get install -y -qq --no-install-recommends $missing >/dev/null
fi

rxevm=${RXEVM:-$root/../shared/rxe-vm/rxe-vm}
images=${RXEVM_DIR:-/var/tmp/rxe-vm}
if [ ! -f "$images/vmlinux" ] || [ ! -f "$images/rootfs.ext4" ]; then
	echo "sroce: building the rxe lab's guest images in $images"
	"$(dirname "$rxevm")/build.sh"
fi

build=${SROCE_BUILD:-build}
[ -f "$build/build.ninja" ] || meson setup "$build" -Ddeveloper=true
ninja -C "$build"
rm -f "$build"/interop/results-*.txt
start=$(date +%s)
rc=0
RXEVM=$rxevm meson test -C "$build" --suite interop --print-errorlogs || rc=$?
echo
echo "interop: sroce against Linux rdma_rxe ($(($(date +%s) - start)) s)"
cat "$build"/interop/results-*.txt 2>/dev/null || true
# The Markdown table of docs/interop-results.md, written from this run's results.
if ls "$build"/interop/results-*.txt >/dev/null 2>&1; then
	{
		echo "# Interop results: sroce against Linux rdma_rxe"
		echo
		echo "Written by \`scripts/interop.sh\` ($(date -u +%Y-%m-%d), sroce $(git rev-parse --short HEAD 2>/dev/null || echo '?'), suite $(($(date +%s) - start)) s). What each column means: [interop.md](interop.md)."
		echo
		python3 tests/interop/interop.py --build "$build" --table "$build"/interop/results-*.txt
	} >"$build/interop/results.md" 2>&1 || true
	echo "interop: table in $build/interop/results.md (docs/interop-results.md is a copy of it)"
fi
exit $rc
