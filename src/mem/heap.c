/*
 * The symmetric heap: one shared-memory object per PE, mapped by the PEs of
 * the same node, plus the discovery of the executable's writable data
 * segment (globals and statics are symmetric too).
 *
 * Lifetime of the shared-memory names: each PE creates its object, a barrier
 * lets the node peers open and map it, a second barrier and then every PE
 * unlinks its own name.  From then on the memory lives only as long as the
 * mappings, so nothing stays in /dev/shm after the job, even a killed one.
 */
#define _GNU_SOURCE
#include "mem/mem.h"
#include "mem/data_seg.h"
#include "base/state.h"
#include <fcntl.h>
#include <link.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <dirent.h>
#include <signal.h>
#include <pthread.h>
#include <string.h>

static unsigned heap_generation;
/* This PE's heap still has its name (between its creation and the
 * node peers' mapping of it): shmemi_heap_destroy removes it then. */
static int heap_named;
/* The process id of every PE ([n_pes], from shmemi_heap_map_peers on; our
 * own before): the names carry their creator's pid, so that a job that
 * dies between creating and unlinking them (a PE killed inside
 * shmem_init) leaves names that the next job can tell are stale. */
static int *heap_pids;

static int name_pid(int pe)
{
    return heap_pids && pe != shmemi_g.my_pe ? heap_pids[pe] : (int)getpid();
}

static void heap_name(char *buf, size_t len, int pe)
{
    snprintf(buf, len, "/fabshmem-%s-%u-%d-p%d", shmemi_g.boot->job_id, heap_generation, pe,
             name_pid(pe));
}

static void data_name(char *buf, size_t len, int pe)
{
    snprintf(buf, len, "/fabshmem-%s-%u-%d-p%d-data", shmemi_g.boot->job_id, heap_generation, pe,
             name_pid(pe));
}

/* ---- the executable's data, shared ----
 * Globals and statics are symmetric too; for node peers to reach them by
 * load/store and CPU atomics (a lock in a static long, a pSync array), the
 * data segment is moved into a shared-memory object at init: its contents
 * are copied into the object, which is then mapped over the very same
 * addresses (MAP_FIXED), so the program sees no change.  No other thread of
 * the program may write its globals during shmem_init (the copy and the
 * remapping are a few microseconds apart).  A child made by fork() gets a
 * private copy back (fork_child below), so it cannot write into the
 * parent's globals. */
/* Copies whole pages of the data segment: they hold the redzones that
 * AddressSanitizer puts around globals, which a plain memcpy would be
 * reported for, so the copy is a loop without instrumentation. */
__attribute__((no_sanitize("address"))) static void data_copy(char *dst, const char *src,
                                                             size_t size)
{
    uint64_t *d = (uint64_t *)(void *)dst;
    const uint64_t *s = (const uint64_t *)(const void *)src;
    size_t i;

    for (i = 0; i < size / sizeof(uint64_t); i++)
        d[i] = s[i];
}

/* The whole pages that hold the symmetric data (shmemi_data_segment_find):
 * what is shared with node peers; shmemi_g.data_base is data_map_delta()
 * bytes into them. */
static char *data_map_base;
static size_t data_map_size;

static size_t data_map_delta(void)
{
    return (size_t)(shmemi_g.data_base - data_map_base);
}

static char *data_shared_base;
static size_t data_shared_size;
static int data_atfork_done;

/* In the child of a fork (one thread): private memory again, same contents. */
static void fork_child(void)
{
    char *base = data_shared_base, *tmp;
    size_t size = data_shared_size;

    if (!base || !size)
        return;
    tmp = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (tmp == MAP_FAILED)
        return;
    data_copy(tmp, base, size);
    if (mmap(base, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) !=
        MAP_FAILED)
        data_copy(base, tmp, size);
    munmap(tmp, size);
    data_shared_base = NULL;
    data_shared_size = 0;
}

/* Moves the pages of the data, [data_map_base, data_map_base +
 * data_map_size), into the shared object name.  Returns 0 or a negative
 * errno (the data then stays private). */
static int data_share_own(const char *name)
{
    char *base = data_map_base, *tmp, *p;
    size_t size = data_map_size;
    int fd, ret;

    fd = shm_open(name, O_CREAT | O_EXCL | O_RDWR, 0600);
    if (fd < 0 && errno == EEXIST) {
        shm_unlink(name);
        fd = shm_open(name, O_CREAT | O_EXCL | O_RDWR, 0600);
    }
    if (fd < 0)
        return -errno;
    if (ftruncate(fd, (off_t)size) != 0)
        goto err;
    tmp = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (tmp == MAP_FAILED)
        goto err;
    data_copy(tmp, base, size);
    p = mmap(base, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, 0);
    munmap(tmp, size);
    if (p == MAP_FAILED) {
        /* MAP_FIXED failed before it replaced anything: still private. */
        goto err;
    }
    close(fd);
    data_shared_base = base;
    data_shared_size = size;
    if (!data_atfork_done) {
        pthread_atfork(NULL, NULL, fork_child);
        data_atfork_done = 1;
    }
    return 0;

err:
    ret = -errno;
    close(fd);
    shm_unlink(name);
    return ret;
}

