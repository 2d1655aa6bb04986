# The C routines of libfabshmem that the binding calls (shmem.h, shmemx.h)
# and the helpers of _fabpy.h.  Only what the binding uses is declared; the
# C compiler checks every call against the real prototypes, which the
# generated C includes.

from libc.stdint cimport int32_t, int64_t, uint8_t, uint64_t
from libc.stddef cimport ptrdiff_t

cdef extern from "<shmem.h>" nogil:
    ctypedef struct shmemi_team
    ctypedef shmemi_team *shmem_team_t
    ctypedef struct shmem_team_config_t:
        int num_contexts
    shmem_team_t SHMEM_TEAM_INVALID
    int SHMEM_MAJOR_VERSION
    int SHMEM_MINOR_VERSION
    int SHMEM_THREAD_MULTIPLE
    long SHMEM_TEAM_NUM_CONTEXTS

    void shmem_finalize()
    void shmem_global_exit(int status)
    int shmem_my_pe()
    int shmem_n_pes()
    void *shmem_ptr(const void *dest, int pe)
    void shmem_info_get_name(char *name)

    void *shmem_malloc(size_t size)
    void *shmem_malloc_with_hints(size_t size, long hints)
    void shmem_free(void *ptr)

    void shmem_fence()
    void shmem_quiet()
    void shmem_barrier_all()
    void shmem_sync_all()

    void shmem_putmem(void *dest, const void *source, size_t nelems, int pe)
    void shmem_getmem(void *dest, const void *source, size_t nelems, int pe)
    void shmem_putmem_signal(void *dest, const void *source, size_t nelems,
                             uint64_t *sig_addr, uint64_t signal, int sig_op, int pe)
    uint64_t shmem_signal_wait_until(uint64_t *sig_addr, int cmp, uint64_t cmp_value)
    uint64_t shmem_signal_fetch(const uint64_t *sig_addr)

    int shmem_team_my_pe(shmem_team_t team)
    int shmem_team_n_pes(shmem_team_t team)
    int shmem_team_translate_pe(shmem_team_t src_team, int src_pe, shmem_team_t dest_team)
    int shmem_team_get_config(shmem_team_t team, long config_mask, shmem_team_config_t *config)
    int shmem_team_split_strided(shmem_team_t parent_team, int start, int stride, int size,
                                 const shmem_team_config_t *config, long config_mask,
                                 shmem_team_t *new_team)
    int shmem_team_split_2d(shmem_team_t parent_team, int xrange,
                            const shmem_team_config_t *xaxis_config, long xaxis_mask,
                            shmem_team_t *xaxis_team,
                            const shmem_team_config_t *yaxis_config, long yaxis_mask,
                            shmem_team_t *yaxis_team)
    void shmem_team_destroy(shmem_team_t team)
    int shmem_team_sync(shmem_team_t team)

    int shmem_broadcastmem(shmem_team_t team, void *dest, const void *source, size_t nelems,
                           int PE_root)
    int shmem_fcollectmem(shmem_team_t team, void *dest, const void *source, size_t nelems)
    int shmem_alltoallmem(shmem_team_t team, void *dest, const void *source, size_t nelems)

