/*
 * log.c - printing from inside the profiled process (log.h): progress
 * lines for SCOPE_VERBOSE with the pid (many ranks print at once), and
 * the engine's reports. Each line is formatted into a buffer on the stack
 * and written with one write(2): the application's stdio buffers and
 * locks are never touched, and lines of several processes do not
 * interleave within a line.
 */
#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>

#include "log.h"

int scope__preload_verbose;

/* Writes line[0..n) and a newline (line has room for it). */
static void put_line(char *line, size_t cap, int n)
{
    if (n < 0)
        return;
    if ((size_t)n >= cap - 1)
        n = (int)cap - 2;
    line[n++] = '\n';
    ssize_t w = write(STDERR_FILENO, line, (size_t)n);
    (void)w;
}

void scope__preload_log(const char *fmt, ...)
{
    if (!scope__preload_verbose)
        return;
    char line[1024];
    int n = snprintf(line, sizeof line, "scope: [pid %ld] ", (long)getpid());
    va_list ap;
    va_start(ap, fmt);
    if (n >= 0 && (size_t)n < sizeof line)
        n += vsnprintf(line + n, sizeof line - (size_t)n, fmt, ap);
    va_end(ap);
    put_line(line, sizeof line, n);
}

void scope__preload_say(const char *fmt, ...)
{
    char line[4096];
    static const char head[] = "scope: ";
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line + sizeof head - 1, sizeof line - sizeof head + 1, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    for (size_t i = 0; i < sizeof head - 1; i++)
        line[i] = head[i];
    n += (int)sizeof head - 1;
    if ((size_t)n < sizeof line - 1) {
        put_line(line, sizeof line, n);
        return;
    }
    /* longer than the buffer: the whole line, in pieces */
    va_start(ap, fmt);
    dprintf(STDERR_FILENO, "%s", head);
    vdprintf(STDERR_FILENO, fmt, ap);
    dprintf(STDERR_FILENO, "\n");
    va_end(ap);
}
