#!/usr/bin/env bash
# join_eztrace.sh PROVIDER_DIR MSGTRACE PROGRAM - one mpirun job traced by
# eztrace (`eztrace -t openmpi`: MPI calls, OTF2) and the msgtrace hook
# (fabric operations) at once; `msgtrace report TRACE ARCHIVE` joins them.
#
# Checked against the program's own log (mpilog.h): every rank's clock is
# aligned; for each MPI send call kind of the log (MPI_Send, MPI_Isend,
# MPI_Ssend, MPI_Issend of S bytes, N calls), the joined table has N calls
# of that kind which made N fabric messages of S bytes, all matched; the
# collectives' fabric messages are all matched; a truncated receive of the
# log is named with both its MPI calls. The same view in --json and
# --html, and an OTF2 export of the joined run (MPI calls beside the
# fabric messages, read back as the same messages). The same archive
# joined with the fabric trace of another run is refused, naming the
# archive. With MSGTRACE_MPI, msgtrace-mpi on 2 and 3 ranks prints and
# writes the same joined report, messages and exports (tests/par/equal.sh).
# Exits 77 (skipped) without eztrace.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
[ $# -eq 3 ] || [ $# -eq 4 ] ||
	e2e_fail "usage: join_eztrace.sh PROVIDER_DIR MSGTRACE PROGRAM [MSGTRACE_MPI]"
E2E_PROVIDER_DIR=$1 msgtrace=$2 prog=$3 msgtrace_mpi=${4:-}
command -v eztrace >/dev/null || { echo "$E2E_NAME: eztrace not installed: skipped"; exit 77; }
command -v jq >/dev/null || e2e_fail "jq not found (Debian package jq)"
command -v otf2-print >/dev/null || e2e_fail "otf2-print not found (Debian package otf2-tools)"
e2e_setup
cd "$E2E_TMP"
mkdir log
name=$(basename "$prog")
e2e_run_ok run.out "$E2E_TMP/trace" "$E2E_TCP" full eztrace -t openmpi "$prog" --log log
e2e_check_trace trace "${E2E_NP:-4}"
archive=${name}_trace
[ -f "$archive/eztrace_log.otf2" ] || e2e_fail "eztrace wrote no $archive/eztrace_log.otf2"

"$msgtrace" report trace "$archive" >report.txt 2>report.err ||
	{ cat report.err >&2; e2e_fail "msgtrace report TRACE ARCHIVE failed"; }
sed -n '/^JOINED VIEW/,$p' report.txt >joined.txt
[ -s joined.txt ] || e2e_fail "the report has no JOINED VIEW section"
aligned=$(grep -c '^  rank [0-9]*: offset ' joined.txt || true)
[ "$aligned" -eq "${E2E_NP:-4}" ] ||
	{ cat joined.txt >&2; e2e_fail "$aligned of ${E2E_NP:-4} ranks aligned"; }

# The log's sends as "CALL BYTES TRUNCATED", one a line: TRUNCATED 1 when
# the receive of the same source, destination and tag logged a
# truncation (that message is not matched).
cat log/rank*.log | awk '
	/^RECV .*status=truncated/ { for (i = 2; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = kv[2] }
		t[f["world_src"] " " f["world_dst"] " " f["tag"]] = 1 }
	/^SEND / { for (i = 2; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = kv[2] }
		s[++n] = f["call"] " " f["bytes"]; k[n] = f["world_src"] " " f["world_dst"] " " f["tag"] }
	END { for (i = 1; i <= n; i++) print s[i], (k[i] in t) }' >sends.txt
[ -s sends.txt ] || e2e_fail "the program logged no send"
checked=0
while read -r call bytes; do
	case $call in
	send) mpi=MPI_Send ;; isend) mpi=MPI_Isend ;;
	ssend) mpi=MPI_Ssend ;; issend) mpi=MPI_Issend ;;
	*) continue ;;
	esac
	n=$(grep -c "^$call $bytes " sends.txt)
	trunc=$(grep -c "^$call $bytes 1$" sends.txt || true)
	# MPI call, size, calls, in calls, fab msgs, matched, bytes, sizes
	row=$(awk -v c="$mpi" -v s="$bytes" '$1 == c && $2 == s && $3 == "B"' joined.txt)
	[ -n "$row" ] || { cat joined.txt >&2; e2e_fail "no row for $mpi of $bytes B"; }
	read -r _ _ _ calls _ msgs matched total sizes _ <<<"$row"
	[ "$calls" -eq "$n" ] && [ "$msgs" -eq "$n" ] && [ "$sizes" = "$bytes" ] &&
		[ "$total" -eq $((n * bytes)) ] && [ "$matched" -eq $((n - trunc)) ] ||
		e2e_fail "$n $mpi of $bytes B in the log ($trunc truncated); joined:" \
			"$calls calls, $msgs fabric messages ($matched matched) of" \
			"$sizes B, $total B in all"
	checked=$((checked + 1))
done < <(cut -d' ' -f1,2 sends.txt | sort -u)
[ "$checked" -gt 0 ] || e2e_fail "no send call kind checked"
for coll in MPI_Allreduce MPI_Barrier; do
	# calls, in calls, fab msgs, matched (after the size, "-" or "S B")
	row=$(awk -v c="$coll" '$1 == c { print ($3 == "B" ? $5 " " $6 " " $7 : $4 " " $5 " " $6) }' \
		joined.txt | head -1)
	[ -n "$row" ] || { cat joined.txt >&2; e2e_fail "no row for $coll"; }
	read -r _ msgs matched <<<"$row"
	[ "$msgs" -gt 0 ] && [ "$msgs" -eq "$matched" ] ||
		e2e_fail "$coll: $msgs fabric messages, $matched matched"