cdef extern from "<shmemx.h>" nogil:
    long SHMEMX_MALLOC_DEVICE
    int shmemx_cuda_device()
    # Errors (shmemx_error.h).
    int SHMEMX_SUCCESS
    int SHMEMX_ERROR_INVALID_VALUE
    int SHMEMX_ERROR_OUT_OF_MEMORY
    int SHMEMX_ERROR_NOT_SUPPORTED
    int SHMEMX_ERROR_SYMMETRY
    int SHMEMX_ERROR_INVALID_STATE
    int SHMEMX_ERROR_BOOTSTRAP
    int SHMEMX_ERROR_TRANSPORT
    int SHMEMX_ERROR_INTERNAL
    int SHMEMX_ERRORS_RETURN
    const char *shmemx_strerror(int code)
    int shmemx_set_error_mode(int mode)
    int shmemx_error_get(char *msg, size_t len)
    void shmemx_error_clear()

    void shmemx_vendor_get_version_info(int *major, int *minor, int *patch)

    # Init (shmemx_init.h).
    int SHMEMX_UNIQUEID_BYTES
    ctypedef struct shmemx_uniqueid_t:
        int version
        char internal[120]
    ctypedef struct shmemx_uniqueid_args_t:
        int version
    ctypedef struct shmemx_init_attr_t:
        int version
        int thread_level
    unsigned int SHMEMX_INIT_WITH_MPI_COMM
    unsigned int SHMEMX_INIT_WITH_UNIQUEID
    int shmemx_get_uniqueid(shmemx_uniqueid_t *uid)
    int shmemx_set_attr_uniqueid_args(int rank, int nranks, const shmemx_uniqueid_t *uid,
                                      shmemx_init_attr_t *attr)
    int shmemx_set_attr_mpi_comm_args(void *mpi_comm, shmemx_init_attr_t *attr)
    int shmemx_init_attr(unsigned int flags, shmemx_init_attr_t *attr)
    int shmemx_init_status()

    # Teams (shmemx_team.h).
    ctypedef struct shmemx_team_uniqueid_t:
        char internal[32]
    int shmemx_team_get_uniqueid(shmemx_team_uniqueid_t *uid)
    int shmemx_team_init(shmem_team_t *team, shmem_team_config_t *config, long config_mask,
                         int npes, int pe_idx_in_team, const shmemx_team_uniqueid_t *uid)

    # Memory the application allocated (shmemx_mem.h).
    void *shmemx_buffer_register_symmetric(void *addr, size_t length, int flags)
    int shmemx_buffer_unregister_symmetric(void *addr, size_t length)
    int shmemx_buffer_load_store(const void *addr)

    void shmemx_signal_op(uint64_t *sig_addr, uint64_t signal, int sig_op, int pe)

    # The device API's host routines (shmemx_device.h).
    int shmemx_device_state(void *buf, size_t len)
    int shmemx_team_device(shmem_team_t team)
    int shmemx_device_check()

    # Streams (shmemx_stream.h).
    ctypedef struct shmemx_stream:
        pass
    ctypedef shmemx_stream *shmemx_stream_t
    int shmemx_stream_create(shmemx_stream_t *stream)
    int shmemx_stream_create_cuda(shmemx_stream_t *stream, void *cuda_stream)
    int shmemx_stream_destroy(shmemx_stream_t stream)
    int shmemx_stream_sync(shmemx_stream_t stream)
    int shmemx_stream_query(shmemx_stream_t stream)
    int shmemx_stream_offloaded(shmemx_stream_t stream)
    int shmemx_launch_on_stream(shmemx_stream_t stream, void (*fn)(void *arg), void *arg)
    void shmemx_putmem_on_stream(void *dest, const void *source, size_t nelems, int pe,
                                 shmemx_stream_t stream)
    void shmemx_getmem_on_stream(void *dest, const void *source, size_t nelems, int pe,
                                 shmemx_stream_t stream)
    void shmemx_putmem_signal_on_stream(void *dest, const void *source, size_t nelems,
                                        uint64_t *sig_addr, uint64_t signal, int sig_op,
                                        int pe, shmemx_stream_t stream)
    void shmemx_signal_op_on_stream(uint64_t *sig_addr, uint64_t signal, int sig_op, int pe,
                                    shmemx_stream_t stream)
    void shmemx_signal_wait_until_on_stream(uint64_t *sig_addr, int cmp, uint64_t cmp_value,
                                            shmemx_stream_t stream)
    void shmemx_quiet_on_stream(shmemx_stream_t stream)
    void shmemx_barrier_all_on_stream(shmemx_stream_t stream)
    void shmemx_sync_all_on_stream(shmemx_stream_t stream)
    int shmemx_barrier_on_stream(shmem_team_t team, shmemx_stream_t stream)
    int shmemx_team_sync_on_stream(shmem_team_t team, shmemx_stream_t stream)
    int shmemx_broadcastmem_on_stream(shmem_team_t team, void *dest, const void *source,
                                      size_t nelems, int PE_root, shmemx_stream_t stream)
    int shmemx_fcollectmem_on_stream(shmem_team_t team, void *dest, const void *source,
                                     size_t nelems, shmemx_stream_t stream)
    int shmemx_alltoallmem_on_stream(shmem_team_t team, void *dest, const void *source,
                                     size_t nelems, shmemx_stream_t stream)

