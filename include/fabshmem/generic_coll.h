/* C11 type-generic forms of the collectives of api_coll.def (included by shmem.h). */
