/*
 * write_runs.c - synthetic runs with known noise, written the way the
 * recorder writes them: a journal in the layout of format/journal.h
 * (clock in ns, one thread per rank, complete records), converted to rank
 * files by the converter's own entry, scope_convert(). So the profiles
 * tests/compare reads are real scope files, while every duration in them
 * is chosen here.
 *
 *   write_runs OUTDIR SEED RUNS
 *
 * writes OUTDIR/A/run<i>/rank{0,1}.h5 and OUTDIR/B/run<i>/rank{0,1}.h5,
 * i = 1..RUNS: two ranks, 20 calls per rank of
 *   "slow"        base 200 us; 5 % slower in B (factor 1.05)
 *   "same000".."same099"   base 50 us, unchanged
 * Each (run, rank, region) has a run-level factor exp(N(0, 0.01)) (what
 * moves a whole run: another job, the CPU's clock) and each call a factor
 * exp(N(0, 0.05)), all from a splitmix64 stream of SEED, so the noise is
 * known and every region's draws are independent of the others'.
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "journal.h"
#include "scope_convert.h"

#define CHUNK 65536u
#define CALLS 20
#define SAME 100

static uint64_t state;

static uint64_t next(void)
{
    uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* A standard normal draw (Box-Muller). */
static double normal(void)
{
    double u = ((double)(next() >> 11) + 0.5) / 9007199254740992.0;
    double v = (double)(next() >> 11) / 9007199254740992.0;
    return sqrt(-2 * log(u)) * cos(2 * M_PI * v);
}

static void put_meta(unsigned char *p, size_t *used, uint32_t type,
                     const void *payload, uint32_t len)
{
    struct scope_meta m = { type, len };
    memcpy(p + *used, &m, sizeof m);
    memcpy(p + *used + sizeof m, payload, len);
    *used += sizeof m + ((len + 7u) & ~7u);
}

static void chunk_header(unsigned char *c, uint32_t type, uint32_t seq,
                         uint64_t used)
{
    struct scope_chunk_header h;
    memset(&h, 0, sizeof h);
    h.magic = SCOPE_CHUNK_MAGIC;
    h.type = type;
    h.seq = seq;
    h.tid = 4242;
    h.calib_ns = 1000;
    h.used = used;
    h.guard = SCOPE_CHUNK_GUARD;
    memcpy(h.thread_name, "main", 5);
    memcpy(c, &h, sizeof h);
}

