/*
 * journal_read.h - reading a journal back: validation, region names,
 * metadata, and each thread's records in order. Used by the HDF5 writer at
 * finalize and by `scope recover` after a crash; it trusts nothing in the
 * file (a journal may be truncated, zero-filled or garbage).
 */
#ifndef SCOPE_JOURNAL_READ_H
#define SCOPE_JOURNAL_READ_H

#include <stddef.h>
#include <stdint.h>

#include "journal.h"

struct scope_jr_region {
    char *name, *symbol, *object;   /* symbol/object may be "" */
    int kind;
    int defined;
};

/* A call path (SCOPE_META_CALLSITE); journal id = index + 1. */
struct scope_jr_site {
    uint32_t depth;                 /* 0 = not defined */
    struct scope_jr_frame {
        char *build_id, *object;
        uint64_t offset;
    } *f;
};

/* A communicator (SCOPE_META_COMM); journal id = index. */
struct scope_jr_comm {
    int defined;
    int32_t size, remote_size;
    int32_t *world;                 /* size + remote_size world ranks */
    char *creator, *name;
};

/* A row of the file table (SCOPE_META_FILE); journal id = index. */
struct scope_jr_file {
    int defined;
    struct scope_file_meta m;
    char *name, *resolved, *fs_type, *mount;
};

struct scope_jr_thread {
    uint32_t index;
    int64_t tid;
    char name[17];
    struct scope_jr_chunk {
        uint64_t idx;               /* chunk number; UINT64_MAX = missing */
        uint64_t first_ticks;       /* staging without SCOPE_CHUNK_CLEARED:
                                       older records are stale; else 0 */
        int staging;
    } *chunks;                      /* by seq */
    uint32_t n_chunks, cap_chunks;
    uint64_t end_ticks;             /* thread exit, 0 if unknown */
};

struct scope_jr {
    int fd;
    uint64_t file_size;
    struct scope_journal_header hdr;
    uint64_t n_chunks;              /* chunks actually present in the file */
    struct scope_jr_region *regions;
    uint32_t n_regions;
    char **kv;                      /* key, value, key, value, ... */
    size_t n_kv;
    char **rows;                    /* interposition table: 6 per row */
    size_t n_rows;
    struct scope_jr_site *sites;    /* by id - 1 */
    uint32_t n_sites;
    struct scope_jr_comm *comms;    /* by id */
    uint32_t n_comms;
    struct scope_jr_file *files;    /* by id */
    uint32_t n_files;
    struct scope_jr_thread *threads;
    uint32_t n_threads;
    /* ticks -> ns: ns = base_ns + ((ticks - base_ticks) * mult) >> 64.
     * 64 fraction bits, not 32: mult is rounded to 2^-64 ns per tick, so
     * even a timestamp 10^14 ticks from base_ticks (a CLOCK_MONOTONIC
     * journal, whose base is 0, on a machine up for a day) is off by less
     * than a ns; with 32 bits the rounding alone moved it by microseconds,
     * more than the clock alignment's bounds (docs/clocks.md). */
    uint64_t base_ticks;
    int64_t base_ns;
    __int128 mult;
    uint64_t last_calib_ticks;      /* latest calibration pair seen */
    int64_t last_calib_ns;
};

/* Opens and indexes a journal. Returns 0 or SCOPE_EJOURNAL / SCOPE_EIO /
 * SCOPE_ENOMEM / SCOPE_EVERSION with "<path>: <problem>" in err.
 * Cost: reads the header, every chunk header and the meta chunks. */
int scope__jr_open(struct scope_jr *jr, const char *path, char *err, size_t errlen);
void scope__jr_close(struct scope_jr *jr);

/* Sets jr's ticks -> ns map from its header: the identity for a
 * CLOCK_MONOTONIC journal, else the line through the first and last
 * calibration pairs (a short run: the local TSC rate). Cost: a 10 ms
 * measurement for a TSC journal of under 10 ms, else O(1). */
void scope__jr_calibrate(struct scope_jr *jr);

/* Converts journal ticks to CLOCK_MONOTONIC ns. The products are taken
 * modulo 2^128 and the sum modulo 2^64: a damaged journal gives wrong
 * times, never undefined behaviour. */
static inline int64_t scope__jr_ns(const struct scope_jr *jr, uint64_t ticks)
{
    __int128 d = (__int128)((int64_t)(ticks - jr->base_ticks));
    unsigned __int128 p = (unsigned __int128)d * (unsigned __int128)jr->mult;
    return (int64_t)((uint64_t)jr->base_ns + (uint64_t)(int64_t)((__int128)p >> 64));
}

