/*
 * test_calls.c - the vocabulary of intercepted calls (format/scope_calls.h,
 * calls_mpi.def): the rows say what the MPI standard's C bindings say
 * (positions written out here by hand from the standard, for the roles
 * the byte model and the readers read), every collective operation has
 * its three forms, names and classes are unique, and the one parser reads
 * every spelling a symbol or a region can have (C, PMPI, MPIX, large
 * count, the Fortran bindings of gfortran, MPICH and the f08 module) and
 * refuses what is no binding.
 */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "scope_calls.h"

static const struct scope_call_row *row(const char *name)
{
    int id = scope_call_id_of(name);
    if (!id)
        fprintf(stderr, "no row for %s\n", name);
    CHECK(id > 0);
    return scope_call_at(id);
}

/* The position of each role, and the parameter count, by hand. */
static void positions(void)
{
    const struct scope_call_row *c = row("MPI_Send");
    CHECK_I64(c->nargs, 6);
    CHECK_I64(scope_call_arg(c, SCOPE_ARG_count), 1);
    CHECK_I64(scope_call_arg(c, SCOPE_ARG_type), 2);
    CHECK_I64(scope_call_arg(c, SCOPE_ARG_dest), 3);
    CHECK_I64(scope_call_arg(c, SCOPE_ARG_tag), 4);
    CHECK_I64(scope_call_arg(c, SCOPE_ARG_comm), 5);
    CHECK_I64(scope_call_arg(c, SCOPE_ARG_request), -1);
    CHECK_I64(scope_call_arg(c, SCOPE_ARG_status), -1);
    CHECK_I64(c->cls, SCOPE_CC_SEND);
    CHECK_I64(c->form, SCOPE_CF_BLOCKING);
    CHECK_I64(c->mode, SCOPE_SM_STANDARD);

    c = row("MPI_Issend");
    CHECK_I64(c->nargs, 7);
    CHECK_I64(scope_call_arg(c, SCOPE_ARG_request), 6);
    CHECK_I64(c->mode, SCOPE_SM_SYNC);
    CHECK_I64(c->form, SCOPE_CF_NONBLOCKING);

    c = row("MPI_Recv");
    CHECK_I64(scope_call_arg(c, SCOPE_ARG_source), 3);
    CHECK_I64(scope_call_arg(c, SCOPE_ARG_status), 6);

    c = row("MPI_Sendrecv");
    CHECK_I64(c->nargs, 12);
    CHECK_I64(scope_call_arg(c, SCOPE_ARG_scount), 1);
    CHECK_I64(scope_call_arg(c, SCOPE_ARG_stype), 2);
    CHECK_I64(scope_call_arg(c, SCOPE_ARG_dest), 3);
    CHECK_I64(scope_call_arg(c, SCOPE_ARG_stag), 4);
    CHECK_I64(scope_call_arg(c, SCOPE_ARG_rcount), 6);
    CHECK_I64(scope_call_arg(c, SCOPE_ARG_source), 8);
    CHECK_I64(scope_call_arg(c, SCOPE_ARG_rtag), 9);
    CHECK_I64(scope_call_arg(c, SCOPE_ARG_comm), 10);
    CHECK_I64(scope_call_arg(c, SCOPE_ARG_status), 11);

    c = row("MPI_Sendrecv_replace");
    CHECK_I64(c->nargs, 9);
    CHECK_I64(scope_call_arg(c, SCOPE_ARG_comm), 7);
    CHECK_I64(scope_call_arg(c, SCOPE_ARG_status), 8);

    c = row("MPI_Isendrecv");
    CHECK_I64(c->nargs, 12);
    CHECK_I64(c->cls, SCOPE_CC_SENDRECV);
    CHECK_I64(c->form, SCOPE_CF_NONBLOCKING);
    CHECK_I64(scope_call_arg(c, SCOPE_ARG_request), 11);
    CHECK_I64(scope_call_arg(c, SCOPE_ARG_status), -1);

    c = row("MPI_Mprobe");
    CHECK_I64(c->cls, SCOPE_CC_PROBE);
    CHECK_I64(scope_call_arg(c, SCOPE_ARG_comm), 2);
    CHECK_I64(scope_call_arg(c, SCOPE_ARG_message), 3);
    CHECK_I64(scope_call_arg(c, SCOPE_ARG_status), 4);
    c = row("MPI_Mrecv");
    CHECK_I64(c->cls, SCOPE_CC_RECV);
    CHECK_I64(scope_call_arg(c, SCOPE_ARG_message), 3);
    CHECK_I64(scope_call_arg(c, SCOPE_ARG_status), 4);
    CHECK_I64(scope_call_arg(c, SCOPE_ARG_comm), -1);
    c = row("MPI_Imrecv");
    CHECK_I64(c->form, SCOPE_CF_NONBLOCKING);
    CHECK_I64(scope_call_arg(c, SCOPE_ARG_request), 4);

    c = row("MPI_Waitsome");
    CHECK_I64(scope_call_arg(c, SCOPE_ARG_nreq), 0);
    CHECK_I64(scope_call_arg(c, SCOPE_ARG_requests), 1);
    CHECK_I64(scope_call_arg(c, SCOPE_ARG_outcount), 2);
    CHECK_I64(scope_call_arg(c, SCOPE_ARG_indices), 3);
    CHECK_I64(scope_call_arg(c, SCOPE_ARG_statuses), 4);
    c = row("MPI_Testany");
    CHECK_I64(scope_call_arg(c, SCOPE_ARG_index), 2);
    CHECK_I64(scope_call_arg(c, SCOPE_ARG_flag), 3);
    CHECK_I64(scope_call_arg(c, SCOPE_ARG_status), 4);

    c = row("MPI_Gatherv");
    CHECK_I64(c->nargs, 9);
    CHECK_I64(scope_call_arg(c, SCOPE_ARG_rcounts), 4);
    CHECK_I64(scope_call_arg(c, SCOPE_ARG_root), 7);
    CHECK_I64(scope_call_arg(c, SCOPE_ARG_comm), 8);
    c = row("MPI_Scatterv");
    CHECK_I64(scope_call_arg(c, SCOPE_ARG_scounts), 1);
    CHECK_I64(scope_call_arg(c, SCOPE_ARG_stype), 3);
    CHECK_I64(scope_call_arg(c, SCOPE_ARG_rcount), 5);
    CHECK_I64(scope_call_arg(c, SCOPE_ARG_root), 7);
    c = row("MPI_Reduce");
    CHECK_I64(scope_call_arg(c, SCOPE_ARG_count), 2);
    CHECK_I64(scope_call_arg(c, SCOPE_ARG_op), 4);
    CHECK_I64(scope_call_arg(c, SCOPE_ARG_root), 5);
    CHECK_I64(scope_call_arg(c, SCOPE_ARG_comm), 6);
    c = row("MPI_Alltoallw");
    CHECK_I64(scope_call_arg(c, SCOPE_ARG_stypes), 3);
    CHECK_I64(scope_call_arg(c, SCOPE_ARG_rtypes), 7);
    c = row("MPI_Ialltoallw");
    CHECK_I64(c->nargs, 10);
    CHECK_I64(scope_call_arg(c, SCOPE_ARG_request), 9);
    c = row("MPI_Reduce_scatter_block_init");
    CHECK_I64(c->nargs, 8);
    CHECK_I64(scope_call_arg(c, SCOPE_ARG_info), 6);
    CHECK_I64(scope_call_arg(c, SCOPE_ARG_request), 7);

    /* one-sided: the origin's buffer is what it sends (buf) or, for a
     * get, where the result arrives (rbuf): the byte model reads the
     * direction from the roles */
    c = row("MPI_Put");
    CHECK_I64(scope_call_arg(c, SCOPE_ARG_buf), 0);
    CHECK_I64(scope_call_arg(c, SCOPE_ARG_count), 1);
    CHECK_I64(scope_call_arg(c, SCOPE_ARG_type), 2);
    CHECK_I64(scope_call_arg(c, SCOPE_ARG_rbuf), -1);
    CHECK_I64(scope_call_arg(c, SCOPE_ARG_target), 3);
    CHECK_I64(scope_call_arg(c, SCOPE_ARG_win), 7);
    c = row("MPI_Get");
    CHECK_I64(scope_call_arg(c, SCOPE_ARG_rbuf), 0);
    CHECK_I64(scope_call_arg(c, SCOPE_ARG_rcount), 1);
    CHECK_I64(scope_call_arg(c, SCOPE_ARG_rtype), 2);
    CHECK_I64(scope_call_arg(c, SCOPE_ARG_buf), -1);
    CHECK_I64(scope_call_arg(c, SCOPE_ARG_count), -1);
    CHECK_I64(scope_call_arg(c, SCOPE_ARG_type), -1);
    CHECK_I64(scope_call_arg(c, SCOPE_ARG_target), 3);
    CHECK_I64(scope_call_arg(c, SCOPE_ARG_win), 7);
    c = row("MPI_Rget");
    CHECK_I64(scope_call_arg(c, SCOPE_ARG_rcount), 1);
    CHECK_I64(scope_call_arg(c, SCOPE_ARG_request), 8);
    c = row("MPI_Get_accumulate");
    CHECK_I64(c->nargs, 12);
    CHECK_I64(scope_call_arg(c, SCOPE_ARG_rcount), 4);
    CHECK_I64(scope_call_arg(c, SCOPE_ARG_target), 6);
    CHECK_I64(scope_call_arg(c, SCOPE_ARG_op), 10);
    CHECK_I64(scope_call_arg(c, SCOPE_ARG_win), 11);
    c = row("MPI_Compare_and_swap");
    CHECK_I64(scope_call_arg(c, SCOPE_ARG_type), 3);
    CHECK_I64(scope_call_arg(c, SCOPE_ARG_target), 4);
    c = row("MPI_Win_allocate_shared");
    CHECK_I64(scope_call_arg(c, SCOPE_ARG_comm), 3);
    CHECK_I64(scope_call_arg(c, SCOPE_ARG_newwin), 5);

    c = row("MPI_Dist_graph_create_adjacent");
    CHECK_I64(c->nargs, 10);
    CHECK_I64(scope_call_arg(c, SCOPE_ARG_newcomm), 9);
    c = row("MPI_Comm_create_from_group");
    CHECK_I64(scope_call_arg(c, SCOPE_ARG_newcomm), 4);
    CHECK_I64(scope_call_arg(c, SCOPE_ARG_comm), -1);
    c = row("MPI_Intercomm_create_from_groups");
    CHECK_I64(c->nargs, 8);
    CHECK_I64(scope_call_arg(c, SCOPE_ARG_newcomm), 7);

    c = row("MPI_Finalize");
    CHECK_I64(c->nargs, 0);
    CHECK_I64(c->cls, SCOPE_CC_LIFECYCLE);
}

