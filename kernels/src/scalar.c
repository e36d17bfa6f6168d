/*
 * scalar.c - the portable reference backend: plain C loops and libm.
 *
 * It is the baseline every other backend is checked and measured against, so
 * it favours obvious correctness over speed.
 */
#include "internal.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

/* relu without a branch: clearing every bit of a float whose sign bit is set
 * gives +0 for negatives (and -0, -NaN) and leaves the rest untouched.  The
 * compare-and-jump form mispredicts on mixed-sign data (17x slower, 0.1.0). */
static inline float relu1(float v)
{
	uint32_t b;
	memcpy(&b, &v, sizeof(b));
	b &= ~(uint32_t)((int32_t)b >> 31);
	memcpy(&v, &b, sizeof(v));
	return v;
}

/* sigmoid, silu and gelu are evaluated in double: the float forms either
 * overflow (exp(-x) for x < -88) or cancel (1 + tanh(u) for negative u), and
 * the scalar backend is the one the others are checked against.  All three
 * use e = exp(-|t|) <= 1 so that nothing overflows. */
static double sigmoid_d(double t)
{
	double e = exp(-fabs(t));
	return t >= 0 ? 1.0 / (1.0 + e) : e / (1.0 + e);
}

/* x * sigmoid(t), with the limit -0 at x = -Inf instead of -Inf * 0 = NaN. */
static float times_sigmoid(float x, double t)
{
	if (x == -INFINITY)
		return -0.0f;
	return (float)((double)x * sigmoid_d(t));
}

/* gelu, tanh form: x/2 (1 + tanh(u)) = x sigmoid(2u). */
static float gelu1(float x)
{
	double d = x;
	return times_sigmoid(x, 1.5957691216057308 * (d + 0.044715 * d * d * d));
}

