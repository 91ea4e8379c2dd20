/*
 * io_cells.c - one I/O call's layer, file, bytes and offset for the
 * listings of calls (io_cells.h). The arrays are the reader's, kept by
 * the profile until close, so the cache holds pointers only.
 */
#include "io_cells.h"

#include <string.h>

void scope__io_cache_init(scope__io_cache *c, scope_profile *p)
{
    memset(c, 0, sizeof *c);
    c->p = p;
    c->region = -1;
    c->files_rank = -1;
}

int scope__io_cell_of(scope__io_cache *c, int region, int rank, int64_t call,
                      scope__io_cell *out)
{
    if (c->region != region || c->rank != rank) {
        c->region = region;
        c->rank = rank;
        c->layer = scope_region_io_layer(scope_profile_region_name(c->p, region));
        memset(&c->cols, 0, sizeof c->cols);
        if (c->layer > 0 && scope_profile_io_columns(c->p, region, rank, &c->cols) < 0) {
            c->region = -1;
            return -1;
        }
    }
    if (c->layer <= 0 || !c->cols.bytes || call < 0 || call >= c->cols.n)
        return 0;
    if (c->files_rank != rank) {
        memset(&c->files, 0, sizeof c->files);
        if (scope_profile_io_files(c->p, rank, &c->files) < 0)
            return -1;
        c->files_rank = rank;
    }
    out->layer = c->layer;
    out->file = c->cols.file ? c->cols.file[call] : -1;
    /* the name `scope io` and io_calls() show: resolved, else as given */
    out->file_name = "";
    if (out->file >= 0 && out->file < c->files.n) {
        const char *r = c->files.resolved ? c->files.resolved[out->file] : NULL;
        const char *g = c->files.name ? c->files.name[out->file] : NULL;
        out->file_name = r && *r ? r : g ? g : "";
    }
    out->bytes = c->cols.bytes[call];
    out->offset = c->cols.offset ? c->cols.offset[call] : -1;
    out->failed = c->cols.failed ? c->cols.failed[call] : 0;
    return 1;
}
