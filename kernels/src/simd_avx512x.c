/*
 * simd_avx512x.c - the avx512 path's int8 and bf16 gemms on the AVX-512
 * extensions for them (0.11.0): VNNI's vpdpbusd and AVX512-BF16's
 * vdpbf16ps.  A file of its own so that only these two kernels are compiled
 * for those extensions (GCC may use vpdpbusd for any dot-product-like loop
 * it vectorises); simd.c calls in here only after __builtin_cpu_supports()
 * said the CPU has them.
 *
 * Both kernels pack along k in groups (4 int8 or 2 bf16 per 32-bit word),
 * an A word broadcast against NR = 48 B words, in 8 x 48 tiles: 24 zmm
 * accumulators, 3 for B and 1 for the broadcast, of 32.
 */
#if defined(__x86_64__) || defined(__i386__)
#pragma GCC target("avx512f,avx512dq,avx512vl,avx512bw,avx512vnni,avx512bf16,fma")
#include <immintrin.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#define XMR 8
#define XNR 48
#define XNV 3    /* XNR / 16 */
#define XKC 512  /* k per block: 128 words of 4 int8, 256 of 2 bf16 */
#define XMC 96
#define XNC 1536

/* Adds an XMR x XNR tile t (minus 128 cs for int8) to the h x w part of C
 * that exists. */
static void tile_add_i32(const int32_t *t, const int32_t *cs, int32_t *C, size_t ldc, size_t h, size_t w)
{
	__m512i k[XNV];
	for (int v = 0; v < XNV; v++)
		k[v] = _mm512_slli_epi32(_mm512_loadu_si512(cs + 16 * v), 7);
	for (size_t r = 0; r < h; r++) {
		int32_t *c = C + r * ldc;
		for (int v = 0; v < XNV; v++) {
			size_t j0 = 16 * (size_t)v;
			if (j0 >= w)
				break;
			__mmask16 m = w - j0 >= 16 ? (__mmask16)0xffff : (__mmask16)((1u << (w - j0)) - 1u);
			/* int32 wraps: the +128 bias' excess goes away in the subtraction */
			__m512i d = _mm512_sub_epi32(_mm512_load_si512(t + r * XNR + j0), k[v]);
			_mm512_mask_storeu_epi32(c + j0, m, _mm512_add_epi32(_mm512_maskz_loadu_epi32(m, c + j0), d));
		}
	}
}

/* ---- int8: vpdpbusd ------------------------------------------------------
 *
 * vpdpbusd multiplies unsigned bytes by signed bytes.  A is signed, so it
 * goes in as a + 128 (the byte a ^ 0x80, in [0, 255]), and since
 * sum (a + 128) b = sum a b + 128 sum b, each column's sum of B over the
 * block (cs, from the packing) times 128 is taken away at the end.  The
 * int32 lanes may wrap on the way (up to 255 x 128 x 4 a step) but the
 * arithmetic is modulo 2^32 and the true result fits (K is bounded), so
 * the wrapped sum minus the wrapped correction is exact.  Padding is 0 in
 * B, so whatever stands in A's padding adds nothing. */
static void qpack_b(int32_t *dst, int32_t *cs, const int8_t *B, size_t ldb, size_t k0, size_t kc, size_t j0,
		    size_t nc)
{
	const __m512i ones = _mm512_set1_epi8(1);
	for (size_t jp = 0; jp < nc; jp += XNR) {
		size_t w = nc - jp < XNR ? nc - jp : XNR;
		int32_t *panel = dst;
		for (size_t k = 0; k < kc; k += 4) {
			const int8_t *b0 = B + (k0 + k) * ldb + j0 + jp;
			if (w == XNR && k + 4 <= kc) {
				/* four rows of 16 bytes interleaved into 16 words, three times */
				for (int v = 0; v < XNV; v++) {
					__m128i r0 = _mm_loadu_si128((const __m128i *)(b0 + 16 * v));
					__m128i r1 = _mm_loadu_si128((const __m128i *)(b0 + ldb + 16 * v));
					__m128i r2 = _mm_loadu_si128((const __m128i *)(b0 + 2 * ldb + 16 * v));
					__m128i r3 = _mm_loadu_si128((const __m128i *)(b0 + 3 * ldb + 16 * v));
					__m128i t0 = _mm_unpacklo_epi8(r0, r1), t1 = _mm_unpackhi_epi8(r0, r1);
					__m128i t2 = _mm_unpacklo_epi8(r2, r3), t3 = _mm_unpackhi_epi8(r2, r3);
					__m128i *o = (__m128i *)(dst + 16 * v);
					_mm_store_si128(o, _mm_unpacklo_epi16(t0, t2));
					_mm_store_si128(o + 1, _mm_unpackhi_epi16(t0, t2));
					_mm_store_si128(o + 2, _mm_unpacklo_epi16(t1, t3));
					_mm_store_si128(o + 3, _mm_unpackhi_epi16(t1, t3));
				}
			} else {
				for (size_t j = 0; j < XNR; j++) {
					uint32_t word = 0;
					for (size_t t = 0; j < w && t < 4 && k + t < kc; t++)
						word |= (uint32_t)(uint8_t)b0[t * ldb + j] << (8 * t);
					dst[j] = (int32_t)word;
				}
			}
			dst += XNR;
		}
		/* Each column's sum over the block, by vpdpbusd itself: bytes of 1
		 * times the packed words add each word's four signed bytes. */
		__m512i c0 = _mm512_setzero_si512(), c1 = c0, c2 = c0;
		for (const int32_t *p = panel; p < dst; p += XNR) {
			c0 = _mm512_dpbusd_epi32(c0, ones, _mm512_load_si512(p));
			c1 = _mm512_dpbusd_epi32(c1, ones, _mm512_load_si512(p + 16));
			c2 = _mm512_dpbusd_epi32(c2, ones, _mm512_load_si512(p + 32));
		}
		_mm512_storeu_si512(cs + jp, c0);
		_mm512_storeu_si512(cs + jp + 16, c1);
		_mm512_storeu_si512(cs + jp + 32, c2);
	}
}

