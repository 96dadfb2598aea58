//! A sweep's CSV read back for pictures and the HTML report: a header of
//! column names and rows of text cells, looked up by column name.
//!
//! Invariant: every row has exactly one cell per column (a ragged file is
//! refused when read), so a column index is valid for every row.

use std::fmt;
use std::io::Read;
use std::path::Path;

use crate::model::Metrics;
use crate::model::service::ServiceMetrics;
use crate::scenario::closest;

/// Why a table could not be read or a column not be used.
#[derive(Debug, thiserror::Error)]
pub enum TableError {
    /// The file could not be read or is not CSV.
    #[error("{origin}: cannot read: {message}")]
    Read {
        /// The file's name.
        origin: String,
        /// What the reader said.
        message: String,
    },
    /// A column named on the command line is not in the header.
    #[error("{origin}: no column \"{name}\"; {hint}columns are: {}", columns.join(", "))]
    UnknownColumn {
        /// The file's name.
        origin: String,
        /// The column asked for.
        name: String,
        /// The closest column, if one is close.
        hint: Hint,
        /// Every column of the header.
        columns: Vec<String>,
    },
    /// Not even a header: nothing to plot or report.
    #[error("{origin}: the file is empty: not even a header line")]
    Empty {
        /// The file's name.
        origin: String,
    },
    /// The pairing column does not pair the runs (it has more or fewer
    /// than two values, or a run has no partner).
    #[error("{origin}: cannot pair the runs by column \"{column}\": {problem}")]
    Pair {
        /// The file's name.
        origin: String,
        /// The pairing column.
        column: String,
        /// Why the runs do not pair.
        problem: String,
    },
    /// A field of a plotted column is not a number.
    #[error("{origin}:{line}: column \"{column}\": \"{value}\" is not a number")]
    NotANumber {
        /// The file's name.
        origin: String,
        /// The 1-based line of the row.
        line: usize,
        /// The column.
        column: String,
        /// The field as written.
        value: String,
    },
}

/// `did you mean "x"? ` or nothing.
#[derive(Debug)]
pub struct Hint(pub Option<String>);

impl fmt::Display for Hint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.0 {
            Some(name) => write!(f, "did you mean \"{name}\"? "),
            None => Ok(()),
        }
    }
}

/// A CSV file in memory.
#[derive(Clone, Debug, PartialEq)]
pub struct Table {
    /// Where it came from, for messages.
    pub origin: String,
    /// The header's names, in order.
    pub columns: Vec<String>,
    /// Each row's fields, as written (numbers are parsed when plotted).
    pub rows: Vec<Vec<String>>,
}

impl Table {
    /// Reads CSV with a header line from `reader`.
    pub fn read(reader: impl Read, origin: &str) -> Result<Table, TableError> {
        let fail = |message: String| TableError::Read {
            origin: origin.to_string(),
            message,
        };
        let mut csv = csv::ReaderBuilder::new().has_headers(true).from_reader(reader);
        let columns: Vec<String> = csv
            .headers()
            .map_err(|e| fail(e.to_string()))?
            .iter()
            .map(str::to_string)
            .collect();
        if columns.iter().all(String::is_empty) {
            return Err(TableError::Empty {
                origin: origin.to_string(),
            });
        }
        let rows = csv
            .records()
            .map(|record| {
                record
                    .map(|r| r.iter().map(str::to_string).collect())
                    .map_err(|e| fail(e.to_string()))
            })
            .collect::<Result<_, _>>()?;
        Ok(Table {
            origin: origin.to_string(),
            columns,
            rows,
        })
    }

    /// Reads a CSV file.
    pub fn load(path: &Path) -> Result<Table, TableError> {
        let origin = path.display().to_string();
        let file = std::fs::File::open(path).map_err(|e| TableError::Read {
            origin: origin.clone(),
            message: e.to_string(),
        })?;
        Table::read(std::io::BufReader::new(file), &origin)
    }

    /// The index of column `name`, or an error listing the valid names.
    pub fn column(&self, name: &str) -> Result<usize, TableError> {
        self.columns.iter().position(|c| c == name).ok_or_else(|| {
            let valid: Vec<&str> = self.columns.iter().map(String::as_str).collect();
            TableError::UnknownColumn {
                origin: self.origin.clone(),
                name: name.to_string(),
                hint: Hint(closest(name, &valid).map(str::to_string)),
                columns: self.columns.clone(),
            }
        })
    }

    /// Columns that are neither metrics nor the run number: in a sweep's
    /// CSV, the swept parameters. A sweep writes the metrics last (a Pod's
    /// or a Service's; a summary's after `replications`), so everything
    /// from the first of them on is a figure, not a parameter.
    pub fn parameters(&self) -> Vec<usize> {
        let is_metric = |c: &String| {
            c == "replications"
                || Metrics::NAMES.contains(&c.as_str())
                || ServiceMetrics::NAMES.contains(&c.as_str())
        };
        let end = self
            .columns
            .iter()
            .position(is_metric)
            .unwrap_or(self.columns.len());
        (0..end).filter(|&c| self.columns[c] != "run").collect()
    }

