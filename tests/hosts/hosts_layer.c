/*
 * hosts_layer.c - a PMPI tool layer for the "application's messages are
 * untouched" test. The test program links it before libmpi, so scope's
 * preload forwards MPI_Init and MPI_Finalize to it, and it sees the inside
 * of both calls:
 * - its MPI_Init posts a receive from MPI_ANY_SOURCE with MPI_ANY_TAG on
 *   MPI_COMM_WORLD as soon as PMPI_Init returned, before scope measures
 *   the clocks; the program checks afterwards that it matched only the
 *   program's own message;
 * - its MPI_Finalize runs after scope measured the clocks again (and wrote
 *   the rank file), with the program's second such receive still posted:
 *   it prints whether anything matched it, then cancels it.
 */
#include <stdio.h>

#include <mpi.h>

#include "hosts_layer.h"

static MPI_Request init_req = MPI_REQUEST_NULL, fin_req = MPI_REQUEST_NULL;
static long long init_buf[2], fin_buf[2];

int MPI_Init(int *argc, char ***argv)
{
    int rc = PMPI_Init(argc, argv);
    if (rc == MPI_SUCCESS)
        PMPI_Irecv(init_buf, 2, MPI_LONG_LONG, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD,
                   &init_req);
    return rc;
}

MPI_Request *hosts_layer_init_request(long long **buf)
{
    *buf = init_buf;
    return &init_req;
}

void hosts_layer_watch_finalize(void)
{
    PMPI_Irecv(fin_buf, 2, MPI_LONG_LONG, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &fin_req);
}

int MPI_Finalize(void)
{
    int rank = -1, done = 0;
    MPI_Status st;
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (fin_req != MPI_REQUEST_NULL) {
        PMPI_Test(&fin_req, &done, &st);
        if (done) {
            printf("rank %d finalize: STOLEN source %d tag %d\n", rank, st.MPI_SOURCE, st.MPI_TAG);
        } else {
            PMPI_Cancel(&fin_req);
            PMPI_Wait(&fin_req, &st);
            printf("rank %d finalize: clean\n", rank);
        }
        fflush(stdout);
    }
    return PMPI_Finalize();
}
