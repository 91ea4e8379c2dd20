"""check_unwritable.py - an output folder that cannot be created gives one
clear message for the whole job (rank 0's), and the application runs on
unharmed: same output lines, same exit status, no files anywhere.

usage: check_unwritable.py PRELOAD MPI_PROGRAM
"""
import os
import subprocess
import sys
import tempfile

preload, prog = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
env = {k: v for k, v in os.environ.items() if (not k.startswith("SCOPE") or k == "SCOPE_TRAMPOLINE") and k != "LD_PRELOAD"}
env.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
cmd = ["mpirun", "--oversubscribe", "-n", "4", prog]
with tempfile.TemporaryDirectory() as d:
    blocker = os.path.join(d, "afile")  # a file where the output folder should go
    open(blocker, "w").close()
    bare = subprocess.run(cmd, env=env, cwd=d, capture_output=True, text=True, timeout=120)
    env2 = dict(env, LD_PRELOAD=preload, SCOPE_OUTPUT=os.path.join(blocker, "prof.h5"))
    run = subprocess.run(cmd, env=env2, cwd=d, capture_output=True, text=True, timeout=120)
    assert run.returncode == bare.returncode == 0, (run.returncode, bare.returncode, run.stderr)
    strip = lambda out: sorted(l.split(" pid ")[0] for l in out.splitlines())
    assert strip(run.stdout) == strip(bare.stdout), (run.stdout, bare.stdout)
    lines = [l for l in run.stderr.splitlines() if l.startswith("scope:")]
    want = f"scope: cannot create the journal in {blocker}/prof.ranks: Not a directory; recording is off"
    assert lines == [want], run.stderr
    assert sorted(os.listdir(d)) == ["afile"], os.listdir(d)
print("check_unwritable: one message for 4 ranks, application unchanged")
