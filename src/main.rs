//! The `podsim` binary: parse the command line, run it, print errors.
//!
//! Exit codes: 0 success (a closed pipe included), 1 an error in the input,
//! the output or the run, 2 a usage error (clap's own, or `cli::UsageError`),
//! 130 a sweep or run interrupted by Ctrl-C or SIGTERM.

mod cli;

use std::fmt;
use std::io::{self, Write};
use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let args = cli::Cli::parse();
    let stdout = io::stdout();
    let mut out = io::BufWriter::new(Stdout(stdout.lock()));
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
            ExitCode::from(cli::exit_code(&e))
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

/// Standard output whose write errors say where they happened: a full disk
/// behind `> file` reads "cannot write to stdout: No space left on device",
/// not a bare OS message. The error kind is kept, so a closed pipe is still
/// recognised.
struct Stdout<W>(W);

impl<W: Write> Write for Stdout<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0.write(buf).map_err(on_stdout)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.0.flush().map_err(on_stdout)
    }
}

fn on_stdout(error: io::Error) -> io::Error {
    io::Error::new(error.kind(), StdoutError(error))
}

#[derive(Debug)]
struct StdoutError(io::Error);

impl fmt::Display for StdoutError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "cannot write to stdout: {}", self.0)
    }
}

impl std::error::Error for StdoutError {}
