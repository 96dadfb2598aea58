//! TOML scenarios: the document walked table by table, each key looked up in
//! the registry (`key`) and its value read for the key's unit, so the file
//! format and the registry cannot drift apart.
//!
//! Invariant: every key is known or refused with the closest valid one
//! suggested, every value is checked where it is written, and every error
//! points at the key or the value it is about; positions of what was read
//! are kept so a broken rule points at the key that breaks it.

use std::ops::Range;

use toml::Spanned;
use toml::de::{DeTable, DeValue};

use super::diagnostic::{Diagnostic, Problem};
use super::dist::{dist_from_table, parse_probability};
use super::key::{Field, Group, Key, Scope, Unit, Value, word};
use super::rules::{Format, Rule, SpecProblem, check_spec, version_notices};
use super::{Scenario, parse_duration};

mod actions;
mod job;
mod restart;
mod service;

/// A container's `restartPolicyRules`, read beside its registry keys.
const RESTART_RULES: &str = "restart_policy_rules";
use crate::engine::SimDuration;
use crate::model::{ContainerKind, ContainerSpec, Drain, PodSpec, RunSpec};

/// Keys of the top level that are not settings.
const STRUCTURE: [&str; 9] = [
    "name",
    "pod",
    "containers",
    "job",
    "service",
    "traffic",
    "app",
    "disruptions",
    "actions",
];
/// Keys only a grid file has.
const GRID_ONLY: [&str; 2] = ["base", "axes"];

/// Why a value does not fit its key.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ValueError {
    /// A number where a duration belongs: the message says it all, whatever the key.
    BareNumber(String),
    /// A word that is not one of the unit's: the message names the unit.
    UnknownWord(String),
    /// Anything else; the reader prefixes the key.
    Invalid(String),
}

impl ValueError {
    /// The message alone, for a reader that says where it is by itself.
    pub fn text(&self) -> &str {
        match self {
            ValueError::BareNumber(m) | ValueError::UnknownWord(m) | ValueError::Invalid(m) => m,
        }
    }

    /// The message for `key` (a path such as `boot`) after `context`.
    pub fn message(&self, context: &str, key: &str) -> String {
        match self {
            ValueError::BareNumber(m) => m.clone(),
            ValueError::UnknownWord(m) => format!("{context}{m}"),
            ValueError::Invalid(m) => format!("{context}{key}: {m}"),
        }
    }
}

/// A TOML parse error as a diagnostic at its place.
pub fn syntax_error(origin: &str, text: &str, error: &toml::de::Error) -> Diagnostic {
    Diagnostic::at(origin, text, error.span(), error.message().trim_end())
}

