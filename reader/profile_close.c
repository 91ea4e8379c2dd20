/*
 * profile_close.c - letting go of an opened profile: scope_profile_close()
 * frees the model, each part's own data through that part's free call
 * (call sites, what MPI calls moved, request tables, rank attributes), and
 * scope__cell_forget() drops one cell's loaded arrays. Kept apart from
 * profile_data.c so that the parts which read cells (callsites.c, comm.c,
 * requests.c) and the model they read from do not call each other.
 */
#include <stdlib.h>

#include "reader_internal.h"

void scope_profile_close(scope_profile *p)
{
    if (!p)
        return;
    scope__call_stack_spare_release();
    scope__free_strings(p->missing_files, p->nmissing);
    free(p->missing);
    for (int i = 0; i < p->nsources; i++) {
        if (p->sources[i].file >= 0)
            H5Fclose(p->sources[i].file);
        free(p->sources[i].path);
    }
    size_t ncells = p->cells ? (size_t)p->nregions * (size_t)p->nranks : 0;
    for (size_t i = 0; i < ncells; i++) {
        scope__cell *c = p->cells[i];
        if (!c)
            continue;
        free(c->group);
        free(c->starts);
        free(c->ends);
        free(c->tids);
        free(c->unwound);
        free(c->sites);
        scope__moved_free(c->moved);
        free(c);
    }
    for (int i = 0; i < p->nregions; i++) {
        free(p->regions[i].name);
        free(p->regions[i].operation);
    }
    free(p->cells);
    free(p->regions);
    scope__run_comms_free(p->run_comms, p->nranks);
    for (int i = 0; i < p->nranks; i++) {
        free(p->ranks[i].group);
        scope__rank_attrs_free(&p->ranks[i]);
        scope__rank_tables_free(p->ranks[i].tables);
    }
    scope__io_free(p);
    free(p->ranks);
    free(p->sources);
    scope__sites_free(p->sites);
    free(p);
}

void scope__cell_forget(scope__cell *c, int times, int moved)
{
    if (times) {
        free(c->starts);
        free(c->ends);
        c->starts = c->ends = NULL;
    }
    if (moved) {
        scope__moved_free(c->moved);
        c->moved = NULL;
        c->moved_loaded = 0;
    }
}
