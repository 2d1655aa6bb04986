/* fabshmem extensions: collectives (reducescatter; included by shmemx.h). */
