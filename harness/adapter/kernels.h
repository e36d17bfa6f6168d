/*
 * harness/adapter/kernels.h - the adapter API: the frozen copy of the kernels
 * library's public API (kernels/include/kernels.h of kernels 0.14.1) that
 * the harness is compiled against when a compat rule names an "adapter"
 * (docs/adapters.md).  A foreign library needs no kernels.h of its own: its
 * adapter includes this header and defines the kn_* functions it can map
 * onto the library; harness/adapter/defaults.c answers KN_EUNSUPPORTED (a
 * cell shows n/a) for every other one.
 *
 * KN_VERSION_* below decide what plugin.c compiles (its BV_HAS_* groups):
 * they stay at 0.14 so every group compiles and the adapter may implement
 * any op.  The version a build reports is the tree's (kn_version in
 * defaults.c), not this.  Change this file only as the kernels API grows,
 * keeping every existing declaration: adapters are written against it.
 *
 * What follows is the kernels API's own documentation, unchanged.
 */
/* From kernels.h: the public API of the kernels tensor-kernel library.
 *
 * Every entry point returns a kn_status: KN_OK (0) or a negative code; the
 * human-readable reason for the last failure on this thread comes from
 * kn_last_error().  Ops and backends are enums so that a caller built against
 * a newer header can still ask an older library for something it lacks: the
 * library answers KN_EUNSUPPORTED instead of crashing.
 *
 * Buffers passed to a backend live where that backend computes: host memory
 * for scalar/simd/blas, device memory (from kn_alloc) for cuda.  Scalar results
 * (kn_reduce, kn_dot, kn_argreduce) are always written to host memory.
 *
 * The blas backend (OpenBLAS, when it was found at build time) runs what BLAS
 * has (dot, axpy, vector norms, copy; sgemm under conv2d's im2col) and hands
 * every other op (layernorm, rmsnorm, transpose, gather, scatter_add, the
 * quant group, depthwise conv2d, pooling, batchnorm and concat included) to
 * the simd backend.
 *
 * The cuda backend (0.5.0: every op; sgemm/sgemv through cuBLAS) launches
 * elementwise ops, softmax, the norms, conv and pooling asynchronously
 * (kn_sync waits); reductions and dot return once their result is in host
 * memory.
 */
#ifndef KERNELS_H
#define KERNELS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define KN_VERSION_MAJOR 0
#define KN_VERSION_MINOR 14
#define KN_VERSION_PATCH 1

typedef enum kn_status {
	KN_OK = 0,
	KN_EINVAL = -1,       /* a bad argument: null pointer, bad size, unknown enum */
	KN_EUNSUPPORTED = -2, /* this op or backend is not in this version of the library */
	KN_EUNAVAILABLE = -3, /* the backend exists but cannot run here (no CPU feature, no device) */
	KN_ENOMEM = -4,
	KN_EDEVICE = -5       /* the device reported an error while running */
} kn_status;

typedef enum kn_backend {
	KN_BACKEND_SCALAR = 0,
	KN_BACKEND_SIMD = 1,
	KN_BACKEND_BLAS = 2,
	KN_BACKEND_CUDA = 3,
	KN_BACKEND_COUNT_
} kn_backend;

typedef enum kn_unary_op {
	KN_ABS = 0,
	KN_NEG = 1,
	KN_SQRT = 2,
	KN_EXP = 3,
	KN_RELU = 4,
	/* 0.2.0 */
	KN_LOG = 5,
	KN_SIGMOID = 6, /* 1 / (1 + exp(-x)) */
	KN_TANH = 7,
	KN_GELU = 8,    /* tanh approximation: x/2 * (1 + tanh(sqrt(2/pi) * (x + 0.044715 x^3))) */
	KN_SILU = 9,    /* x * sigmoid(x) */
	KN_CLAMP = 10,  /* min(max(x, lo), hi); NaN stays NaN */
	KN_SCALE = 11,  /* alpha * x */
	KN_UNARY_COUNT_
} kn_unary_op;

/* Parameters of the ops that take some (clamp: lo, hi; scale: alpha).  Ops
 * without parameters ignore them.  kn_unary() uses KN_UNARY_PARAMS_DEFAULT. */
typedef struct kn_unary_params {
	float lo, hi; /* clamp bounds, lo <= hi */
	float alpha;  /* scale factor */
} kn_unary_params;
#define KN_UNARY_PARAMS_DEFAULT {0.0f, 6.0f, 1.0f}

