/*
 * export_hatchet.c - the call tree as Hatchet's "literal" form
 * (export_hatchet.h): a JSON list of root nodes, each
 *     {"frame": {"name": ..., "type": ...},
 *      "metrics": {"time (inc)": s, "time": s, "calls": n},
 *      "children": [...]}
 * as hatchet/readers/literal_reader.py takes it: every node carries the
 * same metric names, a name with "(inc)" is inclusive, the others
 * exclusive. Times are seconds. Per rank, each rank is a root of type
 * "rank" (name "rank N", inclusive time the sum of its roots', exclusive
 * time and calls 0) whose children are the rank's call tree; aggregated,
 * the roots are the tree of all ranks (tools/call_tree.c, as `scope tree`
 * shows it). The run's metadata rides on each root as a "metadata"
 * object: the literal reader reads only frame, metrics and children of a
 * node, so it is kept beside them without changing what Hatchet builds.
 */
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "call_tree.h"
#include "export_hatchet.h"
#include "output.h"

/* The run's metadata attributes worth carrying (docs/format.md). */
static const char *const meta_strings[] = {
    "hostname", "executable", "command_line", "working_directory", "timestamp",
    "scope_version", "clock", "mpi_abi", "mpi_library", NULL
};
static const char *const meta_ints[] = {
    "start_time_ns", "finalize_time_ns", "mpi_size", NULL
};

static void put_metadata(FILE *out, scope_profile *p, int aggregate, int rank)
{
    fputs(", \"metadata\": {", out);
    fprintf(out, "\"tool\": \"scope\", \"ranks\": %d, \"aggregated\": %s",
            scope_profile_rank_count(p), aggregate ? "true" : "false");
    if (!aggregate)
        fprintf(out, ", \"rank\": %d", rank);
    for (int i = 0; meta_strings[i]; i++) {
        char small[512];
        int n = scope_profile_metadata_string(p, meta_strings[i], small, sizeof small);
        if (n < 0)
            continue;
        char *buf = small;
        if ((size_t)n >= sizeof small) {
            if (!(buf = malloc((size_t)n + 1)))
                continue;
            scope_profile_metadata_string(p, meta_strings[i], buf, n + 1);
        }
        fprintf(out, ", \"%s\": ", meta_strings[i]);
        scope__put_json_string(out, buf);
        if (buf != small)
            free(buf);
    }
    for (int i = 0; meta_ints[i]; i++) {
        int64_t v;
        if (scope_profile_metadata_int(p, meta_ints[i], &v) == 0)
            fprintf(out, ", \"%s\": %lld", meta_ints[i], (long long)v);
    }
    fputc('}', out);
}

static void put_metrics(FILE *out, int64_t inc_ns, int64_t exc_ns, int64_t calls)
{
    char inc[48], exc[48];
    scope__fmt_seconds_i64(inc, sizeof inc, inc_ns);
    scope__fmt_seconds_i64(exc, sizeof exc, exc_ns);
    fprintf(out, "\"metrics\": {\"time (inc)\": %s, \"time\": %s, \"calls\": %lld}",
            inc, exc, (long long)calls);
}

/* The nodes of t as nested literal nodes, at indentation `base`; with
 * `meta`, each root also carries the run's metadata (aggregated). */
static int put_tree(FILE *out, scope_profile *p, const scope__tree *t, int base,
                    int meta)
{
    int64_t *order = scope__tree_order(t);
    if (!order)
        return scope__fail_msg("out of memory");
    int open = 0;           /* nodes whose children list is open */
    int32_t prev = -1;
    for (int64_t i = 0; i < t->n; i++) {
        const scope__tree_node *x = &t->nodes[order[i]];
        for (; open > x->depth; open--)
            fputs("]}", out);
        if (x->depth <= prev)           /* not its parent's first child */
            fputc(',', out);
        fprintf(out, "\n%*s{\"frame\": {\"name\": ", base + 2 * x->depth, "");
        scope__put_json_string(out, scope_profile_region_name(p, x->region));
        fputs(", \"type\": \"function\"}, ", out);
        put_metrics(out, x->total_ns, x->self_ns, x->calls);
        if (meta && x->depth == 0)
            put_metadata(out, p, 1, SCOPE_ALL_RANKS);
        fputs(", \"children\": [", out);
        open = x->depth + 1;
        prev = x->depth;
    }
    for (; open > 0; open--)
        fputs("]}", out);
    free(order);
    return 0;
}

int scope__write_hatchet(FILE *out, scope_profile *p, int aggregate)
{
    int nr = scope_profile_rank_count(p);
    fputc('[', out);
    for (int k = 0; k < (aggregate ? 1 : nr); k++) {
        int rank = aggregate ? SCOPE_ALL_RANKS : scope_profile_rank(p, k);
        scope__tree t;
        memset(&t, 0, sizeof t);
        if (scope__tree_add(&t, p, rank, SCOPE_ALL_THREADS) < 0) {
            scope__fail_msg(scope_reader_errmsg());
            scope__tree_free(&t);
            return 1;
        }
        if (aggregate) {
            if (put_tree(out, p, &t, 2, 1) != 0) {
                scope__tree_free(&t);
                return 1;
            }
        } else {
            int64_t inc = 0;
            for (int64_t i = 0; i < t.n; i++)
                if (t.nodes[i].parent < 0)
                    inc += t.nodes[i].total_ns;
            fprintf(out, "%s\n  {\"frame\": {\"name\": \"rank %d\", \"type\": \"rank\"}, ",
                    k ? "," : "", rank);
            put_metrics(out, inc, 0, 0);
            put_metadata(out, p, 0, rank);
            fputs(", \"children\": [", out);
            if (put_tree(out, p, &t, 4, 0) != 0) {
                scope__tree_free(&t);
                return 1;
            }
            fputs("]}", out);
        }
        scope__tree_free(&t);
    }
    fputs("\n]\n", out);
    return 0;
}
