! prog_pcoll.f90 - the Fortran half of check_pcoll.py (`use mpi`, built
! with -cpp): prog_pcoll.c's traffic. Four persistent collectives on
! MPI_COMM_WORLD: a broadcast of 5 doubles from rank 2, an allreduce of 3
! integers, a reduce of 2 integers to rank 1 and a scatterv from rank 3 of
! rank + 1 integers to each rank; each started 10 times with MPI_Start and
! MPI_Wait, then all four once with MPI_Startall and MPI_Waitall, then
! the reduce alone with MPI_Startall and MPI_Wait; then an alltoall of 2
! integers to each rank and an allgather of 3, each started once with
! MPI_Start and MPI_Wait; then the broadcast and the reduce started with a
! persistent send of 6 integers to rank + 1 and its receive from rank - 1
! (tag 5) by one MPI_Startall and one MPI_Waitall; then freed. MPICH 4.0
! names them MPI_Bcast_init & co; Open MPI 4.1 (built with -DMPIX) has
! them as MPIX_Bcast_init & co, which `use mpi` does not declare: they are
! called as external procedures (its mpif.h binding, MPIX_BCAST_INIT).
! Each rank prints "rank R: ok" or what was wrong.
#ifdef MPIX
#define BCAST_INIT MPIX_Bcast_init
#define ALLREDUCE_INIT MPIX_Allreduce_init
#define REDUCE_INIT MPIX_Reduce_init
#define SCATTERV_INIT MPIX_Scatterv_init
#define ALLTOALL_INIT MPIX_Alltoall_init
#define ALLGATHER_INIT MPIX_Allgather_init
#else
#define BCAST_INIT MPI_Bcast_init
#define ALLREDUCE_INIT MPI_Allreduce_init
#define REDUCE_INIT MPI_Reduce_init
#define SCATTERV_INIT MPI_Scatterv_init
#define ALLTOALL_INIT MPI_Alltoall_init
#define ALLGATHER_INIT MPI_Allgather_init
#endif
program prog_pcoll
  use mpi
  implicit none
  integer :: rank, n, ierr, k, j, bad
  integer :: req(8), mix(4), i
  integer :: a2s(8), a2r(8), ags(3), agr(12), ps(6), pr(6)
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
  call ALLTOALL_INIT(a2s, 2, MPI_INTEGER, a2r, 2, MPI_INTEGER, MPI_COMM_WORLD, MPI_INFO_NULL, &
                     req(5), ierr)
  call ALLGATHER_INIT(ags, 3, MPI_INTEGER, agr, 3, MPI_INTEGER, MPI_COMM_WORLD, MPI_INFO_NULL, &
                      req(6), ierr)
  call MPI_Send_init(ps, 6, MPI_INTEGER, mod(rank + 1, 4), 5, MPI_COMM_WORLD, req(7), ierr)
  call MPI_Recv_init(pr, 6, MPI_INTEGER, mod(rank + 3, 4), 5, MPI_COMM_WORLD, req(8), ierr)
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
  ! the collectives without a root, once each
  do i = 0, 7
    a2s(i + 1) = 1000 + 100 * rank + i
  end do
  a2r = -1
  do i = 0, 2
    ags(i + 1) = 1000 + 10 * rank + i
  end do
  agr = -1
  call MPI_Start(req(5), ierr)
  call MPI_Wait(req(5), MPI_STATUS_IGNORE, ierr)
  call MPI_Start(req(6), ierr)
  call MPI_Wait(req(6), MPI_STATUS_IGNORE, ierr)
  do i = 0, 7   ! block i / 2 came from rank i / 2, its block for me
    if (a2r(i + 1) /= 1000 + 100 * (i / 2) + 2 * rank + mod(i, 2)) bad = bad + 1
  end do
  do i = 0, 11
    if (agr(i + 1) /= 1000 + 10 * (i / 3) + mod(i, 3)) bad = bad + 1
  end do
  ! two rooted collectives and a send and its receive, started together
  call fill(12)
  do i = 0, 5
    ps(i + 1) = 1200 + 7 * rank + i
  end do
  pr = -1
  mix = [req(1), req(3), req(7), req(8)]
  call MPI_Startall(4, mix, ierr)
  call MPI_Waitall(4, mix, MPI_STATUSES_IGNORE, ierr)
  call check(12, .false.)
  do i = 1, 5
    if (bc(i) /= 1200 + i) bad = bad + 1
  end do
  do i = 0, 5
    if (pr(i + 1) /= 1200 + 7 * mod(rank + 3, 4) + i) bad = bad + 1
  end do
  do j = 1, 8
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
