/*
 * test_config_settings.c - `key = value` lines: each key, quoted and bare
 * values, spacing, repeatable include/exclude, and the recorded origin
 * (file and line) of every once-only setting.
 */
#include "parse_check.h"

static void test_all_keys(void)
{
    scope_config *cfg = PARSE_OK(
        "# a full config\n"
        "output = results/run.h5        # where the index goes\n"
        "memory_budget=256M\n"
        "include = ./my_app*\n"
        "  exclude\t=\tpython3*\n"
        "include = \"solver v2\"\n"
        "callsites = 3\n"
        "verbose = 1\n"
        "\n"
        "MPI_Allreduce\n");
    if (!cfg)
        return;
    CHECK_STR(cfg->output, "results/run.h5");
    CHECK_INT(cfg->output_from.source, SCOPE_SRC_FILE);
    CHECK_INT(cfg->output_from.line, 2);
    CHECK_INT(cfg->memory_budget, 256ull << 20);
    CHECK_INT(cfg->memory_budget_from.source, SCOPE_SRC_FILE);
    CHECK_INT(cfg->memory_budget_from.line, 3);
    CHECK_INT(cfg->n_include_exe, 2);
    if (cfg->n_include_exe == 2) {
        CHECK_STR(cfg->include_exe[0], "./my_app*");
        CHECK_STR(cfg->include_exe[1], "solver v2");
    }
    CHECK_INT(cfg->n_exclude_exe, 1);
    if (cfg->n_exclude_exe == 1)
        CHECK_STR(cfg->exclude_exe[0], "python3*");
    CHECK_INT(cfg->callsites, 3);
    CHECK_INT(cfg->callsites_from.line, 7);
    CHECK_INT(cfg->verbose, 1);
    CHECK_INT(cfg->verbose_from.source, SCOPE_SRC_FILE);
    CHECK_INT(cfg->verbose_from.line, 8);
    CHECK_INT(cfg->n_entries, 1);
    if (cfg->n_entries == 1) {
        CHECK_INT(cfg->entries[0].line, 10);
        CHECK_INT(cfg->entries[0].callsites, 3);
    }
    scope__config_free(cfg);
}

static void test_values(void)
{
    scope_config *cfg = PARSE_OK("output = \"my results/run #1.h5\"\nverbose = 0\n");
    if (cfg) {
        CHECK_STR(cfg->output, "my results/run #1.h5");
        CHECK_INT(cfg->verbose, 0);
        CHECK_INT(cfg->verbose_from.source, SCOPE_SRC_FILE);
        scope__config_free(cfg);
    }
    /* Escapes in a bare value; include/exclude keep them for fnmatch. */
    cfg = PARSE_OK("output = a\\ b.h5\ninclude = app\\*\n");
    if (cfg) {
        CHECK_STR(cfg->output, "a b.h5");
        CHECK_STR(cfg->include_exe[0], "app\\*");
        scope__config_free(cfg);
    }
    /* A '#' glued to a value still starts a comment. */
    cfg = PARSE_OK("output = x.h5# comment\n");
    if (cfg) {
        CHECK_STR(cfg->output, "x.h5");
        scope__config_free(cfg);
    }
}

/* Identifier then '=' makes a setting; anything else is a function. */
static void test_setting_or_function(void)
{
    scope_config *cfg = PARSE_OK("output_x\nverbose\ninclude(int)\n");
    if (cfg) {
        CHECK_INT(cfg->n_entries, 3);
        if (cfg->n_entries == 3) {
            CHECK_STR(cfg->entries[0].pattern, "output_x");
            CHECK_STR(cfg->entries[1].pattern, "verbose");
            CHECK_STR(cfg->entries[2].pattern, "include(int)");
        }
        CHECK_INT(cfg->verbose_from.source, SCOPE_SRC_DEFAULT);
        scope__config_free(cfg);
    }
}

int main(void)
{
    test_all_keys();
    test_values();
    test_setting_or_function();
    return check_result("test_config_settings");
}
