/* test_benches.c - the matrix registry: sizes, selection, checking. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <float.h>

#include "benches.h"
#include "plugin.h"
#include "tests.h"

static void sizes_parse_and_format(void **state)
{
	(void)state;
	char buf[32];
	assert_int_equal(bv_size_parse("1K"), 1024);
	assert_int_equal(bv_size_parse("16M"), 16u << 20);
	assert_int_equal(bv_size_parse("1000"), 1000);
	assert_int_equal(bv_size_parse(""), 0);
	assert_int_equal(bv_size_parse("0"), 0);
	assert_int_equal(bv_size_parse("1Q"), 0);
	assert_int_equal(bv_size_parse("-1K"), 0);
	assert_int_equal(bv_size_parse("99999999999G"), 0);
	assert_string_equal(bv_size_format(1u << 20, buf, sizeof(buf)), "1M");
	assert_string_equal(bv_size_format(1000, buf, sizeof(buf)), "1000");
}

static void selection_filters_and_rejects_unknown_names(void **state)
{
	(void)state;
	bv_cell *cells;
	char err[256];
	bv_selection all = {"unary", NULL, NULL, NULL};
	long n = bv_cells_select(&all, &cells, err, sizeof(err));
	const bv_bench *u = bv_bench_find("unary");
	size_t nbe = 0, nsz = 0;
	for (const char *const *b = u->backends; *b; b++)
		nbe++;
	for (const size_t *s = u->sizes; *s; s++)
		nsz++;
	assert_int_equal(n, (long)(u->nops * nbe * nsz));
	free(cells);
	bv_selection some = {NULL, "relu,exp", "scalar", "1K,1K,3000"};
	n = bv_cells_select(&some, &cells, err, sizeof(err));
	assert_int_equal(n, 4); /* 2 ops x 1 backend x 2 distinct sizes */
	assert_string_equal(cells[0].op->name, "exp");
	assert_int_equal(cells[1].size, 3000);
	free(cells);
	bv_selection bad[] = {{"nope", NULL, NULL, NULL}, {NULL, "nope", NULL, NULL},
			      {NULL, NULL, "tpu", NULL}, {NULL, NULL, NULL, "1X"}, {"unary,", NULL, NULL, NULL}};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(bv_cells_select(&bad[i], &cells, err, sizeof(err)), -1);
	/* a pooling window larger than the (padded) image is refused with the
	 * op and the smallest size it takes; maxpool3x3 (padding 1) takes 1x1 */
	bv_selection tiny = {"pool", NULL, "scalar", "2x2x4,1x1x8"};
	assert_int_equal(bv_cells_select(&tiny, &cells, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "size 1x1x8 leaves avgpool2x2_s2 no output"));
	assert_non_null(strstr(err, "at least 2x2"));
	bv_selection fits = {"pool", "maxpool3x3_s2", "scalar", "2x2x4,1x1x8"};
	assert_int_equal(bv_cells_select(&fits, &cells, err, sizeof(err)), 2);
	free(cells);
	bv_selection two = {"pool", "avgpool2x2_s2", "scalar", "2x2x4"};
	assert_int_equal(bv_cells_select(&two, &cells, err, sizeof(err)), 1);
	free(cells);
}

static void check_catches_a_wrong_element(void **state)
{
	(void)state;
	const bv_bench *u = bv_bench_find("unary");
	const bv_op_def *exp_op = NULL;
	for (size_t i = 0; i < u->nops; i++)
		if (!strcmp(u->ops[i].name, "exp"))
			exp_op = &u->ops[i];
	float x[100], y[100];
	for (int i = 0; i < 100; i++)
		x[i] = bv_input(exp_op, (size_t)i), y[i] = expf(x[i]);
	char why[256];
	assert_true(bv_check(exp_op, x, y, 100, why, sizeof(why)));
	y[57] = nextafterf(nextafterf(y[57], INFINITY), INFINITY) * 1.0001f;
	assert_false(bv_check(exp_op, x, y, 100, why, sizeof(why)));
	assert_non_null(strstr(why, "element 57"));
}

static void inputs_differ_between_ops_sharing_a_letter(void **state)
{
	(void)state;
	bv_op_def a = {.name = "sqrt", .lo = 0.0f, .hi = 1.0f}, b = {.name = "silu", .lo = 0.0f, .hi = 1.0f};
	int same = 0;
	for (size_t i = 0; i < 64; i++) {
		same += bv_input(&a, i) == bv_input(&b, i);
		assert_true(bv_input(&a, i) >= 0.0f && bv_input(&a, i) <= 1.0f);
		assert_true(bv_input(&a, i) == bv_input(&a, i)); /* deterministic */
	}
	assert_true(same < 4);
}

