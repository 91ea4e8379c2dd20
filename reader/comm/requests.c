/*
 * requests.c - the two rank-level tables of what MPI calls moved
 * (docs/format.md): which call completed each nonblocking request
 * (/rank<N>/requests) and who the rank's communicators are
 * (/rank<N>/communicators), for scope_reader_comm.h.
 *
 * Both are small beside the per-call columns (a row per request, a row
 * per communicator), read whole on first use and kept with the rank until
 * close, so that the matching of messages (waits.c) and the exports can
 * ask for them rank after rank without reading twice. A request's regions
 * are names in the file (its own region_names): they are turned into this
 * profile's region indices here, once.
 */
#include <stdlib.h>
#include <string.h>

#include "reader_internal.h"
#include "scope_format.h"
#include "scope_reader.h"
#include "scope_reader_comm.h"

struct scope__rank_tables {
    int loaded_requests, loaded_comms;
    int64_t nreq;
    int32_t *post_region, *done_region, *source, *tag, *dest;
    int64_t *post_call, *done_call, *received, *sent;
    int8_t *cancelled, *coll;
    int32_t *root;
    int ncomm;
    int32_t *size, *remote_size, *members;
    int64_t *members_start;
    char **names;
    char **creators;
};

void scope__rank_tables_free(struct scope__rank_tables *t)
{
    if (!t)
        return;
    free(t->post_region);
    free(t->done_region);
    free(t->source);
    free(t->tag);
    free(t->post_call);
    free(t->done_call);
    free(t->received);
    free(t->dest);
    free(t->sent);
    free(t->cancelled);
    free(t->coll);
    free(t->root);
    free(t->size);
    free(t->remote_size);
    free(t->members);
    free(t->members_start);
    scope__free_strings(t->names, t->ncomm);
    scope__free_strings(t->creators, t->ncomm);
    free(t);
}

/* n empty names (a file written before the column existed). */
static char **empty_names(int64_t n)
{
    char **v = calloc((size_t)(n ? n : 1), sizeof *v);
    for (int64_t i = 0; v && i < n; i++)
        if (!(v[i] = calloc(1, 1))) {
            scope__free_strings(v, n);
            return NULL;
        }
    return v;
}

void scope__rank_tables_forget(scope_profile *p, int k)
{
    scope__rank_tables_free(p->ranks[k].tables);
    p->ranks[k].tables = NULL;
}

static int tables_of(scope_profile *p, int rank, scope__rank **rk, hid_t *f, char **grp)
{
    int k = scope__rank_index(p, rank);
    if (k < 0)
        return scope__fail(SCOPE_ENOTFOUND, "no rank %d in the profile", rank);
    *rk = &p->ranks[k];
    if (!(*rk)->tables && !((*rk)->tables = calloc(1, sizeof *(*rk)->tables)))
        return scope__fail(SCOPE_ENOMEM, "out of memory");
    *grp = NULL;
    if (!(*rk)->group) /* columnar files of the other package: no MPI data */
        return 0;
    int rc = scope__source_file(p, (*rk)->source, f);
    if (rc < 0)
        return rc;
    *grp = (*rk)->group;
    return 0;
}

/* Loads the request table once. Regions named in the file but absent from
 * the profile (a damaged file) read as -1. */
