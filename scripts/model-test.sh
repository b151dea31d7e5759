#!/usr/bin/env bash
# The model-based verdict test (a2a-cli/tests/verdicts_by_model.rs) over many more truths than CI
# runs: each truth is generated, served by the testkit and judged by the audit, run_task and the
# typed settles, each held to the verdict the rules give it and to the other two.
#
#   scripts/model-test.sh                          # 20,000 truths (625 cases of 32), debug build
#   A2A_MODEL_TRUTHS=2000 scripts/model-test.sh    # fewer
#   PROFILE=release scripts/model-test.sh          # a faster build of the same test
#   PROPTEST_RNG_SEED=42 scripts/model-test.sh     # replay one run's truths
#   A2A_MODEL_SURVEY=1 scripts/model-test.sh       # list every disagreement instead of shrinking the first
#
# A failing case shrinks and prints the smallest truth with each path's reading.
set -euo pipefail
cd "$(dirname "$0")/.."
truths="${A2A_MODEL_TRUTHS:-20000}"
per_case="${A2A_MODEL_TRUTHS_PER_CASE:-32}"
export A2A_MODEL_TRUTHS_PER_CASE="$per_case"
export A2A_MODEL_CASES="$(((truths + per_case - 1) / per_case))"
profile="${PROFILE:-dev}"
echo "model test: $A2A_MODEL_CASES cases of $per_case truths ($profile build)"
exec cargo test --profile "$profile" -p a2a-typestate-cli --test verdicts_by_model -- --nocapture