/* Maps the heap at an address aligned to SHMEMI_HEAP_ALIGN, so that an
 * offset aligned by the allocator gives an address aligned on every PE
 * (shmem_align with large alignments).  The spare address space is only
 * reserved, never backed, and is released at once. */
static void *heap_map_aligned(int fd, size_t size)
{
    size_t span = size + SHMEMI_HEAP_ALIGN;
    char *res, *aligned, *p;

    res = mmap(NULL, span, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (res == MAP_FAILED)
        return mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    aligned = (char *)(((uintptr_t)res + SHMEMI_HEAP_ALIGN - 1) & ~(uintptr_t)(SHMEMI_HEAP_ALIGN - 1));
    p = mmap(aligned, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, 0);
    if (p == MAP_FAILED) {
        munmap(res, span);
        return MAP_FAILED;
    }
    if (aligned > res)
        munmap(res, aligned - res);
    if (res + span > aligned + size)
        munmap(aligned + size, res + span - (aligned + size));
    return p;
}

/* Records that the heap could not be made: the call and its errno. */
static int heap_create_fail(const char *call, const char *name, size_t size, int err,
                            int *err_p)
{
    *err_p = err;
    return shmemi_err_fatal(shmemi_status_from_errno(err, SHMEMX_ERROR_OUT_OF_MEMORY),
                            "cannot create a symmetric heap of %zu bytes "
                            "(SHMEM_SYMMETRIC_SIZE=%zu): %s %s: %s", size,
                            shmemi_g.env.symmetric_size, call, name, strerror(err));
}

int shmemi_heap_create(size_t size, int *err_p)
{
    char name[128];
    void *base;
    int fd, rc;

    heap_generation++;
    heap_name(name, sizeof(name), shmemi_g.my_pe);
    fd = shm_open(name, O_CREAT | O_EXCL | O_RDWR, 0600);
    if (fd < 0 && errno == EEXIST) {
        /* A stale object of an earlier job with the same id: replace it. */
        shm_unlink(name);
        fd = shm_open(name, O_CREAT | O_EXCL | O_RDWR, 0600);
    }
    if (fd < 0)
        return heap_create_fail("shm_open", name, size, errno, err_p);
    if (ftruncate(fd, (off_t)size) != 0) {
        rc = heap_create_fail("ftruncate", name, size, errno, err_p);
        goto err_unlink;
    }
    base = heap_map_aligned(fd, size);
    if (base == MAP_FAILED) {
        rc = heap_create_fail("mmap", name, size, errno, err_p);
        goto err_unlink;
    }
    close(fd);
    shmemi_g.heap_base = base;
    shmemi_g.heap_size = size;
    heap_named = 1;
    return 0;

err_unlink:
    close(fd);
    shm_unlink(name);
    return rc;
}

/* Records that the bootstrap's call failed while the peers' heaps were
 * being mapped. */
/* Opens node peer pe's object name for mapping size bytes: its
 * descriptor, or -1 (the peer then goes through the provider).  Only an
 * object of our own user, as large as it should be, is taken: /dev/shm
 * is writable by every user, and another one could have put a file under
 * a name that the peer failed to create (docs/design/trust.md). */
static int peer_shm_open(const char *name, int pe, size_t size)
{
    struct stat st;
    int fd = shm_open(name, O_RDWR | O_NOFOLLOW, 0);

    if (fd < 0) {
        /* Same host name but another machine (or a sandbox). */
        shmemi_debug("shm_open %s: %m; PE %d goes through the provider", name, pe);
        return -1;
    }
    if (fstat(fd, &st) != 0 || st.st_uid != geteuid() || !S_ISREG(st.st_mode) ||
        (st.st_mode & 077) || (size_t)st.st_size < size) {
        shmemi_warn("%s is not PE %d's (owner %d, mode %o, %lld bytes, %zu expected): "
                    "not mapped, PE %d goes through the provider", name, pe, (int)st.st_uid,
                    (unsigned)st.st_mode & 07777, (long long)st.st_size, size, pe);
        close(fd);
        return -1;
    }
    return fd;
}

static int map_peers_fail(const char *call, int ret)
{
    return shmemi_err_fatal(shmemi_status_from_errno(ret, SHMEMX_ERROR_BOOTSTRAP), "mapping the "
                            "node peers' heaps: the bootstrap's %s failed: %s", call,
                            strerror(-ret));
}

int shmemi_heap_map_peers(int direct, int map_data)
{
    char name[128];
    int pe, ret, ret2, peers = 0, shared_data = 0;

    shmemi_g.peer_heap[shmemi_g.my_pe] = shmemi_g.heap_base;
    for (pe = 0; pe < shmemi_g.n_pes; pe++)
        peers += pe != shmemi_g.my_pe && shmemi_g.node_of[pe] == shmemi_g.node_of[shmemi_g.my_pe];
    /* The peers' names carry their pids (an allgather: every PE takes
     * part, with node peers or not). */
    free(heap_pids);
    heap_pids = NULL;
    if (direct) {
        int mine = (int)getpid();
        heap_pids = calloc((size_t)shmemi_g.n_pes, sizeof(int));
        if (!heap_pids)
            return shmemi_err_fatal(SHMEMX_ERROR_OUT_OF_MEMORY, "mapping the node peers' heaps: "
                                    "out of memory");
        ret2 = shmemi_g.boot->allgather(shmemi_g.boot, &mine, heap_pids, sizeof(int));
        if (ret2)
            return map_peers_fail("allgather", ret2);
    }
    if (direct && map_data && peers && shmemi_g.data_size) {
        /* Already shared (an earlier init of this process): the same object
         * is no longer named, so share it again under the new name. */
        data_name(name, sizeof(name), shmemi_g.my_pe);
        ret2 = data_share_own(name);
        if (ret2)
            shmemi_debug("sharing the data segment (%zu bytes): %s; globals go through the "
                         "provider", data_map_size, strerror(-ret2));
        else
            shared_data = 1;
    }
    /* A PE always reaches its own data by load/store. */
    if (shmemi_g.data_size)
        shmemi_g.peer_data[shmemi_g.my_pe] = shmemi_g.data_base;
    ret2 = shmemi_g.boot->barrier(shmemi_g.boot);
    if (ret2)
        return map_peers_fail("barrier", ret2);
    for (pe = 0; direct && pe < shmemi_g.n_pes; pe++) {
        if (pe == shmemi_g.my_pe || shmemi_g.node_of[pe] != shmemi_g.node_of[shmemi_g.my_pe])
            continue;
        heap_name(name, sizeof(name), pe);
        int fd = peer_shm_open(name, pe, shmemi_g.heap_size);
        if (fd < 0)
            continue;
        void *p = mmap(NULL, shmemi_g.heap_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        close(fd);
        if (p == MAP_FAILED) {
            shmemi_debug("mmap of PE %d's heap: %m; it goes through the provider", pe);
            continue;
        }
        shmemi_g.peer_heap[pe] = p;
        if (!map_data || !shmemi_g.data_size)
            continue;
        data_name(name, sizeof(name), pe);
        fd = peer_shm_open(name, pe, data_map_size);
        if (fd < 0)
            continue; /* that PE kept its data private */
        p = mmap(NULL, data_map_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        close(fd);
        if (p != MAP_FAILED)
            shmemi_g.peer_data[pe] = (char *)p + data_map_delta();
    }
    ret = shmemi_g.boot->barrier(shmemi_g.boot);
    heap_name(name, sizeof(name), shmemi_g.my_pe);
    shm_unlink(name);
    heap_named = 0;
    if (shared_data) {
        data_name(name, sizeof(name), shmemi_g.my_pe);
        shm_unlink(name);
    }
    return ret ? map_peers_fail("barrier", ret) : 0;
}

void shmemi_heap_destroy(void)
{
    int pe;

    for (pe = 0; shmemi_g.peer_heap && pe < shmemi_g.n_pes; pe++) {
        if (shmemi_g.peer_heap[pe] && pe != shmemi_g.my_pe)
            munmap(shmemi_g.peer_heap[pe], shmemi_g.heap_size);
        shmemi_g.peer_heap[pe] = NULL;
    }
    /* Our own data stays where it is (shared with nobody now). */
    for (pe = 0; shmemi_g.peer_data && pe < shmemi_g.n_pes; pe++) {
        if (shmemi_g.peer_data[pe] && pe != shmemi_g.my_pe)
            munmap(shmemi_g.peer_data[pe] - data_map_delta(), data_map_size);
        shmemi_g.peer_data[pe] = NULL;
    }
    shmemi_g.data_all_mapped = 0;
    if (heap_named) {
        /* Init failed before the node peers mapped it. */
        char name[128];

        heap_name(name, sizeof(name), shmemi_g.my_pe);
        shm_unlink(name);
        heap_named = 0;
    }
    free(heap_pids);
    heap_pids = NULL;
    if (shmemi_g.heap_base)
        munmap(shmemi_g.heap_base, shmemi_g.heap_size);
    shmemi_g.heap_base = NULL;
    shmemi_g.heap_size = 0;
}

struct data_seg_query {
    const ElfW(Phdr) *phdr;
    int phnum;
    uintptr_t bias;
    int done;
};

static int data_seg_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
    struct data_seg_query *q = arg;

    (void)size;
    if (q->done)
        return 1;
    q->done = 1; /* The first object is the executable. */
    q->phdr = info->dlpi_phdr;
    q->phnum = info->dlpi_phnum;
    q->bias = info->dlpi_addr;
    return 1;
}

/* Finds the executable's .data and .bss (src/mem/data_seg.c): the
 * symmetric data, and the whole pages around them that node peers map. */
void shmemi_data_segment_find(void)
{
    struct data_seg_query q = { 0 };
    shmemi_data_range_t r = { 0 };

    dl_iterate_phdr(data_seg_cb, &q);
    if (q.phdr)
        shmemi_data_range_compute(q.phdr, q.phnum, q.bias, (uintptr_t)sysconf(_SC_PAGESIZE),
                                  shmemi_data_owned_end("/proc/self/exe", q.phdr, q.phnum), &r);
    shmemi_g.data_base = (char *)r.lo;
    shmemi_g.data_size = r.hi - r.lo;
    data_map_base = (char *)r.map_lo;
    data_map_size = r.map_hi - r.map_lo;
    shmemi_debug("symmetric data (.data and .bss): [%p, %p), %zu bytes, in the pages "
                 "[%p, %p); left out: RELRO [%p, %p), .got.plt [%p, %p), GOT slots up to %p, "
                 "the dynamic linker's sections up to %p", (void *)r.lo, (void *)r.hi,
                 shmemi_g.data_size, (void *)r.map_lo, (void *)r.map_hi, (void *)r.relro_lo,
                 (void *)r.relro_hi, (void *)r.gotplt_lo, (void *)r.gotplt_hi, (void *)r.got_hi,
                 (void *)r.owned_hi);
}

/* A killed job cannot unlink what it created in /dev/shm.  Our own heap
 * names are unlinked right after the peers mapped them (a PE killed inside
 * shmem_init may still leave them), and libfabric's shm provider keeps its
 * regions ("PID:N:N") for the life of the endpoint.  At init, remove such
 * names ("fabshmem-...-pPID[-data]" and "PID:N:N") that belong to us and
 * whose process is gone. */
/* Alive: exists and is not a zombie (a killed PE whose parent has not
 * reaped it yet is gone for our purpose). */
static int pid_alive(pid_t pid)
{
    char path[64], buf[256], *p;
    FILE *f;
    int alive = 1;

    if (kill(pid, 0) != 0 && errno == ESRCH)
        return 0;
    snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
    f = fopen(path, "r");
    if (!f)
        return errno == ENOENT ? 0 : 1;
    if (fgets(buf, sizeof(buf), f) && (p = strrchr(buf, ')')) && p[1] == ' ' && p[2] == 'Z')
        alive = 0;
    fclose(f);
    return alive;
}

void shmemi_shm_cleanup_stale(void)
{
    DIR *d = opendir("/dev/shm");
    struct dirent *e;
    uid_t me = getuid();

    if (!d)
        return;
    while ((e = readdir(d)) != NULL) {
        unsigned long pid, a, b;
        char tail;
        char path[300];
        struct stat st;

        const char *p;
        char *end;

        if (!strncmp(e->d_name, "fabshmem-", 9) && (p = strrchr(e->d_name, 'p')) &&
            p > e->d_name && p[-1] == '-') {
            /* Ours: "fabshmem-JOB-GEN-PE-pPID" or "...-pPID-data". */
            pid = strtoul(p + 1, &end, 10);
            if (end == p + 1 || (*end && strcmp(end, "-data")))
                continue;
        } else if (sscanf(e->d_name, "%lu:%lu:%lu%c", &pid, &a, &b, &tail) != 3) {
            continue;
        }
        if (pid == 0)
            continue;
        snprintf(path, sizeof(path), "/dev/shm/%s", e->d_name);
        if (stat(path, &st) != 0 || st.st_uid != me)
            continue;
        if (pid_alive((pid_t)pid))
            continue;
        if (unlink(path) == 0)
            shmemi_debug("removed %s, left by the killed process %lu", path, pid);
    }
    closedir(d);
}
