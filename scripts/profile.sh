# Sourced by the scripts that build this workspace's binaries before they run them: the profile
# they build with, and where the binaries land.
#   A2A_PROFILE=release   the default: the binaries the figures in BENCHMARKS.md and RELIABILITY.md
#                         were measured with
#   A2A_PROFILE=dev       quicker to build, slower to run: the CI smoke run of the scripts
#                         (scripts/check-scripts.sh), whose numbers are not figures
# Needs $root (the checkout). Sets $bin_dir; build WHO ARGS... runs `cargo build` with the profile
# (ARGS: -p PACKAGE --bin NAME...), echoing the command.
a2a_profile="${A2A_PROFILE:-release}"
case "$a2a_profile" in
    release) bin_dir="${CARGO_TARGET_DIR:-$root/target}/release" ;;
    dev) bin_dir="${CARGO_TARGET_DIR:-$root/target}/debug" ;;
    *) echo "A2A_PROFILE is release or dev, not $a2a_profile" >&2; exit 2 ;;
esac
build() {
    local who="$1"
    shift
    echo "+ ($who) cargo build --profile $a2a_profile $*" >&2
    cargo build --profile "$a2a_profile" --manifest-path "$root/Cargo.toml" "$@" >&2
}
