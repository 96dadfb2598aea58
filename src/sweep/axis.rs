//! One axis of a grid: the scenario key it names, resolved once to a typed
//! `Target`, and its values (a list or a lazy range), each encoded as a `u64`.
//!
//! Invariant: every value an `Axis` holds was parsed for its target's `Unit`,
//! so `Target::apply` decodes it without checks or failure.

use std::ops::Range;

use toml::Spanned;
use toml::de::{DeTable, DeValue};

use crate::engine::SimDuration;
use crate::model::{
    Backoff, ContainerKind, Deletion, KubeVersion, PodMode, PodSpec, Probe, ProbeKind, RestartPolicy, RunSpec,
};
use crate::report::csv;
use crate::scenario::raw::{BACKOFF_KEYS, CONTAINER_KEYS, POD_KEYS, PROBE_KEYS};
use crate::scenario::{closest, parse_duration, unknown_word};

/// The keys of a range axis.
pub(super) const RANGE_KEYS: &[&str] = &["from", "to", "step"];
const FLAG_NAMES: &[&str] = &["false", "true"];
/// Decoding tables for word values: a value is the index of its name.
const KINDS: [ContainerKind; 3] = [ContainerKind::Init, ContainerKind::Sidecar, ContainerKind::App];
const POLICIES: [RestartPolicy; 3] = [
    RestartPolicy::Always,
    RestartPolicy::OnFailure,
    RestartPolicy::Never,
];
const MODES: [PodMode; 2] = [PodMode::Service, PodMode::Job];
const MODE_NAMES: [&str; 2] = ["service", "job"];
/// Kubernetes versions as words, `"1.20"` … `"1.36"`; a value is minor − 20.
const VERSION_NAMES: [&str; 17] = [
    "1.20", "1.21", "1.22", "1.23", "1.24", "1.25", "1.26", "1.27", "1.28", "1.29", "1.30", "1.31", "1.32",
    "1.33", "1.34", "1.35", "1.36",
];
/// The rule classes of pod-level axes are combined with every container's.
const POD: usize = usize::MAX;

/// One swept key and its values.
#[derive(Clone, Debug)]
pub struct Axis {
    /// The path as written, e.g. `containers.web.boot`.
    pub path: String,
    pub target: Target,
    pub values: Values,
}

/// An axis's values, each encoded as a `u64` its `Target` decodes:
/// milliseconds, a count, or the index of a word in the target's names.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Values {
    List(Vec<u64>),
    /// `from`, `from + step`, … (`len` values), kept lazy so a fine range costs nothing.
    Range {
        from: u64,
        step: u64,
        len: u64,
    },
}

impl Values {
    pub fn len(&self) -> u64 {
        match self {
            Values::List(list) => list.len() as u64,
            Values::Range { len, .. } => *len,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The value at `index` (< `len`).
    pub fn get(&self, index: u64) -> u64 {
        match self {
            Values::List(list) => list[index as usize],
            Values::Range { from, step, .. } => from + step * index,
        }
    }
}

/// A scenario key resolved once, before any run, to the field it sets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    Horizon,
    RestartPolicy,
    TerminationGracePeriod,
    /// Sets the deletion to `stop_at`, whatever the base scenario said.
    StopAt,
    /// Sets the deletion to `stop_after_ready`, whatever the base scenario said.
    StopAfterReady,
    BackoffInitial,
    BackoffCap,
    BackoffImmediateFirstRestart,
    ContainerKind(usize),
    ContainerBoot(usize),
    ContainerDrain(usize),
    ContainerPreStop(usize),
    ContainerFails(usize),
    ContainerProxy(usize),
    Mode,
    Kubernetes,
    /// `run`: the app exits this long after it is healthy.
    ContainerRun(usize),
    ContainerExitCode(usize),
    /// `crash_after` with one duration: the first attempt crashes then.
    ContainerCrashAfter(usize),
    /// One field of a probe; a container without that probe gets Kubernetes'
    /// defaults for the others.
    ContainerProbe(usize, ProbeKind, ProbeField),
}

/// The sweepable fields of a probe (`PROBE_KEYS` but the kill grace).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ProbeField {
    InitialDelay,
    Period,
    Timeout,
    SuccessThreshold,
    FailureThreshold,
}

