/*
 * mpi_app.c - the C program of the MPI matrix (tests/mpi): a known number
 * of calls on every rank (work 7, MPI_Allreduce 5, MPI_Barrier 3,
 * MPI_Comm_rank 1, MPI_Comm_size 1), one line of output from rank 0.
 *
 * usage: mpi_app [thread] [sync DIR N] [exit CODE]
 *   thread      start MPI with MPI_Init_thread(MPI_THREAD_FUNNELED)
 *   sync DIR N  before MPI_Finalize, wait until N processes reached that
 *               point (a file each in DIR): forces N singletons to overlap
 *   exit CODE   return CODE from main after MPI_Finalize
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <unistd.h>

/* The user function the config names; noinline keeps it a real call. */
__attribute__((noinline)) double work(double x)
{
    __asm__ volatile("" ::: "memory");
    return x * 0.5 + 1.0;
}

static void wait_for(const char *dir, int n)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%ld", dir, (long)getpid());
    FILE *f = fopen(path, "w");
    if (f)
        fclose(f);
    for (;;) {
        int count = 0;
        DIR *d = opendir(dir);
        struct dirent *e;
        while (d && (e = readdir(d)) != NULL)
            count += e->d_name[0] != '.';
        if (d)
            closedir(d);
        if (count >= n)
            return;
        usleep(10000);
    }
}

int main(int argc, char **argv)
{
    int thread = 0, code = 0, n = 0;
    const char *dir = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "thread") == 0)
            thread = 1;
        else if (strcmp(argv[i], "sync") == 0 && i + 2 < argc) {
            dir = argv[++i];
            n = atoi(argv[++i]);
        } else if (strcmp(argv[i], "exit") == 0 && i + 1 < argc)
            code = atoi(argv[++i]);
    }
    if (thread) {
        int provided = -1;
        MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    } else {
        MPI_Init(&argc, &argv);
    }
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    double y = rank;
    for (int i = 0; i < 7; i++)
        y = work(y);
    double sum = 0;
    for (int i = 0; i < 5; i++)
        MPI_Allreduce(&y, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    for (int i = 0; i < 3; i++)
        MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("size %d sum %.6f\n", size, sum);
    fflush(stdout);
    if (dir)
        wait_for(dir, n);
    MPI_Finalize();
    return code;
}
