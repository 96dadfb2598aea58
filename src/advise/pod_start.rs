//! Advice for a Pod's start: where its proxy sits (side by side with the
//! app, or a native sidecar where the cluster has them), and its
//! startupProbe's `periodSeconds` and `failureThreshold`, for no exposure
//! (the app serving before its proxy is up, or after it is gone) at the
//! least cost in time to Ready, within `--max-ready` if given.
//!
//! Why these three: side by side, the app and the proxy start together and
//! the faster one wins, so the app runs exposed; a native sidecar starts
//! first and stops last, so nothing is exposed, but the app waits for the
//! proxy's startup probe (the seed Pod: exposed 2 s + 2 s and Ready at
//! 5 s side by side, 0 s and Ready at 6 s native). The probe's period is
//! the lag between the proxy answering and the kubelet seeing it, which
//! the app then waits for; its failure threshold times the period is how
//! long a slow proxy may boot before it is killed and started again.
//!
//! How: each layout is run over replications 0 to R − 1 (common random
//! numbers: replication r draws the same boots whatever the layout); the
//! advised layout is the one whose exposure p99 is 0 with the least Ready
//! p99. Then, for each period of 1, 2, 5 and 10 s (and today's), the
//! smallest threshold with which no run restarts more than with the
//! largest threshold searched: a larger threshold never kills sooner, so
//! bisection holds, and the answer is checked on replications R to
//! 2R − 1 (`search`). Among those periods: with `--max-ready`, the longest
//! whose Ready p99 fits (fewest probe calls); without, the fastest.

use std::collections::HashMap;

use rayon::prelude::*;

use super::layout::{Layout, native_available, with_layout};
use super::search::{bisect, confirm};
use crate::engine::SimDuration;
use crate::model::{ContainerKind, KubeVersion, Metrics, PodSimulator, ProbeKind, RunSpec};
use crate::scenario::key::{Field, Key, ProbeField, Value};
use crate::sweep::summary::nearest_rank;

/// The periods tried besides today's: the kubelet's smallest (1 s) up to
/// its default (10 s).
pub const PERIODS: [SimDuration; 4] = [
    SimDuration::from_secs(1),
    SimDuration::from_secs(2),
    SimDuration::from_secs(5),
    SimDuration::from_secs(10),
];

/// The largest failure threshold searched, unless today's is larger:
/// Istio's own (600 at a 1 s period: ten minutes to boot).
pub const THRESHOLD_TOP: u32 = 600;

/// Why a Pod's start is not advised.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum NotStart {
    /// No proxy, or no app behind it: nothing can be exposed.
    #[error(
        "the Pod has no proxy in front of an app (a container with proxy = true, or the podsim.dev/<name>.proxy \
         annotation), so nothing is exposed and there is no start to advise"
    )]
    NoProxy,
}

/// What one candidate measured, over its replications.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StartFigures {
    /// p99 (nearest rank) of the time exposed before the deletion, ms.
    pub exposed_startup_p99: u64,
    /// p99 of the time exposed from the deletion on, ms.
    pub exposed_shutdown_p99: u64,
    /// p99 of the first Ready; `None` if some run never was Ready.
    pub ready_p99: Option<u64>,
    /// Runs in which a container restarted.
    pub restarted: u64,
}

impl StartFigures {
    fn of(runs: &[Metrics]) -> StartFigures {
        let p99 = |f: &dyn Fn(&Metrics) -> Option<u64>| {
            let mut v: Vec<u64> = runs.iter().map(f).collect::<Option<_>>()?;
            v.sort_unstable();
            (!v.is_empty()).then(|| nearest_rank(&v, 99))
        };
        StartFigures {
            exposed_startup_p99: p99(&|m| Some(m.exposed_startup_ms)).unwrap_or(0),
            exposed_shutdown_p99: p99(&|m| Some(m.exposed_shutdown_ms)).unwrap_or(0),
            ready_p99: p99(&|m| m.ready_ms),
            restarted: runs.iter().filter(|m| m.restarts > 0).count() as u64,
        }
    }

    /// Nothing exposed at the p99, at start or at shutdown.
    pub fn unexposed(&self) -> bool {
        self.exposed_startup_p99 == 0 && self.exposed_shutdown_p99 == 0
    }
}

/// The proxy's startupProbe: today's and the advised.
#[derive(Clone, Debug, PartialEq)]
pub struct ProbeAdvice {
    /// Today's period and failure threshold; `None` when the proxy has no
    /// startup probe and the advice adds one.
    pub today: Option<(SimDuration, u32)>,
    /// The advised period and threshold (`None`: no threshold up to the
    /// top keeps the restarts down at any period).
    pub advised: Option<(SimDuration, u32)>,
    /// Runs with a restart at today's settings (in the advised layout).
    pub restarted_today: u64,
    /// Each period tried, its smallest safe threshold and figures.
    pub periods: Vec<(SimDuration, Option<u32>, StartFigures)>,
    /// The largest threshold searched.
    pub top: u32,
}

