/*
 * scope_reader_omp.h - the threads inside each rank: what the OpenMP
 * regions of a profile (kind "omp", docs/format.md "OpenMP") say of each
 * construct, rank and thread: instances, team sizes, time, work, waits
 * by kind, imbalance and efficiency; and the POP efficiencies of a hybrid
 * run (MPI and OpenMP load balance, communication efficiency, parallel
 * efficiency). docs/analysis.md ("OpenMP", "Efficiency") gives the
 * definitions. Part of libscope_reader; include it after scope_reader.h.
 *
 *     scope_omp *o;
 *     if (scope_profile_omp(p, &o) == 0) {
 *         const scope_omp_region *r;
 *         int64_t n = scope_omp_regions(o, &r);
 *         ...
 *         scope_omp_free(o);
 *     }
 */
#ifndef SCOPE_READER_OMP_H
#define SCOPE_READER_OMP_H

#include <stdint.h>

#include "scope_reader.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The kinds of wait of the per-thread rows, in this order (the enum
 * scope_omp_wait of the file format's vocabulary, format/scope_omp.h):
 * 0 none, 1 implicit_barrier, 2 barrier, 3 taskwait, 4 taskgroup,
 * 5 reduction, 6 lock, 7 critical, 8 ordered, 9 atomic. */
#define SCOPE_OMP_WAIT_KINDS 10

/* The name of wait kind k ("implicit_barrier", ...), NULL out of range. */
SCOPE_READER_API const char *scope_omp_wait_kind_name(int k);

/* One construct of the run: a parallel region, a work-sharing construct,
 * a critical section, lock, ordered or atomic, or an explicit task, by
 * the region it records as (`region`: "omp parallel", "omp loop", "omp
 * critical wait", "omp task", ...) and its code address, a merged call
 * site (scope_profile_site_frames: frame 0's offset - 1 is the
 * construct's call into the runtime), -1 when the runtime gave none. */
typedef struct scope_omp_construct {
    int32_t region;         /* a region index of the profile */
    int32_t site;           /* merged call site, -1 none */
} scope_omp_construct;

/* One (construct, rank, thread). `thread` is the thread's number in its
 * team (omp_get_thread_num()); -1 for a wait outside every parallel
 * region. Times in seconds; waits exclude what ran inside them (tasks
 * executed while waiting at a barrier are work). */
typedef struct scope_omp_row {
    int32_t construct, rank, thread;
    int32_t lane;           /* the recorder's lane (scope_call.thread) all its
                               parts ran on, -1 when on several */
    int64_t instances;      /* parallel: the thread's parts (implicit tasks);
                               work-sharing: its parts; mutex: its waits (the
                               entries); task: runs */
    int64_t iterations;     /* loops: the iterations of the loops it took
                               part in (each part's count), else 0 */
    double time;            /* its parts' time */
    double work;            /* time less the waits inside (below) */
    double wait;            /* the waits' sum */
    double waits[SCOPE_OMP_WAIT_KINDS]; /* by kind */
} scope_omp_row;

/* One (construct, rank). For a parallel region, over its instances i
 * (team size n_i, elapsed E_i on the encountering thread, work w_it of
 * thread t):
 *   load_balance = sum_i sum_t w_it / sum_i n_i max_t w_it
 *   scheduling   = sum_i n_i max_t w_it / sum_i n_i E_i
 *   efficiency   = load_balance x scheduling
 * (TALP's OpenMP load balance and scheduling efficiency, per region);
 * imbalance = max over mean of the threads' work summed over the
 * instances, by thread number. Work-sharing constructs: time is the
 * threads' longest, imbalance over their times, load_balance the mean
 * over the max, scheduling and efficiency 0. Mutex waits and tasks: time
 * and wait are sums, the rest 0. */