/* clamp that keeps NaN (fminf/fmaxf would drop it). */
static inline float clamp1(float v, float lo, float hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

kn_status kn_scalar_unary_ex(kn_unary_op op, const float *x, float *y, size_t n, const kn_unary_params *p)
{
	size_t i;
	switch (op) {
	case KN_ABS:
		for (i = 0; i < n; i++)
			y[i] = fabsf(x[i]);
		break;
	case KN_NEG:
		for (i = 0; i < n; i++)
			y[i] = -x[i];
		break;
	case KN_SQRT:
		for (i = 0; i < n; i++)
			y[i] = sqrtf(x[i]);
		break;
	case KN_EXP:
		for (i = 0; i < n; i++)
			y[i] = expf(x[i]);
		break;
	case KN_RELU:
		for (i = 0; i < n; i++)
			y[i] = relu1(x[i]);
		break;
	case KN_LOG:
		for (i = 0; i < n; i++)
			y[i] = logf(x[i]);
		break;
	case KN_SIGMOID:
		for (i = 0; i < n; i++)
			y[i] = (float)sigmoid_d(x[i]);
		break;
	case KN_TANH:
		for (i = 0; i < n; i++)
			y[i] = tanhf(x[i]);
		break;
	case KN_GELU:
		for (i = 0; i < n; i++)
			y[i] = gelu1(x[i]);
		break;
	case KN_SILU:
		for (i = 0; i < n; i++)
			y[i] = times_sigmoid(x[i], x[i]);
		break;
	case KN_CLAMP:
		for (i = 0; i < n; i++)
			y[i] = clamp1(x[i], p->lo, p->hi);
		break;
	case KN_SCALE:
		for (i = 0; i < n; i++)
			y[i] = p->alpha * x[i];
		break;
	default:
		return kn_fail(KN_EUNSUPPORTED, "scalar: unary op %d", (int)op);
	}
	return KN_OK;
}

/* max/min that return NaN if either input is NaN (fmaxf/fminf would drop it);
 * on equal inputs (+0 vs -0) the second operand, as the simd maxps does. */
static inline float max1(float a, float b) { return a != a || b != b ? a + b : a > b ? a : b; }
static inline float min1(float a, float b) { return a != a || b != b ? a + b : a < b ? a : b; }

kn_status kn_scalar_binary(kn_binary_op op, const float *a, const float *b, float *y, size_t n)
{
	size_t i;
	switch (op) {
	case KN_ADD: for (i = 0; i < n; i++) y[i] = a[i] + b[i]; break;
	case KN_SUB: for (i = 0; i < n; i++) y[i] = a[i] - b[i]; break;
	case KN_MUL: for (i = 0; i < n; i++) y[i] = a[i] * b[i]; break;
	case KN_DIV: for (i = 0; i < n; i++) y[i] = a[i] / b[i]; break;
	case KN_MAX: for (i = 0; i < n; i++) y[i] = max1(a[i], b[i]); break;
	case KN_MIN: for (i = 0; i < n; i++) y[i] = min1(a[i], b[i]); break;
	default: return kn_fail(KN_EUNSUPPORTED, "scalar: binary op %d", (int)op);
	}
	return KN_OK;
}

/* The product of two floats is exact in double, so this rounds (almost
 * always) once, like an fma, without needing fmaf. */
kn_status kn_scalar_axpy(float alpha, const float *x, float *y, size_t n)
{
	for (size_t i = 0; i < n; i++)
		y[i] = (float)((double)alpha * x[i] + y[i]);
	return KN_OK;
}

/* Sums accumulate in double: the error bound n * 2^-53 * sum|x| stays below
 * half a float ulp of the result for any n a float array can have in
 * practice (2^28 elements: 2^-25), and there is nothing to tune. */
kn_status kn_scalar_dot(const float *x, const float *y, size_t n, float *out)
{
	double s = 0;
	for (size_t i = 0; i < n; i++)
		s += (double)x[i] * y[i];
	*out = (float)s;
	return KN_OK;
}

kn_status kn_scalar_reduce(kn_reduce_op op, const float *x, size_t n, float *out)
{
	double s = 0;
	float m;
	size_t i;
	switch (op) {
	case KN_SUM:
	case KN_MEAN:
		for (i = 0; i < n; i++)
			s += x[i];
		*out = (float)(op == KN_MEAN ? s / (double)n : s);
		break;
	case KN_NORM_L1:
		for (i = 0; i < n; i++)
			s += fabs((double)x[i]);
		*out = (float)s;
		break;
	case KN_NORM_L2:
		/* Squares of floats neither overflow nor underflow in double. */
		for (i = 0; i < n; i++)
			s += (double)x[i] * x[i];
		*out = (float)sqrt(s);
		break;
	case KN_REDUCE_MAX:
	case KN_REDUCE_MIN:
	case KN_NORM_LINF:
		if (n == 0) {
			*out = 0.0f; /* norm_linf only: api.c rejects empty max/min */
			break;
		}
		m = op == KN_NORM_LINF ? fabsf(x[0]) : x[0];
		for (i = 1; i < n; i++) {
			float v = op == KN_NORM_LINF ? fabsf(x[i]) : x[i];
			m = op == KN_REDUCE_MIN ? min1(m, v) : max1(m, v);
		}
		*out = m;
		break;
	default: return kn_fail(KN_EUNSUPPORTED, "scalar: reduce op %d", (int)op);
	}
	return KN_OK;
}

/* The best value is kept in a register: 0.5 compared against x[best], a load
 * that depended on the previous iteration's choice (~5 cycles an element).
 * Strict comparisons keep the first index on ties; the first NaN ends the
 * search. */
kn_status kn_scalar_argreduce(kn_argreduce_op op, const float *x, size_t n, size_t *out)
{
	if (op != KN_ARGMAX && op != KN_ARGMIN)
		return kn_fail(KN_EUNSUPPORTED, "scalar: argreduce op %d", (int)op);
	size_t best = 0;
	float bv = x[0];
	for (size_t i = 0; i < n; i++) {
		float v = x[i];
		if (isnan(v)) {
			best = i;
			break;
		}
		if (op == KN_ARGMAX ? v > bv : v < bv)
			bv = v, best = i;
	}
	*out = best;
	return KN_OK;
}

/* Row-wise softmax in double: max, then exp(x - max) and its sum. */
kn_status kn_scalar_softmax(const float *x, float *y, size_t rows, size_t cols, int log_form)
{
	for (size_t r = 0; r < rows; r++) {
		const float *a = x + r * cols;
		float *b = y + r * cols;
		double m = a[0], s = 0;
		for (size_t j = 0; j < cols; j++)
			m = isnan(a[j]) || a[j] > m ? a[j] : m;
		if (isnan(m)) {
			for (size_t j = 0; j < cols; j++)
				b[j] = NAN;
			continue;
		}
		for (size_t j = 0; j < cols; j++)
			s += exp((double)a[j] - m);
		/* (x - max) - log(s), never x - (max + log(s)): with a huge max, max +
		 * log(s) rounds to max and three tied 1e30s would each get 1, not 1/3. */
		double ls = log(s);
		for (size_t j = 0; j < cols; j++) {
			double d = ((double)a[j] - m) - ls;
			b[j] = (float)(log_form ? d : exp(d));
		}
	}
	return KN_OK;
}

/* layernorm / rmsnorm in double, two passes: the mean, then the sum of
 * squared deviations from it.  Two passes rather than Welford's one because
 * the row is read again anyway to write y, and in double the deviations of
 * float inputs are exact enough that the corrected term of the simd path
 * (simd_math.h) changes nothing here; rms sums x^2 directly (no mean).  No
 * float square can overflow or underflow in double.  A NaN or Inf in the
 * row makes the statistic non-finite, and the whole row NaN. */
kn_status kn_scalar_norm(const float *x, const float *g, const float *b, float *y, size_t rows, size_t cols,
			 float eps, int rms)
{
	for (size_t r = 0; r < rows; r++) {
		const float *a = x + r * cols;
		float *o = y + r * cols;
		double mean = 0, ss = 0;
		if (!rms) {
			for (size_t j = 0; j < cols; j++)
				mean += a[j];
			mean /= (double)cols;
		}
		for (size_t j = 0; j < cols; j++) {
			double d = (double)a[j] - mean;
			ss += d * d;
		}
		double var = ss / (double)cols;
		if (!isfinite(mean) || !isfinite(var)) {
			for (size_t j = 0; j < cols; j++)
				o[j] = NAN;
			continue;
		}
		double rstd = 1.0 / sqrt(var + (double)eps);
		for (size_t j = 0; j < cols; j++) {
			double v = ((double)a[j] - mean) * rstd * (double)g[j];
			o[j] = (float)(b ? v + (double)b[j] : v);
		}
	}
	return KN_OK;
}

/* ---- batchnorm ---------------------------------------------------------
 *
 * The fold shared by the host backends.  s = gamma / sqrt(var + eps) and
 * t = beta - mean s in double, then rounded to float once each; the fast
 * form y = fma(x, s, t) then errs by at most about 2^-24 (|x s| + |mean s|
 * + |beta|) + 2^-24 |y|.  What that form cannot say goes elsewhere: a NaN
 * statistic or a negative variance makes the channel NaN (KN_BN_NAN); an s
 * or t that is not a finite float (var + eps == 0, gamma or mean huge), or an
 * s that underflows float (x = Inf times a flushed s would be NaN, not Inf),
 * makes it KN_BN_EXACT: the formula itself, in double, per element. */
int kn_bn_fold(float mean, float var, float gamma, float beta, float eps, float *s, float *t)
{
	if (isnan(mean) || isnan(gamma) || isnan(beta) || !(var >= 0.0f))
		return KN_BN_NAN;
	double sd = (double)gamma / sqrt((double)var + (double)eps);
	double td = (double)beta - (double)mean * sd;
	float sf = (float)sd, tf = (float)td;
	if (!isfinite(sd) || !isfinite(td) || !isfinite(sf) || !isfinite(tf) || (sd != 0 && fabs(sd) < FLT_MIN))
		return KN_BN_EXACT;
	*s = sf, *t = tf;
	return KN_BN_FAST;
}

void kn_bn_row_exact(const float *x, float *y, size_t hw, float mean, float var, float gamma, float beta,
		     float eps)
{
	if (isnan(mean) || isnan(gamma) || isnan(beta) || !(var >= 0.0f)) {
		for (size_t i = 0; i < hw; i++)
			y[i] = NAN;
		return;
	}
	/* 1 / sqrt(0) is +Inf: then (x - mean) r is +-Inf, or NaN at x == mean,
	 * as the division in the formula would give */
	double r = 1.0 / sqrt((double)var + (double)eps), m = mean, g = gamma, b = beta;
	for (size_t i = 0; i < hw; i++)
		y[i] = (float)((((double)x[i] - m) * r) * g + b);
}

/* The reference: the formula in double for every channel (no fold), so the
 * other backends' fused form is checked against something independent. */
kn_status kn_scalar_batchnorm(const float *x, const float *mean, const float *var, const float *g, const float *b,
			      float *y, size_t n, size_t c, size_t hw, float eps)
{
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < c; j++) {
			size_t o = (i * c + j) * hw;
			kn_bn_row_exact(x + o, y + o, hw, mean[j], var[j], g[j], b ? b[j] : 0.0f, eps);
		}
	return KN_OK;
}

