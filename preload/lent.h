/*
 * lent.h - what one capture lends the others, through the lifecycle's
 * floor, so that no capture includes another (tests/layering): the MPI
 * capture (mpi/mpi_lent.c) lends the I/O capture's MPI-IO calls
 * (io/io_mpiio.c) its ABI's handles, datatype sizes and statuses, and
 * tells whether an MPI call runs on the thread (the POSIX calls the MPI
 * library makes for itself are not the program's I/O).
 *
 * The table is set by the MPI capture's constructor, before the engine
 * starts; its functions answer "not ready" until an MPI library is
 * there. Internal to preload/; nothing here is exported.
 */
#ifndef SCOPE_PRELOAD_LENT_H
#define SCOPE_PRELOAD_LENT_H

#include <stdint.h>

struct scope__mpi_lent {
    /* 1 while an MPI call runs on this thread (MPI_Init & co, a timed MPI
     * call, or an MPI call another capture times: foreign_enter). Hot:
     * two thread-local loads. */
    int (*busy)(void);
    /* An MPI call another capture times (MPI_File_write_all) is open: the
     * MPI calls made inside it are the library's, not timed, as inside an
     * MPI call of the MPI capture. Every enter has its leave, newest
     * first, on its thread. */
    void (*foreign_enter)(void);
    void (*foreign_leave)(void);
    /* 1 once the process's MPI ABI and its PMPI functions are known; the
     * functions below need it. Slow the first time (the datatype
     * shortcuts learnt), then one load. */
    int (*ready)(void);
    /* A handle passed as an argument (its register: the ABI's width), and
     * one stored at p (MPI_File *, MPI_Request *). */
    uint64_t (*handle)(uint64_t reg);
    uint64_t (*handle_at)(const void *p);
    /* count x the size of datatype `type` (count an int, or an MPI_Count
     * when `big`: the _c forms); 0 for a count not above 0. */
    int64_t (*bytes)(uint64_t count, uint64_t type, int big);
    /* The bytes a completed status says were moved: 1 and *bytes, or 0
     * when `status` is MPI_STATUS_IGNORE, NULL or opaque to the capture. */
    int (*status_bytes)(const void *status, int64_t *bytes);
    /* 1 when an MPI function's return value `ret` is not MPI_SUCCESS. */
    int (*failed)(int32_t ret);
};

/* Set by the MPI capture's constructor (lifecycle.c holds it); NULL
 * before, and in a preload built without the MPI capture. */
extern const struct scope__mpi_lent *scope__mpi_lent;

#endif /* SCOPE_PRELOAD_LENT_H */
