/*
 * proc_self.c - reading this process's small /proc files, for the run's
 * metadata (the command line), and the path of its executable. Apart from
 * the recorder because a /proc file has no size until read and holds
 * NUL-separated words: that is a job of its own, not the recorder's.
 */
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

#include "proc_self.h"

char *scope__read_proc(const char *path)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return NULL;
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap);
    while (buf) {
        ssize_t r = read(fd, buf + n, cap - n - 1);
        if (r <= 0)
            break;
        n += (size_t)r;
        if (n + 1 == cap) {
            char *b = realloc(buf, cap * 2);
            if (!b) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = b;
            cap *= 2;
        }
    }
    close(fd);
    if (!buf)
        return NULL;
    while (n > 0 && buf[n - 1] == 0)
        n--;
    for (size_t i = 0; i < n; i++)
        if (buf[i] == 0)
            buf[i] = ' ';
    buf[n] = 0;
    return buf;
}

static char exe_path[PATH_MAX];
static pthread_once_t exe_once = PTHREAD_ONCE_INIT;

static void read_exe(void)
{
    ssize_t n = readlink("/proc/self/exe", exe_path, sizeof exe_path - 1);
    exe_path[n > 0 ? n : 0] = '\0';
}

const char *scope__self_exe(void)
{
    pthread_once(&exe_once, read_exe);
    return exe_path;
}
