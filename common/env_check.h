/* The environment variables gpufx reads (GPUFX_BACKEND, GPUFX_THREADS), read strictly:
 * a value that means nothing is ignored and said so, not taken for something else
 * ("GPUFX_THREADS=1e3" was one thread, "GPUFX_BACKEND=gpus" auto). */
#ifndef GFX_ENV_CHECK_H
#define GFX_ENV_CHECK_H

#include <stddef.h>

#define GFX_MAX_THREADS 256

/* GPUFX_THREADS as a number of threads (at most GFX_MAX_THREADS), or 0 when it is unset
 * or not a whole number from 1. */
int gfx_env_threads (void);

/* A note on the variables set to values that mean nothing ("GPUFX_BACKEND=foo is not
 * auto, cpu or gpu: ignored"), or "" when all are fine. */
void gfx_env_check (char *note, size_t len);

#endif
