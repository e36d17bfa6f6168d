/*
 * simd_mem.h - the memory group (0.9.0) for one ISA: copy, transpose,
 * gather, scatter_add.  Included at the end of simd_math.h, so it sees the
 * ISA file's primitives (W, vload, vstream, ...).
 *
 * Nothing here rounds: the results are the scalar backend's, bit for bit.
 * What differs is only how memory is walked.
 */

/* Integer lanes of the index checks and the gathers (W of them). */
#if W == 16
static inline vi iload(const int32_t *p) { return _mm512_loadu_si512((const void *)p); }
static inline vi imaxu(vi a, vi b) { return _mm512_max_epu32(a, b); }
static inline uint32_t hmaxu(vi v) { return _mm512_reduce_max_epu32(v); }
static inline vf vgather(const float *base, vi idx) { return _mm512_i32gather_ps(idx, base, 4); }
#else
static inline vi iload(const int32_t *p) { return _mm256_loadu_si256((const __m256i *)p); }
static inline vi imaxu(vi a, vi b) { return _mm256_max_epu32(a, b); }
static inline uint32_t hmaxu(vi v)
{
	__m128i m = _mm_max_epu32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
	m = _mm_max_epu32(m, _mm_shuffle_epi32(m, 0x4e));
	m = _mm_max_epu32(m, _mm_shuffle_epi32(m, 0xb1));
	return (uint32_t)_mm_cvtsi128_si32(m);
}
static inline vf vgather(const float *base, vi idx) { return _mm256_i32gather_ps(base, idx, 4); }
#endif

/* ---- copy -------------------------------------------------------------
 *
 * Four vectors a step.  From KN_MEM_STREAM_BYTES of y up, y is written with
 * non-temporal stores once it is 64-byte aligned: a plain store first reads
 * each line of y in (a third more traffic), and a y that size would not stay
 * in cache anyway.  Not from softmax's 2 MB: a 4 MB copy whose x and y fit
 * the L3 ran 1.8x slower around the caches (189 against memcpy's 102 us)
 * than through them. */
#define KN_MEM_STREAM_BYTES (16u << 20)
kn_status ISA(kn_simd_copy)(const float *x, float *y, size_t n)
{
	if (x == y)
		return KN_OK;
	size_t i = 0;
	if (n * sizeof(float) >= KN_MEM_STREAM_BYTES && (uintptr_t)y % sizeof(float) == 0) {
		for (; i < n && (uintptr_t)(y + i) % 64; i++)
			y[i] = x[i];
		for (; i + 4 * W <= n; i += 4 * W) {
			vf a = vload(x + i), b = vload(x + i + W), c = vload(x + i + 2 * W), d = vload(x + i + 3 * W);
			vstream(y + i, a), vstream(y + i + W, b), vstream(y + i + 2 * W, c), vstream(y + i + 3 * W, d);
		}
		_mm_sfence(); /* weakly ordered stores: publish them before returning */
	}
	for (; i + 4 * W <= n; i += 4 * W) {
		vf a = vload(x + i), b = vload(x + i + W), c = vload(x + i + 2 * W), d = vload(x + i + 3 * W);
		vstore(y + i, a), vstore(y + i + W, b), vstore(y + i + 2 * W, c), vstore(y + i + 3 * W, d);
	}
	for (; i + W <= n; i += W)
		vstore(y + i, vload(x + i));
	if (i < n)
		vstore_n(y + i, vload_n(x + i, n - i), n - i);
	return KN_OK;
}

/* ---- transpose --------------------------------------------------------
 *
 * 8 x 8 blocks transposed in registers (AVX: unpack, shuffle, then swap
 * 128-bit halves), two at a time so that every store completes a 64-byte
 * line of y (see tr_band16).  The naive loop writes one float per line of y
 * and loses the line before its neighbours come: 0.07 of copy bandwidth at
 * 4096 x 4096, against about 1.0 here. */
