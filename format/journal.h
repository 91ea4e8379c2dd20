/*
 * journal.h - the on-disk journal: the recorder's only buffer.
 *
 * Each recording process writes its events into one journal file, mapped
 * MAP_SHARED in fixed-size chunks. A full chunk is unmapped and left to the
 * page cache, so memory stays bounded however long the run is, and if the
 * process dies (even by SIGKILL) everything recorded is still in the file.
 * At finalize the journal is converted into the rank's HDF5 file; after a
 * crash `scope recover` does the same from what is left.
 *
 * The format is versioned and self-describing: region names, metadata and
 * the clock calibration are in the file itself.
 *
 *   offset 0                  struct scope_journal_header (JOURNAL_HEADER_SIZE)
 *   JOURNAL_HEADER_SIZE + i*chunk_size     chunk i:
 *       struct scope_chunk_header
 *       payload: events (struct scope_rec[]) or meta records
 *
 * Chunks are handed out by an atomic counter, so chunks of different threads
 * interleave in the file; each event chunk names its thread and its sequence
 * number within that thread (see SCOPE_CHUNK_STAGING below). Event records are never partially visible as
 * valid: a record whose timestamp is 0 is an empty slot and is skipped
 * (fresh file pages read as zero).
 *
 * Meta chunks hold length-prefixed records (struct scope_meta) appended
 * under the recorder's lock: region definitions, metadata strings and
 * call-site paths.
 *
 * All integers are little-endian (the host's; the journal is read on the
 * machine that wrote it).
 */
#ifndef SCOPE_JOURNAL_H
#define SCOPE_JOURNAL_H

#include <errno.h>
#include <stdint.h>
#include <limits.h>
#include <string.h>
#include <unistd.h>

#include "scope_error.h"
#include "scope_format.h"

#define SCOPE_JOURNAL_MAGIC "SCOPEJNL"
#define SCOPE_JOURNAL_VERSION 1u
#define SCOPE_JOURNAL_HEADER_SIZE 4096u
#define SCOPE_CHUNK_MAGIC 0x4b4e4843u /* "CHNK" */

enum scope_journal_state {
    SCOPE_JOURNAL_RECORDING = 1, /* a process is (or was, if it died) writing */
    SCOPE_JOURNAL_FINALIZED = 2, /* recording stopped cleanly */
    SCOPE_JOURNAL_DIED = 3,      /* a fatal signal hit the process; end_* is
                                    when, died_signal which */
};

enum scope_clock_kind {
    SCOPE_CLOCK_NS = 0,  /* record timestamps are CLOCK_MONOTONIC ns */
    SCOPE_CLOCK_TSC = 1, /* record timestamps are the CPU counter's ticks (the
                            TSC on x86-64, CNTVCT_EL0 on aarch64); convert
                            with the calibration points */
};

struct scope_journal_header {
    char magic[8];              /* SCOPE_JOURNAL_MAGIC, no NUL */
    uint32_t version;           /* SCOPE_JOURNAL_VERSION */
    uint32_t header_size;       /* SCOPE_JOURNAL_HEADER_SIZE */
    uint32_t chunk_size;        /* bytes per chunk, header included */
    uint32_t record_size;       /* sizeof(struct scope_rec) */
    uint32_t state;             /* enum scope_journal_state */
    uint32_t clock_kind;        /* enum scope_clock_kind */
    uint64_t chunk_count;       /* chunks handed out (atomic) */
    int64_t pid;
    int32_t rank;               /* -1 until known; 0 for a serial run */
    int32_t size;               /* ranks in the run; 1 for a serial run */
    /* Calibration: (tick, ns) pairs read back to back. start is taken at
     * init, end at finalize; chunk headers carry more pairs for recovery. */
    uint64_t start_ticks;
    int64_t start_ns;
    uint64_t end_ticks;
    int64_t end_ns;             /* 0 until finalize */
    int64_t start_realtime_ns;  /* CLOCK_REALTIME at init, for "timestamp" */
    uint64_t dropped_events;    /* written at finalize */
    uint32_t thread_count;      /* thread indices handed out */
    uint32_t died_signal;       /* with SCOPE_JOURNAL_DIED */
    char hostname[256];
    char output[1024];          /* the index file path this run writes */
    uint64_t clock_resolution;  /* the clock's step measured at init, in
                                   ticks; 0 = unknown (older journals) */
    uint64_t counter_hz;        /* SCOPE_CLOCK_TSC: the counter's rate as the
                                   CPU states it (CNTFRQ_EL0 on aarch64), ticks
                                   per second; 0 = not stated (the TSC, older
                                   journals) */
};
_Static_assert(sizeof(struct scope_journal_header) <= SCOPE_JOURNAL_HEADER_SIZE,
               "the journal header fits its page");

/* Whether a header scope_journal_header_read() accepted describes a
 * journal this version can walk: its version, the sizes it was written
 * with, a rank within its run. Returns 0, SCOPE_EVERSION or
 * SCOPE_EJOURNAL with the problem in *why (a static string). Pure. */
static inline int scope_journal_header_check(const struct scope_journal_header *h,
                                             const char **why)
{
    if (h->version != SCOPE_JOURNAL_VERSION) {
        *why = "unsupported journal version";
        return SCOPE_EVERSION;
    }
    if (h->header_size != SCOPE_JOURNAL_HEADER_SIZE || h->record_size != 16 ||
        h->chunk_size < 4096 || h->chunk_size > (64u << 20) || h->chunk_size % 16) {
        *why = "journal header is damaged";
        return SCOPE_EJOURNAL;
    }
    /* An index links every rank, so a garbage size would mean millions of
     * links: ranks are bounded as the converter bounds thread indices. */
    if (h->size < 1 || h->size > (1 << 22) || h->rank < -1 || h->rank >= h->size) {
        *why = "journal header has an impossible rank/size";
        return SCOPE_EJOURNAL;
    }
    return 0;
}

