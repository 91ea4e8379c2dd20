/*
 * cmd_efficiency.c - `scope efficiency PATH...`: the hybrid view no single
 * anchor gives, POP's metrics of the run and of each top-level region:
 * the parallel efficiency and its two factors, MPI's (load balance x
 * communication efficiency, from the main threads' time outside MPI) and
 * OpenMP's (load balance x communication efficiency, the rest of the
 * threads' useful time), each with the numbers behind it.
 *
 * The numbers come from libscope_reader (scope_profile_efficiency,
 * docs/analysis.md "Efficiency"); this file only prints them.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "commands.h"
#include "output.h"
#include "scope_reader.h"
#include "scope_reader_omp.h"

static const char efficiency_help[] =
    "usage: scope efficiency [--cpus] [--format table|csv|json] PATH...\n"
    "\n"
    "POP's efficiency metrics of a hybrid (MPI + OpenMP) run, for the whole run\n"
    "(each rank from MPI_Init to MPI_Finalize, else its start to its end) and\n"
    "for each top-level region (its calls on each rank's main thread):\n"
    "  parallel efficiency = MPI parallel efficiency x OpenMP parallel efficiency\n"
    "  MPI parallel efficiency = MPI load balance x MPI communication efficiency\n"
    "    from each rank's main thread's time outside MPI\n"
    "  OpenMP parallel efficiency = OpenMP load balance x OpenMP communication\n"
    "    efficiency: what the threads' useful time (outside MPI and the OpenMP\n"
    "    runtime; a worker outside parallel regions is idle) loses beyond MPI's\n"
    "and the numbers behind them (docs/analysis.md \"Efficiency\").\n"
    "\n"
    "options:\n"
    "  --cpus         each thread's window, useful, MPI, OpenMP and idle time\n"
    "  --format F     table (default), csv or json. csv: one row per window,\n"
    "                 header region,ranks,cpus,runtime,parallel_efficiency,...\n"
    "                 json: {\"efficiency\": [...], \"cpus\": [...]} with the same\n"
    "                 names; times in seconds, efficiencies as fractions\n"
    "  -h, --help     this text\n";

enum { FMT_TABLE, FMT_CSV, FMT_JSON };

/* The metrics and numbers, in print order: name, field offset, kind. */
struct field {
    const char *label;      /* the table's */
    const char *key;        /* csv and json */
    size_t off;
    int secs;               /* 1: a time; 0: an efficiency */
    int depth;              /* indentation in the table */
};

#define F(label, key, member, secs, depth) \
    { label, key, offsetof(scope_efficiency, member), secs, depth }
static const struct field fields[] = {
    F("parallel efficiency", "parallel_efficiency", parallel, 0, 0),
    F("MPI parallel efficiency", "mpi_parallel_efficiency", mpi_parallel, 0, 1),
    F("MPI load balance", "mpi_load_balance", mpi_load_balance, 0, 2),
    F("MPI communication efficiency", "mpi_communication_efficiency", mpi_communication, 0, 2),
    F("OpenMP parallel efficiency", "omp_parallel_efficiency", omp_parallel, 0, 1),
    F("OpenMP load balance", "omp_load_balance", omp_load_balance, 0, 2),
    F("OpenMP communication efficiency", "omp_communication_efficiency", omp_communication,
      0, 2),
    F("hybrid load balance", "hybrid_load_balance", hybrid_load_balance, 0, 1),
    F("hybrid communication efficiency", "hybrid_communication_efficiency",
      hybrid_communication, 0, 1),
    F("runtime (longest rank's window)", "runtime", runtime, 1, 0),
    F("outside MPI, main threads: mean", "outside_mpi_avg", outside_mpi_avg, 1, 0),
    F("outside MPI, main threads: max", "outside_mpi_max", outside_mpi_max, 1, 0),
    F("useful, per thread: mean", "useful_avg", useful_avg, 1, 0),
    F("useful, per thread: max", "useful_max", useful_max, 1, 0),
    F("in MPI, main threads: mean", "mpi_avg", mpi_avg, 1, 0),
    F("  of it waiting for other ranks", "mpi_waiting_avg", mpi_waiting_avg, 1, 0),
    F("in the OpenMP runtime, per thread", "omp_avg", omp_avg, 1, 0),
    F("idle, per thread", "idle_avg", idle_avg, 1, 0),
    F("serial, main threads", "serial_avg", serial_avg, 1, 0),
};
#undef F
#define NFIELDS (sizeof fields / sizeof *fields)

