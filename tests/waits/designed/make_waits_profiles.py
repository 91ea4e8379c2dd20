#!/usr/bin/python3
"""make_waits_profiles.py OUTDIR - profiles whose messages and waits are
designed by hand, written with h5py (not with scope's writer) in the
layout of docs/format.md "What MPI calls moved", for test_waits_designed.c:
the wait-state analysis checked to the nanosecond without an MPI run, so
that it also runs under AddressSanitizer, UBSan and valgrind (the MPI
tests of check_waits.py need the preload, which those builds leave out).

designed.h5: 4 ranks on one host, times in ns (the expected results are
in test_waits_designed.c, derived there from this table):

  rank 0  MPI_Recv    #0 [100,300]  from 1 tag 5       late sender 150 (1)
          MPI_Recv    #1 [400,450]  from 2 tag 9 (ANY_SOURCE, status) late sender 20 (2)
          MPI_Recv    #2 [2000,2100] from 1 tag 77     never sent: unmatched
          MPI_Irecv   #0 [500,510]  from 3 tag 1  -> MPI_Wait #0 [600,700]: late sender 50 (3)
          MPI_Irecv   #1 [520,530]  from 3 tag 2  -> cancelled (MPI_Wait #1 [710,720])
  rank 1  MPI_Send    #0 [250,260]  to 0 tag 5
          MPI_Ssend   #0 [300,500]  to 2 tag 3     late receiver 150 (2)
          MPI_Sendrecv #0 [1200,1300] to 2 tag 4 / from 2 (receive tag unknown)
  rank 2  MPI_Send    #0 [420,430]  to 0 tag 9
          MPI_Recv    #0 [450,460]  from 1 tag 3
          MPI_Sendrecv #0 [1150,1300] to 1 tag 4 / from 1: late sender 50 (1)
  rank 3  MPI_Isend   #0 [650,660]  to 0 tag 1  -> MPI_Wait #0 [670,680]
          MPI_Send    #0 [3000,3010] to 1 tag 99   never received: unmatched
  all     MPI_Barrier #0 entries 1000 / 1050 / 1080 / 1090, ends 1100:
          waits 90, 40, 10 at barrier for rank 3
          MPI_Bcast   #0 root 0 enters 5000; 1 at 4900, 2 at 5050, 3 at
          5200; ends 5100 (3: 5210): late broadcast 100 and 50 for 0
          MPI_Reduce  #0 root 0 [6000,6300]; 1, 2, 3 enter 6100, 6250,
          6050: early reduce 250 for 2

two_hosts.h5: the same, ranks 2 and 3 on a second host, every rank's
clock_error_ns 30: waits between the hosts of at most 60 ns are counted
within the bound (rank 0's 50 for rank 3, 20 for rank 2; the barrier's
40 of rank 1 and 10 of rank 2 are on the same host as rank 3 or not...
see the test), never timed.

started.h5: 2 ranks on one host, requests started by MPI_Startall (each
send's row names its destination) and nonblocking collectives whose wait
is in the call that completed them:

  rank 0  MPI_Startall #0 [100,110] a send to 1 tag 7 (8 bytes) and a
          receive (from 1 tag 8, 4 bytes), both completed by
          MPI_Waitall #0 [120,400]: late sender 230 for 1 (its send was
          started at 350); the send waited 180 for rank 1's receive (300)
          MPI_Iallreduce #0 [1000,1010] -> MPI_Wait #0 [1020,1500]: wait at
          N x N 180 for rank 1 (which entered at 1200)
          MPI_Ibarrier #0 [2000,2010] -> MPI_Test #0 [2020,2030]: completed
          by a test, so no wait
  rank 1  MPI_Startall #0 [300,310] the receive from 0 tag 7; #1 [350,360]
          the send to 0 tag 8; both completed by MPI_Waitall #0 [370,380]
          MPI_Iallreduce #0 [1200,1210] -> MPI_Wait #0 [1220,1230]
          MPI_Ibarrier #0 [2500,2510] -> MPI_Wait #1 [2520,2530]

renamed.h5: designed.h5 with every region renamed as a config's `as NAME`
does (MPI_Recv recorded as "halo_recv", ...), each saying which call it
is in its `operation` attribute (docs/format.md "Operations"): the
analysis and the matrices must read it as designed.h5, from the
attribute, not the name.

newcalls.h5: 2 ranks, the calls of MPI 3 and 4 the analysis knows from
the vocabulary's rows alone (no name of them anywhere in the reader):

  rank 0  MPI_Isendrecv #0 [100,110] to 1 tag 3 (4 bytes) / from 1 tag 3
          -> MPI_Wait #0 [120,400]: its receive, sent at 350: late sender
          230 for 1
          MPI_Send #0 [650,660] to 1 tag 4 (8 bytes)
  rank 1  MPI_Mprobe #0 [50,60] (moves nothing)
          MPI_Mrecv #0 [300,310] from 0 tag 3 (the message its probe
          matched: source and tag from the status): no wait
          MPI_Send #0 [350,360] to 0 tag 3 (4 bytes)
          MPI_Imrecv #0 [500,510] from 0 tag 4 -> MPI_Wait #0 [520,700]:
          late sender 130 for 0

far.h5: world ranks 0, 1 and 1048576 (2^20): rank 0 sends to 1048576
(tag 5) at 100, rank 1 to rank 0 (tag 5) at 200; rank 0's receive from 1
is posted at 50, rank 1048576's from 0 at 150. Keys that packed a rank
into 20 bits made (0 -> 2^20) and (1 -> 0) one key and crossed them.

io.h5: 2 ranks, rank 1 busy in I/O while rank 0 waits for it (docs/
analysis.md "Waits spent in I/O"; the expected numbers are in
test_waits_designed.c):

  rank 0  MPI_Recv    #0 [100,1000] from 1 tag 5: late sender 800 for 1,
          over [100,900]
          MPI_Barrier #0 [2000,2100]: wait at barrier 50 for 1, [2000,2050]
  rank 1  MPI_Send    #0 [900,910] to 0 tag 5; MPI_Barrier #0 [2050,2100]
          files: 0 /d/a.dat, 1 /d/b.dat, 2 the dataset /grid of 3 /d/c.h5
          I/O (region [start,end] file issuer thread):
          write [50,120] b 0 0             20 of the wait, on b
          MPI_File_write_at_all [150,400] a 0 0     250 on a
            pwrite64 [160,390] a mpiio 0   inside it: not counted again
          write [450,500] b 0 0            50 on b
          fwrite [520,560] b 0 0           40 on b
            write [530,550] b stdio 0      inside it: not counted again
          write [600,700] b 0 thread 1     100 on b
          read [650,750] a 0 thread 2      50 on a (its part past 700)
          fsync [880,950] a 0 0            20 on a (up to 900)
          H5Dwrite [2000,2040] /grid 0 0   40 of the barrier's, on c.h5
          open64 [2045,2060] no file 0 0   5 of the barrier's, no file

damaged.h5: designed.h5 with a call whose communicator row does not
exist and a request row naming a region past the region table: the
analysis counts them as not placed, and matches the rest.
"""
import os
import shutil
import sys