static void shapes_pack_parse_and_select_by_dimensions(void **state)
{
	(void)state;
	char buf[32];
	size_t d[3];
	size_t s2 = bv_size_parse("1024x4096"), s3 = bv_size_parse("128x3072x768");
	assert_string_equal(bv_size_format(s2, buf, sizeof(buf)), "1024x4096");
	assert_string_equal(bv_size_format(s3, buf, sizeof(buf)), "128x3072x768");
	assert_int_equal(bv_size_dims(s3, d), 3);
	assert_int_equal(d[0], 128), assert_int_equal(d[1], 3072), assert_int_equal(d[2], 768);
	assert_int_equal(bv_size_dims(65536, d), 1);
	/* packed sizes stay exact as JSON doubles */
	assert_true((size_t)(double)s3 == s3);
	assert_int_equal(bv_size_parse("70000x2"), 0); /* a dim over 65535 */
	assert_int_equal(bv_size_parse("2x3x4x5"), 0);
	assert_int_equal(bv_size_parse("64Kx"), 0);
	/* a size applies only to the ops of its dimensionality */
	bv_cell *cells;
	char err[128];
	long n = bv_cells_select(&(bv_selection){"softmax,matmul", NULL, "simd", "64x1024,64x64x64,1K"}, &cells,
				 err, sizeof(err));
	assert_int_equal(n, 4); /* softmax x2 and gemv at 64x1024, sgemm at 64x64x64 */
	for (long i = 0; i < n; i++) {
		bv_layout l;
		bv_cell_layout(&cells[i], &l);
		if (!strcmp(cells[i].op->name, "sgemm"))
			assert_true(l.nx == 64 * 64 && l.nx2 == 64 * 64 && l.ny == 64 * 64 && bv_cell_flops(&cells[i]) == 2.0 * 64 * 64 * 64);
		if (!strcmp(cells[i].op->name, "gemv"))
			assert_true(l.nx == 64 * 1024 && l.nx2 == 1024 && l.ny == 64);
	}
	free(cells);
}

static void reference_catches_wrong_reductions_and_matmul(void **state)
{
	(void)state;
	bv_cell *cells;
	char err[128];
	long n = bv_cells_select(&(bv_selection){"reduce,matmul", "sum,argmax,sgemm", "simd", "1K,16x8x4"}, &cells,
				 err, sizeof(err));
	assert_int_equal(n, 3);
	for (long i = 0; i < n; i++) {
		bv_layout l;
		bv_cell_layout(&cells[i], &l);
		float *x = calloc(l.nx, sizeof(float)), *x2 = calloc(l.nx2 + 1, sizeof(float));
		size_t nout = bv_cell_outputs(&cells[i]);
		double *want = calloc(nout, sizeof(double)), *scale = calloc(nout, sizeof(double));
		float *y = calloc(nout, sizeof(float));
		bv_cell_inputs(&cells[i], x, x2);
		bv_reference(&cells[i], x, x2, want, scale);
		for (size_t k = 0; k < nout; k++)
			y[k] = (float)want[k];
		char why[256];
		assert_true(bv_verify(&cells[i], want, scale, y, want[0], why, sizeof(why)));
		if (l.result)
			assert_false(bv_verify(&cells[i], want, scale, y, want[0] + 1.0, why, sizeof(why)));
		else {
			y[nout / 2] += 0.01f;
			assert_false(bv_verify(&cells[i], want, scale, y, 0, why, sizeof(why)));
			assert_non_null(strstr(why, "sgemm"));
		}
		free(x), free(x2), free(want), free(scale), free(y);
	}
	free(cells);
}

/* The norm group (kernels 0.8.0): its layout (gain, and layernorm's bias,
 * after x), work model, inputs and reference.  A y that is right passes; one
 * that left out the bias, or normalised with the variance of sum(x^2) alone,
 * does not. */
static void norm_cells_layout_reference_and_check(void **state)
{
	(void)state;
	bv_cell *cells;
	char err[128], why[256];
	long n = bv_cells_select(&(bv_selection){"norm", "layernorm,rmsnorm", "simd", "16x33,1K"}, &cells, err,
				 sizeof(err));
	assert_int_equal(n, 2); /* layernorm and rmsnorm at 16x33; 1K is not a shape */
	for (long i = 0; i < n; i++) {
		int rms = !strcmp(cells[i].op->name, "rmsnorm");
		bv_layout l;
		bv_cell_layout(&cells[i], &l);
		assert_true(l.m == 16 && l.n == 33 && l.nx == 16 * 33 && l.ny == 16 * 33);
		assert_int_equal(l.nx2, rms ? 33 : 66);
		assert_true(bv_cell_bytes(&cells[i]) == 4.0 * (2 * 16 * 33 + l.nx2));
		assert_true(bv_cell_flops(&cells[i]) == (rms ? 4.0 : 8.0) * 16 * 33);
		float *x = calloc(l.nx, sizeof(float)), *x2 = calloc(l.nx2, sizeof(float)), *y = calloc(l.ny, sizeof(float));
		double *want = calloc(l.ny, sizeof(double)), *scale = calloc(l.ny, sizeof(double));
		bv_cell_inputs(&cells[i], x, x2);
		for (size_t j = 0; j < l.nx2; j++) /* gains in [0.5, 1.5], biases in [-1, 1] */
			assert_true(j < 33 ? x2[j] >= 0.5f && x2[j] <= 1.5f : x2[j] >= -1.0f && x2[j] <= 1.0f);
		bv_reference(&cells[i], x, x2, want, scale);
		/* the same normalisation computed here, in float with double sums */
		for (size_t r = 0; r < 16; r++) {
			double mean = 0, q = 0;
			for (size_t j = 0; j < 33 && !rms; j++)
				mean += x[r * 33 + j] / 33.0;
			for (size_t j = 0; j < 33; j++)
				q += (x[r * 33 + j] - mean) * (x[r * 33 + j] - mean);
			double rstd = 1 / sqrt(q / 33 + 1e-5);
			for (size_t j = 0; j < 33; j++)
				y[r * 33 + j] = (float)((x[r * 33 + j] - mean) * rstd * x2[j] + (rms ? 0 : x2[33 + j]));
		}
		assert_true(bv_verify(&cells[i], want, scale, y, 0, why, sizeof(why)));
		if (!rms) {
			y[40] -= x2[33 + 40 % 33]; /* the bias left out of one element */
			assert_false(bv_verify(&cells[i], want, scale, y, 0, why, sizeof(why)));
			assert_non_null(strstr(why, "layernorm: element 40"));
		} else {
			y[5] *= 1.001f; /* 0.1 % off: far beyond 8 eps */
			assert_false(bv_verify(&cells[i], want, scale, y, 0, why, sizeof(why)));
		}
		free(x), free(x2), free(y), free(want), free(scale);
	}
	free(cells);
}

