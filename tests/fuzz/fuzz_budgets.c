/* fuzz_budgets.c - the report's budgets JSON (budgets.c): parsed and
 * validated, then asked for the budget of a few cells.  What must hold for
 * any file it accepts: every budget is a finite, non-negative fraction, and
 * a rule that decided a cell matches that cell. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "budgets.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_str(data, size);
	bv_budgets b;
	memset(&b, 0, sizeof(b));
	int rc = bv_budgets_parse("budgets.json", s, size, 0.05, &b);
	FUZZ_ERROR_SAYS_WHY(rc);
	if (rc == 0) {
		static const struct {
			const char *bench, *op, *backend;
			size_t size;
		} cells[] = {
			{"unary", "relu", "scalar", 65536},     {"reduce", "argmax", "simd", 1 << 20},
			{"matmul", "sgemm", "blas", 1 << 20},   {"softmax", "softmax", "cuda", 4 << 20},
			{"binary", "add", "simd", 1024},
		};
		FUZZ_ASSERT(isfinite(b.default_slowdown) && b.default_slowdown >= 0);
		for (size_t i = 0; i < sizeof(cells) / sizeof(*cells); i++) {
			const bv_budget_rule *rule = NULL;
			double v = bv_budget_for(&b, cells[i].bench, cells[i].op, cells[i].backend, cells[i].size, &rule);
			FUZZ_ASSERT(isfinite(v) && v >= 0);
			if (rule) {
				FUZZ_ASSERT(v == rule->slowdown);
				FUZZ_ASSERT(!rule->bench || !strcmp(rule->bench, cells[i].bench));
				FUZZ_ASSERT(!rule->op || !strcmp(rule->op, cells[i].op));
				FUZZ_ASSERT(!rule->backend || !strcmp(rule->backend, cells[i].backend));
				FUZZ_ASSERT(!rule->size || rule->size == cells[i].size);
			} else {
				FUZZ_ASSERT(v == b.default_slowdown);
			}
		}
		bv_budgets_free(&b);
	}
	free(s);
	return 0;
}
