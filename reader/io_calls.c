/*
 * io_calls.c - every I/O call of a profile as one row (scope_profile_io_calls,
 * Python's io_calls()): rank, lane, region, layer, issuer, file, class,
 * time, bytes, offset, in each rank's time order, with the file as an
 * index into the run's file list that scope_profile_io_report() builds
 * for the same options (the same ranks map their rows the same way).
 */
#include <stdlib.h>
#include <string.h>

#include "io_internal.h"
#include "scope_calls.h"

void scope_io_calls_free(scope_io_calls *c)
{
    if (!c)
        return;
    free(c->rank);
    free(c->thread);
    free(c->region);
    free(c->layer);
    free(c->issuer);
    free(c->file);
    free(c->cls);
    free(c->failed);
    free(c->start_ns);
    free(c->end_ns);
    free(c->bytes);
    free(c->offset);
    scope__free_strings(c->file_names, c->nfiles);
    memset(c, 0, sizeof *c);
}

/* Grows every column to hold `need` rows. 0 or -1. */
static int grow(scope_io_calls *c, int64_t need, int64_t *cap)
{
    if (need <= *cap)
        return 0;
    int64_t n = *cap ? *cap : 1024;
    while (n < need)
        n *= 2;
    void **col32[] = { (void **)&c->rank, (void **)&c->thread, (void **)&c->region,
                       (void **)&c->layer, (void **)&c->issuer, (void **)&c->file, (void **)&c->cls };
    void **col64[] = { (void **)&c->start_ns, (void **)&c->end_ns, (void **)&c->bytes,
                       (void **)&c->offset };
    for (size_t i = 0; i < sizeof col32 / sizeof *col32; i++) {
        void *v = realloc(*col32[i], (size_t)n * 4);
        if (!v)
            return -1;
        *col32[i] = v;
    }
    for (size_t i = 0; i < sizeof col64 / sizeof *col64; i++) {
        void *v = realloc(*col64[i], (size_t)n * 8);
        if (!v)
            return -1;
        *col64[i] = v;
    }
    void *v = realloc(c->failed, (size_t)n);
    if (!v)
        return -1;
    c->failed = v;
    *cap = n;
    return 0;
}

int scope_profile_io_calls(scope_profile *p, const scope_io_options *opt, scope_io_calls *out)
{
    if (!p || !out)
        return scope__fail(SCOPE_EINVAL, "no profile or no output");
    memset(out, 0, sizeof *out);
    unsigned mask = opt && opt->layers ? opt->layers : ~0u;
    int *ks = NULL, nk = 0;
    struct scope__io *s;
    int rc = scope__io_state(p, &s);
    if (rc == 0)
        rc = scope__io_chosen_ranks(p, opt, &ks, &nk);
    struct scope__io_filemap *map = rc == 0 ? scope__io_filemap_new() : NULL;
    if (rc == 0 && !map)
        rc = scope__fail(SCOPE_ENOMEM, "out of memory");
    int64_t cap = 0;
    for (int i = 0; i < nk && rc == 0; i++) {
        int k = ks[i];
        const struct scope__io_files *t;
        struct scope__io_call *calls = NULL;
        int64_t n = 0;
        if ((rc = scope__io_rank_files(p, k, &t)) < 0 ||
            (rc = scope__io_rank_calls(p, k, 1, &calls, &n)) < 0)
            break;
        if (grow(out, out->n + n, &cap) < 0)
            rc = scope__fail(SCOPE_ENOMEM, "out of memory for %lld I/O calls",
                             (long long)(out->n + n));
        for (int64_t j = 0; j < n && rc == 0; j++) {
            const struct scope__io_call *c = &calls[j];
            const struct scope__io_region *reg = &s->regions[c->region];
            if (!(mask & (1u << reg->layer)) || reg->cls == SCOPE_CC_IO_FDS)
                continue;
            int32_t f = t && c->row >= 0 && c->row < t->n ? scope__io_filemap_row(map, t, c->row) : -1;
            if (f < -1) {
                rc = scope__fail(SCOPE_ENOMEM, "out of memory");
                break;
            }
            int64_t r = out->n++;
            out->rank[r] = p->ranks[k].rank;
            out->thread[r] = c->thread;
            out->region[r] = c->region;
            out->layer[r] = reg->layer;
            out->issuer[r] = c->issuer;
            out->file[r] = f;
            out->cls[r] = reg->cls;
            out->failed[r] = c->failed;
            out->start_ns[r] = c->start;
            out->end_ns[r] = c->end;
            out->bytes[r] = c->bytes;
            out->offset[r] = c->offset;
        }
        free(calls);
    }
    if (rc == 0) {
        /* the report's order of files */
        scope_io_file *files = NULL;
        int32_t nf = 0, *remap = NULL;
        if ((rc = scope__io_filemap_finish(map, &files, &nf, &remap)) == 0) {
            for (int64_t r = 0; r < out->n; r++)
                if (out->file[r] >= 0)
                    out->file[r] = remap[out->file[r]];
            free(remap);
            out->file_names = calloc((size_t)(nf ? nf : 1), sizeof *out->file_names);
            for (int32_t i = 0; out->file_names && i < nf; i++) {
                out->file_names[i] = (char *)files[i].name;   /* taken over */
                files[i].name = NULL;
            }
            out->nfiles = out->file_names ? nf : 0;
            if (!out->file_names)
                rc = scope__fail(SCOPE_ENOMEM, "out of memory");
            scope__io_files_list_free(files, nf);
        }
    }
    scope__io_filemap_free(map);
    free(ks);
    if (rc < 0)
        scope_io_calls_free(out);
    return rc;
}
