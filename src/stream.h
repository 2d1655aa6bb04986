/*
 * Collectives on streams: the stream engine (stream.c) runs a call with
 * its arguments in stream order; stream_coll.c defines the typed
 * *_on_stream collectives on top.
 */
#ifndef SHMEMI_STREAM_H
#define SHMEMI_STREAM_H

#include "coll.h"

struct shmemi_stream_coll {
    shmem_team_t team;
    void *dest;
    const void *src;
    size_t nelems;
    int root;
    const char *rtn;
};

/* Enqueues call(args) on stream (args are copied); a team that is invalid
 * or of which this PE is not a member is refused (see shmemx_stream_sync). */
void shmemi_stream_call(shmemx_stream_t stream, const char *rtn,
                        void (*call)(const struct shmemi_stream_coll *),
                        const struct shmemi_stream_coll *args);

#endif
