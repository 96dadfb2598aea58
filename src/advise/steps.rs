//! The steps of an advice, in order: the preStop sleep, then the grace
//! with that preStop, each a search on replications 0 to R − 1 (bisection
//! or the brute-force fallback, as `Order::of` declares the key) and a
//! check on R to 2R − 1 (`search`); then a RollingUpdate's strategy with
//! both (`rollout`). All on one `Measurer`, so every run is counted once.

use std::ops::Range;

use super::measure::{Measurer, Point, Sample};
use super::rollout::{rolling_update, rollout};
use super::search::{Checked, Order, confirm, smallest};
use super::{
    Advice, GRACE_HEADROOM, GraceAdvice, NotAdvised, PRE_STOP_TOP, PreStopAdvice, ProxyHook, Request,
    Searched,
};
use crate::engine::{Limits, SimDuration};
use crate::model::service::{Cause, OnSigterm, serving_app};
use crate::model::{Dist, RunSpec};
use crate::scenario::key::{Field, Key};

/// Advises the preStop sleep and the grace of `run`'s serving container
/// (the Pod's first app that is not a proxy).
pub fn advise(run: &RunSpec, request: &Request) -> Result<Advice, NotAdvised> {
    advise_within(run, request, &Limits::default())
}

/// `advise` with every run under `limits`: `NotAdvised::Halted` when they
/// halted one (`podsim serve`'s budget).
pub fn advise_within(run: &RunSpec, request: &Request, limits: &Limits) -> Result<Advice, NotAdvised> {
    let Some(service) = run.service.as_deref() else {
        return Err(NotAdvised::NotService);
    };
    let app = serving_app(&run.pod).ok_or(NotAdvised::NoServingApp)?.0 as usize;
    let container = run.pod.containers[app].name.clone();
    let keys = (
        Key::container(Field::PreStop, app),
        Key::pod(Field::TerminationGracePeriod),
    );
    let strategy = rolling_update(service);
    let mut m = measurer(run, keys, strategy.map(|s| s.0), limits);
    let r = request.replications;
    let reps = Reps {
        base: 0..r,
        fresh: r..2 * r,
    };
    let today = m.sample(Point::TODAY, reps.base.clone()).clone();
    let today_hook = run.pod.containers[app].pre_stop.clone();
    let first = pre_stop(&mut m, &reps, request, &container, today_hook.clone());
    let mut earlier = (0, Vec::new());
    let proxy = run.pod.containers.iter().position(|c| c.proxy);
    let pre_stop = match proxy.filter(|_| first.advised.is_none()) {
        Some(proxy) => {
            // Every candidate anew, the proxy's hook set with the app's;
            // the app's alone stays measured and counted.
            let both = with_proxy(run, keys, proxy, strategy.map(|s| s.0), limits);
            earlier = (m.runs(), std::mem::replace(&mut m, both).into_measured());
            m.sample(Point::TODAY, reps.base.clone());
            let c = &run.pod.containers[proxy];
            PreStopAdvice {
                proxy: Some(ProxyHook {
                    container: c.name.clone(),
                    today: c.pre_stop.clone(),
                }),
                ..pre_stop(&mut m, &reps, request, &container, today_hook.clone())
            }
        }
        None => first,
    };
    let hook = (pre_stop.advised)
        .or_else(|| today_hook.as_ref().and_then(Dist::fixed))
        .unwrap_or(SimDuration::ZERO);
    let overridden = service.disruptions.iter().any(|d| d.grace_period.is_some());
    let grace = grace(&mut m, &reps, pre_stop.advised, hook, overridden);
    let mut advised_point = Point {
        pre_stop: pre_stop.advised,
        grace: grace.advised,
        rollout: None,
    };
    // The strategy with the preStop and grace fixed, not jointly: the
    // pair is the smallest safe one, preStop first (it is paid on every
    // deletion, the strategy only in a rollout), unless some strategy is
    // safe one step below the bisection's preStop (per strategy, failures
    // do not increase with the preStop). With a fixed propagation none
    // is: each Pod's rules drop d after its delete whatever the strategy,
    // and deletes at once only add the token bucket's wait. With a random
    // one a strategy that deletes in one change draws fewer delays and
    // may need a little less; docs/advise.md says so, and
    // tests/advise/rollout.rs checks the bundled rollout.
    let rollout = strategy.map(|today| {
        let both = (reps.base.clone(), reps.fresh.clone());
        rollout(&mut m, both, request, today, advised_point, service.replicas)
    });
    advised_point.rollout = rollout.as_ref().and_then(|r| r.advised);
    let advised = m.sample(advised_point, reps.base).clone();
    if let Some(halt) = m.halted() {
        return Err(NotAdvised::Halted(halt));
    }
    Ok(Advice {
        container,
        kubernetes: run.pod.kubernetes,
        request: *request,
        seed: run.stream.seed,
        pre_stop,
        grace,
        rollout,
        today,
        advised,
        runs: earlier.0 + m.runs(),
        measured: earlier.1.into_iter().chain(m.into_measured()).collect(),
    })
}

