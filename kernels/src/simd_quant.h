/*
 * simd_quant.h - the quant group (0.11.0) for one instruction set, included
 * at the end of simd_math.h (so it sees the ISA file's vector wrappers and
 * sgemm's packing and micro-kernel).  Besides simd_math.h's wrappers the ISA
 * file gives: load_i8 / store_i8 (W int8 <-> W int32 lanes), load_u16 /
 * store_u16 (W uint16 <-> W int32 lanes, zero-extended), load_f16 /
 * store_f16 (F16C or AVX-512 conversions), vloadi / vstorei, vcvtt
 * (truncating float -> int32), iblend (m ? b : a), imadd16 (vpmaddwd).
 *
 * Tails go through quant_bits.h, the formulas of the scalar backend, which
 * the vector bodies compute step for step: every path gives the same bits.
 */
#include "quant_bits.h"

/* sat(rne(x / s)) as kn_q8: NaN to 0, clamp, round by adding and taking
 * away 1.5 2^23, then the (now exact) truncating conversion. */
static inline vi ISA(q8v)(vf x, vf s)
{
	const vf magic = vset1(12582912.0f);
	vf v = vdiv(x, s);
	v = vblend(vcmpunord(v, v), v, vset1(0.0f));
	v = vmin(vmax(v, vset1(-127.0f)), vset1(127.0f));
	return vcvtt(vsub(vadd(v, magic), magic));
}

kn_status ISA(kn_simd_quantize)(const float *x, int8_t *q, size_t rows, size_t cols, const float *s, size_t ns)
{
	if (ns == 1) /* one scale: one long row, so short rows still fill vectors */
		cols *= rows, rows = 1;
	for (size_t i = 0; i < rows; i++) {
		const float *xr = x + i * cols;
		int8_t *qr = q + i * cols;
		float sc = s[i];
		vf sv = vset1(sc);
		size_t j = 0;
		for (; j + 2 * W <= cols; j += 2 * W) {
			store_i8(qr + j, ISA(q8v)(vload(xr + j), sv));
			store_i8(qr + j + W, ISA(q8v)(vload(xr + j + W), sv));
		}
		for (; j < cols; j++)
			qr[j] = kn_q8(xr[j], sc);
	}
	return KN_OK;
}

kn_status ISA(kn_simd_dequantize)(const int8_t *q, float *y, size_t rows, size_t cols, const float *s, size_t ns)
{
	if (ns == 1)
		cols *= rows, rows = 1;
	for (size_t i = 0; i < rows; i++) {
		const int8_t *qr = q + i * cols;
		float *yr = y + i * cols;
		float sc = s[i];
		vf sv = vset1(sc);
		size_t j = 0;
		for (; j + 2 * W <= cols; j += 2 * W) {
			vstore(yr + j, vmul(icvtf(load_i8(qr + j)), sv));
			vstore(yr + j + W, vmul(icvtf(load_i8(qr + j + W)), sv));
		}
		for (; j < cols; j++)
			yr[j] = (float)qr[j] * sc;
	}
	return KN_OK;
}

kn_status ISA(kn_simd_convert)(kn_cvt c, const void *xv, void *yv, size_t n)
{
	size_t i = 0;
	switch (c) {
	case KN_CVT_TO_BF16: {
		const float *x = (const float *)xv;
		uint16_t *y = (uint16_t *)yv;
		for (; i + W <= n; i += W) {
			vf v = vload(x + i);
			vi b = fasi(v), hi = ISRLI(b, 16);
			vi r = ISRLI(iadd(iadd(b, iset1(0x7fff)), iand(hi, iset1(1))), 16);
			store_u16(y + i, iblend(vcmpunord(v, v), r, ior(hi, iset1(0x40))));
		}
		for (; i < n; i++)
			y[i] = kn_f32_bf16(x[i]);
		break;
	}
	case KN_CVT_FROM_BF16: {
		const uint16_t *x = (const uint16_t *)xv;
		float *y = (float *)yv;
		for (; i + W <= n; i += W)
			vstore(y + i, iasf(ISLLI(load_u16(x + i), 16)));
		for (; i < n; i++)
			y[i] = kn_bf16_f32(x[i]);
		break;
	}
	case KN_CVT_TO_F16: {
		const float *x = (const float *)xv;
		uint16_t *y = (uint16_t *)yv;
		for (; i + W <= n; i += W)
			store_f16(y + i, vload(x + i));
		for (; i < n; i++)
			y[i] = kn_f32_f16(x[i]);
		break;
	}
	case KN_CVT_FROM_F16: {
		const uint16_t *x = (const uint16_t *)xv;
		float *y = (float *)yv;
		for (; i + W <= n; i += W)
			vstore(y + i, load_f16(x + i));
		for (; i < n; i++)
			y[i] = kn_f16_f32(x[i]);
		break;
	}
	}
	return KN_OK;
}

