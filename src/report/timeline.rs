//! A run as people read it: the event list, per-container bands of state over
//! time, and the "exposed" row, read from the run's history.
//!
//! Invariant: the bands and the exposed row are folded from the history's
//! changes alone (alive, exposure began and ended: the model's own word, not
//! worked out again here), so the exposed intervals add up to the run's
//! `exposed_total_ms` (a test checks it) and the picture never disagrees
//! with the numbers.

use std::fmt::Write;

use crate::engine::SimTime;
use crate::model::{Change, ContainerKind, PodReport, PodSpec, TraceEntry};

/// What a container is doing during a band.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BandState {
    /// Not started yet (held by the init order, or never started).
    Waiting,
    /// Started, not yet doing its job.
    Booting,
    /// Alive: doing its job.
    Running,
    /// The preStop hook runs; the container still serves.
    PreStop,
    /// SIGTERM received; draining until it exits.
    Draining,
    /// Exited non-zero, waiting out CrashLoopBackOff.
    BackOff,
    /// Exited for good.
    Exited,
}

impl BandState {
    /// Every state, in legend order.
    pub const ALL: [BandState; 7] = [
        BandState::Waiting,
        BandState::Booting,
        BandState::Running,
        BandState::PreStop,
        BandState::Draining,
        BandState::BackOff,
        BandState::Exited,
    ];

    /// The state's name in legends and SVG attributes.
    pub fn name(self) -> &'static str {
        match self {
            BandState::Waiting => "waiting",
            BandState::Booting => "booting",
            BandState::Running => "running",
            BandState::PreStop => "preStop",
            BandState::Draining => "draining",
            BandState::BackOff => "back-off",
            BandState::Exited => "exited",
        }
    }

    /// The glyph of the terminal band chart.
    pub fn glyph(self) -> char {
        match self {
            BandState::Waiting => '·',
            BandState::Booting => '░',
            BandState::Running => '█',
            BandState::PreStop => '▓',
            BandState::Draining => '▒',
            BandState::BackOff => 'x',
            BandState::Exited => ' ',
        }
    }
}

/// One stretch of one state: `[from, to)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Band {
    /// First instant of the stretch.
    pub from: SimTime,
    /// First instant after it.
    pub to: SimTime,
    /// What the container does meanwhile.
    pub state: BandState,
}

/// One container's row.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Row {
    /// The container's name.
    pub name: String,
    /// Its kind.
    pub kind: ContainerKind,
    /// Whether it carries the Pod's traffic.
    pub proxy: bool,
    /// Its states, in time order, covering the run without gaps.
    pub bands: Vec<Band>,
}

/// Everything a picture of one run needs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Timeline {
    /// One row per container, in declaration order.
    pub rows: Vec<Row>,
    /// Intervals during which an app was alive with no proxy alive.
    pub exposed: Vec<(SimTime, SimTime)>,
    /// When the Pod became Ready, if it did.
    pub ready: Option<SimTime>,
    /// When the deletion request arrived, if it did.
    pub deletion: Option<SimTime>,
    /// Deletion + grace period: when SIGKILL is due for what still runs.
    pub kill_deadline: Option<SimTime>,
    /// Instants of SIGKILL, per container index.
    pub kills: Vec<(usize, SimTime)>,
    /// When the run ended.
    pub end: SimTime,
}

impl Timeline {
    /// Builds the bands of `report`, a run of `spec`, from its history: the
    /// spec gives only the rows' names and kinds.
    pub fn new(spec: &PodSpec, report: &PodReport) -> Timeline {
        Timeline::until(spec, report, SimTime(report.metrics.end_ms))
    }

    /// The same, drawn on to `end` if that is later than the run's own
    /// end: a replica of a Service keeps its last state until the
    /// Service's run ends, though its own Pod had nothing more to do.
    pub fn until(spec: &PodSpec, report: &PodReport, end: SimTime) -> Timeline {
        let end = end.max(SimTime(report.metrics.end_ms));
        let n = spec.containers.len();
        let mut state = vec![BandState::Waiting; n];
        let mut since = vec![SimTime::ZERO; n];
        let mut alive = vec![false; n];
        let mut rows: Vec<Row> = spec
            .containers
            .iter()
            .map(|c| Row {
                name: c.name.clone(),
                kind: c.kind,
                proxy: c.proxy,
                bands: Vec::new(),
            })
            .collect();
        let mut exposed_since: Option<SimTime> = None;
        let mut timeline = Timeline {
            rows: Vec::new(),
            exposed: Vec::new(),
            ready: None,
            deletion: None,
            kill_deadline: None,
            kills: Vec::new(),
            end,
        };
        for &TraceEntry { at, container, what } in &report.trace {
            let Some(id) = container else {
                match what {
                    Change::PodReady => {
                        timeline.ready.get_or_insert(at);
                    }
                    Change::DeletionRequested { grace } => {
                        timeline.deletion = Some(at);
                        timeline.kill_deadline = Some(at + grace);
                    }
                    Change::ExposureBegan => exposed_since = Some(at),
                    Change::ExposureEnded => {
                        if let Some(from) = exposed_since.take().filter(|&from| at > from) {
                            timeline.exposed.push((from, at));
                        }
                    }
                    _ => {}
                }
                continue;
            };
            let i = id.index();
            let next = match what {
                Change::Starting { .. } => BandState::Booting,
                Change::Alive { .. } => {
                    alive[i] = true;
                    BandState::Running
                }
                Change::Exited(_) => {
                    alive[i] = false;
                    BandState::Exited
                }
                Change::BackOff { .. } => BandState::BackOff,
                Change::PreStopStarted => BandState::PreStop,
                // The hook is over; the container serves (or boots) until SIGTERM.
                Change::PreStopFinished { .. } | Change::AwaitingTurn => {
                    if alive[i] {
                        BandState::Running
                    } else {
                        BandState::Booting
                    }
                }
                Change::Sigterm { .. } => BandState::Draining,
                Change::Sigkill => {
                    timeline.kills.push((i, at));
                    state[i]
                }
                _ => state[i],
            };
            if next != state[i] {
                if at > since[i] {
                    rows[i].bands.push(Band {
                        from: since[i],
                        to: at,
                        state: state[i],
                    });
                }
                state[i] = next;
                since[i] = at;
            }
        }
        for i in 0..n {
            if end > since[i] {
                rows[i].bands.push(Band {
                    from: since[i],
                    to: end,
                    state: state[i],
                });
            }
        }
        if let Some(from) = exposed_since.filter(|&from| end > from) {
            timeline.exposed.push((from, end));
        }
        timeline.rows = rows;
        timeline
    }

