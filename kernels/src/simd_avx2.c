/*
 * simd_avx2.c - the simd kernels for AVX2 + FMA, 8 floats a vector.  As in
 * simd_avx512.c, only this file is compiled for these instructions.
 */
#if defined(__x86_64__) || defined(__i386__)
#pragma GCC target("avx2,fma,f16c")
#include <immintrin.h>
#include <stdint.h>

#include "internal.h"

#define KN_SIMD_ISA_DEFINED 1
#define W 8
#define ISA(f) f##_avx2

typedef __m256 vf;
typedef __m256i vi;
typedef __m256 vm; /* compare results are all-ones / all-zeros lanes */

static inline vf vset1(float a) { return _mm256_set1_ps(a); }
static inline vf vload(const float *p) { return _mm256_loadu_ps(p); }
static inline void vstore(float *p, vf v) { _mm256_storeu_ps(p, v); }
/* maskload/maskstore never touch the lanes whose mask is clear, so the tail
 * does not read or write past the end of the buffers.  The mask for n lanes is
 * a window into a row of 8 ones followed by 8 zeros. */
static const int32_t tail_bits[16] = {-1, -1, -1, -1, -1, -1, -1, -1, 0, 0, 0, 0, 0, 0, 0, 0};
static inline __m256i tail_mask(size_t n) { return _mm256_loadu_si256((const __m256i *)(tail_bits + 8 - n)); }
static inline vf vload_n(const float *p, size_t n) { return _mm256_maskload_ps(p, tail_mask(n)); }
static inline void vstore_n(float *p, vf v, size_t n) { _mm256_maskstore_ps(p, tail_mask(n), v); }
static inline vf vadd(vf a, vf b) { return _mm256_add_ps(a, b); }
static inline vf vsub(vf a, vf b) { return _mm256_sub_ps(a, b); }
static inline vf vmul(vf a, vf b) { return _mm256_mul_ps(a, b); }
static inline vf vdiv(vf a, vf b) { return _mm256_div_ps(a, b); }
static inline vf vfma(vf a, vf b, vf c) { return _mm256_fmadd_ps(a, b, c); }
static inline vf vfnma(vf a, vf b, vf c) { return _mm256_fnmadd_ps(a, b, c); }
static inline vf vmin(vf a, vf b) { return _mm256_min_ps(a, b); }
static inline vf vmax(vf a, vf b) { return _mm256_max_ps(a, b); }
static inline vf vsqrt(vf a) { return _mm256_sqrt_ps(a); }
static inline vf vand(vf a, vf b) { return _mm256_and_ps(a, b); }
static inline vf vor(vf a, vf b) { return _mm256_or_ps(a, b); }
static inline vf vxor(vf a, vf b) { return _mm256_xor_ps(a, b); }
static inline vf vandnot(vf a, vf b) { return _mm256_andnot_ps(a, b); }
static inline vf vround(vf a) { return _mm256_round_ps(a, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC); }
static inline vi vcvti(vf a) { return _mm256_cvtps_epi32(a); }
static inline vf icvtf(vi a) { return _mm256_cvtepi32_ps(a); }
static inline vi fasi(vf a) { return _mm256_castps_si256(a); }
static inline vf iasf(vi a) { return _mm256_castsi256_ps(a); }
static inline vi iset1(int a) { return _mm256_set1_epi32(a); }
static inline vi iadd(vi a, vi b) { return _mm256_add_epi32(a, b); }
static inline vi isub(vi a, vi b) { return _mm256_sub_epi32(a, b); }
static inline vi iand(vi a, vi b) { return _mm256_and_si256(a, b); }
static inline vi ior(vi a, vi b) { return _mm256_or_si256(a, b); }
#define ISRAI(a, k) _mm256_srai_epi32((a), (k))
#define ISRLI(a, k) _mm256_srli_epi32((a), (k))
#define ISLLI(a, k) _mm256_slli_epi32((a), (k))
static inline vm vcmplt(vf a, vf b) { return _mm256_cmp_ps(a, b, _CMP_LT_OQ); }
static inline vm vcmpge(vf a, vf b) { return _mm256_cmp_ps(a, b, _CMP_GE_OQ); }
static inline vm vcmpeq(vf a, vf b) { return _mm256_cmp_ps(a, b, _CMP_EQ_OQ); }
static inline vm vcmpunord(vf a, vf b) { return _mm256_cmp_ps(a, b, _CMP_UNORD_Q); }
static inline vf vblend(vm m, vf a, vf b) { return _mm256_blendv_ps(a, b, m); }

