/*
 * otf2_archive.h - what the files of `scope export --to otf2`
 * share (not installed): export_otf2.c writes the events rank by rank and
 * runs the archive, export_otf2_defs.c writes the definitions once every
 * event is out, export_otf2_omp.c adds OpenMP's regions and fork-join
 * records, otf2_archive_errors.c turns libotf2 errors into one line and
 * writes what several of them write.
 * Only with SCOPE_HAVE_OTF2.
 */
#ifndef SCOPE_OTF2_ARCHIVE_H
#define SCOPE_OTF2_ARCHIVE_H

#include <stdint.h>

#include <otf2/otf2.h>

#include "scope_reader.h"
#include "scope_reader_comm.h"

/* What an MPI region does, by its operation (the large-count _c forms as
 * the plain ones): which records its calls carry. */
enum mpi_kind {
    MK_NONE,        /* not MPI, or MPI without records (MPI_Wait, MPI_Init) */
    MK_SEND,        /* MPI_Send, Ssend, Bsend, Rsend */
    MK_RECV,        /* MPI_Recv, MPI_Mrecv */
    MK_SENDRECV,    /* MPI_Sendrecv, Sendrecv_replace */
    MK_ISEND,       /* MPI_Isend, Issend, Ibsend, Irsend */
    MK_IRECV,       /* MPI_Irecv, MPI_Imrecv */
    MK_START,       /* MPI_Start: one persistent request */
    MK_STARTALL,
    MK_COLL         /* a collective, blocking or not */
};

typedef struct {
    int kind;
    int rooted;                 /* dest/source column is the root */
    OTF2_CollectiveOp op;
    OTF2_RegionRole role;
    OTF2_Paradigm paradigm;
    int omp;                    /* an OpenMP region's class (format/scope_omp.h), 0 none */
    int io_layer;               /* an I/O call's layer (SCOPE_IO_POSIX ..), 0 none */
    int io_cls;                 /* its class (SCOPE_CC_IO_*) */
    int io_flags;               /* its OTF2_IoOperationFlag */
} region_info;

typedef struct {
    int32_t rank, lane;
    uint64_t events;
} loc_def;

typedef struct {
    char *name;
    int64_t order;              /* clock_host_index; INT64_MAX unknown */
} host_def;

typedef struct {
    scope_profile *p;
    const char *dir;
    OTF2_Archive *ar;
    OTF2_AttributeList *attrs;
    int nregions;
    region_info *ri;
    int world;                  /* world ranks the records may name */
    int has_moved;

    int nruncomms;              /* the run's communicators (the reader's
                                   scope_profile_run_comm: OTF2 comm c is
                                   run communicator c) */
    char *comm_used;            /* by run communicator: exported (an
                                   intracommunicator whose members are
                                   known), its calls get MPI records */

    host_def *hosts;
    int nhosts;
    int *rank_host;             /* by rank index */

    loc_def *locs;
    size_t nlocs, caplocs;

    /* the rank being written */
    int rank;
    scope_moved *mv;            /* by region; bytes_sent NULL: no data */
    char *mv_state;             /* 0 not loaded, 1 loaded */
    const int8_t **unw;
    char *unw_state;
    scope_requests rq;
    int64_t *by_post, *by_done; /* request rows sorted by post / by done */
    char *is_post, *is_done;    /* by region: some request names it */
    int nrows;                  /* communicator rows of the rank */
    uint32_t *row_comm;         /* row -> OTF2 comm, UNDEFINED unusable */
    int32_t *row_inv;           /* row * world + world rank -> comm rank */
    uint64_t fresh_req;         /* ids of sends no request row follows */

    /* the lane being written */
    OTF2_EvtWriter *w;
    uint64_t nev;

    int64_t done_calls, total_calls;
    uint32_t nstrings;
    struct otf2_omp *omp;       /* OpenMP teams (export_otf2_omp.c), NULL before */
    struct otf2_io *io;         /* files and handles (export_otf2_io.c), NULL before */
} otf2x;

