/*
 * host_files.h - one file per host at MPI_Finalize (host_files.c): the
 * ranks of a host hand their journals to the host's leader, whose writer
 * puts them all into <output>.ranks/host-<hostname>.h5, and rank 0's index
 * links each /rank<N> there (docs/format.md "The files of a run").
 */
#ifndef SCOPE_HOST_FILES_H
#define SCOPE_HOST_FILES_H

/* Called on every rank after scope__clock_align_init: decides whether
 * this run writes host files (SCOPE_HOST_FILES: 1, 0, or auto = when the
 * run spans more than one host; it must be the same on every rank) and,
 * if so, gathers every rank's host name on rank 0 (one collective over
 * the private communicator), so that rank 0 can write the index without
 * waiting for any other rank at finalize. */
void scope__host_files_init(void);

/* 1 when this rank writes through its host's file at finalize. */
int scope__host_files_active(void);

/* Finalize for host files, instead of scope_finalize(): completes this
 * rank's journal, hands it to the host's leader (a gather over the host's
 * communicator: waits only for the ranks of this host), and on the leader
 * writes the host file (and on rank 0 the index); then every rank of the
 * host waits, asleep, for the leader's "done" (a broadcast), rather than
 * spinning in MPI_Finalize beside the writer. Returns 0 or a negative
 * SCOPE_E* (said once per job by the recorder). Cost on a non-leader:
 * closing its journal, two small messages and the wait; on the leader: one
 * writer process converting every journal of the host. */
int scope__host_files_finalize(void);

#endif