/* ---- int8 gemm through int16 pairs (vpmaddwd) ----------------------------
 *
 * vpmaddwd multiplies int16 lanes pairwise and adds each pair into an int32
 * lane: exact for int8 inputs (|a b| <= 2^14, a pair <= 2^15), unlike
 * vpmaddubsw, whose int16 sum of two u8 x s8 products saturates.  So both
 * operands are widened to int16 and packed in pairs along k: an int32 word
 * of A holds (a[i][k], a[i][k+1]), one of B (b[k][j], b[k+1][j]), and one
 * vpmaddwd of a broadcast A word with W B words gives W columns' sums over
 * two k.  The blocking is sgemm's (MR x NR tiles, NR = 2 W), in k pairs. */
#define QKP 128 /* k pairs per block: 256 k */
/* Rows per tile: 6 as sgemm with 32 zmm; 4 with AVX2's 16 ymm, since each
 * vpmaddwd needs a temporary beside the 2 NR / W accumulators per row (6
 * rows spilled accumulators to the stack and ran no faster than sgemm). */
#if W == 8
#define QMR 4
#else
#define QMR 6
#endif

static inline int32_t ISA(pair16)(int8_t lo, int8_t hi)
{
	return (int32_t)((uint32_t)(uint16_t)(int16_t)lo | ((uint32_t)(uint16_t)(int16_t)hi << 16));
}

/* Rows k and k + 1 of B, 8 columns at a time: widened to int16 and
 * interleaved into 8 words (SSE4.1, which both instruction sets have). */
static void ISA(qpack_b)(int32_t *dst, const int8_t *B, size_t ldb, size_t k0, size_t kc, size_t j0, size_t nc)
{
	for (size_t jp = 0; jp < nc; jp += NR) {
		size_t w = nc - jp < NR ? nc - jp : NR;
		for (size_t k = 0; k < kc; k += 2) {
			const int8_t *r0 = B + (k0 + k) * ldb + j0 + jp, *r1 = k + 1 < kc ? r0 + ldb : NULL;
			if (w == NR && r1) {
				for (size_t j = 0; j < NR; j += 8) {
					__m128i x0 = _mm_cvtepi8_epi16(_mm_loadl_epi64((const __m128i *)(r0 + j)));
					__m128i x1 = _mm_cvtepi8_epi16(_mm_loadl_epi64((const __m128i *)(r1 + j)));
					_mm_storeu_si128((__m128i *)(dst + j), _mm_unpacklo_epi16(x0, x1));
					_mm_storeu_si128((__m128i *)(dst + j + 4), _mm_unpackhi_epi16(x0, x1));
				}
			} else {
				for (size_t j = 0; j < NR; j++)
					dst[j] = j < w ? ISA(pair16)(r0[j], r1 ? r1[j] : 0) : 0;
			}
			dst += NR;
		}
	}
}

/* Each row 8 k at a time: widened, its 4 words go to their k pairs. */
static void ISA(qpack_a)(int32_t *dst, const int8_t *A, size_t lda, size_t i0, size_t mc, size_t k0, size_t kc)
{
	size_t kp = (kc + 1) / 2;
	for (size_t ip = 0; ip < mc; ip += QMR, dst += QMR * kp) {
		size_t h = mc - ip < QMR ? mc - ip : QMR;
		for (size_t r = 0; r < QMR; r++) {
			const int8_t *a = A + (i0 + ip + r) * lda + k0;
			size_t k = 0;
			if (r < h)
				for (; k + 8 <= kc; k += 8) {
					int32_t t[4];
					_mm_storeu_si128((__m128i *)t, _mm_cvtepi8_epi16(_mm_loadl_epi64((const __m128i *)(a + k))));
					for (int u = 0; u < 4; u++)
						dst[(k / 2 + u) * QMR + r] = t[u];
				}
			for (; k < kc; k += 2)
				dst[(k / 2) * QMR + r] = r < h ? ISA(pair16)(a[k], k + 1 < kc ? a[k + 1] : 0) : 0;
		}
	}
}

