/*
 * config_describe.c - a config explained in plain lines, for
 * `scope check-config`: the user sees how each line was understood (exact
 * or glob, which object, which region name, which kind) and where each
 * setting came from, before a long MPI job depends on it. The line formats
 * are documented in docs/config.md ("Checking a config").
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "config_internal.h"

typedef void (*write_fn)(void *ctx, const char *line);

/* " (default)", " (file line 3)" or " (env SCOPE_OUTPUT)". */
static void origin_text(const scope_config_origin *o, char *buf, size_t len)
{
    if (o->source == SCOPE_SRC_FILE)
        snprintf(buf, len, " (file line %d)", o->line);
    else if (o->source == SCOPE_SRC_ENV)
        snprintf(buf, len, " (env %s)", o->env ? o->env : "?");
    else
        snprintf(buf, len, " (default)");
}

/* "67108864 bytes (64 MiB)": the exact count, plus the largest unit that
 * divides it. */
static void size_text(uint64_t bytes, char *buf, size_t len)
{
    static const char *const units[] = {"TiB", "GiB", "MiB", "KiB"};
    for (int i = 0; i < 4; i++) {
        unsigned shift = (unsigned)(40 - 10 * i);
        if (bytes >= (1ull << shift) && bytes % (1ull << shift) == 0) {
            snprintf(buf, len, "%" PRIu64 " bytes (%" PRIu64 " %s)", bytes, bytes >> shift,
                     units[i]);
            return;
        }
    }
    snprintf(buf, len, "%" PRIu64 " bytes", bytes);
}

static void describe_entry(const scope_config *cfg, const scope_config_entry *e,
                           write_fn write, void *ctx)
{
    char where[64], object[320], region[320], line[1024];
    if (e->line > 0)
        snprintf(where, sizeof where, "line %d", e->line);
    else if (cfg->entries_defaulted)
        snprintf(where, sizeof where, "built-in default, the file names no function");
    else
        snprintf(where, sizeof where, "built-in default");
    if (!e->object)
        snprintf(object, sizeof object, "any object");
    else
        snprintf(object, sizeof object, "object %s'%s'", e->object_is_glob ? "glob " : "",
                 e->object);
    if (e->region)
        snprintf(region, sizeof region, "region '%s'", e->region);
    else
        snprintf(region, sizeof region, "region = %s",
                 e->is_glob ? "each matched function's name" : "the function's name");
    snprintf(line, sizeof line, "function (%s): '%s' %s, %s, kind %s, %s, callsites %d",
             where, e->pattern,
             e->is_glob ? (e->demangled ? "glob on C++ demangled names" : "glob on symbol names")
                        : (e->demangled ? "exact C++ demangled name" : "exact symbol name"),
             object,
             e->kind == SCOPE_KIND_MPI ? "mpi" : "function", region, e->callsites);
    write(ctx, line);
}

void scope__config_describe(const scope_config *cfg, write_fn write, void *ctx)
{
    char line[1024], from[64], size[64];
    size_t n_builtin, used;
    const char *const *builtin = scope__cfg_builtin_excluded(&n_builtin);

    if (cfg->path)
        snprintf(line, sizeof line, "config: %s", cfg->path);
    else if (cfg->is_default)
        snprintf(line, sizeof line, "config: built-in default (no config file)");
    else
        snprintf(line, sizeof line, "config: <config>");
    write(ctx, line);

    origin_text(&cfg->output_from, from, sizeof from);
    snprintf(line, sizeof line, "output: %s%s", cfg->output, from);
    write(ctx, line);
    if (cfg->journal_dir) { /* the default (the ranks folder) goes unsaid */
        origin_text(&cfg->journal_dir_from, from, sizeof from);
        snprintf(line, sizeof line, "journal_dir: %s%s", cfg->journal_dir, from);
        write(ctx, line);
    }
    origin_text(&cfg->memory_budget_from, from, sizeof from);
    size_text(cfg->memory_budget, size, sizeof size);
    snprintf(line, sizeof line, "memory_budget: %s%s", size, from);
    write(ctx, line);
    origin_text(&cfg->verbose_from, from, sizeof from);
    snprintf(line, sizeof line, "verbose: %d%s", cfg->verbose, from);
    write(ctx, line);
    origin_text(&cfg->callsites_from, from, sizeof from);
    snprintf(line, sizeof line, "callsites: %d%s", cfg->callsites, from);
    write(ctx, line);
    origin_text(&cfg->io_from, from, sizeof from);
    snprintf(line, sizeof line, "io: %s%s", cfg->io ? "on" : "off", from);
    write(ctx, line);
    origin_text(&cfg->io_exclude_from, from, sizeof from);
    snprintf(line, sizeof line, "io_exclude: %s%s", cfg->io_exclude, from);
    write(ctx, line);
    origin_text(&cfg->io_files_from, from, sizeof from);
    snprintf(line, sizeof line, "io_files: %llu%s", (unsigned long long)cfg->io_files, from);
    write(ctx, line);

    for (size_t i = 0; i < cfg->n_include_exe; i++) {
        snprintf(line, sizeof line, "include: %s", cfg->include_exe[i]);
        write(ctx, line);
    }
    for (size_t i = 0; i < cfg->n_exclude_exe; i++) {
        snprintf(line, sizeof line, "exclude: %s", cfg->exclude_exe[i]);
        write(ctx, line);
    }
    if (cfg->n_include_exe > 0) {
        write(ctx, "executables: only those matching an include and no exclude");
    } else {
        used = (size_t)snprintf(line, sizeof line, "executables: all except the excludes and these built-in ones:");
        for (size_t i = 0; i < n_builtin && used < sizeof line; i++)
            used += (size_t)snprintf(line + used, sizeof line - used, " %s", builtin[i]);
        write(ctx, line);
    }

    snprintf(line, sizeof line, "functions: %zu", cfg->n_entries);
    write(ctx, line);
    for (size_t i = 0; i < cfg->n_entries; i++)
        describe_entry(cfg, &cfg->entries[i], write, ctx);
}
