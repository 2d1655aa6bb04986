/*
 * fabshmem_info: what this installation of fabshmem is and sees.
 *
 * Prints the library, OpenSHMEM, libfabric and PMIx versions, the libfabric
 * providers with their capabilities, and the configuration table with the
 * values that the current environment gives.  `-c --markdown` prints
 * docs/env.md.  It links the core convenience library, because the
 * internals it uses are hidden in the shared library.
 */
#include "shmemi.h"
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
    printf("libfabric:      %s\n", shmemt_ofi_version());
#ifdef HAVE_PMIX
    printf("PMIx:           %s\n", PMIx_Get_version());
#else
    printf("PMIx:           not built (only singleton jobs)\n");
#endif
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
        shmemi_env_print(stdout, NULL, 1);
        return 0;
    }

    /* The values in effect; a bad one is reported and the defaults shown. */
    if (shmemi_env_parse(NULL, &env)) {
        status = 1;
        if (shmemi_env_parse(no_env, &env))
            return 1;
    }
    if (!config_only) {
        info_versions();
        printf("\nlibfabric providers with RDM endpoints and RMA:\n");
        fflush(stdout);
        if (shmemt_ofi_list(stdout))
            status = 1;
        /* Which way streams run with the configuration in effect. */
        printf("\nstreams: %s\n",
               !strcmp(env.stream_offload, "0")
                   ? "worker threads (FABSHMEM_STREAM_OFFLOAD=0)"
                   : !strcmp(env.stream_offload, "1")
                         ? "offloaded as triggered operations; shmemx_stream_create fails on "
                           "providers without \"trigger\" (FABSHMEM_STREAM_OFFLOAD=1)"
                         : "offloaded as triggered operations on providers marked \"trigger\" "
                           "above, else worker threads (FABSHMEM_STREAM_OFFLOAD=auto)");
        printf("\n");
    }
    shmemi_env_print(stdout, &env, 0);
    return status;
}