/* One rank's journal, converted into rank_path. 0 or 1. */
static int write_rank(const char dir[4096], int rank, int set_b)
{
    int nreg = SAME + 1;
    size_t nrec = (size_t)nreg * CALLS;
    size_t per_chunk = (CHUNK - sizeof(struct scope_chunk_header)) / sizeof(struct scope_rec);
    size_t nev = (nrec + per_chunk - 1) / per_chunk;
    size_t size = SCOPE_JOURNAL_HEADER_SIZE + (1 + nev) * CHUNK;
    unsigned char *j = calloc(1, size);
    if (!j)
        return 1;
    struct scope_journal_header *h = (void *)j;
    memcpy(h->magic, SCOPE_JOURNAL_MAGIC, 8);
    h->version = SCOPE_JOURNAL_VERSION;
    h->header_size = SCOPE_JOURNAL_HEADER_SIZE;
    h->chunk_size = CHUNK;
    h->record_size = sizeof(struct scope_rec);
    h->state = SCOPE_JOURNAL_FINALIZED;
    h->clock_kind = SCOPE_CLOCK_NS;
    h->chunk_count = 1 + nev;
    h->pid = 1000 + rank;
    h->rank = rank;
    h->size = 2;
    h->start_ns = 1000;
    h->start_realtime_ns = 1700000000000000000;
    h->thread_count = 1;
    h->clock_resolution = 1;
    snprintf(h->hostname, sizeof h->hostname, "testhost");
    snprintf(h->output, sizeof h->output, "%.1000s/run.h5", dir);
    /* meta chunk: the regions */
    unsigned char *meta = j + SCOPE_JOURNAL_HEADER_SIZE;
    size_t used = 0;
    for (int r = 0; r < nreg; r++) {
        unsigned char pl[64];
        uint32_t id = (uint32_t)r, kind = SCOPE_KIND_FUNCTION;
        memcpy(pl, &id, 4);
        memcpy(pl + 4, &kind, 4);
        int n = r == 0 ? snprintf((char *)pl + 8, 40, "slow")
                       : snprintf((char *)pl + 8, 40, "same%03d", r - 1);
        memset(pl + 8 + n, 0, 3);           /* name\0 symbol\0 object\0 */
        put_meta(meta + sizeof(struct scope_chunk_header), &used, SCOPE_META_REGION, pl,
                 (uint32_t)(8 + n + 3));
    }
    static const char kv[] = "executable\0/bin/synthetic";
    put_meta(meta + sizeof(struct scope_chunk_header), &used, SCOPE_META_KV, kv, sizeof kv);
    chunk_header(meta, SCOPE_CHUNK_META, 0, used);
    /* events: each region's calls one after the other, 1 us apart */
    int64_t t = 10000;
    size_t k = 0;
    for (int r = 0; r < nreg; r++) {
        double base = r == 0 ? 200000 : 50000;
        double factor = (r == 0 && set_b ? 1.05 : 1.0) * exp(0.01 * normal());
        for (int c = 0; c < CALLS; c++, k++) {
            uint32_t d = (uint32_t)llround(base * factor * exp(0.05 * normal()));
            struct scope_rec rec = { (uint64_t)t, (uint32_t)r << SCOPE_REC_ID_SHIFT |
                                     SCOPE_REC_COMPLETE, d };
            unsigned char *c0 = j + SCOPE_JOURNAL_HEADER_SIZE + (1 + k / per_chunk) * CHUNK;
            memcpy(c0 + sizeof(struct scope_chunk_header) +
                   (k % per_chunk) * sizeof rec, &rec, sizeof rec);
            t += d + 1000;
        }
    }
    for (size_t e = 0; e < nev; e++)
        chunk_header(j + SCOPE_JOURNAL_HEADER_SIZE + (1 + e) * CHUNK, SCOPE_CHUNK_EVENTS,
                     (uint32_t)e, 0);
    h->end_ns = t + 1000;
    char jpath[4200], rpath[4200], err[512];
    snprintf(jpath, sizeof jpath, "%.4000s/journal.%d", dir, rank);
    snprintf(rpath, sizeof rpath, "%.4000s/rank%d.h5", dir, rank);
    FILE *f = fopen(jpath, "wb");
    if (!f || fwrite(j, 1, size, f) != size || fclose(f) != 0) {
        fprintf(stderr, "%s: cannot write\n", jpath);
        free(j);
        return 1;
    }
    free(j);
    struct scope_convert_request req = scope_request_rank(jpath, rpath, NULL, 1, err,
                                                          sizeof err);
    if (scope_convert(&req) != 0) {
        fprintf(stderr, "convert %s: %s\n", jpath, err);
        return 1;
    }
    remove(jpath);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: write_runs OUTDIR SEED RUNS\n");
        return 2;
    }
    state = strtoull(argv[2], NULL, 10);
    int runs = atoi(argv[3]);
    char dir[4096];
    mkdir(argv[1], 0777);
    for (int s = 0; s < 2; s++) {
        snprintf(dir, sizeof dir, "%.4000s/%c", argv[1], "AB"[s]);
        mkdir(dir, 0777);
        for (int i = 1; i <= runs; i++) {
            snprintf(dir, sizeof dir, "%.4000s/%c/run%d", argv[1], "AB"[s], i);
            if (mkdir(dir, 0777) != 0 && errno != EEXIST)
                return 1;
            for (int rank = 0; rank < 2; rank++)
                if (write_rank(dir, rank, s))
                    return 1;
        }
    }
    return 0;
}