/// One value of `unit` as written in TOML.
pub fn value(unit: Unit, item: &DeValue) -> Result<Value, ValueError> {
    match (unit, item) {
        (Unit::Millis, DeValue::String(s)) => {
            parse_duration(s).map(Value::Millis).map_err(ValueError::Invalid)
        }
        (Unit::Dist, DeValue::String(s)) => parse_duration(s).map(Value::Millis).map_err(ValueError::Invalid),
        (Unit::Drain, DeValue::String(s)) if s.as_ref() == Drain::NEVER => Ok(Value::Never),
        (Unit::Drain, DeValue::String(s)) => parse_duration(s).map(Value::Millis).map_err(|m| {
            ValueError::Invalid(format!("{m}; or \"never\" for a process that ignores SIGTERM"))
        }),
        (Unit::Drain, DeValue::Table(table)) => dist_from_table(table)
            .map(Value::from_dist)
            .map_err(ValueError::Invalid),
        (Unit::Dist, DeValue::Table(table)) => dist_from_table(table)
            .map(Value::from_dist)
            .map_err(ValueError::Invalid),
        (Unit::Millis, DeValue::Table(_)) => Err(ValueError::Invalid(
            "takes one duration in quotes such as \"1s\": it is a setting, not a time that varies \
             (distributions are for boot, drain, pre_stop, run and crash_after; sweep a setting as an axis)"
                .into(),
        )),
        (Unit::Millis | Unit::Dist | Unit::Drain | Unit::DistList, DeValue::Integer(i)) => {
            Err(ValueError::BareNumber(format!(
                "a duration needs a unit and quotes: write \"{i}s\" or \"{i}ms\", not {i}"
            )))
        }
        (Unit::Millis | Unit::Dist | Unit::Drain | Unit::DistList, DeValue::Float(f)) => {
            Err(ValueError::BareNumber(format!(
                "a duration needs a unit and quotes: write \"{f}s\", not {f}"
            )))
        }
        (Unit::DistList, DeValue::Array(items)) => items
            .iter()
            .map(|d| value(Unit::Dist, d.get_ref()).map(|v| v.to_dist()))
            .collect::<Result<Vec<_>, _>>()
            .map(Value::DistList),
        (Unit::Probability, DeValue::Float(f)) => parse_probability("", f.as_str())
            .map(Value::Probability)
            .map_err(ValueError::Invalid),
        (Unit::Probability, DeValue::Integer(i)) => parse_probability("", i.as_str())
            .map(Value::Probability)
            .map_err(ValueError::Invalid),
        (Unit::Count, DeValue::Integer(i)) => {
            let n = i64::from_str_radix(i.as_str(), i.radix())
                .map_err(|_| ValueError::Invalid(format!("{i} is too large")))?;
            if n < 0 {
                Err(ValueError::Invalid(format!(
                    "{i} is negative; a count is 0 or more"
                )))
            } else {
                u32::try_from(n)
                    .map(Value::Count)
                    .map_err(|_| ValueError::Invalid(format!("{i} is too large")))
            }
        }
        (Unit::Flag, DeValue::Boolean(b)) => Ok(Value::Flag(*b)),
        (Unit::Rate, DeValue::Float(f)) => super::key::parse_rate(f.as_str())
            .map(Value::Rate)
            .map_err(ValueError::Invalid),
        (Unit::Rate, DeValue::Integer(i)) => super::key::parse_rate(i.as_str())
            .map(Value::Rate)
            .map_err(ValueError::Invalid),
        (Unit::Propagation, DeValue::String(s)) => Unit::Propagation
            .parse_text("propagation", s)
            .map_err(ValueError::UnknownWord),
        (Unit::Propagation, DeValue::Table(table)) => dist_from_table(table)
            .map(Value::from_dist)
            .map_err(ValueError::Invalid),
        (Unit::Word { what, names }, DeValue::String(s)) => {
            word(what, names, s).map_err(ValueError::UnknownWord)
        }
        (Unit::Scaled, DeValue::Integer(i)) => Unit::Scaled
            .parse_text("", i.as_str())
            .map_err(|_| ValueError::Invalid(format!("{i} is not a count of Pods (0 or more)"))),
        (Unit::Scaled, DeValue::String(s)) if s.ends_with('%') => Unit::Scaled
            .parse_text("", s)
            .map_err(|_| ValueError::Invalid(format!("\"{s}\" is not a percentage such as \"25%\""))),
        (Unit::Pulls, DeValue::Integer(i)) => Unit::Pulls
            .parse_text("image_pull", i.as_str())
            .map_err(ValueError::Invalid),
        (Unit::Pulls, DeValue::String(s)) => Unit::Pulls
            .parse_text("image_pull", s)
            .map_err(ValueError::Invalid),
        (Unit::Version, DeValue::String(s)) => super::key::parse_kube_version(s)
            .map(Value::Version)
            .map_err(ValueError::UnknownWord),
        (_, other) => Err(ValueError::Invalid(format!(
            "expected {}, found {}",
            one_value(unit),
            type_name(other)
        ))),
    }
}

