/* C11 type-generic forms of the reductions of api_reduce.def (included by shmem.h). */
