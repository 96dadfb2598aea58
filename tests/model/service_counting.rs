//! The counting traffic model against the per-request one (issue 41 item
//! 2): on the bundled Service scenarios where counting is exact (one
//! client, so each node's requests are a Poisson stream) and on random
//! scenarios, the metrics of the two models have the same distribution:
//! means within 4 standard errors, and a two-sample Kolmogorov–Smirnov
//! test at α = 0.001 on the failed requests; and the counting model meets
//! disruption-model.md A.3's analytic expectation at 10⁶ requests/s.
//!
//! Fixed seeds, so each check either always passes or always fails; the
//! tolerances come from the sampling error, not from the output.

use podsim::engine::SimDuration;
use podsim::model::service::{
    Cause, Disruption, OnSigterm, Propagation, Rate, ServiceMetrics, ServiceSimulator, ServiceSpec,
    TrafficModel, TrafficSpec, When,
};
use podsim::model::{ContainerKind, ContainerSpec, RunSpec, Stream};
use proptest::prelude::*;

use super::common::{load, secs};

/// `n` replications (from 0, seed `seed`) of `run` under `model`.
pub(super) fn runs(run: &RunSpec, model: TrafficModel, seed: u64, n: u64) -> Vec<ServiceMetrics> {
    let mut run = run.clone();
    let service = run.service.as_mut().expect("a Service scenario");
    service.traffic.as_mut().expect("traffic").model = model;
    let mut sim = ServiceSimulator::new(run);
    (0..n)
        .map(|replication| {
            sim.spec_mut().stream = Stream { seed, replication };
            sim.run()
        })
        .collect()
}

pub(super) fn mean_and_error(xs: &[f64]) -> (f64, f64) {
    let n = xs.len() as f64;
    let mean = xs.iter().sum::<f64>() / n;
    let var = xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0);
    (mean, (var / n).sqrt())
}

/// The two-sample Kolmogorov–Smirnov statistic: the largest gap between
/// the empirical distribution functions.
pub(super) fn ks(a: &[f64], b: &[f64]) -> f64 {
    let (mut a, mut b) = (a.to_vec(), b.to_vec());
    a.sort_by(f64::total_cmp);
    b.sort_by(f64::total_cmp);
    let (mut i, mut j, mut d) = (0, 0, 0.0f64);
    while i < a.len() && j < b.len() {
        let x = a[i].min(b[j]);
        while i < a.len() && a[i] <= x {
            i += 1;
        }
        while j < b.len() && b[j] <= x {
            j += 1;
        }
        d = d.max((i as f64 / a.len() as f64 - j as f64 / b.len() as f64).abs());
    }
    d
}

/// The KS test's critical value at α = 0.001: c(α)·sqrt((n + m)/(n·m)),
/// c(α) = sqrt(−ln(α/2)/2) = 1.9495. On integer counts the test is
/// conservative (ties only lower the statistic's spread).
pub(super) fn ks_critical(n: usize, m: usize) -> f64 {
    let c = (-(0.001f64 / 2.0).ln() / 2.0).sqrt();
    c * ((n + m) as f64 / (n * m) as f64).sqrt()
}

/// One figure of a run, as a number.
pub(super) type Figure = fn(&ServiceMetrics) -> f64;

/// Each figure of the two samples: means within 4 standard errors (of
/// their difference), and the failed requests' distributions alike.
fn same_distribution(what: &str, per_request: &[ServiceMetrics], counting: &[ServiceMetrics]) {
    let figures: [(&str, Figure); 6] = [
        ("requests", |m| m.requests as f64),
        ("failed", |m| m.failed as f64),
        ("refused", |m| m.failed_of(Cause::Refused) as f64),
        ("timeout", |m| m.failed_of(Cause::Timeout) as f64),
        ("inflight", |m| m.failed_of(Cause::Inflight) as f64),
        ("end_ms", |m| m.end_ms as f64),
    ];
    same_figures(what, per_request, counting, &figures);
}

/// `same_distribution` on `figures` (one of them `failed`, KS-tested).
pub(super) fn same_figures(
    what: &str,
    per_request: &[ServiceMetrics],
    counting: &[ServiceMetrics],
    figures: &[(&str, Figure)],
) {
    for &(name, f) in figures {
        let a: Vec<f64> = per_request.iter().map(f).collect();
        let b: Vec<f64> = counting.iter().map(f).collect();
        let ((ma, ea), (mb, eb)) = (mean_and_error(&a), mean_and_error(&b));
        let tolerance = 4.0 * (ea * ea + eb * eb).sqrt();
        assert!(
            (ma - mb).abs() <= tolerance.max(1e-9),
            "{what}: {name} per-request {ma} ± {ea}, counting {mb} ± {eb}"
        );
        if name == "failed" {
            let d = ks(&a, &b);
            let critical = ks_critical(a.len(), b.len());
            assert!(d <= critical, "{what}: failed KS {d} > {critical}");
        }
    }
}

/// The bundled scenarios whose requests counting can count once they come
/// from one client (bundled ones spread three clients over three nodes,
/// round robin, which only the per-request model simulates).
const BUNDLED: [&str; 6] = [
    "scenarios/service/no-prestop.toml",
    "scenarios/service/pre-stop-3s.toml",
    "scenarios/service/ignore-sigterm.toml",
    "scenarios/service/rollout.toml",
    "scenarios/service/drain.toml",
    "scenarios/service/disruptions/crash.toml",
];

