/*
 * simd_bn.h - batchnorm and concat for one ISA.  Included at the
 * end of simd_math.h after simd_mem.h, so it sees the ISA file's primitives
 * and KN_MEM_STREAM_BYTES.
 *
 * Both ops read x once and write y once, so what bounds them is memory: the
 * point is to do no more than one load, one fused multiply-add (batchnorm)
 * and one store per vector, and to write y around the caches once it is too
 * big for them (as copy does, from KN_MEM_STREAM_BYTES).
 */

/* ---- batchnorm ----------------------------------------------------------
 *
 * Each channel is folded once (kn_bn_fold, in double) into y = x s + t, one
 * vfma a vector.  Channels the fold cannot express (NaN statistics, s or t
 * not a finite float) go through kn_bn_row_exact, the formula in double. */

/* y = x s + t over one row of n floats; non-temporal stores from the first
 * W-aligned element of y when stream is set. */
static inline __attribute__((always_inline)) void ISA(bn_row)(const float *x, float *y, size_t n, vf s, vf t,
							     int stream)
{
	size_t i = 0;
	if (stream) {
		size_t off = ((uintptr_t)y / sizeof(float)) % W, head = off ? W - off : 0;
		head = head < n ? head : n;
		if (head)
			vstore_n(y, vfma(vload_n(x, head), s, t), head);
		for (i = head; i + 4 * W <= n; i += 4 * W) {
			vf a = vload(x + i), b = vload(x + i + W), c = vload(x + i + 2 * W), d = vload(x + i + 3 * W);
			vstream(y + i, vfma(a, s, t)), vstream(y + i + W, vfma(b, s, t));
			vstream(y + i + 2 * W, vfma(c, s, t)), vstream(y + i + 3 * W, vfma(d, s, t));
		}
		for (; i + W <= n; i += W)
			vstream(y + i, vfma(vload(x + i), s, t));
	} else {
		/* all four loads before the stores: y may be x */
		for (; i + 4 * W <= n; i += 4 * W) {
			vf a = vload(x + i), b = vload(x + i + W), c = vload(x + i + 2 * W), d = vload(x + i + 3 * W);
			vstore(y + i, vfma(a, s, t)), vstore(y + i + W, vfma(b, s, t));
			vstore(y + i + 2 * W, vfma(c, s, t)), vstore(y + i + 3 * W, vfma(d, s, t));
		}
		for (; i + W <= n; i += W)
			vstore(y + i, vfma(vload(x + i), s, t));
	}
	if (i < n)
		vstore_n(y + i, vfma(vload_n(x + i, n - i), s, t), n - i);
}

/* count rows of hw floats, stride apart, all of channel j. */
static void ISA(bn_channel)(const float *x, float *y, size_t hw, size_t stride, size_t count, float mean,
			    float var, float g, float b, float eps, int stream)
{
	float s, t;
	if (kn_bn_fold(mean, var, g, b, eps, &s, &t) != KN_BN_FAST) {
		for (size_t r = 0; r < count; r++)
			kn_bn_row_exact(x + r * stride, y + r * stride, hw, mean, var, g, b, eps);
		return;
	}
	vf vs = vset1(s), vt = vset1(t);
	for (size_t r = 0; r < count; r++) {
		if (stream)
			ISA(bn_row)(x + r * stride, y + r * stride, hw, vs, vt, 1);
		else
			ISA(bn_row)(x + r * stride, y + r * stride, hw, vs, vt, 0);
	}
}

kn_status ISA(kn_simd_batchnorm)(const float *x, const float *mean, const float *var, const float *g,
				 const float *b, float *y, size_t n, size_t c, size_t hw, float eps)
{
	int stream = n * c * hw * sizeof(float) >= KN_MEM_STREAM_BYTES && hw >= 4 * W &&
		     (uintptr_t)y % sizeof(float) == 0;
	if (n == 1 || hw >= 64) {
		/* in memory order; a fold (a sqrt and a divide in double) per
		 * row of at least 64 floats, or per channel when n is 1 */
		for (size_t r = 0; r < n * c; r++) {
			size_t j = r % c;
			ISA(bn_channel)(x + r * hw, y + r * hw, hw, 0, 1, mean[j], var[j], g[j], b ? b[j] : 0.0f, eps,
					stream);
		}
	} else {
		/* short rows (hw of 1 in a fully connected layer's N x C x 1):
		 * a channel at a time across the batch, so each channel is
		 * folded once rather than once per few floats */
		for (size_t j = 0; j < c; j++)
			ISA(bn_channel)(x + j * hw, y + j * hw, hw, c * hw, n, mean[j], var[j], g[j], b ? b[j] : 0.0f,
					eps, stream);
	}
	if (stream)
		_mm_sfence(); /* weakly ordered stores: publish them before returning */
	return KN_OK;
}

/* ---- concat -------------------------------------------------------------
 *
 * Row by row of y, a piece of each input at a time: a copy of cols[i] floats
 * (four vectors a step, masked tail; a piece shorter than a vector is one
 * masked load and store).  From KN_MEM_STREAM_BYTES of y up, pieces of at
 * least four vectors are stored non-temporally from their first W-aligned
 * element: the pieces tile y's rows, so the lines the stream leaves partial
 * at a piece's ends are finished by the neighbouring pieces' plain stores. */
static inline __attribute__((always_inline)) void ISA(cat_piece)(const float *x, float *y, size_t n, int stream)
{
	size_t i = 0;
	if (n < W) {
		vstore_n(y, vload_n(x, n), n);
		return;
	}
	if (stream && n >= 4 * W) {
		size_t off = ((uintptr_t)y / sizeof(float)) % W, head = off ? W - off : 0;
		if (head)
			vstore_n(y, vload_n(x, head), head);
		for (i = head; i + 4 * W <= n; i += 4 * W) {
			vf a = vload(x + i), b = vload(x + i + W), c = vload(x + i + 2 * W), d = vload(x + i + 3 * W);
			vstream(y + i, a), vstream(y + i + W, b), vstream(y + i + 2 * W, c), vstream(y + i + 3 * W, d);
		}
		for (; i + W <= n; i += W)
			vstream(y + i, vload(x + i));
	} else {
		for (; i + 4 * W <= n; i += 4 * W) {
			vf a = vload(x + i), b = vload(x + i + W), c = vload(x + i + 2 * W), d = vload(x + i + 3 * W);
			vstore(y + i, a), vstore(y + i + W, b), vstore(y + i + 2 * W, c), vstore(y + i + 3 * W, d);
		}
		for (; i + W <= n; i += W)
			vstore(y + i, vload(x + i));
	}
	if (i < n)
		vstore_n(y + i, vload_n(x + i, n - i), n - i);
}

kn_status ISA(kn_simd_concat)(const float *const *xs, const size_t *cols, size_t k, float *y, size_t rows,
			      size_t total)
{
	int stream = rows * total * sizeof(float) >= KN_MEM_STREAM_BYTES && (uintptr_t)y % sizeof(float) == 0;
	for (size_t r = 0; r < rows; r++) {
		float *o = y + r * total;
		for (size_t i = 0; i < k; i++) {
			size_t w = cols[i];
			if (!w)
				continue; /* xs[i] may be NULL */
			if (stream)
				ISA(cat_piece)(xs[i] + r * w, o, w, 1);
			else
				ISA(cat_piece)(xs[i] + r * w, o, w, 0);
			o += w;
		}
	}
	if (stream)
		_mm_sfence();
	return KN_OK;
}
