/*
 * The C side of the Python binding (fabshmem.core._lib): the dtype
 * dispatch tables of the typed routines, the predefined teams by number,
 * and the DLPack structures.  Included once, by the Cython module.
 *
 * The binding names a NumPy/torch element type by a small index
 * (FABPY_INT8 ... FABPY_COMPLEXD); the tables give, for an index and an
 * operation, a wrapper with untyped pointers around the typed C routine
 * (shmem_int32_sum_reduce, shmem_uint64_atomic_fetch_add, ...), or NULL
 * where the C API has no routine for the pair.  The wrappers are one
 * line each, generated from the type lists below, so that every call goes
 * through a prototype the compiler checks.
 */
#ifndef FABPY_H
#define FABPY_H

#include <dlfcn.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <shmem.h>
#include <shmemx.h>

/* ---- element types ---- */
enum {
    FABPY_INT8, FABPY_INT16, FABPY_INT32, FABPY_INT64,
    FABPY_UINT8, FABPY_UINT16, FABPY_UINT32, FABPY_UINT64,
    FABPY_FLOAT, FABPY_DOUBLE, FABPY_LONGDOUBLE,
    FABPY_COMPLEXF, FABPY_COMPLEXD,
    FABPY_NTYPES
};

/* The index of an element type given NumPy's kind character ('i', 'u',
 * 'f', 'c') and its size in bytes; -1 when the C API has no such type. */
static inline int fabpy_type_index(char kind, int size)
{
    switch (kind) {
    case 'i':
        return size == 1 ? FABPY_INT8 : size == 2 ? FABPY_INT16 : size == 4 ? FABPY_INT32
             : size == 8 ? FABPY_INT64 : -1;
    case 'u':
        return size == 1 ? FABPY_UINT8 : size == 2 ? FABPY_UINT16 : size == 4 ? FABPY_UINT32
             : size == 8 ? FABPY_UINT64 : -1;
    case 'f':
        return size == 4 ? FABPY_FLOAT : size == 8 ? FABPY_DOUBLE
             : size == (int)sizeof(long double) ? FABPY_LONGDOUBLE : -1;
    case 'c':
        return size == 8 ? FABPY_COMPLEXF : size == 16 ? FABPY_COMPLEXD : -1;
    default:
        return -1;
    }
}

/* ---- reductions ---- */
enum {
    FABPY_OP_SUM, FABPY_OP_PROD, FABPY_OP_MIN, FABPY_OP_MAX,
    FABPY_OP_AND, FABPY_OP_OR, FABPY_OP_XOR,
    FABPY_NOPS
};
typedef int (*fabpy_red_fn)(shmem_team_t team, void *dest, const void *source, size_t n);
typedef int (*fabpy_red_stream_fn)(shmem_team_t team, void *dest, const void *source, size_t n,
                                   shmemx_stream_t stream);
/* [op][type]: the team reduction, the reduce-scatter, and their on-stream
 * forms. */
static fabpy_red_fn fabpy_reduce_tab[FABPY_NOPS][FABPY_NTYPES];
static fabpy_red_fn fabpy_rscatter_tab[FABPY_NOPS][FABPY_NTYPES];
static fabpy_red_stream_fn fabpy_reduce_stream_tab[FABPY_NOPS][FABPY_NTYPES];
static fabpy_red_stream_fn fabpy_rscatter_stream_tab[FABPY_NOPS][FABPY_NTYPES];

