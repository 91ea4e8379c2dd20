"""mpi_calls.py - the mpi4py twin of mpi_calls.c: the same MPI calls, the
same number of times (mpi4py loads libmpi RTLD_LOCAL after start, so the
engine finds MPI_* at that dlopen)."""
import os

from mpi4py import MPI
import numpy as np

comm = MPI.COMM_WORLD
rank = comm.Get_rank()
size = comm.Get_size()
for _ in range(3):
    comm.Barrier()
x = np.array([rank + 1.0])
s = np.zeros(1)
for _ in range(5):
    comm.Allreduce(x, s, op=MPI.SUM)
v = np.array([42 if rank == 0 else 0], dtype="i")
for _ in range(4):
    comm.Bcast(v, root=0)
nxt, prv = (rank + 1) % size, (rank + size - 1) % size
buf = np.array([rank], dtype="i")
got = np.array([-1], dtype="i")
for _ in range(2):
    if rank % 2 == 0:
        comm.Send(buf, dest=nxt, tag=7)
        comm.Recv(got, source=prv, tag=7)
    else:
        comm.Recv(got, source=prv, tag=7)
        comm.Send(buf, dest=nxt, tag=7)
# one write per line, so mpirun cannot interleave two ranks' lines
os.write(1, f"rank {rank} sum {s[0]:.0f} bcast {v[0]} from {got[0]}\n".encode())
