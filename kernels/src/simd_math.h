/*
 * simd_math.h - the simd backend's kernels, written once against a small set
 * of vector primitives (vf, vload, vfma, ...) and compiled once per
 * instruction set: simd_avx512.c and simd_avx2.c define the primitives for
 * their width W and then include this file, so both paths share one copy of
 * the algorithms (and of their accuracy arguments).
 *
 * The elementary functions are range reduction plus a polynomial (Cephes
 * coefficients); see README.md for the measured worst-case errors.  Every
 * kernel handles NaN and +-Inf explicitly and works on unaligned pointers;
 * the last n % W elements go through masked loads and stores.
 */
#ifndef KN_SIMD_ISA_DEFINED
#error "include simd_math.h from an ISA file that defines the primitives"
#endif

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* exp(x + xlo) for a small correction xlo (|xlo| <= ulp(x)); xlo lets gelu
 * pass an argument that carries more than float precision.  Inputs are
 * clamped to [-104, 89] first (unless clamp is 0: the caller checked that
 * every lane is in vexp_normal_range): beyond, the result is 0 or +Inf
 * anyway, and the clamp keeps 2^n representable.  vmax(C, x) returns x when
 * x is NaN (the second operand wins on unordered input), so NaN flows
 * through to the end. */
static inline __attribute__((always_inline)) vf vexp_poly(vf x, vf xlo, int has_lo, int clamp)
{
	if (clamp) {
		x = vmax(vset1(-104.0f), x);
		x = vmin(vset1(89.0f), x);
	}
	/* n = round(x / ln2) by adding and subtracting 1.5 2^23 (round to
	 * nearest even, as vround, for |x / ln2| < 2^22): an fma and a sub are
	 * cheaper than a multiply and a rounding instruction.  t keeps n as an
	 * integer in its low bits (vexp_scale). */
	const vf magic = vset1(12582912.0f);
	vf t = vfma(x, vset1(1.44269504088896341f), magic);
	vf n = vsub(t, magic);
	/* r = x - n ln2 in two steps (Cody-Waite): ln2_hi has few enough bits
	 * that n * ln2_hi is exact for every n reached here. */
	vf r = vfnma(n, vset1(0.693145751953125f), x);
	r = vfnma(n, vset1(1.42860676533018708e-06f), r);
	if (has_lo) /* plain exp adds no 0: r + 0 is not r for r = -0, so it would stay */
		r = vadd(r, xlo);
	vf p = vset1(1.9875691500e-4f);
	p = vfma(p, r, vset1(1.3981999507e-3f));
	p = vfma(p, r, vset1(8.3334519073e-3f));
	p = vfma(p, r, vset1(4.1665795894e-2f));
	p = vfma(p, r, vset1(1.6666665459e-1f));
	p = vfma(p, r, vset1(5.0000001201e-1f));
	vf y = vadd(vfma(p, vmul(r, r), r), vset1(1.0f));
	/* y 2^n rounded once, so that results in the denormal range are
	 * rounded, not flushed (AVX-512: vscalefps; AVX2: n added to y's
	 * exponent field, two steps only near the ends of the range). */
#ifdef KN_EXP_NORMAL_RANGE
	if (!clamp) /* every result normal: y's exponent plus n, exactly y 2^n */
		return vexp_scale_normal(y, t);
#endif
	return vexp_scale(y, n, t);
}

static inline __attribute__((always_inline)) vf vexp_core(vf x, vf xlo, int has_lo)
{
#ifdef KN_EXP_NORMAL_RANGE
	/* AVX2: a vector whose every lane gives a normal result (no NaN, no
	 * clamp, n in [-125, 127]) skips the clamp and the ends' test */
	if (__builtin_expect(vexp_normal_range(x), 1))
		return vexp_poly(x, xlo, has_lo, 0);
#endif
	return vexp_poly(x, xlo, has_lo, 1);
}

static inline vf vexp_lo(vf x, vf xlo) { return vexp_core(x, xlo, 1); }
static inline vf vexp(vf x) { return vexp_core(x, vset1(0.0f), 0); }

static inline vf vabs(vf x) { return vandnot(vset1(-0.0f), x); }

/* Natural log: x = m 2^e with m in [sqrt(1/2), sqrt(2)), log(x) = e ln2 +
 * log1p(m - 1), m - 1 exact (Sterbenz).  Denormal inputs are scaled by 2^23
 * first so that the exponent field means what it says. */
static inline vf vlog(vf x0)
{
	vm tiny = vcmplt(x0, vset1(FLT_MIN));
	vf x = vblend(tiny, x0, vmul(x0, vset1(8388608.0f)));
	vi bits = fasi(x);
	vf e = icvtf(isub(ISRLI(bits, 23), iset1(127)));
	e = vsub(e, vblend(tiny, vset1(0.0f), vset1(23.0f)));
	vf m = iasf(ior(iand(bits, iset1(0x007fffff)), iset1(0x3f800000))); /* [1, 2) */
	vm big = vcmpge(m, vset1(1.41421356237f));
	m = vblend(big, m, vmul(m, vset1(0.5f)));
	e = vadd(e, vblend(big, vset1(0.0f), vset1(1.0f)));
	vf f = vsub(m, vset1(1.0f));
	vf z = vmul(f, f);
	vf p = vset1(7.0376836292e-2f);
	p = vfma(p, f, vset1(-1.1514610310e-1f));
	p = vfma(p, f, vset1(1.1676998740e-1f));
	p = vfma(p, f, vset1(-1.2420140846e-1f));
	p = vfma(p, f, vset1(1.4249322787e-1f));
	p = vfma(p, f, vset1(-1.6668057665e-1f));
	p = vfma(p, f, vset1(2.0000714765e-1f));
	p = vfma(p, f, vset1(-2.4999993993e-1f));
	p = vfma(p, f, vset1(3.3333331174e-1f));
	vf y = vmul(vmul(p, f), z);
	y = vfma(e, vset1(-2.12194440e-4f), y);
	y = vfma(z, vset1(-0.5f), y);
	vf r = vadd(f, y);
	r = vfma(e, vset1(0.693359375f), r);
	/* log(+-0) = -Inf, log(x < 0) = NaN, log(+Inf) = +Inf, NaN stays NaN. */
	r = vblend(vcmpeq(x0, vset1(0.0f)), r, vset1(-INFINITY));
	r = vblend(vcmplt(x0, vset1(0.0f)), r, vset1(NAN));
	r = vblend(vcmpeq(x0, vset1(INFINITY)), r, x0);
	return vblend(vcmpunord(x0, x0), r, x0);
}

/* tanh: an odd polynomial below |x| = 0.625 (where 1 - 2/(e^2x + 1) would
 * cancel), the exp form above it; exp(2|x|) = Inf gives exactly 1. */
static inline vf vtanh(vf x)
{
	vf sign = vand(x, vset1(-0.0f));
	vf ax = vabs(x);
	vf z = vmul(x, x);
	vf p = vset1(-5.70498872745e-3f);
	p = vfma(p, z, vset1(2.06390887954e-2f));
	p = vfma(p, z, vset1(-5.37397155531e-2f));
	p = vfma(p, z, vset1(1.33314422036e-1f));
	p = vfma(p, z, vset1(-3.33332819422e-1f));
	vf small = vfma(vmul(x, z), p, x);
	vf e = vexp(vadd(ax, ax));
	vf large = vsub(vset1(1.0f), vdiv(vset1(2.0f), vadd(e, vset1(1.0f))));
	large = vor(large, sign);
	return vblend(vcmplt(ax, vset1(0.625f)), large, small);
}

/* sigmoid from e = exp(-|x|) <= 1, so nothing overflows: 1/(1+e) for x >= 0,
 * e/(1+e) for x < 0 (accurate down into the denormals, unlike 1/(1+exp(-x))). */
