/*
 * Streams: shmemx_stream_create, _destroy, _sync, _query, _offloaded and
 * shmemx_launch_on_stream, thin wrappers over src/stream (stream.h).
 * Their status is returned: create, sync and destroy print the message
 * in SHMEMX_ERRORS_ABORT mode (shmemi_api_status), launch leaves a
 * refused kernel to the next sync (shmemi_api_stream); a handle that is
 * not a stream, or a call before shmem_init, ends the job in that mode.
 */
#include "api/api.h"
#include "stream/stream.h"
#include "init/init.h"

SHMEM_API int shmemx_stream_create(shmemx_stream_t *stream)
{
    return shmemi_api_status(shmemi_stream_create(stream, "shmemx_stream_create"));
}

SHMEM_API int shmemx_stream_create_cuda(shmemx_stream_t *stream, void *cuda_stream)
{
    return shmemi_api_status(shmemi_stream_create_cuda(stream, cuda_stream,
                                                       "shmemx_stream_create_cuda"));
}

SHMEM_API int shmemx_stream_destroy(shmemx_stream_t stream)
{
    return shmemi_api_status(shmemi_stream_destroy(stream, "shmemx_stream_destroy"));
}

SHMEM_API int shmemx_stream_sync(shmemx_stream_t stream)
{
    int rc = shmemi_api_status(shmemi_stream_sync(stream, "shmemx_stream_sync"));
    return rc ? rc : shmemi_api_status(shmemi_devapi_check("shmemx_stream_sync"));
}

SHMEM_API int shmemx_stream_query(shmemx_stream_t stream)
{
    return shmemi_stream_query(stream);
}

SHMEM_API int shmemx_stream_offloaded(shmemx_stream_t stream)
{
    return shmemi_stream_offloaded(stream);
}

SHMEM_API int shmemx_launch_on_stream(shmemx_stream_t stream, void (*fn)(void *arg), void *arg)
{
    return shmemi_api_stream(shmemi_stream_launch(stream, fn, arg, "shmemx_launch_on_stream"));
}
