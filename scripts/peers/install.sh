#!/usr/bin/env bash
# Installs the official A2A SDK peers under target/peers (A2A_PEERS_DIR to put them elsewhere, e.g. a
# fresh directory to try the scripts from nothing installed):
#   target/peers/py  a venv with a2a-sdk[http-server,signing]==1.3.0 + uvicorn (python/requirements.txt, all pinned)
#   target/peers/js  @a2a-js/sdk@1.3.0 + express (js/package.json and js/package-lock.json, `npm ci`)
#
# Idempotent and cache-friendly: each half writes a stamp (hash of its pin file and the interpreter
# version) only after it installed successfully, and is skipped while the stamp still matches.
# Safe to run concurrently (test binaries do): a file lock serialises installers.
# Needs python3.11 (or $A2A_PEERS_PYTHON, >= 3.10) with venv + pip, and node >= 20 with npm.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
peers="${A2A_PEERS_DIR:-$root/target/peers}"
mkdir -p "$peers/logs"

fail() {
    echo "install.sh: $*" >&2
    exit 1
}

# One installer at a time across processes; the lock is released when this shell exits.
if command -v flock >/dev/null 2>&1; then
    exec 9>"$peers/.install.lock"
    flock -w 600 9 || fail "timed out after 600 s waiting for another install ($peers/.install.lock)"
else
    echo "install.sh: flock not found; installing without a lock" >&2
fi

# Content hash of the given files (not of their paths: a moved checkout stays installed).
hash_of() {
    cat "$@" | sha256sum | cut -d' ' -f1
}

install_python() {
    local python="${A2A_PEERS_PYTHON:-}"
    if [[ -z "$python" ]]; then
        for candidate in python3.11 python3; do
            if command -v "$candidate" >/dev/null 2>&1; then
                python="$candidate"
                break
            fi
        done
    fi
    [[ -n "$python" ]] || fail "no python3.11 or python3 on PATH (set A2A_PEERS_PYTHON)"
    "$python" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 10) else 1)' \
        || fail "$python is $("$python" --version 2>&1); a2a-sdk 1.3.0 needs Python >= 3.10"

    local venv="$peers/py"
    local stamp="$venv/.a2a-peers-stamp"
    local want
    want="$(hash_of "$here/python/requirements.txt")-$("$python" -c 'import sys; print("%d.%d" % sys.version_info[:2])')"
    if [[ -f "$stamp" && "$(cat "$stamp")" == "$want" && -x "$venv/bin/python" ]] \
        && "$venv/bin/python" -c 'import importlib.metadata as m, sys; sys.exit(m.version("a2a-sdk") != "1.3.0")' 2>/dev/null; then
        echo "install.sh: python peers up to date ($venv)"
        return
    fi

    echo "install.sh: creating $venv with $("$python" --version 2>&1)"
    rm -rf "$venv"
    local pip=("$venv/bin/python" -m pip)
    if ! "$python" -m venv "$venv"; then
        # Debian strips ensurepip from its Python: make the venv without pip and install into it
        # with the interpreter's own pip (pip >= 22.3 knows --python).
        echo "install.sh: '$python -m venv' failed; retrying without ensurepip" >&2
        rm -rf "$venv"
        "$python" -m venv --without-pip "$venv" \
            || fail "'$python -m venv' failed (on Debian: apt-get install python3-venv)"
        pip=("$python" -m pip --python "$venv/bin/python")
    fi
    "${pip[@]}" install --quiet --disable-pip-version-check --no-input \
        -r "$here/python/requirements.txt" \
        || fail "pip could not install scripts/peers/python/requirements.txt into $venv"
    "$venv/bin/python" -c 'import a2a.server.routes, a2a.utils.signing, uvicorn' \
        || fail "a2a-sdk installed but does not import in $venv"
    echo "$want" >"$stamp"
}

install_js() {
    command -v node >/dev/null 2>&1 || fail "node not found on PATH (need node >= 20)"
    command -v npm >/dev/null 2>&1 || fail "npm not found on PATH"
    local major
    major="$(node -p 'process.versions.node.split(".")[0]')"
    ((major >= 20)) || fail "node $(node --version) is too old; @a2a-js/sdk 1.3.0 needs node >= 20"

    local dir="$peers/js"
    local stamp="$dir/.a2a-peers-stamp"
    local want
    want="$(hash_of "$here/js/package.json" "$here/js/package-lock.json")-node$major"
    if [[ -f "$stamp" && "$(cat "$stamp")" == "$want" && -f "$dir/node_modules/@a2a-js/sdk/package.json" ]]; then
        echo "install.sh: js peers up to date ($dir)"
        return
    fi

    echo "install.sh: installing @a2a-js/sdk into $dir with npm $(npm --version)"
    rm -rf "$dir"
    mkdir -p "$dir"
    cp "$here/js/package.json" "$here/js/package-lock.json" "$dir/"
    (cd "$dir" && npm ci --omit=dev --no-audit --no-fund --ignore-scripts --loglevel=error) \
        || fail "npm ci failed in $dir (from scripts/peers/js/package-lock.json)"
    echo "$want" >"$stamp"
}

install_python
install_js
# Every peer start leaves a log pair named after its port; keep a day's worth.
find "$peers/logs" -name '*.log' ! -name install.log -mmin +1440 -delete 2>/dev/null || true