/* Elementwise ops on two inputs (0.3.0).  max/min return NaN when either
 * input is NaN; for +0 vs -0 they return the second operand. */
typedef enum kn_binary_op {
	KN_ADD = 0,
	KN_SUB = 1,
	KN_MUL = 2,
	KN_DIV = 3,
	KN_MAX = 4,
	KN_MIN = 5,
	KN_BINARY_COUNT_
} kn_binary_op;

/* Reductions of a vector to one float (0.3.0).  On empty input sum and the
 * norms give 0; mean, max and min are KN_EINVAL.  A NaN anywhere in the input
 * makes every reduction NaN (norm_l1/l2 of +-Inf without NaN: +Inf). */
typedef enum kn_reduce_op {
	KN_SUM = 0,
	KN_MEAN = 1,
	KN_REDUCE_MAX = 2,
	KN_REDUCE_MIN = 3,
	KN_NORM_L1 = 4,   /* sum |x| */
	KN_NORM_L2 = 5,   /* sqrt(sum x^2), without overflow or underflow on the way */
	KN_NORM_LINF = 6, /* max |x| */
	KN_REDUCE_COUNT_
} kn_reduce_op;

/* Index reductions (0.3.0): the first index of the largest / smallest value,
 * or of the first NaN if there is one (as numpy does).  Empty: KN_EINVAL. */
typedef enum kn_argreduce_op {
	KN_ARGMAX = 0,
	KN_ARGMIN = 1,
	KN_ARGREDUCE_COUNT_
} kn_argreduce_op;

/* "0.1.0": the version of the library actually linked, not of this header. */
const char *kn_version(void);

/* Message for the last failing call on this thread ("" if none). */
const char *kn_last_error(void);
const char *kn_status_name(kn_status s);

const char *kn_backend_name(kn_backend b);
const char *kn_unary_name(kn_unary_op op);
const char *kn_binary_name(kn_binary_op op);       /* 0.3.0 */
const char *kn_reduce_name(kn_reduce_op op);       /* 0.3.0 */
const char *kn_argreduce_name(kn_argreduce_op op); /* 0.3.0 */

/* KN_OK when backend b can run on this machine; otherwise the reason is in
 * kn_last_error() (e.g. "cuda: no device: cudaGetDeviceCount: ..."). */
kn_status kn_backend_probe(kn_backend b);

/* y[i] = op(x[i]) for i < n.  x and y may be the same buffer. */
kn_status kn_unary(kn_backend b, kn_unary_op op, const float *x, float *y, size_t n);

/* kn_unary with explicit parameters; p == NULL means the defaults.  Clamp
 * with lo > hi or a NaN bound is KN_EINVAL.  (0.2.0) */
kn_status kn_unary_ex(kn_backend b, kn_unary_op op, const float *x, float *y, size_t n,
		      const kn_unary_params *p);

/* y[i] = a[i] op x2[i] for i < n; y may be the same buffer as a or x2.  (0.3.0) */
kn_status kn_binary(kn_backend b, kn_binary_op op, const float *a, const float *x2, float *y, size_t n);

/* y[i] = alpha * x[i] + y[i].  (0.3.0) */
kn_status kn_axpy(kn_backend b, float alpha, const float *x, float *y, size_t n);

/* *out = op(x[0..n)).  Sums accumulate with error independent of n in
 * practice (scalar: in double; simd: float blocks of 4096 added in double),
 * so 16M-element sums stay accurate.  (0.3.0) */
kn_status kn_reduce(kn_backend b, kn_reduce_op op, const float *x, size_t n, float *out);

/* *out = the index op selects (see kn_argreduce_op).  (0.3.0) */
kn_status kn_argreduce(kn_backend b, kn_argreduce_op op, const float *x, size_t n, size_t *out);

/* *out = sum x[i] y[i]; 0 for n == 0.  (0.3.0) */
kn_status kn_dot(kn_backend b, const float *x, const float *y, size_t n, float *out);

/* Row-wise softmax of a rows x cols row-major matrix: y = exp(x - max) /
 * sum(exp(x - max)), computed with the row max subtracted so no exp
 * overflows.  A row holding a NaN or +Inf gives NaN.  y may be x.  (0.4.0) */
