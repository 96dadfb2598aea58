//! The Service's typed history (`ServiceChange`), worked by hand for one
//! small run, and its meters read back from it: what the API, the slice
//! and the node's rules showed, which requests failed, with which cause,
//! at which instants.
//!
//! The run is `service::refused_…`'s: one replica of a web app that boots
//! in 1 s, one node whose kube-proxy hears of each slice version 1.95 s
//! after it is published and syncs at once, one client sending a request
//! every 100 ms on a new connection, 10 ms of service time, the replica
//! deleted 10 s after the traffic started, its kubelet told 50 ms later;
//! the app closes its listener at SIGTERM and exits 5 s later (its drain).

use podsim::engine::SimTime;
use podsim::model::service::{
    Cause, PodFact, ReplicaSet, ServiceChange, ServiceEntry, ServiceHistory, ServiceMetrics, ServiceSimulator,
};
use podsim::model::{Change, RunSpec};

use super::common::secs;
use super::service::{ms, service, steady, web};

/// The run described above, with its whole history.
fn refused_run() -> (ServiceMetrics, ServiceHistory) {
    let run = RunSpec {
        service: Some(Box::new(service(1, ms(1950), secs(10), steady(secs(14))))),
        ..RunSpec::new(web(secs(5)))
    };
    let mut simulator = ServiceSimulator::observed_by(run, ServiceHistory::default());
    let metrics = simulator.run();
    (metrics, simulator.observer().clone())
}

fn at(ms: u64, what: ServiceChange) -> ServiceEntry {
    ServiceEntry {
        at: SimTime(ms),
        what,
    }
}

#[test]
fn the_api_the_slice_and_the_rules_tell_the_deletion_in_order() {
    // 0 s: the Pod object exists (old ReplicaSet, the scenario's own).
    // 1 s: the app is Ready: its endpoint serves, one ready endpoint; the
    //   slice publishes rules [0], which the node hears 1.95 s later.
    // 2.95 s: the node's sync lists replica 0: every replica is in every
    //   node's rules, traffic starts, for 14 s (to 16.95 s).
    // 12.95 s: `kubectl delete`: the endpoint is terminating, so no ready
    //   endpoint; the rules stay [0] (KEP-1669: the only serving endpoint).
    // 18 s: the app exits (SIGTERM at 13 s + its 5 s drain): its endpoint
    //   stops serving, the slice publishes empty rules…
    // 19.95 s: …which the node's sync installs: replica 0 dropped.
    // 78 s: the object is gone, 60 s (cleanup) after its last container.
    let (_, history) = refused_run();
    let story: Vec<ServiceEntry> = (history.iter().copied())
        .filter(|e| {
            !matches!(
                e.what,
                ServiceChange::Pod { .. }
                    | ServiceChange::RequestSent { .. }
                    | ServiceChange::Routed { .. }
                    | ServiceChange::Answered { .. }
                    | ServiceChange::RequestFailed { .. }
                    | ServiceChange::ConnectionOpened { .. }
                    | ServiceChange::ConnectionClosed { .. }
            )
        })
        .collect();
    let api = |fact| ServiceChange::Api { replica: 0, fact };
    assert_eq!(
        story,
        [
            at(0, api(PodFact::Created(ReplicaSet::Old))),
            at(1000, api(PodFact::Serving(true))),
            at(1000, ServiceChange::ReadyEndpoints { ready: 1 }),
            at(2950, ServiceChange::RuleAdded { node: 0, replica: 0 }),
            at(2950, ServiceChange::Synced { node: 0 }),
            at(
                2950,
                ServiceChange::TrafficStarted {
                    until: Some(SimTime(16_950)),
                }
            ),
            at(12_950, api(PodFact::Deleted)),
            at(12_950, ServiceChange::ReadyEndpoints { ready: 0 }),
            at(18_000, api(PodFact::Serving(false))),
            at(19_950, ServiceChange::RuleDropped { node: 0, replica: 0 }),
            at(19_950, ServiceChange::Synced { node: 0 }),
            at(78_000, api(PodFact::Gone)),
        ]
    );
    // The kubelet's own story is in the same history, tagged with the
    // replica: the deletion reaches it 50 ms after the API's, and the app
    // exits 0 at the end of its drain.
    let kubelet: Vec<(u64, Change)> = (history.iter())
        .filter_map(|e| match e.what {
            ServiceChange::Pod {
                replica: 0,
                change: change @ (Change::DeletionRequested { .. } | Change::Exited(_)),
                ..
            } => Some((e.at.as_millis(), change)),
            _ => None,
        })
        .collect();
    assert_eq!(kubelet.len(), 2);
    assert_eq!(kubelet[0].0, 13_000);
    assert_eq!(
        (
            kubelet[1].0,
            matches!(kubelet[1].1, Change::Exited(r) if r.code() == 0)
        ),
        (18_000, true)
    );
}