/* The four wrappers of one (type, operation) pair. */
#define FABPY_RED_WRAP(T, TN, OP) \
    static int fabpy_red_##TN##_##OP(shmem_team_t t, void *d, const void *s, size_t n) \
    { return shmem_##TN##_##OP##_reduce(t, (T *)d, (const T *)s, n); } \
    static int fabpy_rs_##TN##_##OP(shmem_team_t t, void *d, const void *s, size_t n) \
    { return shmemx_##TN##_##OP##_reducescatter(t, (T *)d, (const T *)s, n); } \
    static int fabpy_reds_##TN##_##OP(shmem_team_t t, void *d, const void *s, size_t n, \
                                      shmemx_stream_t st) \
    { return shmemx_##TN##_##OP##_reduce_on_stream(t, (T *)d, (const T *)s, n, st); } \
    static int fabpy_rss_##TN##_##OP(shmem_team_t t, void *d, const void *s, size_t n, \
                                     shmemx_stream_t st) \
    { return shmemx_##TN##_##OP##_reducescatter_on_stream(t, (T *)d, (const T *)s, n, st); }
#define FABPY_RED_SET(TN, IDX, OP, OPIDX) \
    fabpy_reduce_tab[OPIDX][IDX] = fabpy_red_##TN##_##OP; \
    fabpy_rscatter_tab[OPIDX][IDX] = fabpy_rs_##TN##_##OP; \
    fabpy_reduce_stream_tab[OPIDX][IDX] = fabpy_reds_##TN##_##OP; \
    fabpy_rscatter_stream_tab[OPIDX][IDX] = fabpy_rss_##TN##_##OP;

/* The types by the operations the C API gives them (types.def): the
 * fixed-size integers take all seven, the reals the arithmetic and
 * min/max, the complex types sum and prod. */
#define FABPY_INT_TYPES(X) \
    X(int8_t, int8, FABPY_INT8) X(int16_t, int16, FABPY_INT16) \
    X(int32_t, int32, FABPY_INT32) X(int64_t, int64, FABPY_INT64) \
    X(uint8_t, uint8, FABPY_UINT8) X(uint16_t, uint16, FABPY_UINT16) \
    X(uint32_t, uint32, FABPY_UINT32) X(uint64_t, uint64, FABPY_UINT64)
#define FABPY_REAL_TYPES(X) \
    X(float, float, FABPY_FLOAT) X(double, double, FABPY_DOUBLE) \
    X(long double, longdouble, FABPY_LONGDOUBLE)
#define FABPY_COMPLEX_TYPES(X) \
    X(float _Complex, complexf, FABPY_COMPLEXF) X(double _Complex, complexd, FABPY_COMPLEXD)

#define FABPY_WRAP_ARITH(T, TN, IDX) FABPY_RED_WRAP(T, TN, sum) FABPY_RED_WRAP(T, TN, prod)
#define FABPY_WRAP_MINMAX(T, TN, IDX) FABPY_RED_WRAP(T, TN, min) FABPY_RED_WRAP(T, TN, max)
#define FABPY_WRAP_BITWISE(T, TN, IDX) \
    FABPY_RED_WRAP(T, TN, and) FABPY_RED_WRAP(T, TN, or) FABPY_RED_WRAP(T, TN, xor)
FABPY_INT_TYPES(FABPY_WRAP_ARITH)
FABPY_INT_TYPES(FABPY_WRAP_MINMAX)
FABPY_INT_TYPES(FABPY_WRAP_BITWISE)
FABPY_REAL_TYPES(FABPY_WRAP_ARITH)
FABPY_REAL_TYPES(FABPY_WRAP_MINMAX)
FABPY_COMPLEX_TYPES(FABPY_WRAP_ARITH)

#define FABPY_SET_ARITH(T, TN, IDX) \
    FABPY_RED_SET(TN, IDX, sum, FABPY_OP_SUM) FABPY_RED_SET(TN, IDX, prod, FABPY_OP_PROD)
#define FABPY_SET_MINMAX(T, TN, IDX) \
    FABPY_RED_SET(TN, IDX, min, FABPY_OP_MIN) FABPY_RED_SET(TN, IDX, max, FABPY_OP_MAX)
#define FABPY_SET_BITWISE(T, TN, IDX) \
    FABPY_RED_SET(TN, IDX, and, FABPY_OP_AND) FABPY_RED_SET(TN, IDX, or, FABPY_OP_OR) \
    FABPY_RED_SET(TN, IDX, xor, FABPY_OP_XOR)

/* ---- atomics ---- */
enum {
    FABPY_AMO_FETCH, FABPY_AMO_SET, FABPY_AMO_SWAP, FABPY_AMO_COMPARE_SWAP,
    FABPY_AMO_FETCH_INC, FABPY_AMO_INC, FABPY_AMO_FETCH_ADD, FABPY_AMO_ADD,
    FABPY_AMO_FETCH_AND, FABPY_AMO_AND, FABPY_AMO_FETCH_OR, FABPY_AMO_OR,
    FABPY_AMO_FETCH_XOR, FABPY_AMO_XOR,
    FABPY_NAMOS
};
/* One atomic on dest at pe: value and cond point to operands of the
 * element type, out (for the fetching forms) receives the old value. */
typedef void (*fabpy_amo_fn)(void *dest, const void *value, const void *cond, void *out, int pe);
static fabpy_amo_fn fabpy_amo_tab[FABPY_NAMOS][FABPY_NTYPES];

#define FABPY_AMO_WRAPS_EXT(T, TN, IDX) \
    static void fabpy_amo_##TN##_fetch(void *d, const void *v, const void *c, void *o, int pe) \
    { (void)v; (void)c; *(T *)o = shmem_##TN##_atomic_fetch((const T *)d, pe); } \
    static void fabpy_amo_##TN##_set(void *d, const void *v, const void *c, void *o, int pe) \
    { (void)c; (void)o; shmem_##TN##_atomic_set((T *)d, *(const T *)v, pe); } \
    static void fabpy_amo_##TN##_swap(void *d, const void *v, const void *c, void *o, int pe) \
    { (void)c; *(T *)o = shmem_##TN##_atomic_swap((T *)d, *(const T *)v, pe); }
#define FABPY_AMO_WRAPS_STD(T, TN, IDX) \
    FABPY_AMO_WRAPS_EXT(T, TN, IDX) \
    static void fabpy_amo_##TN##_compare_swap(void *d, const void *v, const void *c, void *o, \
                                               int pe) \
    { *(T *)o = shmem_##TN##_atomic_compare_swap((T *)d, *(const T *)c, *(const T *)v, pe); } \
    static void fabpy_amo_##TN##_fetch_inc(void *d, const void *v, const void *c, void *o, int pe) \
    { (void)v; (void)c; *(T *)o = shmem_##TN##_atomic_fetch_inc((T *)d, pe); } \
    static void fabpy_amo_##TN##_inc(void *d, const void *v, const void *c, void *o, int pe) \
    { (void)v; (void)c; (void)o; shmem_##TN##_atomic_inc((T *)d, pe); } \
    FABPY_AMO_WRAP_OP(T, TN, add) FABPY_AMO_WRAP_OP(T, TN, and) \
    FABPY_AMO_WRAP_OP(T, TN, or) FABPY_AMO_WRAP_OP(T, TN, xor)
#define FABPY_AMO_WRAP_OP(T, TN, OP) \
    static void fabpy_amo_##TN##_fetch_##OP(void *d, const void *v, const void *c, void *o, \
                                             int pe) \
    { (void)c; *(T *)o = shmem_##TN##_atomic_fetch_##OP((T *)d, *(const T *)v, pe); } \
    static void fabpy_amo_##TN##_##OP(void *d, const void *v, const void *c, void *o, int pe) \
    { (void)c; (void)o; shmem_##TN##_atomic_##OP((T *)d, *(const T *)v, pe); }

/* The standard and bitwise AMO types (both lists hold the fixed-size 32
 * and 64-bit integers), and the extended ones (fetch, set, swap). */
#define FABPY_AMO_STD_TYPES(X) \
    X(int32_t, int32, FABPY_INT32) X(int64_t, int64, FABPY_INT64) \
    X(uint32_t, uint32, FABPY_UINT32) X(uint64_t, uint64, FABPY_UINT64)
#define FABPY_AMO_EXT_TYPES(X) X(float, float, FABPY_FLOAT) X(double, double, FABPY_DOUBLE)
FABPY_AMO_STD_TYPES(FABPY_AMO_WRAPS_STD)
FABPY_AMO_EXT_TYPES(FABPY_AMO_WRAPS_EXT)

#define FABPY_AMO_SET_EXT(T, TN, IDX) \
    fabpy_amo_tab[FABPY_AMO_FETCH][IDX] = fabpy_amo_##TN##_fetch; \
    fabpy_amo_tab[FABPY_AMO_SET][IDX] = fabpy_amo_##TN##_set; \
    fabpy_amo_tab[FABPY_AMO_SWAP][IDX] = fabpy_amo_##TN##_swap;
#define FABPY_AMO_SET_STD(T, TN, IDX) \
    FABPY_AMO_SET_EXT(T, TN, IDX) \
    fabpy_amo_tab[FABPY_AMO_COMPARE_SWAP][IDX] = fabpy_amo_##TN##_compare_swap; \
    fabpy_amo_tab[FABPY_AMO_FETCH_INC][IDX] = fabpy_amo_##TN##_fetch_inc; \
    fabpy_amo_tab[FABPY_AMO_INC][IDX] = fabpy_amo_##TN##_inc; \
    fabpy_amo_tab[FABPY_AMO_FETCH_ADD][IDX] = fabpy_amo_##TN##_fetch_add; \
    fabpy_amo_tab[FABPY_AMO_ADD][IDX] = fabpy_amo_##TN##_add; \
    fabpy_amo_tab[FABPY_AMO_FETCH_AND][IDX] = fabpy_amo_##TN##_fetch_and; \
    fabpy_amo_tab[FABPY_AMO_AND][IDX] = fabpy_amo_##TN##_and; \
    fabpy_amo_tab[FABPY_AMO_FETCH_OR][IDX] = fabpy_amo_##TN##_fetch_or; \
    fabpy_amo_tab[FABPY_AMO_OR][IDX] = fabpy_amo_##TN##_or; \
    fabpy_amo_tab[FABPY_AMO_FETCH_XOR][IDX] = fabpy_amo_##TN##_fetch_xor; \
    fabpy_amo_tab[FABPY_AMO_XOR][IDX] = fabpy_amo_##TN##_xor;

/* Fills the tables; called once when the module is imported. */
static void fabpy_tables_init(void)
{
    FABPY_INT_TYPES(FABPY_SET_ARITH)
    FABPY_INT_TYPES(FABPY_SET_MINMAX)
    FABPY_INT_TYPES(FABPY_SET_BITWISE)
    FABPY_REAL_TYPES(FABPY_SET_ARITH)
    FABPY_REAL_TYPES(FABPY_SET_MINMAX)
    FABPY_COMPLEX_TYPES(FABPY_SET_ARITH)
    FABPY_AMO_STD_TYPES(FABPY_AMO_SET_STD)
    FABPY_AMO_EXT_TYPES(FABPY_AMO_SET_EXT)
}

static inline fabpy_red_fn fabpy_reduce_fn(int op, int type, int scatter)
{
    return scatter ? fabpy_rscatter_tab[op][type] : fabpy_reduce_tab[op][type];
}
static inline fabpy_red_stream_fn fabpy_reduce_stream_fn(int op, int type, int scatter)
{
    return scatter ? fabpy_rscatter_stream_tab[op][type] : fabpy_reduce_stream_tab[op][type];
}
static inline fabpy_amo_fn fabpy_amo_fn_of(int amo, int type)
{
    return fabpy_amo_tab[amo][type];
}

/* ---- teams ----
 * The predefined teams by the numbers of the Python Teams enum (NVSHMEM's
 * order, then fabshmem's NUMA teams); unknown numbers give
 * SHMEM_TEAM_INVALID. */
enum {
    FABPY_TEAM_WORLD = 0, FABPY_TEAM_SHARED = 1, FABPY_TEAM_NODE = 2,
    FABPY_TEAM_SAME_MYPE_NODE = 3, FABPY_TEAM_SAME_GPU = 4, FABPY_TEAM_GPU_LEADERS = 5,
    FABPY_TEAM_SAME_NUMA = 6, FABPY_TEAM_NUMA_LEADERS = 7,
    FABPY_TEAM_PREDEFINED = 8
};
static inline shmem_team_t fabpy_predefined_team(int id)
{
    switch (id) {
    case FABPY_TEAM_WORLD: return SHMEM_TEAM_WORLD;
    case FABPY_TEAM_SHARED: return SHMEM_TEAM_SHARED;
    case FABPY_TEAM_NODE: return SHMEMX_TEAM_NODE;
    case FABPY_TEAM_SAME_MYPE_NODE: return SHMEMX_TEAM_SAME_MYPE_NODE;
    case FABPY_TEAM_SAME_GPU: return SHMEMX_TEAM_SAME_GPU;
    case FABPY_TEAM_GPU_LEADERS: return SHMEMX_TEAM_GPU_LEADERS;
    case FABPY_TEAM_SAME_NUMA: return SHMEMX_TEAM_SAME_NUMA;
    case FABPY_TEAM_NUMA_LEADERS: return SHMEMX_TEAM_NUMA_LEADERS;
    default: return SHMEM_TEAM_INVALID;
    }
}

/* A barrier over a team off streams, as NVSHMEM's nvshmem_barrier: the
 * caller's operations complete (quiet), then the team synchronizes. */
static inline int fabpy_team_barrier(shmem_team_t team)
{
    shmem_quiet();
    if (shmemx_error_get(NULL, 0))
        return -1;
    return shmem_team_sync(team);
}

/* ---- init ----
 * The initializers of shmemx_init.h are brace lists, which Cython cannot
 * write as expressions. */
static inline void fabpy_attr_init(shmemx_init_attr_t *a)
{
    shmemx_init_attr_t init = SHMEMX_INIT_ATTR_INITIALIZER;

    *a = init;
}
static inline void fabpy_uniqueid_init(shmemx_uniqueid_t *u)
{
    shmemx_uniqueid_t init = SHMEMX_UNIQUEID_INITIALIZER;

    *u = init;
}

/* ---- DLPack (the unversioned ABI of dlpack.h 0.x, which NumPy >= 1.22
 * and PyTorch >= 1.10 read from a capsule named "dltensor") ---- */
typedef struct { int32_t device_type; int32_t device_id; } fabpy_DLDevice;
typedef struct { uint8_t code; uint8_t bits; uint16_t lanes; } fabpy_DLDataType;
typedef struct {
    void *data;
    fabpy_DLDevice device;
    int32_t ndim;
    fabpy_DLDataType dtype;
    int64_t *shape;
    int64_t *strides;
    uint64_t byte_offset;
} fabpy_DLTensor;
typedef struct fabpy_DLManagedTensor {
    fabpy_DLTensor dl_tensor;
    void *manager_ctx;
    void (*deleter)(struct fabpy_DLManagedTensor *self);
} fabpy_DLManagedTensor;
#define FABPY_DLCPU 1
#define FABPY_DLCUDA 2
#define FABPY_DLUINT 1

/* ---- the GPU ----
 * cuCtxSynchronize of the CUDA driver, which a process bound to a GPU
 * (init(device=...)) has loaded: the blocking routines on GPU memory wait
 * first for the work the program queued on the GPU (its kernels, CuPy's
 * and torch's operations), so that they see what it wrote.  The driver is
 * looked up, never loaded, here; the binding needs no CUDA to build.
 * Returns the CUresult (0: done), or -1 when the driver is not loaded. */
static inline int fabpy_gpu_sync(void)
{
    static int (*sync_fn)(void);

    if (!sync_fn) {
        void *h = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_NOLOAD);
        if (h)
            *(void **)&sync_fn = dlsym(h, "cuCtxSynchronize");
        if (!sync_fn)
            return -1;
    }
    return sync_fn();
}

/* ---- the device API (fabshmem.core.device) ---- */

#include <fabshmem/device/state.h>

/* The include directories the extension was compiled against (setup.py
 * defines them from buildpaths.locate(), ':'-separated), where the device
 * API's headers of the same fabshmem are. */
#ifndef FABPY_LINK_INCLUDE_DIRS
#define FABPY_LINK_INCLUDE_DIRS ""
#endif

static inline const char *fabpy_link_include_dirs(void) { return FABPY_LINK_INCLUDE_DIRS; }

/* The path of the libfabshmem this process loaded, or NULL. */
static inline const char *fabpy_lib_path(void)
{
    Dl_info info;

    if (dladdr((void *)shmemx_device_state, &info) && info.dli_fname)
        return info.dli_fname;
    return NULL;
}

static inline size_t fabpy_device_state_size(void) { return sizeof(shmemd_state_t); }
/* Where the state keeps what the binding reads (fabshmem.core.device). */
static inline int fabpy_device_state_version(void) { return SHMEMD_STATE_VERSION; }
static inline size_t fabpy_device_proxy_slots_at(void) { return offsetof(shmemd_state_t, proxy.slots); }
static inline size_t fabpy_device_proxy_nslots_at(void) { return offsetof(shmemd_state_t, proxy.nslots); }

#endif
