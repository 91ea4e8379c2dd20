/*
 * config_exe.c - which processes are profiling targets.
 *
 * With `LD_PRELOAD=... mpirun ./app` the preload is loaded into mpirun, its
 * daemons and every shell or wrapper they start, not only into the ranks.
 * These must stay untouched (DESIGN.md, "Live inside someone else's process
 * politely"), so launchers and shells are excluded by default; the config's
 * include/exclude lists refine that. The rule, in order:
 *   1. an `exclude` glob that matches says no;
 *   2. a non-empty `include` list says yes exactly for its matches (the
 *      built-in list then plays no part: `include = bash` profiles bash);
 *   3. otherwise the built-in exclusions say no, and everything else yes.
 */
#include <fnmatch.h>
#include <string.h>

#include "config_internal.h"

/* Launchers (Open MPI, PRRTE, MPICH/Hydra, Slurm), shells and the wrappers
 * they commonly exec through on the way to the application. The `scope`
 * tool itself is never a target. */
static const char *const builtin_excluded[] = {
    "mpirun", "mpirun.*", "mpiexec", "mpiexec.*", "orterun", "orted",
    "ompi-server", "prte", "prted", "prterun", "prun", "hydra_pmi_proxy",
    "pmi_proxy", "srun", "slurmstepd",
    "sh", "bash", "dash", "zsh", "ksh", "mksh", "csh", "tcsh", "fish", "busybox",
    "env", "nohup", "timeout", "time", "nice", "taskset", "numactl", "xargs",
    "ssh", "rsh", "scope",
};

const char *const *scope__cfg_builtin_excluded(size_t *n)
{
    *n = sizeof builtin_excluded / sizeof builtin_excluded[0];
    return builtin_excluded;
}

/* Whether one include/exclude glob matches. A glob without '/' is tried on
 * the basename; one with '/' on the whole path, or on any tail of it that
 * starts after a '/' unless the glob is absolute. A leading "./" is dropped
 * so that `./my_app*` means the program, wherever it was started from. */
static int glob_matches(const char *glob, const char *exe, const char *base)
{
    while (glob[0] == '.' && glob[1] == '/')
        glob += 2;
    if (!strchr(glob, '/'))
        return fnmatch(glob, base, 0) == 0;
    if (fnmatch(glob, exe, FNM_PATHNAME) == 0)
        return 1;
    if (glob[0] == '/')
        return 0;
    for (const char *s = strchr(exe, '/'); s; s = strchr(s + 1, '/'))
        if (fnmatch(glob, s + 1, FNM_PATHNAME) == 0)
            return 1;
    return 0;
}

int scope__config_wants_exe(const scope_config *cfg, const char *exe)
{
    if (!exe || !*exe)
        return 0;
    const char *slash = strrchr(exe, '/');
    const char *base = slash ? slash + 1 : exe;
    for (size_t i = 0; i < cfg->n_exclude_exe; i++)
        if (glob_matches(cfg->exclude_exe[i], exe, base))
            return 0;
    if (cfg->n_include_exe > 0) {
        for (size_t i = 0; i < cfg->n_include_exe; i++)
            if (glob_matches(cfg->include_exe[i], exe, base))
                return 1;
        return 0;
    }
    for (size_t i = 0; i < sizeof builtin_excluded / sizeof builtin_excluded[0]; i++)
        if (fnmatch(builtin_excluded[i], base, 0) == 0)
            return 0;
    return 1;
}
