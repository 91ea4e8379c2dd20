#!/usr/bin/env python3
"""check_layering.py - the folders' include graph keeps its floors.

Every `#include "..."` of a project folder's C files is resolved to the
folder that owns the header (the including folder first, as the compiler
does), and each arrow must be one the table below allows: data flows one
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
    "preload": {"arch", "base", "format", "runtime", "config"},
    "tools": {"base", "format", "reader", "convert", "config"},
}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def headers(root):
    owner = {}
    for folder in ALLOWED:
        for dirpath, _, files in os.walk(os.path.join(root, folder)):
            for f in files:
                if f.endswith(".h"):
                    owner.setdefault(f, set()).add(folder)
    return owner


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "..")
    owner = headers(root)
    bad = []
    arrows = {}
    for folder in ALLOWED:
        top = os.path.join(root, folder)
        for dirpath, _, files in os.walk(top):
            for f in sorted(files):
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

    for f in ALLOWED:
        floor(f)
    for d in sorted(set(depth.values())):
        print(f"floor {d}: {', '.join(sorted(f for f in depth if depth[f] == d))}")
    print(f"{len(arrows)} arrows between folders, {len(bad)} forbidden")
    for b in bad:
        print("FORBIDDEN " + b)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
