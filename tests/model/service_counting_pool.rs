//! The counting model's keep-alive client against the per-request one
//! (issue 41): one client whose requests ride one pooled connection (a
//! service time of 0) has the same metrics in distribution under both
//! models on bundled scenarios, with a library that detects a server's
//! close (`python-requests`) and one that fails the next request on it
//! (`python-http-client`); and a close costs exactly the request the
//! profile says.

use podsim::engine::SimDuration;
use podsim::model::RunSpec;
use podsim::model::service::{Cause, ClientPreset, OnSigterm, Propagation, ServiceMetrics, TrafficModel};

use super::common::load;
use super::service_counting::{Figure, runs, same_figures};

/// `path` with one keep-alive client of `preset`, answered at once.
fn pooled(path: &str, preset: ClientPreset) -> RunSpec {
    let mut run = load(path).run;
    let service = run.service.as_mut().expect("a Service scenario");
    let t = service.traffic.as_mut().expect("traffic");
    t.clients = 1;
    t.connections = None;
    t.client.preset = preset;
    t.service_time = SimDuration::ZERO.into();
    assert_eq!(service.counting_blocker(), None, "{path} {preset:?}");
    run
}

/// Every cause a keep-alive client's request fails by here, and the
/// run's length (a close holds a draining app's exit).
const FIGURES: [(&str, Figure); 9] = [
    ("requests", |m| m.requests as f64),
    ("failed", |m| m.failed as f64),
    ("refused", |m| m.failed_of(Cause::Refused) as f64),
    ("timeout", |m| m.failed_of(Cause::Timeout) as f64),
    ("no_endpoints", |m| m.failed_of(Cause::NoEndpoints) as f64),
    ("reset", |m| m.failed_of(Cause::Reset) as f64),
    ("keepalive_race", |m| m.failed_of(Cause::KeepaliveRace) as f64),
    ("inflight", |m| m.failed_of(Cause::Inflight) as f64),
    ("end_ms", |m| m.end_ms as f64),
];

/// 10,000 replications of each model on two bundled scenarios with each
/// of the two close behaviours: the pinned Pod closes its connection at
/// SIGTERM while the rules may still list it, so the client's next
/// request fails on it or dials, and dials meet the endpoint race.
#[test]
fn keep_alive_counting_has_the_per_request_distribution_on_the_bundled_scenarios() {
    for path in [
        "scenarios/service/no-prestop.toml",
        "scenarios/service/rollout.toml",
    ] {
        for preset in [ClientPreset::PythonRequests, ClientPreset::PythonHttpClient] {
            let run = pooled(path, preset);
            let per_request = runs(&run, TrafficModel::PerRequest, 41, 10_000);
            let counting = runs(&run, TrafficModel::Counting, 41, 10_000);
            let what = format!("{path} {preset:?}");
            same_figures(&what, &per_request, &counting, &FIGURES);
            // Some runs lose requests, by the causes the profile allows.
            let lost = |m: &ServiceMetrics, c| m.failed_of(c) > 0;
            let cause = match preset {
                ClientPreset::PythonHttpClient => Cause::KeepaliveRace,
                _ => Cause::Refused,
            };
            assert!(counting.iter().any(|m| lost(m, cause)), "{what}");
        }
    }
}

/// Worked by hand: one replica, so the client's one pooled connection is
/// pinned to it, and SIGTERM (after a 3 s preStop) closes it. A client
/// that reuses it unchecked (`python-http-client`) loses exactly its next
/// request on it, as `keepalive_race` (the server closed it cleanly), or
/// as `reset` if the app exits at once (its process ends, the kernel
/// resets it); one that looks first (`python-requests`) loses none on it.
/// Every later request dials the one Pod (refused) until its rule is
/// dropped, then finds no endpoint: under both models. Per request, the
/// exit the SIGTERM schedules in its own millisecond can come after that
/// millisecond's request left on the connection: that request is then
/// lost in flight instead of by the reset (still exactly one lost on it;
/// the counting model's continuous time has nothing in flight at 0 ms).
#[test]
fn a_closed_pooled_connection_costs_exactly_the_next_request() {
    let cases = [
        (ClientPreset::PythonHttpClient, OnSigterm::CloseThenDrain, (1, 0)),
        (ClientPreset::PythonHttpClient, OnSigterm::ExitImmediately, (0, 1)),
        (ClientPreset::PythonRequests, OnSigterm::CloseThenDrain, (0, 0)),
    ];
    for (preset, on_sigterm, (race, reset)) in cases {
        let mut run = pooled("scenarios/service/pre-stop-3s.toml", preset);
        let service = run.service.as_mut().expect("a Service");
        (service.replicas, service.nodes) = (1, 1);
        service.propagation = Propagation::Custom(SimDuration::from_millis(500).into());
        service.app.on_sigterm = on_sigterm;
        for model in [TrafficModel::PerRequest, TrafficModel::Counting] {
            for m in runs(&run, model, 5, 200) {
                let what = format!("{preset:?} {on_sigterm:?} {model:?}: {m:?}");
                let cut = m.failed_of(Cause::Reset) + m.failed_of(Cause::Inflight);
                assert_eq!((m.failed_of(Cause::KeepaliveRace), cut), (race, reset), "{what}");
                if model == TrafficModel::Counting {
                    assert_eq!(m.failed_of(Cause::Inflight), 0, "{what}");
                }
                let others = m.failed - race - reset;
                let dialled = m.failed_of(Cause::Refused) + m.failed_of(Cause::NoEndpoints);
                assert_eq!(others, dialled, "{what}");
                assert!(others > 0, "{what}");
            }
        }
    }
}