    /// How many replications each run has: in a sweep's CSV, one more than
    /// the largest `replication` cell; in a summary, its `replications`
    /// cell when every row has the same. `None` for a table with neither
    /// (one row per run), or a summary whose rows differ.
    pub fn replications_per_run(&self) -> Option<u64> {
        let cells = |name: &str| {
            let c = self.columns.iter().position(|c| c == name)?;
            Some(self.rows.iter().map(move |row| row[c].trim().parse::<u64>().ok()))
        };
        if let Some(mut cells) = cells("replication") {
            return cells.try_fold(0, |most, r| r.map(|r| most.max(r + 1)));
        }
        let mut cells = cells("replications")?;
        let first = cells.next()??;
        cells.all(|r| r == Some(first)).then_some(first)
    }

    /// The number in `row` at `column`; `None` for an empty cell (an absent metric).
    pub fn number(&self, row: usize, column: usize) -> Result<Option<f64>, TableError> {
        let cell = self.rows[row][column].trim();
        if cell.is_empty() {
            return Ok(None);
        }
        match cell.parse::<f64>() {
            Ok(v) if v.is_finite() => Ok(Some(v)),
            _ => Err(TableError::NotANumber {
                origin: self.origin.clone(),
                // The header is line 1.
                line: row + 2,
                column: self.columns[column].clone(),
                value: cell.to_string(),
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const CSV: &str =
        "run,containers.proxy.kind,ready_ms,exposed_total_ms\n0,app,5000,4000\n1,sidecar,6000,\n";

    #[test]
    fn reads_header_and_cells() {
        let t = Table::read(CSV.as_bytes(), "t.csv").unwrap();
        assert_eq!(t.columns.len(), 4);
        assert_eq!(t.rows[1], ["1", "sidecar", "6000", ""]);
        assert_eq!(t.number(0, 2).unwrap(), Some(5000.0));
        assert_eq!(t.number(1, 3).unwrap(), None);
    }

    #[test]
    fn unknown_column_suggests_the_closest_and_lists_all() {
        let t = Table::read(CSV.as_bytes(), "t.csv").unwrap();
        let e = t.column("redy_ms").unwrap_err().to_string();
        assert_eq!(
            e,
            "t.csv: no column \"redy_ms\"; did you mean \"ready_ms\"? columns are: \
             run, containers.proxy.kind, ready_ms, exposed_total_ms"
        );
    }

    #[test]
    fn text_where_a_number_belongs_names_the_line() {
        let t = Table::read(CSV.as_bytes(), "t.csv").unwrap();
        let e = t.number(1, 1).unwrap_err().to_string();
        assert_eq!(
            e,
            "t.csv:3: column \"containers.proxy.kind\": \"sidecar\" is not a number"
        );
    }

    #[test]
    fn parameters_are_the_columns_before_the_figures() {
        let pod = Table::read(CSV.as_bytes(), "t.csv").unwrap();
        assert_eq!(pod.parameters(), [1]);
        let service = "run,replication,traffic.connections,ready_ms,requests,failed\n";
        assert_eq!(
            Table::read(service.as_bytes(), "s.csv").unwrap().parameters(),
            [1, 2]
        );
        let summary = "run,service.propagation,replications,failed_mean,failed_p99,p_failed\n";
        assert_eq!(
            Table::read(summary.as_bytes(), "s.csv").unwrap().parameters(),
            [1]
        );
    }

    #[test]
    fn replications_per_run_from_the_replication_column_or_a_summary() {
        let read = |text: &str| Table::read(text.as_bytes(), "t.csv").unwrap();
        // Two runs of three replications each: 0, 1, 2.
        let sweep = read("run,replication,ready_ms\n0,0,1\n0,1,2\n0,2,3\n1,0,1\n1,1,1\n1,2,1\n");
        assert_eq!(sweep.replications_per_run(), Some(3));
        assert_eq!(read("run,ready_ms\n0,1\n").replications_per_run(), None);
        let summary = "run,replications,failed_mean\n0,50,1\n1,50,2\n";
        assert_eq!(read(summary).replications_per_run(), Some(50));
        // Summaries merged from other replication counts say nothing.
        assert_eq!(
            read("run,replications,failed_mean\n0,50,1\n1,20,2\n").replications_per_run(),
            None
        );
    }

    #[test]
    fn ragged_rows_are_refused() {
        let e = Table::read("a,b\n1\n".as_bytes(), "t.csv")
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("t.csv: cannot read: "), "{e}");
    }
}
