/*
 * bench_reference.c - a catalog cell's double-precision reference and the
 * check of its output against it: reductions summed in long double, rows,
 * norms, gemm, conv and pool, scatter, the quant group's payloads (bit for
 * bit) and the model group's layers, each with the scale its rounding
 * error is measured against; bv_verify and bv_check name the first element
 * that is off and by how many ulp.
 *
 * Apart from the registry (benches.c) and the inputs (bench_inputs.c): the
 * largest part of the catalog, and the only one that knows each op's
 * maths.  Called in each version's catalog plugin, compiled at run time
 * (catalog.c: setup and check), and by the unit tests; linked into
 * bv-runner and the CLI's host code with benches.c.
 */
#include "benches.h"
#include "bench_internal.h"
#include "expr.h"
#include "plugin.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t ulp_distance(float a, float b)
{
	if (isnan(a) || isnan(b))
		return isnan(a) && isnan(b) ? 0 : UINT64_MAX;
	if (a == b)
		return 0;
	int32_t ia, ib;
	memcpy(&ia, &a, 4);
	memcpy(&ib, &b, 4);
	int64_t ka = ia < 0 ? (int64_t)INT32_MIN - ia : ia;
	int64_t kb = ib < 0 ? (int64_t)INT32_MIN - ib : ib;
	return (uint64_t)(ka > kb ? ka - kb : kb - ka);
}

static void ref_conv(const bv_cell *c, const float *x, const float *x2, double *want, double *scale);

/* The i-th int32 index stored in a float buffer. */
static int32_t index_at(const float *idx, size_t i)
{
	int32_t v;
	memcpy(&v, idx + i, sizeof(v));
	return v;
}

/* Sums in long double: the reference must be far more accurate than what it
 * checks, also for 16M-element reductions. */
static void ref_reduce(const bv_cell *c, const float *x, size_t n, double *want, double *scale)
{
	const char *op = c->op->name;
	long double sum = 0, abs_sum = 0, sq = 0;
	double mx = -INFINITY, mn = INFINITY, amax = 0;
	size_t imax = 0, imin = 0;
	for (size_t i = 0; i < n; i++) {
		double v = x[i];
		sum += v, abs_sum += fabs(v), sq += v * v;
		if (v > mx)
			mx = v, imax = i;
		if (v < mn)
			mn = v, imin = i;
		if (fabs(v) > amax)
			amax = fabs(v);
	}
	*scale = (double)abs_sum;
	if (!strcmp(op, "sum"))
		*want = (double)sum;
	else if (!strcmp(op, "mean"))
		*want = (double)(sum / (long double)n), *scale /= (double)n;
	else if (!strcmp(op, "max"))
		*want = mx;
	else if (!strcmp(op, "min"))
		*want = mn;
	else if (!strcmp(op, "norm_l1"))
		*want = (double)abs_sum;
	else if (!strcmp(op, "norm_l2"))
		*want = sqrt((double)sq), *scale = *want;
	else if (!strcmp(op, "norm_linf"))
		*want = amax;
	else if (!strcmp(op, "argmax"))
		*want = (double)imax;
	else if (!strcmp(op, "argmin"))
		*want = (double)imin;
	else
		*want = NAN;
}

/* The quant group: for payload outputs want holds each output float's 32
 * bits (4 int8, one int32, 2 uint16) as an integer, checked bit for bit;
 * for float outputs the float that must come out (bf16gemm: the exact sum
 * and its bound's scale). */