/* A thread records into one staging chunk mapped MAP_SHARED, which stays
 * mapped and is reused. When it is full its content is copied with pwrite
 * to a fresh EVENTS chunk (payload first, header last, so an EVENTS chunk
 * with a valid magic is complete) and the staging chunk starts the next
 * sequence number in place. Writing through the page cache costs a fifth
 * of faulting fresh pages of a shared mapping in, one by one, from the hot
 * path. A reader takes, for each (thread, seq), the EVENTS copy when there
 * is one, else the staging chunk. A staging chunk with SCOPE_CHUNK_CLEARED
 * in its flags has its payload zeroed before each new sequence starts, so
 * its valid records are exactly its non-empty ones. Without the flag
 * (journals of older versions) the valid records are those with ticks >=
 * first_ticks, the rest being the tail of the previous sequence; that rule
 * keeps stale records that tie with first_ticks, which a coarse clock
 * makes common, so the recorder no longer relies on it. */
enum scope_chunk_type { SCOPE_CHUNK_EVENTS = 1, SCOPE_CHUNK_META = 2, SCOPE_CHUNK_STAGING = 3 };
#define SCOPE_CHUNK_CLEARED 1u  /* flags: see above */

struct scope_chunk_header {
    uint32_t magic;             /* SCOPE_CHUNK_MAGIC once the chunk is in use */
    uint32_t type;              /* enum scope_chunk_type */
    uint32_t thread;            /* thread index (events) */
    uint32_t seq;               /* chunk number within its thread / meta */
    int64_t tid;                /* kernel thread id (events) */
    uint64_t calib_ticks;       /* calibration pair taken when the chunk */
    int64_t calib_ns;           /*   was mapped */
    uint64_t used;              /* bytes of payload in use (meta chunks) */
    uint64_t thread_end_ticks;  /* set when the thread exits (events) */
    uint64_t first_ticks;       /* staging: records older than this are
                                   left over from the previous sequence */
    char thread_name[16];       /* pthread name when the chunk was mapped */
    /* The last 16 bytes are where the hot path looks for "the record before
     * the first one": its word is the guard, which never matches a begin
     * (see SCOPE_REC_COMPLETE). */
    uint64_t reserved0;
    uint32_t guard;             /* SCOPE_CHUNK_GUARD */
    uint32_t flags;             /* SCOPE_CHUNK_CLEARED (staging) */
};                              /* 96 bytes, a multiple of the record size */
#define SCOPE_CHUNK_GUARD 0xffffffffu
_Static_assert(sizeof(struct scope_chunk_header) == 96, "chunk header layout");
_Static_assert(__builtin_offsetof(struct scope_chunk_header, guard) == 96 - 16 + 8,
               "the guard must sit where the record before the first one has its word");

/* One begin, one end, or one whole call. */
struct scope_rec {
    uint64_t ticks;             /* 0 = empty slot */
    uint32_t word;              /* region id << 2 | SCOPE_REC_END or _COMPLETE */
    uint32_t aux;               /* complete: duration in ticks; end: flags;
                                   begin: call-site id (0 = none; a begin
                                   with a call site is never completed in
                                   place, its end is a separate record) */
};

#define SCOPE_REC_END 1u
/* A call that recorded nothing inside it: when the end finds the call's own
 * begin as the thread's latest record, it turns that record into a complete
 * one (duration in aux) instead of adding a second record. Halves the bytes
 * of leaf calls, the most frequent and the most overhead-sensitive. */
#define SCOPE_REC_COMPLETE 2u
#define SCOPE_REC_ID_SHIFT 2

/* The word of a begin record of region `id` (| SCOPE_REC_END: an end's,
 * | SCOPE_REC_COMPLETE: a complete one's), and the region of a begin,
 * end or complete record's word: their codec. Pure, a shift. */
static inline uint32_t scope_rec_region_word(int32_t id)
{
    return (uint32_t)id << SCOPE_REC_ID_SHIFT;
}

static inline uint32_t scope_rec_region_of(uint32_t word)
{
    return word >> SCOPE_REC_ID_SHIFT;
}
/* aux flags of an end */
#define SCOPE_REC_UNWOUND 1u    /* end inferred (longjmp, exception, exit) */

/* A data record: what an MPI call moved (docs/format.md, "What MPI calls
 * moved"). Both low bits set, which no begin, end or complete record has.
 * It follows, on the same thread and with nothing between them, the end
 * (or complete) record of the call it describes, so it carries no region
 * id and no time: its 16 bytes are all payload, and `ticks` has its top
 * bit set so that the slot never reads as empty (and a reader that does
 * not know data records sees a time no clock reaches).
 *
 * Compact form (word bit 2 clear), one record, for what almost every call
 * moves:
 *   aux           bytes sent (< 2^32)
 *   ticks  0..31  bytes received (< 2^32)
 *         32..48  dest + 1   (17 bits; 0 = none)
 *         49..62  tag + 2    (14 bits; 0 = none, 1 = MPI_ANY_TAG)
 *   word   3..19  source + 1 (17 bits; 0 = none)
 *         20..31  communicator id (12 bits)
 * Long form (word bit 2 set), two records, when a value does not fit:
 *   first   ticks = bytes sent (63 bits), aux = tag, word 3..31 = comm id
 *   second  ticks = bytes received,       aux = dest, word 3..31 = source + 1
 * Values: dest/source are world ranks (-1 none), tag -1 is MPI_ANY_TAG and
 * SCOPE_DATA_NO_TAG none; bytes saturate at 2^63 - 1. */