#[test]
fn every_request_from_the_sigterm_to_the_traffics_end_is_refused() {
    // Request k is sent at 2.95 s + 100 ms · (k + 1): 3.05 s, 3.15 s, …,
    // and none at 16.95 s, the traffic's end: k = 0 … 138. The deletion at
    // 12.95 s comes before that instant's request (k = 99: it was timed
    // first, at 2.95 s), which still finds the listener open: answered at
    // 12.96 s. The listener closes at SIGTERM, 13 s; the rules still list
    // the replica, so k = 100 … 138 (13.05 s … 16.85 s) are refused at
    // once: 39 of them, each routed to replica 0 on a new connection that
    // is never opened.
    let (m, history) = refused_run();
    let failed: Vec<ServiceEntry> = (history.iter().copied())
        .filter(|e| matches!(e.what, ServiceChange::RequestFailed { .. }))
        .collect();
    let want: Vec<ServiceEntry> = (100..139u32)
        .map(|k| {
            let sent = SimTime(2950 + 100 * (u64::from(k) + 1));
            ServiceEntry {
                at: sent,
                what: ServiceChange::RequestFailed {
                    request: k,
                    sent,
                    cause: Cause::Refused,
                    replica: Some(0),
                    client: 0,
                },
            }
        })
        .collect();
    assert_eq!(failed, want);
    let count = |keep: fn(&ServiceChange) -> bool| history.iter().filter(|e| keep(&e.what)).count();
    assert_eq!(count(|c| matches!(c, ServiceChange::RequestSent { .. })), 139);
    assert_eq!(
        count(|c| matches!(c, ServiceChange::Routed { fresh: true, .. })),
        139
    );
    assert_eq!(count(|c| matches!(c, ServiceChange::Answered { .. })), 100);
    // One connection per answered request, closed after its answer.
    assert_eq!(
        count(|c| matches!(c, ServiceChange::ConnectionOpened { .. })),
        100
    );
    assert_eq!(
        count(|c| matches!(c, ServiceChange::ConnectionClosed { reset: false, .. })),
        100
    );
    let last_answered = history
        .iter()
        .rev()
        .find(|e| matches!(e.what, ServiceChange::Answered { .. }));
    assert_eq!(
        last_answered,
        Some(&at(
            12_960,
            ServiceChange::Answered {
                request: 99,
                sent: SimTime(12_950),
                try_sent: SimTime(12_950),
                tries: 1,
            }
        ))
    );
    // The meters counted the same history.
    assert_eq!((m.requests, m.failed, m.failed_of(Cause::Refused)), (139, 39, 39));
    assert_eq!(m.retried_ok, 0);
    // Ready endpoints 0 from the deletion to the traffic's end: 12.95 s → 16.95 s.
    assert_eq!((m.min_ready_endpoints, m.zero_endpoints_ms), (Some(0), 4000));
    let d = &m.deleted[0];
    // The last request routed to it was sent at 16.85 s; the node's rules
    // dropped it at 19.95 s; its app exited 5 s after the kubelet's SIGTERM.
    assert_eq!((d.deleted_ms, d.last_request_ms), (12_950, Some(3900)));
    assert_eq!(d.rules_dropped_ms, [Some(7000)]);
    assert_eq!(d.termination_ms, Some(5000));
    assert_eq!(m.end_ms, 78_000);
}
