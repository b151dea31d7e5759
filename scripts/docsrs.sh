#!/usr/bin/env bash
# Builds each published crate's API reference as docs.rs will: one crate at a time, its library only,
# with the features its `[package.metadata.docs.rs]` names (and no others), `--cfg docsrs` (which
# turns on `doc(cfg)`, the "Available on crate feature ... only" labels), warnings denied, and no
# network during the build (dependencies are fetched first, then every build runs `--offline`).
#
# docs.rs uses a nightly toolchain. When one is installed (`cargo +nightly`), so does this script.
# Otherwise it uses the pinned stable toolchain with RUSTC_BOOTSTRAP=1, which lets stable rustdoc
# accept the one unstable feature `--cfg docsrs` switches on (`doc_cfg`). That is close to docs.rs
# but not the same compiler: it says so in its output. Normal builds never see `docsrs`, so stable
# builds are unaffected.
#
# Usage: scripts/docsrs.sh            (every published crate)
#        scripts/docsrs.sh CRATE...   (only those)
# DOCSRS_TOOLCHAIN=stable uses the stable path even when a nightly is installed (to check that path).
set -euo pipefail
cd "$(dirname "$0")/.."

if [[ "${DOCSRS_TOOLCHAIN:-auto}" != "stable" ]] && cargo +nightly --version >/dev/null 2>&1; then
    toolchain=(+nightly)
    echo "docsrs: nightly toolchain ($(cargo +nightly --version)), as docs.rs"
else
    toolchain=()
    export RUSTC_BOOTSTRAP=1
    if [[ "${DOCSRS_TOOLCHAIN:-auto}" == "stable" ]]; then
        echo "docsrs: DOCSRS_TOOLCHAIN=stable: not using a nightly toolchain even if one is installed"
    else
        echo "docsrs: no nightly toolchain installed"
    fi
    echo "docsrs: using $(cargo --version) with RUSTC_BOOTSTRAP=1 for the"
    echo "docsrs: unstable doc_cfg feature; docs.rs itself builds with nightly, so a nightly-only rustdoc"
    echo "docsrs: change can still differ there"
fi

mapfile -t published < <(cargo metadata --no-deps --format-version 1 | python3 scripts/published-crates.py)
wanted=("$@")

echo "docsrs: fetching dependencies (the only step that may use the network)"
cargo "${toolchain[@]}" fetch --locked >/dev/null

export DOCS_RS=1
export CARGO_NET_OFFLINE=true
target_dir="$(cargo metadata --no-deps --format-version 1 | python3 -c 'import json,sys; print(json.load(sys.stdin)["target_directory"])')"
built=0
built_names=()
for line in "${published[@]}"; do
    IFS=$'\t' read -r name features _dir <<<"$line"
    if ((${#wanted[@]})) && [[ " ${wanted[*]} " != *" $name "* ]]; then
        continue
    fi
    feature_args=()
    [[ "$features" != "-" ]] && feature_args=(--features "$features")
    echo "== docs.rs build of $name (features: ${features/#-/none})"
    # rustdoc never removes pages, so pages from a build with other features would linger.
    rm -rf "${target_dir:?}/doc/${name//-/_}"
    RUSTDOCFLAGS="--cfg docsrs -D warnings" \
        cargo "${toolchain[@]}" doc --offline --locked --no-deps --lib -p "$name" "${feature_args[@]}"
    built=$((built + 1))
    built_names+=("$name")
done
((built > 0)) || { echo "docsrs: no published crate matched: ${wanted[*]}" >&2; exit 1; }

# What users must see, and what they must not: the feature-gated modules are labelled with their
# feature, and the items that exist only for the workspace's tests (feature `test-util`) are not
# documented.
labelled() { # crate, page under its docs, feature
    [[ " ${built_names[*]} " == *" $1 "* ]] || return 0 # not built in this run
    local page="$target_dir/doc/${1//-/_}/$2"
    grep -Eq "Available on .{0,40}crate feature .{0,20}$3" "$page" || {
        echo "docsrs: $page does not say that it needs the \`$3\` feature" >&2
        exit 1
    }
}
labelled a2a-typestate-client shared/redis/index.html redis
labelled a2a-proto v1/a2a_service_server/index.html server
client_doc="$target_dir/doc/a2a_typestate_client"
if [[ " ${built_names[*]} " == *" a2a-typestate-client "* ]]; then
    if [[ -e "$client_doc/sse/index.html" || -e "$client_doc/struct.ManualClock.html" ]]; then
        echo "docsrs: test-util items (sse, ManualClock) were documented: the docs.rs feature set must not enable test-util" >&2
        exit 1
    fi
fi
echo "docsrs: $built crate(s) documented with warnings denied"