#define SCOPE_REC_DATA 3u
#define SCOPE_REC_DATA_LONG 4u
#define SCOPE_REC_DATA_MARK (1ull << 63)
#define SCOPE_DATA_NO_TAG INT32_MIN
#define SCOPE_DATA_NO_RANK (-1)

/* What one call moved, as the recorder hands it over and the converter
 * reads it back. */
struct scope_call_data {
    int64_t bytes_sent, bytes_received;
    int32_t dest, source;       /* world ranks, SCOPE_DATA_NO_RANK when none */
    int32_t tag;                /* SCOPE_DATA_NO_TAG when none */
    int32_t comm;               /* communicator id (>= 0) */
};

static inline int scope_rec_is_data(uint32_t word)
{
    return (word & SCOPE_REC_DATA) == SCOPE_REC_DATA;
}

/* Request records: which nonblocking post a completion completed. Data
 * records with this word (a long form's comm id no table reaches). After
 * a post's data record, a post record names the post; after the end of
 * the MPI_Wait/MPI_Test call that completed posts, one completion record
 * per completed request names the post and what its status said:
 *   post        ticks 0..31 post id (per process, from 1), 32 receive
 *               (1) or send (0), 62 clear; a send's (point to point) also
 *               33..48 destination + 1 (16 bits: 0 unknown), 49..61 tag
 *               + 2 (13 bits: 0 unknown), aux bytes sent (saturating);
 *               a nonblocking collective's post has them clear
 *   completion  ticks 0..31 post id, 32..47 source + 1 (16 bits: 0 none,
 *               0xffff cancelled), 48..61 tag + 2 (0 none), 62 set;
 *               aux bytes received (saturating at 2^32 - 1)
 * The source is a world rank. scope_post_pack/_unpack and
 * scope_completion_pack/_unpack are their codecs: nothing else reads or
 * writes these bits. */
#define SCOPE_REC_REQUEST_WORD 0xfffffff7u
#define SCOPE_REQ_COMPLETION (1ull << 62)
#define SCOPE_REQ_RECV (1ull << 32)
#define SCOPE_REQ_CANCELLED 0xffffu
#define SCOPE_REQ_POST_DEST_SHIFT 33
#define SCOPE_REQ_POST_TAG_SHIFT 49
#define SCOPE_REQ_SOURCE_SHIFT 32
#define SCOPE_REQ_TAG_SHIFT 48

static inline int scope_rec_is_request(uint32_t word)
{
    return word == SCOPE_REC_REQUEST_WORD;
}

/* A post record (above), decoded: which post, and a send's message. */
struct scope_post {
    uint32_t id;                /* post id (>= 1) */
    int recv;                   /* 1: a receive (its completion says what
                                   arrived); 0: a send or a collective */
    int32_t dest;               /* a send's destination (world rank), -1
                                   unknown (past 0xfffd, or not a send) */
    int32_t tag;                /* a send's tag, SCOPE_DATA_NO_TAG unknown
                                   (past 2^13 - 3) */
    int64_t bytes;              /* a send's bytes (saturating at 2^32 - 1) */
};

/* Encodes post record p into *out: a send's destination, tag and bytes
 * where they fit the post's fields (else unknown, bytes saturating), a
 * receive's nothing more. The one encoder of post records, for the
 * recorder and for the reader of a post's data record. Pure. */
static inline void scope_post_pack(const struct scope_post *p, struct scope_rec *out)
{
    uint64_t t = SCOPE_REC_DATA_MARK | p->id | (p->recv ? SCOPE_REQ_RECV : 0);
    uint32_t aux = 0;
    if (!p->recv) {
        if (p->dest >= 0 && p->dest < 0xfffe)
            t |= (uint64_t)(p->dest + 1) << SCOPE_REQ_POST_DEST_SHIFT;
        if (p->tag != SCOPE_DATA_NO_TAG && p->tag >= -1 && p->tag < (1 << 13) - 2)
            t |= (uint64_t)(p->tag + 2) << SCOPE_REQ_POST_TAG_SHIFT;
        aux = p->bytes <= 0 ? 0 : p->bytes > UINT32_MAX ? UINT32_MAX : (uint32_t)p->bytes;
    }
    *out = (struct scope_rec){ t, SCOPE_REC_REQUEST_WORD, aux };
}

/* 1 when request record r is a completion record, 0 for a post record. */
static inline int scope_req_is_completion(const struct scope_rec *r)
{
    return (r->ticks & SCOPE_REQ_COMPLETION) != 0;
}

/* Decodes post record r into *p. Pure. */
static inline void scope_post_unpack(const struct scope_rec *r, struct scope_post *p)
{
    uint32_t dest1 = (uint32_t)(r->ticks >> SCOPE_REQ_POST_DEST_SHIFT) & 0xffffu;
    uint32_t tag2 = (uint32_t)(r->ticks >> SCOPE_REQ_POST_TAG_SHIFT) & 0x1fffu;
    p->id = (uint32_t)r->ticks;
    p->recv = (r->ticks & SCOPE_REQ_RECV) != 0;
    p->dest = dest1 ? (int32_t)dest1 - 1 : -1;
    p->tag = tag2 ? (int32_t)tag2 - 2 : SCOPE_DATA_NO_TAG;
    p->bytes = r->aux;
}

/* A completion record (above), decoded: what a completed request's
 * status said. */
struct scope_completion {
    uint32_t id;                /* the post it completes (>= 1) */
    int cancelled;              /* 1: the request was cancelled (then no
                                   source, tag or bytes) */
    int32_t source;             /* a receive's source (world rank); -1 none,
                                   not a receive, or past 0xfffd */
    int32_t tag;                /* a receive's tag; SCOPE_DATA_NO_TAG none
                                   (or past 2^14 - 3) */
    uint32_t bytes;             /* bytes received (saturating at 2^32 - 1) */
};