/* The memory group (kernels 0.9.0): layouts and work model (bytes moved;
 * scatter_add reads y and writes it back), the indices a permutation, exact
 * references; a right y passes, one element off by 1 ulp does not. */
static void memory_cells_layout_reference_and_check(void **state)
{
	(void)state;
	bv_cell *cells;
	char err[128], why[256];
	long n = bv_cells_select(&(bv_selection){"memory", "copy,transpose,gather,scatter_add", "simd", "1K,16x33"},
				 &cells, err, sizeof(err));
	assert_int_equal(n, 4); /* copy, gather, scatter_add at 1K; transpose at 16x33 */
	for (long c = 0; c < n; c++) {
		const char *name = cells[c].op->name;
		bv_layout l;
		bv_cell_layout(&cells[c], &l);
		int tr = !strcmp(name, "transpose"), ga = !strcmp(name, "gather"), sc = !strcmp(name, "scatter_add");
		size_t e = tr ? 16 * 33 : 1024;
		assert_true(bv_cell_bytes(&cells[c]) == 4.0 * (double)e * (sc ? 4 : ga ? 3 : 2));
		assert_true(bv_cell_flops(&cells[c]) == (sc ? (double)e : 0.0));
		assert_int_equal(cells[c].op->max_ulp, 0);
		float *x = calloc(l.nx, sizeof(float)), *x2 = calloc(l.nx2 ? l.nx2 : 1, sizeof(float));
		float *y = calloc(e, sizeof(float));
		double *want = calloc(e, sizeof(double)), *scale = calloc(e, sizeof(double));
		bv_cell_inputs(&cells[c], x, x2);
		if (ga || sc) { /* a permutation of [0, n) */
			const float *ib = ga ? x2 : x + e;
			char *seen = calloc(e, 1);
			for (size_t i = 0; i < e; i++) {
				int32_t v;
				memcpy(&v, ib + i, 4);
				assert_true(v >= 0 && (size_t)v < e && !seen[v]);
				seen[v] = 1;
			}
			free(seen);
		}
		bv_reference(&cells[c], x, x2, want, scale);
		/* the op done here, the plain way */
		for (size_t i = 0; i < e; i++) {
			int32_t v = 0;
			if (ga || sc)
				memcpy(&v, (ga ? x2 : x + e) + i, 4);
			if (tr)
				y[(i % 33) * 16 + i / 33] = x[i];
			else if (ga)
				y[i] = x[v];
			else if (sc)
				y[v] = x2[v] + x[i];
			else
				y[i] = x[i];
		}
		assert_true(bv_verify(&cells[c], want, scale, y, 0, why, sizeof(why)));
		y[7] = nextafterf(y[7], INFINITY);
		assert_false(bv_verify(&cells[c], want, scale, y, 0, why, sizeof(why)));
		assert_non_null(strstr(why, "element 7"));
		free(x), free(x2), free(y), free(want), free(scale);
	}
	free(cells);
}

/* The quant group (kernels 0.11.0): layouts in floats holding the int8 /
 * int32 / 16-bit payloads, the work model (payload bytes, ops per element
 * or 2 M N K), inputs (scales from the range, payloads over all their
 * values), references checked against the op done here the plain way
 * (lrintf, int64 sums, GCC's _Float16), and the bit-for-bit check: a
 * right y passes, one bit off does not, and the unused bytes of the last
 * float of an odd-length payload do not count. */
static uint32_t bits_of(float f)
{
	uint32_t u;
	memcpy(&u, &f, 4);
	return u;
}
static float float_of(uint32_t u)
{
	float f;
	memcpy(&f, &u, 4);
	return f;
}
static int8_t plain_q8(float x, float s)
{
	float v = x / s;
	return isnan(v) ? 0 : v > 127.0f ? 127 : v < -127.0f ? -127 : (int8_t)lrintf(v);
}

