//! A Service grid's combinations against the Service's rules, before any
//! row is written: each axis must fit the kind of disruption it sweeps (a
//! rollout's keys a rollout of the base, a drain's a drain, a spot
//! reclaim's a spot reclaim, not a node failure), a Recreate
//! never meets a swept `max_surge` or `max_unavailable` (the API refuses a
//! `rollingUpdate` beside it), and `check_service` holds for every value of
//! every axis and for every pair of values of two axes: `max_surge = 0`
//! with `max_unavailable = 0`, `drain = 2` with `nodes = 2`, `delete = 2`
//! with `replicas = 2`.
//!
//! Invariant: the Service's rules each compare at most two keys, so the
//! pairs cover every combination; an axis is checked value by value (a
//! range, or a list of more than `LISTED` values, by the values where its
//! classes can change: its smallest, largest and zero values).

use super::{Axis, Grid, Values};
use crate::model::RunSpec;
use crate::model::service::{Disruption, Strategy};
use crate::scenario::diagnostic::{AxisWrong, Entry};
use crate::scenario::key::{DisruptionKind, Field, Scope};
use crate::scenario::{Problem, check_service};

/// Lists up to this long are checked value by value.
const LISTED: u64 = 64;

impl Grid {
    /// The Service's rules over the combinations; `lines` are the axes'
    /// lines in the grid file, for messages that name two axes. Returns
    /// the axis to point at and the message.
    pub(super) fn check_service(&self, lines: &[usize]) -> Result<(), (usize, Problem)> {
        let swept: Vec<usize> = (0..self.axes.len())
            .filter(|&a| Scope::SERVICE.contains(&self.axes[a].key.field.scope()))
            .collect();
        let Some(service) = self.base.service.as_deref() else {
            return match swept.first() {
                Some(&a) => Err((
                    a,
                    Problem::at_axis(
                        &self.axes[a].path,
                        AxisWrong::Message("the base scenario has no [service] to sweep".into()),
                    ),
                )),
                None => Ok(()),
            };
        };
        for &a in &swept {
            self.check_kind(a, &service.disruptions)?;
        }
        self.check_recreate(&swept, &service.disruptions, lines)?;
        let reps: Vec<Vec<u64>> = swept.iter().map(|&a| representatives(&self.axes[a])).collect();
        for (n, &a) in swept.iter().enumerate() {
            for &i in &reps[n] {
                self.check_combination(&[(a, i)], lines)?;
            }
        }
        for (n, &a) in swept.iter().enumerate() {
            for (m, &b) in swept.iter().enumerate().skip(n + 1) {
                for &i in &reps[n] {
                    for &j in &reps[m] {
                        self.check_combination(&[(a, i), (b, j)], lines)?;
                    }
                }
            }
        }
        Ok(())
    }

    /// A disruption's axis sweeps a disruption of the base, of the kind
    /// its key belongs to: an axis never turns a delete into a rollout
    /// (the CSV's columns, and what the other keys mean, come from the base).
    fn check_kind(&self, a: usize, disruptions: &[Disruption]) -> Result<(), (usize, Problem)> {
        let axis = &self.axes[a];
        if axis.key.field.scope() != Scope::Disruption {
            return Ok(());
        }
        let index = axis.key.container.unwrap_or(0);
        let Some(d) = disruptions.get(index) else {
            let wrong = AxisWrong::NoEntry {
                entry: Entry::Disruption,
                index,
                count: disruptions.len(),
            };
            return Err((a, Problem::at_axis(&axis.path, wrong)));
        };
        match axis.key.field.disruption_kind() {
            Some(kind) if kind != DisruptionKind::of(d) => Err((
                a,
                Problem::at_axis(
                    &axis.path,
                    AxisWrong::Message(format!(
                        "disruption {index} of the base is {}, and {} belongs to {}; make it {} in the base \
                         ({}) to sweep its keys",
                        DisruptionKind::of(d).name(),
                        axis.key.field.leaf(),
                        kind.name(),
                        kind.name(),
                        kind.how()
                    )),
                ),
            )),
            // A node shutdown's setting over a base that shuts no node
            // down would set what nothing reads.
            _ if crate::scenario::rules::service::named_by(axis.key.field)
                == Some(&[Field::NodeShutdown][..])
                && d.node_shutdown.is_none() =>
            {
                Err((
                    a,
                    Problem::at_axis(
                        &axis.path,
                        AxisWrong::Message(format!(
                            "disruption {index} of the base shuts no node down, and {} is a node shutdown's \
                             setting; write node_shutdown = <node> in the base to sweep it",
                            axis.key.field.leaf()
                        )),
                    ),
                ))
            }
            // A spot reclaim's key would make the base's node failure a
            // spot reclaim: the same kind, another disruption.
            _ if d.node_failure.is_some_and(|f| f.spot.is_none())
                && matches!(
                    axis.key.field,
                    Field::SpotReclaim | Field::Provider | Field::Notice
                ) =>
            {
                Err((
                    a,
                    Problem::at_axis(
                        &axis.path,
                        AxisWrong::Message(format!(
                            "disruption {index} of the base is a node failure, which gives no notice, and {} \
                             belongs to a spot reclaim; write spot_reclaim = <node> in the base instead of \
                             node_failure to sweep it",
                            axis.key.field.leaf()
                        )),
                    ),
                ))
            }
            _ => Ok(()),
        }
    }

