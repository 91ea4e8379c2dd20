/*
 * abi5_stub.c - a one-process MPI library of the MPI-5 standard ABI
 * (libmpi_abi.so), enough for the preload and abi5_app.c: it answers
 * MPI_Abi_get_version with 1.0, has one rank, and moves messages a rank
 * sends to itself (one message in flight), a window whose one-sided calls
 * move nothing, and a Cartesian communicator whose lower neighbour is
 * MPI_PROC_NULL and upper one the rank itself. Every MPI_X is a weak alias
 * of PMPI_X, as in real libraries, so that patching one patches both.
 */
#include <stdint.h>
#include <string.h>

#include "mpi.h"

#define EXPORT __attribute__((visibility("default")))
#define ALIAS(name) __attribute__((weak, alias("P" #name))) EXPORT

static int type_size(MPI_Datatype t)
{
    switch ((uintptr_t)t) {
    case 0x247: return 1;
    case 0x256: return 4;
    case 0x214: case 0x258: return 8;
    default: return -1;
    }
}

static unsigned char box[4096];
static int box_bytes = -1, box_tag;

EXPORT int PMPI_Init(int *argc, char ***argv) { (void)argc; (void)argv; return 0; }
EXPORT int PMPI_Init_thread(int *argc, char ***argv, int req, int *prov)
{
    (void)argc; (void)argv;
    *prov = req;
    return 0;
}
EXPORT int PMPI_Finalize(void) { return 0; }
EXPORT int PMPI_Abort(MPI_Comm c, int code) { (void)c; (void)code; return 0; }
EXPORT int PMPI_Abi_get_version(int *major, int *minor) { *major = 1; *minor = 0; return 0; }
EXPORT int PMPI_Get_library_version(char *v, int *len)
{
    strcpy(v, "abi5 stub");
    *len = 9;
    return 0;
}
EXPORT int PMPI_Comm_rank(MPI_Comm c, int *r) { (void)c; *r = 0; return 0; }
EXPORT int PMPI_Comm_size(MPI_Comm c, int *n) { (void)c; *n = 1; return 0; }
EXPORT int PMPI_Comm_remote_size(MPI_Comm c, int *n) { (void)c; *n = 0; return 0; }
EXPORT int PMPI_Comm_test_inter(MPI_Comm c, int *f) { (void)c; *f = 0; return 0; }
EXPORT int PMPI_Comm_group(MPI_Comm c, MPI_Group *g) { (void)c; *g = (MPI_Group)0x108; return 0; }
EXPORT int PMPI_Comm_remote_group(MPI_Comm c, MPI_Group *g) { return PMPI_Comm_group(c, g); }
EXPORT int PMPI_Group_free(MPI_Group *g) { *g = (MPI_Group)0x104; return 0; }
EXPORT int PMPI_Group_translate_ranks(MPI_Group a, int n, const int *r, MPI_Group b, int *out)
{
    (void)a; (void)b;
    for (int i = 0; i < n; i++)
        out[i] = r[i];
    return 0;
}
EXPORT int PMPI_Comm_get_name(MPI_Comm c, char *name, int *len)
{
    strcpy(name, c == MPI_COMM_WORLD ? "MPI_COMM_WORLD" : "");
    *len = (int)strlen(name);
    return 0;
}
EXPORT int PMPI_Type_size(MPI_Datatype t, int *s)
{
    *s = type_size(t);
    return *s < 0 ? MPI_ERR_TYPE : 0;
}
EXPORT int PMPI_Get_count(const MPI_Status *st, MPI_Datatype t, int *n)
{
    int s = type_size(t);
    *n = s > 0 ? st->MPI_internal[0] / s : MPI_UNDEFINED;
    return 0;
}
EXPORT int PMPI_Test_cancelled(const MPI_Status *st, int *f) { (void)st; *f = 0; return 0; }
EXPORT int PMPI_Send(const void *buf, int count, MPI_Datatype t, int dest, int tag, MPI_Comm c)
{
    (void)c;
    int s = type_size(t);
    if (s < 0)
        return MPI_ERR_TYPE;
    if (dest == MPI_PROC_NULL)
        return 0;
    box_bytes = count * s < (int)sizeof box ? count * s : (int)sizeof box;
    memcpy(box, buf, (size_t)box_bytes);
    box_tag = tag;
    return 0;
}
EXPORT int PMPI_Recv(void *buf, int count, MPI_Datatype t, int src, int tag, MPI_Comm c,
                     MPI_Status *st)
{
    (void)count; (void)t; (void)src; (void)tag; (void)c;
    int n = box_bytes < 0 ? 0 : box_bytes;
    memcpy(buf, box, (size_t)n);
    if (st) {
        st->MPI_SOURCE = 0;
        st->MPI_TAG = box_tag;
        st->MPI_ERROR = 0;
        st->MPI_internal[0] = n;
    }
    box_bytes = -1;
    return 0;
}
EXPORT int PMPI_Allreduce(const void *s, void *r, int n, MPI_Datatype t, MPI_Op op, MPI_Comm c)
{
    (void)op; (void)c;
    if (s != MPI_IN_PLACE)
        memcpy(r, s, (size_t)(n * type_size(t)));
    return 0;
}

/* windows: one at a time, handle 0x1001; its attribute's delete callback
 * runs at MPI_Win_free, as MPI's would */
