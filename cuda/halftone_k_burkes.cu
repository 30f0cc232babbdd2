/* The GPU halftone kernels of one error-diffusion kernel (see halftone_kernel.cuh). */
#include "halftone_kernel.cuh"

gfxht::kernel_fn
gfxht::pick_burkes (bool l2, int depth, bool big)
{
  return pick_kernel<GFX_KERNEL_BURKES> (l2, depth, big);
}
