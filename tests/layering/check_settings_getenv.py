#!/usr/bin/env python3
"""check_settings_getenv.py - only the settings code reads SCOPE_* variables.

Every SCOPE_* variable is read once per process by base/settings.c from
the table in base/settings_table.c, and every part takes its value from
there (docs/design.md, "Settings"). This check finds every getenv() or
secure_getenv() call in scope's own folders and fails when one outside
base/settings.c reads a SCOPE_* variable: a string literal "SCOPE_...",
or a name #defined in the same file as one. An argument it cannot resolve
(a variable, a function call) fails too, so that a reading cannot hide
behind a name. SCOPE__* (two underscores) are the preload's own markers to
its children, not settings, and are allowed.

Prints each offending call with its file and line; exits 1 when any.

  check_settings_getenv.py SOURCE_ROOT
"""
import os
import re
import sys

FOLDERS = ("arch", "base", "format", "runtime", "config", "convert", "preload", "reader",
           "tools")
SETTINGS_CODE = {os.path.join("base", "settings.c")}
CALL = re.compile(r"\b(?:secure_)?getenv\s*\(\s*([^)]*?)\s*\)")
DEFINE = re.compile(r'^\s*#\s*define\s+(\w+)\s+"([^"]*)"', re.M)


def strip_comments(text):
    # keep line numbers: replace comments by as many newlines
    text = re.sub(r"/\*.*?\*/", lambda m: "\n" * m.group(0).count("\n"), text, flags=re.S)
    return re.sub(r"//[^\n]*", "", text)


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "..")
    bad, calls = [], 0
    for folder in FOLDERS:
        for dirpath, _, files in os.walk(os.path.join(root, folder)):
            for f in sorted(files):
                if not f.endswith((".c", ".h", ".cpp", ".cc")):
                    continue
                path = os.path.join(dirpath, f)
                rel = os.path.relpath(path, root)
                text = strip_comments(open(path, errors="replace").read())
                defines = dict(DEFINE.findall(text))
                for m in CALL.finditer(text):
                    calls += 1
                    if rel in SETTINGS_CODE:
                        continue
                    arg = m.group(1)
                    line = text.count("\n", 0, m.start()) + 1
                    lit = re.fullmatch(r'"([^"]*)"', arg)
                    if lit:
                        name = lit.group(1)
                    elif arg in defines:
                        name = defines[arg]
                    else:
                        bad.append(f"{rel}:{line}: getenv({arg}): not a name this check can read")
                        continue
                    if name.startswith("SCOPE_") and not name.startswith("SCOPE__"):
                        bad.append(f"{rel}:{line}: reads {name} itself: use base/settings.h")
    for b in bad:
        print("FORBIDDEN " + b)
    print(f"check_settings_getenv: {calls} getenv calls, {len(bad)} reading a SCOPE_ variable "
          "outside base/settings.c")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
