#!/usr/bin/env bash
# The public API of each published crate, as checked-in text (`api/<crate>.txt`), so that every change
# to what users can name shows in review as a diff.
#
# The listing comes from `cargo public-api` (crates.io package cargo-public-api, pinned below), which
# reads rustdoc's JSON output. That output is an unstable rustdoc format: this script asks the pinned
# toolchain of rust-toolchain.toml for it with RUSTC_BOOTSTRAP=1 (no nightly needed), so that every
# machine produces the same listing; a different rustdoc could print the same API differently. Each
# crate is listed with the features docs.rs documents (its `[package.metadata.docs.rs]`), so items
# behind `test-util` are not part of it. Blanket and auto-trait impls are left out (`-ss`); derived
# impls such as `Clone` and `Debug` stay, since users rely on them.
#
# Usage: scripts/public-api.sh            compare with api/*.txt; fails on a difference
#        scripts/public-api.sh --bless    write api/*.txt from the current code
#        scripts/public-api.sh --install  first install the pinned cargo-public-api if it is missing
set -euo pipefail
cd "$(dirname "$0")/.."

tool_version="0.52.0"
bless=0
install=0
for arg in "$@"; do
    case "$arg" in
        --bless) bless=1 ;;
        --install) install=1 ;;
        *) echo "public-api: unknown argument $arg (takes --bless and --install)" >&2; exit 2 ;;
    esac
done

installed="$(cargo public-api --version 2>/dev/null || true)"
if [[ "$installed" != *"$tool_version"* ]]; then
    if ((install)); then
        echo "public-api: installing cargo-public-api $tool_version (found: ${installed:-none})"
        cargo install --locked --debug cargo-public-api --version "$tool_version"
    else
        echo "public-api: cargo-public-api $tool_version is needed (found: ${installed:-none}):" >&2
        echo "  cargo install --locked cargo-public-api --version $tool_version   (or run this script with --install)" >&2
        exit 2
    fi
fi

export RUSTC_BOOTSTRAP=1
mapfile -t published < <(cargo metadata --no-deps --format-version 1 | python3 scripts/published-crates.py)
mkdir -p api
listing="$(mktemp -d)"
trap 'rm -rf "$listing"' EXIT
differ=()
for line in "${published[@]}"; do
    IFS=$'\t' read -r name features _dir <<<"$line"
    feature_args=()
    [[ "$features" != "-" ]] && feature_args=(--features "$features")
    echo "== public API of $name (features: ${features/#-/none})"
    cargo public-api --color never -ss -p "$name" "${feature_args[@]}" >"$listing/$name.txt"
    if ((bless)); then
        cp "$listing/$name.txt" "api/$name.txt"
        echo "public-api: wrote api/$name.txt ($(wc -l <"api/$name.txt") lines)"
    elif [[ ! -f "api/$name.txt" ]]; then
        echo "public-api: api/$name.txt does not exist" >&2
        differ+=("$name")
    elif ! diff -u "api/$name.txt" "$listing/$name.txt"; then
        differ+=("$name")
    else
        echo "public-api: $name matches api/$name.txt"
    fi
done
# A snapshot of a crate that is no longer published (or was renamed) would go stale unnoticed.
for snapshot in api/*.txt; do
    [[ -e "$snapshot" ]] || continue
    name="$(basename "$snapshot" .txt)"
    if [[ ! -f "$listing/$name.txt" ]]; then
        if ((bless)); then
            rm "$snapshot"
            echo "public-api: removed $snapshot (no published crate of that name)"
        else
            echo "public-api: $snapshot names no published crate" >&2
            differ+=("$name")
        fi
    fi
done
if ((${#differ[@]})); then
    echo >&2
    echo "public-api: the public API of ${differ[*]} differs from the checked-in snapshot (diff above: - snapshot, + code)." >&2
    echo "public-api: if the change is intended, regenerate with 'scripts/public-api.sh --bless', review the diff" >&2
    echo "public-api: of api/, note it in CHANGELOG.md, and commit it with the change." >&2
    exit 1
fi