/// What kind of value a target takes, which decides how it is parsed and written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unit {
    /// A duration, written in CSV as integer milliseconds (column `<path>_ms`).
    Millis,
    Count,
    Flag,
    /// One of these words (`what` names them in messages).
    Word {
        what: &'static str,
        names: &'static [&'static str],
    },
}

impl Target {
    pub fn unit(self) -> Unit {
        match self {
            Target::Horizon
            | Target::TerminationGracePeriod
            | Target::StopAt
            | Target::StopAfterReady
            | Target::BackoffInitial
            | Target::BackoffCap
            | Target::ContainerBoot(_)
            | Target::ContainerDrain(_)
            | Target::ContainerPreStop(_)
            | Target::ContainerRun(_)
            | Target::ContainerCrashAfter(_) => Unit::Millis,
            Target::ContainerProbe(_, _, field) => match field {
                ProbeField::InitialDelay | ProbeField::Period | ProbeField::Timeout => Unit::Millis,
                ProbeField::SuccessThreshold | ProbeField::FailureThreshold => Unit::Count,
            },
            Target::ContainerFails(_) | Target::ContainerExitCode(_) => Unit::Count,
            Target::Mode => Unit::Word {
                what: "mode",
                names: &MODE_NAMES,
            },
            Target::Kubernetes => Unit::Word {
                what: "kubernetes version",
                names: &VERSION_NAMES,
            },
            Target::BackoffImmediateFirstRestart | Target::ContainerProxy(_) => Unit::Flag,
            Target::RestartPolicy => Unit::Word {
                what: "restart_policy",
                names: &RestartPolicy::NAMES,
            },
            Target::ContainerKind(_) => Unit::Word {
                what: "kind",
                names: &ContainerKind::NAMES,
            },
        }
    }

    /// Sets the field to `value` (encoded as `Values` says). Cheap: a sweep
    /// calls it for every changed axis of every run.
    pub fn apply(self, value: u64, run: &mut RunSpec) {
        let ms = SimDuration::from_millis(value);
        let spec = &mut run.pod;
        match self {
            Target::Horizon => run.horizon = ms,
            Target::RestartPolicy => spec.restart_policy = POLICIES[value as usize],
            Target::TerminationGracePeriod => spec.termination_grace_period = ms,
            Target::StopAt => spec.deletion = Deletion::At(ms),
            Target::StopAfterReady => spec.deletion = Deletion::AfterReady(ms),
            Target::BackoffInitial => spec.backoff.initial = ms,
            Target::BackoffCap => spec.backoff.cap = ms,
            Target::BackoffImmediateFirstRestart => spec.backoff.immediate_first_restart = value != 0,
            Target::ContainerKind(i) => spec.containers[i].kind = KINDS[value as usize],
            Target::ContainerBoot(i) => spec.containers[i].boot = ms,
            Target::ContainerDrain(i) => spec.containers[i].drain = ms,
            Target::ContainerPreStop(i) => spec.containers[i].pre_stop = ms,
            Target::ContainerFails(i) => spec.containers[i].fails = value as u32,
            Target::ContainerProxy(i) => spec.containers[i].proxy = value != 0,
            Target::Mode => spec.mode = MODES[value as usize],
            Target::Kubernetes => spec.kubernetes = KubeVersion(KubeVersion::OLDEST.0 + value as u32),
            Target::ContainerRun(i) => spec.containers[i].run = Some(ms),
            Target::ContainerExitCode(i) => spec.containers[i].exit_code = value as i32,
            Target::ContainerCrashAfter(i) => {
                // Reuses the list's allocation run after run.
                let crashes = &mut spec.containers[i].crash_after;
                crashes.clear();
                crashes.push(ms);
            }
            Target::ContainerProbe(i, kind, field) => {
                let probe = spec.containers[i].probes[kind.index()].get_or_insert_with(Probe::default);
                match field {
                    ProbeField::InitialDelay => probe.initial_delay = ms,
                    ProbeField::Period => probe.period = ms,
                    ProbeField::Timeout => probe.timeout = ms,
                    ProbeField::SuccessThreshold => probe.success_threshold = value as u32,
                    ProbeField::FailureThreshold => probe.failure_threshold = value as u32,
                }
            }
        }
    }