import h5py
import numpy as np

NOTAG = -2147483648

# (region, calls): each call (start, end, dest, source, tag, sent, received, comm)
D = {
    0: {"MPI_Recv": [(100, 300, -1, 1, 5, 0, 8, 0), (400, 450, -1, 2, 9, 0, 8, 0),
                     (2000, 2100, -1, 1, 77, 0, 8, 0)],
        "MPI_Irecv": [(500, 510, -1, 3, 1, 0, 4, 0), (520, 530, -1, 3, 2, 0, 0, 0)],
        "MPI_Wait": [(600, 700, -1, -1, NOTAG, 0, 0, 0), (710, 720, -1, -1, NOTAG, 0, 0, 0)],
        "MPI_Barrier": [(1000, 1100, -1, -1, NOTAG, 0, 0, 0)],
        "MPI_Bcast": [(5000, 5100, 0, 0, NOTAG, 16, 0, 0)],
        "MPI_Reduce": [(6000, 6300, 0, 0, NOTAG, 8, 8, 0)]},
    1: {"MPI_Send": [(250, 260, 0, -1, 5, 8, 0, 0)],
        "MPI_Ssend": [(300, 500, 2, -1, 3, 8, 0, 0)],
        "MPI_Sendrecv": [(1200, 1300, 2, 2, 4, 4, 4, 0)],
        "MPI_Barrier": [(1050, 1100, -1, -1, NOTAG, 0, 0, 0)],
        "MPI_Bcast": [(4900, 5100, 0, 0, NOTAG, 0, 16, 0)],
        "MPI_Reduce": [(6100, 6110, 0, 0, NOTAG, 8, 0, 0)]},
    2: {"MPI_Send": [(420, 430, 0, -1, 9, 8, 0, 0)],
        "MPI_Recv": [(450, 460, -1, 1, 3, 0, 8, 0)],
        "MPI_Sendrecv": [(1150, 1300, 1, 1, 4, 4, 4, 0)],
        "MPI_Barrier": [(1080, 1100, -1, -1, NOTAG, 0, 0, 0)],
        "MPI_Bcast": [(5050, 5100, 0, 0, NOTAG, 0, 16, 0)],
        "MPI_Reduce": [(6250, 6260, 0, 0, NOTAG, 8, 0, 0)]},
    3: {"MPI_Isend": [(650, 660, 0, -1, 1, 4, 0, 0)],
        "MPI_Wait": [(670, 680, -1, -1, NOTAG, 0, 0, 0)],
        "MPI_Send": [(3000, 3010, 1, -1, 99, 8, 0, 0)],
        "MPI_Barrier": [(1090, 1100, -1, -1, NOTAG, 0, 0, 0)],
        "MPI_Bcast": [(5200, 5210, 0, 0, NOTAG, 0, 16, 0)],
        "MPI_Reduce": [(6050, 6060, 0, 0, NOTAG, 8, 0, 0)]},
}
# per rank: (post region, post call, done region, done call, source, tag, bytes, cancelled)
REQ = {
    0: [("MPI_Irecv", 0, "MPI_Wait", 0, 3, 1, 4, 0), ("MPI_Irecv", 1, "MPI_Wait", 1, 3, 2, 0, 1)],
    3: [("MPI_Isend", 0, "MPI_Wait", 0, -1, NOTAG, 0, 0)],
}


