#!/usr/bin/python3
"""check_hatchet.py SCOPE PROFILE... - `scope export --to hatchet`.

The form is Hatchet's "literal" graph (hatchet/readers/literal_reader.py,
GraphFrame.from_literal): a JSON list of root nodes; a node is an object
with "frame" (an object with a string "name" and a string "type"),
"metrics" (an object of numbers, the same names on every node: a name
containing "(inc)" is inclusive, the others exclusive) and optionally
"children" (a list of nodes). Hatchet (not packaged by Debian) is not
installed here, so this checks the output against that definition, and
walks it as the literal reader does (roots, then children depth first),
collecting the exclusive and inclusive metric names it would set.

For each PROFILE, per rank and with --aggregate:
  1. the form: every node has exactly frame/metrics/children (roots may
     also carry "metadata", which the literal reader does not read),
     metrics exactly {"time (inc)", "time", "calls"}, inclusive metric
     "time (inc)", exclusive "time" and "calls";
  2. the values: node by node, in order, name, depth, calls, inclusive and
     exclusive time equal `scope tree --format json` of the same profile
     (--rank N for each rank's root; its children are that rank's tree),
     and each node's inclusive time is its exclusive time plus its
     children's inclusive times;
  3. per rank, the root "rank N" (type "rank") has the inclusive time of
     its roots, 0 exclusive time and 0 calls; every root carries the
     run's metadata (tool, ranks, aggregated, rank, /metadata attributes);
  4. --aggregate with another format, and a bad path, are errors.
"""
import json
import math
import subprocess
import sys

SCOPE = sys.argv[1]
PROFILES = sys.argv[2:]
failures = []
METRICS = {"time (inc)", "time", "calls"}


def check(ok, what):
    if not ok:
        failures.append(what)
        print("FAIL:", what, file=sys.stderr)


def run(*args):
    p = subprocess.run([SCOPE, *args], capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


def check_form(node, where, root):
    allowed = {"frame", "metrics", "children"} | ({"metadata"} if root else set())
    check(isinstance(node, dict) and {"frame", "metrics"} <= set(node) <= allowed,
          f"{where}: keys {sorted(node) if isinstance(node, dict) else node}")
    fr = node.get("frame", {})
    check(isinstance(fr, dict) and isinstance(fr.get("name"), str) and
          isinstance(fr.get("type"), str) and set(fr) == {"name", "type"}, f"{where}: frame {fr}")
    m = node.get("metrics", {})
    check(set(m) == METRICS and all(isinstance(v, (int, float)) and not isinstance(v, bool)
                                    for v in m.values()), f"{where}: metrics {m}")
    kids = node.get("children", [])
    check(isinstance(kids, list), f"{where}: children is a list")
    total_kids = sum(k["metrics"]["time (inc)"] for k in kids)
    if fr.get("type") != "rank":
        check(math.isclose(m["time (inc)"], m["time"] + total_kids, rel_tol=1e-9, abs_tol=1e-12),
              f"{where}: inclusive {m['time (inc)']} != self {m['time']} + children {total_kids}")
    for i, k in enumerate(kids):
        check_form(k, f"{where}/{k.get('frame', {}).get('name')}", False)


def literal_walk(roots):
    """What hatchet's LiteralReader collects: (name, depth, metrics) in
    its order, and the exclusive and inclusive metric names (taken from
    the last root's metrics)."""
    out = []

    def visit(n, d):
        out.append((n["frame"]["name"], d, n["metrics"]))
        for c in n.get("children", []):
            visit(c, d + 1)

    for r in roots:
        visit(r, 0)
    keys = roots[-1]["metrics"].keys() if roots else []
    return out, [k for k in keys if "(inc)" not in k], [k for k in keys if "(inc)" in k]


def tree_nodes(path, rank=None):
    args = ["tree", "--format", "json"] + (["--rank", str(rank)] if rank is not None else [])
    rc, out, err = run(*args, path)
    check(rc == 0, f"scope tree {path} {rank}: {err}")
    return json.loads(out)["nodes"]


def same_values(walk, nodes, what, shift=0):
    check(len(walk) == len(nodes), f"{what}: {len(walk)} nodes, scope tree has {len(nodes)}")
    for (name, depth, m), t in zip(walk, nodes):
        ok = (name, depth - shift, m["calls"], m["time (inc)"], m["time"]) == \
             (t["name"], t["depth"], t["calls"], t["total"], t["self"])
        check(ok, f"{what}: {name} depth {depth}: {m} vs scope tree {t}")


for path in PROFILES:
    # aggregated
    rc, out, err = run("export", "--to", "hatchet", "--aggregate", "-o", "-", path)
    check(rc == 0 and err == "", f"{path}: aggregate: {rc} {err}")
    roots = json.loads(out)
    check(isinstance(roots, list) and roots, f"{path}: a non-empty list of roots")
    for r in roots:
        check_form(r, f"{path}:{r['frame']['name']}", True)
        md = r.get("metadata", {})
        check(md.get("tool") == "scope" and md.get("aggregated") is True and "rank" not in md,
              f"{path}: aggregated root metadata {md}")
    walk, exc, inc = literal_walk(roots)
    check(exc == ["time", "calls"] and inc == ["time (inc)"], f"{path}: metrics {exc} {inc}")
    same_values(walk, tree_nodes(path), f"{path} aggregated")
    # per rank
    rc, out, err = run("export", "--to", "hatchet", "-o", "-", path)
    check(rc == 0 and err == "", f"{path}: per rank: {rc} {err}")
    roots = json.loads(out)
    ranks = [int(r["frame"]["name"].split()[1]) for r in roots]
    check(ranks == sorted(ranks) and len(ranks) == roots[0]["metadata"]["ranks"],
          f"{path}: one root per rank {ranks}")
    for r, rank in zip(roots, ranks):
        check_form(r, f"{path}:rank {rank}", True)
        check(r["frame"] == {"name": f"rank {rank}", "type": "rank"}, f"{path}: rank frame")
        kids = r["children"]
        check(math.isclose(r["metrics"]["time (inc)"],
                           sum(k["metrics"]["time (inc)"] for k in kids), abs_tol=1e-12) and
              r["metrics"]["time"] == 0 and r["metrics"]["calls"] == 0, f"{path}: rank {rank} metrics")
        md = r["metadata"]
        check(md["rank"] == rank and md["aggregated"] is False, f"{path}: rank {rank} metadata")
        walk, _, _ = literal_walk(kids)
        same_values(walk, tree_nodes(path, rank), f"{path} rank {rank}")

# what the metadata holds, from a profile that has it
rc, out, err = run("export", "--to", "hatchet", "--aggregate", "-o", "-", PROFILES[0])
md = json.loads(out)[0]["metadata"]
check("hostname" in md and "mpi_size" in md, f"metadata of {PROFILES[0]}: {md}")

rc, out, err = run("export", "--to", "folded", "--aggregate", "-o", "-", PROFILES[0])
check(rc == 2 and "--aggregate is for --to hatchet" in err, f"--aggregate elsewhere: {err}")
rc, out, err = run("export", "--to", "hatchet", "-o", "-", "/nonexistent/run.h5")
check(rc == 1 and out == "" and "/nonexistent/run.h5" in err, f"bad path: {err}")

if failures:
    print(f"{len(failures)} failures", file=sys.stderr)
    sys.exit(1)
print("hatchet literal form and values checked on", len(PROFILES), "profiles")
