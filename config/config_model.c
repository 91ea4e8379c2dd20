/*
 * config_model.c - the config struct itself (scope_config.h): a new one
 * with the settings table's defaults, the default entries (every MPI_*
 * and MPIX_* function), and freeing one. The parser (config_parse.c) and
 * the loader (config_load.c) both build on it; it calls neither.
 */
#include <stdlib.h>
#include <string.h>

#include "config_internal.h"

scope_config *scope__cfg_new(void)
{
    scope_config *cfg = calloc(1, sizeof *cfg);
    if (!cfg)
        return NULL;
    /* the table's defaults (base/settings_table.c), the recorder's too */
    if (!(cfg->output = strdup(scope__setting_def(SCOPE_SET_OUTPUT)->dflt))) {
        free(cfg);
        return NULL;
    }
    cfg->memory_budget = scope__setting_default(SCOPE_SET_MEMORY_BUDGET).u;
    cfg->verbose = (int)scope__setting_default(SCOPE_SET_VERBOSE).u;
    cfg->io = SCOPE_IO_ON(scope__setting_default(SCOPE_SET_IO).u);
    cfg->io_files = scope__setting_default(SCOPE_SET_IO_FILES).u;
    if (!(cfg->io_exclude = strdup(scope__setting_def(SCOPE_SET_IO_EXCLUDE)->dflt))) {
        free(cfg->output);
        free(cfg);
        return NULL;
    }
    cfg->callsites = (int)scope__setting_default(SCOPE_SET_CALLSITES).u;
    return cfg;
}

/* The built-in list: every MPI function, and every MPI library's
 * extension (MPIX_*), which `MPI_*` does not match: Open MPI 4.1 has MPI
 * 4's persistent collectives only as MPIX_Bcast_init & co, whose starts
 * move nothing known unless the init was seen. */
int scope__cfg_add_default_entries(scope_config *cfg)
{
    static const char *const patterns[] = { "MPI_*", "MPIX_*" };
    size_t n = sizeof patterns / sizeof *patterns;
    scope_config_entry *e = realloc(cfg->entries, (cfg->n_entries + n) * sizeof *e);
    if (!e)
        return SCOPE_ENOMEM;
    cfg->entries = e;
    for (size_t i = 0; i < n; i++) {
        e = &cfg->entries[cfg->n_entries];
        memset(e, 0, sizeof *e);
        if (!(e->pattern = strdup(patterns[i])))
            return SCOPE_ENOMEM;
        e->is_glob = 1;
        e->kind = SCOPE_KIND_MPI;
        e->callsites = cfg->callsites;
        cfg->n_entries++;
    }
    return 0;
}

void scope__config_free(scope_config *cfg)
{
    if (!cfg)
        return;
    for (size_t i = 0; i < cfg->n_entries; i++) {
        free(cfg->entries[i].pattern);
        free(cfg->entries[i].object);
        free(cfg->entries[i].region);
    }
    free(cfg->entries);
    for (size_t i = 0; i < cfg->n_include_exe; i++)
        free(cfg->include_exe[i]);
    free(cfg->include_exe);
    for (size_t i = 0; i < cfg->n_exclude_exe; i++)
        free(cfg->exclude_exe[i]);
    free(cfg->exclude_exe);
    free(cfg->output);
    free(cfg->journal_dir);
    free(cfg->io_exclude);
    free(cfg->path);
    free(cfg->text);
    free(cfg);
}
