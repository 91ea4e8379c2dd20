/*
 * recorder_hot.c - the recorder's hot path: scope_begin/scope_end and the
 * trampoline's begin/end, data records, and the slow path a full chunk
 * takes.
 *
 * The hot path (scope_begin/scope_end) reads the clock and stores one
 * 16-byte record at the calling thread's cursor into its staging chunk, a
 * piece of the journal file mapped MAP_SHARED: no lock, no malloc, no
 * system call. The end of a call that recorded nothing inside it completes
 * the begin record in place instead (journal.h, SCOPE_REC_COMPLETE). Only
 * when the staging chunk is full does the slow path run: it copies the
 * chunk to a fresh chunk of the file with pwrite and starts over in the same
 * mapping (journal.h explains why and how a reader tells the two apart).
 * One chunk is mapped per recording thread, and their number is bounded by
 * the memory budget, so memory stays bounded however long the run is;
 * events that find no room are counted, never silently lost. A chunk's
 * disk space is reserved before it is touched; a full or failing disk
 * stops recording cleanly (recorder_journal.c, journal_storage.c).
 *
 * The slow path takes no lock either, so a signal handler that records on a
 * thread interrupted inside it cannot deadlock. Interning, metadata and
 * journal creation take `lock`; they happen once per region or per run.
 *
 * Apart from the API (recorder.c) because the calibration (calibrate.c)
 * times these very calls, and recorder.c runs the calibration: with the
 * hot path here, calls run one way, recorder.c -> calibrate.c -> this
 * file. The thread's recording state lives here, in initial-exec TLS, so
 * every access of the hot path is one %fs-relative load.
 */
#include <stdatomic.h>
#include <stdint.h>
#include <unistd.h>

#include "clock.h"
#include "journal.h"
#include "recorder_state.h"

static __thread struct scope__rec_thread tls __attribute__((tls_model("initial-exec")));

struct scope__rec_thread *scope__rec_this_thread(void)
{
    return &tls;
}

/* The record that found no free slot: sets up the thread's chunk (the
 * journal too, for the process's first record). `now`: a begin whose
 * ticks were read just now (scope_begin, a trampoline's entry); the call
 * it opens starts after this setup, which can take up to a millisecond
 * (creating the journal, writing out a full chunk), so it gets a fresh
 * timestamp: else the first call of each thread and of each chunk would
 * carry scope's setup in its duration. */
/* Makes room in the calling thread's chunk when the hot path found none
 * (see record_slow; `ticks` stamps a chunk set up now). Returns 1 when a
 * slot is free at t->cur, else 0 (the event is counted as dropped). */
static __attribute__((noinline)) int slow_room(struct scope__rec_thread *t, uint64_t ticks)
{
    if (!scope__hot.on) {
        /* stopped by the storage: every event from then on is counted */
        if (atomic_load(&scope__rec.state) == ST_READY && getpid() == scope__rec.pid && scope__rec.hdr) {
            scope__rec_report_lost_pages();
            if (atomic_load_explicit(&scope__rec.storage_err, memory_order_relaxed))
                atomic_fetch_add(&scope__rec.dropped, 1);
        }
        return 0;
    }
    if (getpid() != scope__rec.pid)
        return 0;
    scope__self_enter();    /* the chunk's pwrite, the journal's creation */
    int ok = scope__rec_ensure_journal() && scope__rec_next_chunk(t, ticks);
    scope__self_leave();
    if (!ok)
        atomic_fetch_add(&scope__rec.dropped, 1);
    return ok;
}

static __attribute__((noinline)) void record_slow(uint64_t ticks, uint32_t word, uint32_t aux,
                                                  int now)
{
    struct scope__rec_thread *t = &tls;
    /* now < 0: a data record, whose ticks is payload, never a chunk's stamp */
    if (!slow_room(t, now < 0 ? scope__ticks() : ticks))
        return;
    if (now > 0) {
        uint64_t later = scope__ticks();
        if (later > ticks)
            ticks = later;
    }
    struct scope_rec *r = t->cur++;
    r->word = word;
    r->aux = aux;
    /* the timestamp publishes the record: see record_aux() */
    __atomic_store_n(&r->ticks, ticks, __ATOMIC_RELEASE);
}