static int load_requests(scope_profile *p, scope__rank *rk, hid_t f, const char *rgrp)
{
    struct scope__rank_tables *t = rk->tables;
    const char *fpath = p->sources[rk->source].path;
    char *grp = NULL;
    if (asprintf(&grp, "%s/%s", rgrp, SCOPE_G_REQUESTS) < 0)
        return scope__fail(SCOPE_ENOMEM, "%s: out of memory", fpath);
    static const char *const cols[] = {
        SCOPE_D_REQ_POST_REGION, SCOPE_D_REQ_POST_CALL, SCOPE_D_REQ_DONE_REGION,
        SCOPE_D_REQ_DONE_CALL, SCOPE_D_SOURCE, SCOPE_D_TAG, SCOPE_D_BYTES_RECEIVED,
        SCOPE_D_REQ_CANCELLED,
        /* since the sends' rows say where they went; files before lack them */
        SCOPE_D_DEST, SCOPE_D_BYTES_SENT,
        /* since a started persistent collective's row says which it is,
         * and its root */
        SCOPE_D_REQ_COLLECTIVE, SCOPE_D_REQ_ROOT,
    };
    enum { NCOL = sizeof cols / sizeof *cols, NREQUIRED = 8 };
    int64_t *w[NCOL] = { 0 }, *names = NULL, n = -1, len, nn;
    int rc = 0;
    scope_h5_quiet quiet;
    scope_h5_quiet_begin(&quiet);
    for (int i = 0; i < NCOL && rc == 0; i++) {
        int64_t got;
        rc = scope__h5_read_wide(f, fpath, grp, cols[i], n, &got, &w[i]);
        if (rc == 0 && i == 0) {
            if (!w[0])
                break; /* no table: no request was followed */
            n = got;
        } else if (rc == 0 && !w[i] && i < NREQUIRED) {
            rc = scope__fail(SCOPE_EFORMAT, "%s: %s lacks %s", fpath, grp, cols[i]);
        }
    }
    if (rc == 0 && w[0])
        rc = scope__h5_read_wide(f, fpath, grp, SCOPE_D_REQ_REGION_NAMES, -1, &len, &names);
    scope_h5_quiet_end(&quiet);
    if (rc < 0 || !w[0])
        goto out;
    /* the file's name rows -> this profile's region indices */
    nn = 0;
    for (int64_t i = 0; i < len; i++)
        nn += names[i] == 0;
    char **nm = scope__split_names(names, len, nn);
    int32_t *map = malloc((size_t)(nn ? nn : 1) * sizeof *map);
    if (!nm || !map) {
        scope__free_strings(nm, nn);
        free(map);
        rc = scope__fail(SCOPE_ENOMEM, "%s: out of memory", fpath);
        goto out;
    }
    for (int64_t i = 0; i < nn; i++)
        map[i] = scope_profile_region_index(p, nm[i]);
    scope__free_strings(nm, nn);
    t->nreq = n;
    t->post_region = scope__narrow32(w[0], n);
    t->done_region = scope__narrow32(w[2], n);
    t->source = scope__narrow32(w[4], n);
    t->tag = scope__narrow32(w[5], n);
    t->dest = w[8] ? scope__narrow32(w[8], n) : malloc((size_t)(n ? n : 1) * sizeof *t->dest);
    t->cancelled = malloc((size_t)(n ? n : 1));
    t->coll = w[10] ? malloc((size_t)(n ? n : 1)) : NULL;
    t->root = w[11] ? scope__narrow32(w[11], n) : NULL;
    if (!t->post_region || !t->done_region || !t->source || !t->tag || !t->dest ||
        !t->cancelled || (w[10] && !t->coll) || (w[11] && !t->root)) {
        free(map);
        rc = scope__fail(SCOPE_ENOMEM, "%s: out of memory", fpath);
        goto out;
    }
    for (int64_t i = 0; i < n; i++) {
        int32_t a = t->post_region[i], b = t->done_region[i];
        t->post_region[i] = a >= 0 && a < nn ? map[a] : -1;
        t->done_region[i] = b >= 0 && b < nn ? map[b] : -1;
        t->cancelled[i] = (int8_t)w[7][i];
        if (t->coll)
            t->coll[i] = (int8_t)w[10][i];
        if (!w[8])
            t->dest[i] = SCOPE_NO_RANK;
    }
    free(map);
    t->post_call = w[1];
    t->done_call = w[3];
    t->received = w[6];
    t->sent = w[9];     /* NULL in older files */
    w[1] = w[3] = w[6] = w[9] = NULL;
out:
    for (int i = 0; i < NCOL; i++)
        free(w[i]);
    free(names);
    free(grp);
    return rc;
}

static int load_comms(scope_profile *p, scope__rank *rk, hid_t f, const char *rgrp);

/* The rank's tables with the requests (comms = 0) or the communicators
 * (comms = 1) loaded: once, also when it failed, since a second try would
 * read over what the first left. */
static int loaded(scope_profile *p, int rank, int comms, struct scope__rank_tables **out)
{
    scope__rank *rk = NULL;
    hid_t f = H5I_INVALID_HID;
    char *grp = NULL;
    int rc = tables_of(p, rank, &rk, &f, &grp);
    if (rc < 0)
        return rc;
    *out = rk->tables;
    int *flag = comms ? &rk->tables->loaded_comms : &rk->tables->loaded_requests;
    if (*flag)
        return 0;
    *flag = 1;
    if (!grp)
        return 0;
    return comms ? load_comms(p, rk, f, grp) : load_requests(p, rk, f, grp);
}

/* What both public views check first: p and out given, out cleared (size
 * bytes), then the tables loaded(). 0 or SCOPE_E*. */
static int public_tables(scope_profile *p, int rank, int comms, void *out, size_t size,
                         struct scope__rank_tables **t)
{
    if (!p || !out)
        return scope__fail(SCOPE_EINVAL, "no profile or no output");
    memset(out, 0, size);
    return loaded(p, rank, comms, t);
}

