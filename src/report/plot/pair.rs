//! Paired runs: a sweep that crosses a column (the layout axis, say) with
//! every other parameter holds each configuration once per value; two runs
//! that agree on every other parameter are one Pod run both ways. The plot
//! then draws one point per configuration: how much the first value costs on
//! x (`x(first) - x(second)`) and saves on y (`y(second) - y(first)`), so
//! a trade-off lands up and to the right, whatever the scatter hides.
//!
//! Invariant: a point is drawn only for a configuration that has exactly one
//! run with each value and both metrics in both runs; every other run is
//! counted as skipped, never guessed.

use std::collections::BTreeMap;

use super::{Group, Paired, Point, add_point, group_name, unit};
use crate::report::table::{Table, TableError};

/// The two values to compare in `column`: `chosen`, checked to occur, or
/// the column's values when there are exactly two, in order of appearance.
pub fn values(table: &Table, column: usize, chosen: Option<&(String, String)>) -> Result<Paired, TableError> {
    let mut seen: Vec<&str> = Vec::new();
    for row in &table.rows {
        if !seen.contains(&row[column].as_str()) {
            seen.push(&row[column]);
        }
    }
    let fail = |problem: String| TableError::Pair {
        origin: table.origin.clone(),
        column: table.columns[column].clone(),
        problem,
    };
    let (first, second) = match chosen {
        Some((a, b)) => {
            if a == b {
                return Err(fail(format!(
                    "compare two different values, not \"{a}\" with itself"
                )));
            }
            if let Some(absent) = [a, b].into_iter().find(|v| !seen.contains(&v.as_str())) {
                return Err(fail(format!(
                    "no run has \"{absent}\"; its values are {}",
                    quoted(&seen)
                )));
            }
            (a.clone(), b.clone())
        }
        None if seen.len() == 2 => (seen[0].to_string(), seen[1].to_string()),
        None => {
            return Err(fail(format!(
                "it holds {} value{} ({}), and pairing compares two; name the two to compare",
                seen.len(),
                if seen.len() == 1 { "" } else { "s" },
                quoted(&seen)
            )));
        }
    };
    Ok(Paired {
        column,
        first,
        second,
    })
}

/// The error for grouping by the paired column itself.
pub fn group_is_pair(table: &Table, column: usize) -> TableError {
    TableError::Pair {
        origin: table.origin.clone(),
        column: table.columns[column].clone(),
        problem: "the runs are paired by this column, so it cannot also colour them; group by another \
                  parameter, or not at all"
            .to_string(),
    }
}

/// One point per configuration with both runs, grouped by `group` (a
/// parameter, the same in both runs); the second value is the number of
/// runs left out.
pub fn points(
    table: &Table,
    paired: &Paired,
    x: usize,
    y: usize,
    group: Option<usize>,
) -> Result<(Vec<Group>, usize), TableError> {
    let key_columns: Vec<usize> = table
        .parameters()
        .into_iter()
        .filter(|&c| c != paired.column)
        .collect();
    // Per configuration: the rows of the first and of the second value.
    let mut configurations: BTreeMap<Vec<&str>, (Vec<usize>, Vec<usize>)> = BTreeMap::new();
    let mut skipped = 0;
    for (row, cells) in table.rows.iter().enumerate() {
        let value = cells[paired.column].as_str();
        let key: Vec<&str> = key_columns.iter().map(|&c| cells[c].as_str()).collect();
        let slot = configurations.entry(key).or_default();
        if value == paired.first {
            slot.0.push(row);
        } else if value == paired.second {
            slot.1.push(row);
        } else {
            skipped += 1;
        }
    }
    let (x_div, y_div) = (unit(&table.columns[x]).1, unit(&table.columns[y]).1);
    // In the order of the first value's rows, so groups appear as in the table.
    let mut pairs: Vec<(usize, usize)> = Vec::new();
    for (firsts, seconds) in configurations.values() {
        match (firsts.as_slice(), seconds.as_slice()) {
            ([a], [b]) => pairs.push((*a, *b)),
            _ => skipped += firsts.len() + seconds.len(),
        }
    }
    pairs.sort_unstable();
    if pairs.is_empty() {
        return Err(TableError::Pair {
            origin: table.origin.clone(),
            column: table.columns[paired.column].clone(),
            problem: format!(
                "no configuration was run with both \"{}\" and \"{}\" (every other parameter equal)",
                paired.first, paired.second
            ),
        });
    }
    let mut groups = Vec::new();
    let mut index = BTreeMap::new();
    for (a, b) in pairs {
        let values = (
            table.number(a, x)?,
            table.number(b, x)?,
            table.number(a, y)?,
            table.number(b, y)?,
        );
        let (Some(xa), Some(xb), Some(ya), Some(yb)) = values else {
            skipped += 2;
            continue;
        };
        let point = Point {
            x: (xa - xb) / x_div,
            y: (yb - ya) / y_div,
            row: a,
        };
        add_point(
            &mut groups,
            &mut index,
            group_name(table, group, a, "all configurations"),
            point,
        );
    }
    Ok((groups, skipped))
}