static double value(const scope_efficiency *r, const struct field *f)
{
    return *(const double *)((const char *)r + f->off);
}

static const char *row_name(scope_profile *p, const scope_efficiency *r)
{
    return r->region < 0 ? "run" : scope_profile_region_name(p, r->region);
}

static int print_table(scope_profile *p, const scope_efficiency *rows, int64_t n,
                       const scope_efficiency_cpu *cpu, int64_t ncpu, int cpus)
{
    const char **heads = calloc((size_t)n + 1, sizeof *heads);
    int *right = calloc((size_t)n + 1, sizeof *right);
    char **cells = calloc((size_t)n + 1, sizeof *cells);
    int status = -1;
    if (!heads || !right || !cells)
        goto out;
    heads[0] = "";
    for (int64_t i = 0; i < n; i++) {
        heads[i + 1] = row_name(p, &rows[i]);
        right[i + 1] = 1;
        if (!(cells[i + 1] = malloc(64)))
            goto out;
    }
    scope__table t;
    scope__table_init(&t, (int)n + 1, heads, right);
    char line[80];
    for (size_t f = 0; f < NFIELDS; f++) {
        snprintf(line, sizeof line, "%*s%s", 2 * fields[f].depth, "", fields[f].label);
        cells[0] = line;
        for (int64_t i = 0; i < n; i++) {
            double v = value(&rows[i], &fields[f]);
            if (fields[f].secs)
                scope__fmt_human(cells[i + 1], 64, v * 1e9);
            else
                snprintf(cells[i + 1], 64, "%.3f", v);
        }
        if (scope__table_add(&t, (const char *const *)cells) < 0) {
            scope__table_free(&t);
            goto out;
        }
    }
    snprintf(line, sizeof line, "ranks / threads");
    cells[0] = line;
    for (int64_t i = 0; i < n; i++)
        snprintf(cells[i + 1], 64, "%d / %d", rows[i].ranks, rows[i].cpus);
    if (scope__table_add(&t, (const char *const *)cells) < 0 || scope__table_print(&t, stdout) < 0) {
        scope__table_free(&t);
        goto out;
    }
    scope__table_free(&t);
    if (cpus) {
        static const char *const h[] = { "window", "rank", "thread", "main", "length", "useful",
                                         "mpi", "waiting", "openmp", "idle" };
        static const int r[] = { 0, 1, 1, 0, 1, 1, 1, 1, 1, 1 };
        scope__table c;
        scope__table_init(&c, 10, h, r);
        for (int64_t q = 0; q < ncpu; q++) {
            char rk[16], th[16], v[6][48];
            snprintf(rk, sizeof rk, "%d", cpu[q].rank);
            snprintf(th, sizeof th, "%d", cpu[q].thread);
            double d[6] = { cpu[q].window, cpu[q].useful, cpu[q].mpi, cpu[q].mpi_waiting,
                            cpu[q].omp, cpu[q].idle };
            for (int k = 0; k < 6; k++)
                scope__fmt_human(v[k], sizeof v[k], d[k] * 1e9);
            const char *row[] = { cpu[q].region < 0 ? "run" : scope_profile_region_name(p, cpu[q].region),
                                  rk, th, cpu[q].main ? "yes" : "", v[0], v[1], v[2], v[3], v[4],
                                  v[5] };
            if (scope__table_add(&c, row) < 0) {
                scope__table_free(&c);
                goto out;
            }
        }
        fputc('\n', stdout);
        int prc = scope__table_print(&c, stdout);
        scope__table_free(&c);
        if (prc < 0)
            goto out;
    }
    status = 0;
out:
    for (int64_t i = 0; cells && i < n; i++)
        free(cells[i + 1]);
    free(cells);
    free(heads);
    free(right);
    return status;
}

static void put_number(const struct field *f, double v)
{
    char b[64];
    if (f->secs)
        scope__fmt_seconds_dbl(b, sizeof b, v * 1e9);
    else
        scope__fmt_ratio(b, sizeof b, v);
    fputs(b, stdout);
}

