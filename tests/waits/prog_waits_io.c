/*
 * prog_waits_io.c - waits whose waited-for rank was busy in I/O
 * (check_waits_io.py; docs/analysis.md "Waits spent in I/O"). Two ranks:
 *
 *   A  rank 0 posts MPI_Recv at once; rank 1 first writes FILE (argv[1]):
 *      open, 64 writes of 1 MiB, fsync, close; then sleeps 150 ms outside
 *      any I/O call; then sends. A late sender whose wait is partly rank
 *      1's I/O on FILE, and partly not.
 *   B  rank 0 posts MPI_Irecv and waits in MPI_Wait; rank 1 only sleeps
 *      150 ms, then sends: a late sender without I/O.
 *
 * A barrier before each exchange starts both ranks together. Prints
 * nothing but errors; exits 0.
 */
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define CHUNK (1 << 20)
#define CHUNKS 64

static void nap_ms(long ms)
{
    struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
    while (nanosleep(&ts, &ts) != 0)
        ;
}

static int write_file(const char *path)
{
    char *buf = malloc(CHUNK);
    if (!buf)
        return -1;
    memset(buf, 'x', CHUNK);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) {
        perror(path);
        free(buf);
        return -1;
    }
    for (int i = 0; i < CHUNKS; i++)
        if (write(fd, buf, CHUNK) != CHUNK) {
            perror("write");
            close(fd);
            free(buf);
            return -1;
        }
    int rc = fsync(fd) == 0 && close(fd) == 0 ? 0 : -1;
    free(buf);
    return rc;
}

int main(int argc, char **argv)
{
    int rank, size, v = 0, rc = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc < 2 || size != 2) {
        if (rank == 0)
            fprintf(stderr, "usage: mpirun -n 2 prog_waits_io FILE\n");
        MPI_Finalize();
        return 2;
    }
    /* A */
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        MPI_Recv(&v, 1, MPI_INT, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
        rc = write_file(argv[1]);
        nap_ms(150);
        MPI_Send(&v, 1, MPI_INT, 0, 1, MPI_COMM_WORLD);
    }
    /* B */
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        MPI_Request rq;
        MPI_Irecv(&v, 1, MPI_INT, 1, 2, MPI_COMM_WORLD, &rq);
        MPI_Wait(&rq, MPI_STATUS_IGNORE);
    } else {
        nap_ms(150);
        MPI_Send(&v, 1, MPI_INT, 0, 2, MPI_COMM_WORLD);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return rc == 0 ? 0 : 1;
}
