/*
 * kernels-0.1.h - kernels 0.1.x as the current harness expects to see it.
 *
 * 0.2.0 added the unary ops log .. scale and kn_unary_ex() with parameters.
 * A 0.1.x header has neither, so the harness would not compile.  This shim,
 * force-included before plugin.c, gives the new ops values 0.1.x does not
 * know (it answers KN_EUNSUPPORTED: the cells show n/a for that version) and
 * maps kn_unary_ex() onto kn_unary() (0.1.x has no op that takes parameters).
 *
 * The rule matches on the tree's VERSION file; the header's own version
 * macros decide, so a tree whose VERSION says 0.1.x but whose header is newer
 * (a test fixture, a mislabelled branch) still builds.
 */
#include "kernels.h"

#if KN_VERSION_MAJOR == 0 && KN_VERSION_MINOR < 2

#define KN_LOG ((kn_unary_op)105)
#define KN_SIGMOID ((kn_unary_op)106)
#define KN_TANH ((kn_unary_op)107)
#define KN_GELU ((kn_unary_op)108)
#define KN_SILU ((kn_unary_op)109)
#define KN_CLAMP ((kn_unary_op)110)
#define KN_SCALE ((kn_unary_op)111)

typedef struct kn_unary_params {
	float lo, hi, alpha;
} kn_unary_params;

static inline kn_status kn_unary_ex(kn_backend b, kn_unary_op op, const float *x, float *y, size_t n,
				    const kn_unary_params *p)
{
	(void)p;
	return kn_unary(b, op, x, y, n);
}
#endif