/* ---- concat: row by row, a memcpy per piece ------------------ */
kn_status kn_scalar_concat(const float *const *xs, const size_t *cols, size_t k, float *y, size_t rows,
			   size_t total)
{
	for (size_t r = 0; r < rows; r++) {
		float *o = y + r * total;
		for (size_t i = 0; i < k; i++) {
			if (cols[i]) /* a NULL input has cols 0: nothing to add to it */
				memcpy(o, xs[i] + r * cols[i], cols[i] * sizeof(float));
			o += cols[i];
		}
	}
	return KN_OK;
}

/* ---- memory (0.9.0) ----------------------------------------------------
 *
 * The reference loops.  copy is memcpy: GCC turns the plain loop into that
 * call at -O2 anyway, so writing the loop would only hide what runs. */
kn_status kn_scalar_copy(const float *x, float *y, size_t n)
{
	if (x != y)
		memcpy(y, x, n * sizeof(float));
	return KN_OK;
}

/* Row by row of x: reads contiguous, writes strided by rows (the simd
 * backend blocks it). */
kn_status kn_scalar_transpose(const float *x, float *y, size_t rows, size_t cols)
{
	for (size_t i = 0; i < rows; i++)
		for (size_t j = 0; j < cols; j++)
			y[j * rows + i] = x[i * cols + j];
	return KN_OK;
}