/* Encodes completion record c into *out: the source and tag where they
 * fit their fields (else none). The mark bit is the writer's
 * (scope__record_data_recs). Pure. */
static inline void scope_completion_pack(const struct scope_completion *c, struct scope_rec *out)
{
    uint64_t src1 = 0, tag2 = 0;
    if (c->cancelled) {
        src1 = SCOPE_REQ_CANCELLED;
    } else {
        src1 = c->source >= 0 && c->source < 0xfffe ? (uint64_t)(c->source + 1) : 0;
        tag2 = c->tag >= -1 && c->tag < (1 << 14) - 2 ? (uint64_t)(c->tag + 2) : 0;
    }
    *out = (struct scope_rec){ SCOPE_REQ_COMPLETION | c->id | src1 << SCOPE_REQ_SOURCE_SHIFT |
                                   tag2 << SCOPE_REQ_TAG_SHIFT,
                               SCOPE_REC_REQUEST_WORD, c->cancelled ? 0 : c->bytes };
}

/* Decodes completion record r into *c. Pure. */
static inline void scope_completion_unpack(const struct scope_rec *r, struct scope_completion *c)
{
    uint32_t src1 = (uint32_t)(r->ticks >> SCOPE_REQ_SOURCE_SHIFT) & 0xffffu;
    uint32_t tag2 = (uint32_t)(r->ticks >> SCOPE_REQ_TAG_SHIFT) & 0x3fffu;
    c->id = (uint32_t)r->ticks;
    c->cancelled = src1 == SCOPE_REQ_CANCELLED;
    c->source = src1 && !c->cancelled ? (int32_t)src1 - 1 : -1;
    c->tag = tag2 ? (int32_t)tag2 - 2 : SCOPE_DATA_NO_TAG;
    c->bytes = r->aux;
}

/* A self record: after the data record of an all-to-all collective with
 * per-member counts on an intracommunicator (MPI_Alltoallv, Alltoallw and
 * their nonblocking forms), the bytes of the rank's block to itself, so
 * that a reader can give the other members exactly the rest (the
 * collective matrix's row total, docs/format.md). Its word lies among the
 * long form's communicator ids that no table reaches, apart from the
 * request, post's data and collective post words:
 *   word 0xfff20007; ticks bytes (63 bits); aux 0 */
#define SCOPE_REC_SELF_WORD 0xfff20007u

static inline int scope_rec_is_self(uint32_t word)
{
    return word == SCOPE_REC_SELF_WORD;
}

/* Encodes `bytes` (< 0 read as 0) as a self record into *out. Pure. */
static inline void scope_self_pack(int64_t bytes, struct scope_rec *out)
{
    *out = (struct scope_rec){ SCOPE_REC_DATA_MARK | (uint64_t)(bytes < 0 ? 0 : bytes),
                               SCOPE_REC_SELF_WORD, 0 };
}

/* The bytes of self record r. Pure. */
static inline int64_t scope_self_unpack(const struct scope_rec *r)
{
    return (int64_t)(r->ticks & ~SCOPE_REC_DATA_MARK);
}

/* A post's data record: the data record and the post record of a
 * nonblocking point-to-point post (MPI_Isend, MPI_Irecv and their kin) in
 * one, so that a post costs one record, as any other call's data. Written
 * when every value fits, else the two records. Its words lie among the
 * long form's communicator ids that no table reaches (ids stop at
 * SCOPE_COMM_ID_MAX), as the request word does, which they never equal:
 *   word   0..2  7; 3..14 communicator id (12 bits); 15 receive (1) or
 *                send (0); 16..18 clear; 19..31 set
 *   ticks  0..31 post id; 32..48 partner + 1 (a send's destination, a
 *                receive's source; 17 bits, 0 none); 49..62 tag + 2 (14
 *                bits, 0 none, 1 MPI_ANY_TAG)
 *   aux    bytes sent (a send); 0 (a receive: its bytes arrive with its
 *          completion)
 * It reads as the data record { bytes_sent = aux, dest or source =
 * partner, tag, comm } followed by the post record its id, receive bit,
 * and (a send) destination, tag and bytes make. */
#define SCOPE_REC_POSTDATA_WORD 0xfff80007u
#define SCOPE_REC_POSTDATA_MASK 0xffff0007u
#define SCOPE_REC_POSTDATA_RECV (1u << 15)
#define SCOPE_COMM_ID_MAX ((1 << 28) - 1)

static inline int scope_rec_is_postdata(uint32_t word)
{
    return (word & SCOPE_REC_POSTDATA_MASK) == SCOPE_REC_POSTDATA_WORD;
}

/* Encodes `d`, the data of a post that request `post_id` (>= 1) names, as
 * one post's data record into *out. Returns 1, or 0 when a value does not
 * fit (the caller then writes the data record and the post record). Pure. */
static inline int scope_postdata_pack(const struct scope_call_data *d, uint32_t post_id, int recv,
                                      struct scope_rec *out)
{
    int32_t partner = recv ? d->source : d->dest;
    if (!post_id || d->comm < 0 || d->comm >= (1 << 12) || partner < -1 ||
        partner >= (1 << 17) - 1 || d->bytes_received != 0 || (recv ? d->bytes_sent != 0 || d->dest != -1
                                                                     : d->source != -1) ||
        d->bytes_sent < 0 || (uint64_t)d->bytes_sent > UINT32_MAX ||
        (d->tag != SCOPE_DATA_NO_TAG && (d->tag < -1 || d->tag >= (1 << 14) - 2)))
        return 0;
    uint64_t tag = d->tag == SCOPE_DATA_NO_TAG ? 0 : (uint64_t)(d->tag + 2);
    out->ticks = SCOPE_REC_DATA_MARK | post_id | ((uint64_t)(partner + 1) << 32) | (tag << 49);
    out->word = SCOPE_REC_POSTDATA_WORD | ((uint32_t)d->comm << 3) | (recv ? SCOPE_REC_POSTDATA_RECV : 0);
    out->aux = (uint32_t)d->bytes_sent;
    return 1;
}