    /// The state of row `i` at instant `t`.
    pub fn state_at(&self, i: usize, t: SimTime) -> BandState {
        self.rows[i]
            .bands
            .iter()
            .find(|b| b.from <= t && t < b.to)
            .map_or(BandState::Exited, |b| b.state)
    }

    /// Whether an app runs with no proxy at instant `t`.
    pub fn exposed_at(&self, t: SimTime) -> bool {
        self.exposed.iter().any(|&(from, to)| from <= t && t < to)
    }

    /// The end of the picture: the run's end, stretched to show the deletion.
    pub fn span(&self) -> SimTime {
        self.end
            .max(self.deletion.unwrap_or(SimTime::ZERO))
            .max(SimTime(1))
    }
}

/// The event list: `t=2.000s  config-fetch  exited 0 (completed)`.
pub fn event_lines(spec: &PodSpec, report: &PodReport) -> String {
    let width = spec
        .containers
        .iter()
        .map(|c| c.name.len())
        .max()
        .unwrap_or(3)
        .max(3);
    // The time column fits the latest instant: `t=10803.000s` is one
    // character wider than anything before 10,000 s.
    let lines: Vec<_> = super::line::lines(&report.trace).collect();
    let at_width = lines.last().map_or(0, |(e, _)| e.at.to_string().len()).max(9);
    let mut out = String::new();
    for (e, line) in lines {
        let who = e.container.map_or("pod", |c| spec.container(c).name.as_str());
        let _ = writeln!(out, "t={:<at_width$} {who:<width$}  {line}", e.at.to_string());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::SimDuration;
    use crate::model::simulate_pod;
    use crate::scenario::Scenario;

    const SIDE_BY_SIDE: &str = include_str!("../../scenarios/seed-side-by-side.toml");

    #[test]
    fn exposed_row_adds_up_to_the_metric() {
        let s = Scenario::parse(SIDE_BY_SIDE, "s.toml").unwrap();
        let report = simulate_pod(&s.run);
        let t = Timeline::new(&s.run.pod, &report);
        assert_eq!(
            t.exposed,
            [(SimTime(3000), SimTime(5000)), (SimTime(11_000), SimTime(13_000))]
        );
        let total: u64 = t.exposed.iter().map(|(a, b)| b.since(*a).as_millis()).sum();
        assert_eq!(total, report.metrics.exposed_total_ms);
    }

    #[test]
    fn bands_follow_the_seed_side_by_side_run() {
        let s = Scenario::parse(SIDE_BY_SIDE, "s.toml").unwrap();
        let t = Timeline::new(&s.run.pod, &simulate_pod(&s.run));
        let proxy: Vec<(u64, u64, &str)> = t.rows[1]
            .bands
            .iter()
            .map(|b| (b.from.0, b.to.0, b.state.name()))
            .collect();
        assert_eq!(
            proxy,
            [
                (0, 2000, "waiting"),
                (2000, 5000, "booting"),
                (5000, 10_000, "running"),
                (10_000, 11_000, "draining"),
                (11_000, 13_000, "exited")
            ]
        );
        assert_eq!(t.deletion, Some(SimTime(10_000)));
        assert_eq!(t.kill_deadline, Some(SimTime(40_000)));
    }

    /// The CKAD adapter Pod's `app` (`sleep 3600`, boot 1 s) exits at
    /// 3601 s, 7202 s, 10,803 s …: past 9,999 s the times are one character
    /// wider, and every line's container column moves with them.
    #[test]
    fn event_columns_stay_aligned_past_ten_thousand_seconds() {
        let s = Scenario::load(std::path::Path::new(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/scenarios/ckad/adapter-pod.yaml"
        )))
        .unwrap();
        let run = crate::model::RunSpec {
            horizon: SimDuration::from_secs(11_000),
            ..s.run.clone()
        };
        let text = event_lines(&run.pod, &simulate_pod(&run));
        let lines: Vec<&str> = text.lines().collect();
        // `t=` and `10803.000s` (10 characters) and a space: the name at 13.
        assert_eq!(lines[0], "t=0.000s     app              starting");
        assert!(lines.contains(&"t=7202.000s  app              exited 0 (completed)"));
        assert!(lines.contains(&"t=10803.000s app              exited 0 (completed)"));
        let column = |l: &str| {
            l.find(" app ")
                .or_else(|| l.find(" pod "))
                .or_else(|| l.find(" metrics-adapter "))
        };
        assert!(lines.iter().all(|l| column(l) == Some(12)), "{text}");
    }
}
