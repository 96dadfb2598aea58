//! Grid files: a base scenario plus axes, each naming a scenario key by its
//! path and giving its values as a list or a range. Combinations are the
//! cartesian product in a fixed order (the last axis varies fastest), so run
//! index `i` always means the same settings.
//!
//! Reading is in two pure steps and one that touches files: `GridFile::parse`
//! reads the text, `Grid::new` resolves its axes against the base scenario
//! once, and `Grid::load` (the only step that reads files) finds the base
//! beside the grid. Invariant: a `Grid` that exists is fully checked: every
//! path is resolved to a registry `Key`, every value fits it, and every
//! combination passes `check_spec`. Running a grid can fail on output, never
//! on input.

use std::ops::Range;
use std::path::{Component, Path, PathBuf};

use sha2::{Digest, Sha256};
use toml::Spanned;
use toml::de::{DeTable, DeValue};

mod file;
mod service;

pub use file::GridFile;
use file::not_a_table;

use super::axis::{Axis, Positioned, RANGE_KEYS, Values, names_a_key, parse_values, resolve, same_field};
use super::csv;
use super::summary::{Summary, Table};
use crate::model::job::{JobFigures, JobSpec};
use crate::model::service::{CrashFigures, DrainFigures, NodeFigures, RolloutFigures, ServiceMetrics};
use crate::model::{ContainerKind, Metrics, PodMode, RunSpec};
use crate::scenario::diagnostic::AxisWrong;
use crate::scenario::key::Field;
use crate::scenario::manifest::{self, Timings};
use crate::scenario::rules::{Format, rule_class};
use crate::scenario::{Diagnostic, Input, Problem, Scenario, check_spec, line_col, read_input};

/// A checked grid, ready to run.
#[derive(Clone, Debug)]
pub struct Grid {
    /// The grid file as named by the user (for messages).
    pub origin: String,
    /// The base scenario's run (Pod and horizon); axes change it run by run.
    pub base: RunSpec,
    /// The swept keys; the last one varies fastest.
    pub axes: Vec<Axis>,
    /// The grid's default output, resolved against the grid file's folder.
    pub out: Option<PathBuf>,
    /// Where to draw the trade-off plot after the sweep, likewise resolved.
    pub plot: Option<PathBuf>,
    /// Where to write the summary (one row per combination), likewise resolved.
    pub summary: Option<PathBuf>,
    /// What loading the base scenario had to assume (`Scenario::notices`).
    pub notices: Vec<Diagnostic>,
    runs: u64,
    /// Each combination runs this many times, replication 0, 1, … (≥ 1).
    replications: u64,
    sha256: [u8; 32],
}

impl Grid {
    /// Reads and checks a grid file and its base scenario (a manifest with
    /// the grid's timings file over it); `base`, `timings`, `out` and
    /// `plot` are relative to the grid file.
    pub fn load(path: &Path) -> Result<Grid, Diagnostic> {
        let (origin, text) = read_input(path, Input::Grid)?;
        Grid::read(&text, &origin, path.parent().unwrap_or(Path::new("")))
    }

    /// Grid text whose base scenario is read from `folder`, where the
    /// grid's relative paths start.
    pub fn read(text: &str, origin: &str, folder: &Path) -> Result<Grid, Diagnostic> {
        let file = GridFile::parse(text, origin)?;
        let base_path = existing_file(&file, folder, &file.base, "base scenario")?;
        let timings = match &file.timings {
            None => None,
            Some(timings) => {
                let path = existing_file(&file, folder, timings, "timings file")?;
                if !manifest::is_manifest(&base_path) {
                    return Err(file.error(
                        timings.1.clone(),
                        "timings is for a manifest base: a TOML scenario holds its own timings; drop it, \
                         or set them in the base scenario",
                    ));
                }
                Some(Timings::load(&path)?)
            }
        };
        let base = Scenario::load_with(&base_path, timings.as_ref())?;
        Grid::new(file, base, folder)
    }