/// The advice for a Pod's start.
#[derive(Clone, Debug, PartialEq)]
pub struct StartAdvice {
    /// The proxy's name.
    pub proxy: String,
    /// The app behind it.
    pub app: String,
    /// The kubelet simulated.
    pub kubernetes: KubeVersion,
    /// Replications per candidate (R).
    pub replications: u64,
    /// The seed of every run.
    pub seed: u64,
    /// The time-to-Ready budget, if given.
    pub max_ready: Option<SimDuration>,
    /// Where the proxy is today.
    pub today_layout: Layout,
    /// Each layout tried, at today's probe.
    pub layouts: Vec<(Layout, StartFigures)>,
    /// The layout with no exposure and the least Ready p99, if one has none.
    pub advised_layout: Option<Layout>,
    /// The startupProbe, if the proxy has one.
    pub probe: Option<ProbeAdvice>,
    /// The Pod as written.
    pub today: StartFigures,
    /// The Pod with the advised settings.
    pub advised: StartFigures,
    /// Every run simulated.
    pub runs: u64,
    /// What a brute-force grid of the same candidates runs.
    pub grid_runs: u64,
}

impl StartAdvice {
    /// Whether the advised Ready p99 fits the budget (true without one).
    pub fn fits(&self, figures: &StartFigures) -> bool {
        match (self.max_ready, figures.ready_p99) {
            (None, _) => true,
            (Some(max), Some(ready)) => ready <= max.as_millis(),
            (Some(_), None) => false,
        }
    }
}

/// A candidate: the layout and the proxy's startupProbe period and threshold.
type Point = (Layout, Option<(SimDuration, u32)>);

/// Runs candidates of one Pod, once each per replication range, and counts the runs.
struct Runner {
    base: RunSpec,
    proxy: usize,
    runs: u64,
    cache: HashMap<(Point, u64), Vec<Metrics>>,
}

impl Runner {
    fn spec(&self, (layout, probe): Point) -> RunSpec {
        let mut spec = match Layout::of(self.base.pod.containers[self.proxy].kind) == layout {
            true => self.base.clone(),
            false => with_layout(&self.base, self.proxy, layout),
        };
        let index = (spec.pod.containers.iter())
            .position(|c| c.name == self.base.pod.containers[self.proxy].name)
            .expect("the proxy is still there");
        if let Some((period, threshold)) = probe {
            let key = |field| Key::container(Field::Probe(ProbeKind::Startup, field), index);
            key(ProbeField::Period).set(&mut spec, &Value::Millis(period));
            key(ProbeField::FailureThreshold).set(&mut spec, &Value::Count(threshold));
        }
        spec
    }

    fn sample(&mut self, point: Point, reps: std::ops::Range<u64>) -> &[Metrics] {
        let key = (point, reps.start);
        if !self.cache.contains_key(&key) {
            let spec = self.spec(point);
            self.runs += reps.end - reps.start;
            let runs = reps
                .into_par_iter()
                .map_init(
                    || PodSimulator::new(spec.clone()),
                    |sim, r| {
                        sim.spec_mut_keeping_shape().stream.replication = r;
                        sim.run()
                    },
                )
                .collect();
            self.cache.insert(key, runs);
        }
        &self.cache[&key]
    }
}

