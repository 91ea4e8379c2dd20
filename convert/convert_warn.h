/*
 * convert_warn.h - what a conversion says without failing (a collision
 * file it could not link, a host file it wrote under another name): one
 * line through the request's warn callback (format/scope_writer.h), so the
 * caller decides where it goes (scope-h5write: stderr; `scope recover`:
 * its own lines). Its own file because every mode's writer says such
 * lines and convert.c, which dispatches to them, must not be called back.
 * Internal to convert/.
 */
#ifndef SCOPE_CONVERT_WARN_H
#define SCOPE_CONVERT_WARN_H

#include "scope_convert.h"

/* Says one line (printf's fmt) through req->warn when it has one; nothing
 * otherwise, and nothing when the line cannot be formatted. Cost: one
 * vasprintf. */
void scope__convert_warn(const struct scope_convert_request *req, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

#endif /* SCOPE_CONVERT_WARN_H */