static inline vf vsigmoid_lo(vf x, vf xlo)
{
	vf neg = vset1(-0.0f);
	vf sign = vand(x, neg);
	vf e = vexp_lo(vor(x, neg), vxor(vxor(xlo, sign), neg)); /* exp(-|x + xlo|) */
	vf s = vdiv(vset1(1.0f), vadd(vset1(1.0f), e));
	return vblend(vcmplt(x, vset1(0.0f)), s, vmul(e, s));
}

static inline vf vsigmoid(vf x) { return vsigmoid_lo(x, vset1(0.0f)); }

/* silu(x) = x sigmoid(x); clamping the factor x at -200 makes silu(-Inf) = -0
 * (the limit) instead of -Inf * 0 = NaN, and changes nothing else: below
 * -104 sigmoid is exactly 0. */
static inline vf vsilu(vf x)
{
	return vmul(vmax(vset1(-200.0f), x), vsigmoid(x));
}

/* gelu (tanh form) = x/2 (1 + tanh(u)) = x sigmoid(2u), u = sqrt(2/pi) (x +
 * 0.044715 x^3).  The sigmoid form avoids the cancellation of 1 + tanh(u) for
 * negative x.  2u is computed in double and passed to exp as hi + lo: for
 * x < -3 the result is exp(-|2u|)-sized and its relative error is |2u| times
 * the relative error of 2u, so float rounding of 2u alone would cost ~20 ulp. */
static inline vf vgelu(vf x)
{
	vf xt = vmin(vset1(100.0f), vmax(vset1(-100.0f), x));
	vf thi, tlo;
	gelu_arg(xt, &thi, &tlo);
	return vmul(vmax(vset1(-200.0f), x), vsigmoid_lo(thi, tlo));
}

/* clamp: vmax(lo, x) and vmin(hi, .) return x when it is NaN, so NaN stays. */
static inline vf vclamp(vf x, vf lo, vf hi) { return vmin(hi, vmax(lo, x)); }

/* relu as max(x, 0): +0 for negatives and -0; NaN gives 0 (maxps returns its
 * second operand on unordered input), which kn_unary documents as allowed. */
static inline vf vrelu(vf x) { return vmax(x, vset1(0.0f)); }

#define KN_UNARY_LOOP(EXPR)                                                                        \
	do {                                                                                       \
		size_t i_ = 0;                                                                     \
		for (; i_ + W <= n; i_ += W) {                                                     \
			vf v = vload(x + i_);                                                      \
			vstore(y + i_, EXPR);                                                      \
		}                                                                                  \
		if (i_ < n) {                                                                      \
			vf v = vload_n(x + i_, n - i_);                                            \
			vstore_n(y + i_, EXPR, n - i_);                                            \
		}                                                                                  \
	} while (0)

kn_status ISA(kn_simd_unary)(kn_unary_op op, const float *x, float *y, size_t n,
			     const kn_unary_params *prm)
{
	switch (op) {
	case KN_ABS: KN_UNARY_LOOP(vabs(v)); break;
	case KN_NEG: KN_UNARY_LOOP(vxor(v, vset1(-0.0f))); break;
	case KN_SQRT: KN_UNARY_LOOP(vsqrt(v)); break;
	case KN_EXP: KN_UNARY_LOOP(vexp(v)); break;
	case KN_RELU: KN_UNARY_LOOP(vrelu(v)); break;
	case KN_LOG: KN_UNARY_LOOP(vlog(v)); break;
	case KN_SIGMOID: KN_UNARY_LOOP(vsigmoid(v)); break;
	case KN_TANH: KN_UNARY_LOOP(vtanh(v)); break;
	case KN_GELU: KN_UNARY_LOOP(vgelu(v)); break;
	case KN_SILU: KN_UNARY_LOOP(vsilu(v)); break;
	case KN_CLAMP: {
		vf lo = vset1(prm->lo), hi = vset1(prm->hi);
		KN_UNARY_LOOP(vclamp(v, lo, hi));
		break;
	}
	case KN_SCALE: {
		vf a = vset1(prm->alpha);
		KN_UNARY_LOOP(vmul(a, v));
		break;
	}
	default: return kn_fail(KN_EUNSUPPORTED, "simd: unary op %d", (int)op);
	}
	return KN_OK;
}

/* ---- binary ops and axpy ------------------------------------------------- */

/* max/min that return NaN when either input is NaN: maxps alone would return
 * its second operand.  a + b is NaN exactly when one of them is. */
static inline vf vmax_nan(vf a, vf b) { return vblend(vcmpunord(a, b), vmax(a, b), vadd(a, b)); }
static inline vf vmin_nan(vf a, vf b) { return vblend(vcmpunord(a, b), vmin(a, b), vadd(a, b)); }

#define KN_BINARY_LOOP(EXPR)                                                                       \
	do {                                                                                       \
		size_t i_ = 0;                                                                     \
		for (; i_ + W <= n; i_ += W) {                                                     \
			vf va = vload(a + i_), vb = vload(b + i_);                                 \
			vstore(y + i_, EXPR);                                                      \
		}                                                                                  \
		if (i_ < n) {                                                                      \
			vf va = vload_n(a + i_, n - i_), vb = vload_n(b + i_, n - i_);             \
			vstore_n(y + i_, EXPR, n - i_);                                            \
		}                                                                                  \
	} while (0)

kn_status ISA(kn_simd_binary)(kn_binary_op op, const float *a, const float *b, float *y, size_t n)
{
	switch (op) {
	case KN_ADD: KN_BINARY_LOOP(vadd(va, vb)); break;
	case KN_SUB: KN_BINARY_LOOP(vsub(va, vb)); break;
	case KN_MUL: KN_BINARY_LOOP(vmul(va, vb)); break;
	case KN_DIV: KN_BINARY_LOOP(vdiv(va, vb)); break;
	case KN_MAX: KN_BINARY_LOOP(vmax_nan(va, vb)); break;
	case KN_MIN: KN_BINARY_LOOP(vmin_nan(va, vb)); break;
	default: return kn_fail(KN_EUNSUPPORTED, "simd: binary op %d", (int)op);
	}
	return KN_OK;
}

kn_status ISA(kn_simd_axpy)(float alpha, const float *a, float *y, size_t n)
{
	const float *b = y;
	vf al = vset1(alpha);
	KN_BINARY_LOOP(vfma(al, va, vb));
	return KN_OK;
}

/* ---- reductions ---------------------------------------------------------- */

/* Sums run in blocks of KN_BLOCK elements over 4 vector accumulators (4
 * independent add chains hide the add latency); each block's float total is
 * added in double.  A float accumulator then only ever holds KN_BLOCK / (4 W)
 * terms, so the error does not grow with n. */
#define KN_BLOCK 4096
#define LD_FULL(p, k) vload(p)
#define LD_TAIL(p, k) vload_n((p), (k))

#define KN_SUM_LOOP(ACC)                                                                           \
	do {                                                                                       \
		size_t i = 0;                                                                      \
		while (i < n) {                                                                    \
			size_t end = n - i > KN_BLOCK ? i + KN_BLOCK : n;                          \
			vf a0 = vset1(0.0f), a1 = a0, a2 = a0, a3 = a0;                            \
			for (; i + 4 * W <= end; i += 4 * W) {                                     \
				a0 = ACC(a0, LD_FULL, i, W);                                       \
				a1 = ACC(a1, LD_FULL, i + W, W);                                   \
				a2 = ACC(a2, LD_FULL, i + 2 * W, W);                               \
				a3 = ACC(a3, LD_FULL, i + 3 * W, W);                               \
			}                                                                          \
			for (; i + W <= end; i += W)                                               \
				a0 = ACC(a0, LD_FULL, i, W);                                       \
			if (i < end) {                                                             \
				a1 = ACC(a1, LD_TAIL, i, end - i);                                 \
				i = end;                                                           \
			}                                                                          \
			total += hsum(vadd(vadd(a0, a1), vadd(a2, a3)));                           \
		}                                                                                  \
	} while (0)

