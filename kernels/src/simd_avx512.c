/*
 * simd_avx512.c - the simd kernels for AVX-512 (F + DQ), 16 floats a vector.
 *
 * The pragma compiles only this file for AVX-512, so the library itself builds
 * with plain -O2 and runs on any x86-64: simd.c calls in here only after
 * __builtin_cpu_supports() said the CPU has these instructions.
 */
#if defined(__x86_64__) || defined(__i386__)
#pragma GCC target("avx512f,avx512dq,avx512vl,avx512bw,fma")
#include <immintrin.h>

#include "internal.h"

#define KN_SIMD_ISA_DEFINED 1
#define W 16
#define ISA(f) f##_avx512

typedef __m512 vf;
typedef __m512i vi;
typedef __mmask16 vm;

static inline vf vset1(float a) { return _mm512_set1_ps(a); }
static inline vf vload(const float *p) { return _mm512_loadu_ps(p); }
static inline void vstore(float *p, vf v) { _mm512_storeu_ps(p, v); }
/* Masked tails: lanes past n are neither read (no fault past the end of the
 * buffer) nor written. */
static inline __mmask16 tail_mask(size_t n) { return (__mmask16)((1u << n) - 1u); }
static inline vf vload_n(const float *p, size_t n) { return _mm512_maskz_loadu_ps(tail_mask(n), p); }
static inline void vstore_n(float *p, vf v, size_t n) { _mm512_mask_storeu_ps(p, tail_mask(n), v); }
static inline vf vadd(vf a, vf b) { return _mm512_add_ps(a, b); }
static inline vf vsub(vf a, vf b) { return _mm512_sub_ps(a, b); }
static inline vf vmul(vf a, vf b) { return _mm512_mul_ps(a, b); }
static inline vf vdiv(vf a, vf b) { return _mm512_div_ps(a, b); }
static inline vf vfma(vf a, vf b, vf c) { return _mm512_fmadd_ps(a, b, c); }
static inline vf vfnma(vf a, vf b, vf c) { return _mm512_fnmadd_ps(a, b, c); }
static inline vf vmin(vf a, vf b) { return _mm512_min_ps(a, b); }
static inline vf vmax(vf a, vf b) { return _mm512_max_ps(a, b); }
static inline vf vsqrt(vf a) { return _mm512_sqrt_ps(a); }
static inline vf vand(vf a, vf b) { return _mm512_and_ps(a, b); }
static inline vf vor(vf a, vf b) { return _mm512_or_ps(a, b); }
static inline vf vxor(vf a, vf b) { return _mm512_xor_ps(a, b); }
static inline vf vandnot(vf a, vf b) { return _mm512_andnot_ps(a, b); }
static inline vf vround(vf a) { return _mm512_roundscale_ps(a, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC); }
static inline vi vcvti(vf a) { return _mm512_cvtps_epi32(a); }
static inline vf icvtf(vi a) { return _mm512_cvtepi32_ps(a); }
static inline vi fasi(vf a) { return _mm512_castps_si512(a); }
static inline vf iasf(vi a) { return _mm512_castsi512_ps(a); }
static inline vi iset1(int a) { return _mm512_set1_epi32(a); }
static inline vi iadd(vi a, vi b) { return _mm512_add_epi32(a, b); }
static inline vi isub(vi a, vi b) { return _mm512_sub_epi32(a, b); }
static inline vi iand(vi a, vi b) { return _mm512_and_si512(a, b); }
static inline vi ior(vi a, vi b) { return _mm512_or_si512(a, b); }
#define ISRAI(a, k) _mm512_srai_epi32((a), (k))
#define ISRLI(a, k) _mm512_srli_epi32((a), (k))
#define ISLLI(a, k) _mm512_slli_epi32((a), (k))
static inline vm vcmplt(vf a, vf b) { return _mm512_cmp_ps_mask(a, b, _CMP_LT_OQ); }
static inline vm vcmpge(vf a, vf b) { return _mm512_cmp_ps_mask(a, b, _CMP_GE_OQ); }
static inline vm vcmpeq(vf a, vf b) { return _mm512_cmp_ps_mask(a, b, _CMP_EQ_OQ); }
static inline vm vcmpunord(vf a, vf b) { return _mm512_cmp_ps_mask(a, b, _CMP_UNORD_Q); }
/* m ? b : a, lane by lane */
static inline vf vblend(vm m, vf a, vf b) { return _mm512_mask_blend_ps(m, a, b); }

/* y 2^n for integral n in [-150, 128] (a float), rounded once: scalef
 * handles denormal and overflowing results itself. */
