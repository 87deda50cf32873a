# tags_lib.sh - helpers of the `msgtrace tags` end-to-end tests (source it
# after lib.sh). Expected values are computed here from the programs' logs
# and from the layout facts of shared/TAG-LAYOUTS.md, never taken from the
# tool's own output.

# tags_report MSGTRACE TRACEDIR OUT [ARGS...]: `msgtrace tags --json` into
# OUT (valid JSON) and the text form into OUT.txt, both must succeed.
tags_report() {
	local msgtrace=$1 dir=$2 out=$3
	shift 3
	"$msgtrace" tags --json "$@" "$dir" >"$out" 2>"$out.err" ||
		{ cat "$out.err" >&2; e2e_fail "msgtrace tags --json failed"; }
	jq -e . "$out" >/dev/null || e2e_fail "msgtrace tags --json is not valid JSON"
	"$msgtrace" tags "$@" "$dir" >"$out.txt" 2>"$out.err" ||
		{ cat "$out.err" >&2; e2e_fail "msgtrace tags failed"; }
}

# tags_expect_layout JSON NAME: every endpoint runs layout NAME.
tags_expect_layout() {
	local bad
	bad=$(jq -r --arg l "$2" '.endpoints[] | select(.in_force.layout != $l) |
		"rank \(.rank) ep \(.ep): \(.in_force.layout) (\(.confidence))"' "$1")
	[ -z "$bad" ] || { echo "$bad" >&2; e2e_fail "endpoints not detected as $2 (above)"; }
}

# tags_cid_limit LAYOUT MTF: the largest cid Open MPI can use: the cid
# field (full 30, ofi_tag_1 12, ofi_tag_2 24 bits) minus one bit per
# leading zero of mem_tag_format.
tags_cid_limit() {
	local bits mtf=$(($2)) b=63
	case $1 in
	ofi_tag_full) bits=30 ;;
	ofi_tag_1) bits=12 ;;
	ofi_tag_2) bits=24 ;;
	*) e2e_fail "no cid width known for layout $1" ;;
	esac
	while [ $b -ge 0 ] && [ $(((mtf >> b) & 1)) -eq 0 ]; do
		bits=$((bits - 1))
		b=$((b - 1))
	done
	echo $(((1 << bits) - 1))
}

# tags_log_values LOGDIR KEY [FILTER]: the distinct values of KEY=<v> in the
# SEND lines of the program's log (FILTER: an extra awk condition on $0).
tags_log_values() {
	cat "$1"/rank*.log | awk -v key="$2" "/^SEND/ ${3:+&& $3}"' {
		for (i = 1; i <= NF; i++) if (index($i, key "=") == 1)
			print substr($i, length(key) + 2) }' | sort -n -u
}

# tags_misfits JSON CASE_INDEX FIELD: "value becomes alias" lines of one
# what-if case's misfit list.
tags_misfits() {
	jq -r --argjson k "$2" --arg f "$3" '.whatif[$k].fields[] | select(.field == $f) |
		.misfits[] | "\(.value) \(.becomes) \(.alias)"' "$1"
}

# tags_logval KEY LINE: the value of KEY=value in a log line.
tags_logval() {
	sed -n "s/.* $1=\([^ ]*\).*/\1/p" <<<"$2"
}

# tags_check_trunc LOGDIR JSON: every truncated RECV of the program's log
# (tags_trunc: two) is listed in `msgtrace tags --json` (JSON, with JSON.txt
# the text) with the send that overflowed it and its cause: for a
# MPI_ANY_TAG receive the first message its sender sent it (MPI's
# non-overtaking order: both had arrived), "wildcard"; otherwise the send of
# that source and tag, "buffer".
tags_check_trunc() {
	local logdir=$1 json=$2 n=0 recv dst src psrc ptag buf send cause tag bytes got
	local anys anyt want count
	while read -r recv; do
		dst=$(tags_logval world_dst "$recv") src=$(tags_logval world_src "$recv")
		psrc=$(tags_logval posted_src "$recv") ptag=$(tags_logval posted_tag "$recv")
		buf=$(tags_logval buf "$recv")
		if [ "$ptag" = ANY ]; then
			send=$(grep -h "^SEND world_src=$src world_dst=$dst " "$logdir"/rank*.log |
				head -n 1)
			cause=wildcard
		else
			send=$(grep -h "^SEND world_src=$src world_dst=$dst .* tag=$ptag " \
				"$logdir"/rank*.log | head -n 1)
			cause=buffer
		fi
		tag=$(tags_logval tag "$send") bytes=$(tags_logval bytes "$send")
		got=$(jq -r --argjson r "$dst" '.truncations.list[] | select(.recv.rank == $r) |
			"\(.recv.buffer) \(.recv.any_source) \(.recv.any_tag) \(.send.rank) \(.send.tag) \(.send.bytes) \(.cause)"' "$json")
		anys=false; [ "$psrc" = ANY ] && anys=true
		anyt=false; [ "$ptag" = ANY ] && anyt=true
		want="$buf $anys $anyt $src $tag $bytes $cause"
		[ "$got" = "$want" ] ||
			e2e_fail "rank $dst's truncated receive: report '$got', expected '$want' (buffer any_source any_tag send_rank tag bytes cause)"
		n=$((n + 1))
	done < <(grep -h '^RECV.*status=truncated' "$logdir"/rank*.log)
	[ "$n" -eq 2 ] || e2e_fail "$n truncated receives in the log, expected 2"
	count=$(jq '.truncations.count' "$json")
	[ "$count" -eq "$n" ] || e2e_fail "report counts $count truncations, the log $n"
	grep -q "cause:   wildcard receive matched another stream" "$json.txt" ||
		e2e_fail "the text names no wildcard cause"
}
