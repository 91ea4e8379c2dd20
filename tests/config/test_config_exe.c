/*
 * test_config_exe.c - which processes are targets: the built-in exclusion
 * of launchers and shells, include/exclude globs on the basename or the
 * path, and their order (exclude wins; a non-empty include list means only
 * those executables).
 */
#include "parse_check.h"

static void wants_(const char *text, const char *exe, int want, int line)
{
    scope_config *cfg = parse_ok_(text, __FILE__, line);
    if (!cfg)
        return;
    check_i64(scope__config_wants_exe(cfg, exe), want, exe ? exe : "(null)", __FILE__, line);
    scope__config_free(cfg);
}
#define WANTS(text, exe, want) wants_((text), (exe), (want), __LINE__)

static void test_builtin_exclusions(void)
{
    const char *no[] = {"/usr/bin/mpirun", "mpirun", "/usr/bin/mpirun.openmpi", "mpiexec",
                        "/usr/bin/mpiexec.hydra", "/usr/bin/orterun", "/usr/bin/orted",
                        "prted", "prterun", "hydra_pmi_proxy", "/usr/bin/srun", "/bin/bash",
                        "/bin/sh", "/usr/bin/dash", "zsh", "/usr/bin/env", "/usr/bin/ssh",
                        "timeout", "/usr/local/bin/scope"};
    for (size_t i = 0; i < sizeof no / sizeof no[0]; i++)
        WANTS("f\n", no[i], 0);
    const char *yes[] = {"./app", "/home/u/my_app", "/usr/bin/python3", "bashful", "mpirunner",
                         "/opt/sh/app", "a.out", "hostname"};
    for (size_t i = 0; i < sizeof yes / sizeof yes[0]; i++)
        WANTS("f\n", yes[i], 1);
    WANTS("f\n", NULL, 0);
    WANTS("f\n", "", 0);

    scope_config *cfg = NULL;
    char err[128];
    if (scope__config_default(&cfg, err, sizeof err) == 0) {
        CHECK_INT(scope__config_wants_exe(cfg, "/usr/bin/orted"), 0);
        CHECK_INT(scope__config_wants_exe(cfg, "/work/app"), 1);
        scope__config_free(cfg);
    }
}

static void test_exclude(void)
{
    WANTS("exclude = python3*\n", "/usr/bin/python3.11", 0);
    WANTS("exclude = python3*\n", "/usr/bin/python2", 1);
    WANTS("exclude = python3*\n", "/bin/bash", 0);          /* built-ins still apply */
    WANTS("exclude = /usr/bin/*\n", "/usr/bin/app", 0);
    WANTS("exclude = /usr/bin/*\n", "/usr/local/bin/app", 1);
    WANTS("exclude = /usr/*\n", "/usr/bin/app", 1);        /* '*' stops at '/' */
    WANTS("exclude = bin/app\n", "/usr/bin/app", 0);       /* a tail after '/' */
    WANTS("exclude = in/app\n", "/usr/bin/app", 1);        /* ...only whole parts */
}

static void test_include(void)
{
    const char *cfg = "include = ./my_app*\n";
    WANTS(cfg, "/home/u/my_app", 1);                        /* "./" is dropped */
    WANTS(cfg, "./my_app_v2", 1);
    WANTS(cfg, "/home/u/other", 0);                         /* only the included */
    WANTS("include = bash\n", "/bin/bash", 1);              /* include beats built-ins */
    WANTS("include = *\n", "/usr/bin/mpirun", 1);
    WANTS("include = a\ninclude = b\n", "/x/b", 1);
    WANTS("include = a\ninclude = b\n", "/x/c", 0);
    WANTS("include = /opt/*/app\n", "/opt/v1/app", 1);
    WANTS("include = /opt/*/app\n", "/srv/opt/v1/app", 0);  /* absolute: whole path only */
    WANTS("include = app\\*\n", "/x/app*", 1);              /* escapes reach fnmatch */
    WANTS("include = app\\*\n", "/x/appX", 0);
}

static void test_exclude_wins(void)
{
    WANTS("include = my_*\nexclude = my_tool\n", "/x/my_tool", 0);
    WANTS("include = my_*\nexclude = my_tool\n", "/x/my_app", 1);
    WANTS("exclude = my_app\ninclude = my_app\n", "my_app", 0);
}

int main(void)
{
    test_builtin_exclusions();
    test_exclude();
    test_include();
    test_exclude_wins();
    return check_result("test_config_exe");
}
