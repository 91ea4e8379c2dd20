/*
 * io_cells.c - one I/O call's layer, file, bytes and offset for the
 * listings of calls (io_cells.h). The arrays are the reader's, kept by
 * the profile until close, so the cache holds pointers only.
 */
#include "io_cells.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A row's own name: a regular file's resolved name, else as given. */
static const char *own_name(const scope_io_files *f, int row)
{
    const char *given = f->name && f->name[row] ? f->name[row] : "";
    return f->kind && f->kind[row] == 0 && f->resolved && f->resolved[row] &&
           *f->resolved[row] ? f->resolved[row] : given;
}

char *scope__io_row_name(const scope_io_files *f, int row)
{
    if (f->kind && f->kind[row] == 2 && f->parent && f->parent[row] >= 0 &&
        f->parent[row] < f->n) {
        const char *pn = own_name(f, f->parent[row]), *dn = own_name(f, row);
        char *s = malloc(strlen(pn) + strlen(dn) + 2);
        if (s)
            sprintf(s, "%s:%s", pn, dn);
        return s;
    }
    return strdup(own_name(f, row));
}

static void free_names(scope__io_cache *c)
{
    for (int i = 0; c->names && i < c->files.n; i++)
        free(c->names[i]);
    free(c->names);
    c->names = NULL;
}

void scope__io_cache_free(scope__io_cache *c)
{
    free_names(c);
}

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
        free_names(c);
        memset(&c->files, 0, sizeof c->files);
        c->files_rank = -1;
        if (scope_profile_io_files(c->p, rank, &c->files) < 0)
            return -1;
        if (c->files.n > 0 && !(c->names = calloc((size_t)c->files.n, sizeof *c->names)))
            return -2;
        for (int i = 0; i < c->files.n; i++)
            if (!(c->names[i] = scope__io_row_name(&c->files, i)))
                return -2;
        c->files_rank = rank;
    }
    out->layer = c->layer;
    out->file = c->cols.file ? c->cols.file[call] : -1;
    out->file_name = out->file >= 0 && out->file < c->files.n ? c->names[out->file] : "";
    out->bytes = c->cols.bytes[call];
    out->offset = c->cols.offset ? c->cols.offset[call] : -1;
    out->failed = c->cols.failed ? c->cols.failed[call] : 0;
    return 1;
}
