//! One thread's share of a sweep: a simulator reused from run to run, the
//! odometer of axis values, and the row being written, kept from row to
//! row so that each row writes only what changed since the one before.
//!
//! Invariant: a chunk's rows depend only on its runs: every axis is applied,
//! and the whole lead written, afresh at a chunk's start.

use std::ops::Range;

use super::super::csv::{self, Cells};
use super::super::grid::Grid;
use super::super::summary::Summary;
use super::prefixes::Prefixes;
use crate::engine::{Halt, Limits};
use crate::model::{RunPrefix, RunSpec, Simulator};

/// A run the limits halted, in a chunk whose rows are then dropped.
pub(super) struct Halted {
    /// The run (a combination's number).
    pub run: u64,
    pub halt: Halt,
    /// The chunk's rows finished before it: runs done, though not written
    /// (a Service grid's chunk is every replication of a combination).
    pub finished: u64,
}

/// One thread's simulator, odometer and row, reused from chunk to chunk.
pub(super) struct Worker<'g> {
    grid: &'g Grid,
    simulator: Simulator,
    digits: Vec<u64>,
    /// The axes before this index include every one that may change the
    /// Pod's shape (`Field::shapes_the_pod`): a row that turns none of
    /// them lets the model keep the shape it worked out.
    shaping_axes: usize,
    /// A Pod grid's rows that differ only in kill-only fields start from
    /// a prefix they share (`prefixes`), when some do.
    prefixes: Option<Prefixes>,
    summary: Summary,
    row: Row,
}

/// Runs the current spec of `simulator`, from `prefix` if a Pod grid's
/// row has one, appends its row (`row`'s lead, the metric cells, the
/// line's end) and, with a summary, adds its metrics to it.
fn run_row(
    simulator: &mut Simulator,
    buf: &mut Vec<u8>,
    row: &mut Row,
    summary: Option<&mut Summary>,
    prefix: Option<&mut RunPrefix<(), RunSpec>>,
) {
    match simulator {
        Simulator::Pod(s) => {
            let metrics = match prefix {
                Some(prefix) => s.run_with_prefix(prefix),
                None => s.run(),
            };
            buf.extend_from_slice(row.finish(|cells| {
                csv::metric_cells(cells, &metrics);
                cells.byte(b'\n');
            }));
            if let Some(summary) = summary {
                summary.add(&metrics);
            }
        }
        Simulator::Job(s) => {
            let (metrics, job) = s.run(|_, _| {});
            buf.extend_from_slice(row.lead());
            csv::push_metrics(buf, &metrics);
            csv::push_job(buf, job.as_ref());
            buf.push(b'\n');
            if let Some(summary) = summary {
                summary.add(&metrics);
            }
        }
        Simulator::Service(s) => {
            let metrics = s.run();
            buf.extend_from_slice(row.lead());
            csv::push_service_metrics(buf, &metrics);
            buf.push(b'\n');
            if let Some(summary) = summary {
                summary.add_service(&metrics);
            }
        }
    }
}

/// The row being written, kept from row to row. It starts with its lead: a
/// counter (the run's digits, or in a grid with several replications the
/// replication's after the run's), then the axes' cells. From one row to
/// the next the counter counts up in place and only the cells of the axes
/// the odometer turned are written again; the rest of a Pod row is written
/// after the lead, and the whole row is copied out at once.
struct Row {
    /// Room for the longest row, zeroed once.
    bytes: Vec<u8>,
    /// Where the counter's digits are.
    counter: Range<usize>,
    /// Where each axis's cell starts and, last, where the lead ends.
    cell_starts: Vec<usize>,
}

impl Row {
    fn new(grid: &Grid) -> Row {
        let lead = 2 * csv::NUMBER_CELL_BYTES + grid.axes.iter().map(|a| a.max_cell_bytes()).sum::<usize>();
        Row {
            bytes: vec![0; lead + csv::METRIC_BYTES + 1],
            counter: 0..0,
            cell_starts: vec![0; grid.axes.len() + 1],
        }
    }

    /// The lead: the run, its replication, the axes' cells.
    fn lead(&self) -> &[u8] {
        &self.bytes[..self.cell_starts[self.cell_starts.len() - 1]]
    }

