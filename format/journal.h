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

#include <stdint.h>

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
/* aux flags of an end */
#define SCOPE_REC_UNWOUND 1u    /* end inferred (longjmp, exception, exit) */

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
};

struct scope_meta {
    uint32_t type;
    uint32_t len;               /* payload bytes following this header */
};

#endif /* SCOPE_JOURNAL_H */