fn quoted(values: &[&str]) -> String {
    let shown: Vec<String> = values.iter().take(8).map(|v| format!("\"{v}\"")).collect();
    match values.len() {
        n if n > 8 => format!("{}, … ({n} in all)", shown.join(", ")),
        _ => shown.join(", "),
    }
}

#[cfg(test)]
mod tests {
    use super::super::{PairBy, PlotSpec, tradeoff};
    use super::*;

    fn table(csv: &str) -> Table {
        Table::read(csv.as_bytes(), "t.csv").unwrap()
    }

    fn paired(column: &str) -> PlotSpec {
        PlotSpec {
            pair: Some(PairBy::Column {
                name: column.to_string(),
                values: None,
            }),
            ..PlotSpec::default()
        }
    }

    #[test]
    fn a_point_is_what_the_first_value_costs_and_saves() {
        // Configuration boot=1: sidecar Ready 6 s exposed 0, app Ready 5 s exposed 4 s.
        // Configuration boot=2: sidecar 7 s / 0, app 5 s / 3 s. Boot=3 has no app run.
        let t = table(
            "run,kind,boot_ms,ready_ms,exposed_total_ms\n\
             0,sidecar,1000,6000,0\n1,sidecar,2000,7000,0\n2,sidecar,3000,8000,0\n\
             3,app,1000,5000,4000\n4,app,2000,5000,3000\n",
        );
        let plot = tradeoff(&t, &paired("kind")).unwrap();
        let pair = plot.pair.as_ref().unwrap();
        assert_eq!((pair.first.as_str(), pair.second.as_str()), ("sidecar", "app"));
        let points: Vec<(f64, f64, usize)> =
            plot.groups[0].points.iter().map(|p| (p.x, p.y, p.row)).collect();
        assert_eq!(points, [(1.0, 4.0, 0), (2.0, 3.0, 1)]);
        assert_eq!(plot.skipped, 1);
        assert!(plot.groups[0].frontier.is_empty());
    }

    #[test]
    fn the_order_can_be_chosen_and_must_name_real_values() {
        let t = table("run,kind,ready_ms,exposed_total_ms\n0,a,1000,0\n1,b,3000,5000\n2,c,0,0\n");
        let spec = |values: (&str, &str)| PlotSpec {
            pair: Some(PairBy::Column {
                name: "kind".into(),
                values: Some((values.0.into(), values.1.into())),
            }),
            ..PlotSpec::default()
        };
        let plot = tradeoff(&t, &spec(("b", "a"))).unwrap();
        assert_eq!(
            (plot.groups[0].points[0].x, plot.groups[0].points[0].y),
            (2.0, -5.0)
        );
        let three = tradeoff(&t, &paired("kind")).unwrap_err().to_string();
        assert_eq!(
            three,
            "t.csv: cannot pair the runs by column \"kind\": it holds 3 values (\"a\", \"b\", \"c\"), \
             and pairing compares two; name the two to compare"
        );
        let absent = tradeoff(&t, &spec(("a", "d"))).unwrap_err().to_string();
        assert!(
            absent.ends_with("no run has \"d\"; its values are \"a\", \"b\", \"c\""),
            "{absent}"
        );
    }

    #[test]
    fn runs_without_a_partner_are_an_error_when_none_has_one() {
        let t = table("run,kind,boot_ms,ready_ms,exposed_total_ms\n0,a,1,5,0\n1,b,2,5,0\n");
        let e = tradeoff(&t, &paired("kind")).unwrap_err().to_string();
        assert!(
            e.contains("no configuration was run with both \"a\" and \"b\""),
            "{e}"
        );
    }
}
