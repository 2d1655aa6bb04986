/*
 * The codes of the reductions' element types and operations: the host's
 * reductions (coll/coll_reduce.h) and the library's GPU kernels
 * (cuda/cuda.h, shmemi_cuda_reduce) take the same ones, so they are
 * defined here, below both.
 */
#ifndef SHMEMI_RTYPE_H
#define SHMEMI_RTYPE_H

/* Element arithmetic.  Signed integers add and multiply as their unsigned
 * counterparts (two's complement wrap-around, no undefined overflow); only
 * max and min differ. */
enum {
    SHMEMI_RT_I8, SHMEMI_RT_I16, SHMEMI_RT_I32, SHMEMI_RT_I64,
    SHMEMI_RT_U8, SHMEMI_RT_U16, SHMEMI_RT_U32, SHMEMI_RT_U64,
    SHMEMI_RT_F32, SHMEMI_RT_F64, SHMEMI_RT_LD,
    SHMEMI_RT_C32, SHMEMI_RT_C64,
    SHMEMI_RT_COUNT
};

/* The operations. */
enum {
    SHMEMI_ROP_AND, SHMEMI_ROP_OR, SHMEMI_ROP_XOR, SHMEMI_ROP_MAX, SHMEMI_ROP_MIN,
    SHMEMI_ROP_SUM, SHMEMI_ROP_PROD,
    SHMEMI_ROP_COUNT
};

#endif