/* A reader of one thread's records in order, with a bounded buffer. */
struct scope_jr_cursor {
    const struct scope_jr *jr;
    const struct scope_jr_thread *th;
    uint32_t chunk;                 /* position in th->chunks */
    struct scope_rec *buf;
    size_t n, pos;                  /* records in buf, next to return */
    size_t per_chunk;               /* records per chunk */
    size_t chunk_pos;               /* records of the current chunk consumed */
    uint64_t min_ticks;             /* records below this are stale (staging) */
    uint64_t live_min;              /* max(min_ticks, 1): a record is live (not
                                       empty, not stale) when its ticks reach it */
    struct scope_rec pending;       /* read ahead, not returned yet */
    int has_pending;
    /* What the call whose end (or complete record) was returned last
     * moved: its data record (journal.h), when one followed it. */
    int has_data;
    struct scope_call_data data;
    int has_self;                   /* a self record followed it: */
    int64_t self_bytes;             /* its bytes (journal.h) */
    /* What the I/O call whose end was returned last did: its I/O data
     * record (journal.h), when one followed it. */
    int has_io;
    struct scope_io_data io;
    /* The request records that followed it (journal.h: a post's, a
     * started persistent collective's collective post records, or the
     * completions of a call that completed requests). */
    struct scope_rec *req;
    size_t n_req, cap_req;
    /* Set by a caller that reads only has_data, has_self and has_io (the
     * first pass counts calls): the fast paths then leave data and req
     * unfilled (n_req 0). */
    int skim;
};

int scope__jr_cursor_init(struct scope_jr_cursor *c, const struct scope_jr *jr, uint32_t thread);
/* scope__jr_cursor_next for what its inline fast path leaves. */
int scope__jr_cursor_next_general(struct scope_jr_cursor *c, struct scope_rec *out);

/* Next non-empty begin, end or complete record: returns 1 with *out set,
 * 0 at the end, or a negative SCOPE_E* on a read error. The data record
 * that follows an end is not returned: it sets c->has_data and c->data for
 * the record just returned (a data record after anything else, or a long
 * form cut short, is dropped), and the request records after it are in
 * c->req[0 .. c->n_req); an I/O data record sets c->has_io and c->io, a
 * self record c->has_self and c->self_bytes.
 *
 * Inline, for what nearly every record of a journal is: a begin, or an
 * end (or complete record) followed by the next call's record or by one
 * compact data record and then the next call's record, all in the
 * buffer; everything else (journal_read.c) follows every rule of
 * journal.h one record at a time. Both passes of a conversion call it
 * for every record: it was a third of a conversion's instructions. */
static inline int scope__jr_cursor_next(struct scope_jr_cursor *c, struct scope_rec *out)
{
    if (__builtin_expect(!c->has_pending && c->pos + 2 < c->n, 1)) {
        const struct scope_rec *b = c->buf + c->pos;
        uint32_t w0 = b[0].word;
        if (b[0].ticks >= c->live_min && (w0 & 3u) != SCOPE_REC_DATA) {
            uint32_t w1 = b[1].word;
            if (!(w0 & (SCOPE_REC_END | SCOPE_REC_COMPLETE)) ||
                (b[1].ticks >= c->live_min && (w1 & 3u) != SCOPE_REC_DATA)) {
                c->has_data = 0;
                c->has_self = 0;
                c->self_bytes = 0;
                c->has_io = 0;
                c->n_req = 0;
                *out = b[0];
                c->pos++;
                return 1;
            }
            /* a compact data record (journal.h: the long form's bit clear,
             * which no request, post or collective post word has), then
             * the next call's record */
            if ((w1 & 7u) == SCOPE_REC_DATA && b[2].ticks >= c->live_min &&
                (b[2].word & 3u) != SCOPE_REC_DATA) {
                c->n_req = 0;
                c->has_self = 0;
                c->self_bytes = 0;
                c->has_io = 0;
                if (!c->skim)
                    scope_data_unpack(&b[1], NULL, &c->data);
                c->has_data = 1;
                *out = b[0];
                c->pos += 2;
                return 1;
            }
        }
    }
    return scope__jr_cursor_next_general(c, out);
}
void scope__jr_cursor_free(struct scope_jr_cursor *c);

#endif /* SCOPE_JOURNAL_READ_H */
