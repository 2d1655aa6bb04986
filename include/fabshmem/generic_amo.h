/* C11 generic forms of the amo routines (included by shmem.h in C11). */
