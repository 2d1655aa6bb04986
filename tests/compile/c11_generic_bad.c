/*
 * Must NOT compile: a C11 generic RMA call with a type outside the standard
 * RMA types.  The compiler reports a call of shmemi_c11_type_not_supported
 * with too many arguments.  Each BAD_n case is built on its own:
 *   cc -std=c11 -DBAD_1 -c c11_generic_bad.c   (fails)
 * Without a BAD_n macro the file compiles (a check of the check).
 */
#include <shmem.h>

struct point { int x, y; };

void bad(shmem_ctx_t ctx, struct point *p, void *v, const int *ci);
void bad(shmem_ctx_t ctx, struct point *p, void *v, const int *ci)
{
#if defined(BAD_1)
    shmem_put(p, p, 1, 0);              /* struct element type */
#elif defined(BAD_2)
    shmem_get(ctx, p, p, 1, 0);         /* ctx form, struct element type */
#elif defined(BAD_3)
    shmem_put(v, v, 1, 0);              /* void pointer */
#elif defined(BAD_4)
    shmem_get(ci, ci, 1, 0);            /* const destination */
#elif defined(BAD_5)
    shmem_p(ctx, 1, 0);                 /* ctx form without a destination */
#endif
    (void)ctx; (void)p; (void)v; (void)ci;
}