    /// Grid text over an already loaded `base` (whatever its `base` and
    /// `timings` keys name): `GridFile::parse` then `Grid::new`, no file
    /// touched.
    pub fn parse(text: &str, origin: &str, base: Scenario, folder: &Path) -> Result<Grid, Diagnostic> {
        Grid::new(GridFile::parse(text, origin)?, base, folder)
    }

    /// Resolves the file's axes against `base`, once, and checks every
    /// combination's rules; `folder` is where the file's relative paths start.
    pub fn new(file: GridFile<'_>, base: Scenario, folder: &Path) -> Result<Grid, Diagnostic> {
        let Some(DeValue::Table(table)) = file.doc.get_ref().get("axes").map(Spanned::get_ref) else {
            return Err(file.error(file.axes_span.clone(), not_a_table("axes")));
        };
        let mut entries = Vec::new();
        flatten(table, "", &mut entries).map_err(|(span, m)| file.error(span, m))?;
        if entries.is_empty() {
            return Err(file.error(
                file.axes_span.clone(),
                "[axes] is empty; add at least one axis, e.g. \"containers.web.boot\" = [\"1s\", \"2s\"]",
            ));
        }
        let mut axes: Vec<Axis> = Vec::with_capacity(entries.len());
        let mut spans = Vec::with_capacity(entries.len());
        for (path, key_span, value) in &entries {
            let key = resolve(path, &base.run).map_err(|m| file.error(key_span.clone(), m))?;
            if let Some(twin) = axes.iter().find(|a| same_field(a.key, key)) {
                return Err(file.error(
                    key_span.clone(),
                    format!(
                        "axis \"{path}\" sets the same field as axis \"{}\"; keep one",
                        twin.path
                    ),
                ));
            }
            let values = parse_values(value, key.field)
                .map_err(|(span, m)| file.error(span, Problem::at_axis(path, AxisWrong::Problem(m))))?;
            axes.push(Axis::new(path.clone(), key, values));
            spans.push(key_span.clone());
        }
        let runs = axes
            .iter()
            .try_fold(1u64, |n, a| n.checked_mul(a.values.len()))
            .ok_or_else(|| {
                file.error(
                    file.axes_span.clone(),
                    "the axes make more than 18,446,744,073,709,551,615 combinations (podsim numbers \
                     runs with 64 bits); narrow an axis",
                )
            })?;
        let mut base_run = base.run;
        if let Some(seed) = file.seed {
            base_run.stream.seed = u64::from(seed);
        }
        let mut grid = Grid {
            origin: file.origin.to_string(),
            base: base_run,
            notices: base.notices,
            axes,
            out: file.out.as_ref().map(|o| relative_to(folder, o)),
            plot: file.plot.as_ref().map(|p| relative_to(folder, p)),
            summary: file.summary.as_ref().map(|p| relative_to(folder, p)),
            runs,
            replications: file.replications.unwrap_or(1),
            sha256: [0; 32],
        };
        let lines: Vec<usize> = spans.iter().map(|s| line_col(file.text, s.start).0).collect();
        if let Err((axis, message)) = grid.check_rules().and_then(|()| grid.check_service(&lines)) {
            return Err(file.error(spans[axis].clone(), message));
        }
        grid.sha256 = grid.canonical_sha256();
        Ok(grid)
    }

    /// The number of combinations.
    pub fn runs(&self) -> u64 {
        self.runs
    }

    /// How many times each combination runs.
    pub fn replications(&self) -> u64 {
        self.replications
    }

    /// CSV rows: combinations times replications (saturating: such a grid
    /// is refused by `--max-runs` long before).
    pub fn rows(&self) -> u64 {
        self.runs.saturating_mul(self.replications)
    }

    /// The seed every draw starts from.
    pub fn seed(&self) -> u64 {
        self.base.stream.seed
    }