static void ref_quant(const bv_cell *c, const bv_layout *l, const float *x, const float *x2, double *want,
		      double *scale)
{
	const bv_op_def *op = c->op;
	size_t n = l->m * l->n, ny = l->ny;
	for (size_t i = 0; i < ny; i++)
		scale[i] = 0;
	switch (op->kind) {
	case BV_K_QUANT:
	case BV_K_QUANT_PC:
		for (size_t w = 0; w < ny; w++) {
			uint32_t word = 0;
			for (size_t b = 0; b < 4 && 4 * w + b < n; b++) {
				size_t i = 4 * w + b;
				word |= (uint32_t)(uint8_t)ref_q8(x[i], x2[op->kind == BV_K_QUANT ? 0 : i / l->n]) << (8 * b);
			}
			want[w] = word;
		}
		break;
	case BV_K_DEQUANT:
	case BV_K_DEQUANT_PC:
		/* the double product of an int8 and a float is exact: one rounding */
		for (size_t i = 0; i < n; i++)
			want[i] = (float)((double)i8_at(x, i) * x2[op->kind == BV_K_DEQUANT ? 0 : i / l->n]);
		break;
	case BV_K_QGEMM:
		for (size_t i = 0; i < l->m; i++)
			for (size_t j = 0; j < l->n; j++) {
				int64_t sum = 0;
				for (size_t p = 0; p < l->k; p++)
					sum += (int64_t)i8_at(x, i * l->k + p) * i8_at(x2, p * l->n + j);
				want[i * l->n + j] = (double)(uint32_t)(int32_t)sum;
			}
		break;
	case BV_K_BF16GEMM:
		for (size_t i = 0; i < l->m; i++) {
			double *w = want + i * l->n, *sc = scale + i * l->n;
			for (size_t j = 0; j < l->n; j++)
				w[j] = 0, sc[j] = 0;
			for (size_t p = 0; p < l->k; p++) {
				double a = bits_float((uint32_t)u16_at(x, i * l->k + p) << 16);
				for (size_t j = 0; j < l->n; j++) {
					double t = a * bits_float((uint32_t)u16_at(x2, p * l->n + j) << 16);
					w[j] += t, sc[j] += fabs(t);
				}
			}
			for (size_t j = 0; j < l->n; j++)
				sc[j] *= (double)(l->k + 2);
		}
		break;
	case BV_K_TO_HALF:
		for (size_t w = 0; w < ny; w++) {
			uint32_t word = 0;
			for (size_t b = 0; b < 2 && 2 * w + b < l->n; b++) {
				float v = x[2 * w + b];
				word |= (uint32_t)(is_bf16(op) ? ref_bf16(v) : ref_f16(v)) << (16 * b);
			}
			want[w] = word;
		}
		break;
	case BV_K_FROM_HALF:
		for (size_t i = 0; i < l->n; i++)
			want[i] = is_bf16(op) ? bits_float((uint32_t)u16_at(x, i) << 16) : ref_from_f16(u16_at(x, i));
		break;
	default:
		for (size_t i = 0; i < ny; i++)
			want[i] = NAN;
		break;
	}
}

/* Whether the cell's output is a payload checked bit for bit, and how many
 * of the last output float's bytes are the op's (the rest: left alone). */
static int bits_output(const bv_cell *c, size_t *last_bytes)
{
	bv_layout l;
	bv_cell_layout(c, &l);
	size_t n = l.m * l.n;
	switch (c->op->kind) {
	case BV_K_QUANT:
	case BV_K_QUANT_PC: *last_bytes = n % 4 ? n % 4 : 4; return 1;
	case BV_K_TO_HALF: *last_bytes = n % 2 ? 2 : 4; return 1;
	case BV_K_QGEMM: *last_bytes = 4; return 1;
	default: return 0;
	}
}

