/*
 * log.h - the preload's one way of printing from inside the profiled
 * process (log.c): every line goes out as one write(2) on stderr, so the
 * lines of many ranks sharing a terminal never mix mid-line, and nothing
 * is buffered in the application's stdio. Internal to preload/.
 */
#ifndef SCOPE_PRELOAD_LOG_H
#define SCOPE_PRELOAD_LOG_H

/* Nonzero when SCOPE_VERBOSE (or `verbose` in the config) asked for
 * progress lines; set once by the preload's constructor (lifecycle.c). */
extern int scope__preload_verbose;

/* Prints "scope: [pid <pid>] <formatted>\n" when scope__preload_verbose,
 * nothing otherwise. Lines are cut at 1 KiB. */
void scope__preload_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Prints "scope: <formatted>\n" whatever the verbosity (the caller has
 * decided to speak). One write up to 4 KiB; a longer line is written
 * whole, in several writes. */
void scope__preload_say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
