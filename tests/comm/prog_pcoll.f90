! prog_pcoll.f90 - the Fortran half of check_pcoll.py (`use mpi`, built
! with -cpp): a persistent broadcast of 5 doubles from rank 2 and a
! persistent allreduce of 3 integers, each started 10 times with MPI_Start
! and MPI_Wait, then both once with MPI_Startall and MPI_Waitall, then
! freed: prog_pcoll.c's traffic. MPICH 4.0 names them MPI_Bcast_init
! and MPI_Allreduce_init; Open MPI 4.1 (built with -DMPIX) has them as
! MPIX_Bcast_init and MPIX_Allreduce_init, which `use mpi` does not
! declare: they are called as external procedures (its mpif.h binding,
! MPIX_BCAST_INIT). Each rank prints "rank R: ok" or what was wrong.
#ifdef MPIX
#define BCAST_INIT MPIX_Bcast_init
#define ALLREDUCE_INIT MPIX_Allreduce_init
#else
#define BCAST_INIT MPI_Bcast_init
#define ALLREDUCE_INIT MPI_Allreduce_init
#endif
program prog_pcoll
  use mpi
  implicit none
  integer :: rank, n, ierr, k, bad
  integer :: req(2)
  double precision :: bc(5)
  integer :: in(3), sum(3)

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, n, ierr)
  bad = 0
  call BCAST_INIT(bc, 5, MPI_DOUBLE_PRECISION, 2, MPI_COMM_WORLD, MPI_INFO_NULL, req(1), ierr)
  call ALLREDUCE_INIT(in, sum, 3, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, req(2), ierr)
  do k = 0, 9
    call fill(k)
    call MPI_Start(req(1), ierr)
    call MPI_Wait(req(1), MPI_STATUS_IGNORE, ierr)
    call MPI_Start(req(2), ierr)
    call MPI_Wait(req(2), MPI_STATUS_IGNORE, ierr)
    call check(k)
  end do
  call fill(10)
  call MPI_Startall(2, req, ierr)
  call MPI_Waitall(2, req, MPI_STATUSES_IGNORE, ierr)
  call check(10)
  call MPI_Request_free(req(1), ierr)
  call MPI_Request_free(req(2), ierr)
  if (bad == 0) then
    print '(a,i0,a)', 'rank ', rank, ': ok'
  else
    print '(a,i0,a,i0,a)', 'rank ', rank, ': ', bad, ' wrong values'
  end if
  call MPI_Finalize(ierr)

contains

  ! the root's broadcast values and each rank's contribution for round k
  subroutine fill(k)
    integer, intent(in) :: k
    integer :: i
    do i = 1, 5
      bc(i) = -1
      if (rank == 2) bc(i) = 100 * k + i
    end do
    do i = 1, 3
      in(i) = (rank + 1) * (k + i)
      sum(i) = -1
    end do
  end subroutine fill

  subroutine check(k)
    integer, intent(in) :: k
    integer :: i
    do i = 1, 5
      if (bc(i) /= 100 * k + i) bad = bad + 1
    end do
    do i = 1, 3
      if (sum(i) /= n * (n + 1) / 2 * (k + i)) bad = bad + 1
    end do
  end subroutine check
end program prog_pcoll
