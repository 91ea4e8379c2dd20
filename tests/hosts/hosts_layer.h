/* hosts_layer.h - what hosts_messages.c asks of hosts_layer.c. */
#ifndef HOSTS_LAYER_H
#define HOSTS_LAYER_H
#include <mpi.h>
/* The ANY_SOURCE/ANY_TAG receive posted inside MPI_Init, and its buffer. */
MPI_Request *hosts_layer_init_request(long long **buf);
/* Posts the receive that MPI_Finalize checks. */
void hosts_layer_watch_finalize(void);
#endif