/// What a TOML value is, in words.
pub fn type_name(value: &DeValue) -> String {
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
pub fn one_value(unit: Unit) -> String {
    match unit {
        Unit::Millis => "a duration in quotes such as \"250ms\" or \"1s\"".into(),
        Unit::Dist => "a duration in quotes such as \"250ms\", or a distribution such as \
                       { dist = \"lognormal\", median = \"3s\", p99 = \"10s\" }"
            .into(),
        Unit::Drain => {
            "a duration in quotes such as \"250ms\", a distribution, or \"never\" (it ignores SIGTERM)".into()
        }
        Unit::DistList => "a list of durations such as [\"30s\", \"10s\"]".into(),
        Unit::Probability => "a number from 0 to 1 such as 0.2 (no quotes)".into(),
        Unit::Count => "an integer such as 0 or 3 (no quotes)".into(),
        Unit::Flag => "true or false (no quotes)".into(),
        Unit::Word { names, .. } => format!("one of {} (in quotes)", names.join(", ")),
        Unit::Version => "a version in quotes such as \"1.33\"".into(),
        Unit::Rate => "a number of requests per second above 0 such as 8.3 (no quotes)".into(),
        Unit::Scaled => {
            "a count of Pods such as 1 (no quotes) or a percentage in quotes such as \"25%\"".into()
        }
        Unit::Pulls => "a count of failed pulls such as 2 (no quotes), or \"fails\"".into(),
        Unit::Propagation => format!(
            "a preset in quotes ({}), a duration such as \"2s\" or a distribution",
            crate::model::service::Preset::NAMES.join(", ")
        ),
    }
}

/// Reads and validates scenario text; `origin` names it in errors.
pub fn parse(text: &str, origin: &str) -> Result<Scenario, Diagnostic> {
    let doc = DeTable::parse(text).map_err(|e| syntax_error(origin, text, &e))?;
    let mut reader = Reader {
        origin,
        text,
        run: RunSpec::new(PodSpec::new(Vec::new())),
        spans: Vec::new(),
        containers: Vec::new(),
        deletion: None,
    };
    let mut name = String::new();
    let (mut pod, mut containers, mut job, mut actions) = (None, None, None, None);
    // The Service's tables: `[service]` first, so the others know it exists.
    let mut service_tables: Vec<(Scope, &Spanned<toml::de::DeString>, &Spanned<DeValue>)> = Vec::new();
    for (key, value) in doc.get_ref() {
        match key.get_ref().as_ref() {
            "name" => match value.get_ref() {
                DeValue::String(s) => name = s.to_string(),
                other => {
                    return Err(reader.error(
                        value.span(),
                        format!("name: expected a name in quotes, found {}", type_name(other)),
                    ));
                }
            },
            "pod" => pod = Some(value),
            "containers" => containers = Some(value),
            "job" => job = Some(value),
            "actions" => actions = Some(value),
            word if Scope::SERVICE.iter().any(|s| s.table() == word) => {
                let scope = Scope::SERVICE
                    .into_iter()
                    .find(|s| s.table() == word)
                    .unwrap_or(Scope::Service);
                service_tables.push((scope, key, value));
            }
            word if GRID_ONLY.contains(&word) => {
                return Err(Diagnostic::error(
                    origin,
                    text,
                    Some(key.span()),
                    Problem::GridNotScenario { key: word.into() },
                ));
            }
            _ => reader.setting(Scope::Run, None, "", key, value, top_keys())?,
        }
    }
    if let Some(containers) = containers {
        reader.containers(containers)?;
    }
    if let Some(pod) = pod {
        let DeValue::Table(table) = pod.get_ref() else {
            return Err(reader.error(pod.span(), "pod must be a table: write [pod]"));
        };
        reader.table(Scope::Pod, None, "", table)?;
    }
    if let Some(job) = job {
        reader.job(job)?;
    }
    reader.service(&service_tables)?;
    if let Some(actions) = actions {
        reader.actions(actions)?;
    }
    if let Err(problem) = check_spec(&reader.run.pod) {
        return Err(reader.rule(&problem));
    }
    let notices = version_notices(&reader.run.pod)
        .into_iter()
        .map(|n| Diagnostic::whole(origin, n).warning())
        .collect();
    Ok(Scenario {
        name,
        origin: origin.to_string(),
        run: reader.run,
        workload: None,
        notices,
    })
}

/// The top level's keys, for suggestions: name, the run's fields, the tables.
fn top_keys() -> Vec<&'static str> {
    let mut keys = vec![STRUCTURE[0]];
    keys.extend(Field::names(Scope::Run));
    keys.extend(&STRUCTURE[1..]);
    keys
}