/* The 8 x 8 block at x (rows ldx apart) transposed into o[0..8). */
static inline __attribute__((always_inline)) void ISA(tr8x8_regs)(const float *x, size_t ldx, __m256 o[8])
{
	__m256 r0 = _mm256_loadu_ps(x), r1 = _mm256_loadu_ps(x + ldx), r2 = _mm256_loadu_ps(x + 2 * ldx);
	__m256 r3 = _mm256_loadu_ps(x + 3 * ldx), r4 = _mm256_loadu_ps(x + 4 * ldx);
	__m256 r5 = _mm256_loadu_ps(x + 5 * ldx), r6 = _mm256_loadu_ps(x + 6 * ldx);
	__m256 r7 = _mm256_loadu_ps(x + 7 * ldx);
	__m256 t0 = _mm256_unpacklo_ps(r0, r1), t1 = _mm256_unpackhi_ps(r0, r1);
	__m256 t2 = _mm256_unpacklo_ps(r2, r3), t3 = _mm256_unpackhi_ps(r2, r3);
	__m256 t4 = _mm256_unpacklo_ps(r4, r5), t5 = _mm256_unpackhi_ps(r4, r5);
	__m256 t6 = _mm256_unpacklo_ps(r6, r7), t7 = _mm256_unpackhi_ps(r6, r7);
	__m256 s0 = _mm256_shuffle_ps(t0, t2, 0x44), s1 = _mm256_shuffle_ps(t0, t2, 0xee);
	__m256 s2 = _mm256_shuffle_ps(t1, t3, 0x44), s3 = _mm256_shuffle_ps(t1, t3, 0xee);
	__m256 s4 = _mm256_shuffle_ps(t4, t6, 0x44), s5 = _mm256_shuffle_ps(t4, t6, 0xee);
	__m256 s6 = _mm256_shuffle_ps(t5, t7, 0x44), s7 = _mm256_shuffle_ps(t5, t7, 0xee);
	o[0] = _mm256_permute2f128_ps(s0, s4, 0x20), o[1] = _mm256_permute2f128_ps(s1, s5, 0x20);
	o[2] = _mm256_permute2f128_ps(s2, s6, 0x20), o[3] = _mm256_permute2f128_ps(s3, s7, 0x20);
	o[4] = _mm256_permute2f128_ps(s0, s4, 0x31), o[5] = _mm256_permute2f128_ps(s1, s5, 0x31);
	o[6] = _mm256_permute2f128_ps(s2, s6, 0x31), o[7] = _mm256_permute2f128_ps(s3, s7, 0x31);
}

static inline __attribute__((always_inline)) void ISA(tr8x8)(const float *x, size_t ldx, float *y, size_t ldy)
{
	__m256 o[8];
	ISA(tr8x8_regs)(x, ldx, o);
	for (int k = 0; k < 8; k++)
		_mm256_storeu_ps(y + k * ldy, o[k]);
}

/* Bands of 16 rows of x, walked left to right: x is read as 16 sequential
 * streams (the prefetchers follow them), and each 8-column step finishes 8
 * whole 64-byte lines of y, written one after the other; from
 * KN_MEM_STREAM_BYTES up (rows a multiple of 16 and y 64-byte aligned, so the
 * lines are whole) they go around the caches with non-temporal stores,
 * which spares the read of every line of y a plain store starts with. */
static inline __attribute__((always_inline)) void ISA(tr_band16)(const float *x, size_t cols, float *y, size_t rows,
								    size_t c8, int stream)
{
	for (size_t j = 0; j < c8; j += 8) {
		__m256 a[8], b[8];
		ISA(tr8x8_regs)(x + j, cols, a);
		ISA(tr8x8_regs)(x + 8 * cols + j, cols, b);
		float *o = y + j * rows;
		for (int k = 0; k < 8; k++, o += rows) {
			if (stream) /* one line: both halves back to back */
				_mm256_stream_ps(o, a[k]), _mm256_stream_ps(o + 8, b[k]);
			else
				_mm256_storeu_ps(o, a[k]), _mm256_storeu_ps(o + 8, b[k]);
		}
	}
}