/* Adds an MR x NR tile of sums to the h x w part of C that exists. */
static void ISA(qtile_add)(const vi acc[QMR][2], int32_t *C, size_t ldc, size_t h, size_t w)
{
	for (size_t r = 0; r < h; r++) {
		int32_t *c = C + r * ldc;
		if (w == NR) {
			vstorei(c, iadd(vloadi(c), acc[r][0]));
			vstorei(c + W, iadd(vloadi(c + W), acc[r][1]));
		} else {
			int32_t t[NR];
			vstorei(t, acc[r][0]);
			vstorei(t + W, acc[r][1]);
			for (size_t j = 0; j < w; j++)
				c[j] += t[j];
		}
	}
}

#define QROW(r)                                                                                    \
	t = iset1(a[r]);                                                                           \
	c##r##0 = iadd(c##r##0, imadd16(t, b0)), c##r##1 = iadd(c##r##1, imadd16(t, b1))

static void ISA(qmicro)(size_t kp, const int32_t *a, const int32_t *b, int32_t *C, size_t ldc, size_t h, size_t w)
{
	vi c00 = iset1(0), c01 = c00, c10 = c00, c11 = c00, c20 = c00, c21 = c00, c30 = c00, c31 = c00;
#if QMR == 6
	vi c40 = c00, c41 = c00, c50 = c00, c51 = c00;
#endif
	for (size_t k = 0; k < kp; k++) {
		vi b0 = vloadi(b), b1 = vloadi(b + W);
		vi t;
		QROW(0); QROW(1); QROW(2); QROW(3);
#if QMR == 6
		QROW(4); QROW(5);
#endif
		a += QMR;
		b += NR;
	}
#if QMR == 6
	const vi acc[QMR][2] = {{c00, c01}, {c10, c11}, {c20, c21}, {c30, c31}, {c40, c41}, {c50, c51}};
#else
	const vi acc[QMR][2] = {{c00, c01}, {c10, c11}, {c20, c21}, {c30, c31}};
#endif
	ISA(qtile_add)(acc, C, ldc, h, w);
}

kn_status ISA(kn_simd_qgemm)(size_t M, size_t N, size_t K, const int8_t *A, size_t lda, const int8_t *B,
			     size_t ldb, int32_t *C, size_t ldc)
{
	for (size_t i = 0; i < M; i++)
		memset(C + i * ldc, 0, N * sizeof(int32_t));
	if (K == 0)
		return KN_OK;
	size_t kcmax = 2 * QKP, ncap = N < NC ? N : NC, kcap = K < kcmax ? K : kcmax, mcap = M < MC ? M : MC;
	size_t kpcap = (kcap + 1) / 2;
	int32_t *pb = (int32_t *)kn_aligned_floats(((ncap + NR - 1) / NR) * NR * kpcap);
	int32_t *pa = (int32_t *)kn_aligned_floats(((mcap + QMR - 1) / QMR) * QMR * kpcap);
	if (!pb || !pa) {
		kn_host_free(pb);
		kn_host_free(pa);
		return kn_fail(KN_ENOMEM, "qgemm_i8: packing buffers");
	}
	for (size_t jc = 0; jc < N; jc += NC) {
		size_t nc = N - jc < NC ? N - jc : NC;
		for (size_t pc = 0; pc < K; pc += kcmax) {
			size_t kc = K - pc < kcmax ? K - pc : kcmax, kp = (kc + 1) / 2;
			ISA(qpack_b)(pb, B, ldb, pc, kc, jc, nc);
			for (size_t ic = 0; ic < M; ic += MC) {
				size_t mc = M - ic < MC ? M - ic : MC;
				ISA(qpack_a)(pa, A, lda, ic, mc, pc, kc);
				for (size_t jr = 0; jr < nc; jr += NR)
					for (size_t ir = 0; ir < mc; ir += QMR)
						ISA(qmicro)(kp, pa + ir * kp, pb + jr * kp, C + (ic + ir) * ldc + jc + jr,
							    ldc, mc - ir < QMR ? mc - ir : QMR, nc - jr < NR ? nc - jr : NR);
			}
		}
	}
	kn_host_free(pb);
	kn_host_free(pa);
	return KN_OK;
}

