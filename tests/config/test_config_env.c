/*
 * test_config_env.c - where a config comes from: SCOPE_* variables over
 * the file or the default (and their errors), loading files (unreadable,
 * a directory, a NUL byte), the built-in default and SCOPE_CONFIG.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "parse_check.h"
#include "settings.h"

static char dir[] = "/tmp/scope-config-test-XXXXXX";

/* A process reads its SCOPE_* variables once (base/settings.c): a test
 * that changes them asks for a new reading, as a new process would make. */
static void set_var(const char *name, const char *value, int overwrite)
{
    setenv(name, value, overwrite);
    scope__settings_reread();
}

static void unset_var(const char *name)
{
    unsetenv(name);
    scope__settings_reread();
}

static void clear_env(void)
{
    unset_var("SCOPE_OUTPUT");
    unset_var("SCOPE_MEMORY_BUDGET");
    unset_var("SCOPE_VERBOSE");
    unset_var("SCOPE_CONFIG");
}

/* Writes len bytes to dir/name; returns the path (static buffer per call site). */
static const char *write_file(char *path, size_t pathlen, const char *name, const char *data,
                              size_t len)
{
    snprintf(path, pathlen, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(data, 1, len, f) != len) {
        fprintf(stderr, "cannot write %s\n", path);
        check_failures++;
    }
    if (f)
        fclose(f);
    return path;
}

static void test_env_overrides_file(void)
{
    char err[256];
    clear_env();
    scope_config *cfg = PARSE_OK("output = f.h5\nmemory_budget = 1M\nverbose = 0\n");
    if (!cfg)
        return;
    set_var("SCOPE_OUTPUT", "/tmp/e.h5", 1);
    set_var("SCOPE_MEMORY_BUDGET", "2GiB", 1);
    set_var("SCOPE_VERBOSE", "1", 1);
    CHECK_INT(scope__config_apply_env(cfg, err, sizeof err), 0);
    CHECK_STR(err, "");
    CHECK_STR(cfg->output, "/tmp/e.h5");
    CHECK_INT(cfg->output_from.source, SCOPE_SRC_ENV);
    CHECK_STR(cfg->output_from.env, "SCOPE_OUTPUT");
    CHECK_INT(cfg->memory_budget, 2ull << 30);
    CHECK_INT(cfg->memory_budget_from.source, SCOPE_SRC_ENV);
    CHECK_STR(cfg->memory_budget_from.env, "SCOPE_MEMORY_BUDGET");
    CHECK_INT(cfg->verbose, 1);
    CHECK_STR(cfg->verbose_from.env, "SCOPE_VERBOSE");
    scope__config_free(cfg);

    /* Empty variables count as unset. */
    cfg = PARSE_OK("output = f.h5\n");
    if (!cfg)
        return;
    set_var("SCOPE_OUTPUT", "", 1);
    set_var("SCOPE_MEMORY_BUDGET", "", 1);
    set_var("SCOPE_VERBOSE", "", 1);
    CHECK_INT(scope__config_apply_env(cfg, err, sizeof err), 0);
    CHECK_STR(cfg->output, "f.h5");
    CHECK_INT(cfg->output_from.source, SCOPE_SRC_FILE);
    CHECK_INT(cfg->memory_budget, 64ull << 20);
    CHECK_INT(cfg->memory_budget_from.source, SCOPE_SRC_DEFAULT);
    scope__config_free(cfg);
    clear_env();
}

/* A malformed variable names itself and leaves cfg as it was. */
static void env_error_is(const char *var, const char *value, const char *want, int line)
{
    char err[256];
    clear_env();
    scope_config *cfg = parse_ok_("output = f.h5\n", __FILE__, line);
    if (!cfg)
        return;
    set_var("SCOPE_OUTPUT", "/tmp/never.h5", 1);
    set_var(var, value, 1);
    check_i64(scope__config_apply_env(cfg, err, sizeof err), SCOPE_ECONFIG, value, __FILE__, line);
    check_str(err, want, value, __FILE__, line);
    check_str(cfg->output, "f.h5", "output unchanged", __FILE__, line);
    check_i64((long long)cfg->memory_budget, 64ll << 20, "budget unchanged", __FILE__, line);
    scope__config_free(cfg);
    clear_env();
}

