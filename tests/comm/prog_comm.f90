! prog_comm.f90 - the Fortran half of check_comm.py (`use mpi`): a ring of
! MPI_Send/MPI_Recv ((rank+1)*100 integers to rank+1, tag 7), an
! MPI_Alltoallv (rank i sends (i+1)*(j+1) integers to rank j), an
! MPI_Bcast of 16 integers from rank 0, an MPI_Allreduce of 2 doubles and
! an MPI_Sendrecv halo (5 doubles to rank+1, from rank-1, tag 3). The
! Fortran bindings call the C functions: the profile must hold the same
! bytes and partners as the C program's.
program prog_comm
  use mpi
  implicit none
  integer :: rank, nranks, ierr, nxt, prv, up, down, j, so, ro
  integer :: status(MPI_STATUS_SIZE)
  integer, allocatable :: ibuf(:), sc(:), sd(:), rc(:), rd(:)
  double precision :: dbuf(100), red(2)

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks, ierr)
  allocate(ibuf(100000), sc(nranks), sd(nranks), rc(nranks), rd(nranks))
  ibuf = 0
  dbuf = 0
  nxt = mod(rank + 1, nranks)
  prv = mod(rank + nranks - 1, nranks)
  if (mod(rank, 2) == 0) then
    call MPI_Send(ibuf, (rank + 1) * 100, MPI_INTEGER, nxt, 7, MPI_COMM_WORLD, ierr)
    call MPI_Recv(ibuf, (prv + 1) * 100, MPI_INTEGER, prv, 7, MPI_COMM_WORLD, status, ierr)
  else
    call MPI_Recv(ibuf, (prv + 1) * 100, MPI_INTEGER, prv, 7, MPI_COMM_WORLD, &
                  MPI_STATUS_IGNORE, ierr)
    call MPI_Send(ibuf, (rank + 1) * 100, MPI_INTEGER, nxt, 7, MPI_COMM_WORLD, ierr)
  end if
  so = 0
  ro = 0
  do j = 1, nranks
    sc(j) = (rank + 1) * j
    rc(j) = j * (rank + 1)
    sd(j) = so
    rd(j) = ro
    so = so + sc(j)
    ro = ro + rc(j)
  end do
  call MPI_Alltoallv(ibuf, sc, sd, MPI_INTEGER, ibuf(50001), rc, rd, MPI_INTEGER, &
                     MPI_COMM_WORLD, ierr)
  call MPI_Bcast(ibuf, 16, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
  red = 1.0d0
  call MPI_Allreduce(MPI_IN_PLACE, red, 2, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
  up = rank + 1
  if (up >= nranks) up = MPI_PROC_NULL
  down = rank - 1
  if (down < 0) down = MPI_PROC_NULL
  call MPI_Sendrecv(dbuf, 5, MPI_DOUBLE_PRECISION, up, 3, dbuf(11), 5, MPI_DOUBLE_PRECISION, &
                    down, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
  call MPI_Finalize(ierr)
end program prog_comm
