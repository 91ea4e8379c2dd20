/*
 * io_filemap.c - one list of a run's files out of its ranks' file tables:
 * the rows of every rank that name the same file get one index. A regular
 * file is known by the name the kernel resolved it to (else the name as
 * given), a standard stream by its name, an HDF5 dataset by its file and
 * its path, the recorder's "files past the bound" row by its name. The
 * list is sorted by display name at the end, so that a report is the same
 * whichever rank named a file first.
 *
 * Keys are byte strings (a name may hold any byte but NUL) in an
 * open-addressing hash table; a run's files are few next to its calls.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io_internal.h"

struct entry {
    char *key;              /* kind letter, parent index for datasets, name */
    size_t klen;
    scope_io_file f;        /* strings malloc'd */
};

struct scope__io_filemap {
    struct entry *v;        /* in order of first appearance */
    int32_t n, cap;
    int32_t *slot;          /* hash slots: index + 1, 0 empty */
    size_t nslot;
};

static uint64_t hash(const char *s, size_t n)
{
    uint64_t h = UINT64_C(14695981039346656037);
    for (size_t i = 0; i < n; i++)
        h = (h ^ (uint8_t)s[i]) * UINT64_C(1099511628211);
    return h;
}

struct scope__io_filemap *scope__io_filemap_new(void)
{
    return calloc(1, sizeof(struct scope__io_filemap));
}

static void entry_free(scope_io_file *f)
{
    free((char *)f->name);
    free((char *)f->given);
    free((char *)f->fs_type);
    free((char *)f->mount);
}

void scope__io_filemap_free(struct scope__io_filemap *m)
{
    if (!m)
        return;
    for (int32_t i = 0; i < m->n; i++) {
        free(m->v[i].key);
        entry_free(&m->v[i].f);
    }
    free(m->v);
    free(m->slot);
    free(m);
}

void scope__io_files_list_free(scope_io_file *files, int32_t n)
{
    for (int32_t i = 0; files && i < n; i++)
        entry_free(&files[i]);
    free(files);
}

static int rehash(struct scope__io_filemap *m)
{
    size_t ns = m->nslot ? m->nslot * 2 : 64;
    int32_t *slot = calloc(ns, sizeof *slot);
    if (!slot)
        return -1;
    for (int32_t i = 0; i < m->n; i++) {
        size_t h = (size_t)hash(m->v[i].key, m->v[i].klen) & (ns - 1);
        while (slot[h])
            h = (h + 1) & (ns - 1);
        slot[h] = i + 1;
    }
    free(m->slot);
    m->slot = slot;
    m->nslot = ns;
    return 0;
}

/* The index of `key`, added with `f` (its strings taken over) when new;
 * < 0 on ENOMEM (f's strings freed). */
static int32_t find_or_add(struct scope__io_filemap *m, char *key, size_t klen, scope_io_file *f)
{
    if ((size_t)(m->n + 1) * 2 > m->nslot && rehash(m) < 0)
        goto fail;
    size_t h = (size_t)hash(key, klen) & (m->nslot - 1);
    for (; m->slot[h]; h = (h + 1) & (m->nslot - 1)) {
        struct entry *e = &m->v[m->slot[h] - 1];
        if (e->klen == klen && memcmp(e->key, key, klen) == 0) {
            if (!e->f.block_size)
                e->f.block_size = f->block_size;
            free(key);
            entry_free(f);
            return m->slot[h] - 1;
        }
    }
    if (m->n == m->cap) {
        int32_t cap = m->cap ? m->cap * 2 : 32;
        struct entry *v = realloc(m->v, (size_t)cap * sizeof *v);
        if (!v)
            goto fail;
        m->v = v;
        m->cap = cap;
    }
    m->v[m->n] = (struct entry){ key, klen, *f };
    m->slot[h] = m->n + 1;
    return m->n++;
fail:
    free(key);
    entry_free(f);
    return -2;
}

static char *dup_or_empty(const char *s)
{
    return strdup(s ? s : "");
}

int scope__io_filemap_row(struct scope__io_filemap *m, const struct scope__io_files *t, int row)
{
    if (!t || row < 0 || row >= t->n)
        return -1;
    int kind = t->kind[row];
    int32_t parent = -1;
    if (kind == SCOPE_FILE_DATASET) {
        parent = scope__io_filemap_row(m, t, t->parent[row]);
        if (parent < -1)
            return parent;
    }
    const char *given = t->name[row];
    const char *id = kind == SCOPE_FILE_REGULAR && t->resolved[row][0] ? t->resolved[row] : given;
    size_t idlen = strlen(id);
    char *key = malloc(idlen + 16);
    if (!key)
        return -2;
    int hl = snprintf(key, 16, "%c%d:", 'A' + kind, parent);
    memcpy(key + hl, id, idlen);
    size_t klen = (size_t)hl + idlen;
    /* the display name: a dataset's is its file's and its path */
    char *name;
    if (kind == SCOPE_FILE_DATASET) {
        const char *pn = m->v[parent].f.name;
        name = malloc(strlen(pn) + idlen + 2);
        if (name)
            sprintf(name, "%s:%s", pn, id);
    } else {
        name = strdup(id);
    }
    scope_io_file f = { name, dup_or_empty(given), dup_or_empty(t->fs_type[row]),
                        dup_or_empty(t->mount[row]), t->block_size[row], kind, parent, 0, 0, 0, 0 };
    if (!f.name || !f.given || !f.fs_type || !f.mount) {
        free(key);
        entry_free(&f);
        return -2;
    }
    return find_or_add(m, key, klen, &f);
}

static int cmp_name(const void *a, const void *b, void *ctx)
{
    const struct scope__io_filemap *m = ctx;
    const scope_io_file *x = &m->v[*(const int32_t *)a].f;
    const scope_io_file *y = &m->v[*(const int32_t *)b].f;
    int c = strcmp(x->name, y->name);
    if (c)
        return c;
    if (x->kind != y->kind)
        return x->kind - y->kind;
    return (*(const int32_t *)a > *(const int32_t *)b) - (*(const int32_t *)a < *(const int32_t *)b);
}

int scope__io_filemap_finish(struct scope__io_filemap *m, scope_io_file **files, int32_t *n,
                             int32_t **remap)
{
    int32_t cnt = m->n;
    int32_t *order = malloc((size_t)(cnt ? cnt : 1) * sizeof *order);
    int32_t *map = malloc((size_t)(cnt ? cnt : 1) * sizeof *map);
    scope_io_file *out = calloc((size_t)(cnt ? cnt : 1), sizeof *out);
    if (!order || !map || !out) {
        free(order);
        free(map);
        free(out);
        return scope__fail(SCOPE_ENOMEM, "out of memory");
    }
    for (int32_t i = 0; i < cnt; i++)
        order[i] = i;
    qsort_r(order, (size_t)cnt, sizeof *order, cmp_name, m);
    for (int32_t i = 0; i < cnt; i++)
        map[order[i]] = i;
    for (int32_t i = 0; i < cnt; i++) {
        out[i] = m->v[order[i]].f;
        if (out[i].parent >= 0)
            out[i].parent = map[out[i].parent];
        memset(&m->v[order[i]].f, 0, sizeof m->v[order[i]].f);   /* strings now the list's */
    }
    free(order);
    *files = out;
    *n = cnt;
    *remap = map;
    return 0;
}
