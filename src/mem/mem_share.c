/*
 * Node peers' load/store access to the symmetric buffers that the
 * application allocated itself (shmemx_buffer_register_symmetric).
 *
 * Memory can be mapped by another process only if it belongs to an object
 * that the other process can open: a file (tmpfs, /dev/shm, hugetlbfs or a
 * disk: the page cache is the shared memory), a memfd, a System V segment.
 * The owner of a buffer reads /proc/self/maps to find the object behind the
 * buffer (one MAP_SHARED, writable mapping, or adjacent ones of the same
 * object at consecutive offsets), its device and inode and the buffer's
 * offset in it, and looks for a descriptor of its own that names it.  A
 * node peer then opens the object the first way that works, and checks
 * that what it opened is that device and inode:
 *
 *   1. /proc/PID/fd/N, the owner's descriptor (a memfd, an open file,
 *      even unlinked): needs what reading the owner's maps needs (the same
 *      user, or CAP_SYS_PTRACE);
 *   2. pidfd_getfd of the same descriptor (Linux 5.6; ptrace permission):
 *      for a file whose permissions would refuse a second open;
 *   3. the path that the owner's maps show, while it still names the file;
 *   4. /proc/PID/map_files/LO-HI, the owner's mapping itself: the only way
 *      to MAP_SHARED | MAP_ANONYMOUS memory and to an unlinked file nobody
 *      holds open, but it needs CAP_SYS_ADMIN or CAP_CHECKPOINT_RESTORE.
 *
 * System V segments are attached by their id (the inode of the mapping).
 * Private memory (malloc, the stack, a MAP_PRIVATE mapping, file-backed or
 * not) has no object: its pages belong to the process and cannot be shared
 * after the fact, so node peers reach such buffers through the provider.
 */
#define _GNU_SOURCE
#include "mem/mem_share.h"
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/shm.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#ifndef HUGETLBFS_MAGIC
#define HUGETLBFS_MAGIC 0x958458f6
#endif

static const char deleted_tail[] = " (deleted)";

static int ends_with(const char *s, const char *tail)
{
    size_t n = strlen(s), t = strlen(tail);

    return n >= t && !strcmp(s + n - t, tail);
}

/* The kind of a shared mapping from the path that maps shows for it. */
static int kind_of_path(const char *path)
{
    if (!strncmp(path, "/SYSV", 5) && ends_with(path, deleted_tail))
        return SHMEMI_SHARE_SYSV;
    if (!strcmp(path, "/dev/zero (deleted)") || !path[0])
        return SHMEMI_SHARE_ANON;
    if (ends_with(path, deleted_tail))
        return SHMEMI_SHARE_DELETED;
    return SHMEMI_SHARE_FILE;
}

/* One line of a maps file. */
struct maps_ent {
    uintptr_t lo, hi;
    char perms[8];
    uint64_t off, dev, ino;
    char *path; /* inside the line; "" when none */
};

static int maps_line(char *line, struct maps_ent *e)
{
    unsigned long lo, hi;
    unsigned long long off, ino;
    unsigned maj, min;
    size_t n;
    int pos = 0;

    if (sscanf(line, "%lx-%lx %7s %llx %x:%x %llu%n", &lo, &hi, e->perms, &off, &maj, &min, &ino,
               &pos) < 7 || strlen(e->perms) < 4)
        return -1;
    e->lo = lo;
    e->hi = hi;
    e->off = off;
    e->dev = makedev(maj, min);
    e->ino = ino;
    e->path = line + pos;
    while (*e->path == ' ' || *e->path == '\t')
        e->path++;
    n = strlen(e->path);
    while (n && (e->path[n - 1] == '\n' || e->path[n - 1] == ' '))
        e->path[--n] = '\0';
    return 0;
}

