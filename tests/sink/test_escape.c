/*
 * test_escape.c - JSON and HTML escaping of trace strings (sink/escape.c).
 */
#include <criterion/criterion.h>
#include <stdlib.h>

#include "escape.h"

/* What f(s) writes, as a string the caller frees. */
static char *written(void (*f)(FILE *, const char *), const char *s)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);

	cr_assert_not_null(m);
	f(m, s);
	fclose(m);
	return buf;
}

static void expect(void (*f)(FILE *, const char *), const char *in,
		   const char *want)
{
	char *got = written(f, in);

	cr_expect_str_eq(got, want, "escaping [%s]", in);
	free(got);
}

Test(escape, json_quotes_backslash_controls)
{
	expect(mt_sink_esc_json, "", "\"\"");
	expect(mt_sink_esc_json, "vm", "\"vm\"");
	expect(mt_sink_esc_json, "a\"b\\c", "\"a\\\"b\\\\c\"");
	expect(mt_sink_esc_json, "tab\there\nnl", "\"tab\\u0009here\\u000anl\"");
	expect(mt_sink_esc_json, "\x01\x1f", "\"\\u0001\\u001f\"");
}

Test(escape, json_stays_ascii)
{
	/* Trace bytes need not be UTF-8: each high byte becomes a code point. */
	expect(mt_sink_esc_json, "\x7f\x80\xff", "\"\\u007f\\u0080\\u00ff\"");
	expect(mt_sink_esc_json, "~", "\"~\"");
}

Test(escape, html_markup_and_quotes)
{
	expect(mt_sink_esc_html, "<b>x&\"y'</b>",
	       "&lt;b&gt;x&amp;&quot;y&#39;&lt;/b&gt;");
	expect(mt_sink_esc_html, "plain text 1.2", "plain text 1.2");
	expect(mt_sink_esc_html, "", "");
}

Test(escape, html_control_bytes)
{
	expect(mt_sink_esc_html, "a\x01" "b\x1b", "a&#xfffd;b&#xfffd;");
	expect(mt_sink_esc_html, "keep\ttab\nand newline", "keep\ttab\nand newline");
}