/* Every collective operation: a blocking row, an MPI_I row (+ request)
 * and an _init row (+ info, request), of the same operation; the
 * operation's facts. */
static void collectives(void)
{
    for (int op = 1; op < SCOPE_COLL_OPS; op++) {
        const struct scope_coll_info *ci = &scope_coll_ops[op];
        char name[80];
        snprintf(name, sizeof name, "MPI_%s", ci->name);
        const struct scope_call_row *b = row(name);
        snprintf(name, sizeof name, "MPI_I%c%s", ci->name[0] + ('a' - 'A'), ci->name + 1);
        const struct scope_call_row *nb = row(name);
        snprintf(name, sizeof name, "MPI_%s_init", ci->name);
        const struct scope_call_row *pi = row(name);
        CHECK_I64(b->coll, op);
        CHECK_I64(nb->coll, op);
        CHECK_I64(pi->coll, op);
        CHECK_I64(b->form, SCOPE_CF_BLOCKING);
        CHECK_I64(nb->form, SCOPE_CF_NONBLOCKING);
        CHECK_I64(pi->form, SCOPE_CF_PERSISTENT);
        CHECK_I64(nb->nargs, b->nargs + 1);
        CHECK_I64(pi->nargs, b->nargs + 2);
        CHECK_I64(scope_call_arg(nb, SCOPE_ARG_request), b->nargs);
        CHECK_I64(scope_call_arg(pi, SCOPE_ARG_request), b->nargs + 1);
        CHECK_I64(scope_call_arg(b, SCOPE_ARG_comm), b->nargs - 1);
        CHECK_I64(scope_call_arg(b, SCOPE_ARG_root) >= 0, ci->rooted);
        int nbr = strncmp(ci->name, "Neighbor_", 9) == 0;
        CHECK_I64(b->cls, nbr ? SCOPE_CC_NEIGHBOR : SCOPE_CC_COLLECTIVE);
        CHECK(!nbr || (ci->shape == SCOPE_COLL_NO_PAIRS && ci->sync == SCOPE_SYNC_NONE));
    }
    CHECK_I64(scope_call_coll(row("MPI_Ibcast"))->shape, SCOPE_COLL_ONE_TO_ALL);
    CHECK_I64(scope_call_coll(row("MPI_Igatherv"))->sync, SCOPE_SYNC_N2ONE);
    CHECK_I64(scope_call_coll(row("MPI_Barrier"))->sync, SCOPE_SYNC_BARRIER);
    CHECK_I64(scope_call_coll(row("MPI_Exscan_init"))->sync, SCOPE_SYNC_OTHER);
    CHECK_I64(scope_call_coll(row("MPI_Send"))->shape, SCOPE_COLL_NONE);
}