static void quant_cells_layout_reference_and_check(void **state)
{
	(void)state;
	bv_cell *cells;
	char err[128], why[256];
	long n = bv_cells_select(&(bv_selection){"quant", NULL, "simd", "1001,16x33,8x9x13"}, &cells, err, sizeof(err));
	assert_int_equal(n, 10); /* 6 elementwise at 1001, 2 per row at 16x33, 2 gemms at 8x9x13 */
	int seen_bits = 0;
	for (long c = 0; c < n; c++) {
		const char *name = cells[c].op->name;
		bv_layout l;
		bv_cell_layout(&cells[c], &l);
		int pc = strstr(name, "_pc") != NULL, gemm = strstr(name, "gemm") != NULL;
		int q = !strncmp(name, "quantize", 8), dq = !strncmp(name, "dequantize", 10), bf = strstr(name, "bf16") != NULL;
		int to = !strncmp(name, "to_", 3), from = !strncmp(name, "from_", 5);
		size_t e = pc ? 16 * 33 : 1001;
		if (gemm) {
			assert_true(l.m == 8 && l.n == 9 && l.k == 13 && l.ny == 72);
			size_t per = bf ? 2 : 4; /* payload elements per float */
			assert_true(l.nx == (8 * 13 + per - 1) / per && l.nx2 == (13 * 9 + per - 1) / per);
			assert_true(bv_cell_flops(&cells[c]) == 2.0 * 8 * 9 * 13);
		} else {
			assert_true(l.m * l.n == e);
			if (q)
				assert_true(l.nx == e && l.ny == (e + 3) / 4 && l.nx2 == (pc ? 16 : 1));
			if (dq)
				assert_true(l.nx == (e + 3) / 4 && l.ny == e && l.nx2 == (pc ? 16 : 1));
			if (to)
				assert_true(l.nx == e && l.ny == (e + 1) / 2 && l.nx2 == 0);
			if (from)
				assert_true(l.nx == (e + 1) / 2 && l.ny == e && l.nx2 == 0);
			assert_true(bv_cell_flops(&cells[c]) == cells[c].op->flops * (double)e);
		}
		assert_true(bv_cell_bytes(&cells[c]) == 4.0 * (double)(l.nx + l.nx2 + l.ny));
		assert_int_equal(cells[c].op->max_ulp, 0);
		assert_true(cells[c].op->tol == (!strcmp(name, "bf16gemm") ? 0.5 : 0.0));
		float *x = calloc(l.nx, 4), *x2 = calloc(l.nx2 ? l.nx2 : 1, 4), *y = calloc(l.ny, 4);
		double *want = calloc(l.ny, sizeof(double)), *scale = calloc(l.ny, sizeof(double));
		bv_cell_inputs(&cells[c], x, x2);
		bv_reference(&cells[c], x, x2, want, scale);
		const int8_t *xi = (const int8_t *)x, *x2i = (const int8_t *)x2;
		const uint16_t *xh = (const uint16_t *)x, *x2h = (const uint16_t *)x2;
		if (q || dq) { /* scales: 10 / 127 for the tensor, within [0.5, 1.5] of it per row */
			for (size_t r = 0; r < l.nx2; r++)
				assert_true(pc ? x2[r] >= 0.5f * 10 / 127 && x2[r] <= 1.5f * 10 / 127 : x2[r] == 10.0f / 127);
		}
		if (dq || (gemm && !bf)) { /* int8 payloads over (nearly) all 256 values */
			int hit[256] = {0}, kinds = 0;
			for (size_t i = 0; i < (dq ? e : 8 * 13); i++)
				kinds += !hit[(uint8_t)xi[i]]++;
			if (kinds < (dq ? 200 : 60)) /* 1001 draws: ~250 values; 104: ~85 */
				fail_msg("%s: %d int8 values of 256", name, kinds);
		}
		/* the op, the plain way, into y */
		memset(y, 0xff, l.ny * 4); /* the runner's poison: unused bytes stay so */
		if (q)
			for (size_t i = 0; i < e; i++)
				((int8_t *)y)[i] = plain_q8(x[i], x2[pc ? i / 33 : 0]);
		if (dq)
			for (size_t i = 0; i < e; i++)
				y[i] = (float)xi[i] * x2[pc ? i / 33 : 0];
		if (to)
			for (size_t i = 0; i < e; i++) {
				uint16_t h;
				if (bf) {
					uint32_t u = bits_of(x[i]);
					h = (uint16_t)((u + 0x7fff + ((u >> 16) & 1)) >> 16);
				} else {
					_Float16 f = (_Float16)x[i];
					memcpy(&h, &f, 2);
				}
				((uint16_t *)y)[i] = h;
			}
		if (from)
			for (size_t i = 0; i < e; i++) {
				_Float16 f;
				memcpy(&f, &xh[i], 2);
				y[i] = bf ? float_of((uint32_t)xh[i] << 16) : (float)f;
				assert_true(isfinite(y[i])); /* the inputs are finite patterns */
			}
		if (gemm)
			for (size_t i = 0; i < 8; i++)
				for (size_t j = 0; j < 9; j++) {
					int64_t si = 0;
					double sd = 0;
					/* each payload read as its own type only: an int8
					 * payload is half the bytes of a bf16 one */
					for (size_t k = 0; k < 13; k++) {
						if (bf)
							sd += (double)float_of((uint32_t)xh[i * 13 + k] << 16) *
							      float_of((uint32_t)x2h[k * 9 + j] << 16);
						else
							si += (int64_t)xi[i * 13 + k] * x2i[k * 9 + j];
					}
					if (bf)
						y[i * 9 + j] = (float)sd;
					else
						((int32_t *)y)[i * 9 + j] = (int32_t)si;
				}
		if (!bv_verify(&cells[c], want, scale, y, 0, why, sizeof(why)))
			fail_msg("%s: %s", name, why);
		if (!strcmp(name, "bf16gemm")) {
			/* a last-bit difference is within the bound (the sums' order
			 * is the backend's); 0.1 % off is not */
			y[8] = nextafterf(y[8], INFINITY);
			assert_true(bv_verify(&cells[c], want, scale, y, 0, why, sizeof(why)));
			y[7] *= 1.001f;
			assert_false(bv_verify(&cells[c], want, scale, y, 0, why, sizeof(why)));
			assert_non_null(strstr(why, "element 7"));
		} else {
			/* one bit off in element 7 (the low byte: an int8, a 16-bit
			 * value's last bit, a float's last bit) */
			y[7] = float_of(bits_of(y[7]) ^ 1u);
			assert_false(bv_verify(&cells[c], want, scale, y, 0, why, sizeof(why)));
			assert_non_null(strstr(why, "element 7"));
			if (q || to || gemm) {
				assert_non_null(strstr(why, "bit for bit"));
				seen_bits++;
			}
		}
		free(x), free(x2), free(y), free(want), free(scale);
	}
	assert_int_equal(seen_bits, 5); /* quantize, quantize_pc, qgemm, to_bf16, to_f16 */
	free(cells);
}

