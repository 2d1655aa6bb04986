/*
 * Ordering: shmem_quiet, shmem_fence, shmem_pe_quiet and their ctx_ forms,
 * wrappers over the core (core/sync.h, src/core/sync.c).
 */
#include "api/api.h"

SHMEM_API void pshmem_quiet(void)
{
    shmemi_api_check(shmemi_ctx_quiet(SHMEM_CTX_DEFAULT, "shmem_quiet"));
}
SHMEMI_ALIAS(shmem_quiet)

SHMEM_API void pshmem_ctx_quiet(shmem_ctx_t ctx)
{
    shmemi_api_check(shmemi_ctx_quiet(ctx, "shmem_ctx_quiet"));
}
SHMEMI_ALIAS(shmem_ctx_quiet)

SHMEM_API void pshmem_fence(void)
{
    shmemi_api_check(shmemi_fence(SHMEM_CTX_DEFAULT, "shmem_fence"));
}
SHMEMI_ALIAS(shmem_fence)

SHMEM_API void pshmem_ctx_fence(shmem_ctx_t ctx)
{
    shmemi_api_check(shmemi_fence(ctx, "shmem_ctx_fence"));
}
SHMEMI_ALIAS(shmem_ctx_fence)

SHMEM_API void pshmem_pe_quiet(const int *target_pes, size_t npes)
{
    shmemi_api_check(shmemi_pe_quiet(SHMEM_CTX_DEFAULT, target_pes, npes, "shmem_pe_quiet"));
}
SHMEMI_ALIAS(shmem_pe_quiet)

SHMEM_API void pshmem_ctx_pe_quiet(shmem_ctx_t ctx, const int *target_pes, size_t npes)
{
    shmemi_api_check(shmemi_pe_quiet(ctx, target_pes, npes, "shmem_ctx_pe_quiet"));
}
SHMEMI_ALIAS(shmem_ctx_pe_quiet)
