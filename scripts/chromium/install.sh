#!/usr/bin/env bash
# Installs headless Chromium from Debian's packages (`chromium`, `chromium-driver`) when it is missing.
# The `a2a watch` page test runs this on first use, so the test never skips for want of a browser.
# Prints the browser's path on its last line. Idempotent; a file lock serialises concurrent runs.
set -euo pipefail

find_browser() {
    for candidate in chromium chromium-browser google-chrome; do
        if command -v "$candidate" >/dev/null 2>&1; then
            command -v "$candidate"
            return 0
        fi
    done
    return 1
}

if browser="$(find_browser)"; then
    echo "$browser"
    exit 0
fi

command -v apt-get >/dev/null 2>&1 || {
    echo "chromium/install.sh: no chromium and no apt-get to install it with" >&2
    exit 1
}
exec 9>/tmp/a2a-chromium-install.lock
flock -w 900 9 || { echo "chromium/install.sh: timed out waiting for another install" >&2; exit 1; }
if ! browser="$(find_browser)"; then
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >&2
    apt-get install -y -qq --no-install-recommends chromium chromium-driver fonts-dejavu-core >&2
    browser="$(find_browser)" || { echo "chromium/install.sh: chromium is still missing after apt-get" >&2; exit 1; }
fi
echo "$browser"
