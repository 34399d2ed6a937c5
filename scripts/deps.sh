#!/bin/sh
# Install what sroce needs from Debian 12's archive (as root).  Does nothing
# when everything is already installed.
set -eu
pkgs="gcc pkg-config meson ninja-build python3 libdpdk-dev dpdk libisal-dev
      libibverbs-dev ibverbs-utils perftest libpcap-dev libcairo2-dev check tshark iproute2
      librdmacm-dev rdmacm-utils qperf libfabric-bin ucx-utils
      openmpi-bin libopenmpi-dev mpich libmpich-dev
      procps iputils-ping clang libbpf-dev libxdp-dev
      nftables python3-pyverbs"
missing=""
for p in $pkgs; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
		missing="$missing $p"
done
[ -z "$missing" ] && exit 0
echo "sroce: installing:$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends $missing >/dev/null