static inline vf fsq(vf acc, vf t) { return vfma(t, t, acc); }
#define ACC_SUM(acc, LD, o, k) vadd(acc, LD(x + (o), k))
#define ACC_L1(acc, LD, o, k) vadd(acc, vabs(LD(x + (o), k)))
#define ACC_L2(acc, LD, o, k) fsq(acc, LD(x + (o), k))
#define ACC_DOT(acc, LD, o, k) vfma(LD(x + (o), k), LD(y + (o), k), acc)

kn_status ISA(kn_simd_dot)(const float *x, const float *y, size_t n, float *out)
{
	double total = 0;
	KN_SUM_LOOP(ACC_DOT);
	*out = (float)total;
	return KN_OK;
}

/* max (or min, of x or of |x|) with a sticky NaN flag: maxps drops NaN.  The
 * tail reloads the last full vector (max is idempotent), so no fill value is
 * needed.  n > 0. */
static float ISA(extreme)(const float *x, size_t n, int want_max, int absolute, int *saw_nan)
{
	vf acc, v;
	vm nan;
	size_t i;
	if (n < W) {
		/* Lanes past n repeat x[0]: a neutral fill that needs no +-Inf. */
		float buf[W];
		vstore(buf, vload_n(x, n));
		for (size_t j = n; j < W; j++)
			buf[j] = x[0];
		v = vload(buf);
		nan = vcmpunord(v, v);
		acc = absolute ? vabs(v) : v;
	} else {
		v = vload(x);
		nan = vcmpunord(v, v);
		acc = absolute ? vabs(v) : v;
		vf acc2 = acc;
		for (i = W; i + 2 * W <= n; i += 2 * W) {
			vf u = vload(x + i), w = vload(x + i + W);
			nan = vmor(nan, vmor(vcmpunord(u, u), vcmpunord(w, w)));
			if (absolute)
				u = vabs(u), w = vabs(w);
			acc = want_max ? vmax(acc, u) : vmin(acc, u);
			acc2 = want_max ? vmax(acc2, w) : vmin(acc2, w);
		}
		for (; i + W <= n; i += W) {
			vf u = vload(x + i);
			nan = vmor(nan, vcmpunord(u, u));
			u = absolute ? vabs(u) : u;
			acc = want_max ? vmax(acc, u) : vmin(acc, u);
		}
		if (i < n) {
			vf u = vload(x + n - W);
			nan = vmor(nan, vcmpunord(u, u));
			u = absolute ? vabs(u) : u;
			acc = want_max ? vmax(acc, u) : vmin(acc, u);
		}
		acc = want_max ? vmax(acc, acc2) : vmin(acc, acc2);
	}
	*saw_nan = vmbits(nan) != 0;
	return want_max ? hmax(acc) : hmin(acc);
}

kn_status ISA(kn_simd_reduce)(kn_reduce_op op, const float *x, size_t n, float *out)
{
	double total = 0;
	int nan = 0;
	float r;
	switch (op) {
	case KN_SUM: KN_SUM_LOOP(ACC_SUM); *out = (float)total; break;
	case KN_MEAN: KN_SUM_LOOP(ACC_SUM); *out = (float)(total / (double)n); break;
	case KN_NORM_L1: KN_SUM_LOOP(ACC_L1); *out = (float)total; break;
	case KN_NORM_L2:
		KN_SUM_LOOP(ACC_L2);
		/* Squares of floats overflow above 2^64 and lose bits below 2^-63;
		 * then (rarely) the scalar code, which squares in double, redoes it. */
		if (isinf(total) || (total < 0x1p-60 && n > 0))
			return kn_scalar_reduce(op, x, n, out);
		*out = (float)sqrt(total);
		break;
	case KN_REDUCE_MAX:
	case KN_REDUCE_MIN:
	case KN_NORM_LINF:
		if (n == 0) {
			*out = 0.0f; /* only norm_linf gets here: api.c rejects empty max/min */
			break;
		}
		r = ISA(extreme)(x, n, op != KN_REDUCE_MIN, op == KN_NORM_LINF, &nan);
		*out = nan ? NAN : r;
		break;
	default: return kn_fail(KN_EUNSUPPORTED, "simd: reduce op %d", (int)op);
	}
	return KN_OK;
}

/* argmax/argmin in one streaming pass.  Per block of KN_ARG_BLOCK elements
 * the block's extreme comes from vector max/min (memory-bound, like
 * kn_reduce's max); the loop remembers only the first block whose extreme
 * strictly beats the running best, and at the end rescans that one block
 * (16 KB) for the first lane equal to the best.  That block holds the first
 * occurrence of the overall extreme: an earlier block would have beaten the
 * best first, and a later block with the same extreme does not beat it
 * strictly.  A block with a NaN ends the search: its first NaN is the
 * answer, as every earlier block had none.  (0.5 found the extreme over the
 * whole input first and then searched it again: 1.5 passes on average.) */
#define KN_ARG_BLOCK 4096

/* The extreme of a full block, 4 accumulators (independent max chains);
 * *nan says whether the block has a NaN, which maxps/minps would drop.  An
 * unordered compare of two vectors is true where either one is NaN, so one
 * compare covers two loads.  want_max is a constant at each call (inlined). */
static inline __attribute__((always_inline)) float ISA(block_extreme)(const float *x, int want_max, int *nan)
{
	vf a0 = vload(x), a1 = vload(x + W), a2 = vload(x + 2 * W), a3 = vload(x + 3 * W);
	vm un = vmor(vcmpunord(a0, a1), vcmpunord(a2, a3));
	for (size_t i = 4 * W; i < KN_ARG_BLOCK; i += 4 * W) {
		vf u0 = vload(x + i), u1 = vload(x + i + W), u2 = vload(x + i + 2 * W), u3 = vload(x + i + 3 * W);
		un = vmor(un, vmor(vcmpunord(u0, u1), vcmpunord(u2, u3)));
		a0 = want_max ? vmax(a0, u0) : vmin(a0, u0);
		a1 = want_max ? vmax(a1, u1) : vmin(a1, u1);
		a2 = want_max ? vmax(a2, u2) : vmin(a2, u2);
		a3 = want_max ? vmax(a3, u3) : vmin(a3, u3);
	}
	*nan = vmbits(un) != 0;
	if (want_max)
		return hmax(vmax(vmax(a0, a1), vmax(a2, a3)));
	return hmin(vmin(vmin(a0, a1), vmin(a2, a3)));
}

/* Index of the first NaN (nan) or of the first element equal to target in
 * x[0..n); n when there is none. */
static size_t ISA(first_hit)(const float *x, size_t n, int nan, float target)
{
	vf t = vset1(target);
	for (size_t i = 0; i < n; i += W) {
		vf v = i + W <= n ? vload(x + i) : vload_n(x + i, n - i);
		unsigned bits = vmbits(nan ? vcmpunord(v, v) : vcmpeq(v, t));
		if (i + W > n)
			bits &= (1u << (n - i)) - 1u; /* zero-filled lanes past the end */
		if (bits)
			return i + (size_t)__builtin_ctz(bits);
	}
	return n;
}

kn_status ISA(kn_simd_argreduce)(kn_argreduce_op op, const float *x, size_t n, size_t *out)
{
	int want_max = op == KN_ARGMAX;
	float best = 0.0f;
	size_t best_at = 0;
	for (size_t b = 0; b < n; b += KN_ARG_BLOCK) {
		size_t len = n - b < KN_ARG_BLOCK ? n - b : KN_ARG_BLOCK;
		int nan = 0;
		float m;
		if (len < KN_ARG_BLOCK)
			m = ISA(extreme)(x + b, len, want_max, 0, &nan);
		else if (want_max)
			m = ISA(block_extreme)(x + b, 1, &nan);
		else
			m = ISA(block_extreme)(x + b, 0, &nan);
		if (nan) {
			*out = b + ISA(first_hit)(x + b, len, 1, 0.0f);
			return KN_OK;
		}
		if (b == 0 || (want_max ? m > best : m < best))
			best = m, best_at = b;
	}
	size_t len = n - best_at < KN_ARG_BLOCK ? n - best_at : KN_ARG_BLOCK;
	size_t k = ISA(first_hit)(x + best_at, len, 0, best);
	if (k == len)
		return kn_fail(KN_EDEVICE, "simd: argreduce found no element equal to the extreme");
	*out = best_at + k;
	return KN_OK;
}

