/*
 * launcher.c - a process's MPI rank before MPI_Init, from what its launcher
 * put in the environment.
 *
 * A rank needs a name for its messages and for its rank file (written by
 * the death handlers if it dies) before MPI_Init tells it. Every common
 * launcher announces it: Open MPI's mpirun (OMPI_COMM_WORLD_RANK/SIZE),
 * MPICH's hydra (mpirun.mpich, mpiexec.hydra, Intel MPI: PMI_RANK/SIZE),
 * PMIx launchers (PMIX_RANK; prterun, srun --mpi=pmix), MVAPICH's mpirun_rsh
 * (MV2_COMM_WORLD_RANK/SIZE), Cray's PALS and ALPS (PALS_RANKID,
 * ALPS_APP_PE), Flux (FLUX_TASK_RANK/FLUX_JOB_SIZE), IBM's jsrun
 * (JSM_NAMESPACE_RANK/SIZE) and Slurm's srun (SLURM_PROCID/SLURM_NTASKS).
 * After MPI_Init the rank from PMPI_Comm_rank wins; the preload records a
 * disagreement (preload/lifecycle.c).
 *
 * Order matters: the most specific launcher first, Slurm last, because an
 * mpirun started inside a Slurm allocation passes its own SLURM_PROCID
 * (that of the batch step, 0) to every rank it starts.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "scope_internal.h"

extern char **environ;

static const struct {
    const char *rank, *size, *launcher;
} sets[] = {
    { "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "Open MPI" },
    { "PMI_RANK", "PMI_SIZE", "PMI (MPICH hydra, Intel MPI)" },
    { "PMIX_RANK", NULL, "PMIx" },
    { "MV2_COMM_WORLD_RANK", "MV2_COMM_WORLD_SIZE", "MVAPICH" },
    { "PALS_RANKID", NULL, "Cray PALS" },
    { "ALPS_APP_PE", NULL, "Cray ALPS" },
    { "FLUX_TASK_RANK", "FLUX_JOB_SIZE", "Flux" },
    { "JSM_NAMESPACE_RANK", "JSM_NAMESPACE_SIZE", "IBM jsrun" },
    { "SLURM_PROCID", "SLURM_NTASKS", "Slurm" },
};

/* Value of `name` in envp ("NAME=value" strings), or NULL. */
static const char *env_get(char *const *envp, const char *name)
{
    size_t n = strlen(name);
    for (; envp && *envp; envp++)
        if (strncmp(*envp, name, n) == 0 && (*envp)[n] == '=')
            return *envp + n + 1;
    return NULL;
}

static int launcher_scan(char *const *envp, scope__launcher *out);

/* A whole non-negative decimal int, or -1 ("", "3x", "-1", overflow). */
static int parse_count(const char *s)
{
    if (s == NULL || *s < '0' || *s > '9')
        return -1;
    errno = 0;
    char *end;
    long v = strtol(s, &end, 10);
    if (errno || *end != '\0' || v > 0x7fffffff)
        return -1;
    return (int)v;
}

/* Cost: a scan of the environment per variable (a few microseconds).
 * errno is left as it was: callers report the errno of a failure after
 * asking for the rank. */
int scope__launcher_from(char *const *envp, scope__launcher *out)
{
    int saved_errno = errno;
    int found = launcher_scan(envp, out);
    errno = saved_errno;
    return found;
}

static int launcher_scan(char *const *envp, scope__launcher *out)
{
    if (envp == NULL)
        envp = environ;
    *out = (scope__launcher){ .rank = -1, .size = -1 };
    for (size_t i = 0; i < sizeof sets / sizeof *sets; i++) {
        int rank = parse_count(env_get(envp, sets[i].rank));
        if (rank < 0)
            continue; /* absent or malformed: not this launcher */
        int size = sets[i].size ? parse_count(env_get(envp, sets[i].size)) : -1;
        if (size >= 0 && size <= rank)
            size = -1; /* inconsistent: keep the rank, not the size */
        out->rank = rank;
        out->size = size;
        out->rank_var = sets[i].rank;
        out->size_var = size >= 0 ? sets[i].size : NULL;
        out->launcher = sets[i].launcher;
        return 1;
    }
    return 0;
}

int scope__launcher_rank(void)
{
    scope__launcher l;
    return scope__launcher_from(NULL, &l) ? l.rank : -1;
}
