/*
 * test_config_simple.c - the config most users write first: function names
 * and globs one per line, '#' comments, blank lines. It must be valid as it
 * is, and every setting must keep its built-in value.
 */
#include <stdlib.h>

#include "parse_check.h"

static void test_names_and_globs(void)
{
    scope_config *cfg = PARSE_OK(
        "# functions I care about\n"
        "\n"
        "MPI_Allreduce\n"
        "   compute_*      # the kernels\n"
        "\tH5D*\n"
        "solve\n"
        "PMPI_Send\n");
    if (!cfg)
        return;
    CHECK_STR(cfg->path, "t.conf");
    CHECK_INT(cfg->is_default, 0);
    CHECK_INT(cfg->entries_defaulted, 0);
    CHECK_INT(cfg->n_entries, 5);
    const char *pat[] = {"MPI_Allreduce", "compute_*", "H5D*", "solve", "PMPI_Send"};
    int glob[] = {0, 1, 1, 0, 0}, kind[] = {1, 0, 0, 0, 1}, line[] = {3, 4, 5, 6, 7};
    for (size_t i = 0; i < 5 && i < cfg->n_entries; i++) {
        const scope_config_entry *e = &cfg->entries[i];
        CHECK_STR(e->pattern, pat[i]);
        CHECK_STR(e->object, NULL);
        CHECK_STR(e->region, NULL);
        CHECK_INT(e->is_glob, glob[i]);
        CHECK_INT(e->kind, kind[i]);
        CHECK_INT(e->line, line[i]);
        CHECK_INT(e->demangled, 0);
        CHECK_INT(e->callsites, 0);
    }
    /* Untouched settings keep the built-in values and say so. */
    CHECK_STR(cfg->output, "scope_profile.h5");
    CHECK_INT(cfg->memory_budget, 64ull << 20);
    CHECK_INT(cfg->verbose, 0);
    CHECK_INT(cfg->callsites, 0);
    CHECK_INT(cfg->n_include_exe, 0);
    CHECK_INT(cfg->n_exclude_exe, 0);
    CHECK_INT(cfg->output_from.source, SCOPE_SRC_DEFAULT);
    CHECK_INT(cfg->memory_budget_from.source, SCOPE_SRC_DEFAULT);
    scope__config_free(cfg);
}

static void test_text_is_kept(void)
{
    const char *text = "MPI_Send # c\n";
    scope_config *cfg = PARSE_OK(text);
    if (!cfg)
        return;
    CHECK_STR(cfg->text, text);
    CHECK_INT(cfg->text != text, 1);
    scope__config_free(cfg);
}

/* CRLF files and a last line without '\n' read the same. */
static void test_line_endings(void)
{
    scope_config *cfg = PARSE_OK("a\r\nb_*\r\n\r\nc");
    if (!cfg)
        return;
    CHECK_INT(cfg->n_entries, 3);
    if (cfg->n_entries == 3) {
        CHECK_STR(cfg->entries[0].pattern, "a");
        CHECK_STR(cfg->entries[1].pattern, "b_*");
        CHECK_STR(cfg->entries[2].pattern, "c");
        CHECK_INT(cfg->entries[2].line, 4);
    }
    scope__config_free(cfg);
}

/* A UTF-8 byte-order mark is not part of the first name; columns of the
 * first line count from after it. */
static void test_byte_order_mark(void)
{
    scope_config *cfg = PARSE_OK("\xEF\xBB\xBFMPI_Send\n");
    if (cfg) {
        CHECK_STR(cfg->entries[0].pattern, "MPI_Send");
        scope__config_free(cfg);
    }
    PARSE_ERR("\xEF\xBB\xBF" "foo(\n", "t.conf:1:4: unclosed '('");
}

/* A file naming no function keeps the default list: every MPI_* and
 * MPIX_* function. */
static void test_no_functions_means_default_list(void)
{
    const char *texts[] = {"", "\n\n", "# only a comment\n", "output = x.h5\n"};
    for (size_t t = 0; t < 4; t++) {
        scope_config *cfg = PARSE_OK(texts[t]);
        if (!cfg)
            continue;
        CHECK_INT(cfg->n_entries, 2);
        CHECK_INT(cfg->entries_defaulted, 1);
        CHECK_INT(cfg->is_default, 0);
        for (size_t i = 0; i < 2 && i < cfg->n_entries; i++) {
            CHECK_STR(cfg->entries[i].pattern, i ? "MPIX_*" : "MPI_*");
            CHECK_INT(cfg->entries[i].is_glob, 1);
            CHECK_INT(cfg->entries[i].kind, SCOPE_KIND_MPI);
            CHECK_INT(cfg->entries[i].line, 0);
        }
        scope__config_free(cfg);
    }
}

/* NULL path: messages say <config>, path stays NULL. */
static void test_null_path(void)
{
    char err[256];
    scope_config *cfg = NULL;
    CHECK_INT(scope__config_parse("foo\n", NULL, &cfg, err, sizeof err), 0);
    if (cfg) {
        CHECK_STR(cfg->path, NULL);
        scope__config_free(cfg);
    }
    CHECK_INT(scope__config_parse("foo(\n", NULL, &cfg, err, sizeof err), SCOPE_ECONFIG);
    CHECK_STR(err, "<config>:1:4: unclosed '('");
    CHECK_INT(scope__config_parse(NULL, NULL, &cfg, err, sizeof err), SCOPE_EINVAL);
    CHECK_STR(err, "<config>:0:0: no config text");
    /* A small or zero-length message buffer is never overrun. */
    char small[8];
    CHECK_INT(scope__config_parse("foo(\n", "t.conf", &cfg, small, sizeof small), SCOPE_ECONFIG);
    CHECK_STR(small, "t.conf:");
    CHECK_INT(scope__config_parse("foo(\n", "t.conf", &cfg, NULL, 0), SCOPE_ECONFIG);
    scope__config_free(NULL);
}

int main(void)
{
    test_names_and_globs();
    test_text_is_kept();
    test_line_endings();
    test_byte_order_mark();
    test_no_functions_means_default_list();
    test_null_path();
    return check_result("test_config_simple");
}