/* Decodes a post's data record into its data *d and its post record *post
 * (the one the two-record form would have written). Pure. */
static inline void scope_postdata_unpack(const struct scope_rec *r, struct scope_call_data *d,
                                         struct scope_rec *post)
{
    uint64_t t = r->ticks;
    int recv = (r->word & SCOPE_REC_POSTDATA_RECV) != 0;
    uint32_t tag2 = (uint32_t)(t >> 49) & 0x3fffu;
    int32_t partner = (int32_t)((t >> 32) & 0x1ffffu) - 1;
    d->bytes_sent = recv ? 0 : r->aux;
    d->bytes_received = 0;
    d->dest = recv ? SCOPE_DATA_NO_RANK : partner;
    d->source = recv ? partner : SCOPE_DATA_NO_RANK;
    d->tag = tag2 ? (int32_t)tag2 - 2 : SCOPE_DATA_NO_TAG;
    d->comm = (int32_t)((r->word >> 3) & 0xfffu);
    struct scope_post p = { (uint32_t)t, recv, d->dest, d->tag, d->bytes_sent };
    scope_post_pack(&p, post);
}

/* A collective post record: the post record of a started persistent
 * collective (MPI_Start or MPI_Startall of a request MPI_Bcast_init & co
 * made), written instead of the plain post record, so that a start costs
 * the records it did. Besides the post id it says which collective was
 * started (enum scope_coll_shape), its root and the bytes its pairs in
 * the collective matrix need (what this rank received for a one-to-all
 * collective, what it sent for the others): an MPI_Startall of several
 * requests has no other place that says it, its call's data record
 * holding their bytes together. Its words lie among the long form's
 * communicator ids that no table reaches, apart from the post's data
 * record's and the request word:
 *   word   0..2 7; 3..5 shape; 6 long form (first of two); 7 the second
 *          record of a long form; 8..15 clear; 16..31 0xfff4
 *   compact  ticks 0..31 post id, 32..48 root + 1 (17 bits, 0 none),
 *            49..62 clear; aux bytes
 *   long (a root past 131,070, bytes past 2^32 - 1): two records,
 *            first   ticks 0..31 post id, aux root (int32, -1 none)
 *            second  ticks bytes (63 bits), aux 0 */
#define SCOPE_REC_COLLPOST_WORD 0xfff40007u
#define SCOPE_REC_COLLPOST_MASK 0xffff0007u
#define SCOPE_REC_COLLPOST_LONG (1u << 6)
#define SCOPE_REC_COLLPOST_SECOND (1u << 7)

struct scope_coll_post {
    uint32_t id;                /* post id (>= 1) */
    int shape;                  /* enum scope_coll_shape, 1..6 */
    int32_t root;               /* world rank, SCOPE_DATA_NO_RANK none */
    int64_t bytes;              /* >= 0 */
};

static inline int scope_rec_is_collpost(uint32_t word)
{
    return (word & SCOPE_REC_COLLPOST_MASK) == SCOPE_REC_COLLPOST_WORD;
}

/* Encodes `p` into out[0] (and out[1] for the long form). Returns the
 * number of records used, 1 or 2. Pure. */
static inline int scope_collpost_pack(const struct scope_coll_post *p, struct scope_rec out[2])
{
    uint32_t w = SCOPE_REC_COLLPOST_WORD | ((uint32_t)p->shape & 7u) << 3;
    int64_t b = p->bytes < 0 ? 0 : p->bytes;
    if (p->root >= -1 && p->root < (1 << 17) - 1 && (uint64_t)b <= UINT32_MAX) {
        out[0] = (struct scope_rec){ SCOPE_REC_DATA_MARK | p->id | (uint64_t)(p->root + 1) << 32, w,
                                     (uint32_t)b };
        return 1;
    }
    out[0] = (struct scope_rec){ SCOPE_REC_DATA_MARK | p->id, w | SCOPE_REC_COLLPOST_LONG,
                                 (uint32_t)p->root };
    out[1] = (struct scope_rec){ SCOPE_REC_DATA_MARK | (uint64_t)b, w | SCOPE_REC_COLLPOST_SECOND, 0 };
    return 2;
}

/* Decodes a collective post record: a compact one (`second` unused), or
 * the first of a long form and `second` (NULL when it is missing: the
 * bytes then read 0). Returns the records used, 1 or 2; 0 when `first`
 * is a long form's second record alone (nothing to decode). Pure. */
static inline int scope_collpost_unpack(const struct scope_rec *first, const struct scope_rec *second,
                                        struct scope_coll_post *p)
{
    if (first->word & SCOPE_REC_COLLPOST_SECOND)
        return 0;
    p->id = (uint32_t)first->ticks;
    p->shape = (int)((first->word >> 3) & 7u);
    if (!(first->word & SCOPE_REC_COLLPOST_LONG)) {
        p->root = (int32_t)((first->ticks >> 32) & 0x1ffffu) - 1;
        p->bytes = first->aux;
        return 1;
    }
    p->root = (int32_t)first->aux;
    int paired = second && scope_rec_is_collpost(second->word) &&
                 (second->word & SCOPE_REC_COLLPOST_SECOND);
    p->bytes = paired ? (int64_t)(second->ticks & ~SCOPE_REC_DATA_MARK) : 0;
    return paired ? 2 : 1;
}

