/*
 * bench_rank_file.c - clocks, CPU times and the per-rank line of the MPI
 * bench programs (bench_rank_file.h).
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "bench_rank_file.h"

long long bench_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (long long)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

long long bench_usec(struct timeval tv)
{
    return (long long)tv.tv_sec * 1000000 + tv.tv_usec;
}

void bench_cpu_us(long long *user, long long *sys)
{
    struct rusage self, kids;
    getrusage(RUSAGE_SELF, &self);
    getrusage(RUSAGE_CHILDREN, &kids);
    *user = bench_usec(self.ru_utime) + bench_usec(kids.ru_utime);
    *sys = bench_usec(self.ru_stime) + bench_usec(kids.ru_stime);
}

int bench_append_line(const char *path, const char *line)
{
    size_t len = strlen(line);
    int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0 || write(fd, line, len) != (ssize_t)len) {
        perror(path);
        if (fd >= 0)
            close(fd);
        return 1;
    }
    close(fd);
    return 0;
}
