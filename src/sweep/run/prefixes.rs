//! Rows that start from a shared prefix. When the axes after the last one
//! that sets a field only a kill reads (`Field::read_from_the_first_kill_on`:
//! drains, preStop hooks, stop signals, the grace period) have few
//! combinations, rows that differ only in kill-only fields run alike up to
//! their deletion. A worker keeps one saved prefix (`RunPrefix`) per
//! combination of those inner axes; each row but the first of a
//! combination starts from its prefix instead of from Pod creation.
//!
//! Invariant: a row's bytes are those of a run from Pod creation
//! (`PodSimulator::run_with_prefix`): a prefix serves only specs that
//! differ from the one it was saved under in kill-only fields, because
//! the inner axes pick the prefix and a turn of any other axis that is
//! not kill-only forgets them all.

use super::super::axis::Axis;
use crate::model::{RunPrefix, RunSpec};

/// The most prefixes a worker keeps. A grid with more combinations inside
/// its last kill-only axis shares none: each prefix would be saved about
/// as often as it is used, and the memory would grow with the grid.
const MAX_PREFIXES: u64 = 64;

/// One worker's saved prefixes and how a row picks one.
pub(super) struct Prefixes {
    /// One per combination of the axes from `inner_from` on.
    saved: Vec<RunPrefix<(), RunSpec>>,
    /// The first axis after the last kill-only one that turns.
    inner_from: usize,
    /// A turn of an axis before this one turns one that is not kill-only
    /// and picks no prefix: what every prefix was saved under changed.
    forget_below: usize,
}

impl Prefixes {
    /// How rows of `axes` share prefixes, or `None` if none would: no
    /// kill-only axis turns, too many combinations follow the last one,
    /// or the grid has replications (each draws its durations anew, from
    /// the Pod's creation on).
    pub(super) fn plan(axes: &[Axis], replications: u64, base: &RunSpec) -> Option<Prefixes> {
        if replications > 1 {
            return None;
        }
        let turns = |a: &Axis| a.values.len() > 1;
        let kill_only = |a: &Axis| a.key.field.read_from_the_first_kill_on();
        let last_kill_only = axes.iter().rposition(|a| kill_only(a) && turns(a))?;
        let inner_from = last_kill_only + 1;
        let combinations = axes[inner_from..].iter().try_fold(1u64, |n, a| {
            n.checked_mul(a.values.len()).filter(|&n| n <= MAX_PREFIXES)
        })?;
        let forget_below = axes[..last_kill_only]
            .iter()
            .rposition(|a| !kill_only(a) && turns(a))
            .map_or(0, |a| a + 1);
        Some(Prefixes {
            saved: (0..combinations).map(|_| RunPrefix::new(base, ())).collect(),
            inner_from,
            forget_below,
        })
    }

    /// Forgets every prefix: a chunk starts afresh.
    pub(super) fn forget(&mut self) {
        self.saved.iter_mut().for_each(RunPrefix::forget);
    }

    /// The prefix of the row at `digits`, which the odometer reached by
    /// turning `changed_from` and the axes after it.
    pub(super) fn for_row(
        &mut self,
        axes: &[Axis],
        digits: &[u64],
        changed_from: usize,
    ) -> &mut RunPrefix<(), RunSpec> {
        if changed_from < self.forget_below {
            self.forget();
        }
        let inner = axes[self.inner_from..].iter().zip(&digits[self.inner_from..]);
        let slot = inner.fold(0, |slot, (axis, &digit)| slot * axis.values.len() + digit);
        &mut self.saved[slot as usize]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sweep::grid::Grid;
    use std::path::Path;

    fn grid(axes: &str) -> Grid {
        let folder = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios");
        let base = crate::scenario::Scenario::load(&folder.join("seed-sidecar.toml")).unwrap();
        let text = format!("base = \"seed-sidecar.toml\"\n[axes]\n{axes}");
        Grid::parse(&text, "g.toml", base, &folder).unwrap()
    }

    fn plan(axes: &str, replications: u64) -> Option<(usize, usize, usize)> {
        let g = grid(axes);
        let p = Prefixes::plan(&g.axes, replications, &g.base)?;
        Some((p.saved.len(), p.inner_from, p.forget_below))
    }

    /// The bench grid's order: kind, two boots, two drains, fails inside.
    /// A prefix per value of `fails`; a turn of a boot (axis 2 or before)
    /// forgets them, a turn of a drain does not.
    const BAR: &str = "\"containers.proxy.kind\" = [\"sidecar\", \"app\"]\n\
        \"containers.proxy.boot\" = [\"1s\", \"2s\"]\n\
        \"containers.web.boot\" = [\"1s\", \"2s\", \"3s\"]\n\
        \"containers.proxy.drain\" = [\"0s\", \"1s\"]\n\
        \"containers.web.drain\" = [\"0s\", \"1s\"]\n\
        \"containers.config-fetch.fails\" = [0, 1]";

    #[test]
    fn the_bench_grid_keeps_a_prefix_per_value_of_its_inner_axis() {
        assert_eq!(plan(BAR, 1), Some((2, 5, 3)));
        let g = grid(BAR);
        let mut p = Prefixes::plan(&g.axes, 1, &g.base).unwrap();
        // fails = 1 picks the second prefix.
        let digits = [0, 1, 2, 1, 0, 1];
        assert!(std::ptr::eq(p.for_row(&g.axes, &digits, 4), &p.saved[1]));
    }

    #[test]
    fn no_prefixes_without_a_kill_only_axis_that_turns_or_with_replications() {
        assert_eq!(plan("\"containers.web.boot\" = [\"1s\", \"2s\"]", 1), None);
        assert_eq!(
            plan(
                "\"containers.web.drain\" = [\"1s\"]\n\"containers.web.boot\" = [\"1s\", \"2s\"]",
                1
            ),
            None
        );
        assert_eq!(plan(BAR, 2), None);
        // Kill-only axes outermost: one prefix per combination of the rest.
        assert_eq!(
            plan(
                "\"containers.web.drain\" = [\"0s\", \"1s\"]\n\"containers.web.boot\" = [\"1s\", \"2s\"]",
                1
            ),
            Some((2, 1, 0))
        );
    }

    #[test]
    fn too_many_combinations_inside_the_last_kill_only_axis_share_nothing() {
        let fine = "\"containers.web.drain\" = [\"0s\", \"1s\"]\n\
            \"containers.web.boot\" = { from = \"0s\", to = \"6.4s\", step = \"100ms\" }";
        // 65 boots: one more than MAX_PREFIXES.
        assert_eq!(plan(fine, 1), None);
        let just = fine.replace("6.4s", "6.3s");
        assert_eq!(plan(&just, 1).map(|p| p.0 as u64), Some(MAX_PREFIXES));
    }
}