    /// A Recreate has no `rollingUpdate` (the API refuses maxSurge and
    /// maxUnavailable beside it), so a swept surge or unavailable meets no
    /// Recreate, whether the base or a `rollout` axis makes it.
    fn check_recreate(
        &self,
        swept: &[usize],
        disruptions: &[Disruption],
        lines: &[usize],
    ) -> Result<(), (usize, Problem)> {
        let of = |a: usize, f: &[Field]| {
            let key = self.axes[a].key;
            f.contains(&key.field).then_some(key.container.unwrap_or(0))
        };
        for &s in swept {
            let Some(index) = of(s, &[Field::MaxSurge, Field::MaxUnavailable]) else {
                continue;
            };
            let surge = &self.axes[s];
            let strategy_axis = swept
                .iter()
                .copied()
                .find(|&r| of(r, &[Field::Rollout]) == Some(index));
            let refused = "the API refuses maxSurge and maxUnavailable under a Recreate, which deletes \
                           every old Pod at once";
            match strategy_axis {
                Some(r) => {
                    // A word is encoded as its index in the spellings.
                    let word = Strategy::ALL.iter().position(|&k| k == Strategy::Recreate);
                    let recreate = (0..self.axes[r].values.len())
                        .find(|&i| word == Some(self.axes[r].values.get(i) as usize));
                    if let Some(i) = recreate {
                        let strategy = &self.axes[r];
                        return Err((
                            s,
                            format!(
                                "the combination {} = {} (line {}), {} = {} (line {}) is refused: {refused}; \
                                 sweep Recreate in a grid of its own",
                                strategy.path,
                                strategy.describe(i),
                                lines[r],
                                surge.path,
                                surge.describe(0),
                                lines[s]
                            )
                            .into(),
                        ));
                    }
                }
                None => {
                    let is_recreate = disruptions
                        .get(index)
                        .and_then(|d| d.rollout.as_ref())
                        .is_some_and(|r| r.strategy == Strategy::Recreate);
                    if is_recreate {
                        let wrong = AxisWrong::Message(format!(
                            "disruption {index} of the base is a Recreate, and {refused}; write rollout = \
                             \"RollingUpdate\" in the base"
                        ));
                        return Err((s, Problem::at_axis(&surge.path, wrong)));
                    }
                }
            }
        }
        Ok(())
    }

    /// `check_service` on the base with these (axis, value index) settings.
    fn check_combination(&self, settings: &[(usize, u64)], lines: &[usize]) -> Result<(), (usize, Problem)> {
        let mut run: RunSpec = self.base.clone();
        for &(a, i) in settings {
            self.axes[a].apply(i, &mut run);
        }
        let Err(problem) = check_service(&run) else {
            return Ok(());
        };
        let blamed = settings
            .iter()
            .rev()
            .find(|(a, _)| {
                let key = self.axes[*a].key;
                key.field == problem.field && (problem.index.is_none() || key.container == problem.index)
            })
            .unwrap_or(&settings[settings.len() - 1])
            .0;
        let message = match settings {
            [(a, i)] => format!(
                "{} = {}: {}",
                self.axes[*a].path,
                self.axes[*a].describe(*i),
                problem
            ),
            _ => {
                let named: Vec<String> = settings
                    .iter()
                    .map(|&(a, i)| {
                        format!(
                            "{} = {} (line {})",
                            self.axes[a].path,
                            self.axes[a].describe(i),
                            lines[a]
                        )
                    })
                    .collect();
                format!("the combination {} is refused: {}", named.join(", "), problem)
            }
        };
        Err((blamed, message.into()))
    }
}

/// The value indices of `axis` to check: every one of a short list; of a
/// range or a long list, those where a rule's outcome can change (the
/// rules compare with a threshold or with zero): the first two and the
/// last of a range (its values are monotone), a long list's smallest,
/// largest and zero values.
fn representatives(axis: &Axis) -> Vec<u64> {
    let len = axis.values.len();
    let mut picks: Vec<u64> = match &axis.values {
        Values::Range { .. } => vec![0, 1, len.saturating_sub(1)],
        _ if len <= LISTED => (0..len).collect(),
        values => {
            let by_value = |pick: fn(u64, u64) -> bool| {
                (0..len).fold(0, |best, i| {
                    if pick(values.get(i), values.get(best)) {
                        i
                    } else {
                        best
                    }
                })
            };
            let mut picks = vec![by_value(|a, b| a < b), by_value(|a, b| a > b)];
            // A count of 0 and 0% (a tagged 0) both are zero as written.
            picks.extend((0..len).find(|&i| values.get(i).trailing_zeros() >= 62));
            picks
        }
    };
    picks.retain(|&i| i < len);
    picks.sort_unstable();
    picks.dedup();
    picks
}
