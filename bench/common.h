/*
 * Shared helpers of the fabshmem microbenchmarks: option parsing, timing,
 * iteration calibration, medians and result validation.
 *
 * The benchmarks use only the standard OpenSHMEM 1.4/1.5 API, so the same
 * source builds against fabshmem and against any other OpenSHMEM (Open MPI's
 * oshcc in bench/compare.sh). PE 0 drives, PE 1 is the target, any further
 * PEs only take part in the barriers.
 *
 * Every result line is machine-readable: "name size value unit". Lines that
 * start with '#' are comments (configuration, library name, mapping).
 */
#ifndef BENCH_COMMON_H
#define BENCH_COMMON_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <shmem.h>

#include "median.h"

/* The options every benchmark understands; a zero field means "default". */
typedef struct bench_opts {
    long iters;          /* -n: most iterations (or windows) per repetition */
    size_t min_size;     /* -m: smallest message size */
    size_t max_size;     /* -s: largest message size */
    int reps;            /* -r: timed repetitions, the median is reported */
    double budget_ms;    /* -t: target time of one repetition in ms */
    int window;          /* -w: operations per window (bandwidth, rate) */
    int flag;            /* -b: benchmark-specific switch */
    const char *name;    /* program name for the messages */
} bench_opts_t;

static inline double bench_now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Parses "64", "64K", "4M" or "1G" (binary multiples) into *size_p. */
static inline int bench_parse_size(const char *s, size_t *size_p)
{
    char *end;
    unsigned long long v;

    errno = 0;
    v = strtoull(s, &end, 10);
    if (errno != 0 || end == s)
        return -EINVAL;
    switch (*end) {
    case 'k': case 'K': v <<= 10; end++; break;
    case 'm': case 'M': v <<= 20; end++; break;
    case 'g': case 'G': v <<= 30; end++; break;
    default: break;
    }
    if (*end == 'i' || *end == 'B' || *end == 'b')
        end++;
    if (*end == 'B')
        end++;
    if (*end != '\0')
        return -EINVAL;
    *size_p = (size_t)v;
    return 0;
}

static inline void bench_usage(const bench_opts_t *o, const char *extra)
{
    fprintf(stderr,
            "usage: %s [-n iters] [-m min_size] [-s max_size] [-r reps] [-t ms] [-w window]%s\n"
            "  -n  most iterations per repetition (calibrated down to -t)\n"
            "  -m  smallest size, -s largest size (suffix K, M)\n"
            "  -r  repetitions, the median is reported (default %d)\n"
            "  -t  target duration of one repetition in ms (default %.0f)\n"
            "  -w  operations per window for bandwidth and rate (default %d)\n",
            o->name, extra ? extra : "", o->reps, o->budget_ms, o->window);
}

/*
 * Fills *o from argv over the defaults already in *o. Returns 0, or -EINVAL
 * after printing the usage. Called before shmem_init so every PE agrees.
 */
static inline int bench_parse(int argc, char **argv, bench_opts_t *o, const char *extra)
{
    int c;

    o->name = argv[0];
    opterr = 0;
    while ((c = getopt(argc, argv, "n:m:s:r:t:w:bh")) != -1) {
        switch (c) {
        case 'n': o->iters = strtol(optarg, NULL, 10); break;
        case 'm':
            if (bench_parse_size(optarg, &o->min_size) != 0)
                goto err_usage;
            break;
        case 's':
            if (bench_parse_size(optarg, &o->max_size) != 0)
                goto err_usage;
            break;
        case 'r': o->reps = atoi(optarg); break;
        case 't': o->budget_ms = strtod(optarg, NULL); break;
        case 'w': o->window = atoi(optarg); break;
        case 'b': o->flag = 1; break;
        default: goto err_usage;
        }
    }
    if (o->iters < 1 || o->reps < 1 || o->window < 1 || o->budget_ms <= 0 ||
        o->min_size < 1 || o->max_size < o->min_size)
        goto err_usage;
    return 0;

err_usage:
    bench_usage(o, extra);
    return -EINVAL;
}

/*
 * Chooses the iteration count of one repetition from the duration of one
 * operation measured in the warm-up: enough to fill the time budget, at most
 * the -n ceiling, at least a few.
 */
static inline long bench_calibrate(const bench_opts_t *o, double sec_per_op)
{
    double want = o->budget_ms * 1e-3 / (sec_per_op > 1e-9 ? sec_per_op : 1e-9);
    long n = want > (double)o->iters ? o->iters : (long)want;

    if (n < 3)
        n = 3;
    if (n > o->iters)
        n = o->iters;
    return n;
}

/* The most repetitions one measurement keeps. */
#define BENCH_MAX_REPS 101

/*
 * Runs body n times back to back and returns the elapsed seconds. The body
 * sees the iteration number as bench_i.
 */
#define BENCH_TIME(n_, ...)                                              \
    __extension__({                                                      \
        long bench_n_ = (n_);                                            \
        double bench_t0_ = bench_now();                                  \
        for (long bench_i = 0; bench_i < bench_n_; bench_i++) {          \
            __VA_ARGS__;                                                 \
        }                                                                \
        bench_now() - bench_t0_;                                         \
    })