/* Encodes `d` into out[0] (and out[1] for the long form). Returns the
 * number of records used, 1 or 2. Pure. */
static inline int scope_data_pack(const struct scope_call_data *d, struct scope_rec out[2])
{
    int64_t bs = d->bytes_sent < 0 ? 0 : d->bytes_sent, br = d->bytes_received < 0 ? 0 : d->bytes_received;
    int compact = (uint64_t)bs <= UINT32_MAX && (uint64_t)br <= UINT32_MAX &&
                  d->dest >= -1 && d->dest < (1 << 17) - 1 && d->source >= -1 &&
                  d->source < (1 << 17) - 1 && d->comm >= 0 && d->comm < (1 << 12) &&
                  (d->tag == SCOPE_DATA_NO_TAG || (d->tag >= -1 && d->tag < (1 << 14) - 2));
    if (compact) {
        uint64_t tag = d->tag == SCOPE_DATA_NO_TAG ? 0 : (uint64_t)(d->tag + 2);
        out[0].aux = (uint32_t)bs;
        out[0].ticks = SCOPE_REC_DATA_MARK | (uint64_t)br | ((uint64_t)(d->dest + 1) << 32) | (tag << 49);
        out[0].word = SCOPE_REC_DATA | ((uint32_t)(d->source + 1) << 3) | ((uint32_t)d->comm << 20);
        return 1;
    }
    uint32_t comm = d->comm < 0 ? 0 : (uint32_t)d->comm & 0x1fffffffu;
    uint32_t src = (uint32_t)(d->source + 1) & 0x1fffffffu;
    out[0].ticks = SCOPE_REC_DATA_MARK | (uint64_t)bs;
    out[0].aux = (uint32_t)d->tag;
    out[0].word = SCOPE_REC_DATA | SCOPE_REC_DATA_LONG | (comm << 3);
    out[1].ticks = SCOPE_REC_DATA_MARK | (uint64_t)br;
    out[1].aux = (uint32_t)d->dest;
    out[1].word = SCOPE_REC_DATA | SCOPE_REC_DATA_LONG | (src << 3);
    return 2;
}

/* Decodes a compact record, or the two records of a long form (`second`
 * NULL for a compact one). Pure. */
static inline void scope_data_unpack(const struct scope_rec *first, const struct scope_rec *second,
                                     struct scope_call_data *d)
{
    if (!(first->word & SCOPE_REC_DATA_LONG) || !second) {
        uint64_t t = first->ticks;
        uint32_t tag = (uint32_t)(t >> 49) & 0x3fffu;
        d->bytes_sent = first->aux;
        d->bytes_received = (int64_t)(t & 0xffffffffu);
        d->dest = (int32_t)((t >> 32) & 0x1ffffu) - 1;
        d->tag = tag ? (int32_t)tag - 2 : SCOPE_DATA_NO_TAG;
        d->source = (int32_t)((first->word >> 3) & 0x1ffffu) - 1;
        d->comm = (int32_t)(first->word >> 20);
        return;
    }
    d->bytes_sent = (int64_t)(first->ticks & ~SCOPE_REC_DATA_MARK);
    d->tag = (int32_t)first->aux;
    d->comm = (int32_t)(first->word >> 3);
    d->bytes_received = (int64_t)(second->ticks & ~SCOPE_REC_DATA_MARK);
    d->dest = (int32_t)second->aux;
    d->source = (int32_t)(second->word >> 3) - 1;
}

/* OpenMP regions (kind SCOPE_KIND_OMP, format/scope_omp.h) carry what
 * their OMPT event says in the aux of their begin and end records, by
 * their class, so that each event is one record:
 *   parallel region  begin aux: its instance, a per-process number from 1
 *                    (wrapping past 2^31 - 1 to 1); end aux: its call site
 *                    (0 none) << 1
 *   implicit task    begin aux: its parallel region's instance (the low 20
 *                    bits) | its thread number in the team (12 bits,
 *                    saturating at 4095) << 20; end aux: 0
 *   work-sharing     begin aux: its call site; end aux: its iteration count
 *                    << 1 (saturating at 2^31 - 1)
 *   the others       begin aux: the call site (0 none); end aux: 0
 * Bit 0 of an end's aux stays SCOPE_REC_UNWOUND. An end that carries a
 * value is a record of its own (the begin is never completed in place).
 * The converter turns them into the region's omp_* columns
 * (docs/format.md "OpenMP"). */
#define SCOPE_OMP_INSTANCE_BITS 20
#define SCOPE_OMP_INSTANCE_MASK ((1u << SCOPE_OMP_INSTANCE_BITS) - 1)
#define SCOPE_OMP_THREAD_MAX 4095u
#define SCOPE_OMP_END_VALUE_MAX 0x7fffffffu

/* An implicit task's begin aux. Pure. */
static inline uint32_t scope_omp_task_aux(uint32_t instance, uint32_t thread)
{
    if (thread > SCOPE_OMP_THREAD_MAX)
        thread = SCOPE_OMP_THREAD_MAX;
    return (instance & SCOPE_OMP_INSTANCE_MASK) | thread << SCOPE_OMP_INSTANCE_BITS;
}

/* Reads an implicit task's begin aux: the low bits of its parallel
 * region's instance and its thread number. Pure. */
static inline void scope_omp_task_unaux(uint32_t aux, uint32_t *instance_low, uint32_t *thread)
{
    *instance_low = aux & SCOPE_OMP_INSTANCE_MASK;
    *thread = aux >> SCOPE_OMP_INSTANCE_BITS;
}