static void qpack_a(int32_t *dst, const int8_t *A, size_t lda, size_t i0, size_t mc, size_t k0, size_t kc)
{
	for (size_t ip = 0; ip < mc; ip += XMR) {
		size_t h = mc - ip < XMR ? mc - ip : XMR;
		for (size_t k = 0; k < kc; k += 4) {
			for (size_t r = 0; r < XMR; r++) {
				uint32_t word = 0;
				if (r < h) {
					const int8_t *a = A + (i0 + ip + r) * lda + k0 + k;
					if (k + 4 <= kc) {
						memcpy(&word, a, 4);
						word ^= 0x80808080u;
					} else {
						for (size_t t = 0; k + t < kc; t++)
							word |= (uint32_t)((uint8_t)a[t] ^ 0x80u) << (8 * t);
					}
				}
				dst[r] = (int32_t)word;
			}
			dst += XMR;
		}
	}
}

/* The accumulators are named variables, not an array: GCC keeps an array
 * that escapes (to tile_add_i32) in memory through the loop, which made
 * the first version spill every accumulator on every step. */
#define XACC_DECL(T, Z)                                                                            \
	T c00 = Z, c01 = Z, c02 = Z, c10 = Z, c11 = Z, c12 = Z, c20 = Z, c21 = Z, c22 = Z, c30 = Z,   \
	  c31 = Z, c32 = Z, c40 = Z, c41 = Z, c42 = Z, c50 = Z, c51 = Z, c52 = Z, c60 = Z, c61 = Z,  \
	  c62 = Z, c70 = Z, c71 = Z, c72 = Z