/* ---- the model group's reference ----------------------------------------
 *
 * The layer in double, with e[i], a bound on the error of the float
 * computation of each value, in units of FLT_EPSILON (u = eps/2 per
 * rounding, counted as eps), carried stage by stage.  Each stage's own
 * rounding is bounded in the worst case:
 *   a product-sum of K terms plus a bias: (K + 2) sum |terms| (as the
 *     matmul group's K sum |a b|);
 *   gelu: 4 ulp of the value (the kernels' accuracy target);
 *   softmax: 16 p_i (the softmax group's tolerance);
 *   a residual add: the rounding of the sum;
 *   layernorm: (cols + 8) (r mean |a| + |z_i| + 1), r the reciprocal std and
 *     z the normalised value (a composed layernorm's gemv of cols terms is
 *     the worst of the releases'), then the gain;
 * and the errors that come in are carried through each stage's first-order
 * derivative, the errors of different inputs added in quadrature (they are
 * roundings of different sums, independent in sign): a sum's sqrt(sum (e_k
 * w_k)^2), softmax's p_i (e_i + sqrt(sum (p_j e_j)^2)), layernorm's r (e_i +
 * |mean| + |z_i| |mean z e|), gelu's |gelu'| <= 1.13.  (Added in absolute
 * value, the worst case, each layer of width K would multiply the bound by
 * about sqrt(K): 4 to 30 on every element of the encoder's output, wider than
 * a wrong bias.)  A layer that is right stays far inside (the unit tests
 * measure how far); a wrong bias, head split, scale or a missing residual
 * moves outputs by 0.01 to 1, far past it. */
typedef struct mvec {
	double *v, *e;
} mvec;

static mvec mvec_new(size_t n)
{
	mvec m = {calloc(n ? n : 1, sizeof(double)), calloc(n ? n : 1, sizeof(double))};
	if (!m.v || !m.e)
		abort(); /* made once per cell in check, as the inputs in setup */
	return m;
}

static void mvec_free(mvec m)
{
	free(m.v), free(m.e);
}

/* y (rows x out) = x (rows x in) w + bias, x given in float (xf, exact) or
 * as a mvec. */
static void ref_linear(const float *xf, const mvec *x, size_t rows, size_t in, const float *w, const float *bias,
		       size_t out, mvec *y)
{
	double *ab = malloc(out * sizeof(double));
	if (!ab)
		abort();
	for (size_t i = 0; i < rows; i++) {
		double *v = y->v + i * out, *e = y->e + i * out;
		for (size_t j = 0; j < out; j++)
			v[j] = bias[j], ab[j] = fabs(bias[j]), e[j] = 0;
		for (size_t k = 0; k < in; k++) {
			double a = xf ? xf[i * in + k] : x->v[i * in + k], ae = xf ? 0 : x->e[i * in + k];
			const float *wr = w + k * out;
			for (size_t j = 0; j < out; j++)
				v[j] += a * wr[j], ab[j] += fabs(a * wr[j]), e[j] += ae * ae * wr[j] * wr[j];
		}
		for (size_t j = 0; j < out; j++)
			e[j] = sqrt(e[j]) + (double)(in + 2) * ab[j];
	}
	free(ab);
}

static double ref_gelu_bound(double x, double xe)
{
	return 1.13 * xe + 4 * fabs(ref_gelu(x));
}

/* y += x (the residual), x float or mvec; y's bound gains the rounding. */
static void ref_residual(const float *xf, const mvec *x, mvec *y, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		y->v[i] += xf ? xf[i] : x->v[i];
		y->e[i] += (xf ? 0 : x->e[i]) + fabs(y->v[i]);
	}
}

/* out = layernorm(a) with gain g, bias be; rows x cols. */
static void ref_layernorm(const mvec *a, const float *g, const float *be, size_t rows, size_t cols, mvec *out)
{
	for (size_t r = 0; r < rows; r++) {
		const double *v = a->v + r * cols, *e = a->e + r * cols;
		double mean = 0, q = 0, me = 0, ma = 0, mze = 0;
		for (size_t j = 0; j < cols; j++)
			mean += v[j], me += e[j] * e[j], ma += fabs(v[j]);
		mean /= (double)cols, me = sqrt(me) / (double)cols, ma /= (double)cols;
		for (size_t j = 0; j < cols; j++)
			q += (v[j] - mean) * (v[j] - mean);
		double rstd = 1 / sqrt(q / (double)cols + (double)BV_NORM_EPS);
		for (size_t j = 0; j < cols; j++)
			mze += (v[j] - mean) * rstd * e[j] * (v[j] - mean) * rstd * e[j];
		mze = sqrt(mze) / (double)cols;
		for (size_t j = 0; j < cols; j++) {
			double z = (v[j] - mean) * rstd;
			double ze = rstd * (e[j] + me + fabs(z) * mze) + (double)(cols + 8) * (rstd * ma + fabs(z) + 1);
			out->v[r * cols + j] = z * g[j] + be[j];
			out->e[r * cols + j] = fabs(g[j]) * ze + 2 * (fabs(z * g[j]) + fabs(be[j]));
		}
	}
}

