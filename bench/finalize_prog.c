/*
 * finalize_prog.c - the MPI program bench_finalize.py times: the calls of
 * tests/hosts/hostfiles_prog (tests/hosts/hostfiles_calls.h), and, after
 * MPI_Finalize, when BENCH_CPU_FILE is set, one line appended to that file:
 *
 *   USER_US SYS_US MAIN_CPU_US T_MAIN_NS T_FINALIZE_NS T_FINALIZED_NS
 *
 * this process's CPU time and that of the children it waited for (the
 * preload's scope-h5write writer on a host's leader); its CPU time when
 * main began (the preload's constructor is in it); and CLOCK_REALTIME when
 * main began, when MPI_Finalize was called and when it returned. The
 * simulated hosts share one kernel, so these times are on one clock and
 * the benchmark can split the run into phases: the noisy MPI_Init of 64
 * oversubscribed ranks apart from the finalize that scope adds to.
 *
 * Why the program reports it itself: a wrapper around each rank (GNU
 * time) would be one more process the preload is loaded into in the
 * profiled runs only, and Open MPI's daemons do not hand their ranks'
 * times up to mpirun. What runs after main returns (atexit handlers) is
 * not counted; with MPI, the preload's work is done in MPI_Finalize.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>

#include "bench_rank_file.h"
#include "hostfiles_calls.h"

/* This process's CPU time so far (no children), in microseconds. */
static long long cpu_us(void)
{
    struct rusage self;
    getrusage(RUSAGE_SELF, &self);
    return bench_usec(self.ru_utime) + bench_usec(self.ru_stime);
}

int main(int argc, char **argv)
{
    long long t_main = bench_now_ns(), main_cpu = cpu_us();
    hostfiles_calls(&argc, &argv);
    long long t_fin = bench_now_ns();
    MPI_Finalize();
    long long t_done = bench_now_ns();
    const char *out = getenv("BENCH_CPU_FILE");
    if (!out || !*out)
        return 0;
    long long user, sys;
    bench_cpu_us(&user, &sys);
    char line[160];
    snprintf(line, sizeof line, "%lld %lld %lld %lld %lld %lld\n", user, sys, main_cpu, t_main,
             t_fin, t_done);
    return bench_append_line(out, line);
}
