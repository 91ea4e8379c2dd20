! mpi_fortran.f90 - an MPI program in Fortran with `use mpi`: Open MPI's
! Fortran bindings call PMPI_Init/PMPI_Finalize, not MPI_Init, so this is
! what checks that the preload intercepts the PMPI_ names. Prints
! "rank <r> size <s> pid <p> main_ns 0" (Fortran has no portable
! CLOCK_MONOTONIC; 0 tells the test to skip that check).
program mpi_fortran
  use mpi
  implicit none
  integer :: ierr, rank, nprocs
  integer :: getpid
  call MPI_Init(ierr)
  if (ierr /= MPI_SUCCESS) stop 1
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  write (*, '(A,I0,A,I0,A,I0,A)') 'rank ', rank, ' size ', nprocs, ' pid ', getpid(), ' main_ns 0'
  flush (6)
  call MPI_Finalize(ierr)
end program mpi_fortran
