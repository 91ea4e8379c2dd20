#!/usr/bin/env python3
"""check_patch.py CASE PRELOAD PROGRAM... OUTDIR

Runs one interposition case: writes the case's config into OUTDIR, runs the
program bare and under PRELOAD (LD_PRELOAD + SCOPE_CONFIG + SCOPE_OUTPUT),
requires byte-identical stdout and exit status, then opens the profile with
h5py and checks the exact count of every region, its kind, the nesting the
case implies, and the /rank0/interposition rows. Exits 1 with a message on
the first difference.
"""
import os
import re
import subprocess
import sys

import h5py
import numpy as np

BASIC = ["depth", "vsum", "vfmt", "many", "stackargs", "vlong", "ffun", "dfun", "ldfun", "mkbig",
         "mkpair", "by_pointer", "tail_inner", "tail_outer", "exported_add", "tiny"]
BASIC_COUNTS = {"depth": 10000, "vsum": 3, "vfmt": 1, "many": 2, "stackargs": 2, "vlong": 2,
                "ffun": 1,
                "dfun": 1, "ldfun": 1, "mkbig": 1, "mkpair": 1,
                "by_pointer": 5, "tail_inner": 4, "tail_outer": 4,
                "exported_add": 2}

CASES = {
    "basic_pie": dict(config="\n".join(BASIC), counts=BASIC_COUNTS,
                      nested=[("tail_inner", "tail_outer")],
                      max_depth={"depth": 10000},
                      refused={"tiny": "function is 4 bytes, shorter than the 5-byte patch"}),
    "basic_nopie": dict(config="\n".join(BASIC), counts=BASIC_COUNTS,
                        nested=[("tail_inner", "tail_outer")],
                        max_depth={"depth": 10000},
                        refused={"tiny": "function is 4 bytes, shorter than the 5-byte patch"}),
    "longjmp": dict(config="guarded\njumper\nsig_target\nin_handler\nleaf",
                    counts={"guarded": 10, "jumper": 40, "sig_target": 3,
                            "in_handler": 3, "leaf": 5},
                    nested=[("jumper", "guarded")], max_depth={"jumper": 4},
                    unwound=43),
    "exit": dict(config="quitter\nbefore_quit", counts={"quitter": 1, "before_quit": 1},
                 nested=[("quitter", "before_quit")], unwound=2),
    "reloc": dict(config="reloc_call\nreloc_jcc\nreloc_rip\nreloc_endbr\nreloc_push",
                  counts={"reloc_call": 3, "reloc_jcc": 5, "reloc_rip": 4, "reloc_endbr": 6,
                          "reloc_push": 2}),
    "deep": dict(config="deep", counts={"deep": 131072}, unwound=0, overflow=140001 - 131072),
    "signal": dict(config="outer_with_signal\nleaf",
                   counts={"outer_with_signal": 6, "leaf": 18},
                   nested=[("leaf", "outer_with_signal")]),
    "fork": dict(config="leaf", counts={"leaf": 3}),
    "threads": dict(config="tcall\nexiter", counts={"tcall": 800000, "exiter": 1},
                    threads={"tcall": 8}, unwound=1),
    "libs": dict(config="lib_compute\nlibpatchdyn.so:dyn_compute\nlibnothere.so:lib_compute\n"
                        "lib_tiny\nlib_loop\nlib_mid\nlib_alias\nlib_ifunc",
                 counts={"lib_compute": 8, "dyn_compute": 7, "lib_tiny": 10, "lib_loop": 2,
                         "lib_ifunc": 7},
                 already=["lib_alias"],
                 not_found=["libnothere.so:lib_compute"],
                 suggest={"libnothere.so:lib_compute": "no loaded object is 'libnothere.so' "
                          "yet (looked for again at each dlopen)"},
                 got={"lib_tiny": "inline refused (function is 4 bytes, shorter than the "
                                  "5-byte patch); 1 GOT slot",
                      "lib_loop": "inline refused (a branch at +0x7 jumps back into the "
                                  "patched bytes); 1 GOT slot"},
                 refused={"lib_mid": "entry is not at an instruction boundary of lib_whole; "
                                     "no GOT slot imports it either"},
                 lines=["scope: 'lib_tiny' (line 4): 0 inline, 1 GOT, 0 refused: lib_tiny in "
                        "libpatchlib.so (GOT, 1 slot: inline refused: function is 4 bytes, "
                        "shorter than the 5-byte patch)",
                        "scope: 'lib_mid' (line 6): 0 inline, 0 GOT, 1 refused: lib_mid in "
                        "libpatchlib.so refused: entry is not at an instruction boundary of "
                        "lib_whole; no GOT slot imports it either",
                        "scope: 'lib_alias' (line 7): 0 inline, 0 GOT, 0 refused, already "
                        "instrumented: lib_alias in libpatchlib.so (already instrumented)",
                        "scope: warning: 'libnothere.so:lib_compute' (line 3) matched no "
                        "function loaded at start; no loaded object is 'libnothere.so' yet "
                        "(looked for again at each dlopen)",
                        "scope: 'libpatchdyn.so:dyn_compute' (line 2): 1 inline, 0 GOT, "
                        "0 refused: dyn_compute in libpatchdyn.so (inline)"]),
    # the profiler's own disassembler, loaded by the first patch, is not
    # instrumented by the dlopen look that follows (libpatchdyn's)
    "own_helpers": dict(config="Zydis*\nlib_compute", counts={"lib_compute": 8},
                        no_object="libZydis"),
    "cxx": dict(config="ns::Solver::step(int)\n\"ns::Square::*\"\nns::thrower(int)\n"
                       "catch*\nrethrower()\nns::Solver::stpe(int)\nkeeper()\nreplayer()",
                counts={"ns::Solver::step(int)": 100, "ns::Square::area() const": 7,
                        "ns::thrower(int)": 25, "catcher(int)": 5, "rethrower()": 2,
                        "keeper()": 1, "replayer()": 3},
                nested=[("ns::thrower(int)", ["catcher(int)", "rethrower()", "keeper()"])],
                not_found=["ns::Solver::stpe(int)"],
                suggest={"ns::Solver::stpe(int)": "did you mean: ns::Solver::step(int)"},
                unwound=30,
                lines=["scope: warning: 'ns::Solver::stpe(int)' (line 6) matched no function "
                       "loaded at start; did you mean: ns::Solver::step(int)",
                       "scope: 'catch*' (line 4): 1 inline, 0 GOT, 0 refused: catcher(int) in "
                       "prog_cxx (inline)"]),
    "cxx_nolib": dict(config="solver::work(double)\nsolver::work(int)",
                      counts={"solver::work(double)": 20, "solver::work(int)": 4},
                      nested=[("solver::work(double)", "solver::work(int)")],
                      no_libstdcxx=True),
    # 256- and 512-bit vectors in and out, as the CPU has them (counts set
    # in main from /proc/cpuinfo), and the upper halves left clean
    "vector": dict(config="vmul256\nvmul512\nplain", counts={"plain": 5}),
    "basic_stripped": dict(config="\n".join(BASIC),
                           counts={"exported_add": 2},
                           not_found=[n for n in BASIC if n not in ("exported_add", "tiny")],
                           refused={"tiny": "function is 4 bytes, shorter than the 5-byte patch"}),
}

