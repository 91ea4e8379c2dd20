/*
 * omp_runtime.c - which OpenMP runtime a process runs on, for the one
 * thing the tool cannot do itself: say that GCC's libgomp, which has no
 * tool interface, hides the program's OpenMP regions.
 *
 * A program GCC built calls libgomp's GOMP_* entry points; LLVM's libomp
 * implements the same ones, so `scope run --openmp` preloads libomp and
 * the program's OpenMP then runs on it, with OMPT (docs/openmp.md says
 * what that path does not deliver). Without it the user must learn once,
 * not once per rank: the message is printed by launcher rank 0 (or a
 * process without a launcher) only, and a process that printed it puts
 * SCOPE__OMP_NOTICE_SHOWN in its environment, so that the processes it
 * starts stay silent.
 */
#include <link.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "omp_tool.h"
#include "scope_internal.h"

#define SHOWN_VAR "SCOPE__OMP_NOTICE_SHOWN"

struct seen {
    int gomp, llvm;
    char gomp_path[256];
};

static int base_is(const char *path, const char *prefix)
{
    const char *b = strrchr(path, '/');
    b = b ? b + 1 : path;
    return strncmp(b, prefix, strlen(prefix)) == 0;
}

static int look(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    struct seen *s = arg;
    const char *p = info->dlpi_name;
    if (!p || !p[0])
        return 0;
    if (base_is(p, "libgomp.so")) {
        s->gomp = 1;
        strncpy(s->gomp_path, p, sizeof s->gomp_path - 1);
    } else if (base_is(p, "libomp.so") || base_is(p, "libiomp5.so") || base_is(p, "libomp-")) {
        s->llvm = 1;
    }
    return 0;
}

void scope__omp_check_runtime(int tool_started)
{
    static int checked;
    if (checked || tool_started)
        return;
    struct seen s = { 0 };
    dl_iterate_phdr(look, &s);
    if (!s.gomp || s.llvm)
        return;     /* no OpenMP, or LLVM's (its tool starts with it) */
    checked = 1;
    if (getenv(SHOWN_VAR) || scope__launcher_rank() > 0)
        return;
    scope__preload_say("this program runs on GCC's OpenMP runtime (%s), which has no tool "
                       "interface: its OpenMP regions, barriers and waits are not recorded. "
                       "`scope run --openmp` runs it on LLVM's libomp instead, which records "
                       "them (docs/openmp.md)", s.gomp_path);
    setenv(SHOWN_VAR, "1", 1);
}