/* An end's aux carrying `value` (saturating), and back. Pure. */
static inline uint32_t scope_omp_end_aux(uint64_t value)
{
    return (uint32_t)(value > SCOPE_OMP_END_VALUE_MAX ? SCOPE_OMP_END_VALUE_MAX : value) << 1;
}

static inline uint32_t scope_omp_end_value(uint32_t aux)
{
    return aux >> 1;
}

/* An I/O data record: what one I/O call (POSIX, stdio, MPI-IO, HDF5;
 * format/calls_io.def) did, after its end record as any data record:
 * which file (a row of the rank's file table, SCOPE_META_FILE), how many
 * bytes, at which offset, which layer issued it, whether it failed. Its
 * words lie among the long form's communicator ids that no table reaches,
 * apart from the request, post's data and collective post words (whose
 * bits 20..23 are all set):
 *   word   0..2 7; 3..5 issuer (enum scope_paradigm of the outermost
 *          I/O layer whose call was open when this one began, 0 the
 *          program itself); 6 failed (the call returned an error); 7
 *          long form (first of two); 8 the second record of a long form;
 *          9..19 clear; 20..31 0xffe
 *   compact  ticks 0..39 offset + 1 (0 none), 40..62 file + 1 (0 none);
 *            aux bytes
 *   long (an offset past 2^40 - 2, a file row past 2^23 - 2, bytes past
 *        2^32 - 1): two records,
 *            first   ticks bytes (63 bits), aux file + 1
 *            second  ticks offset + 1 (63 bits), aux 0
 * Bytes saturate at 2^63 - 1; a negative value reads as none. */
#define SCOPE_REC_IODATA_WORD 0xffe00007u
#define SCOPE_REC_IODATA_MASK 0xfff00007u
#define SCOPE_REC_IODATA_FAILED (1u << 6)
#define SCOPE_REC_IODATA_LONG (1u << 7)
#define SCOPE_REC_IODATA_SECOND (1u << 8)
#define SCOPE_IO_NO_FILE (-1)
#define SCOPE_IO_NO_OFFSET (-1)

struct scope_io_data {
    int32_t file;               /* row of the file table, SCOPE_IO_NO_FILE none */
    int64_t bytes;              /* >= 0 */
    int64_t offset;             /* >= 0, SCOPE_IO_NO_OFFSET none */
    uint8_t issuer;             /* enum scope_paradigm, 0 the program */
    uint8_t failed;             /* 1: the call returned an error */
};

static inline int scope_rec_is_iodata(uint32_t word)
{
    return (word & SCOPE_REC_IODATA_MASK) == SCOPE_REC_IODATA_WORD;
}

/* Encodes `d` into out[0] (and out[1] for the long form). Returns the
 * number of records used, 1 or 2. Pure; a few instructions (the
 * recorder's per-call cost). */
static inline int scope_iodata_pack(const struct scope_io_data *d, struct scope_rec out[2])
{
    uint64_t off1 = d->offset < 0 ? 0 : (uint64_t)d->offset + 1;
    uint64_t file1 = d->file < 0 ? 0 : (uint64_t)d->file + 1;
    uint64_t b = d->bytes < 0 ? 0 : (uint64_t)d->bytes;
    uint32_t w = SCOPE_REC_IODATA_WORD | ((uint32_t)d->issuer & 7u) << 3 |
                 (d->failed ? SCOPE_REC_IODATA_FAILED : 0);
    if (off1 < (1ull << 40) && file1 < (1ull << 23) && b <= UINT32_MAX) {
        out[0] = (struct scope_rec){ SCOPE_REC_DATA_MARK | off1 | file1 << 40, w, (uint32_t)b };
        return 1;
    }
    out[0] = (struct scope_rec){ SCOPE_REC_DATA_MARK | (b & ~SCOPE_REC_DATA_MARK),
                                 w | SCOPE_REC_IODATA_LONG, (uint32_t)file1 };
    out[1] = (struct scope_rec){ SCOPE_REC_DATA_MARK | (off1 & ~SCOPE_REC_DATA_MARK),
                                 w | SCOPE_REC_IODATA_SECOND, 0 };
    return 2;
}

/* Decodes an I/O data record: a compact one (`second` unused), or the
 * first of a long form and `second` (NULL when it is missing: the offset
 * then reads none). Returns the records used, 1 or 2; 0 when `first` is a
 * long form's second record alone (nothing to decode). Pure. */
static inline int scope_iodata_unpack(const struct scope_rec *first, const struct scope_rec *second,
                                      struct scope_io_data *d)
{
    if (first->word & SCOPE_REC_IODATA_SECOND)
        return 0;
    d->issuer = (uint8_t)((first->word >> 3) & 7u);
    d->failed = (first->word & SCOPE_REC_IODATA_FAILED) != 0;
    if (!(first->word & SCOPE_REC_IODATA_LONG)) {
        uint64_t t = first->ticks;
        d->offset = (int64_t)(t & ((1ull << 40) - 1)) - 1;
        d->file = (int32_t)((t >> 40) & ((1u << 23) - 1)) - 1;
        d->bytes = first->aux;
        return 1;
    }
    d->bytes = (int64_t)(first->ticks & ~SCOPE_REC_DATA_MARK);
    d->file = first->aux ? (int32_t)(first->aux - 1) : SCOPE_IO_NO_FILE;
    if (d->file < SCOPE_IO_NO_FILE)
        d->file = SCOPE_IO_NO_FILE;
    int paired = second && scope_rec_is_iodata(second->word) &&
                 (second->word & SCOPE_REC_IODATA_SECOND);
    d->offset = paired ? (int64_t)(second->ticks & ~SCOPE_REC_DATA_MARK) - 1 : SCOPE_IO_NO_OFFSET;
    return paired ? 2 : 1;
}