void shmemi_share_parse(FILE *maps, uintptr_t addr, size_t len, shmemi_share_t *d_p, char *path,
                        size_t pathlen)
{
    uintptr_t cur = addr, end = addr + len;
    uint64_t next_off = 0;
    struct maps_ent e;
    char *line = NULL;
    size_t cap = 0;
    int first = 1, why = SHMEMI_SHARE_WHY_UNMAPPED;

    if (path && pathlen)
        path[0] = '\0';
    d_p->kind = SHMEMI_SHARE_PRIVATE;
    while (cur < end && getline(&line, &cap, maps) > 0) {
        if (maps_line(line, &e) || e.hi <= cur)
            continue;
        if (e.lo > cur)
            break; /* A hole in the range. */
        if (first) {
            if (e.perms[3] != 's') {
                why = SHMEMI_SHARE_WHY_PRIVATE;
                break;
            }
            d_p->kind = kind_of_path(e.path);
            d_p->dev = e.dev;
            d_p->ino = e.ino;
            d_p->foff = e.off + (cur - e.lo);
            d_p->vma_lo = e.lo;
            d_p->vma_hi = e.hi;
            if (path && pathlen)
                snprintf(path, pathlen, "%s", e.path);
            first = 0;
        } else if (e.perms[3] != 's' || e.dev != d_p->dev || e.ino != d_p->ino ||
                   e.off != next_off) {
            why = SHMEMI_SHARE_WHY_SPANS;
            break;
        }
        if (e.perms[1] != 'w') {
            why = SHMEMI_SHARE_WHY_READONLY;
            break;
        }
        next_off = e.off + (e.hi - e.lo);
        cur = e.hi;
    }
    if (cur >= end)
        why = SHMEMI_SHARE_OK;
    d_p->why = why;
    free(line);
}

/* The lowest descriptor of this process that names the file dev/ino, or -1. */
static int own_fd_of(uint64_t dev, uint64_t ino)
{
    DIR *dir = opendir("/proc/self/fd");
    struct dirent *de;
    struct stat st;
    int best = -1;

    if (!dir)
        return -1;
    while ((de = readdir(dir)) != NULL) {
        char *end;
        long fd = strtol(de->d_name, &end, 10);

        if (end == de->d_name || *end || fd == dirfd(dir) || fd < 0 || fd > INT_MAX)
            continue;
        if (fstat((int)fd, &st) == 0 && (uint64_t)st.st_dev == dev && (uint64_t)st.st_ino == ino &&
            (best < 0 || fd < best))
            best = (int)fd;
    }
    closedir(dir);
    return best;
}

void shmemi_share_describe(const void *addr, size_t len, shmemi_share_t *d_p)
{
    FILE *fp;

    memset(d_p, 0, sizeof(*d_p));
    d_p->fd = -1;
    d_p->pid = (int32_t)getpid();
    fp = fopen("/proc/self/maps", "re");
    if (!fp) {
        d_p->why = SHMEMI_SHARE_WHY_MAPS;
        d_p->err = errno;
        return;
    }
    shmemi_share_parse(fp, (uintptr_t)addr, len, d_p, NULL, 0);
    fclose(fp);
    if (d_p->why == SHMEMI_SHARE_OK &&
        (d_p->kind == SHMEMI_SHARE_FILE || d_p->kind == SHMEMI_SHARE_DELETED))
        d_p->fd = own_fd_of(d_p->dev, d_p->ino);
}

/* fd if it is the object d describes (else closes it), or -1 with *err_p. */
static int check_fd(int fd, const shmemi_share_t *d, int *err_p)
{
    struct stat st;

    if (fd < 0)
        return -1;
    if (fstat(fd, &st) != 0 || (uint64_t)st.st_dev != d->dev || (uint64_t)st.st_ino != d->ino) {
        *err_p = ESTALE; /* The name leads somewhere else now. */
        close(fd);
        return -1;
    }
    return fd;
}

static int open_check(const char *path, const shmemi_share_t *d, int *err_p)
{
    int fd = open(path, O_RDWR | O_CLOEXEC);

    if (fd < 0) {
        *err_p = errno;
        return -1;
    }
    return check_fd(fd, d, err_p);
}

