#!/usr/bin/env python3
"""check_inline.py PRELOAD PROG SOURCE_DIR OUTDIR

Runs inline_sites (-O1 -g) under the preload with `site_target
callsites=2` and asserts that `scope callsites --format csv` gives one
row of 1 call whose location is exactly
"helper (inline_sites.c:<INL>) inlined in outer (inline_sites.c:<OUTER>)
<- main (inline_sites.c:<MAIN>)": the inline frame, the concrete function
it was inlined into with the inline's call line, then the caller.
"""
import csv
import io
import os
import re
import subprocess
import sys
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
from checker import clean_env  # noqa: E402


def main():
    preload, prog, src_dir, outdir = (os.path.abspath(a) for a in sys.argv[1:5])
    ln = {}
    with open(os.path.join(src_dir, "inline_sites.c")) as f:
        for i, text in enumerate(f, 1):
            m = re.search(r"/\* (INL|OUTER|MAIN) \*/", text)
            if m:
                ln[m.group(1)] = i
    conf = os.path.join(outdir, "scope.conf")
    with open(conf, "w") as f:
        f.write("site_target callsites=2\n")
    h5 = os.path.join(outdir, "i.h5")
    env = clean_env(keep=("SCOPE_TRAMPOLINE",))
    env.update(LD_PRELOAD=preload, SCOPE_CONFIG=conf, SCOPE_OUTPUT=h5,
               SCOPE_H5WRITER=os.environ.get("SCOPE_H5WRITER", ""))
    subprocess.run([prog], env=env, check=True, timeout=120)
    out = subprocess.run([os.environ["SCOPE_TOOL"], "callsites", "--format", "csv", h5],
                         capture_output=True, text=True, check=True, timeout=120).stdout
    rows = [(r["site"], r["calls"], r["location"]) for r in csv.DictReader(io.StringIO(out))]
    want = [("0", "1", f"helper (inline_sites.c:{ln['INL']}) inlined in outer "
                       f"(inline_sites.c:{ln['OUTER']}) <- main (inline_sites.c:{ln['MAIN']})")]
    if rows != want:
        print(f"FAIL: {rows}\nexpected {want}")
        sys.exit(1)
    print("check_inline: ok")


main()