    /// Replaces the seed (`--seed`); the grid's hash follows.
    pub fn set_seed(&mut self, seed: u32) {
        self.base.stream.seed = u64::from(seed);
        self.sha256 = self.canonical_sha256();
    }

    /// Replaces the replications (`--replications`, at least 1); the grid's
    /// hash and columns follow.
    pub fn set_replications(&mut self, replications: u64) {
        self.replications = replications.max(1);
        self.sha256 = self.canonical_sha256();
    }

    /// SHA-256 of what the grid means (base spec, horizon, axes and their
    /// values, the columns), not of how the file is written: comments,
    /// spacing, key order and the base file's path do not change it, so the
    /// shards of one sweep agree even when each machine mounts the files
    /// elsewhere. The same on every platform; `merge` compares it.
    pub fn sha256(&self) -> [u8; 32] {
        self.sha256
    }

    /// CSV columns: `run`, `replication` when there are several, one per
    /// axis, then the metrics.
    pub fn columns(&self) -> Vec<String> {
        let mut columns = vec!["run".to_string()];
        if self.replications > 1 {
            columns.push("replication".to_string());
        }
        columns.extend(self.axes.iter().map(Axis::column));
        // Only a grid with a rollout, a drain or a crash has its columns:
        // every other Service grid keeps its bytes.
        let names: &[&[&str]] = match self.table() {
            Table::Pod if self.has_jobs() => &[&Metrics::NAMES, &JobFigures::NAMES],
            Table::Pod => &[&Metrics::NAMES],
            Table::Service => &[&ServiceMetrics::NAMES],
            Table::Rollout => &[&ServiceMetrics::NAMES, &RolloutFigures::NAMES],
            Table::Drain => &[&ServiceMetrics::NAMES, &DrainFigures::NAMES],
            Table::Node => &[&ServiceMetrics::NAMES, &DrainFigures::NAMES, &NodeFigures::NAMES],
            Table::Crash => &[&ServiceMetrics::NAMES, &CrashFigures::NAMES],
        };
        columns.extend(names.iter().copied().flatten().map(|n| n.to_string()));
        columns
    }

    /// Whether some run is a Job's: its base is, or `pod.mode` is an axis.
    /// Only such a grid has the Job's columns (every other keeps its bytes)
    /// and runs the Job controller.
    pub fn has_jobs(&self) -> bool {
        self.base.pod.mode == PodMode::Job || self.axes.iter().any(|a| a.key.field == Field::Mode)
    }

    /// Summary columns: `run`, one per axis, then `Summary::columns`.
    pub fn summary_columns(&self) -> Vec<String> {
        let mut columns = vec!["run".to_string()];
        columns.extend(self.axes.iter().map(Axis::column));
        columns.extend(Summary::columns(self.table()));
        columns
    }

    /// Whose metrics the grid's rows hold: its base's (`Table::of`).
    pub fn table(&self) -> Table {
        Table::of(&self.base)
    }

    /// The value index of each axis for run `run` (last axis fastest).
    pub fn digits(&self, mut run: u64, digits: &mut [u64]) {
        for (digit, axis) in digits.iter_mut().zip(&self.axes).rev() {
            let len = axis.values.len();
            *digit = run % len;
            run /= len;
        }
    }

