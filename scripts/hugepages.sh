# SPDX-License-Identifier: BSD-3-Clause
# hugepages.sh — sourced, not run: borrow 2 MiB hugepages and give them back.
#   sr_hugepages_free N   at least N free pages: adds what is missing to
#                         vm.nr_hugepages (root) and remembers the old
#                         count; false when the kernel has not that many
#   sr_hugepages_restore  puts vm.nr_hugepages back (call it from the
#                         caller's EXIT trap); nothing if none were added
sr_hp_was=""

sr_hugepages_avail() {
	_f=$(sed -n 's/^HugePages_Free: *//p' /proc/meminfo 2>/dev/null)
	echo "${_f:-0}"
}

sr_hugepages_free() {
	[ "$(sr_hugepages_avail)" -ge "$1" ] && return 0
	[ -w /proc/sys/vm/nr_hugepages ] || return 1
	_now=$(cat /proc/sys/vm/nr_hugepages)
	[ -n "$sr_hp_was" ] || sr_hp_was=$_now
	echo $((_now + $1 - $(sr_hugepages_avail))) \
		> /proc/sys/vm/nr_hugepages 2>/dev/null
	[ "$(sr_hugepages_avail)" -ge "$1" ]
}

sr_hugepages_restore() {
	[ -z "$sr_hp_was" ] || echo "$sr_hp_was" > /proc/sys/vm/nr_hugepages
	sr_hp_was=""
}
