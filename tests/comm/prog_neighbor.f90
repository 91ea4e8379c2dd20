! prog_neighbor.f90 - the Fortran half of check_neighbor.py (`use mpi`): a
! 1-D Cartesian communicator of 4 ranks, not periodic (MPI_Cart_create),
! an MPI_Neighbor_allgather of 3 integers and an MPI_Neighbor_alltoall of
! 2 doubles; with MPI 4 (MPICH: built with -DMPI4) a persistent
! MPI_Bcast_init of 6 integers from rank 2, started 3 times. The Fortran
! bindings call the C functions: the profile must hold the same bytes and
! creating call as the C program's. Built with -cpp.
program prog_neighbor
  use mpi
  implicit none
  integer :: rank, nranks, ierr, cart
  integer :: dims(1), sbuf(16), rbuf(16)
  logical :: periods(1)
  double precision :: dsend(8), drecv(8)
#ifdef MPI4
  integer :: req, i
#endif

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks, ierr)
  sbuf = 0
  dsend = 0
  dims(1) = nranks
  periods(1) = .false.
  call MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, .false., cart, ierr)
  call MPI_Neighbor_allgather(sbuf, 3, MPI_INTEGER, rbuf, 3, MPI_INTEGER, cart, ierr)
  call MPI_Neighbor_alltoall(dsend, 2, MPI_DOUBLE_PRECISION, drecv, 2, MPI_DOUBLE_PRECISION, &
                             cart, ierr)
#ifdef MPI4
  call MPI_Bcast_init(sbuf, 6, MPI_INTEGER, 2, MPI_COMM_WORLD, MPI_INFO_NULL, req, ierr)
  do i = 1, 3
    call MPI_Start(req, ierr)
    call MPI_Wait(req, MPI_STATUS_IGNORE, ierr)
  end do
  call MPI_Request_free(req, ierr)
#endif
  call MPI_Comm_free(cart, ierr)
  print '(a)', 'done'
  call MPI_Finalize(ierr)
end program prog_neighbor
