//! Reading an axis's values from the grid's TOML: a list or a
//! `{ from, to, step }` range, each value parsed for the key's unit, and
//! the examples an error shows when a value does not fit the unit.

use std::ops::Range;

use toml::Spanned;
use toml::de::{DeTable, DeValue};

use super::{Positioned, RANGE_KEYS, Values};
use crate::model::Dist;
use crate::scenario::key::{Field, Unit, Value};
use crate::scenario::toml::value;
use crate::scenario::{Problem, unknown_word};

/// An axis's values: a list, or a `{ from, to, step }` range of durations or integers.
/// A value past the field's limit (`Field::within_limit`) is refused.
pub(in crate::sweep) fn parse_values(value: &Spanned<DeValue>, field: Field) -> Result<Values, Positioned> {
    let unit = field.unit().axis();
    match value.get_ref() {
        DeValue::Array(items) => {
            if items.is_empty() {
                return Err((value.span(), "no values; give at least one".into()));
            }
            if matches!(unit, Unit::Dist | Unit::DistOrWord { .. })
                && items.iter().any(|i| matches!(i.get_ref(), DeValue::Table(_)))
            {
                let word = match unit {
                    Unit::DistOrWord { word, .. } => word,
                    _ => "",
                };
                let list = items
                    .iter()
                    .map(|item| match crate::scenario::toml::value(unit, item.get_ref()) {
                        // A column of distributions cannot hold the word.
                        Ok(Value::TheWord) => Err((
                            item.span(),
                            format!(
                                "\"{word}\" cannot share an axis with distributions; sweep durations \
                                 with it, or the distributions alone"
                            )
                            .into(),
                        )),
                        Ok(v) => Ok(v.to_dist()),
                        Err(e) => Err((item.span(), e.problem("", ""))),
                    })
                    .collect::<Result<Vec<Dist>, _>>()?;
                return Ok(Values::Dists(list));
            }
            if unit == Unit::PriorityGroups {
                let list = items
                    .iter()
                    .map(|item| {
                        crate::scenario::toml::value(unit, item.get_ref())
                            .map_err(|e| (item.span(), e.problem("", "")))
                    })
                    .collect::<Result<Vec<Value>, _>>()?;
                return Ok(Values::Whole(list));
            }
            let list = items
                .iter()
                .map(|item| scalar(item, unit, field).map_err(|m| (item.span(), m)))
                .collect::<Result<Vec<u64>, _>>()?;
            Ok(Values::List(list))
        }
        DeValue::Table(table) => parse_range(value.span(), table, unit, field),
        _ => {
            let range = match unit {
                Unit::Millis | Unit::Dist | Unit::DistOrWord { .. } | Unit::Count => {
                    format!(" or a range such as {}", range_example(unit))
                }
                _ => String::new(),
            };
            let such = format!("a list such as {}{range}", list_example(unit));
            Err((value.span(), Problem::expected("", "", such, None)))
        }
    }
}

fn parse_range(span: Range<usize>, table: &DeTable, unit: Unit, field: Field) -> Result<Values, Positioned> {
    // A range counts durations: a unit's word is no point on it.
    let unit = if matches!(unit, Unit::DistOrWord { .. }) {
        Unit::Dist
    } else {
        unit
    };
    if !matches!(unit, Unit::Millis | Unit::Dist | Unit::Count) {
        return Err((
            span,
            format!(
                "a range needs durations or integers; list the values instead, e.g. {}",
                list_example(unit)
            )
            .into(),
        ));
    }
    let (mut from, mut to, mut step) = (None, None, None);
    for (key, value) in table {
        let slot = match key.get_ref().as_ref() {
            "from" => &mut from,
            "to" => &mut to,
            "step" => &mut step,
            other => return Err((key.span(), unknown_word("range key", other, RANGE_KEYS).into())),
        };
        *slot = Some(value);
    }
    let (Some(from), Some(to), Some(step)) = (from, to, step) else {
        return Err((
            span,
            format!("a range needs from, to and step, e.g. {}", range_example(unit)).into(),
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
        scalar(step, unit, field).map_err(|m| (step.span(), m))?
    };
    if step_value == 0 {
        return Err((step.span(), "step must be greater than zero".into()));
    }
    let from_value = scalar(from, unit, field).map_err(|m| (from.span(), m))?;
    let to_value = scalar(to, unit, field).map_err(|m| (to.span(), m))?;
    if to_value < from_value {
        return Err((
            to.span(),
            format!(
                "to ({}) is before from ({}); a range counts up from `from` to `to` inclusive",
                unit.describe(to_value),
                unit.describe(from_value)
            )
            .into(),
        ));
    }
    Ok(Values::Range {
        from: from_value,
        step: step_value,
        len: (to_value - from_value) / step_value + 1,
    })
}

/// One value of `field`, encoded for `Axis::apply`.
fn scalar(item: &Spanned<DeValue>, unit: Unit, field: Field) -> Result<u64, Problem> {
    let parsed = value(unit, item.get_ref()).map_err(|e| e.problem("", ""))?;
    let parsed = field.within_limit(parsed).map_err(Problem::Message)?;
    Ok(parsed.encode().unwrap_or_default())
}

/// A list of values of `unit` as it would be written in the grid.
fn list_example(unit: Unit) -> String {
    match unit {
        Unit::Millis | Unit::Dist | Unit::DistList => "[\"250ms\", \"1s\"]".into(),
        Unit::DistOrWord { word, .. } => format!("[\"250ms\", \"1s\", \"{word}\"]"),
        Unit::Probability => "[0, 0.1, 0.5]".into(),
        Unit::Count => "[0, 1, 2]".into(),
        Unit::Flag => "[true, false]".into(),
        Unit::Version => "[\"1.29\", \"1.36\"]".into(),
        Unit::Rate => "[5, 8.3, 20]".into(),
        Unit::Propagation => "[\"tiny\", \"medium\", \"2s\"]".into(),
        Unit::Scaled => "[0, 1, \"25%\"]".into(),
        Unit::Pulls => "[0, 2, \"fails\"]".into(),
        Unit::PriorityGroups => "[\"0:20s, 2000000000:10s\", \"0:30s\"]".into(),
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
