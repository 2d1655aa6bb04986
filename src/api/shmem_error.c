/*
 * The error mode and the messages (shmemx_set_error_mode,
 * shmemx_get_error_mode, shmemx_error_get, shmemx_error_clear,
 * shmemx_strerror): thin wrappers over the record and the texts that
 * src/base/log.c keeps for every layer.
 */
#include "api/api.h"

SHMEM_API const char *shmemx_strerror(int code)
{
    return shmemi_strerror(code);
}

SHMEM_API int shmemx_set_error_mode(int mode)
{
    if (mode != SHMEMX_ERRORS_ABORT && mode != SHMEMX_ERRORS_RETURN)
        return -1;
    return shmemi_err_mode_set(mode);
}

SHMEM_API int shmemx_get_error_mode(void)
{
    return shmemi_err_mode();
}

SHMEM_API int shmemx_error_get(char *msg, size_t len)
{
    const shmemi_errrec_t *rec = shmemi_err_last();

    if (msg && len) {
        strncpy(msg, rec->code ? rec->msg : "", len - 1);
        msg[len - 1] = '\0';
    }
    return rec->code;
}

SHMEM_API void shmemx_error_clear(void)
{
    shmemi_err_clear();
}