S = {
    0: {"MPI_Startall": [(100, 110, -1, -1, NOTAG, 8, 0, 0)],
        "MPI_Waitall": [(120, 400, -1, -1, NOTAG, 0, 0, 0)],
        "MPI_Iallreduce": [(1000, 1010, -1, -1, NOTAG, 8, 8, 0)],
        "MPI_Wait": [(1020, 1500, -1, -1, NOTAG, 0, 0, 0)],
        "MPI_Ibarrier": [(2000, 2010, -1, -1, NOTAG, 0, 0, 0)],
        "MPI_Test": [(2020, 2030, -1, -1, NOTAG, 0, 0, 0)]},
    1: {"MPI_Startall": [(300, 310, -1, 0, 7, 0, 8, 0), (350, 360, 0, -1, 8, 4, 0, 0)],
        "MPI_Waitall": [(370, 380, -1, -1, NOTAG, 0, 0, 0)],
        "MPI_Iallreduce": [(1200, 1210, -1, -1, NOTAG, 8, 8, 0)],
        "MPI_Wait": [(1220, 1230, -1, -1, NOTAG, 0, 0, 0), (2520, 2530, -1, -1, NOTAG, 0, 0, 0)],
        "MPI_Ibarrier": [(2500, 2510, -1, -1, NOTAG, 0, 0, 0)]},
}
# ... and (dest, bytes sent) of each request row
SREQ = {
    0: [("MPI_Startall", 0, "MPI_Waitall", 0, -1, 7, 0, 0, 1, 8),
        ("MPI_Startall", 0, "MPI_Waitall", 0, 1, 8, 4, 0, -1, 0),
        ("MPI_Iallreduce", 0, "MPI_Wait", 0, -1, NOTAG, 0, 0, -1, 0),
        ("MPI_Ibarrier", 0, "MPI_Test", 0, -1, NOTAG, 0, 0, -1, 0)],
    1: [("MPI_Startall", 0, "MPI_Waitall", 0, 0, 7, 8, 0, -1, 0),
        ("MPI_Startall", 1, "MPI_Waitall", 0, -1, 8, 0, 0, 0, 4),
        ("MPI_Iallreduce", 0, "MPI_Wait", 0, -1, NOTAG, 0, 0, -1, 0),
        ("MPI_Ibarrier", 0, "MPI_Wait", 1, -1, NOTAG, 0, 0, -1, 0)],
}


NEW = {
    0: {"MPI_Isendrecv": [(100, 110, 1, 1, 3, 4, 4, 0)],
        "MPI_Wait": [(120, 400, -1, -1, NOTAG, 0, 0, 0)],
        "MPI_Send": [(650, 660, 1, -1, 4, 8, 0, 0)]},
    1: {"MPI_Mprobe": [(50, 60, -1, -1, NOTAG, 0, 0, 0)],
        "MPI_Mrecv": [(300, 310, -1, 0, 3, 0, 4, 0)],
        "MPI_Send": [(350, 360, 0, -1, 3, 4, 0, 0)],
        "MPI_Imrecv": [(500, 510, -1, 0, 4, 0, 8, 0)],
        "MPI_Wait": [(520, 700, -1, -1, NOTAG, 0, 0, 0)]},
}
FAR = 1 << 20
FARD = {
    0: {"MPI_Send": [(100, 110, FAR, -1, 5, 8, 0, 0)],
        "MPI_Recv": [(50, 300, -1, 1, 5, 0, 4, 0)]},
    1: {"MPI_Send": [(200, 210, 0, -1, 5, 4, 0, 0)]},
    FAR: {"MPI_Recv": [(150, 400, -1, 0, 5, 0, 8, 0)]},
}

