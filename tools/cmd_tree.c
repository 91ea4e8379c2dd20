/*
 * cmd_tree.c - `scope tree PATH...`: the call tree rebuilt from
 * containment and aggregated by call path, with calls, inclusive (total)
 * and exclusive (self) time per path, indented by depth. Shows what a
 * region's time is made of, which the flat summary cannot; with --waits,
 * how much of each path's time its MPI calls waited for another rank.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "call_tree.h"
#include "commands.h"
#include "output.h"

static const char tree_help[] =
    "usage: scope tree [--rank N] [--thread T] [--format table|csv|json]\n"
    "                  [--compensate] [--waits] [--wide] PATH...\n"
    "\n"
    "The call tree: calls nested by containment (a call that starts while\n"
    "another call of the same thread is open is inside it), aggregated by\n"
    "call path, e.g. timestep > solve. Per path: the number of calls, total\n"
    "(inclusive) time and self time (total minus the time of the calls\n"
    "nested in it). Children are sorted by total time, largest first.\n"
    "\n"
    "options:\n"
    "  --rank N       one rank (default: every rank, added together)\n"
    "  --thread T     one thread lane (default: every lane of the rank)\n"
    "  --format F     table (default: indented names, human units), csv\n"
    "                 (path,depth,calls,total,self; times in plain seconds;\n"
    "                 path joins names with ';') or json ({\"nodes\":\n"
    "                 [...]}, same fields)\n"
    "  --compensate   subtract what recording cost, as each process measured\n"
    "                 it at start (per call: overhead_inside_ns from its\n"
    "                 total and self, overhead_caller_ns from its parent's\n"
    "                 self); the table says so in its first line\n"
    "  --waits        add the time each path's calls waited for another rank\n"
    "                 (scope waits, docs/analysis.md: MPI calls only, waits\n"
    "                 above the clock bound); csv and json gain `waiting`\n"
    SCOPE__HELP_WIDE_AND_HELP;

static int print_tree(scope_profile *p, const scope__tree *t,
                      const int64_t *order, int format, int wide)
{
    static const char *const heads[5] = { "total", "self", "waiting", "calls", "region" };
    static const char *const heads_nw[4] = { "total", "self", "calls", "region" };
    static const int right[5] = { 1, 1, 1, 1, 0 };
    static const int shrink[5] = { 0, 0, 0, 0, 1 };
    int waits = t->waits != NULL, ncol = waits ? 5 : 4;
    scope__table tab;
    scope__table_init(&tab, ncol, waits ? heads : heads_nw, right + 5 - ncol);
    scope__table_fit(&tab, scope__out_width(stdout, wide), shrink + 5 - ncol);
    if (format == 1)
        fputs(waits ? "path,depth,calls,total,self,waiting\n" : "path,depth,calls,total,self\n",
              stdout);
    else if (format == 2)
        fputs("{\"nodes\": [", stdout);
    for (int64_t i = 0; i < t->n; i++) {
        const scope__tree_node *x = &t->nodes[order[i]];
        const char *name = scope_profile_region_name(p, x->region);
        char total[48], self[48], waiting[48], calls[32];
        snprintf(calls, sizeof calls, "%lld", (long long)x->calls);
        if (format == 0) {
            scope__fmt_human(total, sizeof total, (double)x->total_ns);
            scope__fmt_human(self, sizeof self, (double)x->self_ns);
            if (x->waiting_ns)
                scope__fmt_human(waiting, sizeof waiting, (double)x->waiting_ns);
            else
                strcpy(waiting, "-");
            char *ind = malloc((size_t)x->depth * 2 + strlen(name) + 1);
            if (!ind) {
                scope__table_free(&tab);
                return scope__fail_msg("out of memory");
            }
            memset(ind, ' ', (size_t)x->depth * 2);
            strcpy(ind + (size_t)x->depth * 2, name);
            const char *cells[5] = { total, self, waiting, calls, ind };
            if (!waits)
                cells[2] = calls, cells[3] = ind;
            int rc = scope__table_add(&tab, cells);
            free(ind);
            if (rc < 0) {
                scope__table_free(&tab);
                return scope__fail_msg("out of memory");
            }
            continue;
        }
        char *path = scope__tree_path(p, t, order[i], 0);
        if (!path)
            return scope__fail_msg("out of memory");
        scope__fmt_seconds_i64(total, sizeof total, x->total_ns);
        scope__fmt_seconds_i64(self, sizeof self, x->self_ns);
        scope__fmt_seconds_i64(waiting, sizeof waiting, x->waiting_ns);
        if (format == 1) {
            scope__put_csv_field(stdout, path);
            printf(",%d,%s,%s,%s", x->depth, calls, total, self);
            if (waits)
                printf(",%s", waiting);
            putchar('\n');
        } else {
            fputs(i ? ",\n  {\"path\": " : "\n  {\"path\": ", stdout);
            scope__put_json_string(stdout, path);
            printf(", \"name\": ");
            scope__put_json_string(stdout, name);
            printf(", \"depth\": %d, \"calls\": %s, \"total\": %s, "
                   "\"self\": %s", x->depth, calls, total, self);
            if (waits)
                printf(", \"waiting\": %s", waiting);
            putchar('}');
        }
        free(path);
    }
    if (format == 0 && scope__table_print(&tab, stdout) < 0) {
        scope__table_free(&tab);
        return scope__fail_msg("out of memory");
    } else if (format == 2)
        fputs(t->n ? "\n]}\n" : "]}\n", stdout);
    scope__table_free(&tab);
    return scope__stdout_check("cannot write the tree to standard output");
}

int scope_cmd_tree(int argc, char **argv)
{
    static const struct option opts[] = {
        { "rank", required_argument, NULL, 'r' },
        { "thread", required_argument, NULL, 't' },
        { "format", required_argument, NULL, 'f' },
        { "wide", no_argument, NULL, 'w' },
        { "compensate", no_argument, NULL, 'c' },
        { "waits", no_argument, NULL, 'W' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 }
    };
    int c, format = 0, wide = 0, compensate = 0, want_waits = 0, rank = SCOPE_ALL_RANKS, thread = SCOPE_ALL_THREADS;
    int64_t v;
    scope_profile *p;
    scope__options parse = { .cmd = "tree", .help = tree_help, .argc = argc, .argv = argv,
                              .shortopts = ":h", .longopts = opts, .profile = &p,
                              .format = &format };
    while ((c = scope__next_option(&parse)) > 0) {
        switch (c) {
        case 'r':
        case 't':
            if (scope__parse_i64(optarg, &v) < 0 || v < 0 || v > 0x7fffffff)
                return scope__usage_error("tree", "--%s needs a number >= 0, "
                                          "not '%s'", c == 'r' ? "rank"
                                          : "thread", optarg);
            *(c == 'r' ? &rank : &thread) = (int)v;
            break;
        case 'w':
            wide = 1;
            break;
        case 'c':
            compensate = 1;
            break;
        case 'W':
            want_waits = 1;
            break;
        }
    }
    if (c < 0)
        return parse.status;
    scope__tree t;
    memset(&t, 0, sizeof t);
    t.compensate = compensate;
    int status = 1;
    int64_t *order = NULL;
    scope_waits *w = NULL;
    if (want_waits) {
        if (scope_profile_waits(p, SCOPE_WAITS_NO_MESSAGES, &w) < 0) {
            scope__fail_msg(scope_reader_errmsg());
            goto fail_tree;
        }
        if (!scope_waits_has_data(w))
            fprintf(stderr, "scope tree: the profile records no data of MPI calls, so no wait "
                    "states: record them with MPI_* in the config (the default)\n");
        t.waits = w;
    }
    if (scope__tree_add(&t, p, rank, thread) < 0) {
        scope__fail_msg(scope_reader_errmsg());
        goto fail_tree;
    }
    if (!(order = scope__tree_order(&t))) {
        scope__fail_msg("out of memory");
        goto fail_tree;
    }
    /* csv and json stay machine-readable: the note goes to stderr */
    if (compensate && scope__note_compensation(p, rank, format == 0 ? stdout : stderr))
        goto fail_tree;
    status = print_tree(p, &t, order, format, wide);
fail_tree:
    free(order);
    scope__tree_free(&t);
    scope_waits_free(w);
    scope_profile_close(p);
    return status;
}
