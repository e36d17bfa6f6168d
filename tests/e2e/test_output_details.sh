#!/usr/bin/env bash
# End to end: small things a newcomer meets in the output and the docs
# (issue 15): the docs stand alone, the cache says what its entries are.
source "$(dirname "$0")/lib.sh"

# The docs are read on a fresh clone, where nothing outside the repository
# exists: no citation of a path above it (`../shared/...`).
check "README and docs cite no file outside the repository" \
	bash -c "! grep -rnE '\.\./shared/|\(\.\./\.\./' '$ROOT/README.md' '$ROOT/docs'"

finish
