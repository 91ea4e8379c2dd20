/*
 * recorder_settings.c - where the recorder writes and how much memory it
 * may map: SCOPE_OUTPUT and SCOPE_MEMORY_BUDGET (which win over the
 * program's scope_options), and the chunk size and chunk count that the
 * budget gives.
 *
 * The variables and their defaults come from the settings table and the
 * process's one reading of it (base/settings.h), which the config layer
 * reads too, so a value the preload refuses is refused here as well; a
 * program linked with libscope.so alone has nobody else to tell it, so a
 * bad budget is said here, once, and the program's own budget or the
 * default used.
 */
#include <stdio.h>
#include <string.h>

#include "journal_dir.h"
#include "journal_storage.h"
#include "recorder_state.h"
#include "scope_format.h"
#include "settings.h"

#define MIN_CHUNK (64u << 10)
#define MAX_CHUNK (1u << 20)

/* SCOPE_MEMORY_BUDGET's bytes, or `dflt` when it is unset or empty; a
 * malformed value is said once per process, naming it, and `dflt` is
 * used. */
static uint64_t env_budget(uint64_t dflt)
{
    const scope_setting_value *v = scope__setting(SCOPE_SET_MEMORY_BUDGET);
    if (v->state == SCOPE_SETTING_SET)
        return v->u;
    if (v->state == SCOPE_SETTING_BAD) {
        char then[64];
        snprintf(then, sizeof then, "using %llu bytes", (unsigned long long)dflt);
        scope__setting_say(SCOPE_SET_MEMORY_BUDGET, then);
    }
    return dflt;
}

/* The config file's journal_dir (preload/lifecycle.c sets it before
 * scope_init; SCOPE_JOURNAL_DIR wins). */
static char cfg_journal_dir[PATH_MAX];
static char cfg_journal_dir_origin[PATH_MAX + 32];

void scope__set_journal_dir(const char *dir, const char *origin)
{
    snprintf(cfg_journal_dir, sizeof cfg_journal_dir, "%s",
             dir ? dir : "");
    snprintf(cfg_journal_dir_origin, sizeof cfg_journal_dir_origin, "%s",
             origin ? origin : "journal_dir");
}

int scope__rec_settings(const scope_options *opts)
{
    const char *out = scope__setting_text(SCOPE_SET_OUTPUT);
    if (!out)
        out = opts && opts->output && *opts->output ? opts->output
                                                    : scope__setting_def(SCOPE_SET_OUTPUT)->dflt;
    int rc = scope__absolute_path(out, scope__rec.output, sizeof scope__rec.output);
    if (rc < 0)
        return rc;
    scope_ranks_dir_of(scope__rec.ranks_dir, sizeof scope__rec.ranks_dir, scope__rec.output);
    const char *jd = scope__setting_text(SCOPE_SET_JOURNAL_DIR);
    const char *origin = "SCOPE_JOURNAL_DIR";
    if (!jd) {
        jd = cfg_journal_dir;
        origin = cfg_journal_dir_origin;
    }
    scope__rec.journal_apart = scope__journal_dir_choose(jd, origin, scope__rec.ranks_dir,
                                                         scope__rec.journal_dir,
                                                         sizeof scope__rec.journal_dir);

    uint64_t budget = env_budget(opts && opts->memory_budget
                                     ? opts->memory_budget
                                     : scope__setting_default(SCOPE_SET_MEMORY_BUDGET).u);
    if (budget < 4 * (uint64_t)MIN_CHUNK)
        budget = 4 * (uint64_t)MIN_CHUNK;
    uint64_t chunk = budget / 256;
    chunk = chunk < MIN_CHUNK ? MIN_CHUNK : chunk > MAX_CHUNK ? MAX_CHUNK : chunk;
    chunk &= ~(uint64_t)4095;
    scope__rec.budget = budget;
    scope__rec.chunk_size = (uint32_t)chunk;
    /* One chunk's worth stays for the header page and the meta chunk. */
    scope__rec.max_live = (uint32_t)(budget / chunk) - 1;
    return 0;
}
