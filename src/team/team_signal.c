/*
 * The primitives of the collectives: a signal, a put with signal and a
 * wait, over a mapped peer's memory (a store, a memcpy) or the transport.
 */
#include "team/team.h"
#include "core/rma.h"
#include "core/signal.h"
#include "core/sync.h"
#include <stdlib.h>
#include <unistd.h>

int shmemi_team_signal_tp(volatile uint64_t *sig, uint64_t value, int pe)
{
    int seg, ret;
    uint64_t off;

    if (shmemi_addr_seg((const void *)sig, sizeof(uint64_t), &seg, &off))
        return shmemi_err_fatal(SHMEMX_ERROR_INTERNAL, "collective signal word %p is not "
                                "symmetric", (const void *)sig);
    /* Every collective signal is awaited by its receiver: the transport
     * need not make quiet wait for it (active messages send no
     * acknowledgement). */
    ret = shmemi_g.tp->ops->signal(shmemi_g.tp, pe, seg, off, value);
    shmemi_tp_issued();
    if (ret)
        return shmemi_err_fatal(shmemi_status_from_errno(ret, SHMEMX_ERROR_TRANSPORT),
                                "collective: signalling PE %d failed: %s", pe, strerror(-ret));
    return 0;
}

/* The data and the signal in one transport operation: 0 when done (or
 * the class of its failure), -1 when the transport cannot (the caller
 * puts, fences and signals). */
static int tp_put_signal(void *dest, const void *src, size_t len, volatile uint64_t *sig,
                         uint64_t value, int pe)
{
    int done, rc = shmemi_tp_put_signal(shmemi_g.tp, dest, src, len, sig, value, SHMEMT_AOP_SET,
                                        pe, &done, "collective");

    if (done)
        shmemi_tp_issued();
    return rc ? rc : done ? 0 : -1;
}

int shmemi_team_put_signal(void *dest, const void *src, size_t len, volatile uint64_t *sig,
                           uint64_t value, int pe)
{
    char *d = len ? shmemi_direct(dest, len, pe) : NULL;
    int ret;

    if (!len || d) {
        if (len)
            memcpy(d, src, len);
        return shmemi_team_signal(sig, value, pe); /* a release store or a later op */
    }
    /* The data goes through the transport: in one message with the signal
     * where the transport can (active messages), else a put (src reusable
     * at return), a fence and the signal. */
    if (!shmemi_direct((const void *)sig, sizeof(uint64_t), pe) &&
        (ret = tp_put_signal(dest, src, len, sig, value, pe)) >= 0)
        return ret;
    if ((ret = shmemi_put_slow(SHMEM_CTX_DEFAULT, dest, src, len, pe, 0, "collective")))
        return ret;
    if (shmemi_direct((const void *)sig, sizeof(uint64_t), pe)) {
        /* The transport cannot order its put with a CPU store. */
        if ((ret = shmemi_team_quiet()))
            return ret;
        return shmemi_team_signal(sig, value, pe);
    }
    if ((ret = shmemi_g.tp->ops->fence(shmemi_g.tp)))
        return shmemi_err_fatal(shmemi_status_from_errno(ret, SHMEMX_ERROR_TRANSPORT),
                                "collective: ordering data before the signal failed: %s",
                                strerror(-ret));
    return shmemi_team_signal_tp(sig, value, pe);
}

/* FABSHMEM_COLL_DELAY (developers): one wait in eight, at random, sleeps
 * between half the value and the value in microseconds once the signal has
 * come, before its caller reads what the signal announced.  The state is
 * per thread (streams run collectives on their workers). */
static void __attribute__((noinline, cold)) coll_delay(void)
{
    static __thread uint64_t x;
    uint64_t d = (uint64_t)shmemi_g.env.coll_delay;

    if (!x)
        x = ((uint64_t)shmemi_g.my_pe + 1) * 0x9e3779b97f4a7c15ull ^ (uint64_t)getpid() << 20 ^
            (uint64_t)(uintptr_t)&x;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    if ((x & 7) == 0)
        usleep((useconds_t)(d / 2 + (x >> 8) % (d - d / 2 + 1)));
}

void shmemi_team_wait(volatile uint64_t *sig, uint64_t value)
{
    unsigned long it = 0;
    int i;

    /* A short spin without progress calls: on mapped peers the answer
     * usually comes within a few hundred nanoseconds (unless the PEs
     * outnumber the cores: the peer may not even be running).  The wait
     * after it spins for a time that follows recent waits, so this one is
     * short: 256 polls (7 us) made each wait of 2 PEs that share a core
     * 7 us longer. */
    for (i = 0; i < (shmemi_g.oversubscribed ? SHMEMI_WAIT_SPIN_OVERSUBSCRIBED :
                     shmemi_g.wait_spin < 0 ? 16 : 256) &&
                (shmemi_g.wait_spin < 0 || i < shmemi_g.wait_spin); i++) {
        if (__atomic_load_n(sig, __ATOMIC_ACQUIRE) >= value)
            goto done;
        shmemi_cpu_relax();
    }
    shmemi_wait_note(sig, value, sizeof(*sig), ">=", 0, NULL);
    while (__atomic_load_n(sig, __ATOMIC_ACQUIRE) < value)
        shmemi_wait_backoff_word(&it, sig, value);
done:
    if (__builtin_expect(shmemi_g.env.coll_delay > 0, 0))
        coll_delay();
}
