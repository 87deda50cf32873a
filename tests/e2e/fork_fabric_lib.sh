# shellcheck shell=bash
# fork_fabric_lib.sh - what fork_fabric (fork_fabric.c) does, for the tests
# that run it (forks.sh, hosts_fork.sh; source it after lib.sh).
#
#   fork_fabric_said OUT  fails unless the program's output OUT says each
#                         process sent and received all it meant to
#   fork_fabric_pairs     prints the user messages it sends, a line
#                         "SENDER RECEIVER COUNT" per pair, sorted

# Its constants: 4 MPI messages, 3 between the children, 2 each way between
# a child and its grandchild.
fork_fabric_said() {
	local r p line
	for r in 0 1; do
		p=$((1 - r))
		for line in "rank $r: sent 4 messages tag 1 to rank $p, received 4" \
			"rank $r child: sent 3 messages tag 1$r to rank $p's child, received 3, sent 2 tag 20 to its grandchild, received 2 back" \
			"rank $r grandchild: received 2 messages tag 20 from its parent, sent 2 tag 21 back"; do
			grep -qxF "$line" "$1" || e2e_fail "the program did not say: $line"
		done
	done
}

# Each rank sends its peer the 4 MPI messages and its child's address.
fork_fabric_pairs() {
	printf '%s\n' "0 1 5" "0+f1 0+f2 2" "0+f1 1+f1 3" "0+f2 0+f1 2" "1 0 5" \
		"1+f1 0+f1 3" "1+f1 1+f2 2" "1+f2 1+f1 2" | sort
}
