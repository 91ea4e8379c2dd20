/*
 * cmd_run.c - `scope run [-c CONFIG] [-o OUTPUT] [-v] [--] COMMAND...`:
 * runs COMMAND with libscope_preload.so preloaded and the SCOPE_* variables
 * set, so that `scope run -- mpirun -n 4 ./app` is all a user types.
 *
 * What it sets for COMMAND (and everything COMMAND starts: on one node,
 * mpirun hands its own environment to the ranks, so no `-x` is needed;
 * across nodes, add `-x LD_PRELOAD -x SCOPE_CONFIG -x SCOPE_OUTPUT`):
 *   LD_PRELOAD     the absolute path of the preload, before any existing one
 *   SCOPE_CONFIG   the absolute path of -c CONFIG (when given)
 *   SCOPE_OUTPUT   the absolute path of the index file: -o, else an already
 *                  set SCOPE_OUTPUT, else the config's `output`, else
 *                  scope_profile.h5 in the working folder
 *   SCOPE_VERBOSE  1 with -v
 * With --openmp, LLVM's OpenMP runtime (libomp.so.5) is preloaded after the
 * profiler: it implements GCC's libgomp entry points (GOMP_*), so a
 * program GCC built runs its OpenMP on it, with the tool interface the
 * profiler records OpenMP through (libgomp has none; docs/openmp.md says
 * what this path does not deliver).
 *
 * Exit status: COMMAND's exit status. When COMMAND dies of a signal, scope
 * kills itself with the same signal (its own core dump disabled), so a
 * shell or batch system sees exactly what it would have seen without scope;
 * should that signal not end scope, the status is 128 + signal number.
 * 127: COMMAND not found, 126: not executable, 2: usage error.
 *
 * While COMMAND runs, scope ignores SIGINT and SIGQUIT (the terminal sends
 * them to COMMAND too, as system() does) and passes SIGTERM, SIGHUP, SIGUSR1
 * and SIGUSR2 on to it. When COMMAND has ended, scope waits for the
 * scope-h5write processes that outlived their ranks (SCOPE_FINALIZE_WAIT=0,
 * the default: a rank's MPI_Finalize does not wait for its file) and are
 * still writing, so that the profile is complete when scope returns even
 * if the launcher did not wait (a rank killed right after MPI_Finalize
 * makes Open MPI's mpirun return at once); SIGINT ends that wait. Afterwards one line on stderr says where the
 * profile is and how to summarise it; when there is none, a program in
 * the command that the loader never loads the preload into (static,
 * set-user-ID, not x86-64) is named with the reason.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <limits.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <dirent.h>
#include <sys/file.h>

#include "commands.h"
#include "journal.h"
#include "scope_config.h"
#include "scope_paths.h"
#include "settings.h"

extern char **environ;

#define PRELOAD_NAME "libscope_preload.so"

static const char usage[] =
    "usage: scope run [-c CONFIG] [-o OUTPUT] [-v] [--openmp[=LIBOMP]] [--] COMMAND [ARGS...]\n"
    "  Runs COMMAND (e.g. mpirun -n 4 ./app) under the profiler and passes its\n"
    "  exit status through.\n"
    "  -c, --config CONFIG  functions to time and settings (see scope check-config)\n"
    "  -o, --output OUTPUT  index file of the profile (default scope_profile.h5);\n"
    "                       rank files go to OUTPUT without .h5 + .ranks/\n"
    "  -v, --verbose        say what is set and what each process does\n"
    "  --openmp[=LIBOMP]    run a GCC-built program's OpenMP on LLVM's libomp (found\n"
    "                       in the library folders, or LIBOMP), whose regions,\n"
    "                       barriers and waits the profiler records; GCC's libgomp\n"
    "                       has no tool interface (docs/openmp.md)\n"
    "  -h, --help           this text\n"
    "  Environment: SCOPE_PRELOAD overrides the path of " PRELOAD_NAME ".\n";

/* The signals passed on to COMMAND while it runs. */
static const int forwarded[] = { SIGTERM, SIGHUP, SIGUSR1, SIGUSR2 };
static volatile sig_atomic_t child_pid;

static void forward_signal(int sig)
{
    if (child_pid > 0)
        kill((pid_t)child_pid, sig);
}

/* Writes the absolute form of `path` (which need not exist) into out.
 * Returns 0, or -1 when it does not fit. */