/* The conv and pool groups: one image H x W x C, the op's
 * window (ops.def); layouts and work model (the convolution's own flops),
 * references against the plain loops here, in float; a right y passes, one
 * element off by more than the bound does not (max: by 1 ulp). */
static void conv_cells_layout_reference_and_check(void **state)
{
	(void)state;
	bv_cell *cells;
	char err[128], why[256];
	long n = bv_cells_select(&(bv_selection){"conv,pool", NULL, "simd", "9x8x3"}, &cells, err, sizeof(err));
	assert_int_equal(n, 7); /* conv3x3, conv3x3_s2, conv1x1, conv3x3_nhwc, dwconv3x3, maxpool, avgpool */
	const size_t H = 9, W = 8, C = 3;
	for (long ci = 0; ci < n; ci++) {
		const bv_op_def *op = cells[ci].op;
		bv_layout l;
		bv_cell_layout(&cells[ci], &l);
		size_t win = op->conv.win, st = op->conv.stride, pad = (win - 1) / 2, K = op->conv.kmul * C;
		size_t oh = (H + 2 * pad - win) / st + 1, ow = (W + 2 * pad - win) / st + 1;
		int conv = op->kind == BV_K_CONV, dw = op->kind == BV_K_DWCONV, mx = op->kind == BV_K_MAXPOOL;
		int nhwc = op->conv.nhwc;
		/* the names say the window */
		assert_true(strstr(op->name, win == 3 ? "3x3" : win == 1 ? "1x1" : "2x2") != NULL);
		assert_int_equal(!!strstr(op->name, "_s2"), st == 2);
		assert_int_equal(l.nx, H * W * C);
		assert_int_equal(l.ny, K * oh * ow);
		assert_int_equal(l.nx2, conv ? K * C * win * win : dw ? C * win * win : 0);
		double taps = (double)(K * oh * ow) * (double)(win * win) * (conv ? (double)C : 1.0);
		assert_true(bv_cell_flops(&cells[ci]) == (conv || dw ? 2 * taps : taps));
		float *x = calloc(l.nx, sizeof(float)), *x2 = calloc(l.nx2 ? l.nx2 : 1, sizeof(float));
		float *y = calloc(l.ny, sizeof(float));
		double *want = calloc(l.ny, sizeof(double)), *scale = calloc(l.ny, sizeof(double));
		bv_cell_inputs(&cells[ci], x, x2);
		bv_reference(&cells[ci], x, x2, want, scale);
		/* the op done here, the plain way */
		for (size_t k = 0; k < K; k++)
			for (size_t oy = 0; oy < oh; oy++)
				for (size_t ox = 0; ox < ow; ox++) {
					float acc = 0, m = -INFINITY;
					int cnt = 0;
					for (size_t c = 0; c < C; c++) {
						if (!conv && c != k)
							continue;
						for (size_t r = 0; r < win; r++)
							for (size_t s = 0; s < win; s++) {
								long iy = (long)(oy * st + r) - (long)pad, ix = (long)(ox * st + s) - (long)pad;
								if (iy < 0 || ix < 0 || iy >= (long)H || ix >= (long)W)
									continue;
								float v = x[nhwc ? ((size_t)iy * W + (size_t)ix) * C + c
										 : (c * H + (size_t)iy) * W + (size_t)ix];
								float w = conv ? x2[nhwc ? ((r * win + s) * C + c) * K + k
											 : ((k * C + c) * win + r) * win + s]
									  : dw ? x2[(c * win + r) * win + s] : 1.0f;
								acc += w * v, cnt++;
								m = v > m ? v : m;
							}
					}
					size_t o = nhwc ? (oy * ow + ox) * K + k : (k * oh + oy) * ow + ox;
					y[o] = mx ? m : op->kind == BV_K_AVGPOOL ? acc / (float)cnt : acc;
				}
		if (!bv_verify(&cells[ci], want, scale, y, 0, why, sizeof(why)))
			fail_msg("%s: %s", op->name, why);
		if (mx)
			y[7] = nextafterf(y[7], INFINITY);
		else
			y[7] += 0.01f * (fabsf(y[7]) + 1.0f);
		assert_false(bv_verify(&cells[ci], want, scale, y, 0, why, sizeof(why)));
		assert_non_null(strstr(why, "element 7"));
		/* and a wrong layout (NCHW read as NHWC) is caught too */
		if (conv && nhwc) {
			bv_cell other = cells[0]; /* conv3x3, NCHW */
			assert_false(bv_verify(&other, want, scale, y, 0, why, sizeof(why)));
		}
		free(x), free(x2), free(y), free(want), free(scale);
	}
	/* the group's default sizes are the networks' layers, 3 dims each */
	free(cells);
	n = bv_cells_select(&(bv_selection){"conv", "conv3x3", "simd", NULL}, &cells, err, sizeof(err));
	assert_int_equal(n, 3);
	assert_true(cells[0].size == bv_size_parse("56x56x64"));
	free(cells);
}

/* batchnorm in the norm group : C x HW with the statistics
 * per row in x2 (mean, var, gain, bias), bytes and 2 flops an element.  The
 * op computed here the way the kernels fuse it (y = x s + t, s and t per
 * channel in double, one float fma) passes; a y normalised with the
 * standard deviation instead of the variance (sqrt left out), one that left
 * the bias out, or one that used the statistics of the wrong channel, fails. */
