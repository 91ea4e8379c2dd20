! prog_pcoll.f90 - the Fortran half of check_pcoll.py (`use mpi`, built
! with -cpp): prog_pcoll.c's traffic. Four persistent collectives on
! MPI_COMM_WORLD: a broadcast of 5 doubles from rank 2, an allreduce of 3
! integers, a reduce of 2 integers to rank 1 and a scatterv from rank 3 of
! rank + 1 integers to each rank; each started 10 times with MPI_Start and
! MPI_Wait, then all four once with MPI_Startall and MPI_Waitall, then
! the reduce alone with MPI_Startall and MPI_Wait, then freed. MPICH 4.0
! names them MPI_Bcast_init & co; Open MPI 4.1 (built with -DMPIX) has
! them as MPIX_Bcast_init & co, which `use mpi` does not declare: they are
! called as external procedures (its mpif.h binding, MPIX_BCAST_INIT).
! Each rank prints "rank R: ok" or what was wrong.
#ifdef MPIX
#define BCAST_INIT MPIX_Bcast_init
#define ALLREDUCE_INIT MPIX_Allreduce_init
#define REDUCE_INIT MPIX_Reduce_init
#define SCATTERV_INIT MPIX_Scatterv_init
#else
#define BCAST_INIT MPI_Bcast_init
#define ALLREDUCE_INIT MPI_Allreduce_init
#define REDUCE_INIT MPI_Reduce_init
#define SCATTERV_INIT MPI_Scatterv_init
#endif
program prog_pcoll
  use mpi
  implicit none
  integer :: rank, n, ierr, k, j, bad
  integer :: req(4)
  double precision :: bc(5)
  integer :: in(3), sum(3), rin(2), rsum(2), sv(10), part(4)
  integer, parameter :: counts(4) = [1, 2, 3, 4], displs(4) = [0, 1, 3, 6]

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, n, ierr)
  if (n /= 4) then
    print '(a,i0,a,i0)', 'rank ', rank, ': needs 4 ranks, not ', n
    call MPI_Finalize(ierr)
    stop 1
  end if
  bad = 0
  call BCAST_INIT(bc, 5, MPI_DOUBLE_PRECISION, 2, MPI_COMM_WORLD, MPI_INFO_NULL, req(1), ierr)
  call ALLREDUCE_INIT(in, sum, 3, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, req(2), ierr)
  call REDUCE_INIT(rin, rsum, 2, MPI_INTEGER, MPI_SUM, 1, MPI_COMM_WORLD, MPI_INFO_NULL, req(3), &
                   ierr)
  call SCATTERV_INIT(sv, counts, displs, MPI_INTEGER, part, rank + 1, MPI_INTEGER, 3, &
                     MPI_COMM_WORLD, MPI_INFO_NULL, req(4), ierr)
  do k = 0, 9
    call fill(k)
    do j = 1, 4
      call MPI_Start(req(j), ierr)
      call MPI_Wait(req(j), MPI_STATUS_IGNORE, ierr)
    end do
    call check(k, .true.)
  end do
  call fill(10)
  call MPI_Startall(4, req, ierr)
  call MPI_Waitall(4, req, MPI_STATUSES_IGNORE, ierr)
  call check(10, .true.)
  call fill(11)
  call MPI_Startall(1, req(3:3), ierr)
  call MPI_Wait(req(3), MPI_STATUS_IGNORE, ierr)
  call check(11, .false.)
  do j = 1, 4
    call MPI_Request_free(req(j), ierr)
  end do
  if (bad == 0) then
    print '(a,i0,a)', 'rank ', rank, ': ok'
  else
    print '(a,i0,a,i0,a)', 'rank ', rank, ': ', bad, ' wrong values'
  end if
  call MPI_Finalize(ierr)

contains

  ! the roots' values and each rank's contributions for round k
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
    do i = 1, 2
      rin(i) = (rank + 1) * (k + 2 * i)
      rsum(i) = -1
    end do
    do i = 1, 10
      sv(i) = -1
      if (rank == 3) sv(i) = 1000 * k + i
    end do
    part = -1
  end subroutine fill

  ! all: every collective ran in round k, else only the reduce
  subroutine check(k, all)
    integer, intent(in) :: k
    logical, intent(in) :: all
    integer :: i
    if (all) then
      do i = 1, 5
        if (bc(i) /= 100 * k + i) bad = bad + 1
      end do
      do i = 1, 3
        if (sum(i) /= n * (n + 1) / 2 * (k + i)) bad = bad + 1
      end do
      do i = 1, rank + 1
        if (part(i) /= 1000 * k + displs(rank + 1) + i) bad = bad + 1
      end do
    end if
    if (rank == 1) then
      do i = 1, 2
        if (rsum(i) /= n * (n + 1) / 2 * (k + 2 * i)) bad = bad + 1
      end do
    end if
  end subroutine check
end program prog_pcoll