NEWREQ = {
    0: [("MPI_Isendrecv", 0, "MPI_Wait", 0, 1, 3, 4, 0)],
    1: [("MPI_Imrecv", 0, "MPI_Wait", 0, 0, 4, 8, 0)],
}


IOD = {
    0: {"MPI_Recv": [(100, 1000, -1, 1, 5, 0, 8, 0)],
        "MPI_Barrier": [(2000, 2100, -1, -1, NOTAG, 0, 0, 0)]},
    1: {"MPI_Send": [(900, 910, 0, -1, 5, 8, 0, 0)],
        "MPI_Barrier": [(2050, 2100, -1, -1, NOTAG, 0, 0, 0)]},
}
MPIIO, STDIO = 4, 3
# rank -> (files: (kind, parent, name), calls: (region, start, end, file, issuer, thread))
IO = {
    1: ([(0, -1, b"/d/a.dat"), (0, -1, b"/d/b.dat"), (2, 3, b"/grid"), (0, -1, b"/d/c.h5")],
        [("write", 50, 120, 1, 0, 0), ("MPI_File_write_at_all", 150, 400, 0, 0, 0),
         ("pwrite64", 160, 390, 0, MPIIO, 0), ("write", 450, 500, 1, 0, 0),
         ("fwrite", 520, 560, 1, 0, 0), ("write", 530, 550, 1, STDIO, 0),
         ("write", 600, 700, 1, 0, 1), ("read", 650, 750, 0, 0, 2),
         ("fsync", 880, 950, 0, 0, 0), ("H5Dwrite", 2000, 2040, 2, 0, 0),
         ("open64", 2045, 2060, -1, 0, 0)]),
}


def write_io(g, files, calls):
    """A rank's file table and I/O regions (docs/format.md "What I/O
    calls did")."""
    g.attrs["io_data"] = np.int64(1)
    fs = g.create_group("files")
    n = len(files)
    fs.create_dataset("kind", data=np.array([x[0] for x in files], np.int8))
    fs.create_dataset("parent", data=np.array([x[1] for x in files], np.int32))
    fs.create_dataset("layer", data=np.full(n, 2, np.int8))
    for col in ("dev", "ino", "block_size"):
        fs.create_dataset(col, data=np.zeros(n, np.int64))

    def blob(strings):
        return np.frombuffer(b"".join(x + b"\0" for x in strings), np.uint8)
    fs.create_dataset("names", data=blob([x[2] for x in files]))
    fs.create_dataset("resolved", data=blob([x[2] if x[0] != 2 else b"" for x in files]))
    fs.create_dataset("fs_types", data=blob([b""] * n))
    fs.create_dataset("mounts", data=blob([b""] * n))
    by = {}
    for c in calls:
        by.setdefault(c[0], []).append(c)
    for name, cs in by.items():
        cs.sort(key=lambda c: c[1])
        r = g["regions"].create_group(name)
        r.attrs["name"] = name
        r.attrs["kind"] = "io"
        r.create_dataset("start_times", data=np.array([c[1] for c in cs], np.int64))
        r.create_dataset("end_times", data=np.array([c[2] for c in cs], np.int64))
        r.create_dataset("thread_ids", data=np.array([c[5] for c in cs], np.int32))
        r.create_dataset("io_file", data=np.array([c[3] for c in cs], np.int32))
        r.create_dataset("io_bytes", data=np.zeros(len(cs), np.int64))
        r.create_dataset("io_offset", data=np.full(len(cs), -1, np.int64))
        r.create_dataset("io_issuer", data=np.array([c[4] for c in cs], np.int8))
        r.create_dataset("io_failed", data=np.array([1 if c[3] < 0 else 0 for c in cs],
                                                    np.int8))


def renamed(name):
    """renamed.h5's name of the region of call `name`."""
    return "halo_" + name[4:].lower()


