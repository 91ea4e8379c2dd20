/*
 * scope_calls.h - the one vocabulary of intercepted calls: what each call
 * scope knows by name is, written once (calls_mpi.def: one row per MPI
 * function) and asked by every folder. The preload reads a call's
 * arguments by the positions a row names, the converter writes each
 * region's operation into the file from it, and the reader, the wait
 * states, the matrices and the OTF2 export classify regions by it, so
 * that a new call is one row, never an edit in each of them.
 *
 * A row says what the call is (class, form, send mode, collective
 * operation) and where its arguments are (the position of each role:
 * count, datatype, peer, tag, communicator, request, root, status, ...),
 * in the manner of uftrace's argument specs: the row lists its
 * parameters in the order of the standard's C binding, each by the role
 * it plays. The collective operations are a second small table
 * (calls_coll.def): their shape in the byte model of docs/format.md,
 * their synchronisation pattern (what a wait in them means) and whether
 * they have a root.
 *
 * Designed for more than MPI: a row carries its paradigm, and the I/O
 * calls (POSIX, stdio, MPI-IO, HDF5) join as rows of their own classes
 * and argument roles; OpenMP's event kinds stand beside it.
 *
 * libc only and no allocation (the preload asks it inside the profiled
 * process); compiled once into format/calls.c.
 */
#ifndef SCOPE_CALLS_H
#define SCOPE_CALLS_H

#include <stddef.h>
#include <stdint.h>

#include "scope_format.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Which programming model a call belongs to. The I/O paradigms are also
 * the layers an I/O call is counted in (stored by name:
 * scope_paradigm_name, "posix", "stdio", "mpiio", "hdf5"). */
enum scope_paradigm {
    SCOPE_PARADIGM_NONE = 0,
    SCOPE_PARADIGM_MPI = 1,
    SCOPE_PARADIGM_POSIX = 2,   /* libc's descriptors: open, read, write, ... */
    SCOPE_PARADIGM_STDIO = 3,   /* libc's streams: fopen, fwrite, fprintf, ... */
    SCOPE_PARADIGM_MPIIO = 4,   /* MPI_File_* */
    SCOPE_PARADIGM_HDF5 = 5,    /* H5F and H5D of the program's libhdf5 */
    SCOPE_PARADIGMS
};

/* What a call does. Stored in files by name (scope_call_class_name):
 * the numbers are this build's, never on disk. */
enum scope_call_class {
    SCOPE_CC_NONE = 0,      /* not a call of the vocabulary */
    SCOPE_CC_SEND,          /* a point-to-point send (blocking, I-, _init) */
    SCOPE_CC_RECV,          /* a point-to-point receive, matched ones included */
    SCOPE_CC_SENDRECV,      /* both at once (Sendrecv, _replace, their I- forms) */
    SCOPE_CC_PROBE,         /* looks at a message without receiving it */
    SCOPE_CC_START,         /* starts persistent requests */
    SCOPE_CC_WAIT,          /* completes requests, blocking */
    SCOPE_CC_TEST,          /* completes requests if done */
    SCOPE_CC_REQUEST_FREE,  /* lets a request go */
    SCOPE_CC_COLLECTIVE,    /* every member of a communicator takes part */
    SCOPE_CC_NEIGHBOR,      /* a collective over the topology's neighbours */
    SCOPE_CC_ONE_SIDED,     /* a remote memory access (Put, Get, accumulates) */
    SCOPE_CC_WINDOW,        /* makes a window */
    SCOPE_CC_WINDOW_SYNC,   /* a window's epochs and flushes */
    SCOPE_CC_COMM_NEW,      /* makes a communicator */
    SCOPE_CC_COMM_FREE,     /* frees one */
    SCOPE_CC_FILE_IO,       /* reads, writes or manages a file (MPI-IO) */
    SCOPE_CC_LIFECYCLE,     /* Init, Finalize, Abort */
    SCOPE_CC_OTHER,         /* a call the table knows that moves nothing */
    /* the I/O calls (calls_io.def), of every I/O paradigm */
    SCOPE_CC_IO_OPEN,       /* opens a file, a stream or a dataset */
    SCOPE_CC_IO_CLOSE,      /* closes one */
    SCOPE_CC_IO_READ,       /* reads data */
    SCOPE_CC_IO_WRITE,      /* writes data */
    SCOPE_CC_IO_SEEK,       /* moves a file position */
    SCOPE_CC_IO_TELL,       /* asks for one (ftell) */
    SCOPE_CC_IO_STAT,       /* asks a file's metadata (the stat family) */
    SCOPE_CC_IO_SYNC,       /* flushes to the file or the device */
    SCOPE_CC_IO_META,       /* changes metadata: size, view, name, unlink */
    SCOPE_CC_IO_DUP,        /* copies a descriptor */
    SCOPE_CC_IO_MMAP,       /* maps a file */
    SCOPE_CC_IO_FDS,        /* closes descriptors in bulk (never recorded) */
    SCOPE_CC_CLASSES
};