static int absolute(const char *path, char *out, size_t outlen)
{
    if (path[0] == '/')
        return snprintf(out, outlen, "%s", path) < (int)outlen ? 0 : -1;
    char cwd[PATH_MAX];
    if (!getcwd(cwd, sizeof cwd))
        return -1;
    return snprintf(out, outlen, "%s/%s", cwd, path) < (int)outlen ? 0 : -1;
}

/* Finds the preload: $SCOPE_PRELOAD, else next to this executable in the
 * build tree (<build>/tools/scope -> <build>/preload/), else the installed
 * library folder. Returns 0 with the canonical path in out, or -1. */
static int find_preload(char *out, size_t outlen)
{
    const char *env = scope__setting_text(SCOPE_SET_PRELOAD);
    if (env) {
        if (!realpath(env, out)) {
            fprintf(stderr, "scope run: SCOPE_PRELOAD=%s: %s\n", env, strerror(errno));
            return -1;
        }
        return 0;
    }
    char self[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0) {
        fprintf(stderr, "scope run: cannot find the scope executable: %s\n", strerror(errno));
        return -1;
    }
    self[n] = '\0';
    char *slash = strrchr(self, '/');
    if (slash)
        *slash = '\0';
    static const char *const rel[] = {
        "/../preload", "/../lib/x86_64-linux-gnu", "/../lib64", "/../lib", "",
    };
    char path[PATH_MAX + 64];
    for (size_t i = 0; i < sizeof rel / sizeof rel[0]; i++) {
        snprintf(path, sizeof path, "%s%s/" PRELOAD_NAME, self, rel[i]);
        if (access(path, R_OK) == 0 && realpath(path, out))
            return 0;
    }
#ifdef SCOPE_LIBDIR
    snprintf(path, sizeof path, "%s/" PRELOAD_NAME, SCOPE_LIBDIR);
    if (access(path, R_OK) == 0 && realpath(path, out))
        return 0;
#endif
    fprintf(stderr, "scope run: cannot find " PRELOAD_NAME " near %s (set SCOPE_PRELOAD)\n",
            self);
    (void)outlen;
    return -1;
}

/* LLVM's OpenMP runtime for --openmp: `given` when not NULL, else the
 * first libomp.so.5 (or libomp.so) of LD_LIBRARY_PATH's folders, the
 * system's library folders and LLVM's (/usr/lib/llvm-N/lib, newest
 * first). Returns 0 with its canonical path in out, or -1 (message
 * printed). */
static int find_libomp(const char *given, char *out)
{
    if (given) {
        if (!realpath(given, out)) {
            fprintf(stderr, "scope run: --openmp=%s: %s\n", given, strerror(errno));
            return -1;
        }
        return 0;
    }
    char dirs[4096] = "";
    const char *llp = getenv("LD_LIBRARY_PATH");
    snprintf(dirs, sizeof dirs, "%s%s/usr/lib/x86_64-linux-gnu:/usr/lib/aarch64-linux-gnu:"
             "/usr/lib64:/usr/lib:/usr/local/lib", llp ? llp : "", llp && *llp ? ":" : "");
    for (int v = 30; v >= 10; v--) {
        size_t n = strlen(dirs);
        snprintf(dirs + n, sizeof dirs - n, ":/usr/lib/llvm-%d/lib", v);
    }
    static const char *const names[] = { "libomp.so.5", "libomp.so" };
    char path[PATH_MAX + 32];
    for (const char *d = dirs; *d;) {
        size_t n = strcspn(d, ":");
        for (int k = 0; n && k < 2; k++) {
            snprintf(path, sizeof path, "%.*s/%s", (int)n, d, names[k]);
            if (access(path, R_OK) == 0 && realpath(path, out))
                return 0;
        }
        d += n + (d[n] == ':');
    }
    fprintf(stderr, "scope run: --openmp: LLVM's OpenMP runtime (libomp.so.5) not found in "
                    "the library folders; install it (Debian: libomp5-14) or name it: "
                    "--openmp=/path/to/libomp.so.5\n");
    return -1;
}

/* The output the preload will use, as the user would name it: -o, then
 * SCOPE_OUTPUT, then the config's `output` (a broken config is left for
 * the preload to report, once), then the default. */
static const char *choose_output(const char *opt_output, const char *config)
{
    static char from_config[PATH_MAX];
    if (opt_output)
        return opt_output;
    const char *env = scope__setting_text(SCOPE_SET_OUTPUT);
    if (env)
        return env;
    if (config) {
        scope_config *cfg = NULL;
        char err[512];
        if (scope__config_load(config, &cfg, err, sizeof err) == 0 && cfg->output)
            snprintf(from_config, sizeof from_config, "%s", cfg->output);
        scope__config_free(cfg);
        if (from_config[0])
            return from_config;
    }
    return scope__setting_def(SCOPE_SET_OUTPUT)->dflt;
}

