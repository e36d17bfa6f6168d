/*
 * simd_conv.h - depthwise conv2d and pooling for one ISA, included by
 * simd_math.h (so W, vf, vload... are the including file's).  conv2d itself
 * is im2col + this ISA's sgemm (conv.c, simd.c).
 *
 * NHWC puts the channels innermost, so a vector holds W channels of one
 * pixel and every window position is one load.  NCHW puts a row of one
 * channel innermost: depthwise conv runs along the output row (stride 1 with
 * vectors, other strides with scalar loads), pooling first reduces the
 * window's rows column by column in vectors (the vertical pass, contiguous
 * for any stride), then the window's columns of that row in scalar code (s
 * values an output instead of r s).
 */

/* [lo, hi): the ox whose tap s falls inside [0, w) (the padded borders
 * excluded), as conv.c's im2col computes it. */
static inline void ISA(ox_range)(size_t w, size_t ow, size_t st, size_t pad, size_t s, size_t *lo, size_t *hi)
{
	size_t l = s >= pad ? 0 : (pad - s + st - 1) / st;
	size_t h = w + pad > s ? (w + pad - s - 1) / st + 1 : 0;
	if (h > ow)
		h = ow;
	if (l > h)
		l = h;
	*lo = l, *hi = h;
}

/* window widths up to this keep their column ranges in an array */
#define KN_DW_TAPS 16

