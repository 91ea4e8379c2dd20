#!/usr/bin/python3
"""check_always_recorded.py SOURCE_ROOT - what every MPI rank records
whatever the config names is documented where a config is explained:
the init call's regions (the names preload/mpi/mpi_intercept.c gives
intercept_init) and the span (SCOPE__SPAN_REGION, preload/lifecycle.h)
are each named in docs/config.md's section "What a rank records besides
the config's functions" and in README.md's paragraph on the config.
Read from the code, so a new always-recorded region fails this test
until it is documented (issue 44: a config of `work_a work_b` gave
MPI_Init regions that neither page mentioned). tests/mpi's check_mpi_run
checks the regions themselves, per rank, with a config and without.
"""
import os
import re
import sys

root = sys.argv[1]


def read(*path):
    with open(os.path.join(root, *path), encoding="utf-8") as f:
        return f.read()


intercept = read("preload", "mpi", "mpi_intercept.c")
# intercept_init(NEXT_<ID>, ...): the region is the call its id names in
# the file's call_of table (ids in pairs, C name then PMPI_ name)
ids = re.search(r"enum next_id \{(.*?)\};", intercept, re.S)
ids = [w.strip() for w in ids.group(1).split(",")] if ids else []
calls = re.search(r"call_of\[[^]]*\]\s*=\s*\{(.*?)\};", intercept, re.S)
calls = re.findall(r"SCOPE_CALL_(\w+)", calls.group(1)) if calls else []
inits = sorted({calls[ids.index(i) // 2]
                for i in re.findall(r"intercept_init\((NEXT_\w+),", intercept)
                if i in ids and ids.index(i) // 2 < len(calls)})
span = re.search(r'#define SCOPE__SPAN_REGION "([^"]+)"', read("preload", "lifecycle.h"))
always = inits + [span.group(1)] if span else inits
print("always recorded:", always)
failed = []
if inits != ["MPI_Init", "MPI_Init_thread"] or not span:
    failed.append(f"the code's names were not found as expected: {always}")

config = read("docs", "config.md")
m = re.search(r"^## What a rank records besides the config's functions\n(.*?)(?=^#)",
              config, re.M | re.S)
if not m:
    failed.append("docs/config.md has no section \"What a rank records besides the config's "
                  "functions\"")
else:
    failed += [f"docs/config.md's section does not name `{n}`" for n in always
               if f"`{n}`" not in m.group(1)]

readme = read("README.md")
m = re.search(r"^## The config\n(.*?)(?=^## )", readme, re.M | re.S)
if not m:
    failed.append("README.md has no section \"The config\"")
else:
    failed += [f"README.md's section on the config does not name `{n}`" for n in always
               if f"`{n}`" not in m.group(1)]
for f in failed:
    print("FAIL:", f)
sys.exit(1 if failed else 0)
