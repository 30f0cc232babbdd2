/* A tiny deterministic generator for test data (the same sequence on every machine). */
#ifndef GFX_TEST_RNG_H
#define GFX_TEST_RNG_H

#include <stdint.h>

/* Uniform in [0, 1) from a linear congruential state (Numerical Recipes' constants). */
static inline double
test_uniform (unsigned *state)
{
  *state = *state * 1664525u + 1013904223u;
  return (*state >> 8) * (1.0 / 16777216.0);
}

/* Marsaglia's xorshift32: the next value of *state (seed it non-zero). */
static inline uint32_t
test_xorshift32 (uint32_t *state)
{
  uint32_t x = *state;
  x ^= x << 13;
  x ^= x >> 17;
  x ^= x << 5;
  return *state = x;
}

#endif
