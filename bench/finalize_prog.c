/*
 * finalize_prog.c - the MPI program bench_finalize.py times: the calls of
 * tests/hosts/hostfiles_prog (tests/hosts/hostfiles_calls.h), and, after MPI_Finalize, when
 * BENCH_CPU_FILE is set, one line "USER_US SYS_US" appended to that file:
 * this process's CPU time and that of the children it waited for (the
 * preload's scope-h5write writer on a host's leader).
 *
 * Why the program reports it itself: a wrapper around each rank (GNU
 * time) would be one more process the preload is loaded into in the
 * profiled runs only, and Open MPI's daemons do not hand their ranks'
 * times up to mpirun. What runs after main returns (atexit handlers) is
 * not counted; with MPI, the preload's work is done in MPI_Finalize.
 */
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <unistd.h>

#include "hostfiles_calls.h"

static long long usec(struct timeval tv)
{
    return (long long)tv.tv_sec * 1000000 + tv.tv_usec;
}

int main(int argc, char **argv)
{
    hostfiles_calls(&argc, &argv);
    MPI_Finalize();
    const char *out = getenv("BENCH_CPU_FILE");
    if (!out || !*out)
        return 0;
    struct rusage self, kids;
    getrusage(RUSAGE_SELF, &self);
    getrusage(RUSAGE_CHILDREN, &kids);
    char line[64];
    int len = snprintf(line, sizeof line, "%lld %lld\n", usec(self.ru_utime) + usec(kids.ru_utime),
                       usec(self.ru_stime) + usec(kids.ru_stime));
    int fd = open(out, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
    /* one write with O_APPEND: the ranks' lines do not mix */
    if (fd < 0 || write(fd, line, (size_t)len) != len) {
        perror(out);
        return 1;
    }
    close(fd);
    return 0;
}
