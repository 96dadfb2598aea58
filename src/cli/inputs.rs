//! The scenario inputs of `run` and `report`, read the same way for both:
//! files (TOML, or manifests in YAML or JSON by extension) and `-` for
//! standard input, each possibly holding several workloads, with the
//! `--timings` overlay applied to manifests.
//!
//! Invariant: one bad input never hides the others: every input is read,
//! the valid workloads are kept, and every refusal is kept to be listed at
//! the end; what loading assumed is printed once, as notices, on stderr.

use std::path::{Path, PathBuf};

use anyhow::Result;
use clap::ValueEnum;

use podsim::scenario::manifest::{Syntax, Timings};
use podsim::scenario::{Diagnostic, InputFormat, Scenario};

use super::UsageError;

/// `--input-format`: how to read the inputs, whatever their names say.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum FormatArg {
    /// A Kubernetes manifest in YAML.
    Yaml,
    /// A Kubernetes manifest in JSON (`kubectl get -o json`).
    Json,
    /// A podsim TOML scenario.
    Toml,
}

impl FormatArg {
    fn format(self) -> InputFormat {
        match self {
            FormatArg::Yaml => InputFormat::Manifest(Syntax::Yaml),
            FormatArg::Json => InputFormat::Manifest(Syntax::Json),
            FormatArg::Toml => InputFormat::Toml,
        }
    }
}

/// How to read the inputs: the flags `run`, `report` and `advise` share,
/// so each reads its files the same way and says so the same way.
#[derive(Debug, clap::Args)]
pub struct ReadArgs {
    /// Read every input as this format, whatever its name [default: by extension;
    /// standard input is sniffed: JSON, a TOML scenario, else YAML].
    #[arg(long, value_enum, value_name = "FORMAT")]
    pub input_format: Option<FormatArg>,

    /// Timings for manifests (boot, drain, ... per container; stop_at, ... for the Pod);
    /// they win over podsim.dev/ annotations.
    #[arg(long, value_name = "FILE.toml")]
    pub timings: Option<PathBuf>,
}

/// The name standard input goes by in messages.
pub const STDIN: &str = "<stdin>";

/// One workload to run and where it came from.
pub struct Input {
    pub scenario: Scenario,
    /// The file, or `file:Kind/name` when the file holds several workloads.
    pub source: String,
}

/// What the inputs held: what runs, and what was refused.
pub struct Inputs {
    pub runs: Vec<Input>,
    pub refused: Vec<Diagnostic>,
}

/// Reads every input; only an unreadable `--timings` file or `-` given
/// twice stops before the others are read.
pub fn load(files: &[&Path], timings: Option<&Path>, format: Option<FormatArg>) -> Result<Inputs> {
    if files.iter().filter(|f| is_stdin(f)).count() > 1 {
        return Err(UsageError("`-` (standard input) can be given once".into()).into());
    }
    let timings = timings.map(Timings::load).transpose().map_err(super::error)?;
    let mut inputs = Inputs {
        runs: Vec::new(),
        refused: Vec::new(),
    };
    for file in files {
        let results = if is_stdin(file) {
            match podsim::scenario::read_capped(std::io::stdin().lock()) {
                Ok(text) => {
                    let format = format.map_or_else(|| InputFormat::sniff(&text), FormatArg::format);
                    Scenario::read_all(&text, STDIN, format, timings.as_ref())
                }
                Err(e) => vec![Err(Diagnostic::whole(
                    STDIN,
                    format!("cannot read standard input: {e}"),
                ))],
            }
        } else {
            let format = format.map_or_else(|| InputFormat::of_path(file), FormatArg::format);
            match &timings {
                Some(t) if format == InputFormat::Toml => vec![Err(Diagnostic::whole(
                    &file.display().to_string(),
                    format!(
                        "--timings {} applies to Kubernetes manifests (.yaml, .yml, .json); write the timings \
                         into this TOML scenario instead",
                        t.origin
                    ),
                ))],
                _ => Scenario::load_all(file, format, timings.as_ref()),
            }
        };
        let several = results.len() > 1;
        for result in results {
            match result {
                Ok(scenario) => {
                    let source = match scenario.workload {
                        Some(kind) if several => {
                            format!("{}:{}/{}", scenario.origin, kind.name(), scenario.name)
                        }
                        _ => scenario.origin.clone(),
                    };
                    super::print_notices(&scenario.notices, super::TIMINGS_FLAG);
                    inputs.runs.push(Input { scenario, source });
                }
                Err(e) => inputs.refused.push(e),
            }
        }
    }
    Ok(inputs)
}

impl Inputs {
    /// The error for what was refused, if anything was: the refusal itself
    /// when it is the only input; else each printed, and a count of them
    /// (`done` says what happened to the rest).
    pub fn refusals(&self, done: &str) -> Result<()> {
        match self.refused.as_slice() {
            [] => Ok(()),
            [one] if self.runs.is_empty() => Err(super::error(one.clone())),
            all => {
                // `{:#}`, as `main` prints a lone error: a file that cannot be
                // read keeps its cause (`No such file or directory`).
                for refused in all {
                    eprintln!("podsim: error: {:#}", super::error(refused.clone()));
                }
                Err(anyhow::anyhow!(
                    "{} of {} inputs refused (listed above); {done}",
                    all.len(),
                    all.len() + self.runs.len()
                ))
            }
        }
    }
}

fn is_stdin(path: &Path) -> bool {
    path == Path::new("-")
}

/// The paths as given, for the loaders.
pub fn paths(files: &[PathBuf]) -> Vec<&Path> {
    files.iter().map(PathBuf::as_path).collect()
}
