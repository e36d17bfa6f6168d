/*
 * conv.c - convolution and pooling: the im2col driver the simd and
 * blas backends share (each with its own sgemm), and the scalar backend's
 * direct loops.
 *
 * api.c has checked the descriptor (kn_conv_check), so here n >= 1, every
 * other size >= 1, pad < r and pad < s, the window fits the padded input and
 * no element count overflows size_t.
 */
#include "internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- the im2col driver ---------------------------------------------------
 *
 * NCHW: y_n (k x oh*ow) = wt (k x crs) col (crs x oh*ow)
 * NHWC: y_n (oh*ow x k) = col (oh*ow x rsc) wt (rsc x k)
 *
 * col is built for a band of output rows at a time, at most KN_COL_FLOATS
 * floats (2 MB, the band's columns then stay in cache between the im2col
 * pass and the product; a whole 56 x 56 x 64 3x3 layer's col is 7 MB), and
 * the band's product writes straight into its rows of y (ldc is the full
 * row).  A 1x1 window at stride 1 without padding needs no col at all: x
 * itself is the matrix.
 */
#define KN_COL_FLOATS ((size_t)512 * 1024)

/* Rows [oy0, oy1) of the NCHW col matrix of one image: row (ci, r, s), column
 * (oy - oy0) ow + ox.  Stride 1 copies runs of x with memcpy. */
static void im2col_nchw(const kn_conv2d_params *p, size_t ow, const float *x, float *col, size_t oy0, size_t oy1)
{
	size_t cols = (oy1 - oy0) * ow, st = p->stride, pad = p->pad;
	for (size_t ci = 0; ci < p->c; ci++)
		for (size_t r = 0; r < p->r; r++)
			for (size_t s = 0; s < p->s; s++) {
				float *dst = col + ((ci * p->r + r) * p->s + s) * cols;
				/* ox with 0 <= ox st + s - pad < w: [lo, hi) */
				size_t lo = s >= pad ? 0 : (pad - s + st - 1) / st;
				size_t hi = p->w + pad > s ? (p->w + pad - s - 1) / st + 1 : 0;
				if (hi > ow)
					hi = ow;
				if (lo > hi)
					lo = hi;
				for (size_t oy = oy0; oy < oy1; oy++, dst += ow) {
					size_t iy = oy * st + r;
					if (iy < pad || iy - pad >= p->h) {
						memset(dst, 0, ow * sizeof(float));
						continue;
					}
					const float *src = x + (ci * p->h + (iy - pad)) * p->w;
					memset(dst, 0, lo * sizeof(float));
					if (st == 1 && hi > lo)
						memcpy(dst + lo, src + (lo + s - pad), (hi - lo) * sizeof(float));
					else if (st != 1)
						for (size_t ox = lo; ox < hi; ox++)
							dst[ox] = src[ox * st + s - pad];
					memset(dst + hi, 0, (ow - hi) * sizeof(float));
				}
			}
}

/* Rows [oy0, oy1) x ow of the NHWC col matrix: row (oy - oy0) ow + ox,
 * column (r, s, ci); each (r, s) is a run of c floats of x, or zeros. */
static void im2col_nhwc(const kn_conv2d_params *p, const float *x, float *col, size_t ow, size_t oy0,
			size_t oy1)
{
	size_t c = p->c, st = p->stride, pad = p->pad;
	for (size_t oy = oy0; oy < oy1; oy++)
		for (size_t ox = 0; ox < ow; ox++)
			for (size_t r = 0; r < p->r; r++) {
				size_t iy = oy * st + r;
				for (size_t s = 0; s < p->s; s++, col += c) {
					size_t ix = ox * st + s;
					if (iy < pad || iy - pad >= p->h || ix < pad || ix - pad >= p->w)
						memset(col, 0, c * sizeof(float));
					else
						memcpy(col, x + ((iy - pad) * p->w + ix - pad) * c, c * sizeof(float));
				}
			}
}

