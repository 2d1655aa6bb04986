/*
 * What src/api includes of the layers below (no other layer includes it:
 * each names the headers it uses): base, cuda and the core, that is the
 * state of this PE (state.h), the configuration (env.h), logging and
 * errors (error.h), address translation and the direct path (addr.h),
 * contexts (ctx.h), RMA (rma.h), atomics (amo.h), signals (signal.h),
 * ordering, progress and back-off (sync.h), point-to-point waits
 * (wait.h), locks (lock.h), the node map (nodemap.h), and the GPU (cuda.h)
 * with GPU memory in the symmetric address space (dev.h).
 */
#ifndef SHMEMI_H
#define SHMEMI_H

#include "base/base.h"
#include "base/env.h"
#include "base/error.h"
#include "base/state.h"
#include "cuda/cuda.h"
#include "core/addr.h"
#include "core/ctx.h"
#include "core/rma.h"
#include "core/amo.h"
#include "core/signal.h"
#include "core/sync.h"
#include "core/wait.h"
#include "core/lock.h"
#include "core/nodemap.h"
#include "core/dev.h"

#endif
