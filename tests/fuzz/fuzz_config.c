/*
 * fuzz_config.c - libFuzzer target: any text given to the config parser
 * (which runs inside the profiled application's constructor) gives a
 * config or a "file:line:col: problem" error, never a crash, a hang or a
 * leak; and what parses can be described (`scope check-config`).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "scope_config.h"

static void sink(void *ctx, const char *line)
{
    (void)ctx;
    (void)line;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = 0;
    char err[256];
    scope_config *cfg = NULL;
    if (scope__config_parse(text, "fuzz.conf", &cfg, err, sizeof err) == 0) {
        scope__config_describe(cfg, sink, NULL);
        scope__config_wants_exe(cfg, "/usr/bin/app");
        scope__config_free(cfg);
    } else if (strncmp(err, "fuzz.conf:", 10) != 0) {
        abort(); /* every error names file:line:col */
    }
    free(text);
    return 0;
}
