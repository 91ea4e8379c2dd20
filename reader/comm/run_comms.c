/*
 * run_comms.c - the communicators of a whole run, one identity across
 * ranks (scope_reader_comm.h, scope_profile_run_comm*): which row of rank
 * A's table is which row of rank B's. No handle or context id survives
 * MPI, so a communicator is recognised by its members (world ranks in
 * communicator order; an intercommunicator's two groups in a fixed order,
 * the one holding the lower first world rank first, so that both sides
 * name it alike), its name, and how many communicators with those two
 * came before it in the rank's table: communicators are made collectively
 * in the same order on all their members, and the table lists them in
 * order of first use, which for communicators of the same members is
 * their creation order in all but contrived programs (docs/analysis.md
 * "Communicators"). So two dups of one communicator stay two. They are
 * numbered in order of first appearance, ranks in order, but for
 * MPI_COMM_WORLD, which is always number 0.
 *
 * The wait states (waits.c) and the OTF2 export (tools/export_otf2.c)
 * both number communicators by it, so `scope waits` and the archive name
 * a run's communicators alike. Built once per profile, on first use, by
 * walking the ranks in order; a rank's communicator table the walk loads
 * is let go again (the wait states hold one rank's tables at a time).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reader_internal.h"
#include "scope_format.h"
#include "scope_reader.h"
#include "scope_reader_comm.h"

struct scope__run_comms {
    int n, cap;
    int world;              /* 1: number 0 is MPI_COMM_WORLD */
    int32_t **members;      /* canonical member list of each */
    int32_t *size, *remote_size, *occ;
    char **name, **label, **creator;
    int32_t **ids;          /* per profile rank index: run id of each row */
    int *nrows;
};

void scope__run_comms_free(struct scope__run_comms *cs, int nranks)
{
    if (!cs)
        return;
    for (int i = 0; i < cs->n; i++) {
        free(cs->members[i]);
        free(cs->name[i]);
        free(cs->label[i]);
        free(cs->creator[i]);
    }
    free(cs->members);
    free(cs->size);
    free(cs->remote_size);
    free(cs->occ);
    free(cs->name);
    free(cs->label);
    free(cs->creator);
    for (int k = 0; cs->ids && k < nranks; k++)
        free(cs->ids[k]);
    free(cs->ids);
    free(cs->nrows);
    free(cs);
}

/* The canonical member list of row c (malloc'd, *len long) and its two
 * group sizes: an intercommunicator's groups with the one holding the
 * lower first rank first. */
static int32_t *canon(const scope_communicators *t, int c, int32_t *len, int32_t *size,
                      int32_t *remote)
{
    int64_t a = t->members_start[c], b = t->members_start[c + 1];
    *len = (int32_t)(b - a);
    int32_t *v = malloc((size_t)(*len ? *len : 1) * sizeof *v);
    if (!v)
        return NULL;
    int32_t l = t->size[c], r = t->remote_size[c];
    *size = *len;
    *remote = 0;
    if (r > 0 && l + r == *len && l > 0 && t->members[a + l] < t->members[a]) {
        memcpy(v, t->members + a + l, (size_t)r * sizeof *v);
        memcpy(v + r, t->members + a, (size_t)l * sizeof *v);
        *size = r;
        *remote = l;
    } else {
        memcpy(v, t->members + a, (size_t)*len * sizeof *v);
        if (r > 0 && l + r == *len) {
            *size = l;
            *remote = r;
        }
    }
    return v;
}

static int same(const struct scope__run_comms *cs, int g, const int32_t *m, int32_t len,
                int32_t remote, const char *name)
{
    return cs->size[g] + cs->remote_size[g] == len && cs->remote_size[g] == remote &&
           memcmp(cs->members[g], m, (size_t)len * sizeof *m) == 0 &&
           strcmp(cs->name[g], name) == 0;
}

/* Reallocates *arr to cap elements of `size` bytes; *arr is kept when
 * that fails. 0 or SCOPE_ENOMEM. */
