/*
 * full_io.c - whole reads and writes at an offset. pread and pwrite may
 * transfer less than asked (a signal, a full pipe of the file system) and
 * the journal's writer and reader both need all of it or an error: one
 * loop for both, not a copy in each.
 */
#include <errno.h>
#include <unistd.h>

#include "full_io.h"

static int full(int fd, char *p, size_t len, uint64_t off, int write)
{
    while (len) {
        ssize_t n = write ? pwrite(fd, p, len, (off_t)off) : pread(fd, p, len, (off_t)off);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return n < 0 ? errno : EIO;
        p += n;
        len -= (size_t)n;
        off += (uint64_t)n;
    }
    return 0;
}

int scope__pread_full(int fd, void *buf, size_t len, uint64_t off)
{
    return full(fd, buf, len, off, 0);
}

int scope__pwrite_full(int fd, const void *buf, size_t len, uint64_t off)
{
    return full(fd, (char *)buf, len, off, 1);
}
