#!/usr/bin/env python3
"""check_layering.py - the folders' include graph keeps its floors.

Every `#include "..."` of a project folder's C files is resolved to the
folder that owns the header (the including folder first, as the compiler
does), and each arrow must be one the table below allows. A folder of
folders (preload/, reader/comm/) has a row per sub-folder: a file belongs
to the deepest folder of the table that holds it. Data flows one
way (DESIGN.md), helpers several floors need live on the libc floor
(base/), and no folder reaches up or sideways into another for them.
Each meson.build must also compile only its own folder's sources (a
`'../x/file.c'` would hide an arrow the includes do not show).

Prints every forbidden arrow with the file and line that makes it, and
the floors found, and exits 1 when there is any.
"""
import os
import re
import sys

# who may include whom; a folder always may include itself
ALLOWED = {
    "arch": set(),
    "base": set(),
    "format": set(),
    "runtime": {"arch", "base", "format"},
    "config": {"base", "format"},
    "convert": {"arch", "base", "format"},
    "reader": {"base", "format"},
    # reader/comm/: what MPI calls moved, the matrices, the run's
    # communicators, the wait states: built on the reader's core, which
    # includes nothing of it; tools/ includes its public headers
    "reader/comm": {"reader", "base", "format"},
    # preload/ is a folder of folders (preload/README.md): the engine at
    # the bottom knows no paradigm; the process's lifecycle (preload/
    # itself) starts it; each capture (mpi/ now; io/ and omp/ next, with
    # the same row) reaches the engine through engine/capture.h and may
    # drive the lifecycle (lifecycle.h), and no capture includes another.
    "preload/engine": {"arch", "base", "format", "runtime", "config"},
    "preload": {"preload/engine", "arch", "base", "format", "runtime", "config"},
    "preload/mpi": {"preload", "preload/engine", "arch", "base", "format", "runtime", "config"},
    "preload/io": {"preload", "preload/engine", "arch", "base", "format", "runtime", "config"},
    "preload/omp": {"preload", "preload/engine", "arch", "base", "format", "runtime", "config"},
    "tools": {"base", "format", "reader", "reader/comm", "convert", "config"},
}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def folder_of(relpath):
    """The deepest folder of the table that holds relpath (a path under the
    root), or None."""
    parts = relpath.split(os.sep)[:-1]
    for n in range(len(parts), 0, -1):
        f = "/".join(parts[:n])
        if f in ALLOWED:
            return f
    return None


def files_of(root):
    """(folder, dirpath, file) of every file of the table's folders."""
    for top in sorted({f.split("/")[0] for f in ALLOWED}):
        for dirpath, _, files in os.walk(os.path.join(root, top)):
            for f in sorted(files):
                folder = folder_of(os.path.relpath(os.path.join(dirpath, f), root))
                if folder:
                    yield folder, dirpath, f


def headers(root):
    owner = {}
    for folder, _, f in files_of(root):
        if f.endswith(".h"):
            owner.setdefault(f, set()).add(folder)
    return owner


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "..")
    owner = headers(root)
    bad = []
    arrows = {}
    for folder, dirpath, f in files_of(root):
        path = os.path.join(dirpath, f)
        rel = os.path.relpath(path, root)
        if f == "meson.build":
            for n, line in enumerate(open(path), 1):
                code = line.split("#", 1)[0]
                if "install_headers" in code:
                    continue  # installing a header is not building it
                for m in re.finditer(r"'\.\./([a-z_]+)/[^']*\.(c|S|h)'", code):
                    bad.append(f"{rel}:{n}: builds a file of {m.group(1)}/: {m.group(0)}")
            continue
        if not f.endswith((".c", ".h", ".S")):
            continue
        text = open(path, errors="replace").read()
        for m in INCLUDE.finditer(text):
            name = os.path.basename(m.group(1))
            if "/" in m.group(1) and m.group(1).startswith(".."):
                line = text.count("\n", 0, m.start()) + 1
                bad.append(f"{rel}:{line}: includes by a relative path: {m.group(1)}")
            owners = owner.get(name)
            if not owners:
                continue  # a system or generated header
            to = folder if folder in owners else sorted(owners)[0]
            if to == folder:
                continue
            arrows.setdefault((folder, to), rel)
            if to not in ALLOWED[folder]:
                line = text.count("\n", 0, m.start()) + 1
                bad.append(f"{rel}:{line}: {folder}/ includes {to}/'s {name}")
    # floors: the longest path down from each folder over the arrows found
    depth = {}

    def floor(f, seen=()):
        if f in seen:
            bad.append(f"a circle through {' -> '.join(seen + (f,))}")
            return 0
        if f not in depth:
            below = [t for (s, t) in arrows if s == f]
            depth[f] = 1 + max((floor(t, seen + (f,)) for t in below), default=-1)
        return depth[f]

    present = {folder for folder, _, _ in files_of(root)}   # io/, omp/: not yet
    for f in ALLOWED:
        if f in present:
            floor(f)
    for d in sorted(set(depth.values())):
        print(f"floor {d}: {', '.join(sorted(f for f in depth if depth[f] == d))}")
    print(f"{len(arrows)} arrows between folders, {len(bad)} forbidden")
    for b in bad:
        print("FORBIDDEN " + b)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