/* y 2^n for integral n in [-150, 128] (a float), as 2^(n/2) 2^(n - n/2):
 * both halves are normal floats, so results in the denormal range are
 * rounded once (by the last multiply) instead of being flushed to zero. */
static inline vf vldexp(vf y, vf n)
{
	vi ni = vcvti(n);
	vi h = ISRAI(ni, 1);
	vi l = isub(ni, h);
	vf s1 = iasf(ISLLI(iadd(h, iset1(127)), 23));
	vf s2 = iasf(ISLLI(iadd(l, iset1(127)), 23));
	return vmul(vmul(y, s1), s2);
}
/* y 2^floor(n) (softmax's exp: n is k / 8 in [-185, 0], where both of
 * vldexp's halves are normal powers of two). */
static inline vf vscalef(vf y, vf n) { return vldexp(y, _mm256_floor_ps(n)); }
/* Softmax's exp reads 2^(j/8) from one register: vpermps uses the low 3 bits
 * of each index lane, and ignores the rest. */
#define KN_SM_TAB_BITS 3
static inline vf vtab(vi idx, vf tab) { return _mm256_permutevar8x32_ps(tab, idx); }
/* Non-temporal store; p 32-byte aligned. */
static inline void vstream(float *p, vf v) { _mm256_stream_ps(p, v); }