    /// Checks every combination against `check_spec` without running them
    /// all. The rules look at one container at a time, plus "at least one
    /// app": so each container's rule-relevant axes are combined (one value
    /// per class, a handful of specs), then one spec with as few apps as the
    /// kind axes allow is checked. Returns the axis to point at and the message.
    fn check_rules(&self) -> Result<(), (usize, Problem)> {
        let relevant: Vec<(usize, usize, Vec<u64>)> = self
            .axes
            .iter()
            .enumerate()
            .filter_map(|(a, axis)| {
                rule_class(axis.key.field, 0)?;
                // Pod-level axes (mode, version, policy, cap) meet every container's.
                let container = axis.key.container.unwrap_or(usize::MAX);
                let mut seen = Vec::new();
                let mut representatives = Vec::new();
                // A range's classes are monotone in its values (zero or not,
                // under 1 s or not, 0/1/more): its first two values and its
                // last show every class it has.
                let scan: Vec<u64> = match axis.values {
                    Values::List(_) | Values::Dists(_) | Values::Whole(_) => (0..axis.values.len()).collect(),
                    Values::Range { len, .. } => [0, 1, len.saturating_sub(1)]
                        .into_iter()
                        .filter(|&i| i < len)
                        .collect(),
                };
                for i in scan {
                    let c = rule_class(axis.key.field, axis.rule_value(i))?;
                    if !seen.contains(&c) {
                        seen.push(c);
                        representatives.push(i);
                    }
                }
                Some((a, container, representatives))
            })
            .collect();
        for container in 0..self.base.pod.containers.len() {
            // Pod-level axes (mode, version, policy, cap) meet every container's.
            let mine: Vec<&(usize, usize, Vec<u64>)> = relevant
                .iter()
                .filter(|(_, c, _)| *c == container || *c == usize::MAX)
                .collect();
            let count: usize = mine.iter().map(|(_, _, r)| r.len()).product();
            for n in 0..count {
                let mut rest = n;
                let probe: Vec<(usize, u64)> = mine
                    .iter()
                    .map(|(a, _, reps)| {
                        let pick = reps[rest % reps.len()];
                        rest /= reps.len();
                        (*a, pick)
                    })
                    .collect();
                self.check_probe(&probe)?;
            }
        }
        let fewest_apps: Vec<(usize, u64)> = self
            .axes
            .iter()
            .enumerate()
            .filter(|(_, a)| a.key.field == Field::Kind)
            .map(|(a, axis)| {
                let app = ContainerKind::NAMES.iter().position(|n| *n == "app").unwrap_or(2) as u64;
                let pick = (0..axis.values.len())
                    .find(|&i| axis.values.get(i) != app)
                    .unwrap_or(0);
                (a, pick)
            })
            .collect();
        self.check_probe(&fewest_apps)
    }

    /// `check_spec` on the base with these (axis, value index) settings.
    fn check_probe(&self, probe: &[(usize, u64)]) -> Result<(), (usize, Problem)> {
        let mut run = self.base.clone();
        for &(a, i) in probe {
            self.axes[a].apply(i, &mut run);
        }
        let spec = run.pod;
        let Err(problem) = check_spec(&spec) else {
            return Ok(());
        };
        let blame = probe
            .iter()
            .find(|(a, _)| {
                let key = self.axes[*a].key;
                Some(key.field) == problem.field && key.container == problem.container
            })
            .or_else(|| probe.iter().find(|(a, _)| self.axes[*a].key.field == Field::Kind))
            .or(probe.first())
            .map_or(0, |(a, _)| *a);
        let settings: Vec<String> = probe
            .iter()
            .map(|&(a, i)| format!("{} = {}", self.axes[a].path, self.axes[a].describe(i)))
            .collect();
        Err((
            blame,
            format!(
                "the combination {} breaks a Pod rule: {}",
                settings.join(", "),
                problem.message(&spec, Format::Toml)
            )
            .into(),
        ))
    }

