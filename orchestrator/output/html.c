/* html.c - text from logs escaped for HTML (see html.h). */
#include <stdio.h>
#include <string.h>

#include "html.h"

/* Escapes for element text and quoted attribute values alike.  Anything but
 * letters, digits, UTF-8 bytes and a few harmless marks becomes a numeric
 * character reference, so no text can close a tag or an attribute, and no
 * "scheme://" or "name=" survives as such even in the raw file. */
void bv_html_esc(FILE *out, const char *s)
{
	for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
		if (*p < 0x20 || *p == 0x7f)
			fputc(' ', out);
		else if (*p >= 0x80 || (*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'z') ||
		         (*p >= 'A' && *p <= 'Z') || strchr(" .,-_()[]%+", *p))
			fputc(*p, out);
		else
			fprintf(out, "&#%d;", *p);
	}
}
