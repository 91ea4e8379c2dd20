/*
 * settings_table.c - the table of scope's settings as data: one row per
 * SCOPE_* variable or config-file key (settings.h says what each field
 * means). A new setting is a new row here and a line of docs/config.md;
 * tests/config/check_settings_docs.py fails until both agree.
 *
 * Data only, so that every folder may link it (base/ is the bottom
 * floor); the parser and the reading of the environment are settings.c.
 */
#include <string.h>

#include "settings.h"

static const scope_setting table[SCOPE_SET_COUNT] = {
    [SCOPE_SET_CONFIG] = {
        .var = "SCOPE_CONFIG", .type = SCOPE_SETTING_PATH,
        .unset = "the built-in default", .read_by = "preload",
        .doc = "path of the config file" },
    [SCOPE_SET_OUTPUT] = {
        .var = "SCOPE_OUTPUT", .key = "output", .type = SCOPE_SETTING_PATH,
        .dflt = "scope_profile.h5", .read_by = "recorder",
        .doc = "path of the index file (relative paths are relative to the working folder "
               "of each process)" },
    [SCOPE_SET_JOURNAL_DIR] = {
        .var = "SCOPE_JOURNAL_DIR", .key = "journal_dir", .type = SCOPE_SETTING_PATH,
        .unset = "the ranks folder", .read_by = "recorder",
        .doc = "absolute path of an existing, writable folder where the journals live while "
               "the run goes" },
    [SCOPE_SET_MEMORY_BUDGET] = {
        .var = "SCOPE_MEMORY_BUDGET", .key = "memory_budget", .type = SCOPE_SETTING_SIZE,
        .min = 1, .dflt = "64M", .read_by = "recorder",
        .doc = "memory the recorder of one process may map for its journal" },
    [SCOPE_SET_INCLUDE] = {
        .key = "include", .type = SCOPE_SETTING_GLOB, .unset = "none", .read_by = "preload",
        .doc = "a glob on executables to profile; repeatable" },
    [SCOPE_SET_EXCLUDE] = {
        .key = "exclude", .type = SCOPE_SETTING_GLOB, .unset = "none", .read_by = "preload",
        .doc = "a glob on executables never profiled; repeatable" },
    [SCOPE_SET_CALLSITES] = {
        .key = "callsites", .type = SCOPE_SETTING_COUNT, .min = 0, .max = 16, .dflt = "0",
        .read_by = "preload", .doc = "default call-site depth of entries, 0 (off) to 16" },
    [SCOPE_SET_VERBOSE] = {
        .var = "SCOPE_VERBOSE", .key = "verbose", .type = SCOPE_SETTING_FLAG, .dflt = "0",
        .read_by = "preload", .doc = "1: the preload says what it does on standard error" },
    [SCOPE_SET_HOST_FILES] = {
        .var = "SCOPE_HOST_FILES", .type = SCOPE_SETTING_WORD, .words = "0|1|auto",
        .dflt = "auto", .read_by = "preload and recorder",
        .doc = "1: one file per host; 0: one file per rank; auto: host files when the run "
               "spans more than one host" },
    [SCOPE_SET_CLOCK] = {
        .var = "SCOPE_CLOCK", .type = SCOPE_SETTING_WORD,
        .words = "counter|monotonic|tsc|cntvct",
        .unset = "the counter when it can be trusted, else CLOCK_MONOTONIC",
        .read_by = "recorder", .doc = "forces the recorder's clock" },
    [SCOPE_SET_TRAMPOLINE] = {
        .var = "SCOPE_TRAMPOLINE", .type = SCOPE_SETTING_WORD, .words = "call|redirect",
        .dflt = "call", .read_by = "preload",
        .doc = "how a patched function's return is caught" },
    [SCOPE_SET_CLOCK_ROUND_NS] = {
        .var = "SCOPE_CLOCK_ROUND_NS", .type = SCOPE_SETTING_DURATION, .unit = "ns",
        .min = 1, .max = 1000000000000LL, .unset = "timestamps are not rounded",
        .read_by = "recorder",
        .doc = "for tests: every timestamp rounded down to a multiple of N ns" },
    [SCOPE_SET_READER_JOBS] = {
        .var = "SCOPE_READER_JOBS", .type = SCOPE_SETTING_COUNT, .min = 1,
        .max = 1000000, .unset = "one per CPU, at most 16, with 64 or more ranks",
        .read_by = "reader",
        .doc = "how many processes read the rank groups of a large profile (above 64: 64); "
               "with 2 or more, a second thread makes the pages of large event columns "
               "present while they are filled" },
    [SCOPE_SET_MPI_DATA] = {
        .var = "SCOPE_MPI_DATA", .type = SCOPE_SETTING_FLAG, .dflt = "1",
        .read_by = "preload", .doc = "0: MPI calls are timed without reading their arguments" },
    [SCOPE_SET_DEATH_WAIT] = {
        .var = "SCOPE_DEATH_WAIT", .type = SCOPE_SETTING_DURATION, .unit = "s", .min = 0,
        .max = 3600, .dflt = "10", .read_by = "recorder",
        .doc = "seconds a dying rank waits for its scope-h5write" },
    [SCOPE_SET_H5WRITER] = {
        .var = "SCOPE_H5WRITER", .type = SCOPE_SETTING_PATH,
        .unset = "found beside the recorder's library", .read_by = "recorder",
        .doc = "path of the scope-h5write executable" },
    [SCOPE_SET_OPEN_TIMEOUT] = {
        .var = "SCOPE_OPEN_TIMEOUT", .type = SCOPE_SETTING_DURATION, .unit = "s", .min = 0,
        .max = 86400, .dflt = "120", .read_by = "scope tool",
        .doc = "seconds libhdf5 may take to open a profile; 0 waits for ever" },
    [SCOPE_SET_PRELOAD] = {
        .var = "SCOPE_PRELOAD", .type = SCOPE_SETTING_PATH,
        .unset = "found beside the scope executable", .read_by = "scope tool",
        .doc = "path of libscope_preload.so for scope run" },
    [SCOPE_SET_SIGNALS] = {
        .var = "SCOPE_SIGNALS", .type = SCOPE_SETTING_FLAG, .dflt = "1",
        .read_by = "recorder",
        .doc = "0: no handler for fatal signals (a dying rank leaves its journal)" },
    [SCOPE_SET_CLOCK_DRIFT_PPM] = {
        .var = "SCOPE_CLOCK_DRIFT_PPM", .type = SCOPE_SETTING_INTEGER, .min = -100000,
        .max = 100000, .dflt = "0", .read_by = "recorder",
        .doc = "for tests: the recorder's clock runs fast (or slow) by N parts per million" },
    [SCOPE_SET_CLOCK_FANOUT] = {
        .var = "SCOPE_CLOCK_FANOUT", .type = SCOPE_SETTING_COUNT, .min = 1, .max = 64,
        .dflt = "16", .read_by = "preload",
        .doc = "for tests: fan-out of the host leaders' clock-alignment tree" },
    [SCOPE_SET_IO] = {
        .var = "SCOPE_IO", .key = "io", .type = SCOPE_SETTING_WORD, .words = "0|1|off|on",
        .dflt = "on", .read_by = "preload",
        .doc = "off: no I/O call is recorded (POSIX, stdio, MPI-IO, HDF5)" },
    [SCOPE_SET_IO_EXCLUDE] = {
        .var = "SCOPE_IO_EXCLUDE", .key = "io_exclude", .type = SCOPE_SETTING_PATH,
        .dflt = "/proc,/sys,/dev,/etc,/usr,/lib,/lib32,/lib64,/bin,/sbin,/boot,/run,/opt",
        .read_by = "preload",
        .doc = "comma-separated folders whose files' I/O is not recorded; none: every "
               "folder's" },
    [SCOPE_SET_IO_FILES] = {
        .var = "SCOPE_IO_FILES", .key = "io_files", .type = SCOPE_SETTING_COUNT, .min = 16,
        .max = 4194304, .dflt = "4096", .read_by = "preload",
        .doc = "files one process keeps apart; the calls on files past them count "
               "together" },
    [SCOPE_SET_FINALIZE_WAIT] = {
        .var = "SCOPE_FINALIZE_WAIT", .type = SCOPE_SETTING_FLAG, .dflt = "0",
        .read_by = "recorder",
        .doc = "1: a rank's MPI_Finalize returns once its file is written" },
};

const scope_setting *scope__setting_def(int id)
{
    return &table[id];
}

int scope__setting_by_var(const char *var)
{
    for (int i = 0; i < SCOPE_SET_COUNT; i++)
        if (table[i].var && strcmp(table[i].var, var) == 0)
            return i;
    return -1;
}

int scope__setting_by_key(const char *s, size_t n)
{
    for (int i = 0; i < SCOPE_SET_COUNT; i++)
        if (table[i].key && strlen(table[i].key) == n && memcmp(table[i].key, s, n) == 0)
            return i;
    return -1;
}
