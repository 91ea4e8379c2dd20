/*
 * clock_align.h - measuring this host's clock against rank 0's host at
 * MPI_Init and MPI_Finalize (clock_align.c). The measurements go into the
 * journal as metadata; the converter turns them into a linear model and
 * puts every stored timestamp on rank 0's host timeline (runtime/
 * clock_model.c, docs/clocks.md).
 */
#ifndef SCOPE_CLOCK_ALIGN_H
#define SCOPE_CLOCK_ALIGN_H

#include <stdint.h>

#include "mpi_abi.h"

/* Called on every rank right after the outermost PMPI_Init/_thread
 * returned MPI_SUCCESS, with recording on. Collective over
 * MPI_COMM_WORLD: creates the private communicators (the host split and
 * the leaders' split of it), measures, stores the result as metadata. Does nothing
 * (on every rank alike) when the MPI library lacks a needed symbol.
 * Cost: 2 to 101 round trips per host (2 when the network is quiet),
 * all children of a parent at once, in a tree of depth log16(hosts). */
void scope__clock_align_init(void);

/* Called on every rank at the entry of the outermost MPI_Finalize, before
 * the rank's file is written: measures again (for the drift), stores the
 * result; scope__clock_align_release frees the private communicators.
 * Does nothing unless
 * scope__clock_align_init completed. Same cost as at init. */
void scope__clock_align_finalize(void);

/* The communicators the init step made, for host files (host_files.c):
 * this host's MPI_COMM_TYPE_SHARED split of MPI_COMM_WORLD (ordered by world rank, so its rank 0
 * is the host's lowest world rank), the hosts' leaders (ordered by world
 * rank: world rank 0 is its rank 0; MPI_COMM_NULL on the other ranks),
 * this rank's place in its host, and the number of hosts. Returns 0, or
 * -1 when the init step did not complete (no communicators: nobody has
 * them, the library is the same on every rank) or they were released. */
int scope__clock_align_comms(scope__mpi_handle *host, scope__mpi_handle *leaders,
                             int *host_rank, int64_t *n_hosts);

/* Waits for a request on the private communicators (or one lent from
 * them) without MPI's busy polling: MPI_Test, then sleeps that double
 * from 20 us up to max_pause_ns. Only when the communicators exist (the
 * PMPI functions were found). Returns 0 or an MPI error code. */
int scope__clock_align_wait(scope__mpi_handle req, long max_pause_ns);

/* Waits until every rank has called it: at the end of scope's work in
 * MPI_Init and before the real MPI_Finalize. Why: a rank done early goes
 * on into MPI, which with more ranks than cores waits by spinning
 * (sched_yield); at 64 ranks on 2 cores a host's 16 spinning ranks took
 * the cores from the other hosts' clock exchanges and scope-h5write
 * writers, and the run's wall time grew by seconds (bench/README.md).
 * Collective over MPI_COMM_WORLD, where the application has no
 * collective in flight at these two points (a nonblocking barrier,
 * polled with sleeps up to 4 ms: waiting ranks wake rarely while the
 * last exchanges and writers run; with then_yield, at init, polled
 * yielding the core after 50 ms: see wait_settle). Does nothing without
 * the communicators or without MPI_Ibarrier in the library (the same on
 * every rank). */
void scope__clock_align_settle(int then_yield);

/* Frees the private communicators, after scope__clock_align_finalize and
 * whatever else used them at MPI_Finalize. Does nothing if there are none. */
void scope__clock_align_release(void);

#endif /* SCOPE_CLOCK_ALIGN_H */
