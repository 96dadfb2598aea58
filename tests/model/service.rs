//! The Service model (disruption-model.md A.3, A.4): one hand-worked
//! scenario per failure cause that produces it and only it, the KEP-1669
//! fallback, the analytic endpoint-race check, and the promise that one
//! replica without traffic is the Pod model itself.
//!
//! The hand-worked runs share one shape: a web app that boots in 1 s (Ready
//! at 1 s), one node, a constant 10 requests/s from one client, so request
//! k (from 0) is sent at start + 100 ms · (k + 1), and 10 ms of service time.

use podsim::engine::SimDuration;
use podsim::model::service::{
    Arrival, Cause, Connections, Disruption, OnSigterm, Propagation, Rate, ServiceHistory, ServiceMetrics,
    ServiceSimulator, ServiceSpec, TrafficSpec, When, simulate_service,
};
use podsim::model::{ContainerKind, ContainerSpec, Dist, Drain, PodSpec, RunSpec, Stream};

use super::common::{load, secs};

/// One run of `service` with `pod` as each replica, with its typed history
/// (what the hand-worked tests read instants and causes from).
pub(super) fn observed_run(pod: PodSpec, service: ServiceSpec) -> (ServiceMetrics, ServiceHistory) {
    let run = RunSpec {
        service: Some(Box::new(service)),
        ..RunSpec::new(pod)
    };
    let mut simulator = ServiceSimulator::observed_by(run, ServiceHistory::default());
    let metrics = simulator.run();
    (metrics, simulator.observer().clone())
}

pub(super) fn ms(n: u64) -> SimDuration {
    SimDuration::from_millis(n)
}

/// One app, `web`, booting in 1 s, draining `drain` after SIGTERM.
pub(super) fn web(drain: SimDuration) -> PodSpec {
    let mut web = ContainerSpec::new("web", ContainerKind::App, secs(1));
    web.drain = drain.into();
    PodSpec::new(vec![web])
}

/// Constant 10 requests/s from one client for `duration`, new connections.
pub(super) fn steady(duration: SimDuration) -> TrafficSpec {
    TrafficSpec {
        rate: Rate::new(10.0).unwrap(),
        arrival: Arrival::Constant,
        clients: 1,
        service_time: ms(10).into(),
        duration: Some(duration),
        ..TrafficSpec::default()
    }
}

/// `replicas` of `pod` on one node, propagation fixed at `propagation`,
/// syncs at once, replica 0 deleted `after` the traffic started.
pub(super) fn service(
    replicas: u32,
    propagation: SimDuration,
    after: SimDuration,
    traffic: TrafficSpec,
) -> ServiceSpec {
    ServiceSpec {
        replicas,
        nodes: 1,
        propagation: Propagation::Custom(propagation.into()),
        kubelet_delay: ms(50),
        min_sync_period: SimDuration::ZERO,
        cleanup: secs(60),
        traffic: Some(traffic),
        disruptions: vec![Disruption {
            when: When::AfterReady(after),
            ..Disruption::default()
        }],
        ..ServiceSpec::default()
    }
}

fn run(pod: PodSpec, service: ServiceSpec) -> ServiceMetrics {
    let run = RunSpec {
        service: Some(Box::new(service)),
        ..RunSpec::new(pod)
    };
    ServiceSimulator::new(run).run()
}

/// Only `cause` failed, `n` times.
fn only(m: &ServiceMetrics, cause: Cause, n: u64) {
    let by: Vec<(Cause, u64)> = Cause::ALL.iter().map(|&c| (c, m.failed_of(c))).collect();
    let want: Vec<(Cause, u64)> = Cause::ALL
        .iter()
        .map(|&c| (c, if c == cause { n } else { 0 }))
        .collect();
    assert_eq!(by, want);
    assert_eq!(m.failed, n);
}

#[test]
fn refused_the_rule_still_points_at_a_pod_whose_listener_closed() {
    // Ready at 1 s, heard by the node 1.95 s later: traffic from 2.95 s.
    // Deleted at 12.95 s; SIGTERM at 13 s closes the listener (the app
    // lives on 5 s). One replica: KEP-1669 keeps the terminating endpoint,
    // the only serving one, in the rules, so every request from 13.05 s to
    // the traffic's end (16.95 s, last sent 16.85 s) is refused: 39 of them.
    let m = run(web(secs(5)), service(1, ms(1950), secs(10), steady(secs(14))));
    assert_eq!(m.ready_ms, Some(2950));
    assert_eq!(m.requests, 139);
    only(&m, Cause::Refused, 39);
    assert_eq!(m.deleted[0].last_request_ms, Some(16_850 - 12_950));
}