/* ---- softmax ------------------------------------------------------------- */

/* Per row: a pass for the max (and the min, to pick how x - max is formed),
 * a pass computing e = exp(x - max) and its sum, and a pass writing y =
 * e / sum (softmax) or y = x - max - log(sum) (log_softmax).  Subtracting the
 * max keeps every exp in (0, 1]: no overflow for any input.
 *
 * Only the max pass reads x from memory; the other two run on the row in L1.
 * So that the memory reads overlap with the compute, the exp pass prefetches
 * the next row (into L2), and on large outputs the writing pass uses
 * non-temporal stores: no read-for-ownership of y, and y does not evict the
 * next row.  e goes to a scratch row (in L1) rather than to y, for the same
 * reason.  Large aligned outputs go through the row pipeline instead
 * (softmax_pipelined), which interleaves these passes across three rows.
 * One exp per element: an online softmax (running max and rescaled sum in
 * one pass) would compute exp(x - max) twice, and this loop is compute-bound.
 *
 * Accuracy: x - max must be formed exactly, as hi + lo: rounding x - max =
 * -80.3 to float alone costs exp 60 ulp, and softmax promises a relative
 * error per element, however small the element.  TwoSum gives lo in 6
 * operations whatever the operands; Fast2Sum in 3 when the first operand's
 * exponent is at least the second's, which the row's max and min decide for
 * the whole row (sm_mode).  Then exp(hi + lo) is the cheap kind below, not
 * the unary op's. */
enum { SM_F2S_MAX, SM_F2S_X, SM_TWOSUM, SM_GUARDED };

/* hi + lo = x - m exactly. */
static inline __attribute__((always_inline)) void sm_diff(int mode, vf x, vf m, vf *hi, vf *lo)
{
	vf s = vsub(x, m);
	*hi = s;
	if (mode == SM_F2S_MAX) /* Fast2Sum(-m, x): exponent(m) >= exponent(x) */
		*lo = vsub(x, vadd(s, m));
	else if (mode == SM_F2S_X) /* Fast2Sum(x, -m): exponent(x) >= exponent(m) */
		*lo = vsub(vsub(vset1(0.0f), m), vsub(s, x));
	else { /* TwoSum */
		vf bb = vsub(s, x);
		*lo = vsub(vsub(x, vsub(s, bb)), vadd(m, bb));
	}
}

/*
 * exp(hi + lo) for hi <= 0, |lo| <= ulp(hi) / 2 and hi >= -SM_LOW (or NaN),
 * within ~1 ulp: softmax's exp, cheaper than vexp_lo because its argument is
 * never positive.  2^(hi / ln2) = 2^floor(k / T) 2^((k mod T) / T) exp(r),
 * k = round(hi T / ln2), |r| <= ln2 / 2T, T = 2^KN_SM_TAB_BITS entries:
 *  - k / T comes from one fma: adding 1.5 2^(23 - TAB_BITS) rounds to a
 *    multiple of 1/T, and the low mantissa bits of the sum are then k itself,
 *    which is what the table lookup (vtab: a permute on the low bits of each
 *    lane) needs;
 *  - r = hi - (k/T) ln2 in two steps: ln2_hi has 12 bits and k/T at most 12
 *    (|k| < 4096), so (k/T) ln2_hi is exact, and so is its difference with
 *    hi (Sterbenz);
 *  - exp(r) - 1 by a Taylor polynomial (degree 3 for |r| <= ln2/32, error
 *    r^4/24 < 1e-8; degree 4 for ln2/16), added to the table value in one
 *    fma: 2^(j/T) (1 + p) rounded once;
 *  - vscalef multiplies by 2^floor(k/T) rounding once, so results in the
 *    denormal range are rounded, not flushed.
 */
#define SM_LOW 128.0f
#define KN_SM_TAB (1 << KN_SM_TAB_BITS)
#if KN_SM_TAB_BITS == 4
static const float ISA(sm_tab)[16] = {
	0x1.000000p+0f, 0x1.0b5586p+0f, 0x1.172b84p+0f, 0x1.2387a6p+0f, 0x1.306fe0p+0f, 0x1.3dea64p+0f,
	0x1.4bfdaep+0f, 0x1.5ab07ep+0f, 0x1.6a09e6p+0f, 0x1.7a1148p+0f, 0x1.8ace54p+0f, 0x1.9c4918p+0f,
	0x1.ae89fap+0f, 0x1.c199bep+0f, 0x1.d5818ep+0f, 0x1.ea4afap+0f};
#elif KN_SM_TAB_BITS == 3
static const float ISA(sm_tab)[8] = {0x1.000000p+0f, 0x1.172b84p+0f, 0x1.306fe0p+0f, 0x1.4bfdaep+0f,
				     0x1.6a09e6p+0f, 0x1.8ace54p+0f, 0x1.ae89fap+0f, 0x1.d5818ep+0f};
#else
#error "KN_SM_TAB_BITS must be 3 or 4"
#endif

static inline __attribute__((always_inline)) vf sm_exp(vf hi, vf lo, vf tab)
{
	const vf magic = vset1(1.5f * (float)(1 << (23 - KN_SM_TAB_BITS)));
	vf t = vfma(hi, vset1(1.44269504088896341f), magic);
	vf kt = vsub(t, magic); /* k / T */
	vf r = vfnma(kt, vset1(0x1.62ep-1f), hi);
	r = vfnma(kt, vset1(0x1.0bfbe8p-15f), vadd(r, lo));
#if KN_SM_TAB_BITS == 4
	vf q = vfma(vset1(1.0f / 6), r, vset1(0.5f));
#else
	vf q = vfma(vfma(vset1(1.0f / 24), r, vset1(1.0f / 6)), r, vset1(0.5f));
#endif
	vf p = vfma(q, vmul(r, r), r);
	vf T = vtab(fasi(t), tab);
	return vsm_scale(vfma(T, p, T), kt, t);
}

/* Rows whose range (max - min) is not below SM_LOW: exp(x - max) of the
 * elements more than SM_LOW below the max is 0; clamping hi keeps sm_exp in
 * its range and dropping lo there keeps an inexact huge difference (or
 * -Inf - x = NaN) out of it.  A NaN hi stays NaN (vmax returns its second
 * operand on NaN). */
static inline __attribute__((always_inline)) vf sm_exp_diff(int mode, vf x, vf m, vf tab)
{
	vf hi, lo;
	sm_diff(mode, x, m, &hi, &lo);
	if (mode == SM_GUARDED) {
		lo = vblend(vcmplt(hi, vset1(-SM_LOW)), lo, vset1(0.0f));
		hi = vmax(vset1(-SM_LOW), hi);
	}
	return sm_exp(hi, lo, tab);
}

/* How the row's x - max is formed, from its max m and min mn (NaN or
 * infinite: SM_GUARDED, whose results are NaN where they must be). */
static int sm_mode(float m, float mn)
{
	if (!(m - mn < SM_LOW))
		return SM_GUARDED;
	if (m <= 0.0f)
		return SM_F2S_X; /* x <= m <= 0: |x| >= |m| */
	/* every |x| < 2^(exponent(m) + 1) = P: m's exponent is the larger */
	uint32_t b;
	memcpy(&b, &m, 4);
	b &= 0x7f800000u;
	float half_p;
	memcpy(&half_p, &b, 4);
	return mn > -2.0f * half_p ? SM_F2S_MAX : SM_TWOSUM;
}

/* The writing pass: y[0..n) = EXPR of v = SRC[i], through non-temporal
 * stores from the first W-aligned element of y when stream is set. */
