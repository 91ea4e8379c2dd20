/*
 * reader_error.c - the reader's "last error" message, one per thread, in
 * the style of dlerror(): functions return a SCOPE_E* code and leave the
 * details (which path, what was wrong) here, because the reader must never
 * print and a code alone cannot name a file.
 */
#include <stdarg.h>
#include <stdio.h>

#include "reader_internal.h"

static __thread char errbuf[1024];

const char *scope_reader_errmsg(void)
{
    return errbuf;
}

/* Formats the message and returns `code`. Cost: one vsnprintf. */
int scope__vfail(int code, const char *fmt, va_list ap)
{
    vsnprintf(errbuf, sizeof errbuf, fmt, ap);
    return code;
}

int scope__fail(int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    scope__vfail(code, fmt, ap);
    va_end(ap);
    return code;
}