#[test]
fn kep_1669_a_lone_terminating_pod_keeps_serving_while_its_listener_is_open() {
    // As above, but the app keeps its listener 10 s after SIGTERM: the
    // fallback to the serving terminating endpoint answers every request.
    let mut s = service(1, ms(1950), secs(10), steady(secs(14)));
    s.app.on_sigterm = OnSigterm::DelayThenDrain;
    s.app.drain_delay = secs(10);
    let m = run(web(SimDuration::ZERO), s);
    assert_eq!((m.requests, m.failed), (139, 0));
    assert_eq!(m.deleted[0].last_request_ms, Some(16_850 - 12_950));
    // Terminating endpoints are never ready: none from the deletion on.
    assert_eq!(m.min_ready_endpoints, Some(0));
    assert_eq!(m.zero_endpoints_ms, 16_950 - 12_950);
}

#[test]
fn no_endpoints_reject_once_the_last_serving_pod_is_gone() {
    // Propagation 0: traffic from 1 s. Deleted at 13 s; the app exits at
    // SIGTERM (13.05 s), which empties the rules at once: REJECT for every
    // request from 13.1 s until the traffic ends at 21 s (last sent 20.9 s).
    let mut s = service(1, SimDuration::ZERO, secs(12), steady(secs(20)));
    s.app.on_sigterm = OnSigterm::ExitImmediately;
    let m = run(web(secs(5)), s);
    assert_eq!((m.ready_ms, m.requests), (Some(1000), 199));
    only(&m, Cause::NoEndpoints, 79);
}

#[test]
fn timeout_the_rule_points_at_a_deleted_pod() {
    // Propagation 2 s: traffic from 3 s. Deleted at 13 s: the endpoint is
    // terminating but the only serving one, so the rules keep it. The app
    // exits at SIGTERM (13.05 s) and, with no cleanup time, the Pod IP goes
    // at once; the node hears of the empty rules at 15.05 s. The 20
    // requests sent from 13.1 s to 15 s go to a vanished IP and time out;
    // the traffic stops at 15.05 s, before REJECT could begin.
    let mut s = service(1, secs(2), secs(10), steady(ms(12_050)));
    s.app.on_sigterm = OnSigterm::ExitImmediately;
    s.cleanup = SimDuration::ZERO;
    let m = run(web(secs(5)), s);
    assert_eq!(m.requests, 120);
    only(&m, Cause::Timeout, 20);
}

#[test]
fn inflight_ignore_signal_is_killed_at_the_grace_deadline() {
    // An app that ignores SIGTERM serves on until SIGKILL, at the grace
    // period (5 s) after the kubelet's SIGTERM at 13.05 s: 18.05 s. With
    // 1 s of service time, the requests sent in (17.05 s, 18.05 s] are in
    // flight then: 17.1 s … 18 s, 10 of them.
    let mut traffic = steady(ms(15_050));
    traffic.service_time = secs(1).into();
    let mut s = service(1, secs(2), secs(10), traffic);
    s.app.on_sigterm = OnSigterm::Ignore;
    s.disruptions[0].grace_period = Some(secs(5));
    let m = run(web(SimDuration::ZERO), s);
    assert_eq!(m.requests, 150);
    only(&m, Cause::Inflight, 10);
    assert_eq!(m.replicas[0].sigkilled, 1);
    assert_eq!(m.deleted[0].termination_ms, Some(5000));
}

#[test]
fn an_app_that_never_drains_is_sigkilled_and_the_run_still_settles() {
    // drain "never" (R55, what a manifest's PID 1 without a handler reads
    // as, R80): under close-then-drain the app closes its listener at
    // SIGTERM and holds on until SIGKILL at the 5 s grace. Its drain's end
    // is never due, so nothing waits in the queue for it: with traffic or
    // without, the run settles instead of running to its 24 h horizon.
    for traffic in [Some(steady(ms(15_050))), None] {
        let mut s = service(1, secs(2), secs(10), steady(ms(15_050)));
        s.traffic = traffic;
        s.disruptions[0].grace_period = Some(secs(5));
        let mut pod = web(SimDuration::ZERO);
        pod.containers[0].drain = Drain::Never;
        let m = run(pod, s);
        assert!(!m.horizon, "{m:?}");
        assert_eq!(m.replicas[0].sigkilled, 1);
        assert_eq!(m.deleted[0].termination_ms, Some(5000));
    }
}