static inline vm vmor(vm a, vm b) { return _mm256_or_ps(a, b); }
static inline unsigned vmbits(vm m) { return (unsigned)_mm256_movemask_ps(m); }
static inline __m128 fold(vf v, __m128 (*op)(__m128, __m128))
{
	__m128 s = op(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
	s = op(s, _mm_movehl_ps(s, s));
	return op(s, _mm_movehdup_ps(s));
}
static inline __m128 add4(__m128 a, __m128 b) { return _mm_add_ps(a, b); }
static inline __m128 max4(__m128 a, __m128 b) { return _mm_max_ps(a, b); }
static inline __m128 min4(__m128 a, __m128 b) { return _mm_min_ps(a, b); }
static inline float hsum(vf v) { return _mm_cvtss_f32(fold(v, add4)); }
static inline float hmax(vf v) { return _mm_cvtss_f32(fold(v, max4)); }
static inline float hmin(vf v) { return _mm_cvtss_f32(fold(v, min4)); }

static inline void gelu_arg(vf x, vf *hi, vf *lo)
{
	const __m256d k1 = _mm256_set1_pd(1.5957691216057308), k2 = _mm256_set1_pd(1.5957691216057308 * 0.044715);
	__m256d a = _mm256_cvtps_pd(_mm256_castps256_ps128(x));
	__m256d b = _mm256_cvtps_pd(_mm256_extractf128_ps(x, 1));
	a = _mm256_mul_pd(a, _mm256_fmadd_pd(k2, _mm256_mul_pd(a, a), k1));
	b = _mm256_mul_pd(b, _mm256_fmadd_pd(k2, _mm256_mul_pd(b, b), k1));
	__m128 ah = _mm256_cvtpd_ps(a), bh = _mm256_cvtpd_ps(b);
	__m128 al = _mm256_cvtpd_ps(_mm256_sub_pd(a, _mm256_cvtps_pd(ah)));
	__m128 bl = _mm256_cvtpd_ps(_mm256_sub_pd(b, _mm256_cvtps_pd(bh)));
	*hi = _mm256_insertf128_ps(_mm256_castps128_ps256(ah), bh, 1);
	*lo = _mm256_insertf128_ps(_mm256_castps128_ps256(al), bl, 1);
}

/* y 2^n for vexp, n = t - 1.5 2^23 integral: t has 2^23's exponent, so its
 * low bits hold n as an integer, and the common case is an integer
 * subtract, add, shift and one multiply instead of a conversion and
 * vldexp's two half-steps (0.10.x: exp 1M on AVX2 7.0x -> ... over scalar).
 * n below -126 (results near or in the denormal range) or from 128 (2^n
 * itself overflows while y 2^n may not) takes vldexp; exp's clamp keeps n
 * in [-150, 129].  NaN compares false and flows through the multiply. */
static inline vf vexp_scale(vf y, vf n, vf t)
{
	vi ni = isub(fasi(t), iset1(0x4B400000));
	vf s = iasf(ISLLI(iadd(ni, iset1(127)), 23));
	vm ends = vmor(vcmplt(n, vset1(-126.0f)), vcmpge(n, vset1(128.0f)));
	if (__builtin_expect(vmbits(ends) != 0, 0))
		return vblend(ends, vmul(y, s), vldexp(y, n));
	return vmul(y, s);
}
/* Unary exp's common case, vector by vector: every lane of x in [-86.5, 88]
 * (so none NaN) has n = round(x / ln2) in [-125, 127], and y 2^n is a normal
 * float for y = exp(r) in [0.7, 1.5) (exponent -1 or 0).  Then the clamp and
 * vexp_scale's test of the ends are not needed, and y 2^n is y's bits plus
 * n << 23: t's bits are 0x4B400000 + n, whose low 9 bits of 0x4B400000 are
 * 0, so (bits(t) << 23) is n << 23 modulo 2^32.  An integer shift and add
 * instead of vexp_scale's add, shift, two compares, movemask and multiply;
 * exact, as the multiply was, so results are the same bit for bit. */
#define KN_EXP_NORMAL_RANGE 1
static inline int vexp_normal_range(vf x)
{
	vm in = _mm256_and_ps(_mm256_cmp_ps(x, vset1(-86.5f), _CMP_GE_OQ), _mm256_cmp_ps(x, vset1(88.0f), _CMP_LE_OQ));
	return _mm256_movemask_ps(in) == 0xff;
}
static inline vf vexp_scale_normal(vf y, vf t) { return iasf(iadd(fasi(y), ISLLI(fasi(t), 23))); }
/* Softmax's exp: y 2^floor(kt) for kt = k / 8 <= 0 and t = kt + 1.5 2^20,
 * whose bits are 0x49C00000 + k (low 12 bits of 0x49C00000 are 0): so
 * (bits(t) << 20) with the 3 bits of k mod 8 cleared is floor(k / 8) << 23
 * modulo 2^32, and added to y's bits (y = 2^(j/8) (1 + p) in [0.95, 1.92])
 * it gives y 2^floor(kt) exactly while that is normal: kt >= -125.  A vector
 * with a lane below that (x - max < -86.6: results near or in the denormal
 * range) or NaN takes vscalef's two rounding steps.  Three integer
 * operations instead of vscalef's floor, conversion, six integer operations
 * and two multiplies. */
static inline vf vsm_scale(vf y, vf kt, vf t)
{
	vm low = _mm256_cmp_ps(kt, vset1(-125.0f), _CMP_NGE_UQ);
	if (__builtin_expect(_mm256_movemask_ps(low) != 0, 0))
		return vscalef(y, kt);
	vi e = _mm256_and_si256(ISLLI(fasi(t), 20), iset1((int)0xFF800000u));
	return iasf(iadd(fasi(y), e));
}
/* The quant group's lanes (simd_quant.h). */
static inline vi vloadi(const int32_t *p) { return _mm256_loadu_si256((const __m256i *)p); }
static inline void vstorei(int32_t *p, vi v) { _mm256_storeu_si256((__m256i *)p, v); }
static inline vi load_i8(const int8_t *p) { return _mm256_cvtepi8_epi32(_mm_loadl_epi64((const __m128i *)p)); }
/* lanes already in [-127, 127]: the saturating packs only narrow them; the
 * two 128-bit halves end up in dwords 0 and 4, which the permute joins */
static inline void store_i8(int8_t *p, vi v)
{
	__m256i b = _mm256_packs_epi16(_mm256_packs_epi32(v, v), v);
	b = _mm256_permutevar8x32_epi32(b, _mm256_setr_epi32(0, 4, 0, 0, 0, 0, 0, 0));
	_mm_storel_epi64((__m128i *)p, _mm256_castsi256_si128(b));
}
static inline vi load_u16(const uint16_t *p) { return _mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)p)); }
/* lanes in [0, 65535]: packus narrows them exactly; permute joins the halves */
static inline void store_u16(uint16_t *p, vi v)
{
	__m256i b = _mm256_permute4x64_epi64(_mm256_packus_epi32(v, v), 0x08);
	_mm_storeu_si128((__m128i *)p, _mm256_castsi256_si128(b));
}
static inline vf load_f16(const uint16_t *p) { return _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)p)); }
static inline void store_f16(uint16_t *p, vf v)
{
	_mm_storeu_si128((__m128i *)p, _mm256_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
}
static inline vi vcvtt(vf a) { return _mm256_cvttps_epi32(a); }
static inline vi iblend(vm m, vi a, vi b) { return fasi(_mm256_blendv_ps(iasf(a), iasf(b), m)); }
static inline vi imadd16(vi a, vi b) { return _mm256_madd_epi16(a, b); }

#include "simd_math.h"
#else
/* Not x86: simd.c runs the portable path and never calls in here. */
typedef int kn_simd_avx2_unused;
#endif
