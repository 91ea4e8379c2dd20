# mpi4py_prog.py - an MPI program in Python. mpi4py opens libmpi with
# RTLD_LOCAL and calls MPI_Init_thread: the preload must find the real
# function through the link map. Prints the same line as mpi_c.c
# (main_ns = time.monotonic_ns() before mpi4py starts MPI).
import os
import sys
import time

main_ns = time.monotonic_ns()
from mpi4py import MPI  # noqa: E402  (MPI_Init_thread happens here)

comm = MPI.COMM_WORLD
comm.Barrier()
# one write(2) per line: print() may send the text and the newline apart,
# and mpirun then interleaves other ranks' lines between them
sys.stdout.flush()
os.write(1, f"rank {comm.Get_rank()} size {comm.Get_size()} pid {os.getpid()} main_ns {main_ns}\n".encode())
MPI.Finalize()