/// 10,000 replications of each model on each bundled scenario: about 2 s
/// of the per-request model's work each in release mode.
#[test]
fn counting_has_the_per_request_distribution_on_the_bundled_scenarios() {
    for path in BUNDLED {
        let mut run = load(path).run;
        let service = run.service.as_mut().expect("a Service scenario");
        service.traffic.as_mut().expect("traffic").clients = 1;
        assert_eq!(service.counting_blocker(), None, "{path}");
        let per_request = runs(&run, TrafficModel::PerRequest, 41, 10_000);
        let counting = runs(&run, TrafficModel::Counting, 41, 10_000);
        same_distribution(path, &per_request, &counting);
    }
}

/// A.3: one replica of R deleted, the listener closed at SIGTERM (no
/// preStop), every node's rule dropped a fixed `D` after the delete: the
/// refused requests' mean is λ/R · (D − kubelet delay), here
/// 10⁶/3 · (0.5 − 0.1) s = 133,333.3, Poisson, so its standard error over
/// 10,000 replications is sqrt(133,333.3 / 10,000) = 3.65. Answered in
/// milliseconds a run at 10⁶ requests a second.
#[test]
fn counting_meets_the_a3_expectation_at_a_million_requests_a_second() {
    let mut web = ContainerSpec::new("web", ContainerKind::App, secs(1));
    web.drain = secs(1).into();
    let service = ServiceSpec {
        replicas: 3,
        nodes: 2,
        propagation: Propagation::Custom(SimDuration::from_millis(500).into()),
        kubelet_delay: SimDuration::from_millis(100),
        traffic: Some(TrafficSpec {
            rate: Rate::new(1e6).unwrap(),
            service_time: SimDuration::from_millis(20).into(),
            duration: Some(secs(15)),
            ..TrafficSpec::default()
        }),
        disruptions: vec![Disruption {
            when: When::AfterReady(secs(10)),
            ..Disruption::default()
        }],
        ..ServiceSpec::default()
    };
    assert!(service.counts(), "auto counts a million requests a second");
    let run = RunSpec {
        service: Some(Box::new(service)),
        ..RunSpec::new(podsim::model::PodSpec::new(vec![web]))
    };
    let refused: Vec<f64> = runs(&run, TrafficModel::Auto, 3, 10_000)
        .iter()
        .map(|m| {
            assert_eq!(m.failed, m.failed_of(Cause::Refused), "{m:?}");
            m.failed as f64
        })
        .collect();
    let (mean, error) = mean_and_error(&refused);
    let want: f64 = 1e6 / 3.0 * 0.4;
    assert!((error - (want / 10_000.0).sqrt()).abs() < 0.5, "{error}");
    assert!(
        (mean - want).abs() < 4.0 * error,
        "mean {mean} ± {error}, want {want}"
    );
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 6, ..ProptestConfig::default() })]

    /// Random Services (1–4 replicas on 1–3 nodes, one client, a random
    /// propagation, app reaction, service time and disruption): the two
    /// models agree, 1,500 replications each.
    ///
    /// Each case takes about 1 s in release mode (7 cases with the saved
    /// one). It found where the two parted: a zero-time sync heard at ms t
    /// was queued behind the first request of ms t, which so met the old
    /// rules (docs/traffic-models.md, "Where the two models parted"); the
    /// saved case (1 replica, rollout, exit-immediately, propagation
    /// 1,782 ms = kubelet delay 100 + cleanup 1,682) timed out 0.189 ± 0.010
    /// a run per-request, about 1 − e^(−λ·1 ms) = 0.174 at λ = 191.6/s,
    /// against counting's 0.
    #[test]
    fn counting_has_the_per_request_distribution_on_random_scenarios(
        replicas in 1u32..5,
        nodes in 1u32..4,
        propagation_ms in 0u64..3000,
        sigterm in 0usize..4,
        service_ms in 1u64..400,
        rate in 5.0f64..200.0,
        cleanup_ms in 0u64..2000,
        drain_ms in 0u64..600,
        rollout in any::<bool>(),
    ) {
        let mut web = ContainerSpec::new("web", ContainerKind::App, secs(1));
        web.drain = SimDuration::from_millis(drain_ms).into();
        let on_sigterm = [
            OnSigterm::ExitImmediately,
            OnSigterm::Ignore,
            OnSigterm::CloseThenDrain,
            OnSigterm::DelayThenDrain,
        ][sigterm];
        let mut pod = podsim::model::PodSpec::new(vec![web]);
        pod.termination_grace_period = secs(5);
        let disruption = match rollout {
            true => {
                let base = load("scenarios/service/rollout.toml").run;
                base.service.expect("a Service").disruptions[0].clone()
            }
            false => Disruption { when: When::AfterReady(secs(5)), ..Disruption::default() },
        };
        let mut service = ServiceSpec {
            replicas,
            nodes,
            propagation: Propagation::Custom(SimDuration::from_millis(propagation_ms).into()),
            cleanup: SimDuration::from_millis(cleanup_ms),
            traffic: Some(TrafficSpec {
                rate: Rate::new(rate).unwrap(),
                service_time: SimDuration::from_millis(service_ms).into(),
                ..TrafficSpec::default()
            }),
            disruptions: vec![disruption],
            ..ServiceSpec::default()
        };
        service.app.on_sigterm = on_sigterm;
        service.app.drain_delay = SimDuration::from_millis(300);
        let run = RunSpec { service: Some(Box::new(service)), ..RunSpec::new(pod) };
        let per_request = runs(&run, TrafficModel::PerRequest, 7, 1_500);
        let counting = runs(&run, TrafficModel::Counting, 7, 1_500);
        same_distribution("random scenario", &per_request, &counting);
    }
}
