#!/usr/bin/env bash
# export_html.sh PROVIDER_DIR MSGTRACE P2P_MIX
#
# msgtrace report --html on a real 4-rank p2p_mix trace: one self-contained
# file (no script, nothing fetched) with every section; a host name full of
# markup (the trace copied under another host name) comes out escaped, in
# the HTML and in the Chrome JSON export; headless Chromium renders the page
# at 1280 px to a PNG of non-trivial size and prints it to PDF. Without
# Chromium (Debian package chromium, which scripts/quickstart installs), it
# skips (exit 77).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
. "$here/export_lib.sh"
export_setup "$@"

html=$E2E_TMP/report.html
"$msgtrace" report --html -o "$html" "$trace" 2>"$E2E_TMP/report.err" ||
	{ cat "$E2E_TMP/report.err" >&2; e2e_fail "report --html failed"; }
grep -qi '<script' "$html" && e2e_fail "the page holds a script"
grep -Eqi '(src|href)=|@import|url\(["'"'"']?[a-z]+:' "$html" &&
	e2e_fail "the page refers to something outside itself"
for id in run matrix sizes time tags warnings pending; do
	grep -q "<section id=\"$id\">" "$html" || e2e_fail "no section '$id'"
done
[ "$(grep -c '<svg class="heat"' "$html")" -eq 4 ] || e2e_fail "want 4 heatmaps"
grep -q '<section id="tags">.*ofi_tag_full' "$html" ||
	e2e_fail "the tag section does not name the layout in force"
grep -q '@media print' "$html" || e2e_fail "no print style"

# A hostile host name: the same files under host <b>x&"y'.
evil=$E2E_TMP/evil
mkdir "$evil"
for f in "$trace"/*.mt; do
	b=$(basename "$f")
	cp "$f" "$evil/<b>x&\"y'.${b#*.}"
done
"$msgtrace" report --html -o "$E2E_TMP/evil.html" "$evil" ||
	e2e_fail "report --html failed on the renamed trace"
grep -q '&lt;b&gt;x&amp;&quot;y&#39;' "$E2E_TMP/evil.html" ||
	e2e_fail "the host name is missing or not escaped in the HTML"
grep -q "<b>x" "$E2E_TMP/evil.html" && e2e_fail "raw markup from the trace in the HTML"
if command -v jq >/dev/null; then
	"$msgtrace" export --chrome -o "$E2E_TMP/evil.json" "$evil" ||
		e2e_fail "export --chrome failed on the renamed trace"
	jq -e '[.traceEvents[] | select(.name == "process_name") | .args.name |
		select(contains("<b>x&\"y'"'"'"))] | length == 4' "$E2E_TMP/evil.json" >/dev/null ||
		e2e_fail "the host name does not survive JSON escaping"
fi

# Rendering: headless Chromium.
browser=$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)
if [ -z "$browser" ]; then
	e2e_note "SKIP: the page is checked but not rendered: Chromium is not" \
		"installed (apt-get install chromium)"
	exit 77
fi
run_browser() {
	timeout 120 "$browser" --headless --no-sandbox --disable-gpu \
		--disable-background-networking --disable-component-update \
		--no-first-run --user-data-dir="$E2E_TMP/chromium-profile" "$@" \
		>>"$E2E_TMP/chromium.log" 2>&1
}
png=$E2E_TMP/report.png
run_browser --screenshot="$png" --window-size=1280,2000 "file://$html" ||
	{ tail -5 "$E2E_TMP/chromium.log" >&2; e2e_fail "Chromium failed to render the page"; }
[ -s "$png" ] || e2e_fail "Chromium wrote no screenshot"
# PNG: 8-byte signature, IHDR length and type, then width and height.
read -r w h < <(od -An -tu1 -j16 -N8 "$png" |
	awk '{ print $1 * 16777216 + $2 * 65536 + $3 * 256 + $4,
		      $5 * 16777216 + $6 * 65536 + $7 * 256 + $8 }')
[ "$w" -eq 1280 ] && [ "$h" -eq 2000 ] || e2e_fail "screenshot is ${w}x$h, want 1280x2000"
# A blank or unstyled page compresses to a few KB; the report's charts do not.
[ "$(stat -c %s "$png")" -gt 40000 ] ||
	e2e_fail "screenshot is only $(stat -c %s "$png") bytes: the page looks empty"
run_browser --print-to-pdf="$E2E_TMP/report.pdf" --no-pdf-header-footer "file://$html" ||
	e2e_fail "Chromium failed to print the page"
head -c 5 "$E2E_TMP/report.pdf" | grep -q '%PDF-' || e2e_fail "the print is not a PDF"
[ -n "${E2E_SCREENSHOT:-}" ] && cp "$png" "$E2E_SCREENSHOT"
e2e_note "PASS: self-contained page, escaped trace strings, rendered ${w}x$h" \
	"($(stat -c %s "$png") bytes) and printed ($(stat -c %s "$E2E_TMP/report.pdf") bytes)"
