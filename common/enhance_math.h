/* The local-enhance maths shared by the CPU path and the CUDA kernels (GFX_HD), so both
 * compile the very same expressions.
 *
 * Exactness: the statistics are built from integer "keys" (8/16-bit samples or luma as
 * integers; float samples as round(v * scale), scale the power of two that gives the
 * image's largest sample 24 bits: gfx_enh_fix_scale).  Window sums S1 = sum k, S2 = sum k^2 over
 * the N = n*n window and the image totals T1, T2 over P pixels are exact integers (the
 * window sums may be accumulated with wrap-around in unsigned types: the true window sum
 * fits, so the modular result is the true one).  With D = N*S2 - S1^2 (also exact),
 *   m_S = S1/N,  sigma_S = sqrt(D)/N,
 * so "m_S <= k0 m_G" is "S1 <= floor(k0 m_G N)" and "sigma_S >= k1 sigma_G" is
 * "D >= ceil((k1 sigma_G N)^2)".  gfx_enh_thresholds computes these integer bounds once,
 * in double with a fixed expression; every pixel is then decided by integer compares. */
#ifndef GFX_ENHANCE_MATH_H
#define GFX_ENHANCE_MATH_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "hd.h"

typedef unsigned __int128 gfx_u128;
typedef __int128 gfx_i128;

/* Integer bounds of the rule: enhanced iff s1_lo <= S1 <= s1_hi and d_lo <= D <= d_hi.
 * d_lo64/d_hi64 are the same bounds saturated to 64 bits, for keys whose D fits there. */
typedef struct {
  int64_t s1_lo, s1_hi;
  gfx_u128 d_lo, d_hi;
  uint64_t d_lo64, d_hi64;
} gfx_enh_thresholds;

/* Symmetric half-sample extension (scipy 'reflect'), repeating for any offset:
 * ... 1 0 | 0 1 ... len-1 | len-1 len-2 ...  An index inside costs no division (the GPU
 * kernels call this for every loaded sample). */
GFX_HD int
gfx_enh_reflect (int i, int len)
{
  if (i >= 0 && i < len)
    return i;
  int period = 2 * len;
  int m = i % period;
  if (m < 0)
    m += period;
  return m < len ? m : period - 1 - m;
}

/* Rec. 709 luma weights on the perceptual values, in 1/65536 (they sum to 65536), rounded:
 * an integer luma on the sample's own scale. */
GFX_HD uint32_t
gfx_enh_luma_int (uint32_t r, uint32_t g, uint32_t b)
{
  return (13933u * r + 46871u * g + 4732u * b + 32768u) >> 16;
}

GFX_HD float
gfx_enh_luma_float (float r, float g, float b)
{
  return (0.2126f * r + 0.7152f * g) + 0.0722f * b;
}

/* Fixed-point key of a float sample, scale from gfx_enh_fix_scale (so |key| <= 2^24, up to
 * the luma's rounding, and n*n squared keys stay below 2^64).  The product is exact (a
 * power of two); rintf rounds half to even on both sides. */
GFX_HD int32_t
gfx_enh_fix (float v, float scale)
{
  return (int32_t) rintf (v * scale);
}

/* The scale of a float image's keys, from its largest |colour sample| (gfx_image_max_abs):
 * 2^(24 - e) for max_abs < 2^e, so the keys have 24 bits whatever the image's brightness:
 * the rule is scale-invariant, and a dark picture is decided as the same picture brighter
 * (a fixed 2^20 misjudged thousands of pixels of an image 1000 times darker).  Capped at
 * 2^127: samples below 2^-103 keep fewer bits.  Host only. */
static inline float
gfx_enh_fix_scale (float max_abs)
{
  int e;
  frexpf (max_abs, &e);
  return ldexpf (1.0f, 24 - e < 127 ? 24 - e : 127);
}

/* Conversions of 128-bit integers to double by halves: a fixed expression, so host and
 * device round identically. */
GFX_HD double
gfx_enh_u128_to_double (gfx_u128 v)
{
  return (double) (uint64_t) (v >> 64) * 18446744073709551616.0 + (double) (uint64_t) v;
}

GFX_HD double
gfx_enh_i128_to_double (gfx_i128 v)
{
  return v < 0 ? -gfx_enh_u128_to_double ((gfx_u128) -v) : gfx_enh_u128_to_double ((gfx_u128) v);
}

GFX_HD int64_t
gfx_enh_sat_i64 (double t) /* t integer-valued */
{
  if (!(t > -9.2e18))
    return INT64_MIN;
  if (!(t < 9.2e18))
    return INT64_MAX;
  return (int64_t) t;
}

GFX_HD gfx_u128
gfx_enh_sat_u128 (double t) /* t integer-valued */
{
  if (!(t > 0.0))
    return 0;
  if (!(t < 1.0e36))
    return (gfx_u128) 1 << 120; /* above any D (< 2^117) */
  double hi = floor (t / 18446744073709551616.0);
  double lo = t - hi * 18446744073709551616.0;
  return ((gfx_u128) (uint64_t) hi << 64) + (gfx_u128) (uint64_t) lo;
}

GFX_HD uint64_t
gfx_enh_sat_u64 (gfx_u128 v)
{
  return v > (gfx_u128) UINT64_MAX ? UINT64_MAX : (uint64_t) v;
}

