/*
 * death.c - what the recorder does when a signal is about to kill the
 * process: a best effort that never changes how the process dies.
 *
 * The journal is on disk all along, so nothing recorded is lost whatever
 * happens (`scope recover` converts it later). When a signal whose default
 * action ends the process arrives and the application has not installed
 * a handler of its own for it, the handler here:
 *   1. stops recording and marks the journal header: state DIED, which
 *      signal, and when (a calibration pair: the last recorded moment);
 *   2. starts scope-h5write on the journal (vfork + execve, both
 *      async-signal-safe) to write the rank file, and the index on rank 0,
 *      and waits for it a bounded time (SCOPE_DEATH_WAIT seconds, default
 *      10; a scheduler's SIGTERM usually leaves 30 s before SIGKILL);
 *   3. puts the previous disposition back and re-raises the signal, so the
 *      process dies of it exactly as it would have, core dump included
 *      (a fault re-executes the faulting instruction on return).
 * Everything the handler needs (paths, argument vector, environment) is
 * prepared beforehand by scope__death_arm(); the handler itself only does
 * plain stores and async-signal-safe system calls, and nothing in it can
 * wait without a bound. A handler the application installs later simply
 * replaces this one (gfortran's runtime does): the journal still holds
 * everything.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "death.h"
#include "writer_spawn.h"
#include "journal.h"
#include "settings.h"

static const int fatal_signals[] = { SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGXCPU, SIGUSR1,
                                     SIGUSR2, SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT };
#define NSIG_FATAL (int)(sizeof fatal_signals / sizeof *fatal_signals)

static struct {
    struct scope_journal_header *volatile hdr;
    volatile int *on;
    char exe[4096], journal[4200], rank_file[4300], index[4200];
    char *argv[16];  /* scope_writer_argv_size() of a rank request */
    char **envp;
    int wait_s;
    struct sigaction old[NSIG_FATAL];
    int installed;
    volatile sig_atomic_t dying;
} d;

static int slot_of(int sig)
{
    for (int i = 0; i < NSIG_FATAL; i++)
        if (fatal_signals[i] == sig)
            return i;
    return -1;
}

/* Starts the writer and waits for it at most d.wait_s seconds. */
static void write_profile_now(void)
{
    pid_t pid = vfork();
    if (pid == 0) {
        execve(d.exe, d.argv, d.envp);
        _exit(127);
    }
    if (pid < 0)
        return;
    struct timespec nap = { 0, 10 * 1000 * 1000 };
    for (int i = 0; i < d.wait_s * 100; i++) {
        int st;
        pid_t w = waitpid(pid, &st, WNOHANG);
        if (w == pid || (w < 0 && errno != EINTR))
            return;
        nanosleep(&nap, NULL);
    }
    /* out of time: the writer goes on as an orphan if nothing kills it */
}

/* SCOPE_DEATH_WAIT: seconds the dying rank waits for its writer (the
 * table's default, at most an hour). A malformed value is said once and
 * the default kept: the application must run on either way. */
static int death_wait(void)
{
    char then[32];
    snprintf(then, sizeof then, "using %s", scope__setting_def(SCOPE_SET_DEATH_WAIT)->dflt);
    scope__setting_say(SCOPE_SET_DEATH_WAIT, then);
    return (int)scope__setting_u(SCOPE_SET_DEATH_WAIT);
}

static void on_fatal(int sig, siginfo_t *si, void *uc)
{
    (void)uc;
    int saved_errno = errno;
    int i = slot_of(sig);
    struct scope_journal_header *h = d.hdr;
    if (!d.dying && h && d.on && *d.on) {
        d.dying = 1;
        *d.on = 0;
        scope__clock_pair(&h->end_ticks, &h->end_ns);
        h->died_signal = (uint32_t)sig;
        h->state = SCOPE_JOURNAL_DIED;
        if (d.exe[0])
            write_profile_now();
    }
    if (i >= 0)
        sigaction(sig, &d.old[i], NULL);
    /* A fault (si_code > 0) happens again when the handler returns, now
     * under the old disposition; a sent signal must be sent again. */
    if (!si || si->si_code <= 0 || sig == SIGABRT || sig == SIGTERM || sig == SIGINT ||
        sig == SIGHUP || sig == SIGQUIT || sig == SIGXCPU || sig == SIGUSR1 || sig == SIGUSR2)
        raise(sig);
    errno = saved_errno;
}

void scope__death_arm(struct scope_journal_header *hdr, volatile int *on, const char *writer,
                      const char *journal, const char *rank_file, const char *index)
{
    scope__setting_say(SCOPE_SET_SIGNALS, "using 1");
    if (scope__setting_u(SCOPE_SET_SIGNALS) == 0)
        return;
    /* the handler may run at any moment: hide the half-updated state */
    d.hdr = NULL;
    snprintf(d.exe, sizeof d.exe, "%s", writer ? writer : "");
    snprintf(d.journal, sizeof d.journal, "%s", journal);
    snprintf(d.rank_file, sizeof d.rank_file, "%s", rank_file);
    snprintf(d.index, sizeof d.index, "%s", index ? index : "");
    /* scope-h5write's command line (format/writer_args.c): the journal
     * incomplete, removed by the writer once the file is in place */
    struct scope_convert_request req = scope_request_rank(d.journal, d.rank_file,
                                                          index ? d.index : NULL, 0, NULL, 0);
    d.argv[0] = d.exe;
    if (scope_writer_encode(&req, 1, (const char **)d.argv, sizeof d.argv / sizeof *d.argv) < 0)
        d.exe[0] = 0; /* no writer then: the journal stays for recover */
    if (!d.envp)
        d.envp = scope__child_environment(); /* built once, outside any handler */
    if (!d.envp)
        d.exe[0] = 0; /* no writer then: the journal stays for recover */
    d.wait_s = death_wait();
    d.on = on;
    if (!d.installed) {
        d.installed = 1;
        struct sigaction sa = { 0 };
        sa.sa_sigaction = on_fatal;
        sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
        sigemptyset(&sa.sa_mask);
        for (int i = 0; i < NSIG_FATAL; i++) {
            struct sigaction cur;
            /* only where the signal would kill: the application's own
             * handlers and ignored signals are left as they are */
            if (sigaction(fatal_signals[i], NULL, &cur) == 0 &&
                !(cur.sa_flags & SA_SIGINFO) && cur.sa_handler == SIG_DFL)
                sigaction(fatal_signals[i], &sa, &d.old[i]);
        }
    }
    __atomic_store_n(&d.hdr, hdr, __ATOMIC_RELEASE);
}

void scope__death_disarm(void)
{
    __atomic_store_n(&d.hdr, NULL, __ATOMIC_RELEASE);
}
