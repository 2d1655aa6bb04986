/*
 * The state of this PE (base/state.h).
 */
#include "base/state.h"

shmemi_state_t shmemi_g;