    /// The whole row: the lead and what `write` writes after it (at most
    /// `csv::METRIC_BYTES` and a line's end).
    #[inline(always)]
    fn finish(&mut self, write: impl FnOnce(&mut Cells<'_>)) -> &[u8] {
        let lead = self.cell_starts[self.cell_starts.len() - 1];
        let mut cells = Cells::new(&mut self.bytes[lead..]);
        write(&mut cells);
        let end = lead + cells.written();
        &self.bytes[..end]
    }

    /// Writes the whole lead anew: the run, the replication if `Some`,
    /// every axis's cell (the values at `digits`).
    fn write(&mut self, grid: &Grid, digits: &[u64], run: u64, replication: Option<u64>) {
        let mut cells = Cells::new(&mut self.bytes);
        cells.number(run);
        let mut start = 0;
        if let Some(replication) = replication {
            cells.byte(b',');
            start = cells.written();
            cells.number(replication);
        }
        self.counter = start..cells.written();
        self.cell_starts[0] = cells.written();
        self.write_cells(grid, digits, 0);
    }

    /// Writes the cells of the axes from `from` on (the others are as
    /// they were for the previous run).
    #[inline(always)]
    fn write_cells(&mut self, grid: &Grid, digits: &[u64], from: usize) {
        let start = self.cell_starts[from];
        let mut cells = Cells::new(&mut self.bytes[start..]);
        for (a, axis) in grid.axes.iter().enumerate().skip(from) {
            self.cell_starts[a] = start + cells.written();
            axis.write_cell(&mut cells, digits[a]);
        }
        let end = self.cell_starts.len() - 1;
        self.cell_starts[end] = start + cells.written();
    }
}

impl<'g> Worker<'g> {
    /// A worker whose runs obey `limits`.
    pub(super) fn new(grid: &'g Grid, limits: &Limits) -> Self {
        let mut simulator = Simulator::for_run(grid.base.clone(), grid.has_jobs());
        simulator.set_limits(limits.clone());
        let prefixes = match simulator {
            Simulator::Pod(_) => Prefixes::plan(&grid.axes, grid.replications(), &grid.base),
            Simulator::Job(_) | Simulator::Service(_) => None,
        };
        Worker {
            grid,
            simulator,
            digits: vec![0; grid.axes.len()],
            shaping_axes: grid
                .axes
                .iter()
                .rposition(|axis| axis.key.field.shapes_the_pod())
                .map_or(0, |last| last + 1),
            prefixes,
            summary: Summary::new(grid.table()),
            row: Row::new(grid),
        }
    }

    /// Appends the rows of `runs` (every replication of each) to `buf`,
    /// and with `summary` one summary row per run; or says which run the
    /// limits halted, and why (then `buf` holds no whole chunk).
    pub(super) fn rows(
        &mut self,
        runs: Range<u64>,
        buf: &mut Vec<u8>,
        mut summary: Option<&mut Vec<u8>>,
    ) -> Result<(), Halted> {
        if runs.is_empty() {
            return Ok(());
        }
        let grid = self.grid;
        let replications = grid.replications();
        let first = runs.start;
        grid.digits(runs.start, &mut self.digits);
        // Every axis at the chunk's start; then only those the odometer turns.
        let mut changed_from = 0;
        let mut fresh = true;
        if let Some(prefixes) = &mut self.prefixes {
            prefixes.forget();
        }
        for run in runs {
            let spec = self.simulator.spec_mut(changed_from < self.shaping_axes);
            for (axis, &digit) in grid.axes[changed_from..].iter().zip(&self.digits[changed_from..]) {
                axis.apply(digit, spec);
            }
            if summary.is_some() {
                self.summary.clear();
            }
            for replication in 0..replications {
                self.simulator.spec_mut(false).stream.replication = replication;
                // A new run's replications count from 0 again.
                let restart = replications > 1 && replication == 0;
                if fresh || restart || !csv::count_up(&mut self.row.bytes[self.row.counter.clone()]) {
                    let replication = (replications > 1).then_some(replication);
                    self.row.write(grid, &self.digits, run, replication);
                } else if replication == 0 {
                    self.row.write_cells(grid, &self.digits, changed_from);
                }
                fresh = false;
                let into = summary.is_some().then_some(&mut self.summary);
                let prefix =
                    (self.prefixes.as_mut()).map(|p| p.for_row(&grid.axes, &self.digits, changed_from));
                run_row(&mut self.simulator, buf, &mut self.row, into, prefix);
                if let Some(halt) = self.simulator.halted() {
                    let finished = (run - first) * replications + replication;
                    return Err(Halted { run, halt, finished });
                }
            }
            if let Some(out) = summary.as_deref_mut() {
                csv::push_u64(out, run);
                out.extend_from_slice(&self.row.lead()[self.row.cell_starts[0]..]);
                self.summary.push_cells(out);
                out.push(b'\n');
            }
            changed_from = self.advance();
        }
        Ok(())
    }

    /// Moves the odometer to the next run; returns the first axis that changed.
    fn advance(&mut self) -> usize {
        for (a, axis) in self.grid.axes.iter().enumerate().rev() {
            self.digits[a] += 1;
            if self.digits[a] < axis.values.len() {
                return a;
            }
            self.digits[a] = 0;
        }
        0
    }
}