/// Where something was written, to point a broken rule at it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Spot {
    Field(Field),
    Group(Group),
    Name,
}

/// A container (or the Pod, `None`) and what of it was written.
type Placed = (Option<usize>, Spot);

struct Reader<'a> {
    origin: &'a str,
    text: &'a str,
    run: RunSpec,
    /// Where each thing was written: (container, what) and its span.
    spans: Vec<(Placed, Range<usize>)>,
    /// Each container's table span, by index.
    containers: Vec<Range<usize>>,
    /// The deletion key written first, to refuse a second.
    deletion: Option<Field>,
}

impl Reader<'_> {
    fn error(&self, span: Range<usize>, message: impl Into<String>) -> Diagnostic {
        Diagnostic::at(self.origin, self.text, Some(span), message)
    }

    /// A broken rule, pointed at what breaks it.
    fn rule(&self, problem: &SpecProblem) -> Diagnostic {
        let c = problem.container;
        let find = |spot: Spot| {
            self.spans
                .iter()
                .find(|((i, s), _)| *i == c && *s == spot)
                .map(|(_, span)| span.clone())
        };
        let span = match problem.field {
            None => find(Spot::Name),
            Some(field) => {
                find(Spot::Field(field)).or_else(|| field.group().and_then(|g| find(Spot::Group(g))))
            }
        }
        .or_else(|| c.and_then(|i| self.containers.get(i).cloned()));
        let message = problem.message(&self.run.pod, Format::Toml);
        Diagnostic::at(self.origin, self.text, span, message)
    }

    /// `[[containers]]`: name, kind and boot first, then every other key.
    fn containers(&mut self, value: &Spanned<DeValue>) -> Result<(), Diagnostic> {
        let DeValue::Array(items) = value.get_ref() else {
            return Err(self.error(
                value.span(),
                "containers must be a list of tables: write [[containers]]",
            ));
        };
        for item in items.iter() {
            let DeValue::Table(table) = item.get_ref() else {
                return Err(self.error(item.span(), "each container is a table: write [[containers]]"));
            };
            let index = self.run.pod.containers.len();
            let Some(name) = table.get("name") else {
                return Err(self.error(item.span(), "a container has no name; add name = \"…\""));
            };
            let DeValue::String(name_text) = name.get_ref() else {
                return Err(self.error(
                    name.span(),
                    format!(
                        "name: expected a name in quotes, found {}",
                        type_name(name.get_ref())
                    ),
                ));
            };
            if name_text.is_empty() {
                return Err(self.error(name.span(), "container name is empty"));
            }
            let context = format!("container \"{name_text}\": ");
            // Unknown keys first, in the order written, as a reader meets them.
            let valid = container_keys();
            for (key, _) in table.iter() {
                let word = key.get_ref().as_ref();
                if word != "name" && !valid.contains(&word) {
                    return Err(self.unknown(key, &valid));
                }
            }
            let required = |field: Field| {
                table.get(field.leaf()).ok_or_else(|| {
                    self.error(
                        item.span(),
                        format!("{context}{} is missing; every container needs one", field.leaf()),
                    )
                })
            };
            let kind_value = required(Field::Kind)?;
            required(Field::Boot)?;
            let kind = match value_at(Field::Kind, kind_value, &context)
                .map_err(|m| self.error(kind_value.span(), m))?
            {
                Value::Word(i) => [ContainerKind::Init, ContainerKind::Sidecar, ContainerKind::App][i.min(2)],
                _ => ContainerKind::App,
            };
            self.run
                .pod
                .containers
                .push(ContainerSpec::new(name_text, kind, SimDuration::ZERO));
            self.containers.push(item.span());
            self.spans.push(((Some(index), Spot::Name), name.span()));
            self.spans
                .push(((Some(index), Spot::Field(Field::Kind)), kind_value.span()));
            for (key, value) in table.iter() {
                match key.get_ref().as_ref() {
                    "name" | "kind" => {}
                    RESTART_RULES => self.restart_rules(index, &context, value)?,
                    _ => self.setting(Scope::Container, Some(index), &context, key, value, valid.clone())?,
                }
            }
        }
        Ok(())
    }

    /// Every key of a scope's table (or of a group's, with `prefix`).
    fn table(
        &mut self,
        scope: Scope,
        container: Option<usize>,
        context: &str,
        table: &DeTable,
    ) -> Result<(), Diagnostic> {
        let valid = Field::names(scope);
        for (key, value) in table.iter() {
            self.setting(scope, container, context, key, value, valid.clone())?;
        }
        Ok(())
    }

    /// One `key = value` of `scope`: a field, or a group's table of fields.
    fn setting(
        &mut self,
        scope: Scope,
        container: Option<usize>,
        context: &str,
        key: &Spanned<toml::de::DeString>,
        value: &Spanned<DeValue>,
        valid: Vec<&'static str>,
    ) -> Result<(), Diagnostic> {
        let word: &str = key.get_ref().as_ref();
        if let Some(group) = Group::ALL
            .into_iter()
            .find(|g| g.scope() == scope && g.name() == word)
        {
            let DeValue::Table(table) = value.get_ref() else {
                return Err(self.error(
                    value.span(),
                    format!(
                        "{context}{word}: expected a table such as {word} = {{ {} = … }}",
                        Field::names_in(group)[0]
                    ),
                ));
            };
            group.open(&mut self.run, container);
            self.spans.push(((container, Spot::Group(group)), value.span()));
            let inner = Field::names_in(group);
            for (key, value) in table.iter() {
                let leaf: &str = key.get_ref().as_ref();
                let Some(field) = Field::find(scope, &format!("{word}.{leaf}")) else {
                    return Err(self.unknown(key, &inner));
                };
                self.set(field, container, context, value)?;
            }
            return Ok(());
        }
        let Some(field) = Field::find(scope, word) else {
            return Err(self.unknown(key, &valid));
        };
        self.set(field, container, context, value)
    }

    fn set(
        &mut self,
        field: Field,
        container: Option<usize>,
        context: &str,
        value: &Spanned<DeValue>,
    ) -> Result<(), Diagnostic> {
        let parsed = value_at(field, value, context).map_err(|m| self.error(value.span(), m))?;
        if matches!(field, Field::StopAt | Field::StopAfterReady) {
            if self.deletion.is_some_and(|first| first != field) {
                let problem = SpecProblem {
                    container: None,
                    field: Some(field),
                    rule: Rule::TwoDeletions,
                };
                return Err(self.error(value.span(), problem.message(&self.run.pod, Format::Toml)));
            }
            self.deletion = Some(field);
        }
        self.spans.push(((container, Spot::Field(field)), value.span()));
        let key = Key { field, container };
        key.set(&mut self.run, &parsed);
        Ok(())
    }

    fn unknown(&self, key: &Spanned<toml::de::DeString>, valid: &[&str]) -> Diagnostic {
        Diagnostic::unknown_key(self.origin, self.text, key.span(), key.get_ref(), valid)
    }
}

/// A container's keys in the README's order: name, then its fields and
/// groups, then its restart rules.
fn container_keys() -> Vec<&'static str> {
    let mut keys = vec!["name"];
    keys.extend(Field::names(Scope::Container));
    keys.push(RESTART_RULES);
    keys
}

/// The value of `field` as written, or the message saying why not.
fn value_at(field: Field, item: &Spanned<DeValue>, context: &str) -> Result<Value, String> {
    value(field.unit(), item.get_ref()).map_err(|e| e.message(context, &field.name()))
}
