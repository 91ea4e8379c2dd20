! prog_fbind.F90 - the program of check_fbind.py: the same traffic through
! each of the three Fortran bindings, chosen when it is built (-cpp):
! -DF08 `use mpi_f08` (handles and MPI_Status are derived types), -DMPIF
! `include 'mpif.h'`, neither `use mpi`. The bindings reach the C
! functions by different paths (Open MPI's f08 calls the mpif.h binding,
! MPICH's f08 calls the C function from its own wrapper), and the profile
! must hold the same bytes, partners and tags whichever is used.
!
! 4 ranks; nxt = rank+1, prv = rank-1 (mod 4):
!  1. a ring of MPI_Send/MPI_Recv: (rank+1)*10 integers to nxt, tag 7;
!     the receive posts 1000 and learns the size from its status; even
!     ranks pass a status, odd ranks MPI_STATUS_IGNORE;
!  2. a ring of MPI_Isend/MPI_Irecv + MPI_Waitall, twice: 2*(rank+1)
!     doubles, tag 8, completed with an array of statuses; then 3*(rank+1)
!     integers, tag 9, with MPI_STATUSES_IGNORE; the receives post 100;
!  3. an MPI_Allreduce of 3 integers;
!  4. an MPI_Bcast of 6 doubles from rank 2;
!  5. ranks 1..3 send 3*rank integers with tag 100+rank to rank 0, which
!     receives them from MPI_ANY_SOURCE with MPI_ANY_TAG and
!     MPI_STATUS_IGNORE.
! Every received value is checked; each rank prints "rank R: ok" or what
! was wrong, so a profile that broke the program's data shows.
program prog_fbind
#ifdef F08
  use mpi_f08
#elif !defined(MPIF)
  use mpi
#endif
  implicit none
#ifdef MPIF
  include 'mpif.h'
#endif
#ifdef F08
  type(MPI_Status) :: st, sts(2)
  type(MPI_Request) :: req(2)
#else
  integer :: st(MPI_STATUS_SIZE), sts(MPI_STATUS_SIZE, 2)
  integer :: req(2)
#endif
  integer :: rank, nranks, ierr, nxt, prv, i, k, bad, cnt
  integer :: isend(1000), irecv(1000), red(3)
  double precision :: dsend(100), drecv(100), bc(6)

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks, ierr)
  nxt = mod(rank + 1, nranks)
  prv = mod(rank + nranks - 1, nranks)
  bad = 0
  do i = 1, 1000
    isend(i) = 1000 * rank + i
  end do

  ! 1. the blocking ring
  irecv = -1
  if (mod(rank, 2) == 0) then
    call MPI_Send(isend, (rank + 1) * 10, MPI_INTEGER, nxt, 7, MPI_COMM_WORLD, ierr)
    call MPI_Recv(irecv, 1000, MPI_INTEGER, prv, 7, MPI_COMM_WORLD, st, ierr)
    call MPI_Get_count(st, MPI_INTEGER, cnt, ierr)
    if (cnt /= (prv + 1) * 10) bad = bad + 1
  else
    call MPI_Recv(irecv, 1000, MPI_INTEGER, prv, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
    call MPI_Send(isend, (rank + 1) * 10, MPI_INTEGER, nxt, 7, MPI_COMM_WORLD, ierr)
  end if
  do i = 1, (prv + 1) * 10
    if (irecv(i) /= 1000 * prv + i) bad = bad + 1
  end do
  if (irecv((prv + 1) * 10 + 1) /= -1) bad = bad + 1

  ! 2. the nonblocking ring, twice
  do i = 1, 100
    dsend(i) = rank + i / 1000.0d0
  end do
  drecv = -1
  call MPI_Irecv(drecv, 100, MPI_DOUBLE_PRECISION, prv, 8, MPI_COMM_WORLD, req(1), ierr)
  call MPI_Isend(dsend, 2 * (rank + 1), MPI_DOUBLE_PRECISION, nxt, 8, MPI_COMM_WORLD, req(2), ierr)
  call MPI_Waitall(2, req, sts, ierr)
#ifdef F08
  call MPI_Get_count(sts(1), MPI_DOUBLE_PRECISION, cnt, ierr)
  if (sts(1)%MPI_SOURCE /= prv .or. sts(1)%MPI_TAG /= 8) bad = bad + 1
#else
  call MPI_Get_count(sts(:, 1), MPI_DOUBLE_PRECISION, cnt, ierr)
  if (sts(MPI_SOURCE, 1) /= prv .or. sts(MPI_TAG, 1) /= 8) bad = bad + 1
#endif
  if (cnt /= 2 * (prv + 1)) bad = bad + 1
  do i = 1, 2 * (prv + 1)
    if (drecv(i) /= prv + i / 1000.0d0) bad = bad + 1
  end do
  irecv = -1
  call MPI_Irecv(irecv, 100, MPI_INTEGER, prv, 9, MPI_COMM_WORLD, req(1), ierr)
  call MPI_Isend(isend, 3 * (rank + 1), MPI_INTEGER, nxt, 9, MPI_COMM_WORLD, req(2), ierr)
  call MPI_Waitall(2, req, MPI_STATUSES_IGNORE, ierr)
  do i = 1, 3 * (prv + 1)
    if (irecv(i) /= 1000 * prv + i) bad = bad + 1
  end do

  ! 3. and 4. the collectives
  red = rank + 1
  call MPI_Allreduce(MPI_IN_PLACE, red, 3, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (any(red /= nranks * (nranks + 1) / 2)) bad = bad + 1
  bc = 0
  if (rank == 2) bc = 2.5d0
  call MPI_Bcast(bc, 6, MPI_DOUBLE_PRECISION, 2, MPI_COMM_WORLD, ierr)
  if (any(bc /= 2.5d0)) bad = bad + 1

  ! 5. whoever comes first
  if (rank == 0) then
    do k = 1, nranks - 1
      irecv = -1
      call MPI_Recv(irecv, 1000, MPI_INTEGER, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &
                    MPI_STATUS_IGNORE, ierr)
      ! the first value names the sender
      i = irecv(1) / 1000
      if (i < 1 .or. i >= nranks .or. irecv(3 * i) /= 1000 * i + 3 * i .or. &
          irecv(3 * i + 1) /= -1) bad = bad + 1
    end do
  else
    call MPI_Send(isend, 3 * rank, MPI_INTEGER, 0, 100 + rank, MPI_COMM_WORLD, ierr)
  end if

  if (bad == 0) then
    print '(a,i0,a)', 'rank ', rank, ': ok'
  else
    print '(a,i0,a,i0,a)', 'rank ', rank, ': ', bad, ' wrong values'
  end if
  call MPI_Finalize(ierr)
end program prog_fbind