static void test_env_errors(void)
{
    env_error_is("SCOPE_MEMORY_BUDGET", "12X", "SCOPE_MEMORY_BUDGET: bad number '12X'", __LINE__);
    env_error_is("SCOPE_MEMORY_BUDGET", " 12", "SCOPE_MEMORY_BUDGET: bad number ' 12'", __LINE__);
    env_error_is("SCOPE_MEMORY_BUDGET", "99999999999999999999",
                 "SCOPE_MEMORY_BUDGET: number too large '99999999999999999999'", __LINE__);
    env_error_is("SCOPE_MEMORY_BUDGET", "0", "SCOPE_MEMORY_BUDGET: must be greater than 0, not '0'", __LINE__);
    env_error_is("SCOPE_VERBOSE", "2", "SCOPE_VERBOSE: must be 0 or 1, not '2'", __LINE__);
    env_error_is("SCOPE_VERBOSE", "yes", "SCOPE_VERBOSE: must be 0 or 1, not 'yes'", __LINE__);
}

static void test_load(void)
{
    char path[512], want[700], err[700];
    scope_config *cfg = (scope_config *)1;
    clear_env();

    write_file(path, sizeof path, "ok.conf", "# c\nMPI_Send\noutput = o.h5\n", 27);
    set_var("SCOPE_VERBOSE", "1", 1);
    CHECK_INT(scope__config_load(path, &cfg, err, sizeof err), 0);
    if (cfg) {
        CHECK_STR(cfg->path, path);
        CHECK_STR(cfg->text, "# c\nMPI_Send\noutput = o.h5\n");
        CHECK_INT(cfg->n_entries, 1);
        CHECK_STR(cfg->output, "o.h5");
        CHECK_INT(cfg->verbose, 1);     /* variables are applied by load */
        scope__config_free(cfg);
    }
    clear_env();

    /* Mistakes name the file. */
    write_file(path, sizeof path, "bad.conf", "MPI_Send\nfoo(\n", 14);
    snprintf(want, sizeof want, "%s:2:4: unclosed '('", path);
    CHECK_INT(scope__config_load(path, &cfg, err, sizeof err), SCOPE_ECONFIG);
    CHECK_INT(cfg == NULL, 1);
    CHECK_STR(err, want);

    /* A bad variable fails the load as a whole. */
    write_file(path, sizeof path, "ok.conf", "MPI_Send\n", 9);
    set_var("SCOPE_MEMORY_BUDGET", "1Q", 1);
    cfg = (scope_config *)1;
    CHECK_INT(scope__config_load(path, &cfg, err, sizeof err), SCOPE_ECONFIG);
    CHECK_INT(cfg == NULL, 1);
    CHECK_STR(err, "SCOPE_MEMORY_BUDGET: bad number '1Q'");
    clear_env();

    write_file(path, sizeof path, "nul.conf", "a\nbc\0d\n", 7);
    snprintf(want, sizeof want, "%s:2:3: NUL byte in the file", path);
    CHECK_INT(scope__config_load(path, &cfg, err, sizeof err), SCOPE_ECONFIG);
    CHECK_STR(err, want);

    snprintf(path, sizeof path, "%s/missing.conf", dir);
    snprintf(want, sizeof want, "%s:0:0: cannot read: No such file or directory", path);
    CHECK_INT(scope__config_load(path, &cfg, err, sizeof err), SCOPE_ENOENT);
    CHECK_INT(cfg == NULL, 1);
    CHECK_STR(err, want);

    snprintf(want, sizeof want, "%s:0:0: cannot read: Is a directory", dir);
    CHECK_INT(scope__config_load(dir, &cfg, err, sizeof err), SCOPE_EIO);
    CHECK_STR(err, want);

    /* Root reads anything, so the permission case only runs as a user. */
    if (geteuid() != 0) {
        write_file(path, sizeof path, "secret.conf", "a\n", 2);
        chmod(path, 0);
        snprintf(want, sizeof want, "%s:0:0: cannot read: Permission denied", path);
        CHECK_INT(scope__config_load(path, &cfg, err, sizeof err), SCOPE_EACCES);
        CHECK_STR(err, want);
    }

    /* Files longer than the first read, and empty files. */
    static char big[20001];     /* 2000 lines of 10 bytes, + snprintf's NUL */
    for (size_t i = 0; i < 20000; i += 10)
        snprintf(big + i, 11, "f%08zu\n", i / 10);
    write_file(path, sizeof path, "big.conf", big, 20000);
    CHECK_INT(scope__config_load(path, &cfg, err, sizeof err), 0);
    if (cfg) {
        CHECK_INT(cfg->n_entries, 2000);
        CHECK_STR(cfg->entries[1999].pattern, "f00001999");
        scope__config_free(cfg);
    }
    write_file(path, sizeof path, "empty.conf", "", 0);
    CHECK_INT(scope__config_load(path, &cfg, err, sizeof err), 0);
    if (cfg) {
        CHECK_INT(cfg->entries_defaulted, 1);
        CHECK_STR(cfg->text, "");
        scope__config_free(cfg);
    }
}

