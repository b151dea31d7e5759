#!/usr/bin/env bash
# Checks `a2a audit` reports with real consumers, installing what it needs on first use:
#   scripts/report-check.sh html REPORT.html OUT_DIR   headless Chromium (Debian's `chromium` package,
#       apt-get installed when missing) renders the page: OUT_DIR/screenshot.png and OUT_DIR/dom.html
#   scripts/report-check.sh junit REPORT.xml           junitparser (pinned in report-check/requirements.txt,
#       in a venv under target/report-check/venv) reads it; a JSON summary goes to stdout
# Safe to run concurrently (the tests do): a file lock serialises the installs. Every wait is bounded.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
state="$root/target/report-check"
mkdir -p "$state"

fail() {
    echo "report-check.sh: $*" >&2
    exit 1
}

locked() {
    if command -v flock >/dev/null 2>&1; then
        exec 8>"$state/.install.lock"
        flock -w 900 8 || fail "timed out after 900 s waiting for another install ($state/.install.lock)"
    fi
}

chromium_bin() {
    for candidate in chromium chromium-browser; do
        if command -v "$candidate" >/dev/null 2>&1; then
            command -v "$candidate"
            return 0
        fi
    done
    return 1
}

ensure_chromium() {
    # One installer for Chromium in the project (the watch page test uses it too).
    "$root/scripts/chromium/install.sh" >/dev/null || fail "scripts/chromium/install.sh could not install chromium"
}

ensure_junitparser() {
    local venv="$state/venv"
    local stamp="$venv/.stamp"
    local want
    want="$(sha256sum "$here/report-check/requirements.txt" | cut -d' ' -f1)"
    if [[ -f "$stamp" && "$(cat "$stamp")" == "$want" && -x "$venv/bin/python" ]]; then
        return 0
    fi
    locked
    if [[ -f "$stamp" && "$(cat "$stamp")" == "$want" && -x "$venv/bin/python" ]]; then
        return 0
    fi
    command -v python3 >/dev/null 2>&1 || fail "python3 is needed for junitparser"
    echo "report-check.sh: creating $venv with junitparser" >&2
    rm -rf "$venv"
    timeout 300 python3 -m venv "$venv" >&2 || fail "python3 -m venv failed (install python3-venv)"
    timeout 600 "$venv/bin/pip" install -q --disable-pip-version-check -r "$here/report-check/requirements.txt" >&2 \
        || fail "pip install junitparser failed"
    echo "$want" >"$stamp"
}

case "${1:-}" in
html)
    report="${2:?usage: report-check.sh html REPORT.html OUT_DIR}"
    out="${3:?usage: report-check.sh html REPORT.html OUT_DIR}"
    [[ -f "$report" ]] || fail "no report at $report"
    ensure_chromium
    browser="$(chromium_bin)"
    mkdir -p "$out"
    profile="$(mktemp -d)"
    trap 'rm -rf "$profile"' EXIT
    flags=(--headless --no-sandbox --disable-gpu --disable-background-networking --disable-component-update
        --disable-sync --no-first-run --disable-dev-shm-usage --user-data-dir="$profile")
    url="file://$(cd "$(dirname "$report")" && pwd)/$(basename "$report")"
    timeout 120 "$browser" "${flags[@]}" --window-size=1280,2000 --screenshot="$out/screenshot.png" "$url" \
        >"$out/chromium.log" 2>&1 || fail "chromium could not screenshot $url (see $out/chromium.log)"
    timeout 120 "$browser" "${flags[@]}" --dump-dom "$url" >"$out/dom.html" 2>>"$out/chromium.log" \
        || fail "chromium could not dump the DOM of $url (see $out/chromium.log)"
    [[ -s "$out/screenshot.png" ]] || fail "chromium wrote no screenshot"
    echo "$out/screenshot.png"
    ;;
junit)
    report="${2:?usage: report-check.sh junit REPORT.xml}"
    [[ -f "$report" ]] || fail "no report at $report"
    ensure_junitparser
    timeout 60 "$state/venv/bin/python" "$here/report-check/junit_summary.py" "$report"
    ;;
*)
    fail "usage: report-check.sh html REPORT.html OUT_DIR | junit REPORT.xml"
    ;;
esac
