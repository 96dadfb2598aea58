//! What a sweep CSV column is on a plot's axis: the words and unit of its
//! title (`time to Pod Ready (s) · ready_ms`), the divisor to that unit, and
//! which column is the layout axis the plot groups or pairs by.
//!
//! Apart from the trade-off itself because every picture of a sweep's
//! columns (the trade-off, the ECDF, the spread, the HTML report's
//! tables) names and scales a column the same way, from here.

use crate::report::table::Table;

/// The layout axis: the first `*.kind` column holding at least two values.
pub fn layout_column(table: &Table) -> Option<usize> {
    (0..table.columns.len()).find(|&c| {
        table.columns[c].ends_with(".kind")
            && table
                .rows
                .first()
                .is_some_and(|first| table.rows.iter().any(|r| r[c] != first[c]))
    })
}

/// What a column measures, for titles: `time to Pod Ready` for `ready_ms`,
/// the name without its unit suffix for a column podsim does not know.
pub fn describe(column: &str) -> &str {
    match column {
        "ready_ms" => "time to Pod Ready",
        "exposed_total_ms" => "exposed time, startup + shutdown",
        "exposed_startup_ms" => "exposed time at startup",
        "exposed_shutdown_ms" => "exposed time at shutdown",
        "termination_ms" => "termination (deletion to last exit)",
        "end_ms" => "end of the run",
        "restarts" => "container restarts",
        "sigkilled" => "containers SIGKILLed",
        other => other.strip_suffix("_ms").unwrap_or(other),
    }
}

/// A column's unit for titles (`s`, `count`, or none) and the divisor that
/// turns its cells into that unit: `("s", 1000)` for a `_ms` column.
pub fn unit(column: &str) -> (Option<&'static str>, f64) {
    if column.ends_with("_ms") {
        (Some("s"), 1000.0)
    } else if matches!(column, "restarts" | "sigkilled") {
        (Some("count"), 1.0)
    } else {
        (None, 1.0)
    }
}

/// A column's axis title, with its unit and its name as in the CSV, and the
/// divisor to that unit: `time to Pod Ready (s) · ready_ms`, 1000.
pub fn axis_title(column: &str) -> (String, f64) {
    match unit(column) {
        (Some(u), div) => (format!("{} ({u}) · {column}", describe(column)), div),
        (None, div) => (column.to_string(), div),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(csv: &str) -> Table {
        Table::read(csv.as_bytes(), "t.csv").unwrap()
    }

    #[test]
    fn layout_axis_is_the_first_kind_column_that_varies() {
        let t = table("run,a.kind,b.kind,x\n0,app,app,1\n1,app,sidecar,2\n");
        assert_eq!(layout_column(&t), Some(2));
        assert_eq!(layout_column(&table("run,x\n0,1\n")), None);
    }

    #[test]
    fn millisecond_columns_are_drawn_in_seconds() {
        assert_eq!(
            axis_title("ready_ms"),
            ("time to Pod Ready (s) · ready_ms".to_string(), 1000.0)
        );
        assert_eq!(
            axis_title("containers.web.boot_ms"),
            (
                "containers.web.boot (s) · containers.web.boot_ms".to_string(),
                1000.0
            )
        );
        assert_eq!(axis_title("restarts").1, 1.0);
    }
}
