/* The GPU halftone kernels of one error-diffusion kernel (see halftone_kernel.cuh). */
#include "halftone_kernel.cuh"

gfxht::kernel_fn
gfxht::pick_fs (bool l2, int depth, bool big)
{
  return pick_kernel<GFX_KERNEL_FS> (l2, depth, big);
}