static inline vf vldexp(vf y, vf n) { return _mm512_scalef_ps(y, n); }
/* y 2^floor(n), rounded once (softmax's exp: n is k / 16, a multiple of 1/16). */
static inline vf vscalef(vf y, vf n) { return _mm512_scalef_ps(y, n); }
/* softmax's exp: y 2^floor(kt), the same vscalefps (t unused). */
static inline vf vsm_scale(vf y, vf kt, vf t) { (void)t; return _mm512_scalef_ps(y, kt); }
/* y 2^n for vexp: vscalefps rounds once over the whole range (t unused). */
static inline vf vexp_scale(vf y, vf n, vf t) { (void)t; return _mm512_scalef_ps(y, n); }
/* Softmax's exp reads 2^(j/16) from one register: vpermps uses the low 4
 * bits of each index lane, and ignores the rest. */
#define KN_SM_TAB_BITS 4
static inline vf vtab(vi idx, vf tab) { return _mm512_permutexvar_ps(idx, tab); }
/* Non-temporal store; p 64-byte aligned. */
static inline void vstream(float *p, vf v) { _mm512_stream_ps(p, v); }

static inline vm vmor(vm a, vm b) { return (vm)(a | b); }
static inline unsigned vmbits(vm m) { return (unsigned)m; }
static inline float hsum(vf v) { return _mm512_reduce_add_ps(v); }
static inline float hmax(vf v) { return _mm512_reduce_max_ps(v); }
static inline float hmin(vf v) { return _mm512_reduce_min_ps(v); }

/* gelu's argument 2 sqrt(2/pi) (x + 0.044715 x^3) in double, split into a
 * float hi + lo pair. */
static inline void gelu_arg(vf x, vf *hi, vf *lo)
{
	const __m512d k1 = _mm512_set1_pd(1.5957691216057308), k2 = _mm512_set1_pd(1.5957691216057308 * 0.044715);
	__m512d a = _mm512_cvtps_pd(_mm512_castps512_ps256(x));
	__m512d b = _mm512_cvtps_pd(_mm512_extractf32x8_ps(x, 1));
	a = _mm512_mul_pd(a, _mm512_fmadd_pd(k2, _mm512_mul_pd(a, a), k1));
	b = _mm512_mul_pd(b, _mm512_fmadd_pd(k2, _mm512_mul_pd(b, b), k1));
	__m256 ah = _mm512_cvtpd_ps(a), bh = _mm512_cvtpd_ps(b);
	__m256 al = _mm512_cvtpd_ps(_mm512_sub_pd(a, _mm512_cvtps_pd(ah)));
	__m256 bl = _mm512_cvtpd_ps(_mm512_sub_pd(b, _mm512_cvtps_pd(bh)));
	*hi = _mm512_insertf32x8(_mm512_castps256_ps512(ah), bh, 1);
	*lo = _mm512_insertf32x8(_mm512_castps256_ps512(al), bl, 1);
}

/* The quant group's lanes (simd_quant.h). */
static inline vi vloadi(const int32_t *p) { return _mm512_loadu_si512(p); }
static inline void vstorei(int32_t *p, vi v) { _mm512_storeu_si512(p, v); }
static inline vi load_i8(const int8_t *p) { return _mm512_cvtepi8_epi32(_mm_loadu_si128((const __m128i *)p)); }
/* vpmovdb truncates: the lanes are already in [-127, 127] */
static inline void store_i8(int8_t *p, vi v) { _mm_storeu_si128((__m128i *)p, _mm512_cvtepi32_epi8(v)); }
static inline vi load_u16(const uint16_t *p) { return _mm512_cvtepu16_epi32(_mm256_loadu_si256((const __m256i *)p)); }
static inline void store_u16(uint16_t *p, vi v) { _mm256_storeu_si256((__m256i *)p, _mm512_cvtepi32_epi16(v)); }
static inline vf load_f16(const uint16_t *p) { return _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)p)); }
static inline void store_f16(uint16_t *p, vf v)
{
	_mm256_storeu_si256((__m256i *)p, _mm512_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
}
static inline vi vcvtt(vf a) { return _mm512_cvttps_epi32(a); }
static inline vi iblend(vm m, vi a, vi b) { return _mm512_mask_blend_epi32(m, a, b); }
static inline vi imadd16(vi a, vi b) { return _mm512_madd_epi16(a, b); }

#include "simd_math.h"
#else
/* Not x86: simd.c runs the portable path and never calls in here. */
typedef int kn_simd_avx512_unused;
#endif