#define KN_ROW_OUT(SRC, EXPR)                                                                      \
	do {                                                                                       \
		size_t i_ = 0;                                                                     \
		if (stream) {                                                                      \
			size_t off_ = ((uintptr_t)y / sizeof(float)) % W;                          \
			size_t head_ = off_ ? W - off_ : 0;                                        \
			head_ = head_ < n ? head_ : n;                                             \
			if (head_) {                                                               \
				vf v = vload_n(SRC, head_);                                        \
				vstore_n(y, EXPR, head_);                                          \
			}                                                                          \
			for (i_ = head_; i_ + 2 * W <= n; i_ += 2 * W) {                           \
				vf v = vload(SRC + i_);                                            \
				vstream(y + i_, EXPR);                                             \
				v = vload(SRC + i_ + W);                                           \
				vstream(y + i_ + W, EXPR);                                         \
			}                                                                          \
			for (; i_ + W <= n; i_ += W) {                                             \
				vf v = vload(SRC + i_);                                            \
				vstream(y + i_, EXPR);                                             \
			}                                                                          \
		} else {                                                                           \
			for (; i_ + W <= n; i_ += W) {                                             \
				vf v = vload(SRC + i_);                                            \
				vstore(y + i_, EXPR);                                              \
			}                                                                          \
		}                                                                                  \
		if (i_ < n) {                                                                      \
			vf v = vload_n(SRC + i_, n - i_);                                          \
			vstore_n(y + i_, EXPR, n - i_);                                            \
		}                                                                                  \
	} while (0)

/* Max and min of x[0..n), n > 0; NaN may or may not survive (a NaN element
 * makes its own exp NaN, and with it the sum and the whole row, anyway). */
static void ISA(row_range)(const float *x, size_t n, float *mx, float *mn)
{
	vf a0, a1, a2, a3, b0, b1, b2, b3;
	size_t i;
	if (n < W) {
		float buf[W];
		vstore(buf, vload_n(x, n));
		for (size_t j = n; j < W; j++)
			buf[j] = x[0];
		a0 = vload(buf);
		i = n;
	} else {
		a0 = vload(x);
		i = W;
	}
	a1 = a2 = a3 = b0 = b1 = b2 = b3 = a0;
	for (; i + 4 * W <= n; i += 4 * W) {
		vf u0 = vload(x + i), u1 = vload(x + i + W), u2 = vload(x + i + 2 * W), u3 = vload(x + i + 3 * W);
		a0 = vmax(a0, u0), a1 = vmax(a1, u1), a2 = vmax(a2, u2), a3 = vmax(a3, u3);
		b0 = vmin(b0, u0), b1 = vmin(b1, u1), b2 = vmin(b2, u2), b3 = vmin(b3, u3);
	}
	for (; i + W <= n; i += W) {
		vf u = vload(x + i);
		a0 = vmax(a0, u), b0 = vmin(b0, u);
	}
	if (i < n) { /* the last full vector again: max and min are idempotent */
		vf u = vload(x + n - W);
		a0 = vmax(a0, u), b0 = vmin(b0, u);
	}
	*mx = hmax(vmax(vmax(a0, a1), vmax(a2, a3)));
	*mn = hmin(vmin(vmin(b0, b1), vmin(b2, b3)));
}

/* e = exp(x - m) into e_out (unless NULL), returning the sum of e; 4 vectors
 * an iteration (independent exps and sums), prefetching next (unless NULL). */
static inline __attribute__((always_inline)) double ISA(sm_exp_pass)(int mode, const float *x, size_t n, vf m,
								   float *e_out, const float *next)
{
	vf tab = vload(ISA(sm_tab));
	vf s0 = vset1(0.0f), s1 = s0, s2 = s0, s3 = s0;
	double sum = 0;
	size_t i = 0;
	for (; i + 4 * W <= n; i += 4 * W) {
		if (next) {
			__builtin_prefetch(next + i, 0, 2);
			__builtin_prefetch(next + i + W, 0, 2);
			__builtin_prefetch(next + i + 2 * W, 0, 2);
			__builtin_prefetch(next + i + 3 * W, 0, 2);
		}
		vf e0 = sm_exp_diff(mode, vload(x + i), m, tab);
		vf e1 = sm_exp_diff(mode, vload(x + i + W), m, tab);
		vf e2 = sm_exp_diff(mode, vload(x + i + 2 * W), m, tab);
		vf e3 = sm_exp_diff(mode, vload(x + i + 3 * W), m, tab);
		if (e_out) {
			vstore(e_out + i, e0);
			vstore(e_out + i + W, e1);
			vstore(e_out + i + 2 * W, e2);
			vstore(e_out + i + 3 * W, e3);
		}
		s0 = vadd(s0, e0), s1 = vadd(s1, e1), s2 = vadd(s2, e2), s3 = vadd(s3, e3);
		/* a float lane sums at most KN_BLOCK / W terms; the blocks add in double */
		if ((i + 4 * W) % KN_BLOCK == 0) {
			sum += hsum(vadd(vadd(s0, s1), vadd(s2, s3)));
			s0 = s1 = s2 = s3 = vset1(0.0f);
		}
	}
	for (; i + W <= n; i += W) {
		vf e = sm_exp_diff(mode, vload(x + i), m, tab);
		if (e_out)
			vstore(e_out + i, e);
		s0 = vadd(s0, e);
	}
	if (i < n) {
		/* zero-filled lanes would add exp(0 - m): mask them out of the sum */
		vf e = sm_exp_diff(mode, vload_n(x + i, n - i), m, tab);
		float buf[W];
		vstore(buf, e);
		for (size_t j = n - i; j < W; j++)
			buf[j] = 0.0f;
		e = vload(buf);
		if (e_out)
			vstore_n(e_out + i, e, n - i);
		s1 = vadd(s1, e);
	}
	return sum + hsum(vadd(vadd(s0, s1), vadd(s2, s3)));
}

/* e: where exp(x - m) goes (scratch, or y itself); next: the row to prefetch
 * (NULL for none). */
static void ISA(softmax_row)(const float *x, float *y, size_t n, int log_form, float *e_buf, const float *next,
			     int stream)
{
	float m, mn;
	ISA(row_range)(x, n, &m, &mn);
	vf vm_ = vset1(m);
	float *e_out = log_form ? NULL : e_buf;
	double sum;
	switch (sm_mode(m, mn)) {
	case SM_F2S_MAX: sum = ISA(sm_exp_pass)(SM_F2S_MAX, x, n, vm_, e_out, next); break;
	case SM_F2S_X: sum = ISA(sm_exp_pass)(SM_F2S_X, x, n, vm_, e_out, next); break;
	case SM_TWOSUM: sum = ISA(sm_exp_pass)(SM_TWOSUM, x, n, vm_, e_out, next); break;
	default: sum = ISA(sm_exp_pass)(SM_GUARDED, x, n, vm_, e_out, next); break;
	}
	if (log_form) {
		/* x - (m + log(sum)) in one rounding would lose the low bits of m
		 * when log(sum) is small; subtract them one at a time. */
		vf lse = vset1((float)log(sum));
		KN_ROW_OUT(x, vsub(vsub(v, vm_), lse));
	} else {
		vf inv = vset1((float)(1.0 / sum));
		KN_ROW_OUT(e_buf, vmul(v, inv));
	}
}

/* The row pipeline for large outputs.  Written row by row, the writing pass
 * would issue a row's non-temporal stores in one burst, far faster than
 * memory takes them: the core stalls on them and nothing else runs.  So step
 * r of the pipeline, one loop over the columns, does three rows' work at
 * once: exp(x - max) and its sum for row r (in L1), the max and min of row
 * r + 1 (the loads that bring it in from memory), and the output of row r - 1
 * (from its scratch row, or from x for log_softmax), so that the stores, the
 * memory reads and the exps overlap.  Rows are W-aligned (n % W == 0 and y
 * aligned). */
