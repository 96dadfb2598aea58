//! One axis of a grid: the scenario key it names, resolved once against the
//! base to a `Key` of the registry, and its values (a list or a lazy range),
//! each encoded as a `u64` of the key's unit.
//!
//! Invariant: every value an `Axis` holds was parsed for its key's unit, so
//! applying it decodes without checks or failure.
//!
//! The parsing of an axis's values (a list or a range, checked against
//! the unit) is in `values`.

mod values;

pub(super) use values::parse_values;

use std::ops::Range;

use super::csv;
use crate::model::{Dist, PodMode, RunSpec};
use crate::scenario::diagnostic::{AxisWrong, Entry};
use crate::scenario::key::path::{self, PathError, Place, Spelling};
use crate::scenario::key::{Field, Key, Scope, Unit, Value};
use crate::scenario::{Problem, closest};

/// The keys of a range axis.
pub(super) const RANGE_KEYS: &[&str] = &["from", "to", "step"];

/// One swept key and its values.
#[derive(Clone, Debug)]
pub struct Axis {
    /// The path as written, e.g. `containers.web.boot`.
    pub path: String,
    /// The key it sets on each run's spec.
    pub key: Key,
    /// The values, in the order runs take them.
    pub values: Values,
    /// The unit of one value, looked up once (`Field::unit` is a long match).
    unit: Unit,
    /// A list's values decoded, each with its cell, once when the grid is
    /// checked: applying one or writing its cell, which a sweep does for
    /// every changed axis of every run, then decodes and formats nothing. A
    /// range's are made as they come (a fine range costs nothing), so empty.
    listed: Vec<Listed>,
}

/// A listed value, ready to set and to write.
#[derive(Clone, Debug)]
struct Listed {
    value: Value,
    /// Its cell, after the comma that leads it in a row.
    cell: Box<[u8]>,
}

/// An axis's values, each encoded as a `u64` its unit decodes:
/// milliseconds, a count, the index of a word, a version's minor; or, when
/// one of them is a distribution, the distributions themselves.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Values {
    /// Values as listed.
    List(Vec<u64>),
    /// Durations and distributions (`boot = ["1s", { dist = … }]`).
    Dists(Vec<Dist>),
    /// Values no `u64` holds, each whole (a node shutdown's priority groups).
    Whole(Vec<Value>),
    /// `from`, `from + step`, … (`len` values), kept lazy so a fine range costs nothing.
    Range {
        /// The first value.
        from: u64,
        /// The distance between two values.
        step: u64,
        /// How many values.
        len: u64,
    },
}

impl Values {
    /// How many values the axis takes.
    pub fn len(&self) -> u64 {
        match self {
            Values::List(list) => list.len() as u64,
            Values::Dists(list) => list.len() as u64,
            Values::Whole(list) => list.len() as u64,
            Values::Range { len, .. } => *len,
        }
    }

    /// True for an axis with no value (the grid reader refuses one).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The value at `index` (< `len`); for distributions, `index` itself.
    pub fn get(&self, index: u64) -> u64 {
        match self {
            Values::List(list) => list[index as usize],
            Values::Dists(_) | Values::Whole(_) => index,
            Values::Range { from, step, .. } => from + step * index,
        }
    }
}

impl Axis {
    /// The axis of `key` over `values` (parsed for its axis unit).
    pub fn new(path: String, key: Key, values: Values) -> Axis {
        let unit = key.field.unit().axis();
        let listed = match &values {
            Values::List(list) => list
                .iter()
                .map(|&encoded| {
                    let mut cell = vec![b','];
                    unit.cell(encoded, &mut cell);
                    Listed {
                        value: unit.decode(encoded),
                        cell: cell.into(),
                    }
                })
                .collect(),
            Values::Dists(list) => list
                .iter()
                .map(|dist| {
                    let mut cell = vec![b','];
                    csv::push_text(&mut cell, &dist.to_string());
                    Listed {
                        value: Value::from_dist(dist.clone()),
                        cell: cell.into(),
                    }
                })
                .collect(),
            Values::Whole(list) => list
                .iter()
                .map(|value| {
                    let mut cell = vec![b','];
                    csv::push_text(&mut cell, &whole_text(value));
                    Listed {
                        value: value.clone(),
                        cell: cell.into(),
                    }
                })
                .collect(),
            Values::Range { .. } => Vec::new(),
        };
        Axis {
            path,
            key,
            values,
            unit,
            listed,
        }
    }

    /// The unit of one value (a list key takes one duration as an axis).
    pub fn unit(&self) -> Unit {
        self.unit
    }

    /// Sets value `index` on `run`. Cheap: a sweep calls it for every
    /// changed axis of every run.
    #[inline(always)]
    pub fn apply(&self, index: u64, run: &mut RunSpec) {
        match &self.values {
            Values::Range { .. } => self.key.set(run, &self.unit.decode(self.values.get(index))),
            _ => self.key.set(run, &self.listed[index as usize].value),
        }
    }

    /// The CSV column: the path, with `_ms` for durations (a column of
    /// distributions holds their spellings, so no unit).
    pub fn column(&self) -> String {
        match (self.unit(), &self.values) {
            (_, Values::Dists(_)) => self.path.clone(),
            (Unit::Millis | Unit::Dist | Unit::DistOrWord { .. }, _) => format!("{}_ms", self.path),
            _ => self.path.clone(),
        }
    }

