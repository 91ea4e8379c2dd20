#!/usr/bin/python3
"""gen_struct_layout.py HEADER... OUT.c - writes a C program that prints the
layout the compiler gives every `typedef struct NAME { ... } NAME;` of
each HEADER (scope_reader.h, scope_reader_comm.h, scope_reader_waits.h,
scope_reader_omp.h):
"NAME size" and then "NAME.field offset size" per field, in declaration
order; and the value of every number the headers #define or enumerate
("#define NAME value"). The names come from the headers themselves, so a
field or constant added, renamed or moved there shows up without editing
a list; test_mirrors.py compares the output with the Python module's
mirrors.
"""
import os
import re
import sys


def structs(text):
    """[(name, [field, ...])] in header order."""
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    text = re.sub(r"//[^\n]*", " ", text)
    out = []
    for m in re.finditer(r"typedef\s+struct\s+(\w+)\s*\{(.*?)\}\s*(\w+)\s*;", text, re.S):
        if m.group(1) != m.group(3):
            sys.exit(f"gen_struct_layout: struct {m.group(1)} is typedef'd as {m.group(3)}")
        fields = []
        for decl in m.group(2).split(";"):
            decl = re.sub(r"\[[^\]]*\]", "", decl).strip()   # arrays: the name before [
            if not decl:
                continue
            first, *more = decl.split(",")
            for part in [first] + more:
                names = re.findall(r"[A-Za-z_]\w*", part)
                if not names:
                    sys.exit(f"gen_struct_layout: cannot read '{decl}' in {m.group(1)}")
                fields.append(names[-1])
        out.append((m.group(1), fields))
    return out


def defines(text):
    """The SCOPE_* numbers: macros whose value is an integer expression,
    and the members of enums."""
    names = re.findall(r"^#define\s+(SCOPE_[A-Z0-9_]+)\s+(?=[-(0-9])", text, re.M)
    bare = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    for body in re.findall(r"\benum\s*\w*\s*\{(.*?)\}", bare, re.S):
        names += re.findall(r"(?:^|,)\s*(SCOPE_[A-Z0-9_]+)", body)
    return names


def main():
    headers, out = sys.argv[1:-1], sys.argv[-1]
    found, numbers = [], []
    for header in headers:
        with open(header) as f:
            text = f.read()
        got = structs(text)
        if not got:
            sys.exit(f"gen_struct_layout: no struct in {header}")
        found += got
        numbers += defines(text)
    lines = ["/* struct_layout.c - written by gen_struct_layout.py from the reader's",
             " * headers: prints sizeof and every field's offset and size. */",
             "#include <stddef.h>", "#include <stdio.h>", ""]
    lines += [f'#include "{os.path.basename(h)}"' for h in headers]
    lines += ["", "int main(void)", "{"]
    for name, fields in found:
        lines.append(f'    printf("{name} %zu\\n", sizeof({name}));')
        for fld in fields:
            lines.append(f'    printf("{name}.{fld} %zu %zu\\n", offsetof({name}, {fld}), '
                         f'sizeof((({name} *)0)->{fld}));')
    for name in numbers:
        lines.append(f'    printf("#define {name} %lld\\n", (long long)({name}));')
    lines += ["    return 0;", "}", ""]
    with open(out, "w") as f:
        f.write("\n".join(lines))


if __name__ == "__main__":
    main()
