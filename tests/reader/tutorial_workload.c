/*
 * tutorial_workload.c - the analysis tutorial's workload, recorded with our
 * recorder instead of scope-profiler's ProfileManager: setup (10 ms), six
 * timesteps each holding assemble (2 ms) and solve (2 + step ms), and a
 * checkpoint (4 ms) after steps 2 and 5. 21 calls in 5 regions. The
 * profile it writes is what test_workload.c, the tool tests and the Python
 * tests check the tutorial's structure against.
 *
 * usage: tutorial_workload OUTPUT.h5
 */
#include <stdio.h>
#include <time.h>

#include "scope.h"

static void sleep_ms(int ms)
{
    struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };
    while (nanosleep(&ts, &ts) != 0)
        ;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s OUTPUT.h5\n", argv[0]);
        return 2;
    }
    scope_options o = { .output = argv[1] };
    if (scope_init(&o) < 0)
        return 1;
    int32_t setup = scope_region("setup"), timestep = scope_region("timestep"),
            assemble = scope_region("assemble"), solve = scope_region("solve"),
            checkpoint = scope_region("checkpoint");
    scope_begin(setup);
    sleep_ms(10);
    scope_end(setup);
    for (int step = 0; step < 6; step++) {
        scope_begin(timestep);
        scope_begin(assemble);
        sleep_ms(2);
        scope_end(assemble);
        scope_begin(solve);
        sleep_ms(2 + step);
        scope_end(solve);
        scope_end(timestep);
        if (step % 3 == 2) {
            scope_begin(checkpoint);
            sleep_ms(4);
            scope_end(checkpoint);
        }
    }
    int rc = scope_finalize();
    if (rc < 0) {
        fprintf(stderr, "tutorial_workload: %s\n", scope_strerror(rc));
        return 1;
    }
    return 0;
}