/* The I/O rows (calls_io.def): positions by hand from the C prototypes
 * (glibc's, the MPI standard's, HDF5's), classes, flags, byte rules. */
static void io_positions(void)
{
    const struct scope_call_row *c = row("pwrite64");
    CHECK_I64(c->paradigm, SCOPE_PARADIGM_POSIX);
    CHECK_I64(c->cls, SCOPE_CC_IO_WRITE);
    CHECK_I64(c->nargs, 4);
    CHECK_I64(scope_call_arg(c, SCOPE_ARG_fd), 0);
    CHECK_I64(scope_call_arg(c, SCOPE_ARG_buf), 1);
    CHECK_I64(scope_call_arg(c, SCOPE_ARG_nbytes), 2);
    CHECK_I64(scope_call_arg(c, SCOPE_ARG_offset), 3);
    CHECK_I64(c->io, SCOPE_IOF_AT);
    CHECK_I64(c->bytes, SCOPE_IOB_RET);
    c = row("read");
    CHECK_I64(c->cls, SCOPE_CC_IO_READ);
    CHECK_I64(scope_call_arg(c, SCOPE_ARG_offset), -1);
    c = row("pwritev2");
    CHECK_I64(scope_call_arg(c, SCOPE_ARG_iov), 1);
    CHECK_I64(scope_call_arg(c, SCOPE_ARG_iovcnt), 2);
    CHECK_I64(scope_call_arg(c, SCOPE_ARG_offset), 3);
    CHECK_I64(scope_call_arg(c, SCOPE_ARG_flags), 4);
    CHECK_I64(c->io, SCOPE_IOF_VEC | SCOPE_IOF_AT);
    c = row("openat");
    CHECK_I64(c->cls, SCOPE_CC_IO_OPEN);
    CHECK_I64(scope_call_arg(c, SCOPE_ARG_dirfd), 0);
    CHECK_I64(scope_call_arg(c, SCOPE_ARG_path), 1);
    CHECK_I64(scope_call_arg(c, SCOPE_ARG_flags), 2);
    c = row("mmap");
    CHECK_I64(c->cls, SCOPE_CC_IO_MMAP);
    CHECK_I64(scope_call_arg(c, SCOPE_ARG_nbytes), 1);
    CHECK_I64(scope_call_arg(c, SCOPE_ARG_flags), 3);
    CHECK_I64(scope_call_arg(c, SCOPE_ARG_fd), 4);
    CHECK_I64(scope_call_arg(c, SCOPE_ARG_offset), 5);
    CHECK_I64(c->bytes, SCOPE_IOB_LEN);
    c = row("fstatat64");
    CHECK_I64(c->cls, SCOPE_CC_IO_STAT);
    CHECK_I64(scope_call_arg(c, SCOPE_ARG_statbuf), 2);
    CHECK_I64(scope_call_arg(c, SCOPE_ARG_flags), 3);
    c = row("__fxstat");
    CHECK_I64(scope_call_arg(c, SCOPE_ARG_fd), 1);
    CHECK_I64(scope_call_arg(c, SCOPE_ARG_statbuf), 2);
    c = row("statx");
    CHECK_I64(scope_call_arg(c, SCOPE_ARG_flags), 2);
    CHECK_I64(scope_call_arg(c, SCOPE_ARG_statbuf), 4);
    c = row("lstat");
    CHECK_I64(c->io, SCOPE_IOF_NOFOLLOW);
    c = row("dup2");
    CHECK_I64(c->cls, SCOPE_CC_IO_DUP);
    CHECK_I64(scope_call_arg(c, SCOPE_ARG_newfd), 1);
    c = row("fcntl");
    CHECK_I64(scope_call_arg(c, SCOPE_ARG_cmd), 1);
    CHECK_I64(row("close_range")->cls, SCOPE_CC_IO_FDS);
    CHECK_I64(row("renameat2")->nargs, 5);
    CHECK_I64(scope_call_arg(row("renameat2"), SCOPE_ARG_newpath), 3);

    c = row("fread");
    CHECK_I64(c->paradigm, SCOPE_PARADIGM_STDIO);
    CHECK_I64(scope_call_arg(c, SCOPE_ARG_buf), 0);
    CHECK_I64(scope_call_arg(c, SCOPE_ARG_size), 1);
    CHECK_I64(scope_call_arg(c, SCOPE_ARG_nmemb), 2);
    CHECK_I64(scope_call_arg(c, SCOPE_ARG_stream), 3);
    CHECK_I64(c->bytes, SCOPE_IOB_RET_NMEMB);
    c = row("__fread_chk");
    CHECK_I64(scope_call_arg(c, SCOPE_ARG_size), 2);
    CHECK_I64(scope_call_arg(c, SCOPE_ARG_stream), 4);
    c = row("fgets");
    CHECK_I64(scope_call_arg(c, SCOPE_ARG_stream), 2);
    CHECK_I64(c->bytes, SCOPE_IOB_STRLEN_RET);
    c = row("fputs");
    CHECK_I64(scope_call_arg(c, SCOPE_ARG_str), 0);
    CHECK_I64(scope_call_arg(c, SCOPE_ARG_stream), 1);
    c = row("__fprintf_chk");
    CHECK_I64(scope_call_arg(c, SCOPE_ARG_stream), 0);
    CHECK_I64(scope_call_arg(c, SCOPE_ARG_fmt), 2);
    c = row("printf");
    CHECK_I64(c->io, SCOPE_IOF_STDOUT);
    CHECK_I64(scope_call_arg(c, SCOPE_ARG_stream), -1);
    CHECK_I64(row("puts")->bytes, SCOPE_IOB_STRLEN_NL);
    CHECK_I64(row("__isoc99_fscanf")->bytes, SCOPE_IOB_SCANNED);
    CHECK_I64(row("ftello64")->cls, SCOPE_CC_IO_TELL);
    CHECK_I64(scope_call_arg(row("fseeko"), SCOPE_ARG_whence), 2);

    c = row("MPI_File_write_at_all");
    CHECK_I64(c->paradigm, SCOPE_PARADIGM_MPIIO);
    CHECK_I64(c->cls, SCOPE_CC_IO_WRITE);
    CHECK_I64(c->form, SCOPE_CF_BLOCKING);
    CHECK_I64(c->io, SCOPE_IOF_COLL | SCOPE_IOF_AT);
    CHECK_I64(c->nargs, 6);
    CHECK_I64(scope_call_arg(c, SCOPE_ARG_fh), 0);
    CHECK_I64(scope_call_arg(c, SCOPE_ARG_offset), 1);
    CHECK_I64(scope_call_arg(c, SCOPE_ARG_buf), 2);
    CHECK_I64(scope_call_arg(c, SCOPE_ARG_count), 3);
    CHECK_I64(scope_call_arg(c, SCOPE_ARG_type), 4);
    CHECK_I64(scope_call_arg(c, SCOPE_ARG_status), 5);
    CHECK_I64(c->bytes, SCOPE_IOB_COUNT_TYPE);
    c = row("MPI_File_iread_at_all");
    CHECK_I64(c->form, SCOPE_CF_NONBLOCKING);
    CHECK_I64(c->cls, SCOPE_CC_IO_READ);
    CHECK_I64(scope_call_arg(c, SCOPE_ARG_request), 5);
    CHECK_I64(scope_call_arg(c, SCOPE_ARG_status), -1);
    c = row("MPI_File_write_all_begin");
    CHECK_I64(c->form, SCOPE_CF_SPLIT_BEGIN);
    CHECK_I64(c->nargs, 4);
    c = row("MPI_File_write_all_end");
    CHECK_I64(c->form, SCOPE_CF_SPLIT_END);
    CHECK_I64(c->bytes, SCOPE_IOB_NONE);
    CHECK_I64(scope_call_arg(c, SCOPE_ARG_status), 2);
    c = row("MPI_File_open");
    CHECK_I64(c->cls, SCOPE_CC_IO_OPEN);
    CHECK_I64(scope_call_arg(c, SCOPE_ARG_comm), 0);
    CHECK_I64(scope_call_arg(c, SCOPE_ARG_path), 1);
    CHECK_I64(scope_call_arg(c, SCOPE_ARG_flags), 2);
    CHECK_I64(scope_call_arg(c, SCOPE_ARG_info), 3);
    CHECK_I64(scope_call_arg(c, SCOPE_ARG_fh), 4);
    c = row("MPI_File_set_view");
    CHECK_I64(scope_call_arg(c, SCOPE_ARG_offset), 1);
    CHECK_I64(scope_call_arg(c, SCOPE_ARG_type), 3);
    CHECK_I64(row("MPI_File_write_ordered")->io,
              SCOPE_IOF_COLL | SCOPE_IOF_SHARED | SCOPE_IOF_ORDERED);

    c = row("H5Dwrite");
    CHECK_I64(c->paradigm, SCOPE_PARADIGM_HDF5);
    CHECK_I64(scope_call_arg(c, SCOPE_ARG_loc), 0);
    CHECK_I64(scope_call_arg(c, SCOPE_ARG_type), 1);
    CHECK_I64(scope_call_arg(c, SCOPE_ARG_mspace), 2);
    CHECK_I64(scope_call_arg(c, SCOPE_ARG_fspace), 3);
    CHECK_I64(scope_call_arg(c, SCOPE_ARG_plist), 4);
    CHECK_I64(scope_call_arg(c, SCOPE_ARG_buf), 5);
    CHECK_I64(c->bytes, SCOPE_IOB_SELECTION);
    CHECK_I64(c->io, SCOPE_IOF_DATASET);
    c = row("H5Dcreate2");
    CHECK_I64(c->nargs, 7);
    CHECK_I64(scope_call_arg(c, SCOPE_ARG_name), 1);
    c = row("H5Fcreate");
    CHECK_I64(scope_call_arg(c, SCOPE_ARG_path), 0);
    CHECK_I64(scope_call_arg(c, SCOPE_ARG_plist), 3);
    CHECK_I64(row("H5Fopen")->nargs, 3);
}