/* out = x + W2 gelu(W1 x + c1) + c2 */
static void ref_mlp(const float *xf, const mvec *x, const bv_model_weights *w, const float *wt, size_t t, size_t d,
		    mvec *out)
{
	size_t f = BV_MODEL_FF * d;
	mvec h = mvec_new(t * f);
	ref_linear(xf, x, t, d, wt + w->w1, wt + w->c1, f, &h);
	for (size_t i = 0; i < t * f; i++) {
		h.e[i] = ref_gelu_bound(h.v[i], h.e[i]);
		h.v[i] = ref_gelu(h.v[i]);
	}
	ref_linear(NULL, &h, t, f, wt + w->w2, wt + w->c2, d, out);
	ref_residual(xf, x, out, t * d);
	mvec_free(h);
}

/* softmax(Q K^T alpha) V per head of each sequence, qkv rows of 3d. */
static void ref_attention(const mvec *qkv, const bv_model_weights *w, size_t seq, size_t d, size_t batch, mvec *ctx)
{
	size_t dh = w->dh, ld = 3 * d;
	double alpha = bv_model_alpha(dh);
	double *p = malloc(seq * sizeof(double)), *pe = malloc(seq * sizeof(double));
	if (!p || !pe)
		abort();
	for (size_t b = 0; b < batch; b++)
		for (size_t h = 0; h < w->heads; h++)
			for (size_t i = 0; i < seq; i++) {
				const double *q = qkv->v + (b * seq + i) * ld + h * dh, *qe = qkv->e + (q - qkv->v);
				double mx = -INFINITY, sum = 0, pesum = 0;
				for (size_t j = 0; j < seq; j++) {
					const double *k = qkv->v + (b * seq + j) * ld + d + h * dh, *ke = qkv->e + (k - qkv->v);
					double sv = 0, ab = 0, se = 0;
					for (size_t c = 0; c < dh; c++)
						sv += q[c] * k[c], ab += fabs(q[c] * k[c]),
						se += qe[c] * qe[c] * k[c] * k[c] + q[c] * q[c] * ke[c] * ke[c];
					p[j] = alpha * sv, pe[j] = alpha * (sqrt(se) + (double)(dh + 2) * ab);
					mx = p[j] > mx ? p[j] : mx;
				}
				for (size_t j = 0; j < seq; j++)
					sum += exp(p[j] - mx);
				for (size_t j = 0; j < seq; j++)
					p[j] = exp(p[j] - mx) / sum, pesum += p[j] * pe[j] * p[j] * pe[j];
				pesum = sqrt(pesum);
				for (size_t j = 0; j < seq; j++)
					pe[j] = p[j] * (pe[j] + pesum) + 16 * p[j];
				double *o = ctx->v + (b * seq + i) * d + h * dh, *oe = ctx->e + (o - ctx->v);
				for (size_t c = 0; c < dh; c++) {
					double ov = 0, ab = 0, e = 0;
					for (size_t j = 0; j < seq; j++) {
						size_t at = (b * seq + j) * ld + 2 * d + h * dh + c;
						double v = qkv->v[at];
						ov += p[j] * v, ab += p[j] * fabs(v);
						e += pe[j] * v * pe[j] * v + p[j] * qkv->e[at] * p[j] * qkv->e[at];
					}
					o[c] = ov, oe[c] = sqrt(e) + (double)(seq + 2) * ab;
				}
			}
	free(p), free(pe);
}