/* --------------------------------------------------------------- hot path */

/* The slot is claimed before it is filled and the timestamp is stored last,
 * so a signal handler that records on this thread in between takes the next
 * slot, and a reader never sees a half-written record as valid. The last
 * store is a C11 release store, not a plain one after a compiler fence: on
 * x86-64 both are the same mov (TSO keeps stores in order), but on a weakly
 * ordered CPU (aarch64) only the release store (stlr) keeps another thread
 * or process from seeing the timestamp before the word and aux it
 * publishes. */
static inline __attribute__((always_inline)) void record_aux(uint32_t word, uint64_t ticks,
                                                              uint32_t aux, int now)
{
    struct scope__rec_thread *t = &tls;
    struct scope_rec *r = t->cur;
    if (__builtin_expect(r < t->end && scope__hot.on, 1)) {
        t->cur = r + 1;
        atomic_signal_fence(memory_order_seq_cst);
        r->word = word;
        r->aux = aux;
        __atomic_store_n(&r->ticks, ticks, __ATOMIC_RELEASE);
        return;
    }
    record_slow(ticks, word, aux, now);
}

static inline __attribute__((always_inline)) void record_at(uint32_t word, uint64_t ticks)
{
    record_aux(word, ticks, 0, 0);
}

void scope_begin(int32_t id)
{
    record_aux(scope_rec_region_word(id), scope__ticks(), 0, 1);
}

/* The end of a call that recorded nothing inside it finds its own begin as
 * the latest record and completes it in place (journal.h). The record
 * before a chunk's first slot is the chunk header's guard, which never
 * matches a begin. A signal handler that records between the check and
 * the stores adds records after this one: they lie inside the call in
 * time, and the reader nests calls by containment. */
static inline __attribute__((always_inline)) void end_at(int32_t id, uint64_t ticks)
{
    uint32_t begin = scope_rec_region_word(id);
    struct scope__rec_thread *t = &tls;
    struct scope_rec *r = t->cur;
    if (__builtin_expect(r != NULL && scope__hot.on, 1)) {
        struct scope_rec *last = r - 1;
        uint64_t d = ticks - last->ticks;
        /* a begin with a call site keeps its aux: its end is a record */
        if (last->word == begin && last->aux == 0 && d <= UINT32_MAX) {
            last->aux = (uint32_t)d;
            /* release, as in record_aux(): the duration before the flag */
            __atomic_store_n(&last->word, begin | SCOPE_REC_COMPLETE, __ATOMIC_RELEASE);
            return;
        }
    }
    record_at(begin | SCOPE_REC_END, ticks);
}

void scope_end(int32_t id)
{
    /* the clock is read before anything else: the end is as early as can be */
    end_at(id, scope__ticks());
}

void scope__begin_aux(int32_t id, uint32_t aux)
{
    record_aux(scope_rec_region_word(id), scope__ticks(), aux, 1);
}

/* `ticks`, or the end of the thread's latest record when that is later:
 * an end put at an earlier moment than now stays after what the thread
 * recorded, so that its records stay in time order. */
static inline uint64_t not_before_last(uint64_t ticks)
{
    struct scope__rec_thread *t = &tls;
    struct scope_rec *r = t->cur;
    if (r && scope__hot.on && r[-1].word != SCOPE_CHUNK_GUARD && !scope_rec_is_data(r[-1].word)) {
        uint64_t last = r[-1].ticks + ((r[-1].word & SCOPE_REC_COMPLETE) ? r[-1].aux : 0);
        if (last > ticks)
            return last;
    }
    return ticks;
}

uint64_t scope__end_aux(int32_t id, uint32_t aux)
{
    /* never completes the begin in place: the aux is the end's own */
    uint64_t ticks = scope__ticks();
    record_aux(scope_rec_region_word(id) | SCOPE_REC_END, ticks,
               aux & ~SCOPE_REC_UNWOUND, 0);
    return ticks;
}

