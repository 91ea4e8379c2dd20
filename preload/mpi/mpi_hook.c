/*
 * mpi_hook.c - the MPI capture as the interposition engine sees it
 * (capture.h): which functions it owns and what each is (claim: the
 * vocabulary's one parser of names, format/scope_calls.h, gives a symbol
 * its call), the config entries that stand for two names (companion), the
 * lifecycle calls it defines itself (wrapped: mpi_intercept.c), and its
 * registration. The hot path the engine calls, scope__mpi_enter/exit/drop,
 * is mpi_capture_hot.c's.
 */
#include <ctype.h>
#include <string.h>

#include "capture.h"
#include "mpi_capture.h"
#include "mpi_capture_state.h"
#include "mpi_intercept.h"
#include "mpi_moved.h"
#include "scope_calls.h"
#include "scope_format.h"
#include "scope_internal.h"
#include "settings.h"

int scope__mpi_capture_enabled(void)
{
    static int decided = -1;
    if (decided >= 0)
        return decided;
    decided = (int)scope__setting_u(SCOPE_SET_MPI_DATA);
    if (scope__launcher_rank() <= 0)
        scope__setting_say(SCOPE_SET_MPI_DATA, "using 1");
    return decided;
}

/* Open MPI's Fortran bindings have upper-case aliases (MPI_ALLREDUCE,
 * and MPIX_BCAST_INIT for its extensions) that an `MPI_*` (`MPIX_*`) glob
 * matches. They are timed under the C name the standard gives the same
 * call (MPI_Allreduce, MPIX_Bcast_init), so C and Fortran programs give
 * the same regions; the C function they call is then nested MPI and not
 * timed again (scope__mpi_enter). Returns 1 and the C name, or 0. */
static int fortran_mpi_name(const char *sym, char *out, size_t len)
{
    size_t n = strlen(sym);
    size_t p = strncmp(sym, "MPIX_", 5) == 0 ? 5 : 4;     /* the name after the prefix */
    if (n < p + 1 || n >= len || (p == 4 && strncmp(sym, "MPI_", 4) != 0))
        return 0;
    for (size_t i = p; i < n; i++)
        if (islower((unsigned char)sym[i]))
            return 0;
    memcpy(out, sym, n + 1);
    for (size_t i = p + 1; i < n; i++)
        out[i] = (char)tolower((unsigned char)out[i]);
    if (strncmp(sym, "MPI_T_", 6) == 0)
        for (size_t i = 6; i < n; i++)
            out[i] = (char)tolower((unsigned char)sym[i]);
    return 1;
}

/* The op of `symbol` (mpi_capture.h): the id of its call when the byte
 * model covers it and the symbol is a C binding (MPI_Send, PMPI_Send,
 * MPI_Send_c; MPIX_ only for a library's persistent collectives, Open MPI
 * 4.1's MPIX_Bcast_init & co), and the Fortran bit for a binding's
 * spelling, whose data comes from the C call it makes. */
static uint32_t op_of(const char *symbol)
{
    struct scope_call_name n;
    int id = scope_call_parse(symbol, &n);
    uint32_t op = scope_call_is_mpi_fortran(symbol) ? SCOPE_MPI_OP_FORTRAN : 0;
    const struct scope_call_row *row = scope_call_at(id);
    if (!id || n.fortran || !scope__mpi_model_covers(row) || row->nargs > SCOPE_CAPTURE_MAX_ARGS)
        return op;
    if (n.mpix && !(row->form == SCOPE_CF_PERSISTENT &&
                    (row->cls == SCOPE_CC_COLLECTIVE || row->cls == SCOPE_CC_NEIGHBOR)))
        return op;
    return op | (uint32_t)id | (n.big ? SCOPE_MPI_OP_BIG : 0);
}

/* Every function of kind mpi, and every function of the MPI standard's C
 * names whatever entry matched it (`*`, `*Send*`): not timed inside
 * another MPI call, and its data captured, as under `MPI_*`. */
static int claim(const char *symbol, struct scope__claim *c)
{
    if (c->kind != SCOPE_KIND_MPI && !scope_call_is_mpi_c_name(symbol))
        return 0;
    c->kind = SCOPE_KIND_MPI;
    if (!c->named)
        fortran_mpi_name(symbol, c->region, sizeof c->region);
    if (scope__mpi_capture_enabled())
        c->op = op_of(symbol);
    return 1;
}

/* A config entry naming an MPI call by its upper-case Fortran name
 * (MPI_SEND) names the call from every binding: the C function (MPI_Send)
 * is instrumented too. Without it, the binding would be timed but what it
 * moved not read: that is read from the C call the binding makes, and
 * MPICH's `use mpi_f08` procedures call the C function without any
 * Fortran symbol. */
static int companion(const scope_config_entry *e, char *pattern, size_t len)
{
    return e->kind == SCOPE_KIND_MPI && !e->is_glob && fortran_mpi_name(e->pattern, pattern, len);
}

static const struct scope__capture mpi_capture = {
    .name = "mpi",
    .wrapped = scope__mpi_wrapped,
    .companion = companion,
    .claim = claim,
    .enter = scope__mpi_enter,
    .exit = scope__mpi_exit,
    .drop = scope__mpi_drop,
};

__attribute__((constructor(SCOPE_CAPTURE_CTOR_PRIORITY))) static void register_mpi(void)
{
    scope__mpi_intercept_names();
    scope__capture_register(&mpi_capture);
    scope__mpi_lend();
}