/* Sets the variables COMMAND inherits. Returns 0 or -1 (message printed). */
static int set_environment(const char *preload, const char *libomp, const char *config,
                           const char *output, int verbose)
{
    const char *old = getenv("LD_PRELOAD");
    size_t len = strlen(preload) + (libomp ? strlen(libomp) + 1 : 0) + (old ? strlen(old) : 0) + 2;
    char *value = malloc(len);
    if (!value) {
        fprintf(stderr, "scope run: out of memory\n");
        return -1;
    }
    /* libomp after the profiler, before the rest: its GOMP_* and omp_*
     * are found before libgomp's */
    snprintf(value, len, "%s%s%s%s%s", preload, libomp ? ":" : "", libomp ? libomp : "",
             old && *old ? ":" : "", old && *old ? old : "");
    int rc = setenv("LD_PRELOAD", value, 1);
    free(value);
    if (rc == 0 && config)
        rc = setenv("SCOPE_CONFIG", config, 1);
    if (rc == 0)
        rc = setenv("SCOPE_OUTPUT", output, 1);
    if (rc == 0 && verbose)
        rc = setenv("SCOPE_VERBOSE", "1", 1);
    if (rc != 0) {
        fprintf(stderr, "scope run: cannot set the environment: %s\n", strerror(errno));
        return -1;
    }
    return 0;
}

/* Starts COMMAND with SIGINT/SIGQUIT at their defaults and an empty signal
 * mask. Returns its pid, or -1 with the exit status for "cannot run" in
 * *status (127 not found, 126 otherwise), message printed. */
static pid_t spawn_command(char **cmd, int *status)
{
    posix_spawnattr_t attr;
    sigset_t defaults, empty;
    pid_t pid = -1;
    posix_spawnattr_init(&attr);
    sigemptyset(&defaults);
    sigaddset(&defaults, SIGINT);
    sigaddset(&defaults, SIGQUIT);
    for (size_t i = 0; i < sizeof forwarded / sizeof forwarded[0]; i++)
        sigaddset(&defaults, forwarded[i]);
    sigemptyset(&empty);
    posix_spawnattr_setsigdefault(&attr, &defaults);
    posix_spawnattr_setsigmask(&attr, &empty);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);
    int rc = posix_spawnp(&pid, cmd[0], NULL, &attr, cmd, environ);
    posix_spawnattr_destroy(&attr);
    if (rc != 0) {
        fprintf(stderr, "scope run: cannot run '%s': %s\n", cmd[0], strerror(rc));
        *status = rc == ENOENT ? 127 : 126;
        return -1;
    }
    return pid;
}

/* Finds `word` as the shell would run it (a '/' in it: as is; else, for
 * the command's first word only, along PATH) into path. Returns 0 when it
 * names an existing regular file. */
static int locate(const char *word, int first, char *path, size_t len)
{
    struct stat st;
    if (strchr(word, '/'))
        return snprintf(path, len, "%s", word) < (int)len && stat(path, &st) == 0 &&
               S_ISREG(st.st_mode) ? 0 : -1;
    const char *dirs = getenv("PATH");
    if (!first || !dirs)
        return -1;
    for (const char *d = dirs; *d;) {
        size_t n = strcspn(d, ":");
        if (snprintf(path, len, "%.*s/%s", (int)n, n ? d : ".", word) < (int)len &&
            stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0)
            return 0;
        d += n + (d[n] == ':');
    }
    return -1;
}

/* Why the loader would never load the preload into the program at path,
 * or NULL: the cases where LD_PRELOAD is silently ignored, so that no
 * message of the profiler can say it. Reads the ELF header and program
 * headers with libelf (a few hundred bytes). */