    /// The canonical form, hashed as it is produced: a versioned heading,
    /// the base spec and horizon, each axis (key, path, values; a range as
    /// from, step and length), the header.
    fn canonical_sha256(&self) -> [u8; 32] {
        let mut hash = Sha256::new();
        hash.update(format!(
            "podsim grid 2\nbase {:?}\nhorizon {}\n",
            self.base.pod, self.base.horizon.0
        ));
        if let Some(service) = &self.base.service {
            hash.update(format!("service {service:?}\n"));
        }
        // Only when set, so a grid without them keeps the hash it had.
        if self.base.job != JobSpec::default() {
            hash.update(format!("job {:?}\n", self.base.job));
        }
        if self.base.stream.seed != 0 {
            hash.update(format!("seed {}\n", self.base.stream.seed));
        }
        if self.replications != 1 {
            hash.update(format!("replications {}\n", self.replications));
        }
        for axis in &self.axes {
            hash.update(format!("axis {:?} {}:", axis.key, axis.path));
            // A range by its three numbers: a range of billions of values
            // hashes as fast as a short one (issue 16's fuzzing found the walk).
            match arithmetic(&axis.values) {
                _ if let Values::Dists(list) = &axis.values => {
                    list.iter().for_each(|d| hash.update(format!("{d:?};")));
                }
                _ if let Values::Whole(list) = &axis.values => {
                    list.iter().for_each(|v| hash.update(format!("{v:?};")));
                }
                Some(numbers) => {
                    hash.update(b"range");
                    numbers.iter().for_each(|n| hash.update(n.to_le_bytes()));
                }
                None => (0..axis.values.len()).for_each(|i| hash.update(axis.values.get(i).to_le_bytes())),
            }
        }
        hash.update(csv::header_line(&self.columns()));
        hash.finalize().into()
    }
}

/// The values as (first, step, count) when they count up evenly, as every
/// range does and a list may: a list and the range it spells mean the same
/// grid, so they hash the same.
fn arithmetic(values: &Values) -> Option<[u64; 3]> {
    match values {
        Values::Range { from, step, len } if *len > 1 => Some([*from, *step, *len]),
        Values::Range { from, .. } => Some([*from, 0, 1]),
        Values::Dists(_) | Values::Whole(_) => None,
        Values::List(list) => {
            let step = match list.as_slice() {
                [] => return None,
                [only] => return Some([*only, 0, 1]),
                [a, b, ..] => b.checked_sub(*a).filter(|s| *s > 0)?,
            };
            let even = list.windows(2).all(|w| w[1].checked_sub(w[0]) == Some(step));
            even.then_some([list[0], step, list.len() as u64])
        }
    }
}

/// The file a grid key names (`written`, at its span), relative to the
/// grid's `folder`; an error at the key if there is none.
fn existing_file(
    file: &GridFile,
    folder: &Path,
    (written, span): &(String, Range<usize>),
    what: &str,
) -> Result<PathBuf, Diagnostic> {
    let path = relative_to(folder, written);
    if path.is_file() {
        return Ok(path);
    }
    Err(file.error(
        span.clone(),
        format!(
            "{what} \"{}\" not found (the path is relative to the grid file)",
            path.display()
        ),
    ))
}

/// `path` seen from `folder`, with `..` after a named folder folded away
/// (`scenarios/../results/x.csv` → `results/x.csv`) so messages read plainly.
fn relative_to(folder: &Path, path: &str) -> PathBuf {
    let mut joined = PathBuf::new();
    for part in folder.join(path).components() {
        match part {
            Component::ParentDir if matches!(joined.components().next_back(), Some(Component::Normal(_))) => {
                joined.pop();
            }
            Component::CurDir => {}
            other => joined.push(other),
        }
    }
    joined
}

/// Collects axes in file order, flattening nested tables (`containers.web.boot
/// = [...]` without quotes is a TOML dotted key) into dotted paths; a table
/// under a path that names a key is that key's value (a range).
fn flatten<'a>(
    table: &'a DeTable<'a>,
    prefix: &str,
    entries: &mut Vec<(String, Range<usize>, &'a Spanned<DeValue<'a>>)>,
) -> Result<(), Positioned> {
    for (key, value) in table {
        let path = format!("{prefix}{}", key.get_ref());
        match value.get_ref() {
            DeValue::Table(inner)
                if !names_a_key(&path)
                    && !inner.keys().any(|k| RANGE_KEYS.contains(&k.get_ref().as_ref())) =>
            {
                flatten(inner, &format!("{path}."), entries)?;
            }
            _ => entries.push((path, key.span(), value)),
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests;