    /// Whether setting `value` makes a container an app.
    pub(super) fn makes_app(self, value: u64) -> bool {
        matches!(self, Target::ContainerKind(_)) && KINDS[value as usize] == ContainerKind::App
    }

    /// For `check_spec`, which only looks at kinds, at whether drain and
    /// pre_stop are zero, and at the proxy flag: the class of `value` (values
    /// of one class pass or fail the same rules), or `None` if this target
    /// cannot affect any rule.
    /// Pod-level axes that a rule reads (`POD` as the container) are
    /// combined with every container's.
    pub(super) fn rule_class(self, value: u64) -> Option<(usize, u64)> {
        let second = 1000;
        match self {
            Target::ContainerKind(i) | Target::ContainerProxy(i) => Some((i, value)),
            Target::ContainerDrain(i) | Target::ContainerPreStop(i) | Target::ContainerExitCode(i) => {
                Some((i, u64::from(value > 0)))
            }
            // Present whatever the value: only the container's kind decides.
            Target::ContainerRun(i) | Target::ContainerCrashAfter(i) => Some((i, 0)),
            Target::ContainerProbe(i, _, field) => Some((
                i,
                match field {
                    ProbeField::InitialDelay => 0,
                    ProbeField::Period | ProbeField::Timeout => u64::from(value >= second),
                    ProbeField::SuccessThreshold | ProbeField::FailureThreshold => value.min(2),
                },
            )),
            Target::Mode => Some((POD, value)),
            Target::RestartPolicy => {
                Some((POD, u64::from(POLICIES[value as usize] == RestartPolicy::Always)))
            }
            Target::Kubernetes => {
                let version = KubeVersion(KubeVersion::OLDEST.0 + value as u32);
                let cap = version.configurable_backoff_cap().is_some();
                Some((POD, u64::from(version.has_native_sidecars()) * 2 + u64::from(cap)))
            }
            Target::BackoffCap => Some((POD, u64::from(value == Backoff::default().cap.as_millis()))),
            _ => None,
        }
    }
}

impl Axis {
    /// The CSV column: the path, with `_ms` for durations.
    pub fn column(&self) -> String {
        match self.target.unit() {
            Unit::Millis => format!("{}_ms", self.path),
            _ => self.path.clone(),
        }
    }

    /// Appends the CSV cell of value `index`.
    pub fn push_cell(&self, buf: &mut Vec<u8>, index: u64) {
        let value = self.values.get(index);
        match self.target.unit() {
            Unit::Millis | Unit::Count => csv::push_u64(buf, value),
            Unit::Flag => buf.extend_from_slice(FLAG_NAMES[value as usize].as_bytes()),
            Unit::Word { names, .. } => buf.extend_from_slice(names[value as usize].as_bytes()),
        }
    }

    /// Value `index` as a person would write it in the grid file.
    pub(super) fn describe(&self, index: u64) -> String {
        let value = self.values.get(index);
        match self.target.unit() {
            Unit::Millis => SimDuration::from_millis(value).to_string(),
            Unit::Count => value.to_string(),
            Unit::Flag => FLAG_NAMES[value as usize].to_string(),
            Unit::Word { names, .. } => format!("\"{}\"", names[value as usize]),
        }
    }
}

