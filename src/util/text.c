/* text.c - the line width, the byte-count formatter and the word wrapper
 * (include/primbench/text.h). A leaf: libc only. */
#include "primbench/text.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* ---- byte counts ---------------------------------------------------------- */

/* How each style writes a number: the row of a style. */
static const struct {
	bool iec;         /* " KiB" after a space (and " B"), or "K" against it */
	bool exact;       /* a suffix only on an exact multiple */
	bool three_figs;  /* at most three significant figures */
	int max_decimals; /* and at most this many decimals */
	bool trim;        /* trailing zeros (and a lone '.') dropped */
	int max_unit;     /* the largest unit: 4 T, 6 E */
} styles[] = {
    [PB_BYTES_EXACT] = {false, true, false, 0, false, 6},
    [PB_BYTES_SHORT] = {false, false, true, 2, true, 4},
    [PB_BYTES_IEC] = {true, false, false, 2, true, 4},
    [PB_BYTES_PROSE] = {true, false, true, 1, false, 6},
    [PB_BYTES_FIG3] = {true, false, true, 2, false, 6},
};

static const char *const short_units[] = {"", "K", "M", "G", "T", "P", "E"};
static const char *const iec_units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};

/* v (>= 1, below 1024 but for rounding) with the decimals of style s. */
static void number(char *num, size_t len, double v, int s)
{
	int dec = styles[s].max_decimals;
	if (styles[s].three_figs) {
		/* the bounds are where rounding adds a digit: 9.995 prints "10.0" */
		int figs = v >= 99.95 ? 0 : v >= 9.995 ? 1 : 2;
		if (figs < dec)
			dec = figs;
	}
	snprintf(num, len, "%.*f", dec, v);
	if (styles[s].trim && strchr(num, '.')) {
		size_t n = strlen(num);
		while (num[n - 1] == '0')
			num[--n] = '\0';
		if (num[n - 1] == '.')
			num[--n] = '\0';
	}
}

void pb_format_bytes_exact(char *buf, size_t len, uint64_t v)
{
	int u = 0;
	while (v != 0 && u < styles[PB_BYTES_EXACT].max_unit && v % 1024 == 0) {
		v /= 1024;
		u++;
	}
	snprintf(buf, len, "%" PRIu64 "%s", v, short_units[u]);
}

void pb_format_bytes(char *buf, size_t len, double bytes, enum pb_bytes_style style)
{
	int s = (int)style;
	if (s < 0 || (size_t)s >= sizeof styles / sizeof styles[0])
		s = PB_BYTES_EXACT;
	if (!(bytes > 0))
		bytes = 0; /* and NaN */
	const char *const *units = styles[s].iec ? iec_units : short_units;
	const char *sep = styles[s].iec ? " " : "";
	const int max_unit = styles[s].max_unit;
	int u = 0;
	if (styles[s].exact) {
		/* 2^64 and up (UINT64_MAX as a double) saturate */
		pb_format_bytes_exact(buf, len, bytes >= 0x1p64 ? UINT64_MAX : (uint64_t)bytes);
		return;
	}
	double v = bytes;
	while (u < max_unit && v >= 1024) {
		v /= 1024;
		u++;
	}
	char num[48];
	if (u == 0) {
		snprintf(num, sizeof num, "%.0f", v); /* whole bytes */
	} else {
		number(num, sizeof num, v, s);
		if (u < max_unit && strtod(num, NULL) >= 1024) { /* 1023.96 KiB: "1.00 MiB" */
			v /= 1024;
			u++;
			number(num, sizeof num, v, s);
		}
	}
	snprintf(buf, len, "%s%s%s", num, sep, units[u]);
}

/* ---- the wrapper ---------------------------------------------------------- */

/* A unit after a number ("4 x 16 B", "0.1 ppm"): kept on the number's line. */
static bool is_unit(const char *p)
{
	static const char *const units[] = {"B",  "KiB", "MiB", "GiB", "TiB",
	                                    "ns", "ms",  "ppm", "MHz", "GHz"};
	size_t n = strcspn(p, " ");
	for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
		if (n == strlen(units[i]) && !strncmp(p, units[i], n))
			return true;
	return false;
}

/* The words of p, the cursor at column col on a line that has a word on it
 * already (used) or only blanks; continuation lines at indent. */
