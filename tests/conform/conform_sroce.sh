#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# conform_sroce.sh SHIM_DIR AGENT TESTER SCENARIO_DIR
#
# sroce-conform against sroce itself: sroce-conform-agent (plain
# libibverbs) runs on the drop-in libibverbs as node 0 of the default
# memif link (sockets in a private folder, no hugepages), the tester is
# node 1 (without the drop-in on its library path: DPDK's mlx drivers
# would load it); the agent's TCP port on 127.0.0.1.  Passes when every
# mandatory scenario passes (the tester's exit status 0) and the reports
# are there: a verdict per scenario and junit.xml with every scenario.
# Then the bad-input paths: an agent that dies mid-run makes the rest
# ERROR (exit status has 4) with a clear line, and the run goes on; a
# silent DUT (its frames dropped) fails the waiting steps clearly (1+16); a
# scenario file with an error is reported at its line, the other
# scenarios are still read (exit status has 8).
set -u
shim=$1
agent=$2
tester=$3
scenarios=$4

tmp=$(mktemp -d /tmp/sroce-conform.XXXXXX)
. "$(dirname "$0")/../harness.sh"

export SROCE_RUN_DIR=$tmp SROCE_DAEMON=off
unset SROCE_CONFIG
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')

SROCE_NODE=0 LD_LIBRARY_PATH=$shim timeout 250 "$agent" --bind 127.0.0.1 \
	--port "$port" --once > "$tmp/agent.log" 2>&1 &
pids=$!
SROCE_NODE=1 env -u LD_LIBRARY_PATH timeout 250 "$tester" --agent "127.0.0.1:$port" \
	--out "$tmp/out" > "$tmp/tester.log" 2>&1
rc=$?
grep -v memif_connect "$tmp/tester.log" | tail -3
[ $rc -eq 0 ] || fail "sroce-conform exit status $rc (a mandatory scenario failed or could not run)"
n=$(grep -c '^PASS\|^FAIL\|^ERROR' "$tmp/tester.log")
[ "$n" -ge 60 ] || fail "only $n scenarios ran"
[ "$(ls "$tmp"/out/*.txt | wc -l)" -eq "$n" ] || fail "a verdict file is missing"
[ "$(grep -c '<testcase ' "$tmp/out/junit.xml")" -eq "$n" ] || fail "junit.xml does not list every scenario"
python3 -c 'import sys, xml.dom.minidom as m; m.parse(sys.argv[1])' "$tmp/out/junit.xml" ||
	fail "junit.xml is not well-formed XML"
wait $pids
pids=""

# The agent dies at its 6th command (in the first scenario's POLL): the rest
# are errors, said once each, and the exit status says so (4), not a
# crash or a hang.
SROCE_NODE=0 LD_LIBRARY_PATH=$shim timeout 120 "$agent" --bind 127.0.0.1 \
	--port "$port" --once --die-after 6 > "$tmp/agent2.log" 2>&1 &
pids=$!
SROCE_NODE=1 env -u LD_LIBRARY_PATH timeout 120 "$tester" --agent "127.0.0.1:$port" \
	--only '^(resp\.write_only|resp\.read_only|req\.write_only|ud\.send)$' \
	--out "$tmp/out2" > "$tmp/tester2.log" 2>&1
rc=$?
grep -v memif_connect "$tmp/tester2.log" | grep -E '^(PASS|FAIL|ERROR)' 
[ $((rc & 4)) -eq 4 ] || fail "agent killed: exit status $rc, expected the error bit 4"
grep -q 'ERROR .*the agent closed the connection' "$tmp/tester2.log" ||
	fail "no clear line about the agent's death"
[ "$(grep -c '^ERROR .*the agent is unreachable' "$tmp/tester2.log")" -eq 3 ] ||
	fail "the scenarios after the agent's death are not each an error"
# A DUT that does not answer: the tester's own port drops every RoCEv2
# frame it receives (fault rule).  The steps that wait say so, the exit
# status has 1 (mandatory failed) and 16 (the DUT never sent a frame).
conf tester "port = default" "node = 1" "run_dir = $tmp" "stats_dir = off" "fault = rx drop"
SROCE_NODE=0 LD_LIBRARY_PATH=$shim timeout 120 "$agent" --bind 127.0.0.1 \
	--port "$port" --once > "$tmp/agent3.log" 2>&1 &
pids=$!
SROCE_CONFIG=$tmp/tester.conf env -u LD_LIBRARY_PATH timeout 120 "$tester" \
	--agent "127.0.0.1:$port" --wait-ms 500 --only '^(resp\.write_only|resp\.read_only)$' \
	--out "$tmp/out3" > "$tmp/tester3.log" 2>&1
rc=$?
grep -E '^(PASS|FAIL|ERROR)' "$tmp/tester3.log"
[ $((rc & 17)) -eq 17 ] || fail "a silent DUT: exit status $rc, expected the bits 1 and 16"
[ "$(grep -c '^FAIL .*no frame from the DUT within 500 ms' "$tmp/tester3.log")" -eq 2 ] ||
	fail "a silent DUT is not said clearly"
wait $pids
pids=""

# A scenario file with an error next to the good ones
printf '%s\n' 'scenario x.bad' 'area responder' 'ref none' 'send NOT_AN_OPCODE psn=0' 'end' \
	> "$tmp/bad.sc"
env -u LD_LIBRARY_PATH "$tester" --list --scenarios "$scenarios" --scenarios "$tmp/bad.sc" \
	> "$tmp/list.log" 2>&1
rc3=$?
[ $((rc3 & 8)) -eq 8 ] || fail "a bad scenario file: exit status $rc3, expected the bit 8"
grep -q "bad.sc:4: send: 'NOT_AN_OPCODE' is not an opcode" "$tmp/list.log" ||
	fail "the bad scenario file's error is not reported at its line"
[ "$(grep -c mandatory "$tmp/list.log")" -ge 60 ] || fail "the good scenarios were not read"
echo "conform_sroce: $n scenarios, every mandatory one passes; a dead agent (4), a silent DUT (1+16) and a bad scenario file (8) give their exit status bits"
