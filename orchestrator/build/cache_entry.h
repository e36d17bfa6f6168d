/*
 * cache_entry.h - cache entries that tell when they were changed, and that
 * say while a run is using them (cache_entry.c).
 *
 * A build may run any recipe as the user, so nothing stops it writing into
 * the cache.  What the cache can promise is that a change never goes
 * unnoticed: an entry is sealed when it is made (a digest of every file
 * under it, kept in the entry's SEAL file, and its files made read-only, so
 * that an append through a hard link fails), and checked before it is
 * taken.  A damaged entry is rebuilt, never trusted.
 */
#ifndef BV_CACHE_ENTRY_H
#define BV_CACHE_ENTRY_H

/* The file in a sealed entry that holds its digest. */
#define BV_SEAL_FILE "SEAL"

/* Seals the directory dir (about to be renamed into the cache): every
 * regular file under it read-only and their digest in dir/SEAL.  0, or a
 * BV_E* code with the message set. */
int bv_entry_seal(const char *dir);

/* Whether dir is a sealed entry as it was made: 1 intact; 0 damaged, with
 * *why (allocated) saying how (not a directory, no seal, a FIFO or a
 * symbolic link where a build leaves files, a file changed, added or
 * removed). */
int bv_entry_check(const char *dir, char **why);

/* Moves a damaged entry out of its key's name (to a ".trash-" name beside
 * it, which `cache trim` removes if this cannot) and removes it. */
void bv_entry_discard(const char *dir);

/* Marks the entry dir as in use until the descriptor returned is closed (at
 * exit at the latest): a shared lock on the directory, which `cache trim`
 * honours.  -1 when it cannot be opened (gone, or not a directory). */
int bv_entry_hold(const char *dir);

/* For trim: an exclusive lock on dir taken without waiting, held until the
 * descriptor is closed: >= 0 taken (no run holds the entry), -1 with errno
 * EWOULDBLOCK when a run holds it, -1 otherwise (not a directory: nothing
 * to hold). */
int bv_entry_claim(const char *dir);

#endif