static void wrap_words(FILE *f, int col, int indent, bool used, const char *p, bool glue_units)
{
	if (indent < 0)
		indent = 0;
	if (indent > PB_TEXT_WIDTH - 20)
		indent = PB_TEXT_WIDTH - 20; /* leave room for the text */
	while (*p == ' ')
		p++;
	while (*p) {
		int w = (int)strcspn(p, " ");
		while (glue_units && p[w] == ' ' && p[w + 1] && is_unit(p + w + 1))
			w += 1 + (int)strcspn(p + w + 1, " ");
		int room = PB_TEXT_WIDTH - col - (used ? 1 : 0);
		/* A new line when the word fits a whole one, or at least gets
		 * more room there. */
		if (w > room && ((used && w <= PB_TEXT_WIDTH - indent) ||
		                 (col > indent && (used || room < 1)))) {
			fprintf(f, "\n%*s", indent, "");
			col = indent;
			used = false;
			continue;
		}
		if (w > room)
			w = room < 1 ? 1 : room; /* longer than a line: cut, the rest below */
		col += fprintf(f, "%s%.*s", used ? " " : "", w, p);
		used = true;
		p += w;
		while (*p == ' ')
			p++;
	}
	fputc('\n', f);
}

void pb_print_wrapped_at(FILE *f, int first, int indent, const char *text)
{
	if (first < 0)
		first = 0;
	fprintf(f, "%*s", first, "");
	wrap_words(f, first, indent, false, text, false);
}

void pb_print_labelled(FILE *f, int indent, const char *label, const char *text)
{
	if (indent < 0)
		indent = 0;
	if (indent > PB_TEXT_WIDTH - 20)
		indent = PB_TEXT_WIDTH - 20;
	const char *p = text;
	while (*p == ' ')
		p++;
	if (!*p) { /* no text: the label alone, without trailing blanks */
		size_t n = strlen(label);
		while (n > 0 && label[n - 1] == ' ')
			n--;
		fprintf(f, "%.*s\n", (int)n, label);
		return;
	}
	int col = fprintf(f, "%-*s", indent, label);
	if (col < 0)
		return;
	/* Text on this line already (past the indent, or a label filling it up
	 * to its last column): the next word needs a space before it. */
	size_t lab = strlen(label);
	bool used = col > indent || (lab > 0 && lab == (size_t)indent && label[lab - 1] != ' ');
	wrap_words(f, col, indent, used, p, true);
}

const char *pb_enum_name(const char *const *names, size_t n, unsigned v, const char *unknown)
{
	return v < n && names[v] ? names[v] : unknown;
}

void pb_notes_merge(char *dst, size_t cap, const char *src)
{
	for (const char *l = src; *l;) {
		const char *e = strchr(l, '\n');
		size_t len = e ? (size_t)(e - l) + 1 : strlen(l);
		char line[512];
		snprintf(line, sizeof line, "%.*s",
		         (int)(len < sizeof line ? len : sizeof line - 1), l);
		if (!strstr(dst, line)) {
			size_t used = strlen(dst);
			snprintf(dst + used, cap - used, "%s", line);
		}
		l += len;
	}
}

size_t pb_utf8_len(const char *s)
{
	const unsigned char *u = (const unsigned char *)s;
	if (u[0] == 0)
		return 0;
	if (u[0] < 0x80)
		return 1;
	size_t n;
	unsigned char lo = 0x80, hi = 0xbf; /* the second byte's range */
	if (u[0] >= 0xc2 && u[0] <= 0xdf)
		n = 2;
	else if (u[0] >= 0xe0 && u[0] <= 0xef) {
		n = 3;
		lo = u[0] == 0xe0 ? 0xa0 : 0x80; /* no overlong form */
		hi = u[0] == 0xed ? 0x9f : 0xbf; /* no surrogate */
	} else if (u[0] >= 0xf0 && u[0] <= 0xf4) {
		n = 4;
		lo = u[0] == 0xf0 ? 0x90 : 0x80;
		hi = u[0] == 0xf4 ? 0x8f : 0xbf; /* at most U+10FFFF */
	} else
		return 0;
	if (u[1] < lo || u[1] > hi)
		return 0;
	for (size_t i = 2; i < n; i++)
		if (u[i] < 0x80 || u[i] > 0xbf)
			return 0;
	return n;
}

void pb_html_text(FILE *f, const char *s)
{
	while (*s) {
		unsigned char c = (unsigned char)*s;
		size_t n = pb_utf8_len(s);
		if (n == 0) {
			fputs("\xef\xbf\xbd", f); /* U+FFFD */
			s++;
			continue;
		}
		if (n > 1) {
			fwrite(s, 1, n, f);
			s += n;
			continue;
		}
		switch (c) {
		case '&':
			fputs("&amp;", f);
			break;
		case '<':
			fputs("&lt;", f);
			break;
		case '>':
			fputs("&gt;", f);
			break;
		case '"':
			fputs("&quot;", f);
			break;
		case '\'':
			fputs("&apos;", f);
			break;
		default:
			fputc((c < 0x20 && c != '\t' && c != '\n') || c == 0x7f ? ' ' : c, f);
		}
		s++;
	}
}