/// Two targets that write the same field (`stop_at` and `stop_after_ready`
/// both set the deletion) cannot both be swept.
pub(super) fn same_field(a: Target, b: Target) -> bool {
    let deletion = |t| matches!(t, Target::StopAt | Target::StopAfterReady);
    a == b || (deletion(a) && deletion(b))
}

pub(super) type Positioned = (Range<usize>, String);

/// Resolves an axis path against the base spec, or says what paths exist.
pub(super) fn resolve(path: &str, spec: &PodSpec) -> Result<Target, String> {
    let parts: Vec<&str> = path.split('.').collect();
    let target = match parts.as_slice() {
        ["horizon"] => Some(Target::Horizon),
        ["name"] => return Err("\"name\" only labels the scenario; it cannot be swept".into()),
        ["pod", "restart_policy"] => Some(Target::RestartPolicy),
        ["pod", "termination_grace_period"] => Some(Target::TerminationGracePeriod),
        ["pod", "stop_at"] => Some(Target::StopAt),
        ["pod", "stop_after_ready"] => Some(Target::StopAfterReady),
        ["pod", "backoff", "initial"] => Some(Target::BackoffInitial),
        ["pod", "backoff", "cap"] => Some(Target::BackoffCap),
        ["pod", "backoff", "immediate_first_restart"] => Some(Target::BackoffImmediateFirstRestart),
        ["pod", "mode"] => Some(Target::Mode),
        ["pod", "kubernetes"] => Some(Target::Kubernetes),
        // A probe field: containers.<name>.<probe>.<field>.
        ["containers", middle @ .., probe, field]
            if !middle.is_empty() && probe.ends_with("_probe") && PROBE_KEYS.contains(field) =>
        {
            let i = container_index(path, &middle.join("."), spec)?;
            let kind = match *probe {
                "startup_probe" => ProbeKind::Startup,
                "readiness_probe" => ProbeKind::Readiness,
                "liveness_probe" => ProbeKind::Liveness,
                _ => {
                    return Err(format!(
                        "axis \"{path}\": unknown probe \"{probe}\"; expected startup_probe, readiness_probe or liveness_probe"
                    ));
                }
            };
            let field = match *field {
                "initial_delay" => ProbeField::InitialDelay,
                "period" => ProbeField::Period,
                "timeout" => ProbeField::Timeout,
                "success_threshold" => ProbeField::SuccessThreshold,
                "failure_threshold" => ProbeField::FailureThreshold,
                _ => {
                    return Err(format!(
                        "axis \"{path}\": a probe's termination_grace_period cannot be swept"
                    ));
                }
            };
            Some(Target::ContainerProbe(i, kind, field))
        }
        // A container's name may itself hold dots: the key is the last part.
        ["containers", middle @ .., key] if !middle.is_empty() => {
            let name = middle.join(".");
            let i = container_index(path, &name, spec)?;
            match *key {
                "kind" => Some(Target::ContainerKind(i)),
                "boot" => Some(Target::ContainerBoot(i)),
                "drain" => Some(Target::ContainerDrain(i)),
                "pre_stop" => Some(Target::ContainerPreStop(i)),
                "fails" => Some(Target::ContainerFails(i)),
                "proxy" => Some(Target::ContainerProxy(i)),
                "run" => Some(Target::ContainerRun(i)),
                "exit_code" => Some(Target::ContainerExitCode(i)),
                "crash_after" => Some(Target::ContainerCrashAfter(i)),
                "name" => return Err(format!("axis \"{path}\": a container's name cannot be swept")),
                _ => None,
            }
        }
        _ => None,
    };
    target.ok_or_else(|| {
        let valid = sweepable_paths(spec);
        let valid: Vec<&str> = valid.iter().map(String::as_str).collect();
        let hint = closest(path, &valid)
            .map(|v| format!("did you mean \"{v}\"? "))
            .unwrap_or_default();
        let names: Vec<&str> = spec.containers.iter().map(|c| c.name.as_str()).collect();
        format!(
            "unknown axis \"{path}\"; {hint}an axis is a scenario key: horizon, pod.{}, pod.backoff.{{{}}}, \
             or containers.<name>.{{{}}} with <name> one of {}",
            POD_KEYS
                .iter()
                .filter(|k| **k != "backoff")
                .copied()
                .collect::<Vec<_>>()
                .join(", pod."),
            BACKOFF_KEYS.join(","),
            CONTAINER_KEYS
                .iter()
                .filter(|k| **k != "name")
                .copied()
                .collect::<Vec<_>>()
                .join(","),
            names.join(", ")
        )
    })
}

