#!/usr/bin/env bash
# Installs third-party A2A framework agents under target/frameworks/NAME, each pinned:
#   scripts/frameworks/install.sh NAME|all [NAME...]
# A Python framework (NAME/requirements.txt, every package pinned) gets a venv at
# target/frameworks/NAME/venv; a Node one (NAME/package.json + package-lock.json) gets `npm ci` in
# target/frameworks/NAME/node; a Rust one (NAME/Cargo.toml + Cargo.lock, a package of its own) gets
# `cargo build --release --locked` into target/frameworks/NAME/target and its binary copied to
# target/frameworks/NAME/bin/agent. Idempotent: each install writes a stamp (hash of its pin files, a
# Rust agent's sources too, and the interpreter or compiler version) only after it succeeded, and is
# skipped while the stamp still matches.
# Safe to run concurrently: a file lock serialises installers. Each install records its wall time and
# size in target/frameworks/NAME/install-stats.txt (set PIP_NO_CACHE_DIR=1 / npm_config_cache to a
# fresh dir for a cold measurement; CARGO_HOME for a Rust one, CARGO_BUILD_JOBS=1 beside another build).
# Needs python3.11 (or $A2A_FRAMEWORKS_PYTHON, >= 3.10) with venv + pip; node >= 20 with npm for Node ones;
# cargo (the repository's toolchain) for Rust ones.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
out="$root/target/frameworks"
mkdir -p "$out/logs"

fail() {
    echo "install.sh: $*" >&2
    # A full disk makes pip and npm fail with an empty log: say how much was left.
    echo "install.sh: $(df -h --output=avail "$out" | tail -n 1 | tr -d ' ') free on the disk of $out" >&2
    exit 1
}

