#!/usr/bin/env python3
"""check_settings_docs.py - docs/config.md says what the settings table says.

The table of settings (base/settings_table.c) is printed by settings_dump;
docs/config.md must then have:

  - in "Environment variables", one row per variable of the table and no
    other, with its config key, its grammar (as scope__setting_grammar
    words it), its default, and a meaning that starts with the table's
    documentation line;
  - in "Settings", one row per config key of the table and no other, with
    its default and the variable that overrides it.

  check_settings_docs.py SETTINGS_DUMP DOCS/CONFIG.MD
"""
import re
import subprocess
import sys

dump, docs = sys.argv[1:3]
rows = [l.split("\t") for l in subprocess.run([dump], capture_output=True, text=True,
                                               check=True).stdout.splitlines()]
errors = []


def table_after(text, heading):
    """The first markdown table after `heading`, as lists of cells."""
    at = text.index(heading)
    out = []
    for line in text[at:].splitlines()[1:]:
        if line.startswith("|"):
            out.append([c.strip() for c in line.strip().strip("|").split("|")])
        elif out:
            break
    return out[2:]  # header and rule


text = open(docs).read()
env = {r[0].strip("`"): r for r in table_after(text, "## Environment variables")}
want_vars = {r[0]: r for r in rows if r[0]}
for var, (v, key, grammar, dflt, doc) in want_vars.items():
    d = env.get(var)
    if d is None:
        errors.append(f"{var}: in the settings table, not documented in docs/config.md")
        continue
    if len(d) != 5:
        errors.append(f"{var}: the docs row has {len(d)} cells, not 5")
        continue
    if d[1] != (f"`{key}`" if key else ""):
        errors.append(f"{var}: config key {d[1]!r} in the docs, {key!r} in the table")
    if d[2] != grammar:
        errors.append(f"{var}: value {d[2]!r} in the docs, {grammar!r} in the table")
    if d[3] != dflt:
        errors.append(f"{var}: default {d[3]!r} in the docs, {dflt!r} in the table")
    if not d[4].startswith(doc):
        errors.append(f"{var}: the meaning does not start with the table's line {doc!r}")
for var in env:
    if var not in want_vars:
        errors.append(f"{var}: documented in docs/config.md, not in the settings table")

keys = {r[0].strip("`"): r for r in table_after(text, "## Settings")}
want_keys = {r[1]: r for r in rows if r[1]}
for key, (var, k, grammar, dflt, doc) in want_keys.items():
    d = keys.get(key)
    if d is None:
        errors.append(f"key {key}: in the settings table, not in docs/config.md's Settings")
        continue
    if d[2] != dflt:
        errors.append(f"key {key}: default {d[2]!r} in the docs, {dflt!r} in the table")
    if d[3] != (f"`{var}`" if var else ""):
        errors.append(f"key {key}: variable {d[3]!r} in the docs, {var!r} in the table")
for key in keys:
    if key not in want_keys:
        errors.append(f"key {key}: documented in docs/config.md, not in the settings table")

# every SCOPE_ variable the page mentions anywhere is one of the table's
# (SCOPE__* are the preload's own markers to its children, not settings)
for name in sorted(set(re.findall(r"\bSCOPE_[A-Z][A-Z0-9_]*", text))):
    if name not in want_vars:
        errors.append(f"{name}: mentioned in docs/config.md, not in the settings table")

for e in errors:
    print("FAIL " + e)
if errors:
    sys.exit(1)
print(f"check_settings_docs: {len(want_vars)} variables and {len(want_keys)} config keys "
      "documented as the table declares them")
