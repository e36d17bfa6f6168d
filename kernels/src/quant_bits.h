/*
 * quant_bits.h - the element formulas of the quant group (0.11.0), one
 * definition for every backend: scalar.c runs them, the simd kernels run
 * them on their tails (so a tail gives the vector body's bits), and cuda.cu
 * runs them on the device.  kernels.h states the rules these implement.
 */
#ifndef KN_QUANT_BITS_H
#define KN_QUANT_BITS_H

#include <stdint.h>
#include <string.h>

#ifdef __CUDACC__
#define KN_HD static __host__ __device__ __forceinline__
#else
#define KN_HD static inline
#endif

KN_HD uint32_t kn_f2u(float f)
{
#ifdef __CUDA_ARCH__
	return __float_as_uint(f);
#else
	uint32_t u;
	memcpy(&u, &f, sizeof(u));
	return u;
#endif
}

KN_HD float kn_u2f(uint32_t u)
{
#ifdef __CUDA_ARCH__
	return __uint_as_float(u);
#else
	float f;
	memcpy(&f, &u, sizeof(f));
	return f;
#endif
}

/* sat(rne(x / s)).  The clamp comes before the rounding, so rounding only
 * ever sees [-127, 127]; a NaN quotient compares false both ways and is
 * sent to 0 first.  The conversion adds 1.5 * 2^23 (rne by the float add
 * itself, whatever the rounding mode of the integer conversion), which the
 * vector paths do in the same order. */
KN_HD int8_t kn_q8(float x, float s)
{
	float v = x / s;
	if (v != v)
		v = 0.0f;
	v = v < -127.0f ? -127.0f : v > 127.0f ? 127.0f : v;
	float r = (v + 12582912.0f) - 12582912.0f;
	return (int8_t)(int)r;
}

/* f32 -> bf16, round to nearest even; a NaN keeps sign and top payload,
 * quiet bit set (a signalling NaN whose payload sits only in the low 16
 * bits would otherwise become Inf). */
KN_HD uint16_t kn_f32_bf16(float f)
{
	uint32_t b = kn_f2u(f);
	if ((b & 0x7fffffffu) > 0x7f800000u)
		return (uint16_t)((b >> 16) | 0x40u);
	return (uint16_t)((b + 0x7fffu + ((b >> 16) & 1u)) >> 16);
}

KN_HD float kn_bf16_f32(uint16_t h) { return kn_u2f((uint32_t)h << 16); }

/* f32 -> f16, round to nearest even, as F16C's vcvtps2ph (imm 0): overflow
 * to Inf from 65520 (the tie between 65504 and 2^16) up, f16 subnormals
 * rounded (not flushed), a NaN quiet with the top 10 payload bits. */
KN_HD uint16_t kn_f32_f16(float f)
{
	uint32_t b = kn_f2u(f), sign = (b >> 16) & 0x8000u, a = b & 0x7fffffffu;
	if (a > 0x7f800000u)
		return (uint16_t)(sign | 0x7e00u | ((a >> 13) & 0x3ffu));
	if (a >= 0x477ff000u)
		return (uint16_t)(sign | 0x7c00u);
	if (a >= 0x38800000u) { /* a normal f16: rebias the exponent by 127 - 15 */
		uint32_t r = a - 0x38000000u;
		return (uint16_t)(sign | ((r + 0xfffu + ((r >> 13) & 1u)) >> 13));
	}
	/* Subnormal (or zero) in f16: the value is m 2^(e - 150), in units of
	 * the f16 subnormal step 2^-24 that is m 2^-(126 - e). */
	uint32_t e = a >> 23, m = (a & 0x7fffffu) | 0x800000u, sh = 126u - e;
	if (e == 0 || sh > 25u) /* below 2^-25 (an f32 subnormal too): rounds to 0 */
		return (uint16_t)sign;
	uint32_t q = m >> sh, rem = m & ((1u << sh) - 1u), half = 1u << (sh - 1u);
	q += rem > half || (rem == half && (q & 1u));
	return (uint16_t)(sign | q); /* q == 0x400 is the smallest normal: right */
}

/* f16 -> f32, exact; a NaN comes back quiet (as vcvtph2ps does). */
KN_HD float kn_f16_f32(uint16_t h)
{
	uint32_t sign = (uint32_t)(h & 0x8000u) << 16, e = (h >> 10) & 0x1fu, m = h & 0x3ffu;
	if (e == 0x1fu)
		return kn_u2f(sign | 0x7f800000u | (m << 13) | (m ? 0x400000u : 0u));
	if (e)
		return kn_u2f(sign | ((e + 112u) << 23) | (m << 13));
	float v = (float)m * 5.9604644775390625e-8f; /* m 2^-24, exact */
	return sign ? -v : v;
}

#endif
