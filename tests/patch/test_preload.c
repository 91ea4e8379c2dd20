/*
 * test_preload.c - a test-only LD_PRELOAD agent: the engine, the recorder
 * and the config parser, with just enough of a constructor to use them.
 * It stands in for libscope_preload.so until the real preload carries the
 * engine; the tests only depend on the environment it reads (SCOPE_CONFIG,
 * SCOPE_OUTPUT, SCOPE_VERBOSE), so they switch to the real one unchanged.
 */
#include <stdio.h>
#include <unistd.h>

#include "interpose.h"
#include "scope_config.h"
#include "scope_internal.h"

static scope_config *cfg;

__attribute__((constructor)) static void test_preload_init(void)
{
    char err[512];
    if (scope__config_from_env(&cfg, err, sizeof err) < 0) {
        fprintf(stderr, "scope: %s\n", err);
        return;
    }
    char exe[4096];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0)
        return;
    exe[n] = 0;
    if (!scope__config_wants_exe(cfg, exe))
        return;
    scope_options o = { .output = cfg->output, .memory_budget = cfg->memory_budget,
                        .config_text = cfg->text };
    if (scope_init(&o) < 0)
        return;
    int rc = scope__interpose_apply(cfg);
    if (rc < 0)
        fprintf(stderr, "scope: interposition engine: %s\n", scope_strerror(rc));
}