static void ref_model(const bv_cell *c, const bv_layout *l, const float *x, const float *x2, double *want,
		      double *scale)
{
	int enc = !strcmp(c->op->name, "encoder");
	size_t seq = l->m, d = l->n, batch = l->k, t = seq * batch;
	bv_model_weights w;
	bv_model_offsets(enc, seq, d, batch, &w);
	mvec y = mvec_new(t * d);
	if (!enc) {
		ref_mlp(x, NULL, &w, x2, t, d, &y);
	} else {
		mvec qkv = mvec_new(t * 3 * d), ctx = mvec_new(t * d), a = mvec_new(t * d), x1 = mvec_new(t * d);
		ref_linear(x, NULL, t, d, x2 + w.wqkv, x2 + w.bqkv, 3 * d, &qkv);
		ref_attention(&qkv, &w, seq, d, batch, &ctx);
		ref_linear(NULL, &ctx, t, d, x2 + w.wo, x2 + w.bo, d, &a);
		ref_residual(x, NULL, &a, t * d);
		ref_layernorm(&a, x2 + w.g1, x2 + w.be1, t, d, &x1);
		ref_mlp(NULL, &x1, &w, x2, t, d, &a);
		ref_layernorm(&a, x2 + w.g2, x2 + w.be2, t, d, &y);
		mvec_free(qkv), mvec_free(ctx), mvec_free(a), mvec_free(x1);
	}
	memcpy(want, y.v, t * d * sizeof(double));
	memcpy(scale, y.e, t * d * sizeof(double));
	mvec_free(y);
}

/* softmax and log_softmax, row by row (m rows of n), in double. */
static void ref_rows(const bv_op_def *op, const bv_layout *l, const float *x, double *want, double *scale)
{
	for (size_t r = 0; r < l->m; r++) {
		const float *row = x + r * l->n;
		double mx = -INFINITY, sum = 0;
		for (size_t j = 0; j < l->n; j++)
			mx = row[j] > mx ? row[j] : mx;
		for (size_t j = 0; j < l->n; j++)
			sum += exp(row[j] - mx);
		for (size_t j = 0; j < l->n; j++) {
			double *w = &want[r * l->n + j], *sc = &scale[r * l->n + j];
			if (!strcmp(op->name, "softmax"))
				*w = exp(row[j] - mx) / sum, *sc = *w;
			else /* log_softmax: error grows with |x - max| and log(sum) */
				*w = row[j] - mx - log(sum), *sc = fabs(row[j] - mx) + log(sum) + 1;
		}
	}
}

/* layernorm and rmsnorm, row by row: two passes in long double; a row
 * with a NaN or Inf would be NaN throughout (the inputs here are finite). */
static void ref_norm(const bv_op_def *op, const bv_layout *l, const float *x, const float *x2, double *want,
		     double *scale)
{
	for (size_t r = 0; r < l->m; r++) {
		const float *row = x + r * l->n;
		int rms = !strcmp(op->name, "rmsnorm");
		long double mean = 0, q = 0;
		if (!rms) {
			for (size_t j = 0; j < l->n; j++)
				mean += row[j];
			mean /= (long double)l->n;
		}
		for (size_t j = 0; j < l->n; j++)
			q += (row[j] - mean) * (row[j] - mean);
		double rstd = (double)(1.0L / sqrtl(q / (long double)l->n + (long double)BV_NORM_EPS));
		for (size_t j = 0; j < l->n; j++) {
			double z = (double)((row[j] - mean) * rstd), g = x2[j], b = rms ? 0 : x2[l->n + j];
			want[r * l->n + j] = z * g + b;
			scale[r * l->n + j] = (fabs(z) + 1) * fabs(g) + fabs(b);
		}
	}
}

/* batchnorm: the formula in long double, per channel (row); the scale
 * is the bound of the fused form y = x s + t the kernels use. */
