/*
 * hostfiles_prog.c - the MPI program of check_host_files.py: every rank
 * makes a number of calls that depends on its rank, so that a test can
 * assert exact per-rank counts wherever the rank's group was written.
 *
 *   hostfiles_prog [VICTIM PIDFILE]
 *
 * Rank r calls MPI_Comm_rank once, MPI_Comm_size 2 + r % 13 times and
 * MPI_Barrier once. With VICTIM, that rank writes its pid to PIDFILE
 * after the barrier and waits to be killed (the others go on into
 * MPI_Finalize).
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "hostfiles_calls.h"

int main(int argc, char **argv)
{
    int r = hostfiles_calls(&argc, &argv);
    if (argc > 2 && r == atoi(argv[1])) {
        char tmp[4096];
        snprintf(tmp, sizeof tmp, "%s.tmp", argv[2]);
        FILE *f = fopen(tmp, "w");
        if (!f || fprintf(f, "%ld\n", (long)getpid()) < 0 || fclose(f) != 0 ||
            rename(tmp, argv[2]) != 0)
            return 1;
        for (;;)
            pause();
    }
    MPI_Finalize();
    return 0;
}