/* Bounds from the image totals T1 = sum k, T2 = sum k^2 over P pixels, the window size
 * N = n*n, k[0..3] and the rule (0: 3rd edition, 1: 4th edition). */
GFX_HD gfx_enh_thresholds
gfx_enh_thresholds_make (gfx_i128 t1, gfx_u128 t2, uint64_t p, uint32_t n_win,
                         const double k[4], int rule)
{
  gfx_u128 abs_t1 = t1 < 0 ? (gfx_u128) -t1 : (gfx_u128) t1;
  gfx_u128 dg = (gfx_u128) p * t2 - abs_t1 * abs_t1; /* P^2 sigma_G^2, exact */
  double pd = (double) p, nd = (double) n_win;
  double m_g = gfx_enh_i128_to_double (t1) / pd;
  double s_g = sqrt (gfx_enh_u128_to_double (dg)) / pd;
  /* mean bounds: k0 (3rd edition: upper only) or k0..k1; sigma: k1..k2 or k2..k3 */
  const double *ks = rule == 0 ? k + 1 : k + 2;
  gfx_enh_thresholds th;
  double s_lo = k[0] * m_g * nd, s_hi = k[1] * m_g * nd;
  th.s1_lo = rule == 0 ? INT64_MIN : gfx_enh_sat_i64 (ceil (s_lo));
  th.s1_hi = gfx_enh_sat_i64 (floor (rule == 0 ? s_lo : s_hi));
  double d_lo = ks[0] * s_g * nd, d_hi = ks[1] * s_g * nd;
  th.d_lo = gfx_enh_sat_u128 (ceil (d_lo * d_lo));
  th.d_hi = gfx_enh_sat_u128 (floor (d_hi * d_hi));
  th.d_lo64 = gfx_enh_sat_u64 (th.d_lo);
  th.d_hi64 = gfx_enh_sat_u64 (th.d_hi);
  return th;
}

/* The decision for keys whose D fits 64 bits (8/16-bit data). */
GFX_HD int
gfx_enh_decide64 (int64_t s1, uint64_t d, const gfx_enh_thresholds *th)
{
  return (s1 >= th->s1_lo) & (s1 <= th->s1_hi) & (d >= th->d_lo64) & (d <= th->d_hi64);
}

GFX_HD int
gfx_enh_decide128 (int64_t s1, gfx_u128 d, const gfx_enh_thresholds *th)
{
  return (s1 >= th->s1_lo) & (s1 <= th->s1_hi) & (d >= th->d_lo) & (d <= th->d_hi);
}

/* D = N*S2 - S1^2 for the three key kinds. */
GFX_HD uint64_t
gfx_enh_d_u32 (uint32_t n_win, uint32_t s1, uint32_t s2) /* 8-bit keys */
{
  return (uint64_t) n_win * s2 - (uint64_t) s1 * s1;
}

GFX_HD uint64_t
gfx_enh_d_u64 (uint32_t n_win, uint32_t s1, uint64_t s2) /* 16-bit keys */
{
  return (uint64_t) n_win * s2 - (uint64_t) s1 * s1;
}

GFX_HD gfx_u128
gfx_enh_d_i64 (uint32_t n_win, int64_t s1, uint64_t s2) /* fixed-point float keys */
{
  gfx_u128 a = s1 < 0 ? (gfx_u128) (-s1) : (gfx_u128) s1;
  return (gfx_u128) n_win * s2 - a * a;
}

/* Gain on one sample, rounded half up and clipped to 0..maxv (integer depths). */
GFX_HD uint32_t
gfx_enh_gain_int (uint32_t v, double e, double maxv)
{
  double t = floor (e * (double) v + 0.5);
  return (uint32_t) (t > maxv ? maxv : t);
}

/* Gain keeping hue: all colour channels scaled by one factor, E or less so that the
 * largest channel just reaches maxv. */
GFX_HD uint32_t
gfx_enh_gain_hue_int (uint32_t v, uint32_t vmax, double e, double maxv)
{
  double t = e * (double) vmax > maxv ? (double) v * maxv / (double) vmax : e * (double) v;
  t = floor (t + 0.5);
  return (uint32_t) (t > maxv ? maxv : t);
}

/* Float samples: the gained value is clipped to [0, 1] as an integer one is to its range,
 * except that a sample already above 1 (GIMP's float layers hold such highlights) is never
 * lowered by the clip: the ceiling is the larger of 1 and the sample itself.  In [0, 1]
 * this is the plain clip, so every precision gives the same picture. */
GFX_HD float
gfx_enh_clip_float (double t, float v)
{
  const double top = v > 1.0f ? (double) v : 1.0;
  return (float) (t < 0.0 ? 0.0 : t > top ? top : t);
}

GFX_HD float
gfx_enh_gain_float (float v, double e)
{
  return gfx_enh_clip_float (e * (double) v, v);
}

/* Hue kept: one factor, E or less so that the largest channel reaches at most 1 (or stays
 * where it is, when it is above 1 already). */
GFX_HD float
gfx_enh_gain_hue_float (float v, float vmax, double e)
{
  const double top = vmax > 1.0f ? (double) vmax : 1.0;
  return gfx_enh_clip_float (e * (double) vmax > top ? (double) v * top / (double) vmax
                                                      : e * (double) v,
                             v);
}

#endif
