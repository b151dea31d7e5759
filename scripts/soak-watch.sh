#!/usr/bin/env bash
# Soak of `a2a watch` (not CI): the built binary watching 50 scripted agents on loopback for an hour
# (two of them flipping between an honest and a lying deployment every five minutes), its resident
# memory and open file descriptors sampled from /proc every 30 s, then checked for growth.
# Figures go in RELIABILITY.md ("a2a watch over a long run").
#
#   scripts/soak-watch.sh                      # release build, 3600 s
#   A2A_SOAK_SECS=600 PROFILE=dev scripts/soak-watch.sh
#
# Writes the samples to target/soak-watch.csv (A2A_SOAK_OUT to change) and prints a summary line.
set -euo pipefail
cd "$(dirname "$0")/.."
profile="${PROFILE:-release}"
export A2A_SOAK_SECS="${A2A_SOAK_SECS:-3600}"
export A2A_SOAK_OUT="${A2A_SOAK_OUT:-$PWD/target/soak-watch.csv}"
mkdir -p "$(dirname "$A2A_SOAK_OUT")"
args=(--profile "$profile")
exec cargo test "${args[@]}" -p a2a-typestate-cli --test watch_soak -- --ignored --nocapture