kn_status ISA(kn_simd_dwconv2d)(const kn_conv2d_params *p, const float *x, const float *wt, float *y)
{
	size_t oh = kn_conv_oh(p), ow = kn_conv_ow(p), st = p->stride, pad = p->pad, c = p->c;
	size_t img = c * p->h * p->w, oimg = c * oh * ow;
	for (size_t i = 0; i < p->n; i++) {
		const float *xi = x + i * img;
		float *yi = y + i * oimg;
		if (p->layout == KN_NHWC) {
			for (size_t oy = 0; oy < oh; oy++)
				for (size_t ox = 0; ox < ow; ox++) {
					float *yp = yi + (oy * ow + ox) * c;
					for (size_t c0 = 0; c0 < c; c0 += W) {
						size_t m = c - c0 < W ? c - c0 : W;
						vf acc = vset1(0.0f);
						for (size_t r = 0; r < p->r; r++) {
							size_t iy = oy * st + r;
							if (iy < pad || iy - pad >= p->h)
								continue;
							for (size_t s = 0; s < p->s; s++) {
								size_t ix = ox * st + s;
								if (ix < pad || ix - pad >= p->w)
									continue;
								const float *xp = xi + ((iy - pad) * p->w + ix - pad) * c + c0;
								const float *wp = wt + (r * p->s + s) * c + c0;
								acc = m == W ? vfma(vload(wp), vload(xp), acc)
									     : vfma(vload_n(wp, m), vload_n(xp, m), acc);
							}
						}
						if (m == W)
							vstore(yp + c0, acc);
						else
							vstore_n(yp + c0, acc, m);
					}
				}
			continue;
		}
		/* NCHW.  The columns whose every tap lies inside the row, [a0, a1),
		 * are summed in registers over the whole window at stride 1 (one
		 * store an output); the padded edges, and every column at other
		 * strides, tap by tap into y. */
		size_t a0 = 0, a1 = 0, l, h, los[KN_DW_TAPS], his[KN_DW_TAPS];
		/* each tap's column range, once: two divisions a tap and a row
		 * took most of the time of a 3x3 layer */
		for (size_t s = 0; s < p->s && s < KN_DW_TAPS; s++)
			ISA(ox_range)(p->w, ow, st, pad, s, &los[s], &his[s]);
		if (st == 1) {
			ISA(ox_range)(p->w, ow, st, pad, 0, &a0, &h);
			ISA(ox_range)(p->w, ow, st, pad, p->s - 1, &l, &a1);
			a0 = l > a0 ? l : a0, a1 = h < a1 ? h : a1;
			if (a1 < a0)
				a1 = a0;
		}
		for (size_t ci = 0; ci < c; ci++)
			for (size_t oy = 0; oy < oh; oy++) {
				float *yr = yi + (ci * oh + oy) * ow;
				const float *wc = wt + ci * p->r * p->s;
				/* the window's rows inside x: [ra, rb) */
				size_t ra = oy * st < pad ? pad - oy * st : 0, rb = p->h + pad - oy * st;
				if (rb > p->r)
					rb = p->r;
				size_t ox = a0;
				/* four vectors at a time: four independent fma chains */
				for (; ox + 4 * W <= a1; ox += 4 * W) {
					vf c0 = vset1(0.0f), c1 = c0, c2 = c0, c3 = c0;
					for (size_t r = ra; r < rb; r++) {
						const float *xr = xi + (ci * p->h + oy + r - pad) * p->w + (ox - pad);
						for (size_t s = 0; s < p->s; s++) {
							vf wb = vset1(wc[r * p->s + s]);
							c0 = vfma(wb, vload(xr + s), c0);
							c1 = vfma(wb, vload(xr + s + W), c1);
							c2 = vfma(wb, vload(xr + s + 2 * W), c2);
							c3 = vfma(wb, vload(xr + s + 3 * W), c3);
						}
					}
					vstore(yr + ox, c0);
					vstore(yr + ox + W, c1);
					vstore(yr + ox + 2 * W, c2);
					vstore(yr + ox + 3 * W, c3);
				}
				for (; ox + W <= a1; ox += W) {
					vf acc = vset1(0.0f);
					for (size_t r = ra; r < rb; r++) {
						const float *xr = xi + (ci * p->h + oy + r - pad) * p->w + (ox - pad);
						for (size_t s = 0; s < p->s; s++)
							acc = vfma(vset1(wc[r * p->s + s]), vload(xr + s), acc);
					}
					vstore(yr + ox, acc);
				}
				if (ox < a1) {
					size_t m = a1 - ox;
					vf acc = vset1(0.0f);
					for (size_t r = ra; r < rb; r++) {
						const float *xr = xi + (ci * p->h + oy + r - pad) * p->w + (ox - pad);
						for (size_t s = 0; s < p->s; s++)
							acc = vfma(vset1(wc[r * p->s + s]), vload_n(xr + s, m), acc);
					}
					vstore_n(yr + ox, acc, m);
				}
				/* the rest, [0, a0) and [a1, ow) */
				memset(yr, 0, a0 * sizeof(float));
				memset(yr + a1, 0, (ow - a1) * sizeof(float));
				for (size_t r = ra; r < rb; r++) {
					const float *xr = xi + (ci * p->h + oy * st + r - pad) * p->w;
					for (size_t s = 0; s < p->s; s++) {
						float wv = wc[r * p->s + s];
						size_t lo, hi;
						if (s < KN_DW_TAPS)
							lo = los[s], hi = his[s];
						else
							ISA(ox_range)(p->w, ow, st, pad, s, &lo, &hi);
						for (size_t o = lo; o < hi && o < a0; o++)
							yr[o] += wv * xr[o * st + s - pad];
						for (size_t o = lo > a1 ? lo : a1; o < hi; o++)
							yr[o] += wv * xr[o * st + s - pad];
					}
				}
			}
	}
	return KN_OK;
}

/* max with NaN kept (either NaN gives NaN), as the scalar backend. */
static inline float ISA(fmax_nan)(float m, float v) { return m != m || v != v ? m + v : v > m ? v : m; }

