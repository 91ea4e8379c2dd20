"""check_manual.py - manual regions of a program linked with libscope.so
and the functions the config times end up in the same rank files under
the preload (one recorder per process): 4 ranks, each with "phase" x5
(kind manual), "work" x7 (kind function), 4 of them inside "phase"; and
the cost of both recording paths: the trampoline's as overhead_inside_ns /
overhead_caller_ns (overhead_path "trampoline (...)"), the C API pair's,
measured at MPI_Finalize because the program used the C API, as
overhead_api_inside_ns / overhead_api_caller_ns / overhead_empty_pair_ns.

usage: check_manual.py PRELOAD PROGRAM
"""
import os
import subprocess
import sys
import tempfile

import h5py
import numpy as np

preload, prog = (os.path.abspath(x) for x in sys.argv[1:3])
env = {k: v for k, v in os.environ.items() if (not k.startswith("SCOPE") or k == "SCOPE_TRAMPOLINE") and k != "LD_PRELOAD"}
with tempfile.TemporaryDirectory() as d:
    conf = os.path.join(d, "c.conf")
    with open(conf, "w") as f:
        f.write("work\n")
    env.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               LD_PRELOAD=preload, SCOPE_CONFIG=conf, SCOPE_OUTPUT=os.path.join(d, "p.h5"))
    subprocess.run(["mpirun", "--oversubscribe", "-n", "4", prog], env=env, cwd=d, check=True,
                   timeout=120)
    files = sorted(os.listdir(os.path.join(d, "p.ranks")))
    assert files == [f"rank{r}.h5" for r in range(4)], files
    with h5py.File(os.path.join(d, "p.h5"), "r") as f:
        for r in range(4):
            regions = f[f"rank{r}/regions"]
            phase, work = regions["phase"], regions["work"]
            assert phase.attrs["kind"] == "manual" and work.attrs["kind"] == "function"
            ps, pe = phase["start_times"][:], phase["end_times"][:]
            ws, we = work["start_times"][:], work["end_times"][:]
            assert len(ps) == 5 and len(ws) == 7, (r, len(ps), len(ws))
            inside = sum(bool(np.any((ps <= s) & (e <= pe))) for s, e in zip(ws, we))
            assert inside == 4, (r, inside)
            a = f[f"rank{r}"].attrs
            path = a["overhead_path"]
            path = path.decode() if isinstance(path, bytes) else str(path)
            assert path.startswith("trampoline ("), (r, path)
            for k in ("overhead_inside_ns", "overhead_caller_ns", "overhead_api_inside_ns",
                      "overhead_api_caller_ns"):
                assert k in a and float(a[k]) >= 0, (r, k, dict(a))
            assert float(a["overhead_empty_pair_ns"]) > 0, (r, dict(a))
print("check_manual: 4 ranks, manual regions and timed functions in one file each, "
      "both paths calibrated")