static inline __attribute__((always_inline)) double ISA(sm_step)(int mode, int log_form, const float *xr, vf m,
								 float *e_out, const float *xn, float *mx,
								 float *mn, const float *src, float *yo, vf a,
								 vf b, size_t n)
{
	vf tab = vload(ISA(sm_tab));
	vf s0 = vset1(0.0f), s1 = s0;
	vf h0 = vload(xn), h1 = h0, l0 = h0, l1 = h0;
	double sum = 0;
	size_t i = 0;
#define SM_OUT(k) (log_form ? vsub(vsub(vload(src + (k)), a), b) : vmul(vload(src + (k)), a))
	for (; i + 4 * W <= n; i += 4 * W) {
		vf e0 = sm_exp_diff(mode, vload(xr + i), m, tab);
		vf e1 = sm_exp_diff(mode, vload(xr + i + W), m, tab);
		vf u0 = vload(xn + i), u1 = vload(xn + i + W);
		h0 = vmax(h0, u0), l0 = vmin(l0, u0), h1 = vmax(h1, u1), l1 = vmin(l1, u1);
		vstream(yo + i, SM_OUT(i));
		vstream(yo + i + W, SM_OUT(i + W));
		vf e2 = sm_exp_diff(mode, vload(xr + i + 2 * W), m, tab);
		vf e3 = sm_exp_diff(mode, vload(xr + i + 3 * W), m, tab);
		u0 = vload(xn + i + 2 * W), u1 = vload(xn + i + 3 * W);
		h0 = vmax(h0, u0), l0 = vmin(l0, u0), h1 = vmax(h1, u1), l1 = vmin(l1, u1);
		vstream(yo + i + 2 * W, SM_OUT(i + 2 * W));
		vstream(yo + i + 3 * W, SM_OUT(i + 3 * W));
		if (!log_form) {
			vstore(e_out + i, e0);
			vstore(e_out + i + W, e1);
			vstore(e_out + i + 2 * W, e2);
			vstore(e_out + i + 3 * W, e3);
		}
		s0 = vadd(s0, vadd(e0, e1));
		s1 = vadd(s1, vadd(e2, e3));
		if ((i + 4 * W) % KN_BLOCK == 0) {
			sum += hsum(vadd(s0, s1));
			s0 = s1 = vset1(0.0f);
		}
	}
	for (; i < n; i += W) {
		vf e = sm_exp_diff(mode, vload(xr + i), m, tab);
		vf u = vload(xn + i);
		h0 = vmax(h0, u), l0 = vmin(l0, u);
		vstream(yo + i, SM_OUT(i));
		if (!log_form)
			vstore(e_out + i, e);
		s0 = vadd(s0, e);
	}
#undef SM_OUT
	*mx = hmax(vmax(h0, h1));
	*mn = hmin(vmin(l0, l1));
	return sum + hsum(vadd(s0, s1));
}

#define SM_STEP_MODES(LF)                                                                          \
	switch (sm_mode(m, mn)) {                                                                  \
	case SM_F2S_MAX: sum = ISA(sm_step)(SM_F2S_MAX, LF, xr, vm_, e_out, xn, &m2, &mn2, src, yo, a, b, cols); break; \
	case SM_F2S_X: sum = ISA(sm_step)(SM_F2S_X, LF, xr, vm_, e_out, xn, &m2, &mn2, src, yo, a, b, cols); break; \
	case SM_TWOSUM: sum = ISA(sm_step)(SM_TWOSUM, LF, xr, vm_, e_out, xn, &m2, &mn2, src, yo, a, b, cols); break; \
	default: sum = ISA(sm_step)(SM_GUARDED, LF, xr, vm_, e_out, xn, &m2, &mn2, src, yo, a, b, cols); break; \
	}

/* rows >= 2, cols % W == 0, y W-aligned; buf: 2 cols floats (softmax). */
static void ISA(softmax_pipelined)(const float *x, float *y, size_t rows, size_t cols, int log_form, float *buf)
{
	float m, mn, m2, mn2;
	ISA(row_range)(x, cols, &m, &mn);
	vf vm_ = vset1(m);
	double sum;
	switch (sm_mode(m, mn)) {
	case SM_F2S_MAX: sum = ISA(sm_exp_pass)(SM_F2S_MAX, x, cols, vm_, log_form ? NULL : buf, x + cols); break;
	case SM_F2S_X: sum = ISA(sm_exp_pass)(SM_F2S_X, x, cols, vm_, log_form ? NULL : buf, x + cols); break;
	case SM_TWOSUM: sum = ISA(sm_exp_pass)(SM_TWOSUM, x, cols, vm_, log_form ? NULL : buf, x + cols); break;
	default: sum = ISA(sm_exp_pass)(SM_GUARDED, x, cols, vm_, log_form ? NULL : buf, x + cols); break;
	}
	float pm = m; /* the previous row's max */
	ISA(row_range)(x + cols, cols, &m, &mn);
	for (size_t r = 1; r < rows; r++) {
		const float *xr = x + r * cols;
		const float *xn = r + 1 < rows ? xr + cols : xr; /* the last step re-reads its own row */
		float *yo = y + (r - 1) * cols;
		float *e_out = buf + (r % 2) * cols;
		const float *src = log_form ? xr - cols : buf + ((r - 1) % 2) * cols;
		vf a = log_form ? vset1(pm) : vset1((float)(1.0 / sum));
		vf b = vset1(log_form ? (float)log(sum) : 0.0f);
		vm_ = vset1(m);
		if (log_form)
			SM_STEP_MODES(1)
		else
			SM_STEP_MODES(0)
		pm = m, m = m2, mn = mn2;
	}
	/* the last row's output */
	size_t n = cols;
	int stream = 1;
	float *yl = y + (rows - 1) * cols;
	{
		float *y = yl;
		const float *xl = x + (rows - 1) * cols;
		if (log_form) {
			vf vpm = vset1(pm), lse = vset1((float)log(sum));
			KN_ROW_OUT(xl, vsub(vsub(v, vpm), lse));
		} else {
			vf inv = vset1((float)(1.0 / sum));
			const float *e = buf + ((rows - 1) % 2) * cols;
			KN_ROW_OUT(e, vmul(v, inv));
		}
	}
}

/* Outputs from KN_STREAM_BYTES up do not fit in L2: nobody reads them back
 * from cache, so they are written around it (and through the row pipeline
 * when the rows are aligned).  Rows up to KN_PREFETCH_BYTES are prefetched
 * whole, a row ahead. */
#define KN_STREAM_BYTES (2u << 20)
#define KN_PREFETCH_BYTES (64u << 10)

kn_status ISA(kn_simd_softmax)(const float *x, float *y, size_t rows, size_t cols, int log_form)
{
	size_t n = rows * cols;
	int stream = n * sizeof(float) >= KN_STREAM_BYTES && cols >= 4 * W && (uintptr_t)y % sizeof(float) == 0;
	int prefetch = cols * sizeof(float) <= KN_PREFETCH_BYTES;
	/* The pipeline writes row r - 1 of y while it reads rows r and r + 1
	 * of x: y must be x itself or apart from it. */
	if (stream && prefetch && rows >= 2 && cols % W == 0 && (uintptr_t)y % (W * sizeof(float)) == 0 &&
	    (x == y || x + n <= y || y + n <= x)) {
		float *buf = kn_aligned_floats(2 * cols);
		if (buf) {
			ISA(softmax_pipelined)(x, y, rows, cols, log_form, buf);
			_mm_sfence(); /* non-temporal stores are weakly ordered: publish them before returning */
			kn_host_free(buf);
			return KN_OK;
		}
	}
	/* Without scratch (out of memory) exp(x - m) goes to y, as in 0.5. */
	float *scratch = log_form ? NULL : kn_aligned_floats(cols);
	for (size_t r = 0; r < rows; r++) {
		float *yr = y + r * cols;
		const float *next = prefetch && r + 1 < rows ? x + (r + 1) * cols : NULL;
		ISA(softmax_row)(x + r * cols, yr, cols, log_form, scratch ? scratch : yr, next, stream);
	}
	if (stream)
		_mm_sfence();
	kn_host_free(scratch);
	return KN_OK;
}