/// Every path an axis may name for this base (for suggestions).
fn sweepable_paths(spec: &PodSpec) -> Vec<String> {
    let mut paths = vec!["horizon".to_string()];
    paths.extend(
        POD_KEYS
            .iter()
            .filter(|k| **k != "backoff")
            .map(|k| format!("pod.{k}")),
    );
    paths.extend(BACKOFF_KEYS.iter().map(|k| format!("pod.backoff.{k}")));
    for c in &spec.containers {
        paths.extend(
            CONTAINER_KEYS
                .iter()
                .filter(|k| **k != "name")
                .map(|k| format!("containers.{}.{k}", c.name)),
        );
    }
    paths
}

/// An axis's values: a list, or a `{ from, to, step }` range of durations or integers.
pub(super) fn parse_values(value: &Spanned<DeValue>, unit: Unit) -> Result<Values, Positioned> {
    match value.get_ref() {
        DeValue::Array(items) => {
            if items.is_empty() {
                return Err((value.span(), "no values; give at least one".into()));
            }
            let list = items
                .iter()
                .map(|item| scalar(item, unit).map_err(|m| (item.span(), m)))
                .collect::<Result<Vec<u64>, _>>()?;
            Ok(Values::List(list))
        }
        DeValue::Table(table) => parse_range(value.span(), table, unit),
        _ => Err((
            value.span(),
            format!(
                "expected a list such as {}{}",
                list_example(unit),
                match unit {
                    Unit::Millis | Unit::Count => format!(" or a range such as {}", range_example(unit)),
                    _ => String::new(),
                }
            ),
        )),
    }
}

fn parse_range(span: Range<usize>, table: &DeTable, unit: Unit) -> Result<Values, Positioned> {
    if !matches!(unit, Unit::Millis | Unit::Count) {
        return Err((
            span,
            format!(
                "a range needs durations or integers; list the values instead, e.g. {}",
                list_example(unit)
            ),
        ));
    }
    let (mut from, mut to, mut step) = (None, None, None);
    for (key, value) in table {
        let slot = match key.get_ref().as_ref() {
            "from" => &mut from,
            "to" => &mut to,
            "step" => &mut step,
            other => return Err((key.span(), unknown_word("range key", other, RANGE_KEYS))),
        };
        *slot = Some(value);
    }
    let (Some(from), Some(to), Some(step)) = (from, to, step) else {
        return Err((
            span,
            format!("a range needs from, to and step, e.g. {}", range_example(unit)),
        ));
    };
    let negative = match step.get_ref() {
        DeValue::String(s) => s.trim_start().starts_with('-'),
        DeValue::Integer(i) => i.as_str().starts_with('-'),
        _ => false,
    };
    let step_value = if negative {
        0
    } else {
        scalar(step, unit).map_err(|m| (step.span(), m))?
    };
    if step_value == 0 {
        return Err((step.span(), "step must be greater than zero".into()));
    }
    let from_value = scalar(from, unit).map_err(|m| (from.span(), m))?;
    let to_value = scalar(to, unit).map_err(|m| (to.span(), m))?;
    if to_value < from_value {
        return Err((
            to.span(),
            format!(
                "to ({}) is before from ({}); a range counts up from `from` to `to` inclusive",
                shown(to_value, unit),
                shown(from_value, unit)
            ),
        ));
    }
    Ok(Values::Range {
        from: from_value,
        step: step_value,
        len: (to_value - from_value) / step_value + 1,
    })
}