/* Prints "scope: export: DIR: OTF2 <what> failed: <libotf2's words>"
 * and returns -1. */
int scope__otf2_fail(const otf2x *x, const char *what, OTF2_ErrorCode e);
/* 0, or -1 after saying which OTF2 call failed: every OTF2 call's code
 * goes through it, and the caller returns on -1. */
int scope__otf2_ok(const otf2x *x, const char *what, OTF2_ErrorCode e);
/* Says "out of memory" and returns -1. */
int scope__otf2_oom(void);

/* Clears the last libotf2 message and routes libotf2's errors to it (once
 * per export, before the first OTF2 call). */
void scope__otf2_errors_begin(void);
/* Location of (rank, lane), as Score-P numbers them: the lane in the
 * high half, so a rank's first lane is the rank itself. */
uint64_t scope__otf2_loc_ref(int32_t rank, int32_t lane);

/* otf2_archive_errors.c: scope__otf2_ok() for an event record of the
 * lane being written, which it counts when written; a new string
 * definition, its id in *id (0 or -1, said). */
int scope__otf2_event(otf2x *x, const char *what, OTF2_ErrorCode e);
int scope__otf2_string(otf2x *x, OTF2_GlobalDefWriter *g, const char *s, uint32_t *id);

/* export_otf2_omp.c: OpenMP's regions and fork-join records. _classify
 * fills *ri for an OpenMP region's name (1), else leaves it (0); _rank
 * learns the rank's teams from its call stack; _enter and _leave write
 * the records after a call's Enter and before its Leave (ThreadFork and
 * ThreadJoin of a parallel region, ThreadTeamBegin and ThreadTeamEnd of an
 * implicit task); _defs the paradigm, and after the MPI definitions the
 * teams' groups and communicators. Those returning int return 0 or -1
 * (said). */
int scope__otf2_omp_classify(const char *name, region_info *ri);
int scope__otf2_omp_rank(otf2x *x, const scope_call *c, int64_t n);
int scope__otf2_omp_enter(otf2x *x, const scope_call *c, uint64_t t);
int scope__otf2_omp_leave(otf2x *x, const scope_call *c, uint64_t t);
int scope__otf2_omp_paradigm(otf2x *x, OTF2_GlobalDefWriter *g);
int scope__otf2_omp_defs(otf2x *x, OTF2_GlobalDefWriter *g, uint32_t s_empty);
void scope__otf2_omp_free(otf2x *x);

/* export_otf2_io.c: the I/O calls' records. _classify fills the io_*
 * fields and the role of *ri for an I/O region (1), else leaves it (0);
 * _begin makes x->io; _rank loads the rank's file table (before its
 * lanes); _enter and _leave write a call's records after its Enter and
 * before its Leave (IoOperationBegin/Complete, IoCreateHandle,
 * IoDestroyHandle); _defs the I/O paradigms, files and handles. Those
 * returning int return 0 or -1 (said), _classify 0 or 1. */
int scope__otf2_io_classify(scope_profile *p, int r, region_info *ri);
int scope__otf2_io_begin(otf2x *x);
int scope__otf2_io_rank(otf2x *x);
int scope__otf2_io_enter(otf2x *x, const scope_call *c, uint64_t t);
int scope__otf2_io_leave(otf2x *x, const scope_call *c, uint64_t t);
int scope__otf2_io_defs(otf2x *x, OTF2_GlobalDefWriter *g);
void scope__otf2_io_free(otf2x *x);

/* export_otf2_defs.c. Each returns 0 or -1 (said). */
/* The hosts of the run and each rank's host (x->hosts, x->rank_host). */
int scope__otf2_load_hosts(otf2x *x);
/* The global definitions: clock, regions, the system tree and locations,
 * MPI groups and communicators. */
int scope__otf2_write_defs(otf2x *x);
/* Every location's (empty) local definition file. */
int scope__otf2_write_local_defs(otf2x *x);

#endif /* SCOPE_OTF2_ARCHIVE_H */
