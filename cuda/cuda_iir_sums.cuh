/* The 3x3 sums of gfx_iir_point (iir_kernels.h) split in their two independent parts, for
 * the kernels that form them at different times: S_a from the input window, S_old from the
 * older outputs.  Same products, same sums, same order as gfx_iir_point; the step then
 * forms ((S_a - S_old) - b(1,0) y(1,0)) - b(0,1) y(0,1). */
#ifndef GFX_CUDA_IIR_SUMS_CUH
#define GFX_CUDA_IIR_SUMS_CUH

namespace gfx_iir
{

constexpr int M = 3;

__device__ __forceinline__ double
sa3 (const double (&a)[9], const double (&xw)[M][M])
{
  double s_a = 0.0;
#pragma unroll
  for (int r1 = 0; r1 < M; r1++)
    {
      double row = a[r1 * M] * xw[r1][0];
#pragma unroll
      for (int r2 = 1; r2 < M; r2++)
        row = row + a[r1 * M + r2] * xw[r1][r2];
      s_a = r1 == 0 ? row : s_a + row;
    }
  return s_a;
}

/* The old terms of gfx_iir_point for 3x3 (its S_old: same products, same order) from
 * the windows of one step: w02 = y(0,2), w11 = y(1,1), w12 = y(1,2), w20 = y(2,0), ... */
__device__ __forceinline__ double
s_old3 (const double (&b)[9], double w02, double w11, double w12, double w20, double w21,
        double w22)
{
  double s = 0.0;
  s = s + (0.0 + b[2] * w02);
  s = s + ((0.0 + b[4] * w11) + b[5] * w12);
  s = s + (((0.0 + b[6] * w20) + b[7] * w21) + b[8] * w22);
  return s;
}

} // namespace gfx_iir

#endif