static const char *preload_ignored(const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0)
        return NULL;
    /* secure mode (AT_SECURE): the set-ID bit changes who the program runs as */
    if (((st.st_mode & S_ISUID) && st.st_uid != geteuid()) ||
        ((st.st_mode & S_ISGID) && st.st_gid != getegid()))
        return "it is set-user-ID or set-group-ID: the loader ignores LD_PRELOAD for it";
    if (elf_version(EV_CURRENT) == EV_NONE)
        return NULL;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return NULL;
    Elf *e = elf_begin(fd, ELF_C_READ, NULL);
    GElf_Ehdr eh;
    size_t n_ph;
    const char *why = NULL;
    /* not ELF: a script, whose interpreter gets the preload */
    if (!e || elf_kind(e) != ELF_K_ELF || !gelf_getehdr(e, &eh) || elf_getphdrnum(e, &n_ph) != 0)
        goto done;
    if (gelf_getclass(e) != ELFCLASS64 || eh.e_machine != EM_X86_64) {
        why = "it is not an x86-64 program, and the profiler is built for x86-64";
        goto done;
    }
    if (eh.e_type != ET_EXEC && eh.e_type != ET_DYN)
        goto done;
    int interp = 0;
    for (size_t i = 0; i < n_ph && !interp; i++) {
        GElf_Phdr ph;
        interp = gelf_getphdr(e, (int)i, &ph) && ph.p_type == PT_INTERP;
    }
    if (!interp)
        why = "it is statically linked: no dynamic loader runs in it to load the profiler "
              "(link it dynamically)";
done:
    elf_end(e);
    close(fd);
    return why;
}

/* Prints where the profile is, or that none was written by this run, and
 * then any word of the command that names a program the preload cannot
 * enter: otherwise such a run ends with nothing written and no reason.
 * default_config: no config was named (-c or SCOPE_CONFIG), so only a
 * process that calls MPI_Init records: the likeliest reason of all for a
 * program without MPI, said with the remedy. */
static void print_pointer(const char *output, time_t started, char **cmd, int default_config)
{
    struct stat st;
    if (stat(output, &st) == 0 && st.st_mtime >= started) {
        fprintf(stderr, "scope: profile written to %s; summarise it with: scope summary %s\n",
                output, output);
        return;
    }
    fprintf(stderr, "scope: no profile was written to %s (see the messages above; "
                    "-v tells more)\n", output);
    if (default_config)
        fputs("scope: without a config, scope times MPI calls, and the I/O of processes that "
              "call MPI_Init: a program that never calls MPI_Init records nothing; name the "
              "functions to time in a config (scope run -c FILE; docs/config.md)\n", stderr);
    char path[PATH_MAX];
    for (int i = 0; cmd[i]; i++) {
        const char *why = locate(cmd[i], i == 0, path, sizeof path) == 0 ?
            preload_ignored(path) : NULL;
        if (why)
            fprintf(stderr, "scope: %s: %s\n", cmd[i], why);
    }
}

/* Waits for the writer of every journal of `dir` that is being written:
 * recording stopped (finalized, or a death) and its lock taken, which a
 * scope-h5write that outlived its rank holds until it ends (the rank's
 * lock, handed down). A journal still recording is a live process's, not
 * a writer's. Returns how many it waited for. */
static int wait_in(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    int waited = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (!scope_is_journal_name(e->d_name) || scope_is_tmp_name(e->d_name))
            continue;
        char path[PATH_MAX + 300];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        struct scope_journal_header h;
        if (fd < 0)
            continue;
        if (scope_journal_header_read(fd, &h) == 0 &&
            (h.state == SCOPE_JOURNAL_FINALIZED || h.state == SCOPE_JOURNAL_DIED) &&
            flock(fd, LOCK_SH | LOCK_NB) < 0 && errno == EWOULDBLOCK) {
            waited++;
            while (flock(fd, LOCK_SH) < 0 && errno == EINTR)
                ;
        }
        close(fd);
    }
    closedir(d);
    return waited;
}

/* Waits for the writers of the run's journals: in the ranks folder, and
 * in the folder this host's pointer names (journals kept on node-local
 * storage; another host's writers are its launcher daemon's to wait
 * for). */
static void wait_for_writers(const char *output, int verbose)
{
    char ranks[PATH_MAX], pointer[PATH_MAX + 300], host[256] = "", apart[PATH_MAX] = "";
    if (scope_ranks_dir_of(ranks, sizeof ranks, output) >= (int)sizeof ranks)
        return;
    gethostname(host, sizeof host - 1);
    if (scope_journal_pointer_path(pointer, sizeof pointer, ranks, host) < (int)sizeof pointer) {
        FILE *f = fopen(pointer, "r");
        if (f && fgets(apart, sizeof apart, f))
            apart[strcspn(apart, "\n")] = 0;
        if (f)
            fclose(f);
    }
    /* SIGINT (ignored while the command ran) ends the wait */
    signal(SIGINT, SIG_DFL);
    int n;
    while ((n = wait_in(ranks) + (apart[0] == '/' ? wait_in(apart) : 0)) > 0)
        if (verbose)
            fprintf(stderr, "scope run: waited for %d writer(s) of the profile\n", n);
}

