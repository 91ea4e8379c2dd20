"""make_journal_seeds.py OUTDIR [STAMP] - writes small journals (4 KiB chunks) in
the layout of format/journal.h as seeds for fuzz_journal: a finished one,
one cut off by a crash (open calls, a staging chunk), one with MPI data
(data, post, request and collective post records), one with two
threads, damaged variants, and tie-heavy ones (a coarse clock: many
records, on one thread and across threads, share a timestamp; 0-tick
calls; a reused staging chunk whose stale tail ties with its first record,
with and without SCOPE_CHUNK_CLEARED). Independent of the recorder's own
code, so it also checks that journal.h says enough to write a journal.
"""
import os
import struct
import sys

HDR_SIZE, CHUNK = 4096, 4096
MAGIC, CHUNK_MAGIC = b"SCOPEJNL", 0x4B4E4843
EVENTS, META, STAGING = 1, 2, 3
END, COMPLETE, SHIFT = 1, 2, 2


CLEARED = 1  # chunk flags: a staging chunk zeroed before each new sequence


def header(nchunks, state=2, rank=0, size=1, threads=1, resolution=0):
    h = struct.pack("<8sIIIIIIQqiiQqQqqQII", MAGIC, 1, HDR_SIZE, CHUNK, 16, state, 0,
                    nchunks, 1234, rank, size, 0, 1000, 0, 900000 if state == 2 else 0,
                    1700000000 * 10**9, 0, threads, 0)
    h += b"host".ljust(256, b"\0") + b"/tmp/run.h5".ljust(1024, b"\0")
    h += struct.pack("<Q", resolution)  # clock_resolution (ticks; 0 = unknown)
    return h.ljust(HDR_SIZE, b"\0")


def chunk_header(ctype, thread=0, seq=0, used=0, first=0, flags=0):
    h = struct.pack("<IIIIqQqQQQ16sQII", CHUNK_MAGIC, ctype, thread, seq, 4321 + thread,
                    0, 1000, used, 0, first, b"main", 0, 0xFFFFFFFF, flags)
    assert len(h) == 96
    return h