# arm64 (tests/arm64, under qemu): the same programs, where a 4-byte
# function is long enough for the 4-byte branch; and one function per
# PC-relative class at the entry (reloc_a64.S), each with its count.
A64_RELOC = {"r_adr": 3, "r_adrp": 3, "r_ldr_x": 3, "r_ldr_w": 3, "r_ldrsw": 3,
             "r_ldr_s": 2, "r_ldr_d": 2, "r_ldr_q": 2, "r_prfm": 2, "r_b": 2, "r_bl": 4,
             "r_bcond": 5, "r_cbz": 3, "r_cbnz": 3, "r_tbz": 4, "r_tbnz": 4, "r_bti_adr": 1}
CASES.update({
    "a64_basic": dict(config="\n".join(BASIC), counts=dict(BASIC_COUNTS, tiny=1),
                      nested=[("tail_inner", "tail_outer")],
                      max_depth={"depth": 10000}),
    # r_bl returns through x15, never through its own x30: each of its calls
    # is closed as unwound by the next call made from the same depth
    "a64_reloc": dict(config="\n".join(list(A64_RELOC) + ["r_excl", "r_loop"]),
                      counts=A64_RELOC, unwound=4,
                      refused={"r_excl": "an exclusive load/store at +0x0 (its monitor "
                                         "sequence cannot be split)",
                               "r_loop": "a branch at +0x18 jumps back into the patched "
                                         "bytes"}),
    # BTI-guarded pages, `bti c` and `paciasp` entries (under qemu -cpu max)
    "a64_bti": dict(config="bti_leaf\nbti_nonleaf\nbti_excl",
                    counts={"bti_leaf": 7 + 5 + (0 + 1 + 2 + 3 + 4), "bti_nonleaf": 5,
                            "bti_excl": 3},
                    got={"bti_excl": "inline refused (an exclusive load/store at +0x4 (its "
                                     "monitor sequence cannot be split)); 1 GOT slot"}),
})


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


