/* C11 generic forms of the sync routines (included by shmem.h in C11). */