static void ref_batchnorm(const bv_layout *l, const float *x, const float *x2, double *want, double *scale)
{
	for (size_t r = 0; r < l->m; r++) {
		const float *row = x + r * l->n;
		long double mu = x2[r], sd = sqrtl((long double)x2[l->m + r] + (long double)BV_NORM_EPS);
		long double g = x2[2 * l->m + r], b = x2[3 * l->m + r], s = g / sd;
		for (size_t j = 0; j < l->n; j++) {
			want[r * l->n + j] = (double)((row[j] - mu) / sd * g + b);
			scale[r * l->n + j] = (double)(fabsl(row[j] * s) + fabsl(mu * s) + fabsl(b));
		}
	}
}

/* scatter-add: one float add per element of y (the indices are a
 * permutation), done here in float as the kernels do it, so the sum is
 * exact to the bit; repeated indices would add in order of i. */
static void ref_scatter(const bv_layout *l, const float *x, const float *x2, double *want, double *scale)
{
	for (size_t j = 0; j < l->n; j++)
		want[j] = x2[j], scale[j] = 0;
	for (size_t i = 0; i < l->n; i++) {
		size_t j = (size_t)index_at(x + l->n, i);
		want[j] = (double)((float)want[j] + x[i]);
	}
}

/* C = A B, A M x K, B K x N, row-major; the error bound of a K-term
 * dot product is about K eps sum |a b|. */
static void ref_gemm(const bv_layout *l, const float *x, const float *x2, double *want, double *scale)
{
	for (size_t i = 0; i < l->m; i++) {
		double *w = want + i * l->n, *sc = scale + i * l->n;
		for (size_t j = 0; j < l->n; j++)
			w[j] = 0, sc[j] = 0;
		for (size_t p = 0; p < l->k; p++) {
			double a = x[i * l->k + p];
			const float *b = x2 + p * l->n;
			for (size_t j = 0; j < l->n; j++)
				w[j] += a * b[j], sc[j] += fabs(a * b[j]);
		}
		for (size_t j = 0; j < l->n; j++)
			sc[j] *= (double)(l->k + 2);
	}
}

