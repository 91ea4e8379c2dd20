"""check_report.py - prog_mpiio.c under Open MPI, 4 ranks: what `scope
report` shows of its I/O. The timeline draws every I/O call in the I/O
colours (writes amber, reads gold, the other I/O calls pale tan) and no
other call in them; the I/O section's heat map holds, per rank, the
bytes the rank read and wrote: 132 and 446 (the MPI-IO calls of the
design, check_mpiio.py; the POSIX calls under them are counted in them,
once), as io_report() has them.

usage: check_report.py SCOPE PRELOAD PROG OUTDIR
"""
import collections
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from io_common import N, expect, fail, profile, run  # noqa: E402

WRITE, READ, OTHER = "#c0782a", "#d9b44a", "#e6d2ad"


def main():
    scope_exe, preload, prog, outdir = sys.argv[1:5]
    outdir = os.path.abspath(outdir)
    data = os.path.join(outdir, "data")
    os.makedirs(data, exist_ok=True)
    res = profile(scope_exe, preload, "openmpi", [os.path.abspath(prog), data], outdir,
                  bare=False)
    html = os.path.join(outdir, "r.html")
    env = {k: v for k, v in res.env.items() if k != "LD_PRELOAD"}
    out = run([res.scope, "report", "-o", html, res.out], env, outdir)
    if out.returncode != 0 or out.stderr:
        fail(f"scope report: {out.returncode} {out.stderr}")
    with open(html) as f:
        page = f.read()

    # the timeline: each lane's calls with their colours
    calls = res.p.io_calls()
    want = {"io_write": WRITE, "io_read": READ}
    timeline = page[page.index('class="scope-timeline"'):]
    timeline = timeline[:timeline.index("</svg>")]
    drawn = collections.Counter()
    for lane in re.split(r'<g class="lane" ', timeline)[1:]:
        rank = int(re.match(r'data-rank="(\d+)"', lane).group(1))
        for m in re.finditer(r'<rect class="call" data-region="\d+" [^>]* fill="(#[0-9a-f]{6})">'
                             r'<title>([^\n<]*)', lane):
            fill, name = m.groups()
            io = calls[(calls["rank"] == rank) & (calls["name"] == name)]
            if io.empty:
                if fill in (WRITE, READ, OTHER):
                    fail(f"rank {rank}: {name}, no I/O call, drawn in an I/O colour {fill}")
                continue
            cls = set(io["cls"])
            expect(fill, want.get(cls.pop(), OTHER) if len(cls) == 1 else fill,
                   f"rank {rank}: {name}'s colour")
            drawn[rank] += 1
    expect([drawn[r] for r in range(N)], [int((calls["rank"] == r).sum()) for r in range(N)],
           "timeline: I/O calls drawn per rank")
    for name, col in (("MPI_File_write_at", WRITE), ("MPI_File_read_all", READ),
                      ("MPI_File_open", OTHER)):
        if not re.search(rf'fill="{col}"><title>{name}\n', timeline):
            fail(f"timeline: no {name} in {col}")

    # the heat map: per rank, bytes read and written
    heat = collections.defaultdict(lambda: [0.0, 0.0])
    for m in re.finditer(r'class="heat" data-rank="(\d+)" data-bin="\d+" '
                         r'data-read="([\d.]+)" data-written="([\d.]+)"', page):
        h = heat[int(m.group(1))]
        h[0] += float(m.group(2))
        h[1] += float(m.group(3))
    got = {r: (round(v[0]), round(v[1])) for r, v in heat.items()}
    expect(got, {r: (132, 446) for r in range(N)}, "heat map: bytes read and written per rank")
    ranks = res.p.io_report()["ranks"]
    expect({int(x.rank): (int(x.bytes_read), int(x.bytes_written)) for x in ranks.itertuples()},
           got, "heat map against io_report()'s ranks")
    print(f"ok: report: {sum(drawn.values())} I/O calls in the I/O colours, heat map "
          f"132 read and 446 written per rank")


main()