/* ---- bf16 gemm by conversion ----------------------------------------------
 *
 * Without AVX512-BF16: widen the bf16 blocks to float while packing them
 * (exact: a bf16 is the top half of a float) into sgemm's layout, and run
 * sgemm's micro-kernel on C (zeroed first, alpha 1). */
static void ISA(bpack_b)(float *dst, const uint16_t *B, size_t ldb, size_t k0, size_t kc, size_t j0, size_t nc)
{
	for (size_t jp = 0; jp < nc; jp += NR) {
		size_t w = nc - jp < NR ? nc - jp : NR;
		for (size_t k = 0; k < kc; k++) {
			const uint16_t *src = B + (k0 + k) * ldb + j0 + jp;
			if (w == NR) {
				vstore(dst, iasf(ISLLI(load_u16(src), 16)));
				vstore(dst + W, iasf(ISLLI(load_u16(src + W), 16)));
			} else {
				for (size_t j = 0; j < NR; j++)
					dst[j] = j < w ? kn_bf16_f32(src[j]) : 0.0f;
			}
			dst += NR;
		}
	}
}

static void ISA(bpack_a)(float *dst, const uint16_t *A, size_t lda, size_t i0, size_t mc, size_t k0, size_t kc)
{
	for (size_t ip = 0; ip < mc; ip += MR) {
		size_t h = mc - ip < MR ? mc - ip : MR;
		for (size_t k = 0; k < kc; k++) {
			for (size_t r = 0; r < MR; r++)
				dst[r] = r < h ? kn_bf16_f32(A[(i0 + ip + r) * lda + k0 + k]) : 0.0f;
			dst += MR;
		}
	}
}

kn_status ISA(kn_simd_bf16gemm)(size_t M, size_t N, size_t K, const uint16_t *A, size_t lda, const uint16_t *B,
				size_t ldb, float *C, size_t ldc)
{
	for (size_t i = 0; i < M; i++)
		memset(C + i * ldc, 0, N * sizeof(float));
	if (K == 0)
		return KN_OK;
	size_t ncap = N < NC ? N : NC, kcap = K < KC ? K : KC, mcap = M < MC ? M : MC;
	float *pb = kn_aligned_floats(((ncap + NR - 1) / NR) * NR * kcap);
	float *pa = kn_aligned_floats(((mcap + MR - 1) / MR) * MR * kcap);
	if (!pb || !pa) {
		kn_host_free(pb);
		kn_host_free(pa);
		return kn_fail(KN_ENOMEM, "bf16gemm: packing buffers");
	}
	for (size_t jc = 0; jc < N; jc += NC) {
		size_t nc = N - jc < NC ? N - jc : NC;
		for (size_t pc = 0; pc < K; pc += KC) {
			size_t kc = K - pc < KC ? K - pc : KC;
			ISA(bpack_b)(pb, B, ldb, pc, kc, jc, nc);
			for (size_t ic = 0; ic < M; ic += MC) {
				size_t mc = M - ic < MC ? M - ic : MC;
				ISA(bpack_a)(pa, A, lda, ic, mc, pc, kc);
				for (size_t jr = 0; jr < nc; jr += NR)
					for (size_t ir = 0; ir < mc; ir += MR)
						ISA(micro)(kc, pa + ir * kc, pb + jr * kc, 1.0f,
							   C + (ic + ir) * ldc + jc + jr, ldc,
							   mc - ir < MR ? mc - ir : MR, nc - jr < NR ? nc - jr : NR);
			}
		}
	}
	kn_host_free(pb);
	kn_host_free(pa);
	return KN_OK;
}
