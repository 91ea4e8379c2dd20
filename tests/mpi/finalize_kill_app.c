/*
 * finalize_kill_app.c - an MPI program whose ranks end right after
 * MPI_Finalize returns (check_finalize_kill.py):
 *
 *   finalize_kill_app N kill    every rank SIGKILLs itself
 *   finalize_kill_app N exit    every rank returns 0
 *   finalize_kill_app N quiet   every rank sends its standard output and
 *                               error to /dev/null before MPI_Finalize
 *                               and returns 0
 *   finalize_kill_app N hold D  every rank writes its pid into D/fin.<rank>
 *                               and waits to be killed (the whole job
 *                               SIGKILLed from outside, mpirun included)
 *
 * Before MPI_Finalize each rank makes exactly N MPI_Allreduce calls, N
 * MPI_Sendrecv calls around a ring and one MPI_Barrier, and prints
 * "rank R made N calls". A SIGKILL cannot be caught: what the profile
 * holds of the run is what was written by the time MPI_Finalize returned,
 * or by writers that outlive the rank.
 */
#include <fcntl.h>
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int n = argc > 1 ? atoi(argv[1]) : 100;
    double x = rank, sum, in;
    for (int i = 0; i < n; i++) {
        MPI_Allreduce(&x, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        MPI_Sendrecv(&x, 1, MPI_DOUBLE, (rank + 1) % size, 3, &in, 1, MPI_DOUBLE,
                     (rank + size - 1) % size, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    printf("rank %d made %d calls\n", rank, n);
    fflush(stdout);
    if (argc > 2 && strcmp(argv[2], "quiet") == 0) {
        int null = open("/dev/null", O_WRONLY);
        dup2(null, 1);
        dup2(null, 2);
        close(null);
    }
    MPI_Finalize();
    if (argc > 2 && strcmp(argv[2], "kill") == 0)
        raise(SIGKILL);
    if (argc > 3 && strcmp(argv[2], "hold") == 0) {
        char path[4096], tmp[4200];
        snprintf(path, sizeof path, "%s/fin.%d", argv[3], rank);
        snprintf(tmp, sizeof tmp, "%s.tmp", path);
        FILE *f = fopen(tmp, "w");
        if (!f)
            return 1;
        fprintf(f, "%ld\n", (long)getpid());
        fclose(f);
        rename(tmp, path);
        for (;;)
            pause();
    }
    return 0;
}
