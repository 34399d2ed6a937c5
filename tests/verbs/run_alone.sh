#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# run_alone.sh PROGRAM ARGS...: run a one-process verbs test on its own
# default link (a private memif folder, node 0, no peer).
set -u
tmp=$(mktemp -d /tmp/sroce-verbs-alone.XXXXXX)
trap 'rm -rf "$tmp"' EXIT INT TERM
export SROCE_RUN_DIR=$tmp SROCE_NODE=0
unset SROCE_CONFIG
"$@" > "$tmp/out" 2>&1
rc=$?
grep -v "mp action callback" "$tmp/out"
exit $rc