#define XROW(OP, T, r, i)                                                                          \
	t = T(_mm512_set1_epi32(a[i]));                                                            \
	OP(c##r##0, t, b0); OP(c##r##1, t, b1); OP(c##r##2, t, b2)
#define XROWS(OP, T)                                                                               \
	XROW(OP, T, 0, 0); XROW(OP, T, 1, 1); XROW(OP, T, 2, 2); XROW(OP, T, 3, 3);                \
	XROW(OP, T, 4, 4); XROW(OP, T, 5, 5); XROW(OP, T, 6, 6); XROW(OP, T, 7, 7)
/* After the loop: the accumulators to a 64-byte aligned XMR x XNR buffer
 * (an array of vectors, even built after the loop, made GCC store it on
 * every step of the loop). */
#define XSROW(ST, r) ST(t_ + r * XNR, c##r##0), ST(t_ + r * XNR + 16, c##r##1), ST(t_ + r * XNR + 32, c##r##2)
#define XSTORE(ST)                                                                                 \
	XSROW(ST, 0); XSROW(ST, 1); XSROW(ST, 2); XSROW(ST, 3);                                    \
	XSROW(ST, 4); XSROW(ST, 5); XSROW(ST, 6); XSROW(ST, 7)
#define AS_I(v) (v)
/* acc += a . b in place.  Through asm, because with the intrinsics GCC 12
 * copied every accumulator through a second register and stored it to the
 * stack on every step of the loop (24 accumulators of 32 registers). */
#define DPBUSD(acc, a, b) __asm__("vpdpbusd %2, %1, %0" : "+v"(acc) : "v"(a), "v"(b))
#define DPBF16(acc, a, b) __asm__("vdpbf16ps %2, %1, %0" : "+v"(acc) : "v"(a), "v"(b))

static void qmicro(size_t kq, const int32_t *a, const int32_t *b, const int32_t *cs, int32_t *C, size_t ldc,
		   size_t h, size_t w)
{
	XACC_DECL(__m512i, _mm512_setzero_si512());
	/* kq >= 1 (K > 0): a do-while, so GCC need not keep the accumulators'
	 * zero-trip values apart (with a for loop it stored them every step) */
	const int32_t *end = a + kq * XMR;
	do {
		__m512i b0 = _mm512_load_si512(b), b1 = _mm512_load_si512(b + 16), b2 = _mm512_load_si512(b + 32);
		__m512i t;
		XROWS(DPBUSD, AS_I);
		a += XMR;
		b += XNR;
	} while (a < end);
	int32_t t_[XMR * XNR] __attribute__((aligned(64)));
	XSTORE(_mm512_store_si512);
	tile_add_i32(t_, cs, C, ldc, h, w);
}

/* 64-byte aligned scratch of n 32-bit words. */
static void *words(size_t n) { return kn_aligned_floats(n); }

kn_status kn_simd_qgemm_vnni(size_t M, size_t N, size_t K, const int8_t *A, size_t lda, const int8_t *B,
			     size_t ldb, int32_t *C, size_t ldc)
{
	for (size_t i = 0; i < M; i++)
		memset(C + i * ldc, 0, N * sizeof(int32_t));
	if (K == 0)
		return KN_OK;
	size_t ncap = N < XNC ? N : XNC, kcap = K < XKC ? K : XKC, mcap = M < XMC ? M : XMC;
	size_t npan = (ncap + XNR - 1) / XNR, kq = (kcap + 3) / 4;
	int32_t *pb = words(npan * XNR * kq), *pa = words(((mcap + XMR - 1) / XMR) * XMR * kq);
	int32_t *cs = words(npan * XNR);
	if (!pb || !pa || !cs) {
		kn_host_free(pb), kn_host_free(pa), kn_host_free(cs);
		return kn_fail(KN_ENOMEM, "qgemm_i8: packing buffers");
	}
	for (size_t jc = 0; jc < N; jc += XNC) {
		size_t nc = N - jc < XNC ? N - jc : XNC;
		for (size_t pc = 0; pc < K; pc += XKC) {
			size_t kc = K - pc < XKC ? K - pc : XKC, q = (kc + 3) / 4;
			qpack_b(pb, cs, B, ldb, pc, kc, jc, nc);
			for (size_t ic = 0; ic < M; ic += XMC) {
				size_t mc = M - ic < XMC ? M - ic : XMC;
				qpack_a(pa, A, lda, ic, mc, pc, kc);
				for (size_t jr = 0; jr < nc; jr += XNR)
					for (size_t ir = 0; ir < mc; ir += XMR)
						qmicro(q, pa + ir * q, pb + jr * q, cs + jr, C + (ic + ir) * ldc + jc + jr,
						       ldc, mc - ir < XMR ? mc - ir : XMR, nc - jr < XNR ? nc - jr : XNR);
			}
		}
	}
	kn_host_free(pb), kn_host_free(pa), kn_host_free(cs);
	return KN_OK;
}

/* ---- bf16: vdpbf16ps -----------------------------------------------------
 *
 * Words of two bf16 along k; vdpbf16ps adds both products of a word pair to
 * a float lane (with DAZ and FTZ, as kernels.h says).  Padding is +0. */
static void bpack_b(int32_t *dst, const uint16_t *B, size_t ldb, size_t k0, size_t kc, size_t j0, size_t nc)
{
	for (size_t jp = 0; jp < nc; jp += XNR) {
		size_t w = nc - jp < XNR ? nc - jp : XNR;
		for (size_t k = 0; k < kc; k += 2) {
			const uint16_t *r0 = B + (k0 + k) * ldb + j0 + jp;
			const uint16_t *r1 = k + 1 < kc ? r0 + ldb : NULL;
			if (w == XNR && r1) {
				/* interleave two rows of 16 columns: (r0[j], r1[j]) words */
				for (int v = 0; v < XNV; v++) {
					__m256i lo = _mm256_loadu_si256((const __m256i *)(r0 + 16 * v));
					__m256i hi = _mm256_loadu_si256((const __m256i *)(r1 + 16 * v));
					__m512i l = _mm512_cvtepu16_epi32(lo), u = _mm512_cvtepu16_epi32(hi);
					_mm512_store_si512(dst + 16 * v, _mm512_or_si512(l, _mm512_slli_epi32(u, 16)));
				}
			} else {
				for (size_t j = 0; j < XNR; j++)
					dst[j] = j < w ? (int32_t)((uint32_t)r0[j] | (r1 ? (uint32_t)r1[j] << 16 : 0)) : 0;
			}
			dst += XNR;
		}
	}
}

static void bpack_a(int32_t *dst, const uint16_t *A, size_t lda, size_t i0, size_t mc, size_t k0, size_t kc)
{
	for (size_t ip = 0; ip < mc; ip += XMR) {
		size_t h = mc - ip < XMR ? mc - ip : XMR;
		for (size_t k = 0; k < kc; k += 2) {
			for (size_t r = 0; r < XMR; r++) {
				const uint16_t *a = A + (i0 + ip + r) * lda + k0 + k;
				dst[r] = r < h ? (int32_t)((uint32_t)a[0] | (k + 1 < kc ? (uint32_t)a[1] << 16 : 0)) : 0;
			}
			dst += XMR;
		}
	}
}

#define AS_BH(v) ((__m512bh)(v))

static void bmicro(size_t kp, const int32_t *a, const int32_t *b, float *C, size_t ldc, size_t h, size_t w)
{
	XACC_DECL(__m512, _mm512_setzero_ps());
	const int32_t *end = a + kp * XMR;
	do {
		__m512bh b0 = (__m512bh)_mm512_load_si512(b), b1 = (__m512bh)_mm512_load_si512(b + 16);
		__m512bh b2 = (__m512bh)_mm512_load_si512(b + 32);
		__m512bh t;
		XROWS(DPBF16, AS_BH);
		a += XMR;
		b += XNR;
	} while (a < end);
	float t_[XMR * XNR] __attribute__((aligned(64)));
	XSTORE(_mm512_store_ps);
	for (size_t r = 0; r < h; r++) {
		float *c = C + r * ldc;
		for (int v = 0; v < XNV; v++) {
			size_t j0 = 16 * (size_t)v;
			if (j0 >= w)
				break;
			__mmask16 m = w - j0 >= 16 ? (__mmask16)0xffff : (__mmask16)((1u << (w - j0)) - 1u);
			__m512 d = _mm512_load_ps(t_ + r * XNR + j0);
			_mm512_mask_storeu_ps(c + j0, m, _mm512_add_ps(_mm512_maskz_loadu_ps(m, c + j0), d));
		}
	}
}

kn_status kn_simd_bf16gemm_bf16(size_t M, size_t N, size_t K, const uint16_t *A, size_t lda, const uint16_t *B,
				size_t ldb, float *C, size_t ldc)
{
	for (size_t i = 0; i < M; i++)
		memset(C + i * ldc, 0, N * sizeof(float));
	if (K == 0)
		return KN_OK;
	size_t ncap = N < XNC ? N : XNC, kcap = K < XKC ? K : XKC, mcap = M < XMC ? M : XMC;
	size_t kp = (kcap + 1) / 2;
	int32_t *pb = words(((ncap + XNR - 1) / XNR) * XNR * kp), *pa = words(((mcap + XMR - 1) / XMR) * XMR * kp);
	if (!pb || !pa) {
		kn_host_free(pb), kn_host_free(pa);
		return kn_fail(KN_ENOMEM, "bf16gemm: packing buffers");
	}
	for (size_t jc = 0; jc < N; jc += XNC) {
		size_t nc = N - jc < XNC ? N - jc : XNC;
		for (size_t pc = 0; pc < K; pc += XKC) {
			size_t kc = K - pc < XKC ? K - pc : XKC, p = (kc + 1) / 2;
			bpack_b(pb, B, ldb, pc, kc, jc, nc);
			for (size_t ic = 0; ic < M; ic += XMC) {
				size_t mc = M - ic < XMC ? M - ic : XMC;
				bpack_a(pa, A, lda, ic, mc, pc, kc);
				for (size_t jr = 0; jr < nc; jr += XNR)
					for (size_t ir = 0; ir < mc; ir += XMR)
						bmicro(p, pa + ir * p, pb + jr * p, C + (ic + ir) * ldc + jc + jr, ldc,
						       mc - ir < XMR ? mc - ir : XMR, nc - jr < XNR ? nc - jr : XNR);
			}
		}
	}
	kn_host_free(pb), kn_host_free(pa);
	return KN_OK;
}
#else
/* Not x86: simd.c never calls in here. */
typedef int kn_simd_avx512x_unused;
#endif
