! mpi_calls.f90 - the Fortran twin of mpi_calls.c: the same MPI calls, the
! same number of times, through Open MPI's Fortran bindings (which call the
! PMPI_ entry points). Also a subroutine `compute` and a module procedure
! `scale` that the config names by their Fortran names (check_mpi.py).
module kernels
  implicit none
contains
  subroutine scale(x, n)
    double precision, intent(inout) :: x
    integer, intent(in) :: n
    integer :: i
    do i = 1, n
      x = x * 1.0001d0 + 0.5d0
    end do
  end subroutine scale
end module kernels

subroutine compute(x, n)
  implicit none
  double precision, intent(inout) :: x
  integer, intent(in) :: n
  integer :: i
  do i = 1, n
    x = x + dble(i) * 0.25d0
  end do
end subroutine compute

program mpi_calls
  use mpi
  use kernels
  implicit none
  integer :: ierr, rank, nprocs, i, v, nxt, prv, inval
  double precision :: x, s
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  do i = 1, 3
    call MPI_Barrier(MPI_COMM_WORLD, ierr)
  end do
  x = rank + 1
  do i = 1, 5
    call MPI_Allreduce(x, s, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
  end do
  v = 0
  if (rank == 0) v = 42
  do i = 1, 4
    call MPI_Bcast(v, 1, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
  end do
  nxt = mod(rank + 1, nprocs)
  prv = mod(rank + nprocs - 1, nprocs)
  do i = 1, 2
    if (mod(rank, 2) == 0) then
      call MPI_Send(rank, 1, MPI_INTEGER, nxt, 7, MPI_COMM_WORLD, ierr)
      call MPI_Recv(inval, 1, MPI_INTEGER, prv, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
    else
      call MPI_Recv(inval, 1, MPI_INTEGER, prv, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
      call MPI_Send(rank, 1, MPI_INTEGER, nxt, 7, MPI_COMM_WORLD, ierr)
    end if
  end do
  x = 1
  do i = 1, 6
    call compute(x, 100 + i)
  end do
  do i = 1, 3
    call scale(x, 50)
  end do
  write (*, '(A,I0,A,F0.0,A,I0,A,I0,A,F0.3)') 'rank ', rank, ' sum ', s, ' bcast ', v, &
       ' from ', inval, ' x ', x
  call MPI_Finalize(ierr)
end program mpi_calls