def meta_chunk(regions, comms=()):
    body = b""
    for cid, world, name in comms:      # SCOPE_META_COMM
        payload = (struct.pack("<iii", cid, len(world), 0) + struct.pack("<%di" % len(world), *world)
                   + b"\0" + name.encode() + b"\0")
        body += struct.pack("<II", 5, len(payload)) + payload.ljust((len(payload) + 7) // 8 * 8, b"\0")
    for rid, kind, name in regions:
        payload = struct.pack("<II", rid, kind) + name.encode() + b"\0\0\0"
        body += struct.pack("<II", 2 - 1, len(payload)) + payload.ljust((len(payload) + 7) // 8 * 8, b"\0")
    kv = b"executable\0/bin/app\0"
    body += struct.pack("<II", 2, len(kv)) + kv.ljust((len(kv) + 7) // 8 * 8, b"\0")
    return (chunk_header(META, used=len(body)) + body).ljust(CHUNK, b"\0")


def rec(ticks, rid, flags=0, aux=0):
    return struct.pack("<QII", ticks, (rid << SHIFT) | flags, aux)


def events_chunk(recs, ctype=EVENTS, thread=0, seq=0, first=0, flags=0):
    return (chunk_header(ctype, thread, seq, first=first, flags=flags) +
            b"".join(recs)).ljust(CHUNK, b"\0")


out = sys.argv[1]
os.makedirs(out, exist_ok=True)
stamp = sys.argv[2] if len(sys.argv) > 2 else None
regions = [(0, 2, "outer"), (1, 0, "inner/x"), (2, 1, "MPI_Send")]
t0 = [rec(2000, 0), rec(2100, 1, COMPLETE, 50), rec(2200, 2), rec(2300, 2, END), rec(2400, 0, END)]
finished = header(2) + meta_chunk(regions) + events_chunk(t0, STAGING)
crashed = header(3, state=1) + meta_chunk(regions) + events_chunk(t0) + events_chunk(
    [rec(3000, 0), rec(3100, 1)] + [rec(1000, 2)], STAGING, seq=1, first=3000)
two = header(3, threads=2) + meta_chunk(regions) + events_chunk(t0) + events_chunk(
    [rec(2050, 1), rec(2150, 1, END)], STAGING, thread=1)
# Ties: outer { inner {} inner {} MPI_Send { inner {} } } at one tick, twice
# on two threads, and calls completed in place with a 0-tick duration.
T = 5000
tied = [rec(T, 0), rec(T, 1, COMPLETE, 0), rec(T, 1), rec(T, 1, END), rec(T, 2),
        rec(T, 1, COMPLETE, 0), rec(T, 2, END), rec(T, 0, END), rec(T, 0), rec(T, 0, END)]
ties = header(3, threads=2, resolution=1000) + meta_chunk(regions) + events_chunk(
    tied, STAGING, flags=CLEARED) + events_chunk(tied, STAGING, thread=1, flags=CLEARED)
# A staging chunk in its second sequence (the first is in an EVENTS chunk):
# new records at T, then the stale tail of sequence 0, also at T. With
# CLEARED the tail cannot exist (zeroed); without, it is the old ambiguity.
full = [rec(T, 1, COMPLETE, 0)] * ((CHUNK - 96) // 16)
reused = [rec(T, 0), rec(T, 0, END)] + full[2:]
staging_cleared = header(3, state=1, resolution=1000) + meta_chunk(regions) + events_chunk(
    full) + events_chunk([rec(T, 0), rec(T, 0, END)], STAGING, seq=1, first=T, flags=CLEARED)
staging_legacy = header(3, state=1) + meta_chunk(regions) + events_chunk(full) + events_chunk(
    reused, STAGING, seq=1, first=T)
# What MPI calls moved (journal.h, data records): a compact record after a
# complete MPI_Send, a long form (bytes past 2^32) after an end, and a data
# record with no call before it.
DATA = 3


def data_compact(sent, received, dest, source, tag, comm):
    ticks = (1 << 63) | received | ((dest + 1) << 32) | ((tag + 2) << 49)
    return struct.pack("<QII", ticks, DATA | ((source + 1) << 3) | (comm << 20), sent)


def data_long(sent, received, dest, source, tag, comm):
    return (struct.pack("<QIi", (1 << 63) | sent, DATA | 4 | (comm << 3), tag) +
            struct.pack("<QIi", (1 << 63) | received, DATA | 4 | ((source + 1) << 3), dest))


def request(payload, aux=0):          # journal.h, SCOPE_REC_REQUEST_WORD
    return struct.pack("<QII", (1 << 63) | payload, 0xfffffff7, aux)


def postdata(post_id, recv, partner, tag, comm, sent):   # SCOPE_REC_POSTDATA_WORD
    ticks = (1 << 63) | post_id | ((partner + 1) << 32) | ((tag + 2) << 49)
    return struct.pack("<QII", ticks, 0xfff80007 | (comm << 3) | ((1 << 15) if recv else 0), sent)


def collpost(post_id, shape, root, nbytes):  # SCOPE_REC_COLLPOST_WORD, compact
    ticks = (1 << 63) | post_id | ((root + 1) << 32)
    return struct.pack("<QII", ticks, 0xfff40007 | (shape << 3), nbytes)


def collpost_long(post_id, shape, root, nbytes):    # the long form's two records
    word = 0xfff40007 | (shape << 3)
    return (struct.pack("<QIi", (1 << 63) | post_id, word | (1 << 6), root) +
            struct.pack("<QII", (1 << 63) | nbytes, word | (1 << 7), 0))


# an Irecv-like post (id 1, a receive) and its completion by a later call,
# a completion of an unknown post, and a request record after a begin
moved = [data_compact(1, 2, 3, 4, 5, 0), rec(2000, 0), rec(2100, 2, COMPLETE, 50),
         data_compact(400, 0, 1, -1, 7, 0), request(1 | (1 << 32)), rec(2200, 2),
         request(7), rec(2300, 2, END),
         request((1 << 62) | 1 | (3 << 32) | (9 << 48), 64), request((1 << 62) | 99),
         data_long(5 << 32, 0, 2, -1, 70000, 0), rec(2400, 0, END),
         # a post's data record (an Isend to 1, id 5) and its completion
         rec(2500, 2), rec(2510, 2, END), postdata(5, 0, 1, 3, 0, 8),
         rec(2520, 2, COMPLETE, 5), request((1 << 62) | 5),
         # an MPI_Startall of a broadcast from 2 (id 6) and an alltoall
         # (id 7, long form), completed; a long form's second record alone
         rec(2600, 2), rec(2610, 2, END), data_compact(96, 40, -1, -1, -2, 0),
         collpost(6, 2, 2, 40), collpost_long(7, 4, 200000, 5 << 32),
         rec(2620, 2, COMPLETE, 5), request((1 << 62) | 6), request((1 << 62) | 7),
         collpost_long(8, 4, 1, 9)[16:]]
mpi_data = header(2) + meta_chunk(regions, [(0, [0, 1, 2, 3], "MPI_COMM_WORLD")]) + events_chunk(
    moved, STAGING, flags=CLEARED)
seeds = {"finished": finished, "mpi_data": mpi_data, "crashed": crashed, "two_threads": two,
         "ties": ties, "ties_staging_cleared": staging_cleared,
         "ties_staging_legacy": staging_legacy,
         "truncated": crashed[: HDR_SIZE + CHUNK + 300],
         "bad_version": finished[:8] + struct.pack("<I", 99) + finished[12:],
         "zero_tail": finished[: HDR_SIZE + CHUNK] + b"\0" * CHUNK}
for name, data in seeds.items():
    with open(os.path.join(out, name), "wb") as f:
        f.write(data)
if stamp:
    open(stamp, "w").close()
