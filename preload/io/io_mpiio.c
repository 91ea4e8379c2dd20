/*
 * io_mpiio.c - the MPI-IO calls of the I/O capture (format/calls_io.def,
 * paradigm MPIIO): the file of each call (MPI_File_open's name, whose
 * handle then names it: a small table of open handles), its bytes by the
 * byte model of the communication calls (count x the datatype's size; a
 * read's from its status when it has one), and an explicit offset as the
 * program gave it, in etypes of the view.
 *
 * Handles, datatypes and statuses are the MPI capture's business (its ABI
 * tables, its datatype sizes), lent through ../lent.h: one preload for
 * every ABI.
 * An MPI-IO call is an MPI call to the MPI capture too (the MPI calls
 * ROMIO or OMPIO make inside it are the library's), while the POSIX calls
 * inside it are recorded, issued by MPI-IO.
 *
 * A Fortran binding (mpi_file_write_, MPI_FILE_WRITE, the f08 module's)
 * is timed under its C name; its arguments are Fortran's, so what it did
 * is read from the C call it makes, which is followed, not timed
 * (SCOPE_CAPTURE_FOLLOW), and hands its data to the binding's frame.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "capture.h"
#include "io_files.h"
#include "io_handles.h"
#include "io_state.h"
#include "lent.h"

/* Open MPI-IO handles and their files' rows. */
#define HANDLES_BITS 10
static struct scope__io_handle_slot handles[1u << HANDLES_BITS];

/* The MPI capture's table, once an MPI library is known; else NULL. */
static const struct scope__mpi_lent *mpi(void)
{
    const struct scope__mpi_lent *m = scope__mpi_lent;
    return m && m->ready() ? m : NULL;
}

static int32_t handle_row(uint64_t h)
{
    return scope__io_handle_row(handles, HANDLES_BITS, h);
}

static void handle_set(uint64_t h, int32_t row)
{
    scope__io_handle_set(handles, HANDLES_BITS, h, row);
}

/* A closed handle keeps its slot (probes go on), its row -1: MPI reuses
 * handles, and the next open of one sets it again. */
static void handle_gone(uint64_t h)
{
    scope__io_handle_set(handles, HANDLES_BITS, h, -1);
}

/* A file name as MPI_File_open takes it: ROMIO's "ufs:", "nfs:",
 * "lustre:" ... prefix names the driver, not the file. */
