/*
 * Node peers' load/store access to the symmetric buffers that the
 * application allocated itself (src/mem/mem_share.c): what kind of memory a
 * buffer is, as its owner sees it in /proc/self/maps, and how a node peer
 * maps it.
 */
#ifndef SHMEMI_MEM_SHARE_H
#define SHMEMI_MEM_SHARE_H

#include "base/state.h"

/* The kinds of memory a buffer can be. */
enum {
    SHMEMI_SHARE_PRIVATE = 0, /* malloc, the stack, MAP_PRIVATE: never shared */
    SHMEMI_SHARE_FILE,        /* MAP_SHARED of a file that its path still names */
    SHMEMI_SHARE_DELETED,     /* MAP_SHARED of a file without a path: memfd, unlinked */
    SHMEMI_SHARE_ANON,        /* MAP_SHARED | MAP_ANONYMOUS */
    SHMEMI_SHARE_SYSV         /* System V shared memory (shmat) */
};

/* Why node peers do not map a buffer (0: they do). */
enum {
    SHMEMI_SHARE_OK = 0,
    SHMEMI_SHARE_WHY_PRIVATE,    /* private memory */
    SHMEMI_SHARE_WHY_UNMAPPED,   /* part of the range is not mapped at all */
    SHMEMI_SHARE_WHY_SPANS,      /* the range spans several objects or mappings */
    SHMEMI_SHARE_WHY_READONLY,   /* the shared mapping is not writable */
    SHMEMI_SHARE_WHY_MAPS,       /* /proc/self/maps could not be read */
    SHMEMI_SHARE_WHY_OPEN,       /* no way to open the object worked */
    SHMEMI_SHARE_WHY_MMAP,       /* mmap (or shmat) of the object failed */
    SHMEMI_SHARE_WHY_DIRECT_OFF  /* FABSHMEM_DIRECT=0 */
};

/* A buffer as its owner describes it to node peers (exchanged with the
 * bootstrap's allgather, so fixed size and without pointers). */
typedef struct shmemi_share {
    int32_t kind;    /* SHMEMI_SHARE_* */
    int32_t why;     /* SHMEMI_SHARE_OK, or why the owner already knows it cannot be shared */
    int32_t err;     /* the errno behind why, or 0 */
    int32_t pid;     /* the owner's process */
    int32_t fd;      /* a descriptor of the owner's that names the file, or -1 */
    int32_t pad;
    uint64_t dev;    /* the object: device and inode (System V: the segment id) */
    uint64_t ino;
    uint64_t foff;   /* offset in the object of the buffer's first byte */
    uint64_t vma_lo; /* the owner's mapping that holds that byte (/proc/PID/map_files) */
    uint64_t vma_hi;
} shmemi_share_t;

/* A node peer's mapping of a buffer. */
typedef struct shmemi_share_map {
    char *map;   /* what mmap or shmat returned (NULL: nothing mapped) */
    size_t len;  /* mapped bytes (munmap) */
    int sysv;    /* 1: detach with shmdt */
} shmemi_share_map_t;

/* Reads a maps file (the format of /proc/PID/maps) and describes the
 * range [addr, addr+len): kind, why, dev, ino, foff, vma_lo and vma_hi of
 * *d_p (the others are left as they are).  path (pathlen bytes) gets the
 * path of the mapping, "" when it has none.  Pure: unit tested. */
void shmemi_share_parse(FILE *maps, uintptr_t addr, size_t len, shmemi_share_t *d_p, char *path,
                        size_t pathlen);
/* Describes this process's buffer [addr, addr+len) for node peers. */
void shmemi_share_describe(const void *addr, size_t len, shmemi_share_t *d_p);
/* Maps the len bytes that d describes (another process's buffer) here:
 * SHMEMI_SHARE_OK with *m_p and the buffer's local address in *addr_p, or
 * a SHMEMI_SHARE_WHY_* code with the errno behind it in *err_p. */
int shmemi_share_map(const shmemi_share_t *d, size_t len, shmemi_share_map_t *m_p, char **addr_p,
                     int *err_p);
/* Unmaps what shmemi_share_map mapped (nothing for an empty map). */
void shmemi_share_unmap(shmemi_share_map_t *m);
/* A sentence on why a buffer of kind is not shared (why, err), in buf. */
void shmemi_share_why(int why, int kind, int err, char *buf, size_t size);
/* "memfd or unlinked file", "System V segment", ...: for messages. */
const char *shmemi_share_kind_name(int kind);

#endif
