! mpi_app.f90 - the Fortran program of the MPI matrix (tests/mpi), `use mpi`:
! the same calls as mpi_app.c (work 7, MPI_Allreduce 5, MPI_Barrier 3,
! MPI_Comm_rank 1, MPI_Comm_size 1) through the Fortran bindings, with a
! Fortran user function `work` (compiled work_); one line from rank 0.
! With an argument "thread" it starts MPI with MPI_Init_thread.
function work(x)
  implicit none
  double precision, intent(in) :: x
  double precision :: work
  work = x * 0.5d0 + 1.0d0
end function work

program mpi_app
  use mpi
  implicit none
  integer :: ierr, rank, size, i, provided, nargs
  double precision :: y, s
  double precision, external :: work
  character(len=16) :: arg
  nargs = command_argument_count()
  arg = ''
  if (nargs > 0) call get_command_argument(1, arg)
  if (trim(arg) == 'thread') then
    call MPI_Init_thread(MPI_THREAD_FUNNELED, provided, ierr)
  else
    call MPI_Init(ierr)
  end if
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, size, ierr)
  y = dble(rank)
  do i = 1, 7
    y = work(y)
  end do
  s = 0
  do i = 1, 5
    call MPI_Allreduce(y, s, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
  end do
  do i = 1, 3
    call MPI_Barrier(MPI_COMM_WORLD, ierr)
  end do
  if (rank == 0) write (*, '(A,I0,A,F0.6)') 'size ', size, ' sum ', s
  call MPI_Finalize(ierr)
end program mpi_app