/* The owner's descriptor d->fd, duplicated into this process. */
static int getfd_check(const shmemi_share_t *d, int *err_p)
{
#if defined(SYS_pidfd_open) && defined(SYS_pidfd_getfd)
    int pfd = (int)syscall(SYS_pidfd_open, (pid_t)d->pid, 0), fd;

    if (pfd < 0) {
        *err_p = errno;
        return -1;
    }
    fd = (int)syscall(SYS_pidfd_getfd, pfd, d->fd, 0);
    if (fd < 0)
        *err_p = errno;
    close(pfd);
    return check_fd(fd, d, err_p);
#else
    (void)d;
    *err_p = ENOSYS;
    return -1;
#endif
}

/* The path that the owner's maps show for its mapping of the object. */
static int owner_path(const shmemi_share_t *d, char *path, size_t size)
{
    shmemi_share_t seen = { 0 };
    char maps[64];
    FILE *fp;

    snprintf(maps, sizeof(maps), "/proc/%d/maps", (int)d->pid);
    fp = fopen(maps, "re");
    if (!fp)
        return -errno;
    shmemi_share_parse(fp, (uintptr_t)d->vma_lo, 1, &seen, path, size);
    fclose(fp);
    if (seen.why != SHMEMI_SHARE_OK || seen.dev != d->dev || seen.ino != d->ino ||
        ends_with(path, deleted_tail) || path[0] != '/')
        return -ENOENT;
    return 0;
}

/* Opens the object that d describes (not a System V one): a descriptor,
 * or -1 with the errno of the way that should have worked in *err_p. */
static int share_open(const shmemi_share_t *d, int *err_p)
{
    char path[PATH_MAX + 64];
    int fd = -1, err_fd = 0, err_path = 0, err_files = 0;

    if (d->fd >= 0) {
        snprintf(path, sizeof(path), "/proc/%d/fd/%d", (int)d->pid, (int)d->fd);
        fd = open_check(path, d, &err_fd);
        if (fd < 0)
            fd = getfd_check(d, &err_fd);
    }
    if (fd < 0 && d->kind == SHMEMI_SHARE_FILE && owner_path(d, path, sizeof(path)) == 0)
        fd = open_check(path, d, &err_path);
    if (fd < 0) {
        snprintf(path, sizeof(path), "/proc/%d/map_files/%llx-%llx", (int)d->pid,
                 (unsigned long long)d->vma_lo, (unsigned long long)d->vma_hi);
        fd = open_check(path, d, &err_files);
    }
    if (fd < 0)
        *err_p = err_path ? err_path : err_fd ? err_fd : err_files;
    return fd;
}

static int map_sysv(const shmemi_share_t *d, size_t len, shmemi_share_map_t *m_p, char **addr_p,
                    int *err_p)
{
    int id = (int)d->ino;
    struct shmid_ds ds;
    char *p = shmat(id, NULL, 0);

    if (p == (char *)-1) {
        *err_p = errno;
        return SHMEMI_SHARE_WHY_OPEN;
    }
    if (shmctl(id, IPC_STAT, &ds) != 0 || ds.shm_segsz < d->foff + len) {
        *err_p = ESTALE;
        shmdt(p);
        return SHMEMI_SHARE_WHY_OPEN;
    }
    m_p->map = p;
    m_p->len = ds.shm_segsz;
    m_p->sysv = 1;
    *addr_p = p + d->foff;
    return SHMEMI_SHARE_OK;
}

int shmemi_share_map(const shmemi_share_t *d, size_t len, shmemi_share_map_t *m_p, char **addr_p,
                     int *err_p)
{
    size_t align = (size_t)sysconf(_SC_PAGESIZE), delta, mlen;
    struct statfs sf;
    uint64_t moff;
    char *p;
    int fd;

    memset(m_p, 0, sizeof(*m_p));
    *err_p = d->err;
    if (d->why != SHMEMI_SHARE_OK)
        return d->why;
    *err_p = 0;
    if (d->kind == SHMEMI_SHARE_SYSV)
        return map_sysv(d, len, m_p, addr_p, err_p);
    fd = share_open(d, err_p);
    if (fd < 0)
        return SHMEMI_SHARE_WHY_OPEN;
    /* A hugetlbfs file maps in whole huge pages. */
    if (fstatfs(fd, &sf) == 0 && (unsigned long)sf.f_type == HUGETLBFS_MAGIC &&
        (size_t)sf.f_bsize > align)
        align = (size_t)sf.f_bsize;
    moff = d->foff & ~(uint64_t)(align - 1);
    delta = (size_t)(d->foff - moff);
    mlen = (delta + len + align - 1) & ~(align - 1);
    p = mmap(NULL, mlen, PROT_READ | PROT_WRITE, MAP_SHARED, fd, (off_t)moff);
    *err_p = p == MAP_FAILED ? errno : 0;
    close(fd);
    if (p == MAP_FAILED)
        return SHMEMI_SHARE_WHY_MMAP;
    m_p->map = p;
    m_p->len = mlen;
    *addr_p = p + delta;
    return SHMEMI_SHARE_OK;
}