static void test_default(void)
{
    char err[256];
    scope_config *cfg = NULL;
    clear_env();
    CHECK_INT(scope__config_default(&cfg, err, sizeof err), 0);
    if (cfg) {
        CHECK_INT(cfg->is_default, 1);
        CHECK_STR(cfg->path, NULL);
        CHECK_STR(cfg->text, NULL);
        /* every MPI function and every MPI library's extension
         * (Open MPI 4.1's MPIX_Bcast_init & co) */
        CHECK_INT(cfg->n_entries, 2);
        for (size_t i = 0; i < 2 && i < cfg->n_entries; i++) {
            CHECK_STR(cfg->entries[i].pattern, i ? "MPIX_*" : "MPI_*");
            CHECK_INT(cfg->entries[i].is_glob, 1);
            CHECK_INT(cfg->entries[i].kind, SCOPE_KIND_MPI);
            CHECK_INT(cfg->entries[i].line, 0);
        }
        CHECK_STR(cfg->output, "scope_profile.h5");
        CHECK_INT(cfg->memory_budget, 64ull << 20);
        scope__config_free(cfg);
    }
    set_var("SCOPE_OUTPUT", "env.h5", 1);
    CHECK_INT(scope__config_default(&cfg, err, sizeof err), 0);
    if (cfg) {
        CHECK_STR(cfg->output, "env.h5");
        CHECK_INT(cfg->output_from.source, SCOPE_SRC_ENV);
        scope__config_free(cfg);
    }
    set_var("SCOPE_VERBOSE", "on", 1);
    cfg = (scope_config *)1;
    CHECK_INT(scope__config_default(&cfg, err, sizeof err), SCOPE_ECONFIG);
    CHECK_INT(cfg == NULL, 1);
    CHECK_STR(err, "SCOPE_VERBOSE: must be 0 or 1, not 'on'");
    clear_env();
}

static void test_from_env(void)
{
    char path[512], err[700];
    scope_config *cfg = NULL;
    clear_env();
    CHECK_INT(scope__config_from_env(&cfg, err, sizeof err), 0);
    if (cfg) {
        CHECK_INT(cfg->is_default, 1);
        scope__config_free(cfg);
    }
    set_var("SCOPE_CONFIG", "", 1);
    CHECK_INT(scope__config_from_env(&cfg, err, sizeof err), 0);
    if (cfg) {
        CHECK_INT(cfg->is_default, 1);
        scope__config_free(cfg);
    }
    write_file(path, sizeof path, "env.conf", "solve\n", 6);
    set_var("SCOPE_CONFIG", path, 1);
    CHECK_INT(scope__config_from_env(&cfg, err, sizeof err), 0);
    if (cfg) {
        CHECK_INT(cfg->is_default, 0);
        CHECK_STR(cfg->entries[0].pattern, "solve");
        scope__config_free(cfg);
    }
    set_var("SCOPE_CONFIG", "/nonexistent/scope.conf", 1);
    CHECK_INT(scope__config_from_env(&cfg, err, sizeof err), SCOPE_ENOENT);
    CHECK_STR(err, "/nonexistent/scope.conf:0:0: cannot read: No such file or directory");
    clear_env();
}

int main(void)
{
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    test_env_overrides_file();
    test_env_errors();
    test_load();
    test_default();
    test_from_env();
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        check_failures++;
    return check_result("test_config_env");
}