/// The measurer of `run`'s candidates: the app's preStop and the grace by
/// `keys`, the strategy of the rollout at `rollout`, if any.
fn measurer(run: &RunSpec, keys: (Key, Key), rollout: Option<usize>, limits: &Limits) -> Measurer {
    let m = Measurer::new(run.clone(), keys.0, keys.1).within(limits);
    match rollout {
        Some(index) => m.with_rollout(index),
        None => m,
    }
}

/// `measurer`, whose preStop also sets the proxy's (container `proxy`).
/// Why: a proxy that stops taking connections at SIGTERM (Istio's Envoy,
/// istio/istio#34855) ends the Pod's serving then, whatever the app's
/// hook; it must outlive the endpoint race as the app must, and the app
/// must keep listening behind it, so both sleep the same candidate.
fn with_proxy(
    run: &RunSpec,
    keys: (Key, Key),
    proxy: usize,
    rollout: Option<usize>,
    limits: &Limits,
) -> Measurer {
    measurer(run, keys, rollout, limits).with_proxy(Key::container(Field::PreStop, proxy))
}

/// The replications candidates run on: the search's, and the fresh check's.
struct Reps {
    base: Range<u64>,
    fresh: Range<u64>,
}

/// The smallest of `lo..=hi` that holds on the base replications, as
/// `order` allows, then the fresh check; `holds` judges a candidate's sample.
fn search(
    m: &mut Measurer,
    reps: &Reps,
    (lo, hi): (u64, u64),
    order: Order,
    point: impl Fn(u64) -> Point,
    holds: impl Fn(&Sample) -> bool,
) -> (Option<u64>, Option<Checked>, u64) {
    let mut evaluated = 0;
    let mut judge = |i: u64, replications: &Range<u64>| {
        evaluated += 1;
        holds(m.sample(point(i), replications.clone()))
    };
    let bisected = smallest(lo, hi, order, |i| judge(i, &reps.base));
    let checked = bisected.map(|i| confirm(i, hi, |j| judge(j, &reps.fresh)));
    (bisected, checked, evaluated)
}

