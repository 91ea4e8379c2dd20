/*
 * convert_warn.c - scope__convert_warn (convert_warn.h): a conversion's
 * lines that are not failures, through the request's warn callback. Apart
 * from convert.c so that the writers of each mode (h5writer.c,
 * host_file.c, host_append.c) need nothing of the dispatch that calls them.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "convert_warn.h"

void scope__convert_warn(const struct scope_convert_request *req, const char *fmt, ...)
{
    char *line = NULL;
    va_list ap;
    va_start(ap, fmt);
    int n = req->warn ? vasprintf(&line, fmt, ap) : -1;
    va_end(ap);
    if (n >= 0)
        req->warn(req->warn_arg, line);
    free(line);
}
