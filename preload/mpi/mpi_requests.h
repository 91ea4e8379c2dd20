/*
 * mpi_requests.h - the nonblocking requests a thread has in flight, from
 * their post (MPI_Isend, MPI_Irecv) to the MPI_Wait or MPI_Test call that
 * completes them, so that the completion can name its post and translate
 * the receive's source to a world rank (docs/format.md, "What MPI calls
 * moved"). One bounded table per thread: no lock, no allocation after the
 * thread's first post; a request completed by another thread than the one
 * that posted it is not followed. Persistent requests have a second
 * table, from their init to MPI_Request_free: what each start moves.
 */
#ifndef SCOPE_MPI_REQUESTS_H
#define SCOPE_MPI_REQUESTS_H

#include <stdint.h>

/* Requests one thread follows at once. When it is full, the table is
 * emptied (requests completed where scope does not follow them would
 * otherwise fill it for good): those in it are counted
 * (scope__req_untracked) and their completions not linked. */
#define SCOPE_REQ_TABLE 4096u

struct scope__req {
    uint32_t id;            /* post id (>= 1) */
    int recv;               /* a receive: its completion says source and size */
    const int32_t *world;   /* the communicator's members' world ranks */
    int32_t world_n;        /* how many (the remote group's for an
                               intercommunicator) */
    int32_t world_off;      /* where they start in world[] */
};

/* Follows request `handle` (posted with `r`'s fields; r->id is set here).
 * Returns the post id, or 0 when the table is full or cannot be made.
 * Cost: a hash and a probe; the thread's first post allocates the table. */
uint32_t scope__req_post(uint64_t handle, struct scope__req *r);

/* Takes request `handle` out of the table into *out: the oldest post with
 * that handle (Open MPI gives sends it completed at once one shared
 * request). Returns 1, or 0 when it is not followed. */
int scope__req_take(uint64_t handle, struct scope__req *out);

/* Persistent requests (MPI_Send_init, MPI_Recv_init, MPI_Bcast_init & co): what each moves
 * when MPI_Start starts it, kept per thread from the init to
 * MPI_Request_free, SCOPE_REQ_PERSISTENT of them at most (past that, a
 * start moves nothing known). */
#define SCOPE_REQ_PERSISTENT 1024u
struct scope__persist {
    int64_t bytes;          /* sent (a send, a collective) */
    int64_t bytes_received; /* received (a collective: known at the init) */
    int32_t dest, source, tag, comm;
    int coll;               /* a persistent collective (enum scope_coll_shape, 0 for
                               point to point): its post says which, its root and
                               the bytes its pairs need; its completion reads no
                               status */
    struct scope__req r;    /* recv flag and world ranks for completions */
};

/* Keeps (or replaces) what `handle` moves when started. Returns 1, or 0
 * when the table is full. */
int scope__req_persist(uint64_t handle, const struct scope__persist *p);

/* What persistent request `handle` moves, or NULL. */
const struct scope__persist *scope__req_persisted(uint64_t handle);

/* Forgets persistent request `handle` (MPI_Request_free). */
void scope__req_unpersist(uint64_t handle);

/* Posts the table had no room for, over all threads. */
uint64_t scope__req_untracked(void);

/* Matched messages (MPI_Mprobe, MPI_Improbe): the communicator each was
 * matched on, kept per thread from the probe to the MPI_Mrecv or
 * MPI_Imrecv that receives it (a matched receive names no communicator),
 * SCOPE_REQ_MESSAGES of them at most (past that, or received on another
 * thread, a matched receive records nothing). */
#define SCOPE_REQ_MESSAGES 256u
struct scope__comm;

/* Keeps message `handle`, matched on `comm`. Returns 1, or 0 when the
 * table is full. */
int scope__msg_matched(uint64_t handle, const struct scope__comm *comm);

/* Takes message `handle` out of the table: its communicator, or NULL
 * when it is not followed. */
const struct scope__comm *scope__msg_take(uint64_t handle);

#endif
