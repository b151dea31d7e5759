#!/usr/bin/env bash
# Runs the Rust interop suite over the whole corpus: every framework agent of agents.tsv, each claim
# of its card audited by `a2a audit` and compared with the truth the test observes by raw HTTP
# (a2a-cli/tests/interop_frameworks.rs). CI runs only the cheapest installs (CI=true); this runs all:
#   scripts/frameworks/interop.sh [--include-ignored | TEST_NAME_FILTER...]
# Installs every framework first (pinned, idempotent; a failure shows here on its own, before any
# test), then runs the suite with A2A_FRAMEWORKS=all, under which a framework that cannot be
# installed fails its tests. `--include-ignored` also runs the tests marked with the audit's known
# disagreements, to see which still disagree. Logs and each audit's JSON: target/frameworks/logs/.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
cd "$root"
bash "$here/install.sh" all
A2A_FRAMEWORKS=all exec cargo test -p a2a-typestate-cli --test interop_frameworks -- "$@"
