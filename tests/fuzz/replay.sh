#!/usr/bin/env bash
# replay.sh MSGTRACE SRCDIR [FUZZ_SPLIT]
# Runs the msgtrace binary on every input of the fuzz corpus
# (SRCDIR/corpus.tar.xz, the minimized corpus of scripts/fuzz; its traces are
# mostly zero padding, so they are kept compressed) and of past crashes
# (SRCDIR/regress, one file per bug, named after it): on the trace files an
# input holds, the subcommands fuzz_msgtrace runs for its first byte
# (M: messages, report; J: report --json, decode --ops; G: tags, export
# --chrome; H: report --html, export --csv; O: export --otf2; else dump,
# dump --summary), or `msgtrace tag` with the arguments it holds. Each must
# exit 0, 1 or 2 within 10 s in 1 GiB (address space, or RSS under ASan); a
# bad-input exit (1) must print one error naming a file. FUZZ_SPLIT defaults to the
# fuzz_split next to MSGTRACE's build tree. Inputs are replayed on every core
# (REPLAY_JOBS overrides), in batches of 16 per shell (a shell, a scratch
# directory and their clean-up per input were most of the test's time).
# Under ASan (each run of the binary pays the sanitizer's start-up and leak
# check) every 4th corpus input is replayed, and every past crash: the ASan
# and libFuzzer build (fuzz_short) already runs each corpus input in process,
# the normal build replays them all through the binary. REPLAY_STRIDE overrides.
set -euo pipefail

# replay.sh --batch INPUT...: inputs one after the other, in the environment
# the main run set up; exits 1 if any failed.
if [ "${1:-}" = --batch ]; then
	shift
	bad=0
	work=$(mktemp -d "$REPLAY_WORK/batch.XXXXXX")
	trap 'rm -rf "$work"' EXIT

	# check WHAT STATUS ERRFILE
	check() {
		if [ "$2" -gt 2 ]; then
			echo "FAIL: $1: exit status $2 (crash, hang or memory limit)" >&2
			sed 's/^/    /' "$3" | head -n 20 >&2
			bad=1
		elif [ "$2" -eq 1 ] && ! grep -q "$work/in/f[0-9]*\.mt" "$3"; then
			echo "FAIL: $1: bad input reported without naming the file:" >&2
			sed 's/^/    /' "$3" | head -n 5 >&2
			bad=1
		fi
	}

	# run ARGS...: msgtrace under the limits; its exit status in st.
	run() {
		st=0
		(ulimit -v "$REPLAY_VLIMIT"; exec timeout 10 "$REPLAY_MSGTRACE" "$@") \
			>/dev/null 2>"$work/err" || st=$?
	}

	# replay_one INPUT: split INPUT into a fresh in/ and run its commands.
	replay_one() {
		local input=$1 c cmds first
		rm -rf "$work/in" "$work/out" && mkdir "$work/in" "$work/out"
		"$REPLAY_SPLIT" "$input" "$work/in"
		if [ -f "$work/in/tag.args" ]; then
			st=0
			(ulimit -v "$REPLAY_VLIMIT"; xargs -0 -a "$work/in/tag.args" \
				timeout 10 "$REPLAY_MSGTRACE" tag) >/dev/null 2>"$work/err" || st=$?
			# xargs reports a child's 1-125 status as 123.
			[ "$st" -eq 123 ] && st=1
			[ "$st" -le 2 ] || check "$input (tag)" "$st" "$work/err"
			return
		fi
		first=
		read -r -n 1 -d '' first < "$input" || true
		case $first in
		M) cmds=("messages" "report") ;;
		J) cmds=("report --json" "decode --ops") ;;
		G) cmds=("tags" "export --chrome -o/dev/null") ;;
		H) cmds=("report --html -o/dev/null" "export --csv -o$work/out/x") ;;
		O) cmds=("export --otf2 -o$work/out/otf2") ;;
		*) cmds=("dump" "dump --summary") ;;
		esac
		for c in "${cmds[@]}"; do
			# shellcheck disable=SC2086
			run $c "$work"/in/*.mt
			check "$input ($c)" "$st" "$work/err"
			rm -rf "$work/out" && mkdir "$work/out"
		done
	}

	for input in "$@"; do
		replay_one "$input"
	done
	exit $bad
fi

msgtrace=$1 src=$2
split=${3:-$(dirname "$msgtrace")/../tests/fuzz/fuzz_split}
[ -x "$split" ] || { echo "FAIL: $split not built" >&2; exit 1; }
LIMIT_MB=1024
. "$(dirname "$0")/../sanitizer_env.sh"
work=$(mktemp -d "${TMPDIR:-/tmp}/msgtrace-replay.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir "$work/corpus"
tar -xJf "$src/corpus.tar.xz" -C "$work/corpus" --strip-components=1
export REPLAY_WORK=$work REPLAY_MSGTRACE=$msgtrace REPLAY_SPLIT=$split \
	REPLAY_VLIMIT=$vlimit

stride=${REPLAY_STRIDE:-$((asan ? 4 : 1))}
n=0 i=0
for input in "$work"/corpus/*; do
	i=$((i + 1))
	[ $(((i - 1) % stride)) -eq 0 ] && n=$((n + 1)) && printf '%s\0' "$input"
done > "$work/inputs"
for input in "$src"/regress/*; do
	[ -f "$input" ] && n=$((n + 1)) && printf '%s\0' "$input"
done >> "$work/inputs"
# One line per failed input on stderr, from --batch; xargs says 123 if any.
st=0
xargs -0 -n 16 -P "${REPLAY_JOBS:-$(nproc)}" "$0" --batch < "$work/inputs" ||
	st=$?
[ "$st" -eq 0 ] || { echo "FAIL: inputs failed (see above), of $n" >&2; exit 1; }
echo "PASS: $n fuzz inputs replayed through $msgtrace (every ${stride}th of the corpus, every past crash)"