/* Names unique, classes named, rows within their enums. */
static void rows(void)
{
    CHECK(SCOPE_CALLS > 150);
    CHECK_I64(scope_calls[0].cls, SCOPE_CC_NONE);
    CHECK(scope_calls[0].name == NULL);
    int n_io = 0;
    for (int i = 1; i < SCOPE_CALLS; i++) {
        const struct scope_call_row *c = &scope_calls[i];
        CHECK(c->cls > SCOPE_CC_NONE && c->cls < SCOPE_CC_CLASSES);
        CHECK_I64(scope_call_id_of(c->name), i);
        if (c->paradigm != SCOPE_PARADIGM_MPI) {
            /* an I/O row: an I/O class and paradigm, and none of MPI's columns */
            n_io++;
            CHECK(scope_paradigm_is_io(c->paradigm));
            CHECK(scope_call_class_is_io(c->cls));
            CHECK_I64(strncmp(c->name, "MPI_File_", 9) == 0, c->paradigm == SCOPE_PARADIGM_MPIIO);
            CHECK_I64(strncmp(c->name, "H5", 2) == 0, c->paradigm == SCOPE_PARADIGM_HDF5);
            CHECK(c->form < SCOPE_CF_FORMS && c->bytes < SCOPE_IOB_RULES);
            CHECK_I64(c->form == SCOPE_CF_SPLIT_BEGIN || c->form == SCOPE_CF_SPLIT_END ||
                          c->form == SCOPE_CF_NONBLOCKING,
                      c->paradigm == SCOPE_PARADIGM_MPIIO && c->form != SCOPE_CF_BLOCKING);
            CHECK_I64(c->mode, SCOPE_SM_NONE);
            CHECK_I64(c->coll, SCOPE_COLL_OP_NONE);
            CHECK(c->nargs <= SCOPE_CALL_MAX_ARGS);
            /* data calls say how their bytes are known; the others move none */
            CHECK_I64(c->bytes != SCOPE_IOB_NONE,
                      (c->cls == SCOPE_CC_IO_READ || c->cls == SCOPE_CC_IO_WRITE ||
                       c->cls == SCOPE_CC_IO_MMAP) && c->form != SCOPE_CF_SPLIT_END);
            /* the object each call acts on is named by one of its arguments */
            CHECK(scope_call_arg(c, SCOPE_ARG_fd) >= 0 || scope_call_arg(c, SCOPE_ARG_path) >= 0 ||
                  scope_call_arg(c, SCOPE_ARG_stream) >= 0 || scope_call_arg(c, SCOPE_ARG_fh) >= 0 ||
                  scope_call_arg(c, SCOPE_ARG_loc) >= 0 || (c->io & SCOPE_IOF_STDOUT));
            for (int j = 1; j < i; j++)
                CHECK(strcmp(c->name, scope_calls[j].name) != 0);
            for (int r = 0; r < SCOPE_ARG_x; r++)
                CHECK(scope_call_arg(c, (enum scope_arg_role)r) < (int)c->nargs);
            continue;
        }
        CHECK(c->name && strncmp(c->name, "MPI_", 4) == 0);
        CHECK(!scope_call_class_is_io(c->cls));
        CHECK_I64(c->io, 0);
        CHECK_I64(c->bytes, SCOPE_IOB_NONE);
        CHECK(c->form < SCOPE_CF_FORMS && c->mode < SCOPE_SM_MODES && c->coll < SCOPE_COLL_OPS);
        CHECK(c->nargs <= SCOPE_CALL_MAX_ARGS);
        CHECK_I64(scope_call_id_of(c->name), i);
        for (int j = 1; j < i; j++)
            CHECK(strcmp(c->name, scope_calls[j].name) != 0);
        /* each role's position inside the parameters */
        for (int r = 0; r < SCOPE_ARG_x; r++)
            CHECK(scope_call_arg(c, (enum scope_arg_role)r) < (int)c->nargs);
        CHECK_I64(c->mode != SCOPE_SM_NONE, c->cls == SCOPE_CC_SEND || c->cls == SCOPE_CC_SENDRECV);
        CHECK_I64(c->coll != SCOPE_COLL_OP_NONE,
                  c->cls == SCOPE_CC_COLLECTIVE || c->cls == SCOPE_CC_NEIGHBOR);
    }
    CHECK(n_io > 150);
    for (int k = 0; k < SCOPE_CC_CLASSES; k++) {
        CHECK(scope_call_class_name(k) != NULL);
        for (int j = 0; j < k; j++)
            CHECK(strcmp(scope_call_class_name(k), scope_call_class_name(j)) != 0);
        CHECK_I64(scope_call_class_of(scope_call_class_name(k)), k);
    }
    CHECK(scope_call_class_name(SCOPE_CC_CLASSES) == NULL);
    CHECK(scope_call_class_name(-1) == NULL);
    CHECK_I64(scope_call_class_of("no such class"), SCOPE_CC_NONE);
    CHECK(strcmp(scope_call_form_name(SCOPE_CF_PERSISTENT), "persistent") == 0);
    CHECK(strcmp(scope_send_mode_name(SCOPE_SM_READY), "ready") == 0);
    CHECK(strcmp(scope_coll_sync_name(SCOPE_SYNC_ONE2N), "one2n") == 0);
    CHECK(strcmp(scope_call_form_name(SCOPE_CF_SPLIT_END), "split_end") == 0);
    CHECK(scope_call_form_name(SCOPE_CF_FORMS) == NULL);
    /* the layers' stored names (the csv of `scope io`, docs/format.md) */
    const char *layers[] = { "posix", "stdio", "mpiio", "hdf5" };
    for (int k = 0; k < 4; k++) {
        CHECK(strcmp(scope_paradigm_name(SCOPE_PARADIGM_POSIX + k), layers[k]) == 0);
        CHECK_I64(scope_paradigm_of(layers[k]), SCOPE_PARADIGM_POSIX + k);
        CHECK(scope_paradigm_is_io(SCOPE_PARADIGM_POSIX + k));
    }
    CHECK(strcmp(scope_paradigm_name(SCOPE_PARADIGM_MPI), "mpi") == 0);
    CHECK(!scope_paradigm_is_io(SCOPE_PARADIGM_MPI));
    CHECK(scope_paradigm_name(SCOPE_PARADIGMS) == NULL);
    CHECK_I64(scope_paradigm_of("lustre"), SCOPE_PARADIGM_NONE);
}