done
if grep -q 'status=truncated' log/rank*.log; then
	grep -q '^  truncated: user .* sent in MPI_Send .*, received in MPI_Recv' joined.txt ||
		{ cat joined.txt >&2; e2e_fail "the truncation does not name its MPI calls"; }
fi

# Another run's fabric trace with this archive: refused, naming it.
other=$here/../fixtures/ompi5/$name/trace
if [ -d "$other" ]; then
	if "$msgtrace" report "$other" "$archive" >other.txt 2>other.err; then
		e2e_fail "the archive joined with another run's fabric trace"
	fi
	grep -q "^msgtrace report: $archive: .*not the same run" other.err ||
		{ cat other.err >&2; e2e_fail "another run's trace refused without naming the archive"; }
fi

# The same view in JSON: every rank aligned, each call kind with the
# text table's numbers; in HTML, its section with a row per call kind.
"$msgtrace" report --json trace "$archive" >report.json 2>report.err ||
	{ cat report.err >&2; e2e_fail "msgtrace report --json TRACE ARCHIVE failed"; }
jq -e '[.joined.ranks[] | .aligned] | all' report.json >/dev/null ||
	e2e_fail "--json: not every rank aligned"
# name size calls fab_msgs matched bytes recvs, one line per call kind
awk '/^MPI call/ { rows = 1; next } /^\(fab msgs/ { rows = 0 } rows && NF {
	if ($0 ~ /^\(in no MPI call\)/) { name = "(in no MPI call)"; i = 5 } else { name = $1; i = 2 }
	if ($i == "-") { size = "-"; i++ } else { size = $i; i += 2 }
	print name, size, $i, $(i + 2), $(i + 3), $(i + 4), $(i + 7) }' joined.txt | sort >kinds.txt
jq -r '.joined.calls[] | "\(.call // "(in no MPI call)") \(.bytes // "-") \(.calls) \(.fabric_messages) \(.status.matched) \(.fabric_bytes) \(.fabric_receives)"' \
	report.json | sort >kinds.json.txt
[ -s kinds.txt ] && cmp -s kinds.txt kinds.json.txt ||
	{ diff kinds.txt kinds.json.txt >&2; e2e_fail "--json's joined call kinds differ from the text's"; }
"$msgtrace" report --html -o report.html trace "$archive" 2>report.err ||
	{ cat report.err >&2; e2e_fail "msgtrace report --html TRACE ARCHIVE failed"; }
grep -q '<section id="joined">' report.html || e2e_fail "the HTML report has no joined section"
for call in $(awk '$1 ~ /^MPI_/ { print $1 }' joined.txt | sort -u); do
	grep -q "<td>$call</td>" report.html || e2e_fail "the HTML joined section has no $call row"
done

# An OTF2 export of the joined run: each rank's MPI calls on a location of
# its own, as many MPI_Send regions as the joined table counts MPI_Send
# calls; read back, the fabric trace's messages, byte for byte.
"$msgtrace" export --otf2 -o joined.otf2 trace "$archive" 2>export.err ||
	{ cat export.err >&2; e2e_fail "msgtrace export --otf2 TRACE ARCHIVE failed"; }
otf2-print -G joined.otf2/traces.otf2 >defs.txt 2>/dev/null ||
	e2e_fail "otf2-print -G cannot read the joined export"
locs=$(awk '/^LOCATION / && /MPI calls"/ { print $2 }' defs.txt | paste -sd' ')
[ "$(wc -w <<<"$locs")" -eq "${E2E_NP:-4}" ] ||
	e2e_fail "the joined export has MPI call locations '$locs', not one per rank"
want=$(awk '$1 == "MPI_Send" { n += ($3 == "B" ? $4 : $3) } END { print n + 0 }' joined.txt)
got=$(otf2-print joined.otf2/traces.otf2 2>/dev/null | awk -v locs=" $locs " \
	'$1 == "ENTER" && index(locs, " " $2 " ") && /Region: "MPI_Send"/ { n++ } END { print n + 0 }')
[ "$want" -gt 0 ] && [ "$got" -eq "$want" ] ||
	e2e_fail "the joined export has $got MPI_Send regions, the joined view $want calls"
"$msgtrace" messages trace >fabric.csv
"$msgtrace" messages joined.otf2 >readback.csv 2>readback.err ||
	{ cat readback.err >&2; e2e_fail "msgtrace messages cannot read the joined export"; }
cmp -s fabric.csv readback.csv ||
	{ diff fabric.csv readback.csv | head >&2; e2e_fail "the joined export read back differs from the fabric trace's messages"; }
status=0
"$msgtrace" export --chrome -o joined.json trace "$archive" 2>chrome.err || status=$?
[ $status -eq 2 ] && grep -q 'does not take an OTF2 archive to join' chrome.err ||
	{ cat chrome.err >&2; e2e_fail "export --chrome of a joined run: status $status, not refused"; }
par=
if [ -n "$msgtrace_mpi" ]; then
	"$here/../par/equal.sh" --export "$msgtrace" "$msgtrace_mpi" "2 3" trace "$archive" ||
		e2e_fail "msgtrace-mpi's joined view differs from msgtrace's (above)"
	par="; msgtrace-mpi on 2 and 3 ranks says the same"
fi
e2e_note "ok: $checked send call kinds as the log says, ${E2E_NP:-4} ranks aligned; JSON, HTML and the joined OTF2 export agree$par"