/// Step 1: the smallest preStop on the grid for which the target holds.
/// Assumes failed requests do not increase with a longer preStop (the
/// listener stays open longer, nothing else changes on the same
/// replications). The grace is raised to preStop + today's grace while
/// searching, so the hook is never cut and the drain after it keeps
/// today's budget.
fn pre_stop(
    m: &mut Measurer,
    reps: &Reps,
    request: &Request,
    container: &str,
    today: Option<Dist>,
) -> PreStopAdvice {
    let today_grace = m.spec(Point::TODAY).pod.termination_grace_period;
    let step = request.step.as_millis().max(1);
    let top = PRE_STOP_TOP.as_millis() / step;
    let value = move |i: u64| SimDuration::from_millis(i * step);
    let lifted = move |i: u64| Point {
        pre_stop: Some(value(i)),
        grace: Some(SimDuration(value(i).as_millis() + today_grace.as_millis())),
        rollout: None,
    };
    let order = Order::of(Field::PreStop);
    let (bisected, checked, evaluated) = search(m, reps, (0, top), order, lifted, |s| request.holds(s));
    let causes = |s: &Sample| -> Vec<(Cause, f64)> {
        (Cause::ALL.iter())
            .map(|&c| (c, s.cause_mean(c)))
            .filter(|&(_, mean)| mean > 0.0)
            .collect()
    };
    let left_at_top = match bisected {
        Some(_) => Vec::new(),
        None => causes(m.sample(lifted(top), reps.base.clone())),
    };
    // The value one step below the advice was rejected on the fresh
    // replications if the check walked, else on the search's (already
    // measured either way).
    let decided_by = match checked.filter(|c| c.held && c.index > 0) {
        Some(c) if c.walked > 0 => causes(m.sample(lifted(c.index - 1), reps.fresh.clone())),
        Some(c) => causes(m.sample(lifted(c.index - 1), reps.base.clone())),
        None => Vec::new(),
    };
    let keeps_busy =
        (m.spec(Point::TODAY).service).is_some_and(|s| s.app.on_sigterm == OnSigterm::CloseKeepBusy);
    PreStopAdvice {
        path: format!("containers.{container}.{}", Field::PreStop.name()),
        today,
        advised: checked.filter(|c| c.held).map(|c| value(c.index)),
        searched: Searched {
            values: top + 1,
            evaluated,
            bisected: bisected.map(value),
            checked,
        },
        left_at_top,
        decided_by,
        keeps_busy,
        proxy: None,
    }
}

/// Step 2: the smallest whole-second grace, never below today's nor below
/// the hook (a shorter grace cuts it; the API refuses a `sleep` longer
/// than the grace), with which no container is SIGKILLed. A longer grace
/// never brings a SIGKILL sooner, so the bisection holds. When SIGKILL
/// stays at every grace (an app that never exits on SIGTERM), the grace
/// step 1 searched with (preStop + today's), with which the target held:
/// a longer one may not help (the kill then cuts whatever is in flight
/// later), so no grace is searched for it.
fn grace(
    m: &mut Measurer,
    reps: &Reps,
    pre_stop: Option<SimDuration>,
    hook: SimDuration,
    overridden: bool,
) -> GraceAdvice {
    let today = m.spec(Point::TODAY).pod.termination_grace_period;
    let secs = |d: SimDuration| d.as_millis().div_ceil(1000);
    let low = secs(today).max(secs(hook));
    let high = secs(hook) + secs(today) + GRACE_HEADROOM.as_millis() / 1000;
    let with_grace = move |g: u64| Point {
        pre_stop,
        grace: Some(SimDuration::from_secs(g)),
        rollout: None,
    };
    let order = Order::of(Field::TerminationGracePeriod);
    let no_kill = |s: &Sample| s.killed_runs() == 0;
    let (bisected, checked, evaluated) = search(m, reps, (low, high), order, with_grace, no_kill);
    let mut advised = checked.filter(|c| c.held).map(|c| c.index);
    let kills_remain = bisected.is_none();
    let killed_at_top = match kills_remain {
        true => m.sample(with_grace(high), reps.base.clone()).killed_runs(),
        false => 0,
    };
    if kills_remain && let Some(p) = pre_stop {
        // The grace step 1 found the preStop with: the drain after the
        // hook keeps today's budget.
        advised = Some(secs(p + today));
    }
    let killed_today = m
        .sample(
            Point {
                pre_stop,
                grace: Some(today),
                rollout: None,
            },
            reps.base.clone(),
        )
        .killed_runs();
    GraceAdvice {
        path: format!("pod.{}", Field::TerminationGracePeriod.name()),
        today,
        advised: advised.map(SimDuration::from_secs),
        kills_remain,
        top: SimDuration::from_secs(high),
        killed_at_top,
        killed_today,
        searched: Searched {
            values: high - low + 1,
            evaluated,
            bisected: bisected.map(SimDuration::from_secs),
            checked,
        },
        overridden,
    }
}