void bv_reference(const bv_cell *c, const float *x, const float *x2, double *want, double *scale)
{
	if (c->op->kind == BV_K_SUITE) /* the suite's check gives its own (bvs_reference) */
		return;
	bv_layout l;
	bv_cell_layout(c, &l);
	const bv_op_def *op = c->op;
	switch (op->kind) {
	case BV_K_MODEL: ref_model(c, &l, x, x2, want, scale); break;
	case BV_K_UNARY:
		for (size_t i = 0; i < l.nx; i++)
			want[i] = op->expr ? bv_expr_eval(op->expr, (double[]){x[i]}) : op->ref(x[i]), scale[i] = 0;
		break;
	case BV_K_BINARY:
		for (size_t i = 0; i < l.nx; i++)
			want[i] = op->expr ? bv_expr_eval(op->expr, (double[]){x[i], x2[i]}) : op->ref2(x[i], x2[i]),
			scale[i] = 0;
		break;
	case BV_K_AXPY:
		/* a x + y rounds once with FMA and twice without: both pass. */
		for (size_t i = 0; i < l.nx; i++) {
			double ax = (double)BV_AXPY_ALPHA * x[i];
			want[i] = ax + x2[i], scale[i] = fabs(ax) + fabs(x2[i]);
		}
		break;
	case BV_K_REDUCE:
	case BV_K_ARGREDUCE: ref_reduce(c, x, l.nx, want, scale); break;
	case BV_K_DOT: {
		long double sum = 0, abs_sum = 0;
		for (size_t i = 0; i < l.nx; i++)
			sum += (long double)x[i] * x2[i], abs_sum += fabsl((long double)x[i] * x2[i]);
		want[0] = (double)sum, scale[0] = (double)abs_sum;
		break;
	}
	case BV_K_ROWS:
		ref_rows(op, &l, x, want, scale);
		break;
	case BV_K_NORM:
		ref_norm(op, &l, x, x2, want, scale);
		break;
	case BV_K_BATCHNORM:
		ref_batchnorm(&l, x, x2, want, scale);
		break;
	case BV_K_CONCAT: {
		size_t w[3], off = 0;
		bv_concat_widths(l.n, w);
		const float *part = x;
		for (int p = 0; p < 3; p++) {
			for (size_t r = 0; r < l.m; r++)
				for (size_t j = 0; j < w[p]; j++)
					want[r * l.n + off + j] = part[r * w[p] + j], scale[r * l.n + off + j] = 0;
			part += l.m * w[p], off += w[p];
		}
		break;
	}
	/* The memory group is exact: want is the float that must come out. */
	case BV_K_COPY:
		for (size_t i = 0; i < l.nx; i++)
			want[i] = x[i], scale[i] = 0;
		break;
	case BV_K_TRANSPOSE:
		for (size_t i = 0; i < l.m; i++)
			for (size_t j = 0; j < l.n; j++)
				want[j * l.m + i] = x[i * l.n + j], scale[j * l.m + i] = 0;
		break;
	case BV_K_GATHER:
		for (size_t i = 0; i < l.n; i++)
			want[i] = x[index_at(x2, i)], scale[i] = 0;
		break;
	case BV_K_SCATTER:
		ref_scatter(&l, x, x2, want, scale);
		break;
	case BV_K_CONV:
	case BV_K_DWCONV:
	case BV_K_MAXPOOL:
	case BV_K_AVGPOOL:
		ref_conv(c, x, x2, want, scale);
		break;
	case BV_K_GEMM:
		ref_gemm(&l, x, x2, want, scale);
		break;
	case BV_K_GEMV:
		for (size_t i = 0; i < l.m; i++) {
			double w = 0, sc = 0;
			for (size_t j = 0; j < l.n; j++)
				w += (double)x[i * l.n + j] * x2[j], sc += fabs((double)x[i * l.n + j] * x2[j]);
			want[i] = w, scale[i] = sc * (double)(l.n + 2);
		}
		break;
	default: ref_quant(c, &l, x, x2, want, scale); break;
	}
}

/* conv and pooling by their definition, one output at a time, in double:
 * conv's error bound is about (c r s) eps sum |w x| (a dot product of that
 * length, as gemm's), avgpool's (r s) eps mean |x|; max is exact. */
static void ref_conv(const bv_cell *c, const float *x, const float *x2, double *want, double *scale)
{
	conv_geom g = geom_of(c);
	bv_kind kind = c->op->kind;
	int cross = kind == BV_K_CONV;
	double terms = (double)((cross ? g.c : 1) * g.win * g.win);
	for (size_t k = 0; k < g.k; k++)
		for (size_t oy = 0; oy < g.oh; oy++)
			for (size_t ox = 0; ox < g.ow; ox++) {
				double acc = 0, sc = 0, m = -INFINITY;
				size_t cnt = 0;
				for (size_t ci = cross ? 0 : k; ci < (cross ? g.c : k + 1); ci++)
					for (size_t r = 0; r < g.win; r++)
						for (size_t s = 0; s < g.win; s++) {
							size_t iy = oy * g.st + r, ix = ox * g.st + s;
							if (iy < g.pad || ix < g.pad || iy - g.pad >= g.h || ix - g.pad >= g.w)
								continue;
							iy -= g.pad, ix -= g.pad;
							double v = x[g.nhwc ? (iy * g.w + ix) * g.c + ci : (ci * g.h + iy) * g.w + ix];
							double w = 1;
							if (kind == BV_K_CONV)
								w = x2[g.nhwc ? ((r * g.win + s) * g.c + ci) * g.k + k
									      : ((k * g.c + ci) * g.win + r) * g.win + s];
							else if (kind == BV_K_DWCONV)
								w = x2[g.nhwc ? (r * g.win + s) * g.c + ci : (ci * g.win + r) * g.win + s];
							acc += w * v, sc += fabs(w * v), cnt++;
							m = v > m ? v : m;
						}
				size_t o = g.nhwc ? (oy * g.ow + ox) * g.k + k : (k * g.oh + oy) * g.ow + ox;
				if (kind == BV_K_MAXPOOL)
					want[o] = m, scale[o] = 0;
				else if (kind == BV_K_AVGPOOL)
					want[o] = acc / (double)cnt, scale[o] = sc / (double)cnt * (terms + 2);
				else
					want[o] = acc, scale[o] = sc * (terms + 2);
			}
}