typedef struct scope_omp_region {
    int32_t construct, rank;
    int64_t instances;      /* parallel: regions; work-sharing: the most parts
                               of one thread; mutex: waits; task: runs */
    int32_t team_min, team_max; /* parallel: team sizes seen */
    int32_t threads;        /* rows (thread numbers) */
    int32_t slowest_thread; /* the thread with the most work, -1 none */
    double time;            /* parallel: sum of E_i; else as above */
    double work, wait;      /* over the threads */
    double imbalance;       /* max / mean of the threads' work, 0 none */
    double load_balance, scheduling, efficiency;
    int64_t iterations;     /* loops: the iterations of its instances */
} scope_omp_region;

typedef struct scope_omp scope_omp;

/* The OpenMP analysis of every rank. Returns 0 with *out (free with
 * scope_omp_free; empty when the profile has no OpenMP regions),
 * SCOPE_EINVAL, SCOPE_ENOMEM, or the errors of the call stacks
 * (SCOPE_EOVERLAP, SCOPE_EFORMAT) and reads. Cost: one call stack per
 * rank that has OpenMP regions, with their omp_* columns and sites;
 * memory: the stack of one rank at a time, and the rows. */
SCOPE_READER_API int scope_profile_omp(scope_profile *p, scope_omp **out);
SCOPE_READER_API void scope_omp_free(scope_omp *o);

/* The tables, owned by o: constructs (indexed by the rows' `construct`),
 * regions sorted by construct then rank, rows by construct, rank, thread.
 * Each returns how many. */
SCOPE_READER_API int64_t scope_omp_constructs(const scope_omp *o,
                                              const scope_omp_construct **out);
SCOPE_READER_API int64_t scope_omp_regions(const scope_omp *o, const scope_omp_region **out);
SCOPE_READER_API int64_t scope_omp_rows(const scope_omp *o, const scope_omp_row **out);

/* One OS thread of a rank that OpenMP reported (OMPT's thread begin and
 * end), or on which an OpenMP event was recorded: its lane (the
 * recorder's thread, scope_call.thread), its type at its begin, and the
 * times (the profile's clock, as scope_call's, in ns; -1 when not
 * recorded: a thread that began before recording started, or that ended
 * after it stopped: LLVM's runtime ends its threads at exit) of its begin,
 * its first and last OpenMP event (the begin and end marks excluded) and
 * its end. */
typedef struct scope_omp_thread {
    int32_t rank, lane;
    int32_t type;           /* 1 initial, 2 worker, 3 other, 0 not recorded
                               (format/scope_omp.h scope_omp_thread_type) */
    int32_t reserved;
    int64_t begin_ns, end_ns;
    int64_t first_ns, last_ns;
    int64_t events;         /* its OpenMP calls, the marks excluded */
} scope_omp_thread;

/* The threads, by rank then lane, owned by o; returns how many. */
SCOPE_READER_API int64_t scope_omp_threads(const scope_omp *o, const scope_omp_thread **out);

/* The name of thread type t ("initial", "worker", "other", "" none), NULL
 * out of range. */
SCOPE_READER_API const char *scope_omp_thread_type_name_at(int t);

/* The omp_* columns of the calls of `region` on `rank` (docs/format.md
 * "OpenMP"), in the order of scope_profile_times(): an implicit task's
 * parallel region (its call index in "omp parallel", -1 not known) and
 * thread number, a work-sharing construct's iterations (-1 not known).
 * Each array is malloc'd for the caller (free it with scope_reader_free),
 * NULL when the region stores no such column; *n is the calls. Returns 0,
 * SCOPE_EINVAL, SCOPE_ENOTFOUND (unknown region or rank), SCOPE_EFORMAT
 * (a column of the wrong length), SCOPE_ENOMEM or a read error. Cost: one
 * HDF5 read per column present. */
SCOPE_READER_API int scope_profile_omp_columns(scope_profile *p, int region, int rank,
                                               int64_t **parallel, int32_t **thread,
                                               int64_t **count, int64_t *n);

/* --- the POP efficiencies of a hybrid run ------------------------------ */