int scope_profile_requests(scope_profile *p, int rank, scope_requests *out)
{
    struct scope__rank_tables *t = NULL;
    int rc = public_tables(p, rank, 0, out, sizeof *out, &t);
    if (rc < 0)
        return rc;
    out->n = t->nreq;
    out->post_region = t->post_region;
    out->post_call = t->post_call;
    out->done_region = t->done_region;
    out->done_call = t->done_call;
    out->source = t->source;
    out->tag = t->tag;
    out->bytes_received = t->received;
    out->cancelled = t->cancelled;
    out->dest = t->dest;
    out->bytes_sent = t->sent;
    out->collective = t->coll;
    out->root = t->root;
    return 0;
}

static int load_comms(scope_profile *p, scope__rank *rk, hid_t f, const char *rgrp)
{
    struct scope__rank_tables *t = rk->tables;
    const char *fpath = p->sources[rk->source].path;
    char *grp = NULL;
    if (asprintf(&grp, "%s/%s", rgrp, SCOPE_G_COMMUNICATORS) < 0)
        return scope__fail(SCOPE_ENOMEM, "%s: out of memory", fpath);
    int64_t *size = NULL, *rsize = NULL, *start = NULL, *mem = NULL, *names = NULL, *made = NULL;
    int64_t n, k, nm, len, mlen = 0;
    scope_h5_quiet quiet;
    scope_h5_quiet_begin(&quiet);
    int rc = scope__h5_read_wide(f, fpath, grp, SCOPE_D_COMM_SIZE, -1, &n, &size);
    if (rc == 0 && size) {
        rc = scope__h5_read_wide(f, fpath, grp, SCOPE_D_COMM_REMOTE_SIZE, n, &k, &rsize);
        if (rc == 0)
            rc = scope__h5_read_wide(f, fpath, grp, SCOPE_D_COMM_MEMBERS_START, n + 1, &k, &start);
        if (rc == 0)
            rc = scope__h5_read_wide(f, fpath, grp, SCOPE_D_COMM_MEMBERS, -1, &nm, &mem);
        if (rc == 0)
            rc = scope__h5_read_wide(f, fpath, grp, SCOPE_D_COMM_NAMES, -1, &len, &names);
        if (rc == 0)    /* absent before the creating calls were recorded */
            rc = scope__h5_read_wide(f, fpath, grp, SCOPE_D_COMM_CREATORS, -1, &mlen, &made);
        if (rc == 0 && (!rsize || !start))
            rc = scope__fail(SCOPE_EFORMAT, "%s: %s lacks a column of docs/format.md", fpath, grp);
        for (int64_t i = 0; rc == 0 && i < n; i++)
            if (start[i] < 0 || start[i + 1] < start[i] || start[i + 1] > nm ||
                start[i + 1] - start[i] > size[i] + rsize[i])
                rc = scope__fail(SCOPE_EFORMAT, "%s: %s: members_start[%lld] is out of order or "
                                 "past the members", fpath, grp, (long long)i);
    }
    scope_h5_quiet_end(&quiet);
    if (rc < 0 || !size)
        goto out;
    t->ncomm = (int)n;
    t->size = scope__narrow32(size, n);
    t->remote_size = scope__narrow32(rsize, n);
    t->members = scope__narrow32(mem ? mem : size, mem ? nm : 0);
    t->names = names ? scope__split_names(names, len, n) : calloc((size_t)(n ? n : 1), sizeof(char *));
    t->creators = made ? scope__split_names(made, mlen, n) : empty_names(n);
    t->members_start = start;
    start = NULL;
    if (!t->size || !t->remote_size || !t->members || !t->names || !t->creators) {
        t->ncomm = 0;
        rc = scope__fail(SCOPE_ENOMEM, "%s: out of memory (or %s: names short of %lld)", fpath,
                         grp, (long long)n);
    }
out:
    free(size);
    free(rsize);
    free(start);
    free(mem);
    free(names);
    free(made);
    free(grp);
    return rc;
}

int scope_profile_communicators(scope_profile *p, int rank, scope_communicators *out)
{
    struct scope__rank_tables *t = NULL;
    int rc = public_tables(p, rank, 1, out, sizeof *out, &t);
    if (rc < 0)
        return rc;
    out->n = t->ncomm;
    out->size = t->size;
    out->remote_size = t->remote_size;
    out->members_start = t->members_start;
    out->members = t->members;
    out->names = (const char *const *)t->names;
    out->creators = (const char *const *)t->creators;
    return 0;
}