static int close_enough(const bv_op_def *op, float got, double want, double scale)
{
	if (isnan(want) || isnan(got))
		return isnan(want) && isnan(got);
	if (ulp_distance(got, (float)want) <= op->max_ulp)
		return 1;
	return fabs((double)got - want) <= op->tol * FLT_EPSILON * scale;
}

int bv_verify(const bv_cell *c, const double *want, const double *scale, const float *y, double result,
	      char *why, size_t len)
{
	const bv_op_def *op = c->op;
	bv_layout l;
	bv_cell_layout(c, &l);
	if (op->kind == BV_K_SUITE) /* checked in the plugin (suite_check) */
		return 1;
	if (l.result) {
		int ok = op->kind == BV_K_ARGREDUCE ? result == want[0]
						    : close_enough(op, (float)result, want[0], scale[0]);
		if (!ok)
			snprintf(why, len, "%s over %zu elements: got %.9g, expected %.9g", op->name, l.nx, result,
				 want[0]);
		return ok;
	}
	size_t n = bv_cell_outputs(c), last;
	if (bits_output(c, &last)) {
		for (size_t i = 0; i < n; i++) {
			uint32_t got = float_bits(y[i]), w = (uint32_t)want[i];
			uint32_t mask = i + 1 < n || last == 4 ? 0xffffffffu : (1u << (8 * last)) - 1u;
			if ((got & mask) != (w & mask)) {
				snprintf(why, len, "%s: element %zu of %zu = 0x%08x, expected 0x%08x (%s, bit for bit)",
					 op->name, i, n, got & mask, w & mask,
					 op->kind == BV_K_QGEMM ? "an int32" : op->kind == BV_K_TO_HALF ? "2 x 16 bits" : "4 x int8");
				return 0;
			}
		}
		return 1;
	}
	for (size_t i = 0; i < n; i++)
		if (!close_enough(op, y[i], want[i], scale[i])) {
			uint64_t d = ulp_distance(y[i], (float)want[i]);
			snprintf(why, len, "%s: element %zu of %zu = %.9g, expected %.9g (%s%llu ulp, limit %u%s)",
				 op->name, i, n, (double)y[i], want[i], d == UINT64_MAX ? ">" : "",
				 d == UINT64_MAX ? 0ull : (unsigned long long)d, op->max_ulp,
				 op->tol > 0 ? ", or the error bound" : "");
			return 0;
		}
	return 1;
}

int bv_check(const bv_op_def *op, const float *x, const float *y, size_t n, char *why, size_t len)
{
	for (size_t i = 0; i < n; i++) {
		double want = op->expr ? bv_expr_eval(op->expr, (double[]){x[i]}) : op->ref((double)x[i]);
		if (!close_enough(op, y[i], want, 0)) {
			uint64_t d = ulp_distance(y[i], (float)want);
			snprintf(why, len, "%s: element %zu of %zu: %s(%.9g) = %.9g, expected %.9g (%s%llu ulp, limit %u)",
				 op->name, i, n, op->name, (double)x[i], (double)y[i], want,
				 d == UINT64_MAX ? ">" : "", d == UINT64_MAX ? 0ull : (unsigned long long)d,
				 op->max_ulp);
			return 0;
		}
	}
	return 1;
}