/* How the call completes. */
enum scope_call_form {
    SCOPE_CF_BLOCKING = 0,
    SCOPE_CF_NONBLOCKING,   /* returns a request (MPI_Isend, MPI_Ibcast, MPI_Rput) */
    SCOPE_CF_PERSISTENT,    /* makes a persistent request (MPI_Send_init, MPI_Bcast_init) */
    SCOPE_CF_SPLIT_BEGIN,   /* begins a split collective (MPI_File_write_all_begin) */
    SCOPE_CF_SPLIT_END,     /* and ends it (MPI_File_write_all_end) */
    SCOPE_CF_FORMS
};

/* A send's mode. */
enum scope_send_mode {
    SCOPE_SM_NONE = 0,
    SCOPE_SM_STANDARD,
    SCOPE_SM_SYNC,
    SCOPE_SM_BUFFERED,
    SCOPE_SM_READY,
    SCOPE_SM_MODES
};

/* What a wait inside a collective means: who must have arrived. */
enum scope_coll_sync {
    SCOPE_SYNC_NONE = 0,    /* no pattern (neighbourhood collectives) */
    SCOPE_SYNC_BARRIER,     /* every member: MPI_Barrier */
    SCOPE_SYNC_NXN,         /* every member's data: Allreduce, Alltoall(v,w), Allgather(v), Reduce_scatter */
    SCOPE_SYNC_ONE2N,       /* the root's: Bcast, Scatter(v) */
    SCOPE_SYNC_N2ONE,       /* the root waits for the others': Gather(v), Reduce */
    SCOPE_SYNC_OTHER,       /* prefix patterns: Scan, Exscan */
    SCOPE_SYNC_PATTERNS
};

/* The collective operations (calls_coll.def), each one row shared by
 * its blocking, nonblocking and persistent forms. */
enum scope_coll_op {
    SCOPE_COLL_OP_NONE = 0,
#define SCOPE_COLL(op, name, shape, sync, rooted) SCOPE_COLL_OP_##op,
#include "calls_coll.def"
#undef SCOPE_COLL
    SCOPE_COLL_OPS
};

struct scope_coll_info {
    const char *name;       /* "Bcast": the blocking function after MPI_ */
    uint8_t shape;          /* enum scope_coll_shape (scope_format.h) */
    uint8_t sync;           /* enum scope_coll_sync */
    uint8_t rooted;         /* 1: has a root argument */
};

/* The roles an argument plays; a row names each of its parameters by one.
 * `x` is a parameter no part of scope reads (a split's colour, a lock type). */
#define SCOPE_ARG_ROLES_LIST(R) \
    R(buf) R(count) R(type) \
    R(sbuf) R(scount) R(scounts) R(sdispls) R(stype) R(stypes) \
    R(rbuf) R(rcount) R(rcounts) R(rdispls) R(rtype) R(rtypes) \
    R(dest) R(source) R(tag) R(stag) R(rtag) \
    R(comm) R(newcomm) R(root) R(op) R(info) \
    R(request) R(nreq) R(requests) R(status) R(statuses) R(flag) \
    R(index) R(indices) R(outcount) R(message) \
    R(target) R(tdisp) R(tcount) R(ttype) R(cbuf) \
    R(win) R(newwin) R(base) R(size) R(disp_unit) R(baseptr) \
    R(fd) R(newfd) R(dirfd) R(path) R(newpath) R(flags) R(mode) R(cmd) \
    R(nbytes) R(offset) R(whence) R(iov) R(iovcnt) R(statbuf) \
    R(stream) R(nmemb) R(str) R(fmt) R(fh) \
    R(loc) R(name) R(mspace) R(fspace) R(plist) \
    R(x)

enum scope_arg_role {
#define SCOPE__ROLE(r) SCOPE_ARG_##r,
    SCOPE_ARG_ROLES_LIST(SCOPE__ROLE)
#undef SCOPE__ROLE
    SCOPE_ARG_ROLES     /* x is the last role: each `x` of a row has a slot of
                           its own past it (argp1's tail), so that the
                           compiler still refuses a real role named twice */
};

#define SCOPE_CALL_MAX_ARGS 16