/* ---- layernorm, rmsnorm (0.8.0) -------------------------------------------
 *
 * Per row: its statistic, then one writing pass y = ((x - mu) - c) r g + b.
 * layernorm takes two passes for the statistic, the mean and then the sums
 * of d = x - mu and d^2, rather than Welford's single pass: Welford divides
 * per element, and the second pass reads the row from L1 (a 4096-float row
 * is 16 KB), so it costs little next to the first, which brings the row in
 * from memory.  The variance is the corrected two-pass form (Chan, Golub and
 * LeVeque), var = (sum d^2 - (sum d)^2 / n) / n: the second term takes out
 * what the float mean mu's rounding put into the squares, and c = sum d / n
 * carries the rest of the mean into the output (x - mu is exact for x near
 * mu; without c a row with mean 1000 and spread 1 loses 8 bits).  rmsnorm
 * sums x^2 in one pass.  Float lanes sum at most KN_BLOCK / W terms and the
 * blocks add in double, as in the sums above.
 *
 * What float cannot hold goes to the scalar backend's row, in double: a row
 * whose statistic is not finite (a NaN or Inf in it, or squares beyond
 * FLT_MAX, |d| > 1.8e19) or whose var + eps is below 2^-100 (squares in the
 * denormal range have lost their bits and eps is too small to hide it).
 */
static double ISA(nm_sum)(const float *x, size_t n)
{
	double total = 0;
	KN_SUM_LOOP(ACC_SUM);
	return total;
}

static double ISA(nm_sumsq)(const float *x, size_t n)
{
	double total = 0;
	KN_SUM_LOOP(ACC_L2);
	return total;
}

/* sum d^2, and sum d in *sd, for d = x - mu over x[0..n). */
static double ISA(nm_dev)(const float *x, size_t n, float mu, double *sd)
{
	const vf m = vset1(mu), z = vset1(0.0f);
	double ts = 0, tq = 0;
	size_t i = 0;
	while (i < n) {
		size_t end = n - i > KN_BLOCK ? i + KN_BLOCK : n;
		vf s0 = z, s1 = z, q0 = z, q1 = z, q2 = z, q3 = z;
		for (; i + 4 * W <= end; i += 4 * W) {
			vf d0 = vsub(vload(x + i), m), d1 = vsub(vload(x + i + W), m);
			vf d2 = vsub(vload(x + i + 2 * W), m), d3 = vsub(vload(x + i + 3 * W), m);
			s0 = vadd(s0, vadd(d0, d1)), s1 = vadd(s1, vadd(d2, d3));
			q0 = vfma(d0, d0, q0), q1 = vfma(d1, d1, q1), q2 = vfma(d2, d2, q2), q3 = vfma(d3, d3, q3);
		}
		for (; i + W <= end; i += W) {
			vf d = vsub(vload(x + i), m);
			s0 = vadd(s0, d), q0 = vfma(d, d, q0);
		}
		if (i < end) {
			/* lanes past the end hold mu: their d is exactly 0 */
			float buf[W];
			vstore(buf, vload_n(x + i, end - i));
			for (size_t j = end - i; j < W; j++)
				buf[j] = mu;
			vf d = vsub(vload(buf), m);
			s1 = vadd(s1, d), q1 = vfma(d, d, q1);
			i = end;
		}
		ts += hsum(vadd(s0, s1));
		tq += hsum(vadd(vadd(q0, q1), vadd(q2, q3)));
	}
	*sd = ts;
	return tq;
}

static inline __attribute__((always_inline)) vf nm_one(vf x, vf m, vf c, vf r, vf g, vf b, int rms, int has_b)
{
	vf t = rms ? vmul(x, r) : vmul(vsub(vsub(x, m), c), r);
	return has_b ? vfma(t, g, b) : vmul(t, g);
}

/* The writing pass over one row, through non-temporal stores from the first
 * W-aligned element of y when stream is set; prefetches next (unless NULL),
 * the row after, as it goes. */
static inline __attribute__((always_inline)) void ISA(nm_out)(const float *x, const float *g, const float *b,
							     float *y, size_t n, vf m, vf c, vf r, int rms,
							     int has_b, int stream, const float *next)
{
	const vf z = vset1(0.0f);
	size_t i = 0;
#define NM_AT(k) nm_one(vload(x + (k)), m, c, r, vload(g + (k)), has_b ? vload(b + (k)) : z, rms, has_b)
#define NM_N(k, cnt)                                                                               \
	nm_one(vload_n(x + (k), cnt), m, c, r, vload_n(g + (k), cnt), has_b ? vload_n(b + (k), cnt) : z, rms, has_b)
	if (stream) {
		size_t off = ((uintptr_t)y / sizeof(float)) % W, head = off ? W - off : 0;
		head = head < n ? head : n;
		if (head)
			vstore_n(y, NM_N(0, head), head);
		for (i = head; i + W <= n; i += W) {
			if (next)
				__builtin_prefetch(next + i, 0, 2);
			vstream(y + i, NM_AT(i));
		}
	} else {
		for (; i + W <= n; i += W) {
			if (next)
				__builtin_prefetch(next + i, 0, 2);
			vstore(y + i, NM_AT(i));
		}
	}
	if (i < n)
		vstore_n(y + i, NM_N(i, n - i), n - i);
#undef NM_AT
#undef NM_N
}

kn_status ISA(kn_simd_norm)(const float *x, const float *g, const float *b, float *y, size_t rows, size_t cols,
			    float eps, int rms)
{
	int stream = rows * cols * sizeof(float) >= KN_STREAM_BYTES && cols >= 4 * W &&
		     (uintptr_t)y % sizeof(float) == 0;
	int prefetch = cols * sizeof(float) <= KN_PREFETCH_BYTES;
	for (size_t r = 0; r < rows; r++) {
		const float *xr = x + r * cols;
		float *yr = y + r * cols;
		const float *next = prefetch && r + 1 < rows ? xr + cols : NULL;
		float mu = 0.0f;
		double var, mean_rest = 0;
		if (rms) {
			var = ISA(nm_sumsq)(xr, cols) / (double)cols;
		} else {
			mu = (float)(ISA(nm_sum)(xr, cols) / (double)cols);
			double sd, sq = ISA(nm_dev)(xr, cols, mu, &sd);
			mean_rest = sd / (double)cols;
			var = (sq - sd * mean_rest) / (double)cols;
			var = var > 0 ? var : 0; /* rounding may leave a constant row a hair below 0 */
		}
		double t = var + (double)eps;
		if (!(t >= 0x1p-100 && t <= DBL_MAX && isfinite(mean_rest))) {
			kn_scalar_norm(xr, g, b, yr, 1, cols, eps, rms);
			continue;
		}
		vf m = vset1(mu), c = vset1((float)mean_rest), rs = vset1((float)(1.0 / sqrt(t)));
		if (rms)
			ISA(nm_out)(xr, g, NULL, yr, cols, m, c, rs, 1, 0, stream, next);
		else if (b)
			ISA(nm_out)(xr, g, b, yr, cols, m, c, rs, 0, 1, stream, next);
		else
			ISA(nm_out)(xr, g, NULL, yr, cols, m, c, rs, 0, 0, stream, next);
	}
	if (stream)
		_mm_sfence(); /* non-temporal stores are weakly ordered: publish them before returning */
	return KN_OK;
}

/* ---- sgemm --------------------------------------------------------------- */

/*
 * C = alpha op(A) op(B) + beta C, row-major, in the GotoBLAS layout: B is
 * packed in KC x NC blocks of NR-column panels, A in MC x KC blocks of MR-row
 * panels, so the MR x NR micro-kernel streams both from contiguous memory and
 * keeps its MR x NR/W accumulators in registers (6 x 2 vectors: 12 of 32 zmm
 * or 16 ymm, leaving room for the B loads and the A broadcast).  beta is
 * applied to C once, up front; alpha when a tile is added to C.
 */
