! prog_rma.f90 - the Fortran half of check_rma.py (`use mpi`): a window of
! 64 integers on MPI_COMM_WORLD (MPI_Win_create), in fence epochs an
! MPI_Put of rank+1 integers to rank+1, an MPI_Get of 3 integers from
! rank-1 and an MPI_Accumulate (MPI_SUM) of 5 integers into rank 0. The
! Fortran bindings call the C functions: the profile must hold the same
! bytes and targets as the C program's.
program prog_rma
  use mpi
  implicit none
  integer :: rank, nranks, ierr, nxt, prv, win
  integer(kind=MPI_ADDRESS_KIND) :: wsize, disp
  integer :: wbuf(64), obuf(16), rbuf(16)

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks, ierr)
  wbuf = 0
  obuf = 0
  rbuf = 0
  nxt = mod(rank + 1, nranks)
  prv = mod(rank + nranks - 1, nranks)
  wsize = 64 * 4
  call MPI_Win_create(wbuf, wsize, 4, MPI_INFO_NULL, MPI_COMM_WORLD, win, ierr)
  call MPI_Win_fence(0, win, ierr)
  disp = 0
  call MPI_Put(obuf, rank + 1, MPI_INTEGER, nxt, disp, rank + 1, MPI_INTEGER, win, ierr)
  call MPI_Win_fence(0, win, ierr)
  disp = 8
  call MPI_Get(rbuf, 3, MPI_INTEGER, prv, disp, 3, MPI_INTEGER, win, ierr)
  call MPI_Win_fence(0, win, ierr)
  disp = 16
  call MPI_Accumulate(obuf, 5, MPI_INTEGER, 0, disp, 5, MPI_INTEGER, MPI_SUM, win, ierr)
  call MPI_Win_fence(0, win, ierr)
  call MPI_Win_free(win, ierr)
  call MPI_Finalize(ierr)
end program prog_rma
