! prog_mpiio.f90 - MPI-IO from Fortran (`use mpi`), on one file all ranks
! share: each binding is timed under its C name and says what its C call
! moved (check_mpiio.py, by hand from this file).
! usage: prog_mpiio_f OUTDIR
program prog_mpiio
  use mpi
  implicit none
  integer :: ierr, r, fh, rq
  integer :: st(MPI_STATUS_SIZE)
  integer(kind=MPI_OFFSET_KIND) :: off
  character(len=4096) :: dir
  character(len=100) :: buf
  character(len=100) :: got
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, r, ierr)
  call get_command_argument(1, dir)
  buf = repeat('f', 100)
  call MPI_File_open(MPI_COMM_WORLD, trim(dir) // '/mpiio_f.dat', &
                     MPI_MODE_CREATE + MPI_MODE_RDWR, MPI_INFO_NULL, fh, ierr)
  off = r * 100
  call MPI_File_write_at_all(fh, off, buf, 100, MPI_CHARACTER, st, ierr)
  ! sync, barrier, sync: every rank's writes visible to every rank
  call MPI_File_sync(fh, ierr)
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  call MPI_File_sync(fh, ierr)
  call MPI_File_read_at(fh, off, got, 60, MPI_CHARACTER, st, ierr)
  off = 1000 + r * 10
  call MPI_File_iwrite_at(fh, off, buf, 10, MPI_CHARACTER, rq, ierr)
  call MPI_Wait(rq, st, ierr)
  call MPI_File_close(fh, ierr)
  call MPI_Finalize(ierr)
end program prog_mpiio