def run(cmd, env, cwd):
    p = subprocess.run(cmd, env=env, cwd=cwd, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, timeout=600)
    return p.returncode, p.stdout, p.stderr


def regions_of(path):
    """{name: (starts, ends, threads, kind)} of rank 0."""
    out = {}
    with h5py.File(path, "r") as f:
        r = f["rank0"]
        for link, g in r["regions"].items():
            name = g.attrs.get("name", link)
            if isinstance(name, bytes):
                name = name.decode()
            kind = g.attrs.get("kind", b"")
            if isinstance(kind, bytes):
                kind = kind.decode()
            s = np.asarray(g["start_times"][()])
            e = np.asarray(g["end_times"][()])
            t = np.asarray(g["thread_ids"][()]) if "thread_ids" in g else np.zeros(len(s), int)
            if kind == "io":    # the I/O calls timed by default (issue 46): not patching's
                continue
            out[name] = (s, e, t, kind)
        rows = []
        if "interposition" in r:
            tab = r["interposition"][()]
            for row in tab:
                row = tuple(x.decode() if isinstance(x, bytes) else str(x) for x in row)
                if not row[0].startswith("[io] "):  # the I/O capture's own functions
                    rows.append(row)
    return out, rows


def max_nesting(s, e):
    ev = sorted([(x, 1) for x in s] + [(x, -1) for x in e], key=lambda p: (p[0], p[1]))
    d = m = 0
    for _, k in ev:
        d += k
        m = max(m, d)
    return m


