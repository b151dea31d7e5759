//! `a2a`: checks A2A agents against the capabilities their Agent Cards claim. See `a2a --help`.

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    a2a_typestate_cli::run(a2a_typestate_cli::cli::Cli::parse())
}
