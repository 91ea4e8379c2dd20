/*
 * convert.c - scope_convert(), the converter's one entry point
 * (scope_convert.h): a request of one of four modes (format/scope_writer.h)
 * goes to the one function of its mode (h5writer.h), and nothing calls
 * back here. The files those functions write share h5writer.c's
 * primitives; keeping the dispatch apart keeps the host files' code
 * (host_file.c, host_append.c) from being both called by h5writer.c and
 * calling it. What a conversion says without failing goes through the
 * request's warn callback (scope__convert_warn): the caller decides where
 * (scope-h5write: stderr; `scope recover`: its own lines).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "h5writer.h"
#include "scope_error.h"

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

int scope_convert(const struct scope_convert_request *req)
{
    if (req->err && req->errlen)
        req->err[0] = 0;
    int rc;
    switch (req->mode) {
    case SCOPE_CONVERT_RANK:
        scope__conv_errors_begin();
        rc = scope__convert_rank(req);
        break;
    case SCOPE_CONVERT_INDEX_ONLY:
        scope__conv_errors_begin();
        rc = scope__convert_index_only(req);
        break;
    case SCOPE_CONVERT_HOST:
        scope__conv_errors_begin();
        rc = scope__convert_host(req);
        break;
    case SCOPE_CONVERT_APPEND:
        scope__conv_errors_begin();
        rc = scope__convert_host_append(req);
        break;
    default:
        if (req->err && req->errlen)
            snprintf(req->err, req->errlen, "conversion request of unknown mode %d",
                     (int)req->mode);
        return SCOPE_EINVAL;
    }
    return scope__conv_errors_end(rc);
}