typedef int (*win_delete_fn)(MPI_Win, int, void *, void *);
static win_delete_fn win_delete;
static void *win_attr;
EXPORT int PMPI_Win_create_keyval(void *copy, win_delete_fn del, int *keyval, void *extra)
{
    (void)copy; (void)extra;
    win_delete = del;
    *keyval = 7;
    return 0;
}
EXPORT int PMPI_Win_set_attr(MPI_Win w, int keyval, void *v)
{
    (void)w; (void)keyval;
    win_attr = v;
    return 0;
}
EXPORT int PMPI_Win_create(void *base, MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm,
                           MPI_Win *win)
{
    (void)base; (void)size; (void)disp_unit; (void)info; (void)comm;
    *win = (MPI_Win)0x1001;
    return 0;
}
EXPORT int PMPI_Win_free(MPI_Win *win)
{
    if (win_delete && win_attr)
        win_delete(*win, 7, win_attr, NULL);
    win_attr = NULL;
    *win = (MPI_Win)0x110;      /* MPI_WIN_NULL */
    return 0;
}
EXPORT int PMPI_Put(const void *obuf, int ocount, MPI_Datatype otype, int target, MPI_Aint disp,
                    int tcount, MPI_Datatype ttype, MPI_Win win)
{
    (void)obuf; (void)ocount; (void)target; (void)disp; (void)tcount; (void)ttype; (void)win;
    return type_size(otype) < 0 ? MPI_ERR_TYPE : 0;
}
EXPORT int PMPI_Fetch_and_op(const void *obuf, void *rbuf, MPI_Datatype type, int target,
                             MPI_Aint disp, MPI_Op op, MPI_Win win)
{
    (void)obuf; (void)rbuf; (void)target; (void)disp; (void)op; (void)win;
    return type_size(type) < 0 ? MPI_ERR_TYPE : 0;
}

/* a Cartesian communicator, handle 0x1002 */
EXPORT int PMPI_Cart_create(MPI_Comm comm, int ndims, const int *dims, const int *periods,
                            int reorder, MPI_Comm *cart)
{
    (void)comm; (void)ndims; (void)dims; (void)periods; (void)reorder;
    *cart = (MPI_Comm)0x1002;
    return 0;
}
EXPORT int PMPI_Topo_test(MPI_Comm c, int *status)
{
    *status = c == (MPI_Comm)0x1002 ? MPI_CART : MPI_UNDEFINED;
    return 0;
}
EXPORT int PMPI_Cartdim_get(MPI_Comm c, int *nd) { (void)c; *nd = 1; return 0; }
EXPORT int PMPI_Cart_shift(MPI_Comm c, int dim, int disp, int *src, int *dst)
{
    (void)c; (void)dim; (void)disp;
    *src = MPI_PROC_NULL;
    *dst = 0;
    return 0;
}
EXPORT int PMPI_Neighbor_alltoall(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
                                  int rcount, MPI_Datatype rtype, MPI_Comm comm)
{
    (void)comm;
    int s = type_size(stype);
    if (s < 0 || type_size(rtype) < 0)
        return MPI_ERR_TYPE;
    memcpy((char *)rbuf + (size_t)(rcount * type_size(rtype)), sbuf, (size_t)(scount * s));
    return 0;
}

int MPI_Init(int *argc, char ***argv) ALIAS(MPI_Init);
int MPI_Init_thread(int *argc, char ***argv, int req, int *prov) ALIAS(MPI_Init_thread);
int MPI_Finalize(void) ALIAS(MPI_Finalize);
int MPI_Abort(MPI_Comm c, int code) ALIAS(MPI_Abort);
int MPI_Abi_get_version(int *major, int *minor) ALIAS(MPI_Abi_get_version);
int MPI_Comm_rank(MPI_Comm c, int *r) ALIAS(MPI_Comm_rank);
int MPI_Comm_size(MPI_Comm c, int *n) ALIAS(MPI_Comm_size);
int MPI_Type_size(MPI_Datatype t, int *s) ALIAS(MPI_Type_size);
int MPI_Send(const void *buf, int count, MPI_Datatype t, int dest, int tag, MPI_Comm c)
    ALIAS(MPI_Send);
int MPI_Recv(void *buf, int count, MPI_Datatype t, int src, int tag, MPI_Comm c, MPI_Status *st)
    ALIAS(MPI_Recv);
int MPI_Allreduce(const void *s, void *r, int n, MPI_Datatype t, MPI_Op op, MPI_Comm c)
    ALIAS(MPI_Allreduce);
int MPI_Win_create(void *base, MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm,
                   MPI_Win *win) ALIAS(MPI_Win_create);
int MPI_Win_free(MPI_Win *win) ALIAS(MPI_Win_free);
int MPI_Put(const void *obuf, int ocount, MPI_Datatype otype, int target, MPI_Aint disp,
            int tcount, MPI_Datatype ttype, MPI_Win win) ALIAS(MPI_Put);
int MPI_Fetch_and_op(const void *obuf, void *rbuf, MPI_Datatype type, int target, MPI_Aint disp,
                     MPI_Op op, MPI_Win win) ALIAS(MPI_Fetch_and_op);
int MPI_Cart_create(MPI_Comm comm, int ndims, const int *dims, const int *periods, int reorder,
                    MPI_Comm *cart) ALIAS(MPI_Cart_create);
int MPI_Neighbor_alltoall(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
                          int rcount, MPI_Datatype rtype, MPI_Comm comm)
    ALIAS(MPI_Neighbor_alltoall);
