/* The GPU halftone kernels of one error-diffusion kernel (see halftone_kernel.cuh and
 * halftone_rows.cuh). */
#include "halftone_kernel.cuh"
#include "halftone_rows.cuh"
#include "halftone_pair.cuh"

gfxht::kernel_fn
gfxht::pick_fs (bool l2, int depth, bool big)
{
  return pick_kernel<GFX_KERNEL_FS> (l2, depth, big);
}

/* k: rows per thread (only FS levels 2 u8 has more than ROWS_K); margin: above 0 */
gfxht::rows_fn
gfxht::pick_rows_fs (bool l2, int depth, int k, bool margin)
{
  if (l2 && depth == 0 && k == 2)
    return halftone_rows_kernel<GFX_KERNEL_FS, true, 0, 2>;
  if (l2 && depth == 0 && k == 3)
    return halftone_rows_kernel<GFX_KERNEL_FS, true, 0, 3>;
  if (l2 && depth == 0 && k == 4)
    return halftone_rows_kernel<GFX_KERNEL_FS, true, 0, 4>;
  return pick_rows_k<GFX_KERNEL_FS, ROWS_K> (l2, depth, margin);
}

gfxht::rows_fn
gfxht::pick_rows_fs_ob (bool trace)
{
  return trace ? halftone_rows_kernel<GFX_KERNEL_FS, true, 0, 2, true, true>
               : halftone_rows_kernel<GFX_KERNEL_FS, true, 0, 2, true, false>;
}

/* K = 2 (the default) also without the margin's code where the margin is 0 (it cost 4%) */
gfxht::rows_fn
gfxht::pick_pair_fs (int k, bool trace, bool margin, bool planar)
{
  if (planar)
    return margin ? halftone_pair_kernel<2, false, true, true>
                  : halftone_pair_kernel<2, false, false, true>;
  if (k == 3)
    return trace ? halftone_pair_kernel<3, true> : halftone_pair_kernel<3, false>;
  if (k == 4)
    return trace ? halftone_pair_kernel<4, true> : halftone_pair_kernel<4, false>;
  if (margin)
    return trace ? halftone_pair_kernel<2, true> : halftone_pair_kernel<2, false>;
  return trace ? halftone_pair_kernel<2, true, false> : halftone_pair_kernel<2, false, false>;
}