static void batchnorm_cell_layout_reference_and_check(void **state)
{
	(void)state;
	bv_cell *cells;
	char err[128], why[256];
	long n = bv_cells_select(&(bv_selection){"norm", "batchnorm", NULL, "16x33,1K"}, &cells, err, sizeof(err));
	assert_int_equal(n, 3); /* scalar, simd, cuda at 16x33; 1K is not a shape */
	const bv_cell *c = &cells[0];
	assert_int_equal(c->op->kind, BV_K_BATCHNORM);
	bv_layout l;
	bv_cell_layout(c, &l);
	assert_true(l.m == 16 && l.n == 33 && l.nx == 16 * 33 && l.ny == 16 * 33 && l.nx2 == 4 * 16);
	assert_true(bv_cell_bytes(c) == 4.0 * (2 * 16 * 33 + 4 * 16));
	assert_true(bv_cell_flops(c) == 2.0 * 16 * 33);
	float *x = calloc(l.nx, sizeof(float)), *x2 = calloc(l.nx2, sizeof(float)), *y = calloc(l.ny, sizeof(float));
	double *want = calloc(l.ny, sizeof(double)), *scale = calloc(l.ny, sizeof(double));
	bv_cell_inputs(c, x, x2);
	const float *mu = x2, *var = x2 + 16, *g = x2 + 32, *b = x2 + 48;
	for (size_t r = 0; r < 16; r++) /* trained statistics' ranges */
		assert_true(mu[r] >= -1 && mu[r] <= 1 && var[r] >= 0.25f && var[r] <= 4 && g[r] >= 0.5f && g[r] <= 1.5f &&
			    b[r] >= -1 && b[r] <= 1);
	bv_reference(c, x, x2, want, scale);
	for (int bad = 0; bad < 4; bad++) {
		for (size_t r = 0; r < 16; r++) {
			size_t rr = bad == 3 && r == 5 ? 6 : r; /* 3: row 5 with row 6's statistics */
			double sd = bad == 1 ? (double)var[rr] + 1e-5 : sqrt((double)var[rr] + 1e-5);
			double s = g[rr] / sd, t = (bad == 2 ? 0.0 : b[rr]) - mu[rr] * s;
			for (size_t j = 0; j < 33; j++)
				y[r * 33 + j] = fmaf(x[r * 33 + j], (float)s, (float)t);
		}
		int ok = bv_verify(c, want, scale, y, 0, why, sizeof(why));
		if (bad == 0)
			assert_true(ok);
		else {
			assert_false(ok);
			assert_non_null(strstr(why, "batchnorm: element"));
		}
	}
	free(x), free(x2), free(y), free(want), free(scale), free(cells);
}

/* concat in the memory group: rows x cols made of three inputs
 * back to back in x (cols/2, cols/4, the rest: 16, 8, 9 of 33), bytes moved
 * and no flops, exact.  The join done here passes; the inputs joined in
 * another order, or one element 1 ulp off, do not. */
static void concat_cell_layout_reference_and_check(void **state)
{
	(void)state;
	bv_cell *cells;
	char err[128], why[256];
	long n = bv_cells_select(&(bv_selection){"memory", "concat", "blas", "1K,16x33"}, &cells, err, sizeof(err));
	assert_int_equal(n, 1); /* 16x33 only: concat takes shapes */
	const bv_cell *c = &cells[0];
	bv_layout l;
	bv_cell_layout(c, &l);
	assert_true(l.m == 16 && l.n == 33 && l.nx == 16 * 33 && l.ny == 16 * 33 && l.nx2 == 0);
	assert_true(bv_cell_bytes(c) == 4.0 * 2 * 16 * 33);
	assert_true(bv_cell_flops(c) == 0.0);
	assert_int_equal(c->op->max_ulp, 0);
	size_t w[3];
	bv_concat_widths(33, w);
	assert_true(w[0] == 16 && w[1] == 8 && w[2] == 9);
	float *x = calloc(l.nx, sizeof(float)), *y = calloc(l.ny, sizeof(float));
	double *want = calloc(l.ny, sizeof(double)), *scale = calloc(l.ny, sizeof(double));
	bv_cell_inputs(c, x, NULL);
	bv_reference(c, x, NULL, want, scale);
	for (int order = 0; order < 2; order++) {
		/* order 1: the second and third inputs swapped */
		const float *part[3] = {x, x + 16 * w[0], x + 16 * (w[0] + w[1])};
		size_t pick[3] = {0, order ? 2 : 1, order ? 1 : 2};
		for (size_t r = 0, o = 0; r < 16; r++)
			for (int p = 0; p < 3; p++)
				for (size_t j = 0; j < w[pick[p]]; j++)
					y[o++] = part[pick[p]][r * w[pick[p]] + j];
		if (!order)
			assert_true(bv_verify(c, want, scale, y, 0, why, sizeof(why)));
		else
			assert_false(bv_verify(c, want, scale, y, 0, why, sizeof(why)));
	}
	for (size_t r = 0, o = 0; r < 16; r++)
		for (int p = 0; p < 3; p++)
			for (size_t j = 0; j < w[p]; j++)
				y[o++] = (x + 16 * (p == 0 ? 0 : p == 1 ? w[0] : w[0] + w[1]))[r * w[p] + j];
	assert_true(bv_verify(c, want, scale, y, 0, why, sizeof(why)));
	y[40] = nextafterf(y[40], INFINITY);
	assert_false(bv_verify(c, want, scale, y, 0, why, sizeof(why)));
	assert_non_null(strstr(why, "concat: element 40"));
	free(x), free(y), free(want), free(scale), free(cells);
}

/* ---- the model group ----------------------------------------------------
 * A float forward pass of its layers, composed as plugin.c composes them
 * (float sums, bias first), with one bug to inject at a time: the reference
 * and its error bound must pass the right layer and fail each wrong one. */