/* Valid indices: [0, lim).  A negative int32 is >= 2^31 as uint32_t, and a
 * non-negative one is < 2^31, so one unsigned compare against lim capped at
 * 2^31 does both ends. */
static int indices_ok(const int32_t *idx, size_t n, size_t lim)
{
	uint32_t cap = lim < ((size_t)1 << 31) ? (uint32_t)lim : (uint32_t)1 << 31, bad = 0;
	for (size_t i = 0; i < n; i++)
		bad |= (uint32_t)idx[i] >= cap;
	return !bad;
}

/* Every index is checked before y is written: on KN_EINVAL y is as it was. */
kn_status kn_scalar_gather(const float *x, size_t nx, const int32_t *idx, float *y, size_t n)
{
	if (!indices_ok(idx, n, nx))
		return kn_index_fail("gather", idx, n, nx);
	for (size_t i = 0; i < n; i++)
		y[i] = x[idx[i]];
	return KN_OK;
}

/* In order of i: a repeated index sums its x in that order. */
kn_status kn_scalar_scatter_add(const float *x, const int32_t *idx, size_t n, float *y, size_t ny)
{
	if (!indices_ok(idx, n, ny))
		return kn_index_fail("scatter_add", idx, n, ny);
	for (size_t i = 0; i < n; i++)
		y[idx[i]] += x[i];
	return KN_OK;
}

#define OPX(X, t, ld, r, c) ((t) ? (X)[(size_t)(c) * (ld) + (r)] : (X)[(size_t)(r) * (ld) + (c)])

/* i-k-j order: the inner loop runs along a row of C and of op(B) (contiguous
 * unless B is transposed), and each A element is loaded once. */
kn_status kn_scalar_sgemm(int ta, int tb, size_t M, size_t N, size_t K, float alpha, const float *A,
			  size_t lda, const float *B, size_t ldb, float beta, float *C, size_t ldc)
{
	for (size_t i = 0; i < M; i++) {
		float *c = C + i * ldc;
		for (size_t j = 0; j < N; j++)
			c[j] = beta == 0.0f ? 0.0f : beta * c[j];
		for (size_t k = 0; k < K; k++) {
			float a = alpha * OPX(A, ta, lda, i, k);
			if (tb)
				for (size_t j = 0; j < N; j++)
					c[j] += a * B[j * ldb + k];
			else
				for (size_t j = 0; j < N; j++)
					c[j] += a * B[k * ldb + j];
		}
	}
	return KN_OK;
}