def main():
    case, outdir = sys.argv[1], os.path.abspath(sys.argv[-1])
    preload, prog = os.path.abspath(sys.argv[2]), os.path.abspath(sys.argv[3])
    args = [os.path.abspath(a) if os.path.exists(a) else a for a in sys.argv[4:-1]]
    c = CASES[case]
    if case == "vector":
        flags = next((ln.split(":", 1)[1].split() for ln in open("/proc/cpuinfo")
                      if ln.startswith("flags")), [])
        c["counts"] = dict(c["counts"], **({"vmul256": 3} if "avx2" in flags else {}),
                           **({"vmul512": 3} if "avx512f" in flags else {}))
    conf = os.path.join(outdir, "scope.conf")
    with open(conf, "w") as f:
        f.write(c["config"] + "\n")
    env = dict(os.environ)
    for k in list(env):
        if (k.startswith("SCOPE_") and k != "SCOPE_TRAMPOLINE") or k == "LD_PRELOAD":
            del env[k]
    if c.get("no_libstdcxx"):
        # the case means something only if the program really lacks it
        needed = subprocess.run(["readelf", "-d", prog], capture_output=True, text=True).stdout
        if "libstdc++" in needed:
            fail(f"{prog} needs libstdc++; the case wants a program without it")
    rc0, out0, err0 = run([prog] + args, env, outdir)
    penv = dict(env, LD_PRELOAD=preload, SCOPE_H5WRITER=os.environ.get("SCOPE_H5WRITER", ""), SCOPE_CONFIG=conf,
                SCOPE_OUTPUT=os.path.join(outdir, "p.h5"), SCOPE_VERBOSE="1")
    rc1, out1, err1 = run([prog] + args, penv, outdir)
    sys.stderr.write(err1.decode(errors="replace"))
    if rc0 != rc1:
        fail(f"exit status {rc1} under the preload, {rc0} bare")
    if out0 != out1:
        fail(f"output differs:\n--- bare\n{out0!r}\n--- profiled\n{out1!r}")
    if case == "vector" and b"upper halves after it: in use" in out0:
        fail("the bare run leaves the upper halves in use: the case checks nothing")
    regs, rows = regions_of(os.path.join(outdir, "p.h5"))
    got = {n: len(v[0]) for n, v in regs.items() if len(v[0]) or case != "vector"}
    if got != c["counts"]:
        fail(f"counts {got}, expected {c['counts']}")
    for n, (s, e, t, kind) in regs.items():
        if np.any(e < s):
            fail(f"{n}: an end before its start")
        want = c.get("kinds", {}).get(n, "function")
        if kind != want:
            fail(f"{n}: kind {kind!r}, expected {want!r}")
    for inner, outer in c.get("nested", []):
        si, ei, _, _ = regs[inner]
        outers = [outer] if isinstance(outer, str) else outer
        so = np.concatenate([regs[o][0] for o in outers])
        eo = np.concatenate([regs[o][1] for o in outers])
        for a, b in zip(si, ei):
            if not np.any((so <= a) & (b <= eo)):
                fail(f"a call of {inner} at {a} is not inside any {outer}")
    for n, d in c.get("max_depth", {}).items():
        m = max_nesting(*regs[n][:2])
        if m != d:
            fail(f"{n}: nesting depth {m}, expected {d}")
    status = {}
    for row in rows:
        status.setdefault(row[0], []).append(row)
    for n in c.get("not_found", []):
        r = status.get(n)
        if not r or r[0][4] != "not found":
            fail(f"{n}: interposition rows {r}, expected 'not found'")
        if f"'{n}'" not in err1.decode():
            fail(f"no warning for {n} on stderr")
    m = re.search(r"scope: interposition: (\d+) calls closed as unwound \(longjmp, exception, "
                  r"thread exit\), (\d+) not recorded \(shadow stack full\)\n", err1.decode())
    if not m:
        fail("no interposition summary on stderr")
    if (int(m[1]), int(m[2])) != (c.get("unwound", 0), c.get("overflow", 0)):
        fail(f"unwound {m[1]}, not recorded {m[2]}; expected {c.get('unwound', 0)}, "
             f"{c.get('overflow', 0)}")
    err_lines = err1.decode().splitlines()
    for line in c.get("lines", []):
        if line not in err_lines:
            fail(f"stderr lacks the line {line!r}")
    for n, want in c.get("threads", {}).items():
        t = regs[n][2]
        if len(set(t.tolist())) != want:
            fail(f"{n}: {len(set(t.tolist()))} thread ids, expected {want}")
        per = np.bincount(t)
        if sorted(per[per > 0].tolist()) != [c["counts"][n] // want] * want:
            fail(f"{n}: per-thread counts {per.tolist()}")
    for n, sug in c.get("suggest", {}).items():
        r = status.get(n)
        if not r or r[0][5] != sug:
            fail(f"{n}: interposition rows {r}, expected the suggestion {sug!r}")
    for n in c.get("already", []):
        r = status.get(n)
        if not r or r[0][3:6] != ("inline", "patched",
                                  "already instrumented by an earlier entry or alias"):
            fail(f"{n}: interposition rows {r}, expected 'already instrumented'")
    for n, why in c.get("got", {}).items():
        r = status.get(n)
        if not r or r[0][3:6] != ("got", "patched", why):
            fail(f"{n}: interposition rows {r}, expected got/patched: {why}")
    for n, why in c.get("refused", {}).items():
        r = status.get(n)
        if not r or r[0][4] != "refused" or r[0][5] != why:
            fail(f"{n}: interposition rows {r}, expected refused: {why}")
    if c.get("no_object"):
        own = [x for x in rows if c["no_object"] in x[2]]
        if own:
            fail(f"rows for the profiler's own {c['no_object']}: {own[:3]}")
    for n in c["counts"]:
        r = [x for x in rows if x[1] == n or x[0] == n or n.startswith(x[0].rstrip("*"))]
        if not r or r[0][4] != "patched":
            fail(f"{n}: interposition rows {r}, expected 'patched'")
    print(f"ok: {case}: {sum(got.values())} events in {len(got)} regions")


main()
