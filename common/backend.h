/* Choosing between the CPU and the GPU path (SPEC section 0).  `auto` uses the GPU when
 * one is usable and falls back to the CPU on any GPU failure, saying so once; `gpu` makes
 * a GPU failure an error carrying the CUDA message.  GPUFX_BACKEND=auto|cpu|gpu replaces
 * the `auto` default. */
#ifndef GFX_BACKEND_H
#define GFX_BACKEND_H

#include <stdbool.h>

#include "params.h"
#include "status.h"

typedef struct {
  gfx_backend used;        /* the path that produced the result */
  char note[GFX_MSG_LEN];  /* why auto fell back to the CPU, empty otherwise */
  bool note_is_new;        /* first fallback note of this process: show it */
} gfx_run_info;

/* The backend a request means once GPUFX_BACKEND is applied to `auto`. */
gfx_backend gfx_backend_effective (int requested);

/* True when this build has the CUDA path compiled in. */
bool gfx_backend_cuda_built (void);

/* Whether a GPU is usable; fills name (may be NULL) with the device name or the reason. */
bool gfx_backend_gpu_usable (char *name, size_t len);

/* Where the parameter values' `backend` (set's parameter of that name) may mean the GPU,
 * starts probing it and creating its context on a
 * thread of its own (once a process), so that this start-up cost (~0.1-0.3 s) overlaps
 * the caller's loading of its image instead of coming after it.  Nothing else changes: the
 * filter call waits for whatever part is not done yet.  Call gfx_backend_warm_up_wait
 * before the process ends, however it ends: exiting while that thread is still inside the
 * CUDA runtime's start can hang the exit (seen on an H200 when the run fell back to the
 * CPU and exited meanwhile). */
void gfx_backend_warm_up (const gfx_param_set *set, const void *values);

/* Waits for the thread gfx_backend_warm_up started, if any (at once when it is done). */
void gfx_backend_warm_up_wait (void);

/* Runs gpu(job) or cpu(job) by the backend rules above.  gpu may be NULL (no GPU path). */
typedef gfx_status (*gfx_path_fn) (void *job, gfx_error *err);
gfx_status gfx_dispatch (int requested, gfx_path_fn gpu, gfx_path_fn cpu, void *job,
                         gfx_run_info *info, gfx_error *err);

#endif