#define MR 6
#define NR (2 * W)
#define KC 256
#define MC 120
#define NC 1024

/* Element (r, c) of op(X) for row-major X with leading dimension ld. */
#define OPX(X, t, ld, r, c) ((t) ? (X)[(size_t)(c) * (ld) + (r)] : (X)[(size_t)(r) * (ld) + (c)])

static void ISA(pack_b)(float *dst, const float *B, size_t ldb, int tb, size_t k0, size_t kc, size_t j0,
			size_t nc)
{
	for (size_t jp = 0; jp < nc; jp += NR) {
		size_t w = nc - jp < NR ? nc - jp : NR;
		for (size_t k = 0; k < kc; k++) {
			if (!tb && w == NR) {
				const float *src = B + (k0 + k) * ldb + j0 + jp;
				vstore(dst, vload(src));
				vstore(dst + W, vload(src + W));
			} else {
				for (size_t j = 0; j < NR; j++)
					dst[j] = j < w ? OPX(B, tb, ldb, k0 + k, j0 + jp + j) : 0.0f;
			}
			dst += NR;
		}
	}
}

static void ISA(pack_a)(float *dst, const float *A, size_t lda, int ta, size_t i0, size_t mc, size_t k0,
			size_t kc)
{
	for (size_t ip = 0; ip < mc; ip += MR) {
		size_t h = mc - ip < MR ? mc - ip : MR;
		for (size_t k = 0; k < kc; k++) {
			for (size_t r = 0; r < MR; r++)
				dst[r] = r < h ? OPX(A, ta, lda, i0 + ip + r, k0 + k) : 0.0f;
			dst += MR;
		}
	}
}

/* acc = sum over k of a[k][r] * b[k][:] for an MR x NR tile; then C += alpha
 * acc on the h x w part that exists. */
static void ISA(micro)(size_t kc, const float *a, const float *b, float alpha, float *C, size_t ldc, size_t h,
		       size_t w)
{
	vf c00 = vset1(0.0f), c01 = c00, c10 = c00, c11 = c00, c20 = c00, c21 = c00;
	vf c30 = c00, c31 = c00, c40 = c00, c41 = c00, c50 = c00, c51 = c00;
	for (size_t k = 0; k < kc; k++) {
		vf b0 = vload(b), b1 = vload(b + W);
		vf t;
		t = vset1(a[0]); c00 = vfma(t, b0, c00); c01 = vfma(t, b1, c01);
		t = vset1(a[1]); c10 = vfma(t, b0, c10); c11 = vfma(t, b1, c11);
		t = vset1(a[2]); c20 = vfma(t, b0, c20); c21 = vfma(t, b1, c21);
		t = vset1(a[3]); c30 = vfma(t, b0, c30); c31 = vfma(t, b1, c31);
		t = vset1(a[4]); c40 = vfma(t, b0, c40); c41 = vfma(t, b1, c41);
		t = vset1(a[5]); c50 = vfma(t, b0, c50); c51 = vfma(t, b1, c51);
		a += MR;
		b += NR;
	}
	vf acc[MR][2] = {{c00, c01}, {c10, c11}, {c20, c21}, {c30, c31}, {c40, c41}, {c50, c51}};
	vf al = vset1(alpha);
	for (size_t r = 0; r < h; r++) {
		float *c = C + r * ldc;
		if (w == NR) {
			vstore(c, vfma(al, acc[r][0], vload(c)));
			vstore(c + W, vfma(al, acc[r][1], vload(c + W)));
		} else if (w > W) {
			vstore(c, vfma(al, acc[r][0], vload(c)));
			vstore_n(c + W, vfma(al, acc[r][1], vload_n(c + W, w - W)), w - W);
		} else {
			vstore_n(c, vfma(al, acc[r][0], vload_n(c, w)), w);
		}
	}
}

kn_status ISA(kn_simd_sgemm)(int ta, int tb, size_t M, size_t N, size_t K, float alpha, const float *A,
			     size_t lda, const float *B, size_t ldb, float beta, float *C, size_t ldc)
{
	/* C = beta C first; beta == 0 overwrites (a NaN already in C does not
	 * survive), as BLAS does. */
	for (size_t i = 0; i < M && beta != 1.0f; i++) {
		float *y = C + i * ldc;
		const float *x = y;
		size_t n = N;
		vf bv = vset1(beta);
		if (beta == 0.0f)
			memset(y, 0, N * sizeof(float));
		else
			KN_UNARY_LOOP(vmul(v, bv));
	}
	if (K == 0 || alpha == 0.0f)
		return KN_OK;
	size_t ncap = N < NC ? N : NC, kcap = K < KC ? K : KC, mcap = M < MC ? M : MC;
	float *pb = kn_aligned_floats(((ncap + NR - 1) / NR) * NR * kcap);
	float *pa = kn_aligned_floats(((mcap + MR - 1) / MR) * MR * kcap);
	if (!pb || !pa) {
		kn_host_free(pb);
		kn_host_free(pa);
		return kn_fail(KN_ENOMEM, "sgemm: packing buffers");
	}
	for (size_t jc = 0; jc < N; jc += NC) {
		size_t nc = N - jc < NC ? N - jc : NC;
		for (size_t pc = 0; pc < K; pc += KC) {
			size_t kc = K - pc < KC ? K - pc : KC;
			ISA(pack_b)(pb, B, ldb, tb, pc, kc, jc, nc);
			for (size_t ic = 0; ic < M; ic += MC) {
				size_t mc = M - ic < MC ? M - ic : MC;
				ISA(pack_a)(pa, A, lda, ta, ic, mc, pc, kc);
				for (size_t jr = 0; jr < nc; jr += NR)
					for (size_t ir = 0; ir < mc; ir += MR)
						ISA(micro)(kc, pa + ir * kc, pb + jr * kc, alpha,
							   C + (ic + ir) * ldc + jc + jr, ldc,
							   mc - ir < MR ? mc - ir : MR, nc - jr < NR ? nc - jr : NR);
			}
		}
	}
	kn_host_free(pb);
	kn_host_free(pa);
	return KN_OK;
}

/* y = alpha op(A) x + beta y; A is M x N row-major. */
kn_status ISA(kn_simd_sgemv)(int ta, size_t M, size_t N, float alpha, const float *A, size_t lda,
			     const float *x, float beta, float *y)
{
	if (!ta) {
		for (size_t i = 0; i < M; i++) {
			const float *a = A + i * lda;
			vf s0 = vset1(0.0f), s1 = s0;
			size_t j = 0;
			for (; j + 2 * W <= N; j += 2 * W) {
				s0 = vfma(vload(a + j), vload(x + j), s0);
				s1 = vfma(vload(a + j + W), vload(x + j + W), s1);
			}
			for (; j < N; j += W) {
				size_t k = N - j < W ? N - j : W;
				s0 = vfma(vload_n(a + j, k), vload_n(x + j, k), s0);
			}
			float dot = hsum(vadd(s0, s1));
			y[i] = beta == 0.0f ? alpha * dot : alpha * dot + beta * y[i];
		}
		return KN_OK;
	}
	/* y (N) = alpha A^T x + beta y: one axpy per row of A, all in y. */
	if (beta == 0.0f)
		memset(y, 0, N * sizeof(float));
	else if (beta != 1.0f)
		for (size_t j = 0; j < N; j++)
			y[j] *= beta;
	for (size_t i = 0; i < M; i++)
		ISA(kn_simd_axpy)(alpha * x[i], A + i * lda, y, N);
	return KN_OK;
}

/* The memory group (0.9.0). */
#include "simd_mem.h"

/* The quant group (0.11.0). */
#include "simd_quant.h"
/* Depthwise conv and pooling; conv2d is im2col + sgemm (simd.c). */
#include "simd_conv.h"
#include "simd_bn.h"