kn_status kn_softmax(kn_backend b, const float *x, float *y, size_t rows, size_t cols);
/* y = x - max - log(sum(exp(x - max))), row-wise.  (0.4.0) */
kn_status kn_log_softmax(kn_backend b, const float *x, float *y, size_t rows, size_t cols);

/* Layer normalisation of each row of a rows x cols row-major matrix:
 *   y = (x - mean) / sqrt(var + eps) * gamma + beta,
 * mean and var (the biased, 1/cols variance) taken over the row; gamma and
 * beta hold cols elements each (one per column), beta == NULL meaning no
 * bias.  var comes from a second pass over the row's deviations from the
 * mean, never from sum(x^2) - sum(x)^2, which cancels catastrophically for
 * rows whose mean is large against their spread.  A row holding a NaN or an
 * Inf gives NaN throughout; a constant row gives beta (0 / sqrt(eps)), or NaN
 * when eps is 0.  eps must be finite and >= 0 (else KN_EINVAL).  y may be x.
 * rows or cols 0: nothing to do.  (0.8.0) */
kn_status kn_layernorm(kn_backend b, const float *x, const float *gamma, const float *beta, float *y,
		       size_t rows, size_t cols, float eps);
/* RMS normalisation of each row: y = x / sqrt(mean(x^2) + eps) * gamma.  A
 * row holding a NaN or an Inf gives NaN throughout; otherwise as
 * kn_layernorm.  (0.8.0) */
kn_status kn_rmsnorm(kn_backend b, const float *x, const float *gamma, float *y, size_t rows, size_t cols,
		     float eps);

/* ---- memory (0.9.0): exact, nothing is rounded -------------------------
 *
 * Indices are int32_t (as in most frameworks' gather/scatter).  Every index
 * is checked against the length of the buffer it addresses, on every
 * backend, before anything is written: one out of range (negative, or >=
 * the length) makes the call KN_EINVAL with y untouched, never a read or a
 * write out of bounds.  The cuda backend checks on the device and so waits
 * for that check (the op itself is then launched asynchronously). */

/* y = x, n floats.  y may be x; other overlaps are not allowed.  (0.9.0) */
kn_status kn_copy(kn_backend b, const float *x, float *y, size_t n);
/* y = x^T: x is rows x cols row-major, y cols x rows row-major; out of place
 * (y == x is KN_EINVAL unless rows or cols is 1 or 0).  (0.9.0) */
kn_status kn_transpose(kn_backend b, const float *x, float *y, size_t rows, size_t cols);
/* y[i] = x[idx[i]] for i < n; x holds nx floats, 0 <= idx[i] < nx.  (0.9.0) */
kn_status kn_gather(kn_backend b, const float *x, size_t nx, const int32_t *idx, float *y, size_t n);
/* y[idx[i]] += x[i] for i < n; y holds ny floats, 0 <= idx[i] < ny.  Where
 * indices repeat, the host backends add in order of i (so the result is
 * defined to the bit); cuda adds atomically, in no fixed order, so repeated
 * indices may round differently from run to run.  With distinct indices
 * every backend gives the same bits.  (0.9.0) */
kn_status kn_scatter_add(kn_backend b, const float *x, const int32_t *idx, size_t n, float *y, size_t ny);

/* ---- quant (0.11.0): int8, bf16 and fp16 ------------------------------
 *
 * int8 quantization is symmetric: a float x with scale s maps to
 *   q = sat(rne(x / s)),
 * x / s the correctly rounded float quotient, rne rounding to the nearest
 * integer with halves to even (2.5 -> 2, -3.5 -> -4), and sat saturating to
 * [-127, 127] (so -q is always an int8 too: -128 never comes out).  A NaN
 * quotient gives 0, +-Inf saturates to +-127.  Scales are taken as given:
 * s = 0 gives +-127 (or 0 for x = 0), a negative s flips signs; nothing
 * about a scale is an error.  Dequantization is y = (float)q * s, one
 * rounding.  Both are exact (every backend gives the same bits).
 *
 * Scales: nscales 1 is one scale for the whole tensor, nscales == rows one
 * per row (per channel: a weight matrix stored out_features x in_features
 * has a row per output channel); anything else is KN_EINVAL.  scales lives
 * where the backend computes, as x does.
 *
 * bf16 and fp16 payloads are uint16_t bit patterns.  f32 -> bf16 rounds to
 * nearest even (the top 16 bits of the rounded float; overflow gives Inf,
 * subnormals are rounded, not flushed); a NaN stays a NaN (its top 16 bits
 * with the quiet bit set).  f32 -> f16 rounds to nearest even as F16C's
 * vcvtps2ph does (overflow past 65520 gives Inf, f16 subnormals kept; a NaN
 * keeps its sign and top 10 payload bits, quiet bit set).  bf16 -> f32 is
 * exact, the bits shifted up (a NaN's payload as it was); f16 -> f32 is
 * exact too, a NaN coming back quiet as vcvtph2ps gives it.  y may not
 * overlap x.
 */
