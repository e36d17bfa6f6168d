/*
 * cmd_share.h - the parts of `bench-versions share` (cmd_share.c) the unit
 * tests reach without a server: the upload token's checks.  cmd_share.c
 * packs the run (pack.h) and uploads it (upload.h).
 */
#ifndef BV_CMD_SHARE_H
#define BV_CMD_SHARE_H

/* Checks a token's text: trims trailing whitespace (a newline from echo),
 * then it must be 1..4096 visible ASCII characters (RFC 6750's b64token
 * and a little more), no spaces.  Messages never include it. */
int bv_token_clean(char *token, const char *source);
/* Reads a token file: a regular file owned by us, readable by nobody else
 * (like ssh's keys: group or world bits are refused with the chmod that
 * fixes it), at most 4 KiB. */
int bv_token_read_file(const char *path, char **token);

#endif