static void parse_one(const char *sym, const char *want, int big, int fortran, int profiling,
                      int mpix)
{
    struct scope_call_name n;
    int id = scope_call_parse(sym, &n);
    if (!want) {
        if (id)
            fprintf(stderr, "%s parsed as %s\n", sym, scope_call_at(id)->name);
        CHECK_I64(id, 0);
        CHECK_I64(n.id, 0);
        return;
    }
    if (!id || strcmp(scope_call_at(id)->name, want) != 0)
        fprintf(stderr, "%s: want %s, got %s\n", sym, want, id ? scope_call_at(id)->name : "none");
    CHECK(id && strcmp(scope_call_at(id)->name, want) == 0);
    CHECK_I64(n.id, id);
    CHECK_I64(n.big, big);
    CHECK_I64(n.fortran, fortran);
    CHECK_I64(n.profiling, profiling);
    CHECK_I64(n.mpix, mpix);
}

static void parser(void)
{
    parse_one("MPI_Send", "MPI_Send", 0, 0, 0, 0);
    parse_one("PMPI_Send", "MPI_Send", 0, 0, 1, 0);
    parse_one("MPI_Send_c", "MPI_Send", 1, 0, 0, 0);
    parse_one("PMPI_Allreduce_c", "MPI_Allreduce", 1, 0, 1, 0);
    parse_one("MPI_Send_init", "MPI_Send_init", 0, 0, 0, 0);
    parse_one("MPI_Send_init_c", "MPI_Send_init", 1, 0, 0, 0);
    parse_one("MPIX_Bcast_init", "MPI_Bcast_init", 0, 0, 0, 1);
    parse_one("PMPIX_Allreduce_init", "MPI_Allreduce_init", 0, 0, 1, 1);
    parse_one("MPI_Iallreduce", "MPI_Iallreduce", 0, 0, 0, 0);
    parse_one("MPI_Ibarrier", "MPI_Ibarrier", 0, 0, 0, 0);
    parse_one("MPI_Isendrecv_replace", "MPI_Isendrecv_replace", 0, 0, 0, 0);
    parse_one("MPI_Improbe", "MPI_Improbe", 0, 0, 0, 0);
    /* the Fortran bindings: gfortran, g77's double underscore, MPICH's
     * upper case, the f08 module's names */
    parse_one("mpi_send_", "MPI_Send", 0, 1, 0, 0);
    parse_one("mpi_send__", "MPI_Send", 0, 1, 0, 0);
    parse_one("pmpi_send_", "MPI_Send", 0, 1, 1, 0);
    parse_one("mpi_send", "MPI_Send", 0, 1, 0, 0);
    parse_one("MPI_SEND", "MPI_Send", 0, 1, 0, 0);
    parse_one("PMPI_SEND", "MPI_Send", 0, 1, 1, 0);
    parse_one("MPI_SENDRECV_REPLACE", "MPI_Sendrecv_replace", 0, 1, 0, 0);
    parse_one("mpi_send_f08", "MPI_Send", 0, 1, 0, 0);
    parse_one("mpi_send_f08ts_", "MPI_Send", 0, 1, 0, 0);
    parse_one("mpi_allreduce_init_", "MPI_Allreduce_init", 0, 1, 0, 0);
    parse_one("mpix_bcast_init_", "MPI_Bcast_init", 0, 1, 0, 1);
    parse_one("mpi_send_c_", "MPI_Send", 1, 1, 0, 0);
    /* not a binding, or not in the table */
    parse_one("MPI_send", NULL, 0, 0, 0, 0);
    parse_one("MPI_SeNd", NULL, 0, 0, 0, 0);
    parse_one("mpi_Send_", NULL, 0, 0, 0, 0);
    parse_one("Pmpi_send_", NULL, 0, 0, 0, 0);
    parse_one("pMPI_Send", NULL, 0, 0, 0, 0);
    parse_one("MPI_Comm_rank", NULL, 0, 0, 0, 0);
    parse_one("MPI_", NULL, 0, 0, 0, 0);
    parse_one("MPI", NULL, 0, 0, 0, 0);
    parse_one("send", NULL, 0, 0, 0, 0);
    parse_one("MPI_Init..MPI_Finalize", NULL, 0, 0, 0, 0);
    parse_one("MPI_Send_cc", NULL, 0, 0, 0, 0);
    parse_one("MPI_Sendx", NULL, 0, 0, 0, 0);
    parse_one("", NULL, 0, 0, 0, 0);
    parse_one(NULL, NULL, 0, 0, 0, 0);
    /* MPI-IO: the MPI spellings; the other I/O layers: exact names */
    parse_one("MPI_File_write_at_all", "MPI_File_write_at_all", 0, 0, 0, 0);
    parse_one("PMPI_File_open", "MPI_File_open", 0, 0, 1, 0);
    parse_one("MPI_File_write_at_all_c", "MPI_File_write_at_all", 1, 0, 0, 0);
    parse_one("mpi_file_write_at_all_", "MPI_File_write_at_all", 0, 1, 0, 0);
    parse_one("MPI_FILE_IREAD_AT_ALL", "MPI_File_iread_at_all", 0, 1, 0, 0);
    parse_one("mpi_file_write_all_begin_f08", "MPI_File_write_all_begin", 0, 1, 0, 0);
    parse_one("write", "write", 0, 0, 0, 0);
    parse_one("pwrite64", "pwrite64", 0, 0, 0, 0);
    parse_one("__open_2", "__open_2", 0, 0, 0, 0);
    parse_one("__isoc99_fscanf", "__isoc99_fscanf", 0, 0, 0, 0);
    parse_one("fwrite", "fwrite", 0, 0, 0, 0);
    parse_one("H5Dwrite", "H5Dwrite", 0, 0, 0, 0);
    parse_one("Write", NULL, 0, 0, 0, 0);
    parse_one("writex", NULL, 0, 0, 0, 0);
    parse_one("H5Dwrite2", NULL, 0, 0, 0, 0);
    parse_one("MPI_write", NULL, 0, 0, 0, 0);
    parse_one("mpi_write_", NULL, 0, 0, 0, 0);

    CHECK(scope_call_is_mpi_c_name("MPI_Send"));
    CHECK(scope_call_is_mpi_c_name("PMPIX_Bcast_init"));
    CHECK(scope_call_is_mpi_c_name("MPI_Comm_rank"));
    CHECK(!scope_call_is_mpi_c_name("MPI_send"));
    CHECK(!scope_call_is_mpi_c_name("mpi_send_"));
    CHECK(!scope_call_is_mpi_c_name("MPIR_Send"));
    CHECK(scope_call_is_mpi_fortran("mpi_send_"));
    CHECK(scope_call_is_mpi_fortran("MPI_SEND"));
    CHECK(scope_call_is_mpi_fortran("pmpix_bcast_init_"));
    CHECK(!scope_call_is_mpi_fortran("MPI_Send"));
    CHECK(!scope_call_is_mpi_fortran("solve"));
}

