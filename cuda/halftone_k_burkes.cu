/* The GPU halftone kernels of one error-diffusion kernel (see halftone_kernel.cuh and
 * halftone_rows.cuh). */
#include "halftone_kernel.cuh"
#include "halftone_rows.cuh"

gfxht::kernel_fn
gfxht::pick_burkes (bool l2, int depth, bool big)
{
  return pick_kernel<GFX_KERNEL_BURKES> (l2, depth, big);
}

/* k: rows per thread (only FS levels 2 u8 has more than ROWS_K); margin: above 0 */
gfxht::rows_fn
gfxht::pick_rows_burkes (bool l2, int depth, int k, bool margin)
{
  (void) k;
  return pick_rows_k<GFX_KERNEL_BURKES, ROWS_K> (l2, depth, margin);
}