kn_status kn_scalar_sgemv(int ta, size_t M, size_t N, float alpha, const float *A, size_t lda,
			  const float *x, float beta, float *y)
{
	size_t rows = ta ? N : M, len = ta ? M : N;
	for (size_t i = 0; i < rows; i++) {
		double s = 0;
		for (size_t k = 0; k < len; k++)
			s += (double)OPX(A, ta, lda, i, k) * x[k];
		y[i] = (float)(alpha * s + (beta == 0.0f ? 0.0 : (double)beta * y[i]));
	}
	return KN_OK;
}

/* ---- quant (0.11.0) ------------------------------------------------------
 *
 * The references: quant_bits.h holds the element formulas every backend
 * shares, so the loops here are all there is. */
#include "quant_bits.h"

kn_status kn_scalar_quantize(const float *x, int8_t *q, size_t rows, size_t cols, const float *s, size_t ns)
{
	for (size_t i = 0; i < rows; i++) {
		float sc = s[ns == 1 ? 0 : i];
		for (size_t j = 0; j < cols; j++)
			q[i * cols + j] = kn_q8(x[i * cols + j], sc);
	}
	return KN_OK;
}

kn_status kn_scalar_dequantize(const int8_t *q, float *y, size_t rows, size_t cols, const float *s, size_t ns)
{
	for (size_t i = 0; i < rows; i++) {
		float sc = s[ns == 1 ? 0 : i];
		for (size_t j = 0; j < cols; j++)
			y[i * cols + j] = (float)q[i * cols + j] * sc;
	}
	return KN_OK;
}

/* i-k-j as sgemm's, in int32: exact (api.c bounds K so no sum overflows). */
kn_status kn_scalar_qgemm(size_t M, size_t N, size_t K, const int8_t *A, size_t lda, const int8_t *B, size_t ldb,
			  int32_t *C, size_t ldc)
{
	for (size_t i = 0; i < M; i++) {
		int32_t *c = C + i * ldc;
		memset(c, 0, N * sizeof(int32_t));
		for (size_t k = 0; k < K; k++) {
			int32_t a = A[i * lda + k];
			const int8_t *b = B + k * ldb;
			for (size_t j = 0; j < N; j++)
				c[j] += a * b[j];
		}
	}
	return KN_OK;
}

/* Each bf16 product is exact in float; the sums run in float, in order of
 * k (the error bound of kernels.h is that of this order too). */
kn_status kn_scalar_bf16gemm(size_t M, size_t N, size_t K, const uint16_t *A, size_t lda, const uint16_t *B,
			     size_t ldb, float *C, size_t ldc)
{
	for (size_t i = 0; i < M; i++) {
		float *c = C + i * ldc;
		for (size_t j = 0; j < N; j++)
			c[j] = 0.0f;
		for (size_t k = 0; k < K; k++) {
			float a = kn_bf16_f32(A[i * lda + k]);
			const uint16_t *b = B + k * ldb;
			for (size_t j = 0; j < N; j++)
				c[j] += a * kn_bf16_f32(b[j]);
		}
	}
	return KN_OK;
}

kn_status kn_scalar_convert(kn_cvt c, const void *x, void *y, size_t n)
{
	switch (c) {
	case KN_CVT_TO_BF16:
		for (size_t i = 0; i < n; i++)
			((uint16_t *)y)[i] = kn_f32_bf16(((const float *)x)[i]);
		break;
	case KN_CVT_FROM_BF16:
		for (size_t i = 0; i < n; i++)
			((float *)y)[i] = kn_bf16_f32(((const uint16_t *)x)[i]);
		break;
	case KN_CVT_TO_F16:
		for (size_t i = 0; i < n; i++)
			((uint16_t *)y)[i] = kn_f32_f16(((const float *)x)[i]);
		break;
	case KN_CVT_FROM_F16:
		for (size_t i = 0; i < n; i++)
			((float *)y)[i] = kn_f16_f32(((const uint16_t *)x)[i]);
		break;
	}
	return KN_OK;
}