/// Advises the start of `run`'s Pod (not a Service's, not a Job's) over
/// `replications` replications, within `max_ready` if given.
pub fn advise_start(
    run: &RunSpec,
    replications: u64,
    max_ready: Option<SimDuration>,
) -> Result<StartAdvice, NotStart> {
    let pod = &run.pod;
    let proxy = (pod.containers.iter())
        .position(|c| c.proxy && c.kind != ContainerKind::Init)
        .ok_or(NotStart::NoProxy)?;
    let app = (pod.containers.iter())
        .find(|c| c.kind == ContainerKind::App && !c.proxy)
        .ok_or(NotStart::NoProxy)?;
    let mut m = Runner {
        base: run.clone(),
        proxy,
        runs: 0,
        cache: HashMap::new(),
    };
    let r = replications;
    let today_layout = Layout::of(pod.containers[proxy].kind);
    let mut layouts = vec![today_layout];
    match today_layout {
        Layout::SideBySide if native_available(pod.kubernetes) => layouts.push(Layout::Native),
        Layout::Native => layouts.push(Layout::SideBySide),
        Layout::SideBySide => {}
    }
    let layouts: Vec<(Layout, StartFigures)> = (layouts.into_iter())
        .map(|l| (l, StartFigures::of(m.sample((l, None), 0..r))))
        .collect();
    // Only ever towards a native sidecar: side by side, no exposure is the
    // luck of today's timings, where a native sidecar's order holds for any.
    let unexposed = |l: Layout| layouts.iter().any(|(x, f)| *x == l && f.unexposed());
    let native_tried = layouts.iter().any(|(l, _)| *l == Layout::Native);
    let mut advised_layout = [today_layout, Layout::Native].into_iter().find(|&l| unexposed(l));
    // The probe is searched where the proxy will be: native if it may be.
    let layout = advised_layout.unwrap_or(if native_tried {
        Layout::Native
    } else {
        today_layout
    });
    let today_probe =
        (pod.containers[proxy].probe(ProbeKind::Startup)).map(|p| (p.period, p.failure_threshold));
    // A proxy without a startup probe is started as soon as its process
    // runs (R21), before it serves: a native sidecar then lets the app
    // start too soon, and a startup probe is what holds it.
    let add_probe = today_probe.is_none()
        && advised_layout.is_none()
        && native_tried
        && pod.containers[proxy].has_probes();
    // Side by side and exposed, no probe setting buys no exposure: none is advised.
    let hopeless = advised_layout.is_none() && layout == Layout::SideBySide;
    let probe = match (today_probe, add_probe) {
        _ if hopeless => None,
        (Some(today), _) => Some(probe_advice(&mut m, layout, Some(today), r, max_ready)),
        (None, true) => Some(probe_advice(&mut m, layout, None, r, max_ready)),
        (None, false) => None,
    };
    if add_probe && probe.as_ref().is_some_and(|p| p.advised.is_some()) {
        advised_layout = Some(Layout::Native);
    }
    let layout = advised_layout.unwrap_or(today_layout);
    let advised_probe = probe.as_ref().and_then(|p| p.advised);
    let today = StartFigures::of(m.sample((today_layout, None), 0..r));
    let advised = StartFigures::of(m.sample((layout, advised_probe), 0..r));
    let periods = probe.as_ref().map_or(1, |p| p.periods.len() as u64);
    let top = probe.as_ref().map_or(1, |p| u64::from(p.top));
    Ok(StartAdvice {
        proxy: pod.containers[proxy].name.clone(),
        app: app.name.clone(),
        kubernetes: pod.kubernetes,
        replications: r,
        seed: run.stream.seed,
        max_ready,
        today_layout,
        grid_runs: layouts.len() as u64 * periods * top * r,
        layouts,
        advised_layout,
        probe,
        today,
        advised,
        runs: m.runs,
    })
}

/// The startupProbe in `layout`: for each period, the smallest threshold
/// that restarts nothing more than the top does, checked on fresh
/// replications; then the period the budget asks for.
fn probe_advice(
    m: &mut Runner,
    layout: Layout,
    today: Option<(SimDuration, u32)>,
    r: u64,
    max_ready: Option<SimDuration>,
) -> ProbeAdvice {
    let top = today.map_or(0, |t| t.1).max(THRESHOLD_TOP);
    let mut periods: Vec<SimDuration> = PERIODS.to_vec();
    if let Some((period, _)) = today
        && !periods.contains(&period)
    {
        periods.push(period);
        periods.sort();
    }
    let mut tried = Vec::new();
    for &period in &periods {
        let at = |t: u32| (layout, Some((period, t)));
        let safe = |m: &mut Runner, t: u64, reps: std::ops::Range<u64>| {
            let worst: Vec<u32> = m
                .sample(at(top), reps.clone())
                .iter()
                .map(|x| x.restarts)
                .collect();
            let runs = m.sample(at(t as u32), reps);
            runs.iter().zip(&worst).all(|(x, w)| x.restarts <= *w)
        };
        let found = bisect(1, u64::from(top), |t| safe(m, t, 0..r));
        let checked = found.map(|t| confirm(t, u64::from(top), |u| safe(m, u, r..2 * r)));
        let threshold = checked.filter(|c| c.held).map(|c| c.index as u32);
        let figures = StartFigures::of(m.sample(at(threshold.unwrap_or(top)), 0..r));
        tried.push((period, threshold, figures));
    }
    let candidates = || {
        (tried.iter())
            .filter_map(|&(p, t, f)| Some((p, t?, f)))
            .filter(|(_, _, f)| f.unexposed())
    };
    let ready = |f: &StartFigures| f.ready_p99.unwrap_or(u64::MAX);
    let fastest = candidates().min_by_key(|&(p, _, f)| (ready(&f), std::cmp::Reverse(p)));
    let advised = match max_ready {
        Some(max) => candidates()
            .filter(|(_, _, f)| ready(f) <= max.as_millis())
            .max_by_key(|&(p, _, _)| p)
            .or(fastest),
        None => fastest,
    };
    let restarted_today = StartFigures::of(m.sample((layout, today), 0..r)).restarted;
    ProbeAdvice {
        today,
        advised: advised.map(|(p, t, _)| (p, t)),
        restarted_today,
        periods: tried,
        top,
    }
}
