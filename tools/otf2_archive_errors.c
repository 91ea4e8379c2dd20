/*
 * otf2_archive_errors.c - what the OTF2 export's files share beneath
 * them: libotf2's errors turned into scope's one-line message, the
 * location numbering, and the records more than one of them writes (a
 * counted event, a string). Apart from export_otf2.c so that the
 * definitions (export_otf2_defs.c) and the OpenMP part
 * (export_otf2_omp.c), which export_otf2.c calls, need nothing back from
 * it. Built only with libotf2 (SCOPE_HAVE_OTF2).
 */
#ifdef SCOPE_HAVE_OTF2

#include <stdarg.h>
#include <stdio.h>

#include <otf2/otf2.h>

#include "args.h"
#include "otf2_archive.h"

/* libotf2 reports through this instead of printing; the last message is
 * kept for scope's own one-line error. */
static char otf2_msg[256];

static OTF2_ErrorCode otf2_error_cb(void *ud, const char *file, uint64_t line,
                                    const char *fn, OTF2_ErrorCode code,
                                    const char *fmt, va_list va)
{
    (void)ud;
    (void)file;
    (void)line;
    (void)fn;
    if (fmt && *fmt)
        vsnprintf(otf2_msg, sizeof otf2_msg, fmt, va);
    else
        snprintf(otf2_msg, sizeof otf2_msg, "%s", OTF2_Error_GetDescription(code));
    return code;
}

void scope__otf2_errors_begin(void)
{
    otf2_msg[0] = 0;
    OTF2_Error_RegisterCallback(otf2_error_cb, NULL);
}

/* Prints "scope: export: DIR: OTF2 <what> failed: <libotf2's words>"
 * and returns -1. */
int scope__otf2_fail(const otf2x *x, const char *what, OTF2_ErrorCode e)
{
    char m[600];
    if (otf2_msg[0])
        snprintf(m, sizeof m, "export: %s: OTF2 %s failed: %s (%s)", x->dir,
                 what, OTF2_Error_GetDescription(e), otf2_msg);
    else
        snprintf(m, sizeof m, "export: %s: OTF2 %s failed: %s", x->dir, what,
                 OTF2_Error_GetDescription(e));
    scope__fail_msg(m);
    return -1;
}

/* 0, or -1 after saying which OTF2 call failed (otf2_fail): every OTF2
 * call's code goes through it, and the caller returns on -1. */
int scope__otf2_ok(const otf2x *x, const char *what, OTF2_ErrorCode e)
{
    return e == OTF2_SUCCESS ? 0 : scope__otf2_fail(x, what, e);
}

int scope__otf2_oom(void)
{
    scope__fail_msg("export: out of memory");
    return -1;
}

/* Location of (rank, lane), as Score-P numbers them: the lane in the
 * high half, so a rank's first lane is the rank itself. */
uint64_t scope__otf2_loc_ref(int32_t rank, int32_t lane)
{
    return ((uint64_t)(uint32_t)lane << 32) | (uint32_t)rank;
}

int scope__otf2_event(otf2x *x, const char *what, OTF2_ErrorCode e)
{
    if (scope__otf2_ok(x, what, e) < 0)
        return -1;
    x->nev++;
    return 0;
}

int scope__otf2_string(otf2x *x, OTF2_GlobalDefWriter *g, const char *s, uint32_t *id)
{
    *id = x->nstrings++;
    if (scope__otf2_ok(x, "WriteString", OTF2_GlobalDefWriter_WriteString(g, *id, s)) < 0)
        return -1;
    return 0;
}

#endif