/* What an I/O row is beyond its class (struct scope_call_row.io). */
#define SCOPE_IOF_COLL 1u       /* collective over the file's communicator (MPI-IO) */
#define SCOPE_IOF_AT 2u         /* names its offset (pwrite, MPI_File_write_at, mmap) */
#define SCOPE_IOF_SHARED 4u     /* the shared file pointer (MPI-IO) */
#define SCOPE_IOF_ORDERED 8u    /* in rank order (MPI-IO) */
#define SCOPE_IOF_VEC 16u       /* an array of buffers (readv, pwritev) */
#define SCOPE_IOF_STDOUT 32u    /* on stdout, which no argument names (printf, puts) */
#define SCOPE_IOF_NOFOLLOW 64u  /* a symbolic link itself (lstat) */
#define SCOPE_IOF_DATASET 128u  /* on an HDF5 dataset, not a file (H5D*) */

/* How the bytes an I/O call moved are known (struct scope_call_row.bytes). */
enum scope_io_bytes {
    SCOPE_IOB_NONE = 0,         /* moves no data */
    SCOPE_IOB_RET,              /* what it returned (read, write, fprintf) */
    SCOPE_IOB_RET_NMEMB,        /* items returned x the size argument (fread, fwrite) */
    SCOPE_IOB_CHAR,             /* one character, unless it returned EOF (fgetc, putc) */
    SCOPE_IOB_STRLEN,           /* the string argument's length on success (fputs) */
    SCOPE_IOB_STRLEN_NL,        /* the same and the newline (puts) */
    SCOPE_IOB_STRLEN_RET,       /* the returned string's length (fgets) */
    SCOPE_IOB_SCANNED,          /* how far the stream's position moved (fscanf) */
    SCOPE_IOB_LEN,              /* the length argument on success (mmap) */
    SCOPE_IOB_COUNT_TYPE,       /* count x the datatype's size; a read's from its status (MPI-IO) */
    SCOPE_IOB_SELECTION,        /* the selection's points x the memory type's size (H5Dread) */
    SCOPE_IOB_RULES
};

/* One row of the vocabulary. (Not `struct scope_call`: that is the
 * reader's record of one recorded call, scope_reader.h, and the tools
 * include both.) */
struct scope_call_row {
    const char *name;       /* the C name as the standard spells it: "MPI_Isend" */
    uint8_t paradigm;       /* enum scope_paradigm */
    uint8_t cls;            /* enum scope_call_class */
    uint8_t form;           /* enum scope_call_form */
    uint8_t mode;           /* enum scope_send_mode (sends) */
    uint8_t coll;           /* enum scope_coll_op (collectives, neighbourhood ones) */
    uint8_t nargs;          /* parameters of the C binding */
    uint8_t io;             /* I/O rows: SCOPE_IOF_* flags */
    uint8_t bytes;          /* I/O rows: enum scope_io_bytes */
    /* position + 1 of each role's parameter (0: the call has none);
     * scope_call_arg() gives the position */
    uint8_t argp1[SCOPE_ARG_ROLES + SCOPE_CALL_MAX_ARGS];
};

/* The rows' ids: SCOPE_CALL_MPI_Send, ...; 0 is no call. */
enum scope_call_id {
    SCOPE_CALL_NONE = 0,
#define SCOPE_MPI_CALL(name, cls, form, mode, coll, ...) SCOPE_CALL_MPI_##name,
#include "calls_mpi.def"
#undef SCOPE_MPI_CALL
    /* the I/O rows: SCOPE_CALL_write, SCOPE_CALL_fwrite,
     * SCOPE_CALL_MPI_File_write_at_all, SCOPE_CALL_H5Dwrite, ... */
#define SCOPE_IO_CALL(paradigm, name, cls, form, io, bytes, ...) SCOPE_CALL_##name,
#include "calls_io.def"
#undef SCOPE_IO_CALL
    SCOPE_CALLS
};

/* The table, indexed by enum scope_call_id (row 0: no call, every field
 * zero). */
extern const struct scope_call_row scope_calls[SCOPE_CALLS];
extern const struct scope_coll_info scope_coll_ops[SCOPE_COLL_OPS];

/* The row of id `id`, or row 0 (no call) when out of range. Cost: none. */
static inline const struct scope_call_row *scope_call_at(int id)
{
    return &scope_calls[id > 0 && id < SCOPE_CALLS ? id : 0];
}

/* The 0-based position of `role`'s parameter in call `c`, or -1 when the
 * call has none. Cost: one load. */
