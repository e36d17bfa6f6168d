/* fuzz_expr.c - the reference expressions of user-defined ops (harness/common/expr.c)
 * and the ops file around them (harness/common/ops_file.c).  Input: an expression,
 * compiled over x and over a, b, evaluated at a few points; and, when it
 * starts with '{', an ops file.  What must hold: an error says where
 * ("at column N", N within the text and one past it) in printable words; a
 * compiled expression evaluates without a sanitizer report. */
#include <stdint.h>
#include <string.h>

#include "expr.h"
#include "fuzz.h"
#include "ops_file.h"

static void compile_over(const char *s, const char *const *vars, int nvars)
{
	char err[512];
	err[0] = '\0';
	bv_expr *e = bv_expr_compile(s, vars, nvars, err, sizeof(err));
	if (!e) {
		int col = 0;
		FUZZ_ASSERT(sscanf(err, "at column %d: ", &col) == 1);
		FUZZ_ASSERT(col >= 1 && (size_t)col <= strnlen(s, BV_EXPR_MAX_LEN + 1) + 1);
		FUZZ_ASSERT(fuzz_printable(err));
		return;
	}
	const double points[][2] = {{0, 0}, {1, -1}, {-3.5, 2.25}, {1e30, -1e-30}};
	for (size_t i = 0; i < sizeof(points) / sizeof(points[0]); i++)
		(void)bv_expr_eval(e, points[i]);
	bv_expr_free(e);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_str(data, size);
	static const char *const x[] = {"x"}, *const ab[] = {"a", "b"};
	compile_over(s, x, 1);
	compile_over(s, ab, 2);
	if (size && s[0] == '{') {
		/* Refused files register nothing and may be tried again; the
		 * first accepted one stays (once per process), later ones are
		 * refused as "loaded already": both must say why. */
		char err[1024];
		err[0] = '\0';
		if (bv_ops_file_parse("fuzz.json", s, size, err, sizeof(err)) != 0)
			FUZZ_ASSERT(err[0] != '\0');
	}
	free(s);
	return 0;
}
