! abort_app.f90 - the Fortran side of check_abort.py: rank 0 calls
! MPI_ABORT(MPI_COMM_WORLD, 5) after one barrier; the others wait in a
! second barrier, where the abort kills them.
program abort_app
  use mpi
  implicit none
  integer :: ierr, rank
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  if (rank == 0) then
    print '(a)', 'abort_app.f90: rank 0 aborting with 5'
    flush(6)
    call MPI_Abort(MPI_COMM_WORLD, 5, ierr)
  end if
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  call MPI_Finalize(ierr)
end program abort_app
