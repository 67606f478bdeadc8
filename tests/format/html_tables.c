/* html_tables.c - the HTML tables of result files and of a comparison on
 * standard output, for tests/format/html_xml.py, which parses them as XML
 * (include/primbench/format.h pb_format_html_tables, compare.h
 * pb_compare_html). Each call's output is wrapped in one <div> (XML wants
 * one root element).
 *   html_tables tables PREFIX FILE...   each file's tables, ids PREFIX...
 *   html_tables compare OLD NEW         the comparison of two files
 * Exit 0, or 1 with the error on standard error. */
#include <stdio.h>
#include <string.h>

#include "primbench/compare.h"
#include "primbench/error.h"
#include "primbench/format.h"
#include "primbench/reader.h"

static int usage(void)
{
	fputs("usage: html_tables tables PREFIX FILE... | compare OLD NEW\n", stderr);
	return 1;
}

int main(int argc, char **argv)
{
	if (argc >= 4 && !strcmp(argv[1], "tables")) {
		fputs("<div>\n", stdout);
		for (int i = 3; i < argc; i++) {
			struct pb_results_file f;
			if (pb_results_load(argv[i], &f) != 0 ||
			    pb_format_html_tables(stdout, &f, argv[2]) != 0) {
				fprintf(stderr, "html_tables: %s\n", pb_error());
				pb_results_file_free(&f);
				return 1;
			}
			pb_results_file_free(&f);
		}
		fputs("</div>\n", stdout);
		return 0;
	}
	if (argc == 4 && !strcmp(argv[1], "compare")) {
		struct pb_results_file f[2];
		int rc = 1;
		if (pb_results_load(argv[2], &f[0]) != 0) {
			fprintf(stderr, "html_tables: %s\n", pb_error());
			pb_results_file_free(&f[0]);
			return 1;
		}
		if (pb_results_load(argv[3], &f[1]) != 0) {
			fprintf(stderr, "html_tables: %s\n", pb_error());
			pb_results_file_free(&f[1]);
			pb_results_file_free(&f[0]);
			return 1;
		}
		struct pb_compare_result r;
		if (pb_results_name(f, 2) == 0 &&
		    pb_compare_run(&f[0], &f[1], 0.95, false, &r) == 0) {
			fputs("<div>\n", stdout);
			pb_compare_html(stdout, &r);
			fputs("</div>\n", stdout);
			pb_compare_result_free(&r);
			rc = 0;
		} else {
			fprintf(stderr, "html_tables: %s\n", pb_error());
		}
		pb_results_file_free(&f[1]);
		pb_results_file_free(&f[0]);
		return rc;
	}
	return usage();
}