/* q = sat(rne(x / s)), x rows x cols row-major.  (0.11.0) */
kn_status kn_quantize_i8(kn_backend b, const float *x, int8_t *q, size_t rows, size_t cols, const float *scales,
			 size_t nscales);
/* y = (float)q * s.  (0.11.0) */
kn_status kn_dequantize_i8(kn_backend b, const int8_t *q, float *y, size_t rows, size_t cols,
			   const float *scales, size_t nscales);

/* C = A B in int32, exact: A M x K int8, B K x N int8, C M x N int32, all
 * row-major with leading dimensions lda >= K, ldb >= N, ldc >= N (counted in
 * elements).  C is overwritten.  Every sum is exact: K is at most
 * KN_QGEMM_MAX_K, so no sum of K products of int8s (each at most 128 x 128
 * = 2^14 in magnitude) can leave int32; a larger K is KN_EINVAL.  K == 0
 * gives C = 0.  (0.11.0) */
#define KN_QGEMM_MAX_K 131071
kn_status kn_qgemm_i8(kn_backend b, size_t M, size_t N, size_t K, const int8_t *A, size_t lda, const int8_t *B,
		      size_t ldb, int32_t *C, size_t ldc);

/* C = A B with bf16 A (M x K) and B (K x N), float C (M x N, overwritten),
 * row-major, leading dimensions as kn_qgemm_i8.  Each product of two bf16s is
 * exact in float; the sums are float, in an order that differs by backend,
 * so |C - exact| <= (K + 2) eps sum_k |a_ik b_kj| (eps = 2^-24) for normal
 * results.  The AVX512-BF16 path (vdpbf16ps) treats subnormal inputs as
 * zero (their products are lost: the bound then holds for A and B with
 * their subnormals zeroed) and flushes subnormal partial sums to zero (up
 * to 2^-126 each, K of them).  NaN and Inf propagate as in float.  K == 0
 * gives C = 0.  (0.11.0) */
kn_status kn_bf16gemm(kn_backend b, size_t M, size_t N, size_t K, const uint16_t *A, size_t lda,
		      const uint16_t *B, size_t ldb, float *C, size_t ldc);

/* n elements each; see above for the rounding.  (0.11.0) */
kn_status kn_f32_to_bf16(kn_backend b, const float *x, uint16_t *y, size_t n);
kn_status kn_bf16_to_f32(kn_backend b, const uint16_t *x, float *y, size_t n);
kn_status kn_f32_to_f16(kn_backend b, const float *x, uint16_t *y, size_t n);
kn_status kn_f16_to_f32(kn_backend b, const uint16_t *x, float *y, size_t n);
/* ---- convolution and pooling ------------------------------------------
 *
 * One descriptor for conv2d, depthwise conv2d and pooling.  Input x is
 * n x c x h x w (KN_NCHW) or n x h x w x c (KN_NHWC); output y is
 * n x k x oh x ow or n x oh x ow x k, with
 *   oh = (h + 2 pad - r) / stride + 1,  ow = (w + 2 pad - s) / stride + 1
 * (kn_conv2d_out_size).  The padding is the same on all four sides and is
 * zeros for conv, left out for pooling.  Every field is checked: zero
 * sizes other than n, stride 0, pad >= r or s (a window of only padding),
 * a window larger than the padded input, an unknown layout, or a size whose
 * element count overflows are KN_EINVAL with a message; n == 0 is an empty
 * batch (KN_OK, nothing written).  Buffers may not overlap. */
typedef enum kn_layout {
	KN_NCHW = 0,
	KN_NHWC = 1,
	KN_LAYOUT_COUNT_
} kn_layout;

typedef struct kn_conv2d_params {
	size_t n, c, h, w; /* batch, input channels, input height and width */
	size_t k;          /* output channels (depthwise and pooling: k == c) */
	size_t r, s;       /* window height and width */
	size_t stride;     /* the same along both axes, >= 1 */
	size_t pad;        /* on every side, < r and < s */
	kn_layout layout;
} kn_conv2d_params;