void shmemi_share_unmap(shmemi_share_map_t *m)
{
    if (!m->map)
        return;
    if (m->sysv)
        shmdt(m->map);
    else
        munmap(m->map, m->len);
    memset(m, 0, sizeof(*m));
}

const char *shmemi_share_kind_name(int kind)
{
    switch (kind) {
    case SHMEMI_SHARE_FILE: return "a MAP_SHARED mapping of a file";
    case SHMEMI_SHARE_DELETED: return "a MAP_SHARED mapping of a memfd or an unlinked file";
    case SHMEMI_SHARE_ANON: return "MAP_SHARED | MAP_ANONYMOUS memory";
    case SHMEMI_SHARE_SYSV: return "a System V shared memory segment";
    default: return "private memory";
    }
}

void shmemi_share_why(int why, int kind, int err, char *buf, size_t size)
{
    const char *e = err ? strerror(err) : "no error";

    switch (why) {
    case SHMEMI_SHARE_OK:
        snprintf(buf, size, "node peers map it");
        break;
    case SHMEMI_SHARE_WHY_PRIVATE:
        snprintf(buf, size, "it is private memory (malloc, the stack or a MAP_PRIVATE mapping), "
                 "which cannot be shared once allocated; allocate it with memfd_create, shm_open "
                 "or shmget and map it MAP_SHARED");
        break;
    case SHMEMI_SHARE_WHY_UNMAPPED:
        snprintf(buf, size, "part of it is not mapped");
        break;
    case SHMEMI_SHARE_WHY_SPANS:
        snprintf(buf, size, "it spans more than one mapping (of different objects, or shared and "
                 "private)");
        break;
    case SHMEMI_SHARE_WHY_READONLY:
        snprintf(buf, size, "its shared mapping is not writable");
        break;
    case SHMEMI_SHARE_WHY_MAPS:
        snprintf(buf, size, "/proc/self/maps cannot be read: %s", e);
        break;
    case SHMEMI_SHARE_WHY_OPEN:
        if (kind == SHMEMI_SHARE_ANON)
            snprintf(buf, size, "it is MAP_SHARED | MAP_ANONYMOUS memory, which another process "
                     "can open only through /proc/PID/map_files, and that needs CAP_SYS_ADMIN or "
                     "CAP_CHECKPOINT_RESTORE (%s); a memfd works without", e);
        else if (kind == SHMEMI_SHARE_DELETED)
            snprintf(buf, size, "it is %s that no path names and no descriptor of its process "
                     "holds (keep the descriptor open), and /proc/PID/map_files needs "
                     "CAP_SYS_ADMIN or CAP_CHECKPOINT_RESTORE (%s)",
                     shmemi_share_kind_name(kind), e);
        else if (kind == SHMEMI_SHARE_SYSV)
            snprintf(buf, size, "attaching its System V segment failed (%s)", e);
        else
            snprintf(buf, size, "opening its file failed (%s)", e);
        break;
    case SHMEMI_SHARE_WHY_MMAP:
        snprintf(buf, size, "mapping %s failed (%s)", shmemi_share_kind_name(kind), e);
        break;
    case SHMEMI_SHARE_WHY_DIRECT_OFF:
        snprintf(buf, size, "the direct path is off (FABSHMEM_DIRECT=0)");
        break;
    default:
        snprintf(buf, size, "unknown reason %d", why);
        break;
    }
}
