#include "halftone_kernels.h"

/* Taps listed in the raster order of the pixels their error comes from (farthest row
 * first, each row left to right: dy descending, then dx descending).  A pixel adds them in
 * this order to its input value, as the classic in-place diffusion does; the error made
 * just before (the left neighbour's) comes last, one fused multiply-add before the
 * quantiser, which keeps the dependent chain of every path short. */
const gfx_kernel gfx_kernels[GFX_KERNEL_COUNT] = {
  [GFX_KERNEL_FS] = { 4, { { 1, 1, 1 }, { 0, 1, 5 }, { -1, 1, 3 }, { 1, 0, 7 } }, 16, 2, 1 },
  [GFX_KERNEL_JJN] = { 12, { { 2, 2, 1 }, { 1, 2, 3 }, { 0, 2, 5 }, { -1, 2, 3 }, { -2, 2, 1 },
                             { 2, 1, 3 }, { 1, 1, 5 }, { 0, 1, 7 }, { -1, 1, 5 }, { -2, 1, 3 },
                             { 2, 0, 5 }, { 1, 0, 7 } },
                           48, 3, 2 },
  [GFX_KERNEL_STUCKI] = { 12, { { 2, 2, 1 }, { 1, 2, 2 }, { 0, 2, 4 }, { -1, 2, 2 }, { -2, 2, 1 },
                                { 2, 1, 2 }, { 1, 1, 4 }, { 0, 1, 8 }, { -1, 1, 4 }, { -2, 1, 2 },
                                { 2, 0, 4 }, { 1, 0, 8 } },
                              42, 3, 2 },
  [GFX_KERNEL_BURKES] = { 7, { { 2, 1, 2 }, { 1, 1, 4 }, { 0, 1, 8 }, { -1, 1, 4 }, { -2, 1, 2 },
                               { 2, 0, 4 }, { 1, 0, 8 } },
                             32, 2, 2 },
  [GFX_KERNEL_SIERRA] = { 10, { { 1, 2, 2 }, { 0, 2, 3 }, { -1, 2, 2 },
                                { 2, 1, 2 }, { 1, 1, 4 }, { 0, 1, 5 }, { -1, 1, 4 }, { -2, 1, 2 },
                                { 2, 0, 3 }, { 1, 0, 5 } },
                              32, 3, 2 },
  [GFX_KERNEL_SIERRA2] = { 7, { { 2, 1, 1 }, { 1, 1, 2 }, { 0, 1, 3 }, { -1, 1, 2 }, { -2, 1, 1 },
                                { 2, 0, 3 }, { 1, 0, 4 } },
                              16, 2, 2 },
  [GFX_KERNEL_SIERRA_LITE] = { 3, { { 0, 1, 1 }, { -1, 1, 1 }, { 1, 0, 2 } }, 4, 2, 1 },
  [GFX_KERNEL_ATKINSON] = { 6, { { 0, 2, 1 },
                                 { 1, 1, 1 }, { 0, 1, 1 }, { -1, 1, 1 },
                                 { 2, 0, 1 }, { 1, 0, 1 } },
                               8, 3, 1 },
};
