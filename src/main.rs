//! The `podsim` binary: parse the command line, run it, print errors.
//!
//! Exit codes: 0 success (a closed pipe included), 1 an error in the input
//! or the run, 2 a usage error (clap's own).

mod cli;

use std::io::{self, Write};
use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let args = cli::Cli::parse();
    let stdout = io::stdout();
    let mut out = io::BufWriter::new(stdout.lock());
    let result = args
        .command
        .execute(&mut out)
        .and_then(|()| out.flush().map_err(Into::into));
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) if is_broken_pipe(&e) => ExitCode::SUCCESS,
        Err(e) => {
            drop(out);
            eprintln!("podsim: error: {e:#}");
            ExitCode::from(1)
        }
    }
}

/// `podsim run x | head` closes our stdout early; that is not an error.
fn is_broken_pipe(error: &anyhow::Error) -> bool {
    error.chain().any(|cause| {
        cause
            .downcast_ref::<io::Error>()
            .is_some_and(|e| e.kind() == io::ErrorKind::BrokenPipe)
    })
}