/// One value, encoded for `Target::apply`.
fn scalar(item: &Spanned<DeValue>, unit: Unit) -> Result<u64, String> {
    match (unit, item.get_ref()) {
        (Unit::Millis, DeValue::String(s)) => parse_duration(s).map(|d| d.as_millis()),
        (Unit::Millis, DeValue::Integer(i)) => Err(format!(
            "a duration needs a unit and quotes: write \"{i}s\" or \"{i}ms\", not {i}"
        )),
        (Unit::Count, DeValue::Integer(i)) => {
            let n = i64::from_str_radix(i.as_str(), i.radix()).map_err(|_| format!("{i} is too large"))?;
            if n < 0 {
                Err(format!("{i} is negative; a count is 0 or more"))
            } else {
                u32::try_from(n)
                    .map(u64::from)
                    .map_err(|_| format!("{i} is too large"))
            }
        }
        (Unit::Flag, DeValue::Boolean(b)) => Ok(u64::from(*b)),
        (Unit::Word { what, names }, DeValue::String(s)) => names
            .iter()
            .position(|n| n == s)
            .map(|i| i as u64)
            .ok_or_else(|| unknown_word(what, s, names)),
        (_, other) => Err(format!(
            "expected {}, found {}",
            one_value(unit),
            type_name(other)
        )),
    }
}

fn type_name(value: &DeValue) -> String {
    match value {
        DeValue::String(s) => format!("the string \"{s}\""),
        DeValue::Integer(i) => format!("the integer {i}"),
        DeValue::Float(f) => format!("the number {f}"),
        DeValue::Boolean(b) => format!("{b}"),
        DeValue::Datetime(_) => "a date".into(),
        DeValue::Array(_) => "a list".into(),
        DeValue::Table(_) => "a table".into(),
    }
}

/// What one value of `unit` looks like, for "expected …, found …".
fn one_value(unit: Unit) -> String {
    match unit {
        Unit::Millis => "a duration in quotes such as \"250ms\" or \"1s\"".into(),
        Unit::Count => "an integer such as 0 or 3 (no quotes)".into(),
        Unit::Flag => "true or false (no quotes)".into(),
        Unit::Word { names, .. } => format!("one of {} (in quotes)", names.join(", ")),
    }
}

/// A list of values of `unit` as it would be written in the grid.
fn list_example(unit: Unit) -> String {
    match unit {
        Unit::Millis => "[\"250ms\", \"1s\"]".into(),
        Unit::Count => "[0, 1, 2]".into(),
        Unit::Flag => "[true, false]".into(),
        Unit::Word { names, .. } => format!(
            "[{}]",
            names
                .iter()
                .map(|n| format!("\"{n}\""))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

fn range_example(unit: Unit) -> &'static str {
    match unit {
        Unit::Count => "{ from = 0, to = 5, step = 1 }",
        _ => "{ from = \"0s\", to = \"5s\", step = \"250ms\" }",
    }
}

fn shown(value: u64, unit: Unit) -> String {
    match unit {
        Unit::Millis => SimDuration::from_millis(value).to_string(),
        _ => value.to_string(),
    }
}

/// The index of container `name` in the base, or the error naming the valid ones.
fn container_index(path: &str, name: &str, spec: &PodSpec) -> Result<usize, String> {
    spec.containers
        .iter()
        .position(|c| c.name == name)
        .ok_or_else(|| {
            let names: Vec<&str> = spec.containers.iter().map(|c| c.name.as_str()).collect();
            format!("axis \"{path}\": {}", unknown_word("container", name, &names))
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decoding_tables_follow_the_name_lists() {
        for (i, kind) in KINDS.iter().enumerate() {
            assert_eq!(kind.name(), ContainerKind::NAMES[i]);
        }
        for (i, policy) in POLICIES.iter().enumerate() {
            assert_eq!(policy.name(), RestartPolicy::NAMES[i]);
        }
    }
}
