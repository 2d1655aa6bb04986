/*
 * fabshmem_info: what this installation of fabshmem is and sees.
 *
 * Prints the library, OpenSHMEM, libfabric and PMIx versions, the libfabric
 * providers with their capabilities, the GPUs (a CUDA build) and how GPU
 * memory reaches PEs that are not mapped, and the configuration table with the
 * values that the current environment gives.  `-c --markdown` prints
 * docs/env.md.  It links the core convenience library, because the
 * internals it uses are hidden in the shared library.
 */
#include "coll/coll.h"
#include "cuda/cuda.h"
#include <stdlib.h>
#ifdef HAVE_PMIX
#include <pmix.h>
#endif

static void info_usage(FILE *fp, const char *prog)
{
    fprintf(fp,
            "usage: %s [-c [-m]] [-h]\n"
            "Prints the fabshmem, OpenSHMEM, libfabric and PMIx versions, the libfabric\n"
            "providers with their capabilities, and every environment variable of\n"
            "fabshmem with its value, default and meaning.\n"
            "  -c, --config      print only the configuration table\n"
            "  -m, --markdown    print the configuration table as markdown (docs/env.md)\n"
            "  -h, --help        print this help\n", prog);
}

static void info_versions(void)
{
    printf("fabshmem %s (%d.%d.%d)\n", PACKAGE_VERSION, FABSHMEM_VERSION_MAJOR,
           FABSHMEM_VERSION_MINOR, FABSHMEM_VERSION_PATCH);
    printf("OpenSHMEM API:  %d.%d\n", SHMEM_MAJOR_VERSION, SHMEM_MINOR_VERSION);
    printf("libfabric:      %s (%s)\n", shmemt_ofi_version(), shmemt_ofi_library());
#ifdef HAVE_PMIX
    printf("PMIx:           %s\n", PMIx_Get_version());
#else
    printf("PMIx:           not built (only singleton jobs)\n");
#endif
}

/* Which way streams run with the configuration in effect: the provider
 * that init would pick (FABSHMEM_PROVIDER or the automatic choice) and
 * whether it has triggered operations.  SHMEM_INFO=1 prints what a job
 * found (a triggered queue may still fail to come up). */
static void info_streams(const shmemi_env_t *env)
{
    char prov[64];
    int trigger = 0, ret;

    ret = shmemt_ofi_choice(env->provider, prov, sizeof(prov), &trigger);
    if (ret) {
        printf("\nstreams: worker threads (no provider fits%s%s%s; jobs whose PEs are all "
               "mapped need none)\n", *env->provider ? " FABSHMEM_PROVIDER=\"" : "",
               env->provider, *env->provider ? "\"" : "");
        return;
    }
    printf("\nstreams with the %s provider (%s): ", prov,
           *env->provider ? "FABSHMEM_PROVIDER" : "automatic choice");
    if (env->stream_offload == SHMEMI_ENV_STREAM_OFFLOAD_OFF)
        printf("worker threads (FABSHMEM_STREAM_OFFLOAD=0)\n");
    else if (trigger)
        printf("offloaded as triggered operations (FI_TRIGGER) for PEs that are not mapped "
               "(FABSHMEM_STREAM_OFFLOAD=%s)\n",
               shmemi_env_choice_name(env->stream_offload));
    else if (env->stream_offload == SHMEMI_ENV_STREAM_OFFLOAD_ON)
        printf("none: the provider has no triggered operations and FABSHMEM_STREAM_OFFLOAD=1, "
               "so shmemx_stream_create fails\n");
    else
        printf("worker threads (the provider has no triggered operations; "
               "FABSHMEM_STREAM_OFFLOAD=%s)\n",
               shmemi_env_choice_name(env->stream_offload));
}

/* GPUs: what the build and the driver offer, and how GPU memory would
 * reach the PEs that do not map it with the provider init would pick. */
static void info_gpu(const shmemi_env_t *env)
{
    shmemt_ofi_cfg_t cfg = { .shm_hmem = (int)env->ofi_shm_hmem };
    char prov[64];
    int trigger = 0;
    const char *why;

    printf("\n");
    shmemi_cuda_describe(stdout);
    if (shmemt_ofi_choice(env->provider, prov, sizeof(prov), &trigger))
        return;
    printf("GPU memory of PEs that are not mapped, with the %s provider: ", prov);
    if (env->cuda_remote == SHMEMI_ENV_CUDA_REMOTE_STAGED)
        printf("staged through pinned host memory (FABSHMEM_CUDA_REMOTE=staged)\n");
    else if (!(why = shmemt_ofi_hmem(prov, &cfg)))
        printf("the provider, with the device heap registered (FI_HMEM), where libfabric was "
               "built with CUDA; else staged through pinned host memory\n");
    else
        printf("staged through pinned host memory (%s)%s\n", why,
               env->cuda_remote == SHMEMI_ENV_CUDA_REMOTE_HMEM ? "; FABSHMEM_CUDA_REMOTE=hmem makes "
                                                   "shmem_init fail" : "");
    printf("GPU kernels (device API) to PEs whose device heap is not mapped: %s\n",
           env->proxy == SHMEMI_ENV_PROXY_OFF ? "refused (FABSHMEM_PROXY=0)" : "through the "
           "proxy thread, which moves GPU memory as the line above says (docs/device.md, The "
           "proxy)");
}

int main(int argc, char **argv)
{
    int config_only = 0, markdown = 0, status = 0, i;
    shmemi_env_t env;
    char *no_env[] = { NULL };

    for (i = 1; i < argc; i++) {
        const char *a = argv[i];

        if (!strcmp(a, "-c") || !strcmp(a, "--config")) {
            config_only = 1;
        } else if (!strcmp(a, "-m") || !strcmp(a, "--markdown")) {
            markdown = 1;
        } else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            info_usage(stdout, argv[0]);
            return 0;
        } else {
            fprintf(stderr, "%s: unknown option '%s'\n", argv[0], a);
            info_usage(stderr, argv[0]);
            return 2;
        }
    }

    if (markdown) {
        /* The document shows the defaults, whatever the environment holds. */
        shmemi_env_print_doc(stdout, NULL, 1, shmemi_coll_env_doc);
        return 0;
    }

    /* The values in effect; a bad one is reported and the defaults shown. */
    if (shmemi_env_parse(NULL, &env)) {
        status = 1;
        if (shmemi_env_parse(no_env, &env))
            return 1;
    } else if (shmemi_coll_algo_init(&env)) {
        /* A collective algorithm that does not exist: shmem_init would
         * refuse it the same way. */
        fprintf(stderr, "%s\n", shmemi_err_last()->msg);
        status = 1;
    }
    if (!config_only) {
        info_versions();
        printf("\nlibfabric providers with RDM endpoints and RMA:\n");
        fflush(stdout);
        if (shmemt_ofi_list(stdout))
            status = 1;
        info_streams(&env);
        info_gpu(&env);
        printf("\n");
    }
    shmemi_env_print_doc(stdout, &env, 0, shmemi_coll_env_doc);
    return status;
}