static int resize(void *arr, int cap, size_t size)
{
    void *q = realloc(*(void **)arr, (size_t)cap * size);
    if (!q)
        return SCOPE_ENOMEM;
    *(void **)arr = q;
    return 0;
}

static int grow(struct scope__run_comms *cs)
{
    if (cs->n < cs->cap)
        return 0;
    int cap = cs->cap ? 2 * cs->cap : 16;
    if (resize(&cs->members, cap, sizeof *cs->members) < 0 ||
        resize(&cs->size, cap, sizeof *cs->size) < 0 ||
        resize(&cs->remote_size, cap, sizeof *cs->remote_size) < 0 ||
        resize(&cs->occ, cap, sizeof *cs->occ) < 0 || resize(&cs->name, cap, sizeof *cs->name) < 0 ||
        resize(&cs->label, cap, sizeof *cs->label) < 0 ||
        resize(&cs->creator, cap, sizeof *cs->creator) < 0)
        return SCOPE_ENOMEM;
    cs->cap = cap;
    return 0;
}

/* The run id of each row of one rank's table into ids[], adding the
 * communicators not seen before. 0 or SCOPE_ENOMEM. */
static int add_rank(struct scope__run_comms *cs, const scope_communicators *t, int32_t *ids)
{
    for (int c = 0; c < t->n; c++) {
        int32_t len, size, remote;
        int32_t *m = canon(t, c, &len, &size, &remote);
        if (!m)
            return SCOPE_ENOMEM;
        const char *nm = t->names[c] ? t->names[c] : "";
        /* the earlier rows are named already: compared through their
         * entries (canonical), not made canonical again */
        int32_t occ = 0;
        for (int d = 0; d < c; d++)
            occ += same(cs, ids[d], m, len, remote, nm);
        int g = -1;
        for (int i = 0; i < cs->n && g < 0; i++)
            if (cs->occ[i] == occ && same(cs, i, m, len, remote, nm))
                g = i;
        if (g >= 0) {
            free(m);
            ids[c] = g;
            continue;
        }
        if (grow(cs) < 0) {
            free(m);
            return SCOPE_ENOMEM;
        }
        g = cs->n++;
        cs->members[g] = m;
        cs->size[g] = size;
        cs->remote_size[g] = remote;
        cs->occ[g] = occ;
        cs->name[g] = strdup(nm);
        cs->creator[g] = strdup(t->creators && t->creators[c] ? t->creators[c] : "");
        cs->label[g] = NULL;    /* once the numbering is final (label()) */
        if (!cs->name[g] || !cs->creator[g])
            return SCOPE_ENOMEM;
        ids[c] = g;
    }
    return 0;
}

/* MPI_COMM_WORLD takes number 0 (the others keep their order): it is
 * every program's first communicator, whichever the program used first,
 * and the OTF2 export defines it first, as the others' parent. The world
 * is the communicator MPI_Init made (or, in files before the creators,
 * the one so named). */
static void world_first(struct scope__run_comms *cs, int nranks)
{
    int w = -1;
    for (int i = 0; i < cs->n && w < 0; i++)
        if (!strcmp(cs->creator[i], SCOPE_COMM_WORLD_CREATOR) ||
            (!cs->creator[i][0] && !strcmp(cs->name[i], SCOPE_COMM_WORLD_NAME)))
            w = i;
    cs->world = w >= 0;
    if (w <= 0)
        return;
    int32_t *m = cs->members[w], size = cs->size[w], rs = cs->remote_size[w], occ = cs->occ[w];
    char *name = cs->name[w], *creator = cs->creator[w];
    for (int i = w; i > 0; i--) {
        cs->members[i] = cs->members[i - 1];
        cs->size[i] = cs->size[i - 1];
        cs->remote_size[i] = cs->remote_size[i - 1];
        cs->occ[i] = cs->occ[i - 1];
        cs->name[i] = cs->name[i - 1];
        cs->creator[i] = cs->creator[i - 1];
    }
    cs->members[0] = m;
    cs->size[0] = size;
    cs->remote_size[0] = rs;
    cs->occ[0] = occ;
    cs->name[0] = name;
    cs->creator[0] = creator;
    for (int k = 0; k < nranks; k++)
        for (int r = 0; r < cs->nrows[k]; r++)
            cs->ids[k][r] = cs->ids[k][r] == w ? 0 : cs->ids[k][r] + (cs->ids[k][r] < w);
}