static void print_csv(scope_profile *p, const scope_efficiency *rows, int64_t n)
{
    fputs("region,ranks,cpus", stdout);
    for (size_t f = 0; f < NFIELDS; f++)
        printf(",%s", fields[f].key);
    fputc('\n', stdout);
    for (int64_t i = 0; i < n; i++) {
        scope__put_csv_field(stdout, row_name(p, &rows[i]));
        printf(",%d,%d", rows[i].ranks, rows[i].cpus);
        for (size_t f = 0; f < NFIELDS; f++) {
            fputc(',', stdout);
            put_number(&fields[f], value(&rows[i], &fields[f]));
        }
        fputc('\n', stdout);
    }
}

static void print_json(scope_profile *p, const scope_efficiency *rows, int64_t n,
                       const scope_efficiency_cpu *cpu, int64_t ncpu)
{
    fputs("{\"efficiency\": [", stdout);
    for (int64_t i = 0; i < n; i++) {
        fputs(i ? ",\n  {\"region\": " : "\n  {\"region\": ", stdout);
        scope__put_json_string(stdout, row_name(p, &rows[i]));
        printf(", \"ranks\": %d, \"cpus\": %d", rows[i].ranks, rows[i].cpus);
        for (size_t f = 0; f < NFIELDS; f++) {
            printf(", \"%s\": ", fields[f].key);
            put_number(&fields[f], value(&rows[i], &fields[f]));
        }
        fputc('}', stdout);
    }
    fputs(n ? "\n], \"cpus\": [" : "], \"cpus\": [", stdout);
    static const struct field secs = { "", "", 0, 1, 0 };
    for (int64_t q = 0; q < ncpu; q++) {
        const scope_efficiency_cpu *c = &cpu[q];
        fputs(q ? ",\n  {\"region\": " : "\n  {\"region\": ", stdout);
        scope__put_json_string(stdout, c->region < 0 ? "run"
                                                     : scope_profile_region_name(p, c->region));
        printf(", \"rank\": %d, \"thread\": %d, \"main\": %s", c->rank, c->thread,
               c->main ? "true" : "false");
        const char *k[] = { "window", "useful", "mpi", "mpi_waiting", "omp", "idle" };
        double d[] = { c->window, c->useful, c->mpi, c->mpi_waiting, c->omp, c->idle };
        for (int j = 0; j < 6; j++) {
            printf(", \"%s\": ", k[j]);
            put_number(&secs, d[j]);
        }
        fputc('}', stdout);
    }
    fputs(ncpu ? "\n]}\n" : "]}\n", stdout);
}

int scope_cmd_efficiency(int argc, char **argv)
{
    static const struct option opts[] = {
        { "cpus", no_argument, NULL, 'c' },
        { "format", required_argument, NULL, 'f' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 }
    };
    int c, format = FMT_TABLE, cpus = 0;
    scope_profile *p;
    scope__options parse = { .cmd = "efficiency", .help = efficiency_help, .argc = argc, .argv = argv,
                              .shortopts = ":h", .longopts = opts, .profile = &p,
                              .format = &format };
    while ((c = scope__next_option(&parse)) > 0) {
        switch (c) {
        case 'c':
            cpus = 1;
            break;
        }
    }
    if (c < 0)
        return parse.status;
    scope_efficiencies *e = NULL;
    int status = 1;
    if (scope_profile_efficiency(p, &e) < 0) {
        status = scope__fail_msg(scope_reader_errmsg());
        goto out;
    }
    const scope_efficiency *rows;
    const scope_efficiency_cpu *cpu;
    int64_t n = scope_efficiencies_rows(e, &rows), ncpu = scope_efficiencies_cpus(e, &cpu);
    if (format == FMT_TABLE) {
        if (print_table(p, rows, n, cpu, ncpu, cpus) < 0) {
            fprintf(stderr, "scope: out of memory\n");
            goto out;
        }
    } else if (format == FMT_CSV) {
        print_csv(p, rows, n);
    } else {
        print_json(p, rows, n, cpu, ncpu);
    }
    status = scope__stdout_check("cannot write the table");
out:
    scope_efficiencies_free(e);
    scope_profile_close(p);
    return status;
}
