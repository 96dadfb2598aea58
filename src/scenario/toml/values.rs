//! One TOML value read for a key's unit, and the words for what was
//! expected and what was found: shared by scenarios, grid axes and the
//! timings overlay, apart from the walk of a scenario's tables.

use toml::de::DeValue;

use crate::scenario::diagnostic::{Found, Problem};
use crate::scenario::dist::{dist_from_table, parse_probability};
use crate::scenario::key::{Unit, Value, word};
use crate::scenario::parse_duration;

/// Why a value does not fit its key.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ValueError {
    /// A word that is not one of the unit's: the message names the unit.
    UnknownWord(String),
    /// A value of another type than the unit's.
    Mismatch {
        /// What one value of the unit looks like (`one_value`).
        expected: String,
        /// What was written.
        found: Found,
    },
    /// Anything else; the reader prefixes the key.
    Invalid(String),
}

impl ValueError {
    /// The problem for `key` (a path such as `boot`) after `context`;
    /// `key` is empty where the context names the place by itself.
    pub fn problem(self, context: &str, key: &str) -> Problem {
        let at = if key.is_empty() {
            context.to_string()
        } else {
            format!("{context}{key}: ")
        };
        match self {
            ValueError::UnknownWord(m) => Problem::Message(format!("{context}{m}")),
            ValueError::Mismatch { expected, found } => {
                Problem::expected(context, key, expected, Some(found))
            }
            ValueError::Invalid(m) => Problem::Message(format!("{at}{m}")),
        }
    }
}

/// One value of `unit` as written in TOML.
pub fn value(unit: Unit, item: &DeValue) -> Result<Value, ValueError> {
    match (unit, item) {
        (Unit::Millis, DeValue::String(s)) => {
            parse_duration(s).map(Value::Millis).map_err(ValueError::Invalid)
        }
        (Unit::Dist, DeValue::String(s)) => parse_duration(s).map(Value::Millis).map_err(ValueError::Invalid),
        (Unit::DistOrWord { word, .. }, DeValue::String(s)) if s.as_ref() == word => Ok(Value::TheWord),
        (Unit::DistOrWord { word, meaning }, DeValue::String(s)) => parse_duration(s)
            .map(Value::Millis)
            .map_err(|m| ValueError::Invalid(format!("{m}; or \"{word}\" {meaning}"))),
        (Unit::DistOrWord { .. }, DeValue::Table(table)) => dist_from_table(table)
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
        (Unit::Millis | Unit::Dist | Unit::DistOrWord { .. } | Unit::DistList, DeValue::Integer(i)) => {
            Err(ValueError::Invalid(format!(
                "a duration needs a unit and quotes: write \"{i}s\" or \"{i}ms\", not {i}"
            )))
        }
        (Unit::Millis | Unit::Dist | Unit::DistOrWord { .. } | Unit::DistList, DeValue::Float(f)) => {
            Err(ValueError::Invalid(format!(
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
        (Unit::Rate, DeValue::Float(f)) => crate::scenario::key::parse_rate(f.as_str())
            .map(Value::Rate)
            .map_err(ValueError::Invalid),
        (Unit::Rate, DeValue::Integer(i)) => crate::scenario::key::parse_rate(i.as_str())
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
        (Unit::Version, DeValue::String(s)) => crate::scenario::key::parse_kube_version(s)
            .map(Value::Version)
            .map_err(ValueError::UnknownWord),
        (Unit::PriorityGroups, DeValue::String(s)) => crate::scenario::key::Unit::PriorityGroups
            .parse_text("", s)
            .map_err(|m| ValueError::Invalid(m.trim_start().to_string())),
        (_, other) => Err(ValueError::Mismatch {
            expected: one_value(unit),
            found: found(other),
        }),
    }
}

/// What a TOML value is, for "…, found …".
pub fn found(value: &DeValue) -> Found {
    match value {
        DeValue::String(s) => Found::Text(s.to_string()),
        DeValue::Integer(i) => Found::Integer(i.to_string()),
        DeValue::Float(f) => Found::Number(f.to_string()),
        DeValue::Boolean(b) => Found::Flag(*b),
        DeValue::Datetime(_) => Found::Date,
        DeValue::Array(_) => Found::List,
        DeValue::Table(_) => Found::Table,
    }
}

/// What one value of `unit` looks like, for "expected …, found …".
pub fn one_value(unit: Unit) -> String {
    match unit {
        Unit::Millis => "a duration in quotes such as \"250ms\" or \"1s\"".into(),
        Unit::Dist => "a duration in quotes such as \"250ms\", or a distribution such as \
                       { dist = \"lognormal\", median = \"3s\", p99 = \"10s\" }"
            .into(),
        Unit::DistOrWord { word, meaning } => {
            format!("a duration in quotes such as \"250ms\", a distribution, or \"{word}\" ({meaning})")
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
        Unit::PriorityGroups => "priority:seconds groups in quotes such as \"0:20s, 2000000000:10s\"".into(),
        Unit::Propagation => format!(
            "a preset in quotes ({}), a duration such as \"2s\" or a distribution",
            crate::model::service::Preset::NAMES.join(", ")
        ),
    }
}