cdef extern from "_fabpy.h" nogil:
    int FABPY_INT8, FABPY_INT16, FABPY_INT32, FABPY_INT64
    int FABPY_UINT8, FABPY_UINT16, FABPY_UINT32, FABPY_UINT64
    int FABPY_FLOAT, FABPY_DOUBLE, FABPY_LONGDOUBLE, FABPY_COMPLEXF, FABPY_COMPLEXD
    int FABPY_NTYPES
    int fabpy_type_index(char kind, int size)

    int FABPY_OP_SUM, FABPY_OP_PROD, FABPY_OP_MIN, FABPY_OP_MAX
    int FABPY_OP_AND, FABPY_OP_OR, FABPY_OP_XOR
    ctypedef int (*fabpy_red_fn)(shmem_team_t team, void *dest, const void *source, size_t n)
    ctypedef int (*fabpy_red_stream_fn)(shmem_team_t team, void *dest, const void *source,
                                        size_t n, shmemx_stream_t stream)
    void fabpy_tables_init()
    fabpy_red_fn fabpy_reduce_fn(int op, int type, int scatter)
    fabpy_red_stream_fn fabpy_reduce_stream_fn(int op, int type, int scatter)

    int FABPY_AMO_FETCH, FABPY_AMO_SET, FABPY_AMO_SWAP, FABPY_AMO_COMPARE_SWAP
    int FABPY_AMO_FETCH_INC, FABPY_AMO_INC, FABPY_AMO_FETCH_ADD, FABPY_AMO_ADD
    int FABPY_AMO_FETCH_AND, FABPY_AMO_AND, FABPY_AMO_FETCH_OR, FABPY_AMO_OR
    int FABPY_AMO_FETCH_XOR, FABPY_AMO_XOR
    ctypedef void (*fabpy_amo_fn)(void *dest, const void *value, const void *cond, void *out,
                                  int pe)
    fabpy_amo_fn fabpy_amo_fn_of(int amo, int type)

    int FABPY_TEAM_PREDEFINED
    shmem_team_t fabpy_predefined_team(int id)
    int fabpy_team_barrier(shmem_team_t team)
    void fabpy_attr_init(shmemx_init_attr_t *a)
    void fabpy_uniqueid_init(shmemx_uniqueid_t *u)

    ctypedef struct fabpy_DLDevice:
        int32_t device_type
        int32_t device_id
    ctypedef struct fabpy_DLDataType:
        uint8_t code
        uint8_t bits
        unsigned short lanes
    ctypedef struct fabpy_DLTensor:
        void *data
        fabpy_DLDevice device
        int32_t ndim
        fabpy_DLDataType dtype
        int64_t *shape
        int64_t *strides
        uint64_t byte_offset
    ctypedef struct fabpy_DLManagedTensor:
        fabpy_DLTensor dl_tensor
        void *manager_ctx
        void (*deleter)(fabpy_DLManagedTensor *self)
    int FABPY_DLCPU
    int FABPY_DLCUDA
    int FABPY_DLUINT
    int fabpy_gpu_sync()
    const char *fabpy_link_include_dirs()
    const char *fabpy_lib_path()
    size_t fabpy_device_state_size()
    int fabpy_device_state_version()
    size_t fabpy_device_proxy_slots_at()
    size_t fabpy_device_proxy_nslots_at()
