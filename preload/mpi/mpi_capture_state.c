/*
 * mpi_capture_state.c - the MPI capture's per-thread state
 * (mpi_capture_state.h): the call being captured, its extension (the
 * requests of a completion call, lent statuses, the records a followed
 * call keeps for its outer call's end), and what becomes of those kept
 * records: written at the outer call's end, or forgotten when it is
 * closed without returning.
 */
#include <stdlib.h>

#include "mpi_capture.h"
#include "mpi_capture_state.h"
#include "self_depth.h"

__thread struct scope__mpi_state scope__cap __attribute__((tls_model("initial-exec")));
__thread struct scope__capture_ext *scope__cap_ext __attribute__((tls_model("initial-exec")));

struct scope__capture_ext *scope__capture_ext(void)
{
    if (!scope__cap_ext) {
        scope__self_enter();    /* calloc: ours, not the program's */
        scope__cap_ext = calloc(1, sizeof *scope__cap_ext);
        scope__self_leave();
    }
    return scope__cap_ext;
}

void scope__capture_keep(const struct scope_rec *r, unsigned n)
{
    struct scope__capture_ext *e = scope__capture_ext();
    for (unsigned i = 0; e && i < n && scope__cap.npending < SCOPE_CAPTURE_MAX_PENDING; i++)
        e->pending[scope__cap.npending++] = r[i];
}

void scope__mpi_capture_drop(void)
{
    scope__cap.op = 0;
    scope__cap.out.n = 0;
    scope__cap.npending = 0;
}

int scope__mpi_capture_idle(void)
{
    return scope__cap.op == 0 && scope__cap.npending == 0;
}

void scope__mpi_capture_flush(void)
{
    if (scope__cap.npending)
        scope__record_data_recs(scope__cap_ext->pending, scope__cap.npending);
    scope__cap.npending = 0;
}