kn_status kn_conv_im2col(const kn_conv2d_params *p, const float *x, const float *wt, float *y, kn_gemm_fn gemm)
{
	size_t oh = kn_conv_oh(p), ow = kn_conv_ow(p), crs = p->c * p->r * p->s;
	size_t in_img = p->c * p->h * p->w, out_img = p->k * oh * ow;
	int nhwc = p->layout == KN_NHWC;
	kn_status s = KN_OK;
	if (p->r == 1 && p->s == 1 && p->stride == 1 && p->pad == 0) {
		for (size_t i = 0; i < p->n && s == KN_OK; i++) {
			const float *xi = x + i * in_img;
			float *yi = y + i * out_img;
			s = nhwc ? gemm(0, 0, oh * ow, p->k, p->c, 1.0f, xi, p->c, wt, p->k, 0.0f, yi, p->k)
				 : gemm(0, 0, p->k, oh * ow, p->c, 1.0f, wt, p->c, xi, oh * ow, 0.0f, yi, oh * ow);
		}
		return s;
	}
	/* Output rows per band: as many as fit KN_COL_FLOATS, at least one. */
	size_t band = KN_COL_FLOATS / (crs * ow);
	if (band < 1)
		band = 1;
	if (band > oh)
		band = oh;
	float *col = kn_aligned_floats(band * ow * crs);
	if (!col)
		return kn_fail(KN_ENOMEM, "conv2d: im2col buffer of %zu floats", band * ow * crs);
	for (size_t i = 0; i < p->n && s == KN_OK; i++) {
		const float *xi = x + i * in_img;
		float *yi = y + i * out_img;
		for (size_t oy0 = 0; oy0 < oh && s == KN_OK; oy0 += band) {
			size_t oy1 = oh - oy0 < band ? oh : oy0 + band, cols = (oy1 - oy0) * ow;
			if (nhwc) {
				im2col_nhwc(p, xi, col, ow, oy0, oy1);
				s = gemm(0, 0, cols, p->k, crs, 1.0f, col, crs, wt, p->k, 0.0f, yi + oy0 * ow * p->k,
					 p->k);
			} else {
				im2col_nchw(p, ow, xi, col, oy0, oy1);
				s = gemm(0, 0, p->k, cols, crs, 1.0f, wt, crs, col, cols, 0.0f, yi + oy0 * ow,
					 oh * ow);
			}
		}
	}
	kn_host_free(col);
	return s;
}

/* ---- scalar: direct loops ------------------------------------------------
 *
 * The reference backend: y is zeroed, then each tap is added over a row of
 * outputs (the inner loop runs along ox or along k, contiguous in y), in
 * float. */
kn_status kn_scalar_conv2d(const kn_conv2d_params *p, const float *x, const float *wt, float *y)
{
	size_t oh = kn_conv_oh(p), ow = kn_conv_ow(p), st = p->stride, pad = p->pad;
	size_t in_img = p->c * p->h * p->w, out_img = p->k * oh * ow;
	memset(y, 0, p->n * out_img * sizeof(float));
	for (size_t i = 0; i < p->n; i++) {
		const float *xi = x + i * in_img;
		float *yi = y + i * out_img;
		if (p->layout == KN_NCHW) {
			for (size_t k = 0; k < p->k; k++)
				for (size_t ci = 0; ci < p->c; ci++)
					for (size_t r = 0; r < p->r; r++)
						for (size_t s = 0; s < p->s; s++) {
							float wv = wt[((k * p->c + ci) * p->r + r) * p->s + s];
							for (size_t oy = 0; oy < oh; oy++) {
								size_t iy = oy * st + r;
								if (iy < pad || iy - pad >= p->h)
									continue;
								const float *xr = xi + (ci * p->h + iy - pad) * p->w;
								float *yr = yi + (k * oh + oy) * ow;
								for (size_t ox = 0; ox < ow; ox++) {
									size_t ix = ox * st + s;
									if (ix >= pad && ix - pad < p->w)
										yr[ox] += wv * xr[ix - pad];
								}
							}
						}
		} else {
			for (size_t oy = 0; oy < oh; oy++)
				for (size_t ox = 0; ox < ow; ox++) {
					float *yp = yi + (oy * ow + ox) * p->k;
					for (size_t r = 0; r < p->r; r++)
						for (size_t s = 0; s < p->s; s++) {
							size_t iy = oy * st + r, ix = ox * st + s;
							if (iy < pad || iy - pad >= p->h || ix < pad || ix - pad >= p->w)
								continue;
							const float *xp = xi + ((iy - pad) * p->w + ix - pad) * p->c;
							const float *wp = wt + (r * p->s + s) * p->c * p->k;
							for (size_t ci = 0; ci < p->c; ci++)
								for (size_t k = 0; k < p->k; k++)
									yp[k] += xp[ci] * wp[ci * p->k + k];
						}
				}
		}
	}
	return KN_OK;
}