/// One kept-alive connection, reused by every request.
fn one_connection(duration: SimDuration) -> TrafficSpec {
    TrafficSpec {
        connections: Some(Connections::KeepAlive),
        pool: Some(1),
        ..steady(duration)
    }
}

#[test]
fn reset_a_request_sent_on_a_pinned_connection_as_its_process_dies() {
    // Propagation 0, traffic from 1 s; deleted at 12.95 s, SIGTERM 13 s,
    // ignored; SIGKILL at 18 s, scheduled at 13 s, comes before the request
    // of 18 s, which finds its connection just reset. Traffic ends then.
    let mut s = service(1, SimDuration::ZERO, ms(11_950), one_connection(ms(17_001)));
    s.app.on_sigterm = OnSigterm::Ignore;
    s.disruptions[0].grace_period = Some(secs(5));
    let m = run(web(SimDuration::ZERO), s);
    assert_eq!(m.requests, 170);
    only(&m, Cause::Reset, 1);
}

#[test]
fn keepalive_race_the_server_closes_the_idle_connection_as_a_request_goes_out() {
    // Deleted at 12.95 s, the kubelet hears of it 150 ms later: SIGTERM at
    // 13.1 s, handled before that instant's request, closes the idle
    // connection (Go's Shutdown) just as the client reuses it.
    let mut s = service(1, SimDuration::ZERO, ms(11_950), one_connection(ms(12_101)));
    s.kubelet_delay = ms(150);
    let m = run(web(secs(5)), s);
    assert_eq!(m.requests, 121);
    only(&m, Cause::KeepaliveRace, 1);
}

#[test]
fn retry_once_sends_a_refused_request_again_on_a_fresh_connection() {
    // Two replicas, the rules drop the deleted one 2 s after the deletion:
    // a refused request is sent again at once, through the same stale
    // rules; it is answered if it picks the other replica. Nothing is cut
    // in flight (10 ms of service time, a 5 s drain).
    let plain = service(2, secs(2), secs(10), steady(secs(20)));
    let mut retried = plain.clone();
    retried.traffic.as_mut().unwrap().retry = podsim::model::service::Retry::Once;
    let (a, b) = (run(web(secs(5)), plain), run(web(secs(5)), retried));
    assert!(a.failed_of(Cause::Refused) > 0, "{a:?}");
    // Each retry draws its own endpoint: about half are answered.
    assert_eq!(b.failed + b.retried_ok, a.failed);
    assert!(b.retried_ok > 0 && b.failed > 0, "{b:?}");
}

/// `(mean, standard error)` of `values`.
fn mean_and_error(values: &[f64]) -> (f64, f64) {
    let n = values.len() as f64;
    let mean = values.iter().sum::<f64>() / n;
    let var = values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1.0);
    (mean, (var / n).sqrt())
}

/// A.3: 3 replicas on 3 nodes, one client per node, Poisson λ = 30/s, new
/// connections, propagation D = 2 s per node, kubelet delay 100 ms, the
/// listener closed at SIGTERM, preStop `pre_stop`: `failed_refused` per seed.
fn analytic(pre_stop: SimDuration, seeds: u64) -> Vec<f64> {
    let mut pod = web(secs(5));
    pod.containers[0].pre_stop = Some(pre_stop.into());
    let traffic = TrafficSpec {
        rate: Rate::new(30.0).unwrap(),
        clients: 3,
        service_time: ms(10).into(),
        ..TrafficSpec::default()
    };
    let spec = ServiceSpec {
        replicas: 3,
        nodes: 3,
        propagation: Propagation::Custom(secs(2).into()),
        kubelet_delay: ms(100),
        traffic: Some(traffic),
        disruptions: vec![Disruption {
            when: When::AfterReady(secs(10)),
            ..Disruption::default()
        }],
        ..ServiceSpec::default()
    };
    let mut sim = ServiceSimulator::new(RunSpec {
        service: Some(Box::new(spec)),
        ..RunSpec::new(pod)
    });
    (0..seeds)
        .map(|seed| {
            sim.spec_mut().stream = Stream { seed, replication: 0 };
            let m = sim.run();
            assert_eq!(m.failed, m.failed_of(Cause::Refused), "{m:?}");
            m.failed as f64
        })
        .collect()
}

