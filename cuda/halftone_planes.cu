/* The launches of the plane split and merge (halftone_planes.cuh). */
#include "halftone_kernel.cuh"
#include "halftone_rows.cuh"
#include "halftone_pair.cuh"
#include "halftone_planes.cuh"

using namespace gfxht::planes;

cudaError_t
gfxht::split_planes (const void *in, void *planes, int w, int h, int pitch, int channels,
                     int ncolor, cudaStream_t s)
{
  const Planar g{ w, h, pitch, channels, ncolor };
  const Launch<SplitKernel> l = split_launch (g);
  l.kernel<<<dim3 (l.gx, l.gy), THREADS, 0, s>>> ((const unsigned char *) in,
                                                  (unsigned char *) planes, g);
  return cudaGetLastError ();
}

cudaError_t
gfxht::merge_planes (const void *planes, const void *in, void *out, int w, int h, int pitch,
                     int channels, int ncolor, cudaStream_t s)
{
  const Planar g{ w, h, pitch, channels, ncolor };
  const Launch<MergeKernel> l = merge_launch (g);
  l.kernel<<<dim3 (l.gx, l.gy), THREADS, 0, s>>> ((const unsigned char *) planes,
                                                  (const unsigned char *) in,
                                                  (unsigned char *) out, g);
  return cudaGetLastError ();
}
