/*
 * mpi.h - the few declarations of the MPI-5 standard ABI (ABI 1.0, as the
 * MPI Forum's mpi-abi-stubs define it) that abi5_stub.c implements and
 * abi5_app.c calls. Debian 12 has no library of that ABI: this stub is
 * how scope's table of it (preload/mpi/mpi_abi.c, standard_abi) and its
 * detection through MPI_Abi_get_version are tested. The values are the
 * ABI's; the declarations are written here, not copied.
 */
#ifndef ABI5_MPI_H
#define ABI5_MPI_H

typedef struct abi5_comm *MPI_Comm;
typedef struct abi5_datatype *MPI_Datatype;
typedef struct abi5_group *MPI_Group;
typedef struct abi5_op *MPI_Op;
typedef struct abi5_win *MPI_Win;
typedef struct abi5_info *MPI_Info;
typedef long MPI_Aint;
typedef struct {
    int MPI_SOURCE, MPI_TAG, MPI_ERROR;
    int MPI_internal[5];
} MPI_Status;

#define MPI_COMM_NULL ((MPI_Comm)0x100)
#define MPI_COMM_WORLD ((MPI_Comm)0x101)
#define MPI_SUM ((MPI_Op)0x21)
#define MPI_NO_OP ((MPI_Op)0x3d)
#define MPI_INFO_NULL ((MPI_Info)0x130)
#define MPI_DOUBLE ((MPI_Datatype)0x214)
#define MPI_BYTE ((MPI_Datatype)0x247)
#define MPI_INT32_T ((MPI_Datatype)0x256)
#define MPI_INT64_T ((MPI_Datatype)0x258)
#define MPI_STATUS_IGNORE ((MPI_Status *)0)
#define MPI_IN_PLACE ((void *)1)
#define MPI_SUCCESS 0
#define MPI_ERR_TYPE 3
#define MPI_ANY_SOURCE (-1)
#define MPI_ANY_TAG (-2)
#define MPI_PROC_NULL (-3)
#define MPI_UNDEFINED (-32766)
#define MPI_CART 211

int MPI_Init(int *argc, char ***argv);
int MPI_Finalize(void);
int MPI_Abi_get_version(int *major, int *minor);
int MPI_Comm_rank(MPI_Comm comm, int *rank);
int MPI_Comm_size(MPI_Comm comm, int *size);
int MPI_Send(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm);
int MPI_Recv(void *buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
             MPI_Status *status);
int MPI_Allreduce(const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op,
                  MPI_Comm comm);
int MPI_Win_create(void *base, MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm,
                   MPI_Win *win);
int MPI_Win_free(MPI_Win *win);
int MPI_Put(const void *obuf, int ocount, MPI_Datatype otype, int target, MPI_Aint disp,
            int tcount, MPI_Datatype ttype, MPI_Win win);
int MPI_Fetch_and_op(const void *obuf, void *rbuf, MPI_Datatype type, int target, MPI_Aint disp,
                     MPI_Op op, MPI_Win win);
int MPI_Cart_create(MPI_Comm comm, int ndims, const int *dims, const int *periods, int reorder,
                    MPI_Comm *cart);
int MPI_Neighbor_alltoall(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
                          int rcount, MPI_Datatype rtype, MPI_Comm comm);

#endif