/* One window of the run: the whole run (region -1: each rank's time from
 * the return of MPI_Init to the call of MPI_Finalize, else its start to
 * its finalize) or one
 * top-level region (region: its calls on each rank's main thread), and
 * the POP metrics of the hybrid model over it (docs/analysis.md
 * "Efficiency"): T the longest rank's window; per rank its main
 * thread's time outside MPI (O_r); per CPU (rank, thread) its useful
 * computation (U, outside MPI and the OpenMP runtime; a worker thread
 * outside parallel regions is idle):
 *   mpi_load_balance     = avg O_r / max O_r
 *   mpi_communication    = max O_r / T
 *   mpi_parallel         = avg O_r / T      (their product)
 *   hybrid_load_balance  = avg U / max U
 *   hybrid_communication = max U / T
 *   parallel             = avg U / T        (their product: the hybrid
 *                                            parallel efficiency)
 *   omp_load_balance     = hybrid_load_balance / mpi_load_balance
 *   omp_communication    = hybrid_communication / mpi_communication
 *   omp_parallel         = parallel / mpi_parallel
 * so parallel = mpi_parallel x omp_parallel. Times in seconds; the
 * averages are over the ranks (O, mpi, mpi_waiting, serial) or the CPUs
 * (U, omp, idle). */
typedef struct scope_efficiency {
    int32_t region;         /* -1: the whole run; else a region index */
    int32_t ranks;          /* ranks with a window */
    int32_t cpus;           /* (rank, thread) pairs */
    int32_t reserved;
    double runtime;         /* T */
    double outside_mpi_avg, outside_mpi_max;
    double useful_avg, useful_max;
    double mpi_avg;         /* the main thread's time in MPI */
    double mpi_waiting_avg; /* of it, waiting for another rank (wait states) */
    double omp_avg;         /* per CPU: in the OpenMP runtime (waits, barriers,
                               fork and join) */
    double idle_avg;        /* per CPU: a worker outside parallel regions */
    double serial_avg;      /* the main thread's useful time outside parallel
                               regions */
    double mpi_load_balance, mpi_communication, mpi_parallel;
    double omp_load_balance, omp_communication, omp_parallel;
    double hybrid_load_balance, hybrid_communication, parallel;
} scope_efficiency;

/* One CPU's numbers behind a window's metrics: its rank's window and how
 * the thread spent it (useful + mpi + omp + idle = window, give or take
 * calls that straddle its ends). */
typedef struct scope_efficiency_cpu {
    int32_t region, rank, thread;   /* thread: its lane (scope_profile_thread_ids) */
    int32_t main;                   /* 1: the rank's main thread */
    double window, useful, mpi, omp, idle;
    double mpi_waiting;             /* of mpi, waiting for another rank */
} scope_efficiency_cpu;

typedef struct scope_efficiencies scope_efficiencies;

/* The POP efficiencies of the run and of each top-level region (a region
 * other than MPI's and OpenMP's whose calls on a rank's main thread are
 * the outermost, or directly inside MPI_Init..MPI_Finalize). Returns 0
 * with *out (free with scope_efficiencies_free), SCOPE_EINVAL,
 * SCOPE_ENOMEM, or the errors of the call stacks and of the wait states.
 * Cost: one call stack per rank and the wait states (scope_profile_waits,
 * when the profile recorded MPI data). */
SCOPE_READER_API int scope_profile_efficiency(scope_profile *p, scope_efficiencies **out);
SCOPE_READER_API void scope_efficiencies_free(scope_efficiencies *e);
/* The rows (the run first, then the regions by index) and the CPUs (by
 * row, rank, thread), owned by e; each returns how many. */
SCOPE_READER_API int64_t scope_efficiencies_rows(const scope_efficiencies *e,
                                                 const scope_efficiency **out);
SCOPE_READER_API int64_t scope_efficiencies_cpus(const scope_efficiencies *e,
                                                 const scope_efficiency_cpu **out);

#ifdef __cplusplus
}
#endif
#endif