/* A row of a rank's file table (SCOPE_META_FILE, docs/format.md "What
 * I/O calls did"): one per file, standard stream or HDF5 dataset the
 * rank's I/O calls named, defined once, when first met (its kind: enum
 * scope_file_kind of scope_format.h). */

struct scope_file_meta {
    uint32_t id;                /* the row (0, 1, ...), dense */
    uint32_t kind;              /* enum scope_file_kind */
    int32_t parent;             /* a dataset's file row; -1 otherwise */
    uint32_t layer;             /* enum scope_paradigm of the call that met it first */
    uint64_t dev, ino;          /* st_dev and st_ino (0 when not known) */
    int64_t block_size;         /* st_blksize (0 when not known) */
};
_Static_assert(sizeof(struct scope_file_meta) == 40, "file meta layout");

/* The strings of a file row, each any bytes but NUL: the name as the
 * program gave it (a dataset's path in its file), the name the kernel
 * resolves it to (/proc/self/fd; "" when not known), the file system's
 * type and its mount point (from the mount table; "" when not known). */
struct scope_file_names {
    const char *name, *resolved, *fs_type, *mount;
};

/* Encodes a SCOPE_META_FILE payload (struct scope_file_meta, then the four
 * strings NUL-terminated) into buf[0..cap). Returns its length, or 0 when
 * it does not fit. Pure. */
static inline size_t scope_file_meta_pack(const struct scope_file_meta *m,
                                          const struct scope_file_names *n, char *buf, size_t cap)
{
    const char *s[4] = { n->name, n->resolved, n->fs_type, n->mount };
    size_t len = sizeof *m;
    for (int k = 0; k < 4; k++)
        len += strlen(s[k] ? s[k] : "") + 1;
    if (len > cap)
        return 0;
    memcpy(buf, m, sizeof *m);
    size_t at = sizeof *m;
    for (int k = 0; k < 4; k++) {
        size_t l = strlen(s[k] ? s[k] : "") + 1;
        memcpy(buf + at, s[k] ? s[k] : "", l);
        at += l;
    }
    return len;
}

/* Decodes a SCOPE_META_FILE payload of `len` bytes: *m, and the strings
 * pointing into p. Returns 0, or -1 when the payload is short, a string
 * is not terminated inside it, or the kind is unknown. Pure. */
static inline int scope_file_meta_unpack(const char *p, size_t len, struct scope_file_meta *m,
                                         struct scope_file_names *n)
{
    if (len < sizeof *m)
        return -1;
    memcpy(m, p, sizeof *m);
    if (m->kind >= SCOPE_FILE_KINDS)
        return -1;
    const char **s[4] = { &n->name, &n->resolved, &n->fs_type, &n->mount };
    size_t at = sizeof *m;
    for (int k = 0; k < 4; k++) {
        const char *z = at < len ? memchr(p + at, 0, len - at) : NULL;
        if (!z)
            return -1;
        *s[k] = p + at;
        at = (size_t)(z - p) + 1;
    }
    return 0;
}

enum scope_meta_type {
    SCOPE_META_REGION = 1,      /* u32 id, u32 kind (enum scope_kind), then name\0 symbol\0 object\0 */
    SCOPE_META_KV = 2,          /* key\0 value\0 */
    SCOPE_META_INTERPOSE = 3,   /* pattern\0 symbol\0 object\0 method\0
                                   status\0 reason\0 (one config entry and
                                   matched symbol, docs/format.md) */
    SCOPE_META_CALLSITE = 4,    /* u32 id (>= 1), u32 depth (1..16), then
                                   depth times: u64 offset, build_id\0
                                   object\0 (hex build-id, "" if none; the
                                   object's path; offset of the return
                                   address within the object). Frame 0 is
                                   the immediate caller. */
    SCOPE_META_COMM = 5,        /* u32 id, i32 size, i32 remote_size (0 for
                                   an intracommunicator), then size +
                                   remote_size i32 world ranks (-1 unknown),
                                   then creator\0 name\0 (docs/format.md,
                                   "Communicators") */
    SCOPE_META_FILE = 6,        /* a row of the file table: struct
                                   scope_file_meta, then name\0 resolved\0
                                   fs_type\0 mount\0
                                   (scope_file_meta_pack) */
};

struct scope_meta {
    uint32_t type;
    uint32_t len;               /* payload bytes following this header */
};

/* The one reader of a journal's header, for every part that opens a
 * journal it did not write (the converter, `scope recover`, a recorder
 * looking for its parent's journal). Reads the header of the journal open
 * at fd into *h and terminates its strings. Returns 0, SCOPE_EIO when the
 * read fails, or SCOPE_EJOURNAL when the file is too short to hold a
 * header or its magic is not SCOPE_JOURNAL_MAGIC. Checks nothing else:
 * scope_journal_header_check() says whether the rest can be trusted.
 * Cost: one pread of the header. */
static inline int scope_journal_header_read(int fd, struct scope_journal_header *h)
{
    size_t got = 0;
    while (got < sizeof *h) {
        ssize_t r = pread(fd, (char *)h + got, sizeof *h - got, (off_t)got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            return SCOPE_EIO;
        if (r == 0)
            return SCOPE_EJOURNAL;
        got += (size_t)r;
    }
    if (memcmp(h->magic, SCOPE_JOURNAL_MAGIC, sizeof h->magic) != 0)
        return SCOPE_EJOURNAL;
    h->hostname[sizeof h->hostname - 1] = 0;
    h->output[sizeof h->output - 1] = 0;
    return 0;
}

#endif /* SCOPE_JOURNAL_H */
