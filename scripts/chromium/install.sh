#!/usr/bin/env bash
# Installs headless Chromium and its WebDriver from Debian's packages (`chromium`, `chromium-driver`)
# when either is missing. The `a2a watch` page test (a2a-cli/tests/watch.rs) and scripts/report-check.sh
# run this on first use, so no test skips for want of a browser. Prints the browser's and the driver's paths, one per
# line. Idempotent; a file lock serialises concurrent runs.
set -euo pipefail

find_browser() {
    for candidate in chromium chromium-browser; do
        if command -v "$candidate" >/dev/null 2>&1; then
            command -v "$candidate"
            return 0
        fi
    done
    return 1
}

installed() {
    find_browser >/dev/null && command -v chromedriver >/dev/null 2>&1
}

if ! installed; then
    command -v apt-get >/dev/null 2>&1 || {
        echo "chromium/install.sh: chromium or chromedriver is missing, and no apt-get to install them with" >&2
        exit 1
    }
    [[ "$(id -u)" == 0 ]] || { echo "chromium/install.sh: chromium or chromedriver is missing; install Debian's chromium and chromium-driver (apt-get needs root)" >&2; exit 1; }
    exec 9>/tmp/a2a-chromium-install.lock
    flock -w 900 9 || { echo "chromium/install.sh: timed out after 900 s waiting for another install" >&2; exit 1; }
    if ! installed; then
        export DEBIAN_FRONTEND=noninteractive
        echo "chromium/install.sh: installing chromium and chromium-driver" >&2
        timeout 600 apt-get update -qq >&2 || { echo "chromium/install.sh: apt-get update failed" >&2; exit 1; }
        timeout 900 apt-get install -y -qq --no-install-recommends chromium chromium-driver >&2 \
            || { echo "chromium/install.sh: apt-get install chromium chromium-driver failed" >&2; exit 1; }
        installed || { echo "chromium/install.sh: chromium or chromedriver is still missing after apt-get" >&2; exit 1; }
    fi
fi
find_browser
command -v chromedriver