all_names() {
    local d
    for d in "$here"/*/; do
        d="${d%/}"
        [[ -f "$d/requirements.txt" || -f "$d/package-lock.json" || -f "$d/Cargo.lock" ]] && basename "$d"
    done
}

[[ $# -ge 1 ]] || fail "usage: install.sh NAME|all [NAME...] (names: $(all_names | tr '\n' ' '))"
names=()
for arg in "$@"; do
    if [[ "$arg" == all ]]; then
        mapfile -t -O "${#names[@]}" names < <(all_names)
    else
        [[ -d "$here/$arg" ]] || fail "unknown framework '$arg' (names: $(all_names | tr '\n' ' '))"
        names+=("$arg")
    fi
done

if command -v flock >/dev/null 2>&1; then
    exec 9>"$out/.install.lock"
    flock -w 1800 9 || fail "timed out after 1800 s waiting for another install ($out/.install.lock)"
else
    echo "install.sh: flock not found; installing without a lock" >&2
fi

hash_of() {
    cat "$@" | sha256sum | cut -d' ' -f1
}

pick_python() {
    local python="${A2A_FRAMEWORKS_PYTHON:-}"
    if [[ -z "$python" ]]; then
        for candidate in python3.11 python3; do
            if command -v "$candidate" >/dev/null 2>&1; then
                python="$candidate"
                break
            fi
        done
    fi
    [[ -n "$python" ]] || fail "no python3.11 or python3 on PATH (set A2A_FRAMEWORKS_PYTHON)"
    "$python" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 10) else 1)' \
        || fail "$python is $("$python" --version 2>&1); the frameworks need Python >= 3.10"
    echo "$python"
}

record_stats() {
    local name="$1" dir="$2" secs="$3"
    local mb
    mb="$(du -sm "$dir" | cut -f1)"
    printf 'installed %s in %s s, %s MB (%s)\n' "$name" "$secs" "$mb" "$(date -u +%Y-%m-%dT%H:%M:%SZ)" \
        | tee -a "$out/$name/install-stats.txt"
}

# Whether NAME's install is current: STAMP holds WANT and `test TEST PATH` holds (the install is
# in place); says so, naming SHOWN.
up_to_date() {
    local name="$1" shown="$2" stamp="$3" want="$4" test="$5" path="$6"
    [[ -f "$stamp" && "$(cat "$stamp")" == "$want" ]] && test "$test" "$path" || return 1
    echo "install.sh: $name up to date ($shown)"
}

install_python() {
    local name="$1"
    local python
    python="$(pick_python)"
    local venv="$out/$name/venv"
    local stamp="$venv/.a2a-frameworks-stamp"
    local want
    want="$(hash_of "$here/$name/requirements.txt")-$("$python" -c 'import sys; print("%d.%d" % sys.version_info[:2])')"
    up_to_date "$name" "$venv" "$stamp" "$want" -x "$venv/bin/python" && return
    echo "install.sh: installing $name into $venv with $("$python" --version 2>&1)"
    local t0=$SECONDS
    rm -rf "$venv"
    mkdir -p "$out/$name"
    local pip=("$venv/bin/python" -m pip)
    if ! "$python" -m venv "$venv"; then
        echo "install.sh: '$python -m venv' failed; retrying without ensurepip" >&2
        rm -rf "$venv"
        "$python" -m venv --without-pip "$venv" \
            || fail "'$python -m venv' failed (on Debian: apt-get install python3-venv)"
        pip=("$python" -m pip --python "$venv/bin/python")
    fi
    "${pip[@]}" install --quiet --disable-pip-version-check --no-input \
        -r "$here/$name/requirements.txt" >"$out/$name/install.log" 2>&1 \
        || { tail -n 30 "$out/$name/install.log" >&2; fail "pip could not install scripts/frameworks/$name/requirements.txt into $venv"; }
    if [[ -f "$here/$name/import-check.py" ]]; then
        "$venv/bin/python" "$here/$name/import-check.py" || fail "$name installed but does not import in $venv"
    fi
    echo "$want" >"$stamp"
    record_stats "$name" "$venv" "$((SECONDS - t0))"
}

install_node() {
    local name="$1"
    command -v node >/dev/null 2>&1 || fail "node not found on PATH (need node >= 20)"
    command -v npm >/dev/null 2>&1 || fail "npm not found on PATH"
    local major
    major="$(node -p 'process.versions.node.split(".")[0]')"
    ((major >= 20)) || fail "node $(node --version) is too old; need node >= 20"
    local dir="$out/$name/node"
    local stamp="$dir/.a2a-frameworks-stamp"
    local want
    want="$(hash_of "$here/$name/package.json" "$here/$name/package-lock.json")-node$major"
    up_to_date "$name" "$dir" "$stamp" "$want" -d "$dir/node_modules" && return
    echo "install.sh: installing $name into $dir with npm $(npm --version)"
    local t0=$SECONDS
    rm -rf "$dir"
    mkdir -p "$dir"
    cp "$here/$name/package.json" "$here/$name/package-lock.json" "$dir/"
    (cd "$dir" && npm ci --omit=dev --no-audit --no-fund --loglevel=error) >"$out/$name/install.log" 2>&1 \
        || { tail -n 30 "$out/$name/install.log" >&2; fail "npm ci failed in $dir (from scripts/frameworks/$name/package-lock.json)"; }
    echo "$want" >"$stamp"
    record_stats "$name" "$dir" "$((SECONDS - t0))"
}

install_cargo() {
    local name="$1"
    command -v cargo >/dev/null 2>&1 || fail "cargo not found on PATH (need a Rust toolchain)"
    local src="$here/$name"
    local dir="$out/$name"
    local bin="$dir/bin"
    local stamp="$bin/.a2a-frameworks-stamp"
    local rustc want
    rustc="$(cd "$src" && rustc --version 2>/dev/null)" || fail "rustc not found on PATH (or no toolchain for $src)"
    # The agent is built from its sources: they are pins here as much as Cargo.lock is.
    local files=("$src/Cargo.toml" "$src/Cargo.lock")
    mapfile -t -O 2 files < <(find "$src/src" -type f | LC_ALL=C sort)
    want="$({ printf '%s\n' "${files[@]#"$src/"}" "$rustc"; cat "${files[@]}"; } | sha256sum | cut -d' ' -f1)"
    up_to_date "$name" "$bin/agent" "$stamp" "$want" -x "$bin/agent" && return
    echo "install.sh: building $name into $dir/target with $rustc"
    local t0=$SECONDS
    rm -rf "$bin"
    mkdir -p "$bin"
    # The package has its own empty [workspace]: the repository's workspace never adopts it, and
    # --locked builds exactly the committed Cargo.lock. Artifacts (JSON, one per line) go to a file
    # to find the binary in; the compiler's messages to install.log.
    (cd "$src" && CARGO_TARGET_DIR="$dir/target" cargo build --release --locked \
        --message-format=json-render-diagnostics >"$dir/artifacts.jsonl") 2>"$dir/install.log" \
        || { tail -n 30 "$dir/install.log" >&2; fail "cargo build failed for scripts/frameworks/$name (log $dir/install.log)"; }
    local exe
    exe="$(grep -o '"executable":"[^"]*"' "$dir/artifacts.jsonl" | tail -n 1 | cut -d'"' -f4)"
    [[ -n "$exe" && -x "$exe" ]] || fail "cargo built no binary for scripts/frameworks/$name (artifacts $dir/artifacts.jsonl)"
    cp "$exe" "$bin/agent"
    echo "$want" >"$stamp"
    record_stats "$name" "$dir" "$((SECONDS - t0))"
}

for name in "${names[@]}"; do
    if [[ -f "$here/$name/requirements.txt" ]]; then
        install_python "$name"
    elif [[ -f "$here/$name/package-lock.json" ]]; then
        install_node "$name"
    elif [[ -f "$here/$name/Cargo.lock" ]]; then
        install_cargo "$name"
    else
        fail "$name has no requirements.txt, package-lock.json or Cargo.lock"
    fi
done
find "$out/logs" -name '*.log' -mmin +1440 -delete 2>/dev/null || true
