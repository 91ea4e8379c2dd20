#!/usr/bin/env python3
"""check_abi5.py PRELOAD APP STUBDIR OUTDIR

The MPI-5 standard ABI (issue 28): APP (abi5/abi5_app.c) runs against the
stub libmpi_abi.so in STUBDIR (abi5/abi5_stub.c: one rank, the ABI's
constants, MPI_Abi_get_version answering 1.0), bare and with PRELOAD and
the config `MPI_*`. Checks that the output and exit status are the bare
run's, that the preload chose its standard-ABI table (/metadata mpi_abi =
"MPI ABI", the stub as mpi_library), and that what the calls moved came
out through that table's handles and constants: a send of 10 int32 to
rank 0 with tag 7, its receive from MPI_ANY_SOURCE with MPI_STATUS_IGNORE
(source and size from the status the capture lent), a send to
MPI_PROC_NULL (-3 in this ABI) that moves nothing, an in-place
MPI_Allreduce of 2 doubles, and MPI_COMM_WORLD in the communicators; on a
window of MPI_COMM_WORLD a put of 2 int32, an MPI_Fetch_and_op of an
int64 with MPI_NO_OP (0x3d: nothing sent, no dest) and a put to MPI_PROC_NULL;
an MPI_Neighbor_alltoall of 3 doubles on a Cartesian communicator
(MPI_Topo_test answers 211) whose lower neighbour is MPI_PROC_NULL: one
block each way; the communicators' creating calls."""
import os
import subprocess
import sys

import h5py

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
from checker import clean_env, fail  # noqa: E402

NO_TAG = -2147483648


def main():
    preload, app, stubdir, outdir = map(os.path.abspath, sys.argv[1:5])
    env = clean_env(LD_LIBRARY_PATH=stubdir)
    bare = subprocess.run([app], env=env, capture_output=True, text=True, timeout=60)
    conf = os.path.join(outdir, "scope.conf")
    with open(conf, "w") as f:
        f.write("MPI_*\n")
    out = os.path.join(outdir, "p.h5")
    prof = subprocess.run([app], env=dict(env, LD_PRELOAD=preload, SCOPE_CONFIG=conf,
                                          SCOPE_OUTPUT=out),
                          capture_output=True, text=True, timeout=60)
    if (prof.returncode, prof.stdout) != (bare.returncode, bare.stdout) or bare.stdout != "ABI 1.0\n":
        fail(f"bare {bare.returncode} {bare.stdout!r}, profiled {prof.returncode} "
             f"{prof.stdout!r} {prof.stderr}")
    with h5py.File(os.path.join(out[:-3] + ".ranks", "rank0.h5"), "r") as f:
        meta = f["metadata"].attrs
        abi = meta["mpi_abi"]
        abi = abi.decode() if isinstance(abi, bytes) else abi
        lib = meta["mpi_library"]
        lib = lib.decode() if isinstance(lib, bytes) else lib
        if abi != "MPI ABI" or not lib.endswith("libmpi_abi.so"):
            fail(f"mpi_abi {abi!r}, mpi_library {lib!r}")
        g = f["rank0/regions"]
        want = {
            "MPI_Send": [(40, 0, 0, -1, 7, 0), (0, 0, -1, -1, NO_TAG, 0)],
            "MPI_Recv": [(0, 40, -1, 0, 7, 0)],
            "MPI_Allreduce": [(16, 16, -1, -1, NO_TAG, 0)],
            "MPI_Win_create": [(0, 0, -1, -1, NO_TAG, 0)],
            "MPI_Put": [(8, 0, 0, -1, NO_TAG, 0), (0, 0, -1, -1, NO_TAG, 0)],
            "MPI_Fetch_and_op": [(0, 8, -1, 0, NO_TAG, 0)],   # a fetch: no dest
            "MPI_Neighbor_alltoall": [(24, 24, -1, -1, NO_TAG, 1)],
        }
        for name, rows in want.items():
            cols = [g[name][k][:].tolist() for k in
                    ("bytes_sent", "bytes_received", "dest", "source", "tag", "comm")]
            got = list(zip(*cols))
            if got != rows:
                fail(f"{name}: {got} want {rows}")
        cm = f["rank0/communicators"]
        if cm["size"][:].tolist() != [1, 1] or cm["members"][:].tolist() != [0, 0] or \
                bytes(cm["names"][:]) != b"MPI_COMM_WORLD\0\0" or \
                bytes(cm["creators"][:]) != b"MPI_Init\0MPI_Cart_create\0":
            fail("communicators: " + str({k: cm[k][:] for k in cm}))
    print("ok: the standard ABI's table, chosen by MPI_Abi_get_version, read every call")


if __name__ == "__main__":
    main()
