/*
 * abi_stub.c - what preload/mpi/mpi_abi.c needs from preload/engine/log.c,
 * for test_abi.c: the verbose log, printed unconditionally on stderr.
 */
#include <stdarg.h>
#include <stdio.h>

#include "log.h"

void scope__preload_log(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("scope: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}