/* Element (ci, iy, ix) of image xi, in either layout. */
static inline size_t at(const kn_conv2d_params *p, size_t ci, size_t iy, size_t ix)
{
	return p->layout == KN_NCHW ? (ci * p->h + iy) * p->w + ix : (iy * p->w + ix) * p->c + ci;
}

kn_status kn_scalar_dwconv2d(const kn_conv2d_params *p, const float *x, const float *wt, float *y)
{
	size_t oh = kn_conv_oh(p), ow = kn_conv_ow(p), st = p->stride, pad = p->pad, img = p->c * p->h * p->w;
	for (size_t i = 0; i < p->n; i++) {
		const float *xi = x + i * img;
		float *yi = y + i * p->c * oh * ow;
		for (size_t ci = 0; ci < p->c; ci++)
			for (size_t oy = 0; oy < oh; oy++)
				for (size_t ox = 0; ox < ow; ox++) {
					float acc = 0.0f;
					for (size_t r = 0; r < p->r; r++)
						for (size_t s = 0; s < p->s; s++) {
							size_t iy = oy * st + r, ix = ox * st + s;
							if (iy < pad || iy - pad >= p->h || ix < pad || ix - pad >= p->w)
								continue;
							float wv = p->layout == KN_NCHW ? wt[(ci * p->r + r) * p->s + s]
											: wt[(r * p->s + s) * p->c + ci];
							acc += wv * xi[at(p, ci, iy - pad, ix - pad)];
						}
					size_t o = p->layout == KN_NCHW ? (ci * oh + oy) * ow + ox : (oy * ow + ox) * p->c + ci;
					yi[o] = acc;
				}
	}
	return KN_OK;
}

kn_status kn_scalar_pool2d(kn_pool_op op, const kn_conv2d_params *p, const float *x, float *y)
{
	size_t oh = kn_conv_oh(p), ow = kn_conv_ow(p), st = p->stride, pad = p->pad, img = p->c * p->h * p->w;
	for (size_t i = 0; i < p->n; i++) {
		const float *xi = x + i * img;
		float *yi = y + i * p->c * oh * ow;
		for (size_t ci = 0; ci < p->c; ci++)
			for (size_t oy = 0; oy < oh; oy++)
				for (size_t ox = 0; ox < ow; ox++) {
					float m = -INFINITY, sum = 0.0f;
					size_t cnt = 0;
					for (size_t r = 0; r < p->r; r++)
						for (size_t s = 0; s < p->s; s++) {
							size_t iy = oy * st + r, ix = ox * st + s;
							if (iy < pad || iy - pad >= p->h || ix < pad || ix - pad >= p->w)
								continue;
							float v = xi[at(p, ci, iy - pad, ix - pad)];
							/* a NaN, once in m, stays: v > NaN is false */
							if (v > m || v != v)
								m = m != m ? m : v;
							sum += v;
							cnt++;
						}
					size_t o = p->layout == KN_NCHW ? (ci * oh + oy) * ow + ox : (oy * ow + ox) * p->c + ci;
					yi[o] = op == KN_POOL_MAX ? m : sum / (float)cnt;
				}
	}
	return KN_OK;
}