static const char *file_name(const char *s)
{
    const char *c = s ? strchr(s, ':') : NULL;
    if (!c || c - s > 16)
        return s;
    for (const char *p = s; p < c; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9')))
            return s;
    return c + 1;
}

int scope__io_mpiio_enter(uint32_t op, uint64_t *saved, uintptr_t *slot)
{
    struct scope__io_tls *t = &scope__io_tls;
    int call = (int)(op & SCOPE_IO_OP_ROW);
    unsigned flags = SCOPE_IO_F_MPI;
    if (t->open[SCOPE_PARADIGM_MPIIO]) {
        /* only the C call a Fortran binding makes, for its arguments */
        struct scope__io_frame *top = &t->f[t->depth - 1];
        if (!(top->flags & SCOPE_IO_F_FORTRAN) || top->layer != SCOPE_PARADIGM_MPIIO ||
            (top->flags & SCOPE_IO_F_HAS_DATA) || (op & SCOPE_IO_OP_FORTRAN))
            return SCOPE_CAPTURE_SKIP;
        flags |= SCOPE_IO_F_FOLLOWED;
    }
    const struct scope_call_row *c = &scope_calls[call];
    struct scope__io_frame *f = scope__io_next();
    f->row = -1;
    f->fd = -1;
    f->offset = SCOPE_IO_POS_UNKNOWN;
    f->n = 0;
    f->a = f->b = 0;
    f->aux = (op & SCOPE_IO_OP_BIG) != 0;
    if (op & SCOPE_IO_OP_FORTRAN) {
        flags |= SCOPE_IO_F_FORTRAN;    /* its C call says the rest */
    } else {
        const struct scope__mpi_lent *m = mpi();
        uint64_t fh = scope__io_role(call, SCOPE_ARG_fh, saved, slot, 0);
        const char *path = (const char *)(uintptr_t)scope__io_role(call, SCOPE_ARG_path, saved,
                                                                   slot, 0);
        if (path && scope__io_path_excluded(file_name(path)))
            return SCOPE_CAPTURE_SKIP;
        if (c->cls == SCOPE_CC_IO_OPEN) {
            f->a = (uint64_t)(uintptr_t)path;
            f->b = fh;      /* MPI_File *: the handle is there at exit */
        } else if (c->cls == SCOPE_CC_IO_CLOSE) {
            f->b = m ? m->handle_at((const void *)(uintptr_t)fh) : 0;
            f->row = handle_row(f->b);
        } else if (path) {
            f->row = scope__io_path_row(file_name(path), NULL, 0, SCOPE_PARADIGM_MPIIO);
        } else if (m) {
            f->b = m->handle(fh);
            f->row = handle_row(f->b);
        }
        if (m && c->bytes == SCOPE_IOB_COUNT_TYPE) {
            f->n = m->bytes(scope__io_role(call, SCOPE_ARG_count, saved, slot, 0),
                            scope__io_role(call, SCOPE_ARG_type, saved, slot, 0), f->aux);
            /* a read's bytes from its status, when it has one */
            f->a = c->cls == SCOPE_CC_IO_READ
                       ? scope__io_role(call, SCOPE_ARG_status, saved, slot, 0) : 0;
        }
        if ((c->io & SCOPE_IOF_AT) && scope_call_arg(c, SCOPE_ARG_offset) >= 0)
            f->offset = (int64_t)scope__io_role(call, SCOPE_ARG_offset, saved, slot, 0);
    }
    if (scope__mpi_lent)
        scope__mpi_lent->foreign_enter();
    scope__io_push(call, SCOPE_PARADIGM_MPIIO, flags);
    return (flags & SCOPE_IO_F_FOLLOWED) ? SCOPE_CAPTURE_FOLLOW : SCOPE_CAPTURE_RECORD;
}

void scope__io_mpiio_exit(uint64_t ret)
{
    struct scope__io_frame *f = scope__io_top();
    const struct scope_call_row *c = &scope_calls[f->call];
    scope__io_pop();
    if (scope__mpi_lent)
        scope__mpi_lent->foreign_leave();
    int issuer = scope__io_issuer();
    if (f->flags & SCOPE_IO_F_FORTRAN) {
        /* the binding: what its C call said, or nothing known */
        if (f->flags & SCOPE_IO_F_HAS_DATA)
            scope__io_put(f, f->data.file, f->data.bytes, f->data.offset, issuer, f->data.failed);
        else
            scope__io_put(f, -1, 0, SCOPE_IO_POS_UNKNOWN, issuer, (int32_t)ret != 0);
        return;
    }
    const struct scope__mpi_lent *m = mpi();
    int failed = m ? m->failed((int32_t)ret) : (int32_t)ret != 0;
    int64_t bytes = 0;
    int32_t row = f->row;
    if (c->cls == SCOPE_CC_IO_OPEN && !failed && m && f->b) {
        uint64_t h = m->handle_at((const void *)(uintptr_t)f->b);
        row = scope__io_path_row(file_name((const char *)(uintptr_t)f->a), NULL, 0,
                                 SCOPE_PARADIGM_MPIIO);
        handle_set(h, row);
    } else if (c->cls == SCOPE_CC_IO_CLOSE && !failed) {
        handle_gone(f->b);
    } else if (c->bytes == SCOPE_IOB_COUNT_TYPE && !failed) {
        bytes = f->n;
        int64_t st;
        if (f->a && m && m->status_bytes((const void *)(uintptr_t)f->a, &st))
            bytes = st;
    }
    scope__io_put(f, row, bytes, f->offset, issuer, failed);
}