/* The operation names files store, and the parser reading them back:
 * every row and its large-count form. */
static void operations(void)
{
    char op[SCOPE_CALL_OPERATION_MAX];
    CHECK_I64(scope_call_operation(scope_call_id_of("MPI_Isend"), 0, op, sizeof op), 9);
    CHECK(strcmp(op, "MPI_Isend") == 0);
    CHECK_I64(scope_call_operation(scope_call_id_of("mpi_send_c_"), 1, op, sizeof op), 10);
    CHECK(strcmp(op, "MPI_Send_c") == 0);
    CHECK_I64(scope_call_operation(scope_call_id_of("PMPIX_Bcast_init"), 0, op, sizeof op), 14);
    CHECK(strcmp(op, "MPI_Bcast_init") == 0);
    CHECK_I64(scope_call_operation(0, 0, op, sizeof op), 0);
    CHECK(op[0] == 0);
    CHECK_I64(scope_call_operation(SCOPE_CALLS, 0, op, sizeof op), 0);
    CHECK_I64(scope_call_operation(scope_call_id_of("MPI_Send"), 1, op, 10), 0);
    CHECK(op[0] == 0);
    for (int id = 1; id < SCOPE_CALLS; id++)
        for (int big = 0; big < 2; big++) {
            struct scope_call_name n;
            /* a large-count form is MPI's (and MPI-IO's): write_c is no call */
            int par = scope_calls[id].paradigm;
            if (big && par != SCOPE_PARADIGM_MPI && par != SCOPE_PARADIGM_MPIIO)
                continue;
            CHECK(scope_call_operation(id, big, op, sizeof op) > 0);
            CHECK_I64(scope_call_parse(op, &n), id);
            CHECK_I64(n.big, big);
            CHECK(!n.fortran && !n.profiling && !n.mpix);
        }
}

int main(void)
{
    positions();
    io_positions();
    collectives();
    rows();
    parser();
    operations();
    return check_result("test_calls");
}