def write(path, hosts, err_ns, damage=False, design=D, req=REQ, rename=False, io=None):
    size = len(design)
    with h5py.File(path, "w") as f:
        f.attrs["scope_format"] = np.int64(1)
        f.attrs["scope_profiler_schema"] = np.int64(1)
        m = f.create_group("metadata")
        m.attrs["start_time_ns"] = np.int64(0)
        m.attrs["mpi_size"] = np.int64(size)
        m.attrs["hostname"] = "h0"
        for rank, regions in design.items():
            g = f.create_group(f"rank{rank}")
            for k, v in [("rank", rank), ("pid", 100 + rank), ("start_time_ns", 0),
                         ("finalize_time_ns", 10000), ("dropped_events", 0), ("mpi_data", 1),
                         ("clock_aligned", 1), ("clock_host_index", hosts[rank]),
                         ("clock_error_ns", err_ns)]:
                g.attrs[k] = np.int64(v)
            g.attrs["hostname"] = f"h{hosts[rank]}"
            g.attrs["complete"] = np.int8(1)
            rg = g.create_group("regions")
            for name, calls in regions.items():
                r = rg.create_group(renamed(name) if rename else name)
                r.attrs["name"] = renamed(name) if rename else name
                r.attrs["kind"] = "mpi"
                if rename:
                    r.attrs["operation"] = name
                c = np.array(calls, dtype=np.int64)
                comm = c[:, 7].astype(np.int32)
                if damage and rank == 1 and name == "MPI_Send":
                    comm[0] = 7  # no such communicator row
                for col, i, t in [("start_times", 0, np.int64), ("end_times", 1, np.int64),
                                  ("dest", 2, np.int32), ("source", 3, np.int32),
                                  ("tag", 4, np.int32), ("bytes_sent", 5, np.int64),
                                  ("bytes_received", 6, np.int64)]:
                    r.create_dataset(col, data=c[:, i].astype(t))
                r.create_dataset("comm", data=comm)
            if io and rank in io:
                write_io(g, *io[rank])
            cg = g.create_group("communicators")
            cg.create_dataset("size", data=np.array([size], np.int32))
            cg.create_dataset("remote_size", data=np.array([0], np.int32))
            cg.create_dataset("members_start", data=np.array([0, size], np.int64))
            cg.create_dataset("members", data=np.array(sorted(design), np.int32))
            cg.create_dataset("names", data=np.frombuffer(b"MPI_COMM_WORLD\0", np.uint8))
            rows = req.get(rank)
            if not rows:
                continue
            names = sorted({x[0] for x in rows} | {x[2] for x in rows})
            if rename:
                rows = [(renamed(x[0]), x[1], renamed(x[2])) + tuple(x[3:]) for x in rows]
                names = sorted(renamed(n) for n in names)
            post = [names.index(x[0]) for x in rows]
            if damage and rank == 0:
                post[1] = len(names) + 3  # past the table
            q = g.create_group("requests")
            q.create_dataset("post_region", data=np.array(post, np.int32))
            q.create_dataset("post_call", data=np.array([x[1] for x in rows], np.int64))
            q.create_dataset("done_region", data=np.array([names.index(x[2]) for x in rows],
                                                          np.int32))
            q.create_dataset("done_call", data=np.array([x[3] for x in rows], np.int64))
            q.create_dataset("source", data=np.array([x[4] for x in rows], np.int32))
            q.create_dataset("tag", data=np.array([x[5] for x in rows], np.int32))
            q.create_dataset("bytes_received", data=np.array([x[6] for x in rows], np.int64))
            q.create_dataset("cancelled", data=np.array([x[7] for x in rows], np.int8))
            if len(rows[0]) > 8:  # the sends' columns (files before them lack them)
                q.create_dataset("dest", data=np.array([x[8] for x in rows], np.int32))
                q.create_dataset("bytes_sent", data=np.array([x[9] for x in rows], np.int64))
            q.create_dataset("region_names",
                             data=np.frombuffer(b"".join(n.encode() + b"\0" for n in names),
                                                np.uint8))


def main():
    out = sys.argv[1]
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    write(os.path.join(out, "designed.h5"), [0, 0, 0, 0], 0)
    write(os.path.join(out, "two_hosts.h5"), [0, 0, 1, 1], 30)
    write(os.path.join(out, "damaged.h5"), [0, 0, 0, 0], 0, damage=True)
    write(os.path.join(out, "renamed.h5"), [0, 0, 0, 0], 0, rename=True)
    write(os.path.join(out, "newcalls.h5"), [0, 0], 0, design=NEW, req=NEWREQ)
    write(os.path.join(out, "far.h5"), {0: 0, 1: 0, FAR: 0}, 0, design=FARD, req={})
    write(os.path.join(out, "started.h5"), [0, 0], 0, design=S, req=SREQ)
    write(os.path.join(out, "io.h5"), [0, 0], 0, design=IOD, req={}, io=IO)
    if len(sys.argv) > 2:
        open(sys.argv[2], "w").close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
