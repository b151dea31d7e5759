//! `a2a`: checks A2A agents against the capabilities their Agent Cards claim. See `a2a --help`.

use std::process::ExitCode;

use a2a_typestate_cli::exit::Exit;
use clap::Parser;

fn main() -> ExitCode {
    match a2a_typestate_cli::cli::Cli::try_parse() {
        Ok(cli) => a2a_typestate_cli::run(cli),
        // `--help` and `--version` are written to stdout and are no error; anything else is a
        // command line that could not be read (clap's own status, 2, means "no result" here).
        Err(e) => {
            let _ = e.print();
            if e.use_stderr() { Exit::Usage.into() } else { Exit::Done.into() }
        }
    }
}
