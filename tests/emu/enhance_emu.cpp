/* Runs the band local-enhance kernel (cuda/enhance_band.cuh) on the CPU through cuda_emu.h
 * and compares its output and mask bit for bit with gfx_enhance_cpu: the kernel's index
 * arithmetic (spans, column bands, strips, the prefix scans, reflected rows and columns)
 * on machines without a GPU.  8-bit gray, small images, windows up to larger than the
 * image.  Built and run by `make check` (build/tests/test_enhance_emu). */
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#include "../../common/enhance_math.h"
#include "../../common/enhance_types.h"
#include "../../common/image.h"

/* common/enhance.h pulls in C11 atomics (progress.h); what is needed from it: */
extern "C" {
#include "../../common/params.h"
struct gfx_progress;
extern const gfx_param_set gfx_enhance_param_set;
gfx_status gfx_enhance_cpu (const gfx_image *in, gfx_image *out, gfx_image *mask,
                            const gfx_enhance_params *p, gfx_progress *progress,
                            gfx_error *err);
}

#define ENH_EMULATE /* enhance_cuda_internal.h without the CUDA runtime */
typedef int cudaError_t;
typedef struct emu_stream *cudaStream_t;
#include "cuda_emu.h"

static inline void cudaGridDependencySynchronize () {}

#include "../../cuda/enhance_band.cuh"

static unsigned rnd = 2024;

static double
uniform ()
{
  rnd = rnd * 1103515245u + 12345u;
  return (rnd >> 8) / 16777216.0;
}

/* Patches of dark and bright with a ramp and noise: mixed decisions. */
static void
fill (gfx_image *img)
{
  uint8_t *px = (uint8_t *) img->pixels;
  for (int y = 0; y < img->height; y++)
    for (int x = 0; x < img->width; x++)
      {
        double v = 0.7 * (x + 2 * y) / (img->width + 2 * img->height) + 0.15 * uniform ();
        if ((x / 11 + y / 6) % 3 == 0)
          v *= 0.2;
        px[(size_t) y * img->width + x] = (uint8_t) (v > 1 ? 255 : v * 255.0);
      }
}

/* The band kernel's output and mask for in (8-bit gray) with p, on the emulated GPU. */
static void
run (const gfx_image *in, const gfx_enhance_params *p, EnhStripTuning tune, gfx_image *out,
     gfx_image *mask)
{
  const int w = in->width, h = in->height, r = p->window / 2;
  const size_t n = (size_t) w * h;
  const uint8_t *px = (const uint8_t *) in->pixels;
  std::vector<uint8_t> key (px, px + n);
  key.resize (n + 16, 0); /* the slack after the last row */
  gfx_i128 t1 = 0;
  gfx_u128 t2 = 0;
  for (size_t i = 0; i < n; i++)
    t1 += key[i], t2 += (gfx_u128) key[i] * key[i];
  const double k[4] = { p->k0, p->k1, p->k2, p->k3 };
  static EnhState st; /* large: not on the stack */
  st.th = gfx_enh_thresholds_make (t1, t2, n, (uint32_t) (p->window * p->window), k, p->rule);
  std::vector<uint16_t> lut (256);
  for (int v = 0; v < 256; v++)
    lut[v] = (uint16_t) gfx_enh_gain_int ((uint32_t) v, p->gain, 255.0);
  int ow = 0, threads = 0, strip = 0;
  enh_band::geometry (w, r, tune, &ow, &threads, &strip);
  const int nbx = (w + ow - 1) / ow, nby = (h + strip - 1) / strip;
  EnhSink<uint8_t> sink = {};
  sink.out = (uint8_t *) out->pixels;
  sink.lut = lut.data ();
  sink.mask = (uint8_t *) mask->pixels;
  const enh_band::Args a = { key.data (), w, h, r, ow, strip, &st, sink };
  std::atomic<int> next{ 0 };
  emu_launch (
    nbx * nby, threads,
    [&] (EmuBlock &b) {
      b.smem.assign (enh_band::smem_bytes (threads) + 16, 0);
      const int id = next++;
      memcpy (b.smem.data (), &id, sizeof id); /* the block's index, before its shared block */
    },
    [&] {
      int id;
      memcpy (&id, emu_block->smem.data (), sizeof id);
      const enh_band::Smem s = enh_band::smem_layout (emu_block->smem.data () + 16, threads);
      const bool wide = p->window > 21;
      if (wide)
        enh_band::band_block<true> (a, s, id % nbx, id / nbx, (int) emu_tid, threads);
      else
        enh_band::band_block<false> (a, s, id % nbx, id / nbx, (int) emu_tid, threads);
    });
}

int
main (void)
{
  /* 300 wide with 32 threads (a span of 256 columns): two and more column bands */
  static const int sizes[][2] = { { 1, 1 }, { 7, 5 }, { 1, 40 }, { 40, 1 }, { 37, 23 },
                                  { 300, 20 }, { 530, 9 } };
  static const int windows[] = { 3, 5, 7, 21, 23, 41, 255 };
  static const int knobs[][2] = { { 1, 0 }, { 1, 5 }, { 2, 1 }, { 0, 0 } }; /* cols, strip */
  int fails = 0, cases = 0;
  for (int s = 0; s < 7; s++)
    for (int wi = 0; wi < 7; wi++)
      {
        const int kn = (s + wi) % 4, w = sizes[s][0], h = sizes[s][1];
        gfx_enhance_params p;
        gfx_params_defaults (&gfx_enhance_param_set, &p);
        p.backend = GFX_BACKEND_CPU;
        p.window = windows[wi], p.rule = (s + wi) % 2, p.gain = 2.5;
        if (p.rule == 0)
          p.k0 = 0.8, p.k1 = 0.05, p.k2 = 1.0;
        else
          p.k0 = 0.1, p.k1 = 0.8, p.k2 = 0.05, p.k3 = 1.0;
        gfx_image in, cpu, cmask, emu, emask;
        gfx_error err;
        gfx_image_alloc (&in, w, h, 1, false, GFX_U8, &err);
        fill (&in);
        gfx_enhance_cpu (&in, &cpu, &cmask, &p, NULL, &err);
        gfx_image_alloc (&emu, w, h, 1, false, GFX_U8, &err);
        gfx_image_alloc (&emask, w, h, 1, false, GFX_U8, &err);
        memset (emu.pixels, 0x77, (size_t) w * h);
        EnhStripTuning tune = { 5, knobs[kn][0], knobs[kn][1], 0, 0 };
        run (&in, &p, tune, &emu, &emask);
        long enhanced = 0;
        for (size_t i = 0; i < (size_t) w * h; i++)
          enhanced += ((uint8_t *) cmask.pixels)[i] != 0;
        const bool same = !memcmp (cpu.pixels, emu.pixels, (size_t) w * h)
                          && !memcmp (cmask.pixels, emask.pixels, (size_t) w * h);
        printf ("%s emulated band kernel == cpu: %dx%d u8 gray, n=%d, rule %d, cols %d, "
                "strip %d (%ld enhanced)\n",
                same ? "PASS" : "FAIL", w, h, p.window, p.rule, knobs[kn][0], knobs[kn][1],
                enhanced);
        fflush (stdout);
        fails += !same;
        cases++;
        gfx_image_free (&in), gfx_image_free (&cpu), gfx_image_free (&cmask);
        gfx_image_free (&emu), gfx_image_free (&emask);
      }
  printf ("# %d of %d cases failed\n", fails, cases);
  return fails != 0;
}