#[test]
fn a3_refused_requests_are_rate_over_replicas_times_the_unprotected_window() {
    // E = Σ_nodes λ_i / R · max(0, D − kubelet_delay) = 30/3 · 1.9 s = 19.
    // Each run's count is Poisson (a thinned Poisson stream over a fixed
    // window): variance 19, so 400 seeds give a standard error of 0.22;
    // the check allows 4 of the sample's own standard errors.
    let (mean, error) = mean_and_error(&analytic(SimDuration::ZERO, 400));
    assert!((error - (19.0f64 / 400.0).sqrt()).abs() < 0.1, "{error}");
    assert!((mean - 19.0).abs() < 4.0 * error, "mean {mean} ± {error}");
}

#[test]
fn a3_a_pre_stop_as_long_as_the_propagation_refuses_nothing() {
    // preStop 2 s ≥ D − 0: SIGTERM at t0 + 2.1 s, after every rule dropped
    // the Pod at t0 + 2 s; grace 30 s > preStop.
    assert!(analytic(secs(2), 50).iter().all(|&f| f == 0.0));
}

#[test]
fn one_replica_without_traffic_is_the_pod_model() {
    for file in ["scenarios/seed-sidecar.toml", "scenarios/seed-side-by-side.toml"] {
        let scenario = load(file);
        let alone = podsim::model::simulate_pod(&scenario.run).metrics;
        let spec = ServiceSpec {
            replicas: 1,
            nodes: 1,
            kubelet_delay: SimDuration::ZERO,
            disruptions: vec![Disruption {
                when: When::At(secs(10)),
                ..Disruption::default()
            }],
            ..ServiceSpec::default()
        };
        let run = RunSpec {
            service: Some(Box::new(spec)),
            ..scenario.run.clone()
        };
        let report = simulate_service(&run);
        assert_eq!(report.metrics.replicas, [alone], "{file}");
        assert_eq!(report.metrics.requests, 0);
    }
}

#[test]
fn a_run_is_a_function_of_its_spec_and_seed() {
    let mut spec = service(3, secs(2), secs(10), steady(secs(20)));
    spec.propagation = Propagation::Custom(Dist::Exponential { mean: secs(1) });
    spec.traffic.as_mut().unwrap().arrival = Arrival::Poisson;
    let run = RunSpec {
        service: Some(Box::new(spec)),
        ..RunSpec::new(web(secs(5)))
    };
    let mut reused = ServiceSimulator::new(run.clone());
    let first = reused.run();
    assert_eq!(reused.run(), first);
    assert_eq!(simulate_service(&run).metrics, first);
}

#[test]
fn a_repeating_disruption_deletes_the_next_replica_each_period_while_one_is_left() {
    // Propagation 0: traffic from 1 s; the first delete 10 s in (11 s),
    // then every 5 s the next replica (16 s, 21 s), and no fourth: three.
    let mut s = service(3, SimDuration::ZERO, secs(10), steady(secs(30)));
    s.disruptions[0].every = Some(secs(5));
    let m = run(web(SimDuration::ZERO), s);
    assert_eq!(m.ready_ms, Some(1000));
    let deleted: Vec<(u32, u64)> = m.deleted.iter().map(|d| (d.replica, d.deleted_ms)).collect();
    assert_eq!(deleted, [(0, 11_000), (1, 16_000), (2, 21_000)]);
}

#[test]
fn the_soak_is_a_day_of_ten_million_requests_with_a_delete_every_ten_minutes() {
    let s = load("benches/soak/service-24h.toml");
    let service = s.run.service.as_deref().unwrap();
    let t = service.traffic.as_ref().unwrap();
    // 120/s for 86,400 s: 10.37 M requests expected.
    let expected = t.rate.get() * t.duration.unwrap().as_millis() as f64 / 1000.0;
    assert!(expected >= 10e6, "{expected}");
    // A delete 10, 20, …, 1430 min after traffic started, 143 while it
    // runs (the 144th falls on its end), and on to the 25 h horizon: 149
    // in all (25 × 6 less the first 10 minutes), a replica for every one.
    assert_eq!(service.disruptions[0].every, Some(SimDuration::from_secs(600)));
    assert_eq!(s.run.horizon, SimDuration::from_secs(25 * 3600));
    assert!(service.replicas > 25 * 6 - 1);
    // Its first 30 minutes: two deletions, at 10 and 20 minutes into the traffic.
    let mut run = s.run.clone();
    run.horizon = SimDuration::from_secs(1800);
    let m = ServiceSimulator::new(run).run();
    let start = m.ready_ms.unwrap();
    let deleted: Vec<u64> = m.deleted.iter().map(|d| d.deleted_ms - start).collect();
    assert_eq!(deleted, [600_000, 1_200_000]);
    assert!(m.horizon);
}
