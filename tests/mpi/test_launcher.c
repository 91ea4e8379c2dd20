/*
 * test_launcher.c - the rank before MPI_Init (runtime/launcher.c), over
 * each launcher's variable set: Open MPI's mpirun, hydra (mpirun.mpich,
 * mpiexec.hydra, Intel MPI), PMIx, MVAPICH, Cray PALS and ALPS, Flux,
 * IBM jsrun, Slurm's srun; the order when
 * several are set (mpirun inside a Slurm allocation), and malformed values
 * skipped. Exact rank, size and variable names are asserted.
 */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "scope_internal.h"

static void expect(const char *what, char *const *env, int found, int rank, int size,
                   const char *rank_var, const char *size_var)
{
    scope__launcher l;
    int f = scope__launcher_from(env, &l);
    int ok = f == found && l.rank == rank && l.size == size &&
             ((rank_var == NULL && l.rank_var == NULL) ||
              (rank_var && l.rank_var && strcmp(rank_var, l.rank_var) == 0)) &&
             ((size_var == NULL && l.size_var == NULL) ||
              (size_var && l.size_var && strcmp(size_var, l.size_var) == 0));
    check_true(ok, what, __FILE__, __LINE__);
    if (!ok) {
        printf("FAIL %s: found %d rank %d size %d (%s, %s); want %d %d %d (%s, %s)\n", what, f,
               l.rank, l.size, l.rank_var ? l.rank_var : "-", l.size_var ? l.size_var : "-",
               found, rank, size, rank_var ? rank_var : "-", size_var ? size_var : "-");
    } else {
        printf("ok %s\n", what);
    }
}

int main(void)
{
    char *none[] = { "PATH=/usr/bin", "HOME=/root", NULL };
    expect("no launcher", none, 0, -1, -1, NULL, NULL);

    char *ompi[] = { "OMPI_COMM_WORLD_RANK=3", "OMPI_COMM_WORLD_SIZE=4", "PMIX_RANK=3", NULL };
    expect("Open MPI mpirun", ompi, 1, 3, 4, "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE");

    char *hydra[] = { "PMI_RANK=2", "PMI_SIZE=4", "PMI_FD=7", NULL };
    expect("MPICH hydra", hydra, 1, 2, 4, "PMI_RANK", "PMI_SIZE");

    char *pmix[] = { "PMIX_RANK=1", "PMIX_NAMESPACE=x", NULL };
    expect("PMIx (no size variable)", pmix, 1, 1, -1, "PMIX_RANK", NULL);

    char *mv2[] = { "MV2_COMM_WORLD_RANK=5", "MV2_COMM_WORLD_SIZE=8", NULL };
    expect("MVAPICH", mv2, 1, 5, 8, "MV2_COMM_WORLD_RANK", "MV2_COMM_WORLD_SIZE");

    char *pals[] = { "PALS_RANKID=6", "PALS_NODEID=1", NULL };
    expect("Cray PALS", pals, 1, 6, -1, "PALS_RANKID", NULL);

    char *alps[] = { "ALPS_APP_PE=7", NULL };
    expect("Cray ALPS aprun", alps, 1, 7, -1, "ALPS_APP_PE", NULL);

    char *flux[] = { "FLUX_TASK_RANK=2", "FLUX_JOB_SIZE=3", NULL };
    expect("Flux", flux, 1, 2, 3, "FLUX_TASK_RANK", "FLUX_JOB_SIZE");

    char *jsm[] = { "JSM_NAMESPACE_RANK=9", "JSM_NAMESPACE_SIZE=12", NULL };
    expect("IBM jsrun", jsm, 1, 9, 12, "JSM_NAMESPACE_RANK", "JSM_NAMESPACE_SIZE");

    char *srun[] = { "SLURM_PROCID=3", "SLURM_NTASKS=4", "SLURM_JOB_ID=12", NULL };
    expect("Slurm srun", srun, 1, 3, 4, "SLURM_PROCID", "SLURM_NTASKS");

    /* srun --mpi=pmix with Open MPI: PMIX_RANK and SLURM_PROCID, no OMPI_ */
    char *srun_pmix[] = { "SLURM_PROCID=2", "SLURM_NTASKS=4", "PMIX_RANK=2", NULL };
    expect("srun --mpi=pmix", srun_pmix, 1, 2, -1, "PMIX_RANK", NULL);

    /* mpirun inside an allocation: the batch step's SLURM_PROCID=0 is
     * inherited by every rank, the launcher's own variable wins */
    char *nested[] = { "SLURM_PROCID=0", "SLURM_NTASKS=1", "PMI_RANK=3", "PMI_SIZE=4", NULL };
    expect("mpirun.mpich inside Slurm", nested, 1, 3, 4, "PMI_RANK", "PMI_SIZE");

    char *bad[] = { "OMPI_COMM_WORLD_RANK=3x", "PMI_RANK=-1", "PMIX_RANK=", "SLURM_PROCID=1",
                    "SLURM_NTASKS=2", NULL };
    expect("malformed values are skipped", bad, 1, 1, 2, "SLURM_PROCID", "SLURM_NTASKS");

    char *badsize[] = { "PMI_RANK=4", "PMI_SIZE=4", NULL };
    expect("size not above rank is dropped", badsize, 1, 4, -1, "PMI_RANK", NULL);

    char *big[] = { "PMI_RANK=99999999999", "MV2_COMM_WORLD_RANK=0", NULL };
    expect("overflow is skipped", big, 1, 0, -1, "MV2_COMM_WORLD_RANK", NULL);

    return check_result("test_launcher");
}
