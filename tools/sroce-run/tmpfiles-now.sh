#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# tmpfiles-now.sh — run by `meson install`: make the device nodes of the
# installed tmpfiles.d/sroce.conf now, not only at the next boot, so UCX
# lists sroce's devices right after an install.  Only for a real install
# (no DESTDIR), as root, with systemd-tmpfiles; otherwise one line says so.
conf=$MESON_INSTALL_PREFIX/lib/tmpfiles.d/sroce.conf
if [ -n "${DESTDIR:-}" ]; then
	exit 0
fi
if [ "$(id -u)" != 0 ] || ! command -v systemd-tmpfiles >/dev/null; then
	echo "sroce: run 'systemd-tmpfiles --create $conf' as root for UCX's /dev/infiniband nodes"
	exit 0
fi
systemd-tmpfiles --create "$conf" ||
	echo "sroce: systemd-tmpfiles --create $conf failed"
exit 0
