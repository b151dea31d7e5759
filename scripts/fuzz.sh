#!/usr/bin/env bash
# Runs the cargo-fuzz targets in fuzz/ one after another, each for SECONDS (default 60), on one core at
# the lowest priority. Needs a nightly toolchain and cargo-fuzz (`cargo install cargo-fuzz`).
#
#   scripts/fuzz.sh [SECONDS] [TARGET...]
#
# Each target's corpus (fuzz/corpus/TARGET, not committed) is seeded from the recorded fixtures in
# a2a-types/tests/fixtures/ on every run, so a fresh clone starts from real documents. A crash stops the
# script with libFuzzer's exit status; the input is left in fuzz/artifacts/TARGET/. The last line of
# each target's log (target/fuzz-logs/TARGET.log) says how many inputs ran in how many seconds.
set -euo pipefail
cd "$(dirname "$0")/.."
root="$PWD"
seconds="${1:-60}"
shift || true
all=(card_v1 card_v03 read_any_card jsonrpc stream_response convert_v03_v1 sse_chunking webhook_request)
if (($# > 0)); then targets=("$@"); else targets=("${all[@]}"); fi
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$root/target}"
fixtures="$root/a2a-types/tests/fixtures"
logs="$CARGO_TARGET_DIR/fuzz-logs"
mkdir -p "$logs"

seed() {
    local target="$1" dir="$root/fuzz/corpus/$1"
    mkdir -p "$dir"
    local f name
    case "$target" in
        card_v1 | card_v03 | read_any_card | convert_v03_v1)
            for f in "$fixtures"/agent-card/*.json "$fixtures"/v03-*/*.json "$fixtures"/stream-response/*.json; do
                [[ -e "$f" ]] && cp "$f" "$dir/seed-$(basename "$(dirname "$f")")-$(basename "$f")"
            done ;;
        jsonrpc)
            for f in "$fixtures"/jsonrpc-*/*.json "$fixtures"/v03-jsonrpc-*/*.json; do
                [[ -e "$f" ]] && cp "$f" "$dir/seed-$(basename "$(dirname "$f")")-$(basename "$f")"
            done ;;
        stream_response)
            for f in "$fixtures"/stream-response/*.json "$fixtures"/rest-Task/*.json "$fixtures"/rest-SendMessageResponse/*.json; do
                [[ -e "$f" ]] && cp "$f" "$dir/seed-$(basename "$(dirname "$f")")-$(basename "$f")"
            done ;;
        sse_chunking)
            # One byte of chunking seed, then the fixture framed as SSE events (with a ping and CRLFs).
            for f in "$fixtures"/stream-response/*.json; do
                [[ -e "$f" ]] || continue
                name="$dir/seed-$(basename "$f")"
                { printf '\003: ping\r\n\r\ndata: '; tr -d '\n' <"$f"; printf '\n\nevent: error\ndata: {}\r\n\r\n'; } >"$name"
            done ;;
        webhook_request)
            # Flags (bit 0: issued bearer, bit 1: issued token, bit 2: JSON content type), headers, 0xFF, body.
            for f in "$fixtures"/stream-response/*.json; do
                [[ -e "$f" ]] || continue
                for flags in '\000' '\001' '\002' '\007' '\004'; do
                    name="$dir/seed-$(printf '%s' "$flags" | od -An -tx1 | tr -d ' ')-$(basename "$f")"
                    { printf "$flags"; printf 'x-extra: 1\n'; printf '\377'; cat "$f"; } >"$name"
                done
            done ;;
    esac
}

for target in "${targets[@]}"; do
    seed "$target"
    echo "== fuzz $target for ${seconds}s"
    (cd fuzz && nice -n 19 cargo +nightly fuzz run --jobs 1 "$target" "corpus/$target" -- \
        -max_total_time="$seconds" -max_len=65536 -rss_limit_mb=2048 -timeout=10 -print_final_stats=1) \
        >"$logs/$target.log" 2>&1 || { tail -40 "$logs/$target.log"; echo "fuzz: $target failed" >&2; exit 1; }
    grep -E '^(Done|stat::number_of_executed_units)' "$logs/$target.log" | tail -2
done