/* Re-raises the signal that ended COMMAND on scope itself. Returns only if
 * the signal did not end scope: then the status is 128 + sig. */
static int die_like(int sig)
{
    struct rlimit no_core = { 0, 0 };
    setrlimit(RLIMIT_CORE, &no_core); /* the command's core is the useful one */
    signal(sig, SIG_DFL);
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, sig);
    sigprocmask(SIG_UNBLOCK, &set, NULL);
    raise(sig);
    return 128 + sig;
}

/* argv[0] is "run". Returns the exit status (see the top of the file). */
int scope_cmd_run(int argc, char **argv)
{
    const char *config = NULL, *opt_output = NULL, *libomp_given = NULL;
    int verbose = 0, openmp = 0, i;
    for (i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--") == 0) {
            i++;
            break;
        }
        if (a[0] != '-')
            break;
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            fputs(usage, stdout);
            return 0;
        } else if (strcmp(a, "-v") == 0 || strcmp(a, "--verbose") == 0) {
            verbose = 1;
        } else if (strcmp(a, "--openmp") == 0 || strncmp(a, "--openmp=", 9) == 0) {
            openmp = 1;
            libomp_given = a[8] == '=' ? a + 9 : NULL;
        } else if (strcmp(a, "-c") == 0 || strcmp(a, "--config") == 0 || strcmp(a, "-o") == 0
                   || strcmp(a, "--output") == 0) {
            if (i + 1 >= argc) {
                fprintf(stderr, "scope run: %s needs a value\n%s", a, usage);
                return 2;
            }
            if (a[1] == 'c' || a[2] == 'c')
                config = argv[++i];
            else
                opt_output = argv[++i];
        } else {
            fprintf(stderr, "scope run: unknown option '%s'\n%s", a, usage);
            return 2;
        }
    }
    if (i >= argc) {
        fputs(usage, stderr);
        return 2;
    }
    char **cmd = argv + i;

    char preload[PATH_MAX], config_abs[PATH_MAX], output[PATH_MAX], libomp[PATH_MAX];
    if (find_preload(preload, sizeof preload) < 0)
        return 1;
    if (openmp && find_libomp(libomp_given, libomp) < 0)
        return 1;
    if (config && absolute(config, config_abs, sizeof config_abs) < 0) {
        fprintf(stderr, "scope run: config path too long\n");
        return 2;
    }
    if (absolute(choose_output(opt_output, config), output, sizeof output) < 0) {
        fprintf(stderr, "scope run: output path too long\n");
        return 2;
    }
    if (set_environment(preload, openmp ? libomp : NULL, config ? config_abs : NULL, output,
                        verbose) < 0)
        return 1;
    if (verbose)
        fprintf(stderr, "scope run: LD_PRELOAD=%s%s%s%s%s SCOPE_OUTPUT=%s\n", preload,
                openmp ? ":" : "", openmp ? libomp : "", config ? " SCOPE_CONFIG=" : "",
                config ? config_abs : "", output);

    struct sigaction ign = { .sa_handler = SIG_IGN }, fwd = { .sa_handler = forward_signal };
    sigemptyset(&ign.sa_mask);
    sigemptyset(&fwd.sa_mask);
    fwd.sa_flags = SA_RESTART;
    sigaction(SIGINT, &ign, NULL);
    sigaction(SIGQUIT, &ign, NULL);
    for (size_t k = 0; k < sizeof forwarded / sizeof forwarded[0]; k++)
        sigaction(forwarded[k], &fwd, NULL);

    time_t started = time(NULL);
    int status = 0;
    pid_t pid = spawn_command(cmd, &status);
    if (pid < 0)
        return status;
    child_pid = pid;
    while (waitpid(pid, &status, 0) < 0) {
        if (errno != EINTR) {
            fprintf(stderr, "scope run: waitpid: %s\n", strerror(errno));
            return 1;
        }
    }
    child_pid = 0;
    wait_for_writers(output, verbose);
    print_pointer(output, started, cmd, !config && !scope__setting_text(SCOPE_SET_CONFIG));
    if (WIFEXITED(status))
        return WEXITSTATUS(status);
    if (WIFSIGNALED(status))
        return die_like(WTERMSIG(status));
    return 1;
}
