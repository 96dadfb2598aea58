//! TOML scenarios: the document walked table by table, each key looked up in
//! the registry (`key`) and its value read for the key's unit, so the file
//! format and the registry cannot drift apart.
//!
//! Invariant: every key is known or refused with the closest valid one
//! suggested, every value is checked where it is written, and every error
//! points at the key or the value it is about; positions of what was read
//! are kept so a broken rule points at the key that breaks it.
//!
//! How one value is read for its unit is in `values`.

use std::ops::Range;

use toml::Spanned;
use toml::de::{DeTable, DeValue};

use super::Scenario;
use super::diagnostic::{Diagnostic, Layout, Problem};
use super::key::{Field, Group, Key, Scope, Value, path};
use super::rules::work::work_notices;
use super::rules::{Format, Rule, SpecProblem, check_spec, version_notices};

mod actions;
mod job;
mod restart;
mod service;
mod values;

pub use values::{ValueError, found, one_value, value};

/// A container's `restartPolicyRules`, read beside its registry keys.
const RESTART_RULES: &str = "restart_policy_rules";
use crate::engine::SimDuration;
use crate::model::{ContainerKind, ContainerSpec, PodSpec, RunSpec};

/// The top level's key that is not a setting.
const NAME: &str = "name";
/// Keys only a grid file has.
const GRID_ONLY: [&str; 2] = ["base", "axes"];

/// A TOML parse error as a diagnostic at its place.
pub fn syntax_error(origin: &str, text: &str, error: &toml::de::Error) -> Diagnostic {
    let message = error.message().trim_end();
    // The parser says only "duplicate key": name it, and what to do.
    let key = error
        .span()
        .and_then(|span| text.get(span))
        .map(|k| k.trim().trim_matches('"'))
        .filter(|k| !k.is_empty());
    match key {
        Some(key) if message == "duplicate key" => Diagnostic::error(
            origin,
            text,
            error.span(),
            format!("duplicate key \"{key}\": a key, or a [table], is written once; merge the two"),
        ),
        _ => Diagnostic::error(origin, text, error.span(), message),
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
        let word: &str = key.get_ref().as_ref();
        match (word, Scope::from_table(word)) {
            (NAME, _) => match value.get_ref() {
                DeValue::String(s) => name = s.to_string(),
                other => {
                    return Err(reader.error(value.span(), name_expected(other)));
                }
            },
            (_, Some(Scope::Pod)) => pod = Some(value),
            (_, Some(Scope::Container)) => containers = Some(value),
            (_, Some(Scope::Job)) => job = Some(value),
            (_, Some(Scope::Action)) => actions = Some(value),
            (_, Some(scope)) => service_tables.push((scope, key, value)),
            (word, None) if GRID_ONLY.contains(&word) => {
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
            return Err(reader.error(pod.span(), Problem::not_laid_out("pod", Layout::Table, "[pod]")));
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
    let mut notices: Vec<Diagnostic> = version_notices(&reader.run.pod)
        .into_iter()
        .map(|n| Diagnostic::whole(origin, n).warning())
        .collect();
    notices.extend(reader.budget_notice(&service_tables));
    for words in reader
        .run
        .service
        .as_deref()
        .map(work_notices)
        .unwrap_or_default()
    {
        notices.push(Diagnostic::whole(origin, words).warning());
    }
    if reader.run.service.as_ref().is_some_and(|s| s.traffic.is_none()) {
        let words = "no client sends the Service requests, so none can fail; add [traffic] rate = 50 \
                     (requests per second) to count them";
        notices.push(Diagnostic::whole(origin, words.to_string()).warning());
    }
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
    let mut keys = vec![NAME];
    keys.extend(Field::names(Scope::Run));
    keys.extend(Scope::TABLES.map(Scope::table));
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
    fn error(&self, span: Range<usize>, problem: impl Into<Problem>) -> Diagnostic {
        Diagnostic::error(self.origin, self.text, Some(span), problem)
    }

    /// `key`'s `value` (after `context`) is not what it takes, `expected`.
    fn expected(&self, value: &Spanned<DeValue>, context: &str, key: &str, expected: &str) -> Diagnostic {
        let found = found(value.get_ref());
        self.error(
            value.span(),
            Problem::expected(context, key, expected, Some(found)),
        )
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
        Diagnostic::error(self.origin, self.text, span, message)
    }

    /// `[[containers]]`: name, kind and boot first, then every other key.
    fn containers(&mut self, value: &Spanned<DeValue>) -> Result<(), Diagnostic> {
        let DeValue::Array(items) = value.get_ref() else {
            return Err(self.error(value.span(), list_of_tables("containers")));
        };
        for item in items.iter() {
            let DeValue::Table(table) = item.get_ref() else {
                return Err(self.error(item.span(), each_a_table("container", "containers")));
            };
            let index = self.run.pod.containers.len();
            let Some(name) = table.get("name") else {
                return Err(self.error(item.span(), "a container has no name; add name = \"…\""));
            };
            let DeValue::String(name_text) = name.get_ref() else {
                return Err(self.error(name.span(), name_expected(name.get_ref())));
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
                Value::Word(i) => ContainerKind::ALL[i.min(2)],
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
        if let Some(group) = path::group(scope, word) {
            let DeValue::Table(table) = value.get_ref() else {
                let such = format!("a table such as {word} = {{ {} = … }}", Field::names_in(group)[0]);
                return Err(self.error(value.span(), Problem::expected(context, word, such, None)));
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

/// `key` must be a list of tables, `[[key]]`.
fn list_of_tables(key: &str) -> Problem {
    Problem::not_laid_out(key, Layout::List("tables"), format!("[[{key}]]"))
}

/// Each entry of `[[list]]` must be a table.
fn each_a_table(entry: &str, list: &str) -> Problem {
    Problem::not_laid_out(entry, Layout::Entry, format!("[[{list}]]"))
}

/// A container's keys in the key reference's order: name, then its fields and
/// groups, then its restart rules.
fn container_keys() -> Vec<&'static str> {
    let mut keys = vec!["name"];
    keys.extend(Field::names(Scope::Container));
    keys.push(RESTART_RULES);
    keys
}

/// `name = …` written other than as a name in quotes.
fn name_expected(value: &DeValue) -> Problem {
    Problem::expected("", NAME, "a name in quotes", Some(found(value)))
}

/// The value of `field` as written, or the problem saying why not.
fn value_at(field: Field, item: &Spanned<DeValue>, context: &str) -> Result<Value, Problem> {
    value(field.unit(), item.get_ref())
        .and_then(|v| field.within_limit(v).map_err(ValueError::Invalid))
        .map_err(|e| e.problem(context, &field.name()))
}