    /// Writes a comma and the CSV cell of value `index`.
    #[inline]
    pub fn write_cell(&self, cells: &mut csv::Cells<'_>, index: u64) {
        match &self.values {
            // A range counts durations or whole numbers: its cells are digits.
            Values::Range { .. } => cells.number_cell(self.values.get(index)),
            _ => cells.bytes(&self.listed[index as usize].cell),
        }
    }

    /// The most bytes `write_cell` writes.
    pub fn max_cell_bytes(&self) -> usize {
        match &self.values {
            Values::Range { .. } => csv::NUMBER_CELL_BYTES,
            _ => self.listed.iter().map(|l| l.cell.len()).max().unwrap_or(0),
        }
    }

    /// Value `index` as a person would write it in the grid file.
    pub(super) fn describe(&self, index: u64) -> String {
        match &self.values {
            Values::Dists(list) => list[index as usize].to_string(),
            Values::Whole(list) => format!("\"{}\"", whole_text(&list[index as usize])),
            values => self.unit().describe(values.get(index)),
        }
    }

    /// Value `index` as the rules' classes see it (`rule_class`): a
    /// distribution counts as a non-zero duration unless fixed at zero.
    pub(super) fn rule_value(&self, index: u64) -> u64 {
        match &self.values {
            Values::Dists(list) => u64::from(!list[index as usize].is_zero()),
            values => values.get(index),
        }
    }
}

/// A whole value as its grid spells it (without quotes).
fn whole_text(value: &Value) -> String {
    match value {
        Value::PriorityGroups(groups) => crate::scenario::key::priority_groups_text(groups),
        other => format!("{other:?}"),
    }
}

/// Two keys that write the same field (`stop_at` and `stop_after_ready`
/// both set the deletion, an action's `at` and `after_ready` its time)
/// cannot both be swept.
pub(super) fn same_field(a: Key, b: Key) -> bool {
    let deletion = |k: Key| matches!(k.field, Field::StopAt | Field::StopAfterReady);
    let action_time = |k: Key| matches!(k.field, Field::ActionAt | Field::ActionAfterReady);
    a == b || (deletion(a) && deletion(b)) || (action_time(a) && action_time(b) && a.container == b.container)
}

pub(super) type Positioned = (Range<usize>, Problem);

/// Whether a table written under `path` is the value of a key (so not a
/// table of further axes): the path names a key.
pub(super) fn names_a_key(path: &str) -> bool {
    path::parse(path, Spelling::Axis).is_ok()
}

/// Resolves an axis path against the base, or says what paths exist.
pub(super) fn resolve(path: &str, base: &RunSpec) -> Result<Key, Problem> {
    let spec = &base.pod;
    let at_axis = |wrong: AxisWrong| Problem::at_axis(path, wrong);
    let parsed = match path::parse(path, Spelling::Axis) {
        Ok(parsed) => parsed,
        Err(PathError::Group(group)) => {
            let keys = Field::names_in(group);
            return Err(at_axis(AxisWrong::Group {
                name: group.name(),
                keys,
            }));
        }
        Err(_) if path == "name" => {
            return Err("\"name\" only labels the scenario; it cannot be swept".into());
        }
        Err(_) if path.starts_with("containers.") && path.ends_with(".name") => {
            return Err(at_axis(AxisWrong::Message(
                "a container's name cannot be swept".into(),
            )));
        }
        Err(e) => return Err(unknown_axis(path, e.scope(), base).into()),
    };
    let field = parsed.field;
    match parsed.place {
        Place::Table if field.scope() == Scope::Job && spec.mode != PodMode::Job => {
            Err(at_axis(AxisWrong::Message(
                "the base is not a Job's Pod; give it a [job] table (or [pod] mode = \"job\")".into(),
            )))
        }
        Place::Table => Ok(Key::pod(field)),
        Place::Index(index) if field.scope() == Scope::Action => {
            let Some(action) = spec.actions.get(index) else {
                return Err(at_axis(AxisWrong::NoEntry {
                    entry: Entry::Action,
                    index,
                    count: spec.actions.len(),
                }));
            };
            let owner = match field {
                Field::ActionGracePeriod => Some(("delete", "grace_period")),
                Field::ActionDown => Some(("node_reboot", "down")),
                _ => None,
            };
            if let Some((kind, key)) = owner
                && action.kind.name() != kind
            {
                return Err(at_axis(AxisWrong::Message(format!(
                    "action {index} of the base is {}, and {key} belongs to a {kind}",
                    action.kind.name()
                ))));
            }
            Ok(Key::container(field, index))
        }
        Place::Index(index) => Ok(Key::container(field, index)),
        Place::Container(name) => {
            let index = spec
                .containers
                .iter()
                .position(|c| c.name == name)
                .ok_or_else(|| {
                    let names = spec.containers.iter().map(|c| c.name.clone()).collect();
                    at_axis(AxisWrong::Problem(Problem::unknown("", "container", name, names)))
                })?;
            Ok(Key::container(field, index))
        }
    }
}

/// "unknown axis", the closest valid path, and the valid paths of the
/// family the path was meant for (every family's, if it names none).
fn unknown_axis(path: &str, family: Option<Scope>, base: &RunSpec) -> String {
    let valid = path::axis_paths(base);
    let valid: Vec<&str> = valid.iter().map(String::as_str).collect();
    let hint = closest(path, &valid)
        .map(|v| format!("did you mean \"{v}\"? "))
        .unwrap_or_default();
    let help = match family {
        Some(scope) => format!(
            "the axes of {} are {}",
            scope.heading(),
            path::family_help(scope, base)
        ),
        None => format!("an axis is a scenario key: {}", path::overview()),
    };
    format!("unknown axis \"{path}\"; {hint}{help}")
}
