/*
 * mpi_capture.h - what an MPI call moved, read from its own arguments:
 * bytes sent and received, the partner's world rank, the tag and the
 * communicator (docs/format.md, "What MPI calls moved").
 *
 * The MPI capture as the engine calls it (capture.h; mpi_hook.c claims the
 * MPI functions and registers it): at the entry of every call of an MPI
 * function, scope__mpi_enter decides whether the call is recorded (an MPI
 * call inside another is not; the C call a Fortran binding makes is
 * followed silently, for what it moved) and, for a function whose op
 * carries a call of the vocabulary, copies the arguments; the exit, once
 * the MPI library has accepted them (MPI_SUCCESS), turns them into one
 * data record right after the call's end record. MPI calls never nest in
 * the recording, so one capture per thread suffices.
 */
#ifndef SCOPE_MPI_CAPTURE_H
#define SCOPE_MPI_CAPTURE_H

#include <stdint.h>

#include "scope_calls.h"

/* An op, as the engine keeps it for a function the capture claimed
 * (capture.h): the vocabulary's id of a call whose arguments are read
 * (format/scope_calls.h; 0: the call is only timed), the large-count bit
 * (MPI_Send_c) and the Fortran bit (a binding, mpi_send_: its data comes
 * from the C call it makes, which is followed). */
#define SCOPE_MPI_OP_ID 0x1ffu
#define SCOPE_MPI_OP_BIG 0x200u
#define SCOPE_MPI_OP_FORTRAN 0x400u
_Static_assert(SCOPE_CALLS <= SCOPE_MPI_OP_ID + 1, "every id fits the op");

/* 0 when SCOPE_MPI_DATA=0 asks to time MPI calls without reading their
 * arguments, else 1 (a value other than 0 or 1 is said once, by rank 0,
 * and taken as 1). Read once. */
int scope__mpi_capture_enabled(void);

/* capture.h's enter, exit and drop for the MPI functions (op: above).
 * The entry copies the arguments (`saved`: the trampoline's saved
 * registers, `slot`: the return-address slot, the stack arguments above
 * it); a receive that passed MPI_STATUS_IGNORE gets the capture's own
 * status instead. Cost of a captured call's exit: the size of each
 * datatype described (a load for a predefined one, else PMPI_Type_size;
 * an MPI_Alltoallv: a walk of its count arrays), a lookup of the
 * communicator (none when it is the thread's last one), one journal
 * record; the first use of a communicator translates its group to world
 * ranks once. MPI_Isend, MPI_Irecv, MPI_Wait and MPI_Allreduce take paths
 * of their own (mpi_capture_hot.c): 200 to 300 instructions each
 * (callgrind, both MPIs; bench/README.md). */
int scope__mpi_enter(uint32_t op, uint64_t *saved, uintptr_t *slot);

/* 1 while an MPI call runs on this thread: MPI_Init & co (mpi_intercept.c)
 * or any MPI call the engine times: the I/O capture does not record what
 * the MPI library does for itself. Hot: two loads. */
int scope__mpi_busy(void);
/* An MPI call another capture times (MPI_File_write_all: preload/io) is
 * open: the MPI calls it makes are the library's, not timed, as inside
 * an MPI call of this capture. Every enter has its leave, newest first. */
void scope__mpi_foreign_enter(void);
void scope__mpi_foreign_leave(void);

/* Lends the other captures the table of ../lent.h (mpi_lent.c): from the
 * capture's constructor. */
void scope__mpi_lend(void);
void scope__mpi_exit(uint32_t op, uint64_t rc, int followed);
void scope__mpi_drop(uint32_t op, int followed);

/* 1 when this thread has no capture in progress and no data waiting for
 * an outer call's end: an MPI call made inside another may then be
 * followed. */
int scope__mpi_capture_idle(void);

/* At the end of an MPI call without a capture of its own: records the
 * data its inner call left waiting, if any. */
void scope__mpi_capture_flush(void);

/* Forgets this thread's capture and any waiting data without recording
 * (the call was closed by an unwinding, not by its return). */
void scope__mpi_capture_drop(void);

#endif