void scope__begin_site(int32_t id, int32_t site)
{
    record_aux(scope_rec_region_word(id), scope__ticks(), (uint32_t)(site > 0 ? site : 0),
               1);
}

void scope__begin_site_at(int32_t id, int32_t site, uint64_t ticks)
{
    record_aux((uint32_t)id << SCOPE_REC_ID_SHIFT, ticks, (uint32_t)(site > 0 ? site : 0), 1);
}

void scope__end_at(int32_t id, uint64_t ticks)
{
    end_at(id, ticks);
}

void scope__end_unwound(int32_t id)
{
    record_aux(scope_rec_region_word(id) | SCOPE_REC_END, scope__ticks(),
               SCOPE_REC_UNWOUND, 0);
}

void scope__end_unwound_at(int32_t id, uint64_t ticks)
{
    /* not before the end of the thread's latest record: what ran after the
     * given moment (a destructor during unwinding) stays inside the call */
    ticks = not_before_last(ticks);
    record_aux(scope_rec_region_word(id) | SCOPE_REC_END, ticks, SCOPE_REC_UNWOUND, 0);
}

/* A data record's slot, as record_aux's: its `ticks` is payload, so a
 * chunk set up for it is stamped with the clock (record_slow). */
static inline __attribute__((always_inline)) void record_data_rec(uint64_t ticks, uint32_t word,
                                                                   uint32_t aux)
{
    record_aux(word, ticks, aux, -1);
}

void scope__record_data_raw(uint64_t ticks, uint32_t word, uint32_t aux)
{
    if (!scope_rec_is_data(word))
        return;     /* only data records: never a begin or an end */
    record_data_rec(SCOPE_REC_DATA_MARK | ticks, word, aux);
}

void scope__record_data_recs(const struct scope_rec *r, unsigned n)
{
    struct scope__rec_thread *t = &tls;
    struct scope_rec *w = t->cur;
    if (n == 1) {   /* most calls: record_data_rec's checks, no loops */
        if (scope_rec_is_data(r->word))
            record_data_rec(SCOPE_REC_DATA_MARK | r->ticks, r->word, r->aux);
        return;
    }
    uint32_t all = SCOPE_REC_DATA;
    for (unsigned i = 0; i < n; i++)
        all &= r[i].word;
    /* across a chunk's end, or a record that is not data among them (never
     * written: only data records here): one by one */
    if (__builtin_expect(!(w && (size_t)(t->end - w) >= n && scope__hot.on &&
                           all == SCOPE_REC_DATA), 0)) {
        for (unsigned i = 0; i < n; i++)
            scope__record_data_raw(r[i].ticks, r[i].word, r[i].aux);
        return;
    }
    t->cur = w + n;
    atomic_signal_fence(memory_order_seq_cst);
    for (unsigned i = 0; i < n; i++, w++) {
        w->word = r[i].word;
        w->aux = r[i].aux;
        /* published by its ticks, as in record_aux() */
        __atomic_store_n(&w->ticks, SCOPE_REC_DATA_MARK | r[i].ticks, __ATOMIC_RELEASE);
    }
}

void scope__record_data(const struct scope_call_data *d)
{
    struct scope_rec out[2];
    int n = scope_data_pack(d, out);
    for (int i = 0; i < n; i++)
        record_data_rec(out[i].ticks, out[i].word, out[i].aux);
}

void scope__swap_records(struct scope_rec **cur, struct scope_rec **end)
{
    struct scope_rec *c = tls.cur, *e = tls.end;
    tls.cur = *cur;
    tls.end = *end;
    *cur = c;
    *end = e;
}

void scope__record_at(int32_t id, int is_end, uint64_t ticks)
{
    if (!ticks)
        return;
    if (is_end)
        end_at(id, ticks);
    else
        record_at(scope_rec_region_word(id), ticks);
}
