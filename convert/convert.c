/*
 * convert.c - scope_convert(), the converter's one entry point
 * (scope_convert.h): a request of one of four modes (format/scope_writer.h)
 * goes to the one function of its mode (h5writer.h), and nothing calls
 * back here. The files those functions write share h5writer.c's
 * primitives; keeping the dispatch apart keeps the host files' code
 * (host_file.c, host_append.c) from being both called by h5writer.c and
 * calling it. What a conversion says without failing goes through the
 * request's warn callback (convert_warn.c), which the writers call
 * without coming back here.
 */
#include <stdio.h>

#include "h5writer.h"
#include "scope_error.h"

int scope_convert(const struct scope_convert_request *req)
{
    /* one function per mode (format/scope_writer.h), each run inside the
     * HDF5 error state of h5writer.c */
    static int (*const by_mode[])(const struct scope_convert_request *) = {
        [SCOPE_CONVERT_RANK] = scope__convert_rank,
        [SCOPE_CONVERT_INDEX_ONLY] = scope__convert_index_only,
        [SCOPE_CONVERT_HOST] = scope__convert_host,
        [SCOPE_CONVERT_APPEND] = scope__convert_host_append,
    };
    if (req->err && req->errlen)
        req->err[0] = 0;
    unsigned mode = (unsigned)req->mode;
    if (mode >= sizeof by_mode / sizeof *by_mode || !by_mode[mode]) {
        if (req->err && req->errlen)
            snprintf(req->err, req->errlen, "conversion request of unknown mode %d",
                     (int)req->mode);
        return SCOPE_EINVAL;
    }
    scope__conv_errors_begin();
    return scope__conv_errors_end(by_mode[mode](req));
}