kn_status ISA(kn_simd_transpose)(const float *x, float *y, size_t rows, size_t cols)
{
	size_t r16 = rows - rows % 16, r8 = rows - rows % 8, c8 = cols - cols % 8;
	int stream = rows * cols * sizeof(float) >= KN_MEM_STREAM_BYTES && rows % 16 == 0 && (uintptr_t)y % 64 == 0;
	for (size_t i = 0; i < r16; i += 16) {
		if (stream)
			ISA(tr_band16)(x + i * cols, cols, y + i, rows, c8, 1);
		else
			ISA(tr_band16)(x + i * cols, cols, y + i, rows, c8, 0);
	}
	if (stream)
		_mm_sfence();
	for (size_t i = r16; i < r8; i += 8)
		for (size_t j = 0; j < c8; j += 8)
			ISA(tr8x8)(x + i * cols + j, cols, y + j * rows + i, rows);
	/* the edges: the last cols % 8 columns of every row, then the last
	 * rows % 8 rows */
	for (size_t i = 0; i < r8; i++)
		for (size_t j = c8; j < cols; j++)
			y[j * rows + i] = x[i * cols + j];
	for (size_t i = r8; i < rows; i++)
		for (size_t j = 0; j < cols; j++)
			y[j * rows + i] = x[i * cols + j];
	return KN_OK;
}

/* ---- gather, scatter_add ----------------------------------------------
 *
 * The indices are checked in one vector pass before anything is written
 * (the unsigned max of them against lim: a negative int32 is >= 2^31 as
 * unsigned), so a bad index is KN_EINVAL with y untouched and no lane ever
 * loads from outside x.  The pass reads idx at streaming speed, a quarter of
 * what the op itself moves. */
static int ISA(indices_ok)(const int32_t *idx, size_t n, size_t lim)
{
	uint32_t cap = lim < ((size_t)1 << 31) ? (uint32_t)lim : (uint32_t)1 << 31;
	size_t i = 0;
	uint32_t mx = 0;
	if (n >= W) {
		vi m = iload(idx);
		for (i = W; i + W <= n; i += W)
			m = imaxu(m, iload(idx + i));
		mx = hmaxu(m);
	}
	for (; i < n; i++)
		mx = (uint32_t)idx[i] > mx ? (uint32_t)idx[i] : mx;
	return mx < cap;
}

kn_status ISA(kn_simd_gather)(const float *x, size_t nx, const int32_t *idx, float *y, size_t n)
{
	if (!ISA(indices_ok)(idx, n, nx))
		return kn_index_fail("gather", idx, n, nx);
	size_t i = 0;
	/* y as copy writes it: around the caches from KN_MEM_STREAM_BYTES up */
	if (n * sizeof(float) >= KN_MEM_STREAM_BYTES && (uintptr_t)y % sizeof(float) == 0) {
		for (; i < n && (uintptr_t)(y + i) % 64; i++)
			y[i] = x[idx[i]];
		for (; i + 2 * W <= n; i += 2 * W) {
			vf a = vgather(x, iload(idx + i)), b = vgather(x, iload(idx + i + W));
			vstream(y + i, a), vstream(y + i + W, b);
		}
		_mm_sfence();
	}
	for (; i + 2 * W <= n; i += 2 * W) {
		vf a = vgather(x, iload(idx + i)), b = vgather(x, iload(idx + i + W));
		vstore(y + i, a), vstore(y + i + W, b);
	}
	for (; i < n; i++)
		y[i] = x[idx[i]];
	return KN_OK;
}

/* A plain loop in order of i, so that repeated indices sum as on the scalar
 * backend, bit for bit.  A vector scatter would need a conflict check per
 * vector (AVX-512CD; AVX2 has no scatter at all) to keep that order, and
 * each element is a load-add-store at a random address either way, which
 * is what bounds its speed. */
kn_status ISA(kn_simd_scatter_add)(const float *x, const int32_t *idx, size_t n, float *y, size_t ny)
{
	if (!ISA(indices_ok)(idx, n, ny))
		return kn_index_fail("scatter_add", idx, n, ny);
	for (size_t i = 0; i < n; i++)
		y[idx[i]] += x[i];
	return KN_OK;
}