static inline int scope_call_arg(const struct scope_call_row *c, enum scope_arg_role role)
{
    return (int)c->argp1[role] - 1;
}

/* The collective operation of `c` (row 0 of scope_coll_ops when it has
 * none). Cost: none. */
static inline const struct scope_coll_info *scope_call_coll(const struct scope_call_row *c)
{
    return &scope_coll_ops[c->coll < SCOPE_COLL_OPS ? c->coll : 0];
}

/* What a symbol's name says of the call it is (scope_call_parse). */
struct scope_call_name {
    int id;                 /* enum scope_call_id, 0: not a call of the table */
    uint8_t big;            /* the large-count form (MPI_Send_c) */
    uint8_t fortran;        /* a Fortran binding's spelling (mpi_send_, MPI_SEND, mpi_send_f08) */
    uint8_t profiling;      /* the PMPI_ name */
    uint8_t mpix;           /* an MPIX_ name (a library's extension: Open MPI 4.1's
                               persistent collectives) */
};

/* Reads a symbol or region name: MPI_Send, PMPI_Send, MPIX_Bcast_init,
 * MPI_Send_c, and the Fortran spellings (mpi_send_, mpi_send__,
 * pmpi_send_, MPI_SEND, mpi_send_f08, mpi_send_f08ts_, mpi_send_c_), the
 * MPI-IO calls alike (MPI_File_write_at_all_c, mpi_file_write_at_all_);
 * an I/O row of another paradigm by its exact name (write, fwrite,
 * __isoc99_fscanf, H5Dwrite). Fills
 * *out and returns its id (0 when the name is no row's: out->id 0, the
 * flags what the spelling says). A C name must have the standard's case
 * (MPI_Send, not MPI_send); a Fortran name is all lower or all upper
 * case. Cost: a hash lookup (the tables are built at the first call,
 * thread-safely); pure. */
int scope_call_parse(const char *symbol, struct scope_call_name *out);

/* The id of `symbol` (scope_call_parse without the flags), 0 if none. */
int scope_call_id_of(const char *symbol);

/* Room for any operation name scope_call_operation() writes, its NUL
 * included. */
#define SCOPE_CALL_OPERATION_MAX 64

/* The operation a call is, as files store it (docs/format.md, a region's
 * `operation` attribute): row `id`'s C name, with `_c` for the large-count
 * form (big): "MPI_Isend", "MPI_Send_c". Writes it into out (len bytes;
 * SCOPE_CALL_OPERATION_MAX always do) and returns its length; 0 and ""
 * for row 0 or a name that does not fit. scope_call_parse() reads it back.
 * Pure. */
size_t scope_call_operation(int id, int big, char *out, size_t len);

/* 1 when `symbol` has a C name of the MPI standard: MPI_, PMPI_, MPIX_ or
 * PMPIX_ followed by a capital (MPI_Send, PMPIX_Bcast_init, MPI_Foo: in
 * the table or not), else 0. The prefixes are the library's by the
 * standard. Pure. */
int scope_call_is_mpi_c_name(const char *symbol);

/* 1 when `symbol` is spelt as an MPI Fortran binding (mpi_send_,
 * pmpi_send__, MPI_SEND, mpi_send_f08), in the table or not. Pure. */
int scope_call_is_mpi_fortran(const char *symbol);

/* The stored names of the enums ("send", "nonblocking", "sync",
 * "one_to_all", "barrier"); NULL out of range. Cost: none. */
const char *scope_call_class_name(int cls);
const char *scope_call_form_name(int form);
const char *scope_send_mode_name(int mode);
const char *scope_coll_sync_name(int sync);
/* "mpi", "posix", "stdio", "mpiio", "hdf5" ("none" for 0); NULL out of
 * range. */
const char *scope_paradigm_name(int paradigm);
/* The paradigm of a stored name, or SCOPE_PARADIGM_NONE. */
int scope_paradigm_of(const char *name);
/* 1 for an I/O paradigm (POSIX, stdio, MPI-IO, HDF5). Pure. */
static inline int scope_paradigm_is_io(int paradigm)
{
    return paradigm >= SCOPE_PARADIGM_POSIX && paradigm <= SCOPE_PARADIGM_HDF5;
}
/* 1 for an I/O class (SCOPE_CC_IO_*). Pure. */
static inline int scope_call_class_is_io(int cls)
{
    return cls >= SCOPE_CC_IO_OPEN && cls <= SCOPE_CC_IO_FDS;
}
/* The class of a stored name, or SCOPE_CC_NONE. */
int scope_call_class_of(const char *name);

#ifdef __cplusplus
}
#endif
#endif