/* How tools show communicator g: its name, or its number and size. 0 or
 * SCOPE_ENOMEM. */
static int label(struct scope__run_comms *cs, int g)
{
    if (cs->name[g][0])
        cs->label[g] = strdup(cs->name[g]);
    else if (asprintf(&cs->label[g], "comm%d (%d ranks)", g,
                      (int)(cs->size[g] + cs->remote_size[g])) < 0)
        cs->label[g] = NULL;
    return cs->label[g] ? 0 : SCOPE_ENOMEM;
}

/* Builds p->run_comms once. 0 or an error (nothing kept). */
static int build(scope_profile *p)
{
    if (p->run_comms)
        return 0;
    struct scope__run_comms *cs = calloc(1, sizeof *cs);
    int rc = cs ? 0 : SCOPE_ENOMEM;
    if (cs) {
        cs->ids = calloc((size_t)(p->nranks ? p->nranks : 1), sizeof *cs->ids);
        cs->nrows = calloc((size_t)(p->nranks ? p->nranks : 1), sizeof *cs->nrows);
        if (!cs->ids || !cs->nrows)
            rc = SCOPE_ENOMEM;
    }
    for (int k = 0; rc == 0 && k < p->nranks; k++) {
        int had = p->ranks[k].tables != NULL;
        scope_communicators t;
        rc = scope_profile_communicators(p, p->ranks[k].rank, &t);
        if (rc == 0 && !(cs->ids[k] = malloc((size_t)(t.n ? t.n : 1) * sizeof **cs->ids)))
            rc = SCOPE_ENOMEM;
        if (rc == 0) {
            cs->nrows[k] = t.n;
            rc = add_rank(cs, &t, cs->ids[k]);
        }
        if (!had)
            scope__rank_tables_forget(p, k);
    }
    if (rc == 0)
        world_first(cs, p->nranks);
    for (int g = 0; rc == 0 && g < cs->n; g++)
        rc = label(cs, g);
    if (rc < 0) {
        scope__run_comms_free(cs, p->nranks);
        return rc == SCOPE_ENOMEM ? scope__fail(SCOPE_ENOMEM, "out of memory") : rc;
    }
    p->run_comms = cs;
    return 0;
}

int scope_profile_run_comm_count(scope_profile *p)
{
    if (!p)
        return scope__fail(SCOPE_EINVAL, "no profile");
    int rc = build(p);
    return rc < 0 ? rc : p->run_comms->n;
}

int scope_profile_run_comm(scope_profile *p, int id, scope_run_comm *out)
{
    if (!p || !out)
        return scope__fail(SCOPE_EINVAL, "no profile or no output");
    memset(out, 0, sizeof *out);
    int rc = build(p);
    if (rc < 0)
        return rc;
    const struct scope__run_comms *cs = p->run_comms;
    if (id < 0 || id >= cs->n)
        return scope__fail(SCOPE_ENOTFOUND, "no communicator %d in the run (%d)", id, cs->n);
    out->size = cs->size[id];
    out->remote_size = cs->remote_size[id];
    out->members = cs->members[id];
    out->name = cs->name[id];
    out->label = cs->label[id];
    out->creator = cs->creator[id];
    out->world = cs->world && id == 0;
    return 0;
}

int scope_profile_run_comm_ids(scope_profile *p, int rank, const int32_t **ids, int *n)
{
    if (!p || !ids || !n)
        return scope__fail(SCOPE_EINVAL, "no profile or no output");
    *ids = NULL;
    *n = 0;
    int k = scope__rank_index(p, rank);
    if (k < 0)
        return scope__fail(SCOPE_ENOTFOUND, "no rank %d in the profile", rank);
    int rc = build(p);
    if (rc < 0)
        return rc;
    *ids = p->run_comms->ids[k];
    *n = p->run_comms->nrows[k];
    return 0;
}
