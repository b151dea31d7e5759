#!/usr/bin/env bash
# Everything a release needs to hold, in one command, run from a checkout of the repository:
#   1. `cargo package` of every published crate with verification on: each crate is compiled from
#      its own `.crate` contents, its siblings resolved from the packaged set, so a file read from
#      outside a package fails here; then each package's file list, and `cargo publish --dry-run`;
#   2. the docs.rs-style doc build (scripts/docsrs.sh);
#   3. the public API compared with api/*.txt (scripts/public-api.sh);
#   4. `cargo install` of the packaged CLI (its unpacked `.crate`, the siblings from theirs) into a
#      temporary root, then `a2a --version` and `a2a demo`, each of which must exit 0.
#
# Usage: scripts/release-check.sh [--allow-dirty]
#   --allow-dirty  package uncommitted changes too (cargo refuses by default)
#
# Step 4 builds the CLI in release mode from the packages, so a first run takes a while; its build
# directory is kept under the target directory (release-check/) and later runs reuse it.
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS=0

dirty=()
for arg in "$@"; do
    case "$arg" in
        --allow-dirty) dirty=(--allow-dirty) ;;
        *) echo "release-check: unknown argument $arg (takes --allow-dirty)" >&2; exit 2 ;;
    esac
done

metadata="$(cargo metadata --no-deps --format-version 1)"
target_dir="$(python3 -c 'import json,sys; print(json.load(sys.stdin)["target_directory"])' <<<"$metadata")"
version="$(python3 -c 'import json,sys; print(json.load(sys.stdin)["packages"][0]["version"])' <<<"$metadata")"
mapfile -t published < <(python3 scripts/published-crates.py <<<"$metadata")
names=()
packages=()
for line in "${published[@]}"; do
    IFS=$'\t' read -r name _features _dir <<<"$line"
    names+=("$name")
    packages+=(-p "$name")
done
echo "release-check: ${#names[@]} published crates at $version, in publishing order: ${names[*]}"
work="$target_dir/release-check"
mkdir -p "$work"

echo
echo "== 1. cargo package, verification on"
# Verification resolves each crate's siblings from a registry of the packages just made. Cargo
# treats a registry crate of a given name and version as never changing: it unpacks it once into its
# registry cache and compiles it once per target directory. A later run at the same version would
# therefore compile against an earlier run's siblings, not the code now being packaged. So the
# cached unpacked copies of our crates are removed, and verification builds in a target directory
# of its own (kept between runs for the dependencies) from which our crates' artifacts are cleaned.
cargo_home="${CARGO_HOME:-$HOME/.cargo}"
for name in "${names[@]}"; do
    for stale in "$cargo_home"/registry/src/*/"$name-$version"; do
        [[ -d "$stale" ]] || continue
        echo "release-check: removing the cached unpacked copy $stale"
        rm -rf "$stale"
    done
done
package_target="$work/package-target"
if [[ -d "$package_target" ]]; then
    cargo clean --quiet --target-dir "$package_target" "${packages[@]}"
fi
cargo package "${dirty[@]}" --target-dir "$package_target" "${packages[@]}"

echo
echo "== 1b. what each package holds (full lists in $work/<crate>.list)"
for name in "${names[@]}"; do
    cargo package "${dirty[@]}" --list -p "$name" 2>/dev/null >"$work/$name.list"
    others="$(grep -v -E '^(src|tests|examples|benches)/' "$work/$name.list" | tr '\n' ' ')"
    counts="$(cut -d/ -f1 "$work/$name.list" | grep -E '^(src|tests|examples|benches)$' | sort | uniq -c |
        awk '{printf "%s%s %s", sep, $2, $1; sep=", "}')"
    echo "$name: $(wc -l <"$work/$name.list") files ($counts) and: $others"
done

echo
echo "== 1c. cargo publish --dry-run, in publishing order"
cargo publish --dry-run --no-verify "${dirty[@]}" "${packages[@]}"

echo
echo "== 2. docs.rs-style doc build"
bash scripts/docsrs.sh

echo
echo "== 3. public API against api/*.txt"
bash scripts/public-api.sh

echo
echo "== 4. cargo install of the packaged CLI into a temporary root"
unpacked="$(mktemp -d)"
trap 'rm -rf "$unpacked"' EXIT
patches=()
cli=""
for name in "${names[@]}"; do
    crate="$package_target/package/$name-$version.crate"
    [[ -f "$crate" ]] || { echo "release-check: $crate is missing after cargo package" >&2; exit 1; }
    tar -xzf "$crate" -C "$unpacked"
    # The siblings are not on crates.io yet: take them from their unpacked packages.
    patches+=(--config "patch.crates-io.$name.path=\"$unpacked/$name-$version\"")
    if [[ "$name" == *-cli ]]; then
        cli="$name"
    fi
done
[[ -n "$cli" ]] || { echo "release-check: no published CLI crate (a name ending in -cli)" >&2; exit 1; }
root="$unpacked/root"
cargo install "${patches[@]}" --path "$unpacked/$cli-$version" --root "$root" --target-dir "$work/install-target"
a2a="$root/bin/a2a"
[[ -x "$a2a" ]] || { echo "release-check: cargo install gave no \`a2a\` in $root/bin: $(ls "$root/bin")" >&2; exit 1; }

echo
echo "== 4b. a2a --version"
"$a2a" --version

echo
echo "== 4c. a2a demo"
"$a2a" demo

echo
echo "release-check: every step passed in $((SECONDS / 60)) min $((SECONDS % 60)) s"