/* oh and ow of p, after checking p as the ops do. */
kn_status kn_conv2d_out_size(const kn_conv2d_params *p, size_t *oh, size_t *ow);

/* y = conv(x, wt), no bias.  wt is k x c x r x s for KN_NCHW (OIHW) and
 * r x s x c x k for KN_NHWC (HWIO), so each layout's convolution is one
 * matrix product over im2col columns.  Sums are in float, in an order each
 * backend chooses: results agree to about (c r s) eps sum |terms|. */
kn_status kn_conv2d(kn_backend b, const kn_conv2d_params *p, const float *x, const float *wt, float *y);

/* Depthwise: each channel convolved with its own r x s filter (k == c,
 * channel multiplier 1); wt is c x r x s (KN_NCHW) or r x s x c (KN_NHWC). */
kn_status kn_dwconv2d(kn_backend b, const kn_conv2d_params *p, const float *x, const float *wt, float *y);

typedef enum kn_pool_op {
	KN_POOL_MAX = 0, /* NaN in a window gives NaN */
	KN_POOL_AVG = 1, /* the mean over the window's elements inside the input
			  * (padding not counted, count_include_pad = false) */
	KN_POOL_COUNT_
} kn_pool_op;

/* Pooling over r x s windows of each channel (k == c); an op this
 * library lacks is KN_EUNSUPPORTED, as for every op enum. */
kn_status kn_pool2d(kn_backend b, kn_pool_op op, const kn_conv2d_params *p, const float *x, float *y);

/* ---- batchnorm, concat -------------------------------------------------- */

/* Batch normalisation in its inference form over an N x C x HW tensor (NCHW,
 * row-major; HW is the spatial size, H * W):
 *
 *   y[n][c][i] = (x[n][c][i] - mean[c]) / sqrt(var[c] + eps) * gamma[c] + beta[c]
 *
 * with the per-channel statistics mean, var, gamma and beta (C floats each;
 * beta may be NULL for 0).  eps must be finite and >= 0 (KN_EINVAL
 * otherwise).  The host backends fold each channel into a scale s = gamma /
 * sqrt(var + eps) and a shift t = beta - mean s, both computed in double, and
 * write y = x s + t with one fused multiply-add (scalar: in double); the
 * error is at most about eps_f (|x s| + |mean s| + |beta|), eps_f = 2^-23.
 * A channel whose var is negative or NaN, or whose mean, gamma or beta is
 * NaN, is NaN throughout (a negative variance is corrupt statistics, not
 * something to take the square root of quietly).  A channel whose s or t is
 * not a finite float (var + eps == 0, huge gamma) goes through the formula
 * above in double, so infinities come out as the formula says.  y may be x;
 * other overlaps are not allowed. */
kn_status kn_batchnorm(kn_backend b, const float *x, const float *mean, const float *var, const float *gamma,
		       const float *beta, float *y, size_t n, size_t c, size_t hw, float eps);

/* Concatenation along the last axis, exact: input i is rows x cols[i]
 * row-major at xs[i], y is rows x (cols[0] + ... + cols[k-1]) row-major, and
 * row r of y is row r of xs[0], then of xs[1], ...  k is at most
 * KN_CONCAT_MAX; xs and cols are host arrays (on cuda xs[i] are device
 * pointers).  An input with cols[i] == 0 contributes nothing and may be NULL.
 * y must not overlap any input: an overlap of the address ranges is
 * KN_EINVAL. */
#define KN_CONCAT_MAX 64
kn_status kn_concat(kn_backend b, size_t k, const float *const *xs, const size_t *cols, float *y, size_t rows);

/* C = alpha op(A) op(B) + beta C, all row-major: op(A) is M x K, op(B) K x N,
 * C M x N; op(X) = X^T when trans_x != 0.  Leading dimensions count floats
 * between rows as stored: lda >= (trans_a ? M : K), ldb >= (trans_b ? K : N),
 * ldc >= N (and >= 1), else KN_EINVAL.  beta == 0 overwrites C (NaN in C
 * does not survive); K == 0 gives C = beta C.  (0.4.0) */
