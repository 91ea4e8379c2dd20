"""mpi_app.py - the mpi4py program of the MPI matrix (tests/mpi): the calls
of mpi_app.c that mpi4py does not make itself (MPI_Allreduce 5, MPI_Barrier
3), after MPI_Init_thread (mpi4py's init); one line of output from rank 0.
Debian's mpi4py is built for Open MPI."""
import os

from mpi4py import MPI
import numpy as np

comm = MPI.COMM_WORLD
rank, size = comm.Get_rank(), comm.Get_size()
y = np.array([float(rank)])
for _ in range(7):
    y = y * 0.5 + 1.0
s = np.zeros(1)
for _ in range(5):
    comm.Allreduce(y, s, op=MPI.SUM)
for _ in range(3):
    comm.Barrier()
if rank == 0:
    os.write(1, f"size {size} sum {s[0]:.6f}\n".encode())
