/*
 * proc_self.h - reading this process's small /proc files (proc_self.c).
 */
#ifndef SCOPE_PROC_SELF_H
#define SCOPE_PROC_SELF_H

/* Reads a whole small /proc file (e.g. "/proc/self/cmdline"), NUL bytes
 * turned into spaces and trailing ones dropped. Returns a malloc'd string
 * the caller frees, or NULL when it cannot be opened or memory runs out.
 * Cost: one open and a few reads. */
char *scope__read_proc(const char *path);

/* The path of this process's executable (/proc/self/exe), read once: the
 * dl_iterate_phdr walks at every dlopen name the executable by it, and a
 * readlink there cost as much as the rest of a walk. "" when unreadable.
 * Stays valid across fork; exec starts a new process. Thread-safe. */
const char *scope__self_exe(void);

#endif /* SCOPE_PROC_SELF_H */
