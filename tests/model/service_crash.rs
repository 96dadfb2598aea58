//! A replica's serving app crashing while it serves (issue 40 item 1),
//! worked by hand: its connections reset, it leaves the endpoints at once,
//! and the kubelet restarts it after its CrashLoopBackOff (R14, R15: the
//! first restart at once, the second 10 s later).
//!
//! The runs are `service`'s: one replica of a web app booting in 1 s with
//! no probes (Ready as it is alive), one node, propagation 0 and syncs at
//! once, so traffic starts at 1 s, one client sending a request every
//! 100 ms on a new connection (request k at 1.1 s + 100 ms · k), 10 ms of
//! service time. Events of one instant run in the order they were
//! scheduled: an arrival (scheduled 100 ms before) runs before a sync the
//! same instant's crash or Ready schedules.

use podsim::engine::SimDuration;
use podsim::model::RunSpec;
use podsim::model::service::{Cause, Disruption, ServiceMetrics, ServiceSimulator, When};

use super::common::secs;
use super::service::{ms, service, steady, web};

/// Replica 0's app crashes at each of `after` (since traffic started at
/// 1 s); traffic lasts `traffic`.
fn crashes(after: &[SimDuration], traffic: SimDuration) -> ServiceMetrics {
    let mut s = service(1, SimDuration::ZERO, after[0], steady(traffic));
    s.disruptions = (after.iter())
        .map(|&after| Disruption {
            when: When::AfterReady(after),
            crash: Some(0),
            ..Disruption::default()
        })
        .collect();
    let run = RunSpec {
        service: Some(Box::new(s)),
        ..RunSpec::new(web(secs(5)))
    };
    ServiceSimulator::new(run).run()
}

#[test]
fn the_lone_replica_is_refused_then_out_of_the_endpoints_until_its_restart_is_ready() {
    // Crash at 6 s: the app exits and stops listening, and its Ready bit
    // drops at once. The request of 6 s arrives before the rules change
    // (their sync was scheduled at 6 s, the arrival at 5.9 s): the rule
    // still points at the replica, whose listener is closed: RST
    // (Refused). The first restart is at once (back-off 0), the app boots
    // 1 s: alive and Ready at 7 s. Requests of 6.1 … 7.0 s (10) find no
    // endpoint: the rules list it again at 7 s, after that instant's
    // request. 79 requests in all (1.1 … 8.9 s).
    let m = crashes(&[secs(5)], secs(8));
    assert_eq!(m.requests, 79);
    assert_eq!(
        (
            m.failed,
            m.failed_of(Cause::Refused),
            m.failed_of(Cause::NoEndpoints)
        ),
        (11, 1, 10)
    );
    assert_eq!((m.min_ready_endpoints, m.zero_endpoints_ms), (Some(0), 1000));
    // Nothing was deleted: the same Pod, restarted once, never SIGKILLed.
    assert!(m.deleted.is_empty());
    assert_eq!((m.replicas[0].restarts, m.replicas[0].sigkilled), (1, 0));
}

#[test]
fn the_request_in_flight_fails_as_its_connection_is_reset() {
    // Crash at 6.005 s, while the request of 6 s is served (6.0 to 6.01
    // s): it fails in flight. Requests of 6.1 … 7.0 s find no endpoint;
    // the restart is Ready at 7.005 s, before the request of 7.1 s.
    let m = crashes(&[secs(5) + ms(5)], secs(8));
    assert_eq!(
        (
            m.failed,
            m.failed_of(Cause::Inflight),
            m.failed_of(Cause::NoEndpoints)
        ),
        (11, 1, 10)
    );
    assert_eq!(m.zero_endpoints_ms, 1000);
}

#[test]
fn a_second_crash_waits_out_ten_seconds_of_back_off() {
    // The first crash as above (6 s, back at 7 s: 11 failed). The second
    // at 10 s: its instance ran 3 s, far from R16's 10 minutes, so the
    // streak holds and the restart waits 10 s (R15): started at 20 s,
    // Ready at 21 s. The request of 10 s is refused, those of 10.1 …
    // 21.0 s (110) find no endpoint. Traffic 1.1 … 25.9 s: 249 requests.
    let m = crashes(&[secs(5), secs(9)], secs(25));
    assert_eq!(m.requests, 249);
    assert_eq!(
        (
            m.failed,
            m.failed_of(Cause::Refused),
            m.failed_of(Cause::NoEndpoints)
        ),
        (11 + 111, 2, 10 + 110)
    );
    assert_eq!(m.zero_endpoints_ms, 1000 + 11_000);
    assert_eq!(m.replicas[0].restarts, 2);
    // Both found the app running: two crashes counted.
    assert_eq!(m.crash.map(|c| c.crashes), Some(2));
}