enum { BUG_NONE, BUG_NO_BIAS, BUG_SCALE, BUG_NO_RESIDUAL, BUG_HEADS, BUG_COUNT };

static void f_linear(const float *x, size_t rows, size_t in, const float *w, const float *b, size_t out, float *y)
{
	for (size_t i = 0; i < rows; i++) {
		for (size_t j = 0; j < out; j++)
			y[i * out + j] = b ? b[j] : 0.0f;
		for (size_t k = 0; k < in; k++)
			for (size_t j = 0; j < out; j++)
				y[i * out + j] += x[i * in + k] * w[k * out + j];
	}
}

static void f_layernorm(const float *a, const float *g, const float *be, size_t rows, size_t cols, float *y)
{
	for (size_t r = 0; r < rows; r++) {
		float mean = 0, q = 0;
		for (size_t j = 0; j < cols; j++)
			mean += a[r * cols + j];
		mean /= (float)cols;
		for (size_t j = 0; j < cols; j++)
			q += (a[r * cols + j] - mean) * (a[r * cols + j] - mean);
		float rstd = 1.0f / sqrtf(q / (float)cols + BV_NORM_EPS);
		for (size_t j = 0; j < cols; j++)
			y[r * cols + j] = (a[r * cols + j] - mean) * rstd * g[j] + be[j];
	}
}

static void f_mlp(const bv_model_weights *w, const float *x, const float *wt, size_t t, size_t d, float *out, int bug)
{
	size_t f = BV_MODEL_FF * d;
	float *h = malloc(t * f * sizeof(float));
	f_linear(x, t, d, wt + w->w1, wt + w->c1, f, h);
	for (size_t i = 0; i < t * f; i++) {
		float u = 0.7978845608f * (h[i] + 0.044715f * h[i] * h[i] * h[i]);
		h[i] = h[i] / (1.0f + expf(-2.0f * u));
	}
	f_linear(h, t, f, wt + w->w2, bug == BUG_NO_BIAS ? NULL : wt + w->c2, d, out);
	for (size_t i = 0; i < t * d && bug != BUG_NO_RESIDUAL; i++)
		out[i] += x[i];
	free(h);
}

static void f_encoder(const bv_model_weights *w, const float *x, const float *wt, size_t seq, size_t d,
		      size_t batch, float *y, int bug)
{
	size_t t = seq * batch, ld = 3 * d;
	size_t heads = bug == BUG_HEADS ? 1 : w->heads, dh = d / heads;
	float alpha = bug == BUG_SCALE ? 1.0f / sqrtf((float)d) : bv_model_alpha(dh);
	float *qkv = malloc(t * ld * sizeof(float)), *ctx = malloc(t * d * sizeof(float));
	float *a = malloc(t * d * sizeof(float)), *x1 = malloc(t * d * sizeof(float)), *p = malloc(seq * sizeof(float));
	f_linear(x, t, d, wt + w->wqkv, wt + w->bqkv, ld, qkv);
	for (size_t b = 0; b < batch; b++)
		for (size_t h = 0; h < heads; h++)
			for (size_t i = 0; i < seq; i++) {
				float mx = -INFINITY, sum = 0;
				for (size_t j = 0; j < seq; j++) {
					float s = 0;
					for (size_t c = 0; c < dh; c++)
						s += qkv[(b * seq + i) * ld + h * dh + c] * qkv[(b * seq + j) * ld + d + h * dh + c];
					p[j] = alpha * s, mx = p[j] > mx ? p[j] : mx;
				}
				for (size_t j = 0; j < seq; j++)
					p[j] = expf(p[j] - mx), sum += p[j];
				for (size_t c = 0; c < dh; c++) {
					float o = 0;
					for (size_t j = 0; j < seq; j++)
						o += p[j] / sum * qkv[(b * seq + j) * ld + 2 * d + h * dh + c];
					ctx[(b * seq + i) * d + h * dh + c] = o;
				}
			}
	f_linear(ctx, t, d, wt + w->wo, bug == BUG_NO_BIAS ? NULL : wt + w->bo, d, a);
	for (size_t i = 0; i < t * d; i++)
		a[i] += x[i];
	f_layernorm(a, wt + w->g1, wt + w->be1, t, d, x1);
	f_mlp(w, x1, wt, t, d, a, bug == BUG_NO_RESIDUAL ? bug : BUG_NONE);
	f_layernorm(a, wt + w->g2, wt + w->be2, t, d, y);
	free(qkv), free(ctx), free(a), free(x1), free(p);
}