kn_status kn_sgemm(kn_backend b, int trans_a, int trans_b, size_t M, size_t N, size_t K, float alpha,
		   const float *A, size_t lda, const float *B, size_t ldb, float beta, float *C, size_t ldc);

/* y = alpha op(A) x + beta y for the M x N row-major A (lda >= N): y has M
 * elements and x N, or, with trans_a, y has N and x M.  (0.4.0) */
kn_status kn_sgemv(kn_backend b, int trans_a, size_t M, size_t N, float alpha, const float *A, size_t lda,
		   const float *x, float beta, float *y);

/* Scaled dot-product attention over one sequence of seq tokens (0.14.0):
 *   o[i, h] = sum_j softmax_j(scale q[i, h] . k[j, h]) v[j, h]
 * for each of `heads` heads, where x[i, h] is the d_head floats at
 * x + i ld + h d_head (so one packed QKV buffer, rows of 3 heads d_head,
 * is q, q + heads d_head, q + 2 heads d_head with ld 3 heads d_head), and
 * o[i, h] is at o + i ldo + h d_head.  ld and ldo >= heads d_head, else
 * KN_EINVAL; scale must be finite.  The scores never go through memory as a
 * whole: blocks of query rows are scored, normalised (as kn_softmax: a row
 * whose scores hold a NaN or +Inf gives NaN) and applied to v while they
 * are in cache (cuda: through cuBLAS and its softmax, block by block).  o
 * must not overlap q, k or v.  seq, heads or d_head 0: nothing to do. */
kn_status kn_attention(kn_backend b, const float *q, const float *k, const float *v, size_t ld, float *o,
		       size_t ldo, size_t seq, size_t heads, size_t d_head, float scale);

/* The instruction set the simd backend runs with on this machine: "avx512",
 * "avx2" (with FMA) or "generic" (no usable vector unit: portable C).  (0.2.0) */
const char *kn_simd_isa(void);
/* Forces the simd backend onto one path ("avx512", "avx2", "generic"; NULL
 * or "auto" = the best this CPU has), e.g. to test or compare them.
 * KN_EUNAVAILABLE when the CPU lacks it, KN_EINVAL for an unknown name.
 * Not thread-safe against concurrent simd calls.  (0.2.0) */
kn_status kn_simd_set_isa(const char *isa);

/* The avx512 path runs kn_qgemm_i8 with AVX-512 VNNI and kn_bf16gemm with
 * AVX512-BF16 when the CPU has them; KN_SIMD_AVX512_EXT=0 in the
 * environment (read at each call) keeps it on plain AVX-512BW / F kernels,
 * to test or compare them.  (0.11.0) */

/* Memory where backend b computes.  For host backends these are aligned host
 * allocations; for cuda they are device allocations.  Release them with
 * kn_free only (0.10.0: host blocks are counted, see kn_memory_get). */
kn_status kn_alloc(kn_backend b, size_t bytes, void **out);
void kn_free(kn_backend b, void *p);
kn_status kn_copy_in(kn_backend b, void *dst, const void *src, size_t bytes);
kn_status kn_copy_out(kn_backend b, void *dst, const void *src, size_t bytes);
/* Waits until all work submitted to backend b has finished. */
kn_status kn_sync(kn_backend b);

/* ---- memory accounting (0.10.0) ------------------------------------------
 *
 * Every allocation the library makes is counted: kn_alloc's buffers, the
 * host scratch of its kernels (sgemm's packed panels, softmax's row buffer)
 * and the cuda backend's device scratch.  Memory that other libraries
 * allocate inside a call (OpenBLAS's buffers, the CUDA runtime's context)
 * is theirs and not counted.  Host bytes are the allocator's usable size of
 * each block, device bytes what was asked of cudaMalloc.  The peak is the
 * most held at once since the last kn_memory_reset_peak() (or since the
 * library was loaded), so a call's own workspace is the peak after it minus
 * what was held before it.  Counters are atomic: safe with calls on several
 * threads, but a peak then covers all of them. */
typedef struct kn_memory_usage {
	size_t host_bytes, host_peak_bytes;     /* held now, most held at once */
	size_t device_bytes, device_peak_bytes; /* the same for device memory */
} kn_memory_usage;
/* KN_EINVAL for a null out.  (0.10.0) */
kn_status kn_memory_get(kn_memory_usage *out);
/* Starts a new peak from what is held now.  (0.10.0) */
void kn_memory_reset_peak(void);

#ifdef __cplusplus
}
#endif
#endif