/*
 * Measures body: warms up in doubling batches for a quarter of the budget
 * (which also calibrates the iteration count), then times o->reps
 * repetitions and returns the median seconds per execution of body.
 */
#define BENCH_MEASURE(o_, ...)                                           \
    __extension__({                                                      \
        double bench_times_[BENCH_MAX_REPS];                             \
        long bench_batch_ = 1, bench_done_ = 0, bench_iters_;            \
        double bench_warm_ = 0.0;                                        \
        int bench_reps_ = (o_)->reps < BENCH_MAX_REPS ? (o_)->reps : BENCH_MAX_REPS; \
        while (bench_done_ < (o_)->iters &&                              \
               bench_warm_ < (o_)->budget_ms * 0.25e-3) {                \
            bench_warm_ += BENCH_TIME(bench_batch_, __VA_ARGS__);        \
            bench_done_ += bench_batch_;                                 \
            bench_batch_ *= 2;                                           \
        }                                                                \
        bench_iters_ = bench_calibrate((o_), bench_warm_ / (double)bench_done_); \
        for (int bench_r_ = 0; bench_r_ < bench_reps_; bench_r_++)       \
            bench_times_[bench_r_] = BENCH_TIME(bench_iters_, __VA_ARGS__) / \
                                     (double)bench_iters_;               \
        bench_median(bench_times_, bench_reps_);                         \
    })

/* Stops the whole job loudly: a broken library must not pass silently. */
#define BENCH_FAIL(...)                                                  \
    do {                                                                 \
        fprintf(stderr, "FAIL (PE %d): ", shmem_my_pe());                \
        fprintf(stderr, __VA_ARGS__);                                    \
        fprintf(stderr, "\n");                                           \
        fflush(stderr);                                                  \
        shmem_global_exit(2);                                            \
        exit(2);                                                         \
    } while (0)

/* The byte pattern of message size, so each size checks fresh data. */
static inline unsigned char bench_pattern(size_t size, size_t i)
{
    unsigned int k = 0;

    while ((size >> k) > 1)
        k++;
    return (unsigned char)(((i * 131u) + k * 17u + 1u) & 0xff);
}

static inline void bench_fill(void *buf, size_t size)
{
    unsigned char *p = buf;

    for (size_t i = 0; i < size; i++)
        p[i] = bench_pattern(size, i);
}

/* Returns the first index of buf that does not hold the pattern of size, or size. */
static inline size_t bench_check(const void *buf, size_t size)
{
    const unsigned char *p = buf;

    for (size_t i = 0; i < size; i++)
        if (p[i] != bench_pattern(size, i))
            return i;
    return size;
}

/*
 * Starts the job and prints the header. Returns the target PE (1) on PE 0
 * and PE 1, and requires at least two PEs.
 */
static inline int bench_start(const char *title, const bench_opts_t *o)
{
    int me, npes;

    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    if (npes < 2) {
        if (me == 0)
            fprintf(stderr, "%s: needs at least 2 PEs (got %d)\n", o->name, npes);
        shmem_finalize();
        exit(1);
    }
    if (me == 0) {
        char libname[SHMEM_MAX_NAME_LEN + 1] = "";
        int major = 0, minor = 0;

        shmem_info_get_name(libname);
        shmem_info_get_version(&major, &minor);
        printf("# %s\n# library: %s (OpenSHMEM %d.%d), %d PEs, PE 0 -> PE 1\n",
               title, libname, major, minor, npes);
        printf("# reps %d (median), budget %.1f ms/rep, max iters %ld, window %d\n",
               o->reps, o->budget_ms, o->iters, o->window);
        fflush(stdout);
    }
    return 1;
}

/* Reports on PE 0 whether the target's symmetric heap is load/store mapped. */
/* The two symmetric buffers of the size sweeps (max_size bytes each,
 * zeroed); ends the job when the heap is too small. */
static inline void bench_alloc_pair(const bench_opts_t *o, unsigned char **dst_p,
                                    unsigned char **src_p)
{
    unsigned char *dst = shmem_malloc(o->max_size), *src = shmem_malloc(o->max_size);

    if (dst == NULL || src == NULL)
        BENCH_FAIL("shmem_malloc of %zu bytes failed", o->max_size);
    memset(dst, 0, o->max_size);
    memset(src, 0, o->max_size);
    *dst_p = dst;
    *src_p = src;
}

static inline void bench_report_mapping(void *sym, int target)
{
    if (shmem_my_pe() == 0) {
        printf("# shmem_ptr to PE %d: %s\n", target,
               shmem_ptr(sym, target) != NULL ? "mapped" : "not mapped");
        fflush(stdout);
    }
}

static inline void bench_result(const char *name, size_t size, double value, const char *unit)
{
    printf("%s %zu %.4g %s\n", name, size, value, unit);
    fflush(stdout);
}

/* Ends the job; exit status 0 only if every check passed. */
static inline int bench_finish(void)
{
    shmem_barrier_all();
    shmem_finalize();
    return 0;
}

#endif /* BENCH_COMMON_H */