kn_status ISA(kn_simd_pool2d)(kn_pool_op op, const kn_conv2d_params *p, const float *x, float *y)
{
	size_t oh = kn_conv_oh(p), ow = kn_conv_ow(p), st = p->stride, pad = p->pad, c = p->c;
	size_t img = c * p->h * p->w, oimg = c * oh * ow;
	int mx = op == KN_POOL_MAX;
	/* NCHW: the vertical pass's row, then the horizontal windows' */
	float *tmp = NULL, *hw = NULL;
	if (p->layout == KN_NCHW && (!(tmp = kn_aligned_floats(p->w)) || !(hw = kn_aligned_floats(p->w)))) {
		kn_host_free(tmp);
		return kn_fail(KN_ENOMEM, "pool2d: a row of %zu floats", p->w);
	}
	for (size_t i = 0; i < p->n; i++) {
		const float *xi = x + i * img;
		float *yi = y + i * oimg;
		for (size_t oy = 0; oy < oh; oy++) {
			/* the window's rows inside the input: [ya, yb) */
			size_t ya = oy * st < pad ? 0 : oy * st - pad, yb = oy * st + p->r - pad;
			if (yb > p->h)
				yb = p->h;
			if (p->layout == KN_NHWC) {
				for (size_t ox = 0; ox < ow; ox++) {
					size_t xa = ox * st < pad ? 0 : ox * st - pad, xb = ox * st + p->s - pad;
					if (xb > p->w)
						xb = p->w;
					vf inv = vset1(1.0f / (float)((yb - ya) * (xb - xa)));
					float *yp = yi + (oy * ow + ox) * c;
					for (size_t c0 = 0; c0 < c; c0 += W) {
						size_t m = c - c0 < W ? c - c0 : W;
						vf acc = vset1(mx ? -INFINITY : 0.0f);
						for (size_t iy = ya; iy < yb; iy++)
							for (size_t ix = xa; ix < xb; ix++) {
								const float *xp = xi + (iy * p->w + ix) * c + c0;
								vf v = m == W ? vload(xp) : vload_n(xp, m);
								acc = mx ? vmax_nan(acc, v) : vadd(acc, v);
							}
						if (!mx)
							acc = vmul(acc, inv);
						if (m == W)
							vstore(yp + c0, acc);
						else
							vstore_n(yp + c0, acc, m);
					}
				}
				continue;
			}
			for (size_t ci = 0; ci < c; ci++) {
				const float *xp = xi + ci * p->h * p->w;
				/* vertical pass: tmp[ix] = max / sum of column ix over the rows */
				size_t ix = 0;
				for (; ix + W <= p->w; ix += W) {
					vf acc = vload(xp + ya * p->w + ix);
					for (size_t iy = ya + 1; iy < yb; iy++) {
						vf v = vload(xp + iy * p->w + ix);
						acc = mx ? vmax_nan(acc, v) : vadd(acc, v);
					}
					vstore(tmp + ix, acc);
				}
				if (ix < p->w) {
					size_t m = p->w - ix;
					vf acc = vload_n(xp + ya * p->w + ix, m);
					for (size_t iy = ya + 1; iy < yb; iy++) {
						vf v = vload_n(xp + iy * p->w + ix, m);
						acc = mx ? vmax_nan(acc, v) : vadd(acc, v);
					}
					vstore_n(tmp + ix, acc, m);
				}
				/* horizontal pass: hw[ix] = the window of s columns from
				 * ix, for every ix whose window lies inside the row
				 * (contiguous shifted loads, any stride); an output
				 * then picks hw at its window's start.  Windows that
				 * the padding clips are done one by one. */
				size_t nh = p->w >= p->s ? p->w - p->s + 1 : 0;
				for (ix = 0; ix < nh; ix += W) {
					size_t m = nh - ix < W ? nh - ix : W;
					vf acc = vload_n(tmp + ix, m);
					for (size_t j = 1; j < p->s; j++) {
						vf v = vload_n(tmp + ix + j, m);
						acc = mx ? vmax_nan(acc, v) : vadd(acc, v);
					}
					vstore_n(hw + ix, acc, m);
				}
				float *yr = yi + (ci * oh + oy) * ow;
				float rows = (float)(yb - ya), inv = 1.0f / (rows * (float)p->s);
				for (size_t ox = 0; ox < ow; ox++) {
					size_t xa = ox * st < pad ? 0 : ox * st - pad, xb = ox * st + p->s - pad;
					if (ox * st >= pad && xb <= p->w) {
						yr[ox] = mx ? hw[xa] : hw[xa] * inv;
						continue;
					}
					if (xb > p->w)
						xb = p->w;
					float a = tmp[xa];
					for (size_t j = xa + 1; j < xb; j++)
						a = mx ? ISA(fmax_nan)(a, tmp[j]) : a + tmp[j];
					yr[ox] = mx ? a : a / (rows * (float)(xb - xa));
				}
			}
		}
	}
	kn_host_free(hw);
	kn_host_free(tmp);
	return KN_OK;
}
