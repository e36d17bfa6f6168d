/*
 * scalar.c - the portable reference backend: plain C loops and libm.
 *
 * It is the baseline every other backend is checked and measured against, so
 * it favours obvious correctness over speed.
 */
#include "internal.h"

#include <math.h>

kn_status kn_scalar_unary(kn_unary_op op, const float *x, float *y, size_t n)
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
			y[i] = x[i] > 0.0f ? x[i] : 0.0f;
		break;
	default:
		return kn_fail(KN_EUNSUPPORTED, "scalar: unary op %d", (int)op);
	}
	return KN_OK;
}