static void model_cells_layout_reference_and_check(void **state)
{
	(void)state;
	bv_cell *cells;
	char err[128], why[256];
	/* 2 heads of 64 on 8 tokens x 2 sequences; one odd-width head of 40 */
	long n = bv_cells_select(&(bv_selection){"model", NULL, "simd", "8x128x2,5x40x3,1K,64x64"}, &cells, err,
				 sizeof(err));
	assert_int_equal(n, 4); /* mlp and encoder at both; 1K and 64x64 are not model shapes */
	for (long i = 0; i < n; i++) {
		int enc = !strcmp(cells[i].op->name, "encoder");
		bv_layout l;
		bv_cell_layout(&cells[i], &l);
		size_t seq = l.m, d = l.n, batch = l.k, t = seq * batch, f = 4 * d;
		assert_true((seq == 8 && d == 128 && batch == 2) || (seq == 5 && d == 40 && batch == 3));
		assert_true(l.nx == t * d && l.ny == t * d);
		/* the weights, then max(t, d) ones */
		size_t weights = 2 * d * f + f + d + (enc ? 4 * d * d + 4 * d + 4 * d : 0);
		assert_int_equal(l.nx2, weights + (t > d ? t : d));
		assert_true(l.nwork >= t * f);
		assert_true(bv_cell_bytes(&cells[i]) == 4.0 * (double)(2 * t * d + l.nx2));
		/* the products alone are most of the flops */
		double gemms = 4.0 * t * d * f + (enc ? 2.0 * t * d * 4 * d + 4.0 * t * seq * d : 0);
		assert_true(bv_cell_flops(&cells[i]) > gemms && bv_cell_flops(&cells[i]) < 1.2 * gemms);
		bv_model_weights w;
		bv_model_offsets(enc, seq, d, batch, &w);
		assert_int_equal(w.heads, d == 128 ? 2 : 1);
		float *x = calloc(l.nx, sizeof(float)), *x2 = calloc(l.nx2, sizeof(float)), *y = calloc(l.ny, sizeof(float));
		double *want = calloc(l.ny, sizeof(double)), *scale = calloc(l.ny, sizeof(double));
		bv_cell_inputs(&cells[i], x, x2);
		for (size_t j = w.ones; j < l.nx2; j++)
			assert_true(x2[j] == 1.0f);
		assert_true(fabsf(x2[w.w1]) <= sqrtf(3.0f / (float)d) && x2[w.w1] != 0);
		bv_reference(&cells[i], x, x2, want, scale);
		for (int bug = BUG_NONE; bug < BUG_COUNT; bug++) {
			if (!enc && (bug == BUG_SCALE || bug == BUG_HEADS))
				continue;
			if ((bug == BUG_HEADS || bug == BUG_SCALE) && w.heads == 1)
				continue; /* one head: d_head is d, the same split and scale */
			if (enc)
				f_encoder(&w, x, x2, seq, d, batch, y, bug);
			else
				f_mlp(&w, x, x2, t, d, y, bug);
			int ok = bv_verify(&cells[i], want, scale, y, 0, why, sizeof(why));
			if (ok != (bug == BUG_NONE))
				fail_msg("%s at %zux%zux%zu, bug %d: %s", cells[i].op->name, seq, d, batch, bug,
					 ok ? "passed" : why);
			if (bug == BUG_NONE) {
				/* and the bound is not so loose that anything passes:
				 * the float layer's error is far inside it */
				double worst = 0;
				for (size_t j = 0; j < l.ny; j++)
					worst = fmax(worst, fabs(y[j] - want[j]) / (FLT_EPSILON * scale[j]));
				if (getenv("BV_TEST_VERBOSE"))
					printf("%s %zux%zux%zu: worst error %.3g of the bound\n", cells[i].op->name, seq, d,
					       batch, worst);
				assert_true(worst < 0.05);
			}
		}
		free(x), free(x2), free(y), free(want), free(scale);
	}
	free(cells);
}

/* "Did you mean": a typo (one or two edits, a swap of neighbours being one)
 * finds its name; a word too far from every name, or as far as half of a
 * short one, finds none. */
static void closest_name_is_a_typo_or_nothing(void **state)
{
	(void)state;
	const char *subs[] = {"run", "compare", "list", "compat", "cache", "bisect", "share", "report"};
	size_t n = sizeof(subs) / sizeof(subs[0]);
	assert_int_equal(bv_closest_name("comapre", subs, n), 1); /* a swap */
	assert_int_equal(bv_closest_name("lsit", subs, n), 2);
	assert_int_equal(bv_closest_name("rn", subs, n), 0);     /* a letter left out */
	assert_int_equal(bv_closest_name("caches", subs, n), 4); /* one added */
	assert_int_equal(bv_closest_name("compt", subs, n), 3);  /* compat (1), not compare (2) */
	assert_int_equal(bv_closest_name("main", subs, n), -1);
	assert_int_equal(bv_closest_name("x", subs, n), -1);
	assert_int_equal(bv_closest_name("", subs, n), -1);
	const char *ops[] = {"abs", "neg", "log"};
	assert_int_equal(bv_closest_name("ab", ops, 3), 0);
	assert_int_equal(bv_closest_name("nog", ops, 3), 1); /* neg and log are both 1: the first */
	assert_int_equal(bv_closest_name("xyz", ops, 3), -1);
	char longer[200];
	memset(longer, 'a', sizeof(longer) - 1);
	longer[sizeof(longer) - 1] = '\0';
	assert_int_equal(bv_closest_name(longer, ops, 3), -1); /* past the table: never close */
}

int test_benches(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(sizes_parse_and_format),
		cmocka_unit_test(selection_filters_and_rejects_unknown_names),
		cmocka_unit_test(check_catches_a_wrong_element),
		cmocka_unit_test(inputs_differ_between_ops_sharing_a_letter),
		cmocka_unit_test(shapes_pack_parse_and_select_by_dimensions),
		cmocka_unit_test(reference_catches_wrong_reductions_and_matmul),
		cmocka_unit_test(norm_cells_layout_reference_and_check),
		cmocka_unit_test(model_cells_layout_reference_and_check),
		cmocka_unit_test(memory_cells_layout_reference_and_check),
		cmocka_unit_test(quant_cells_layout_reference_and_check),
		cmocka_unit_test(conv_cells_layout_reference_and_check),
		cmocka_unit_test(batchnorm_cell_layout_reference_and_check),
		cmocka_unit_test(concat_cell_layout_reference_and_check),
		cmocka_unit_test(closest_name_is_a_typo_or_nothing),
	};
	return test_run_group("benches", tests, NULL, NULL);
}
