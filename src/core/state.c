/*
 * The state of this PE (core/state.h).
 */
#include "core/shmemi.h"

shmemi_state_t shmemi_g;
