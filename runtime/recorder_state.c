/*
 * recorder_state.c - the recorder's one state (recorder_state.h): the
 * hot flag, the struct every recorder file works on under the one lock,
 * and the per-thread depth of scope's own work (self_depth.h).
 *
 * Defined apart from the API (recorder.c) so that the files below it (the
 * hot path, the journal, the metadata records, the settings, the
 * calibration) reach the state without calling up into the file that
 * calls them.
 */
#include <pthread.h>

#include "recorder_state.h"

struct scope__rec_hot scope__hot;
struct scope__recorder scope__rec = {
    .lock = PTHREAD_MUTEX_INITIALIZER, .fd = -1, .rank = 0, .size = 1
};
__thread int scope__self_depth __attribute__((tls_model("initial-exec")));
