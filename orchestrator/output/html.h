/*
 * html.h - text from logs escaped for HTML (html.c): what every page this
 * tool writes (export_html.c, report_html.c, history_html.c, the charts of
 * chart_svg.c) puts a name from outside through.  Apart from export.h, where
 * it was, so that a chart or a page need not depend on the exports (the
 * export of HTML draws with chart_svg.c: a cycle).
 */
#ifndef BV_HTML_H
#define BV_HTML_H

#include <stdio.h>

/* Text from logs, escaped for HTML: element text and quoted attributes
 * alike. */
void bv_html_esc(FILE *out, const char *s);

#endif
