//! One replica's readiness failing for a while (issue 39's per-replica
//! event), worked by hand: its endpoint leaves the rules while its app
//! serves on, its kept-alive connections stay, and it comes back.
//!
//! The runs are `service`'s: one replica of a web app Ready at 1 s, one
//! node, propagation 0 and syncs at once, so traffic starts at 1 s, one
//! client sending a request every 100 ms (request k at 1.1 s + 100 ms · k),
//! 10 ms of service time, for 8 s: 79 requests, the last at 8.9 s. The
//! replica is unready from 5 s after the start (6 s) for 250 ms.

use podsim::engine::SimDuration;
use podsim::model::RunSpec;
use podsim::model::service::{
    Cause, ClientPreset, Connections, ServiceMetrics, ServiceSimulator, ServiceSpec, TrafficSpec, Unready,
};

use super::common::secs;
use super::service::{ms, service, steady, web};

fn unready(traffic: TrafficSpec) -> ServiceMetrics {
    let mut s: ServiceSpec = service(1, SimDuration::ZERO, secs(5), traffic);
    s.disruptions[0].unready = Some(Unready {
        replica: 0,
        lasts: ms(250),
    });
    let run = RunSpec {
        service: Some(Box::new(s)),
        ..RunSpec::new(web(secs(5)))
    };
    ServiceSimulator::new(run).run()
}

#[test]
fn new_connections_find_no_endpoint_while_the_lone_replica_is_unready() {
    // At 6 s the window opens before that instant's request (its event was
    // scheduled at 1 s, the arrival at 5.9 s), but the rules change only
    // after the request of 6 s has gone out (the sync is scheduled at 6 s):
    // it is answered. Requests of 6.1 and 6.2 s find no endpoint (REJECT);
    // at 6.25 s the replica is Ready again and back in the rules.
    let m = unready(steady(secs(8)));
    assert_eq!(m.requests, 79);
    assert_eq!((m.failed, m.failed_of(Cause::NoEndpoints)), (2, 2));
    assert_eq!((m.min_ready_endpoints, m.zero_endpoints_ms), (Some(0), 250));
    // Nothing was deleted, and the app never stopped.
    assert!(m.deleted.is_empty());
    assert_eq!(m.replicas[0].sigkilled, 0);
}

#[test]
fn a_kept_alive_connection_stays_and_is_answered_through_the_window() {
    // The one pooled connection, opened by the first request, is pinned to
    // the replica: the rules do not matter to it, nothing fails.
    let m = unready(TrafficSpec {
        connections: Some(Connections::KeepAlive),
        pool: Some(1),
        ..steady(secs(8))
    });
    assert_eq!((m.requests, m.failed), (79, 0));
}

#[test]
fn envoy_s_back_off_outlasts_a_short_window() {
    // Envoy: 2 connect retries, 25 ms then 50 ms. The request of 6.1 s:
    // REJECT at 6.1, 6.125 and 6.175 s, failed. The request of 6.2 s:
    // REJECT at 6.2 and 6.225 s, then at 6.275 s the rules list the
    // replica again (6.25 s): answered, 75 ms after it was first sent.
    let mut traffic = steady(secs(8));
    traffic.client.preset = ClientPreset::Envoy;
    traffic.connections = Some(Connections::New);
    let m = unready(traffic);
    assert_eq!(
        (m.failed, m.failed_of(Cause::NoEndpoints), m.retried_ok),
        (1, 1, 1)
    );
    let retry = m.retry.expect("envoy reports its retries");
    assert_eq!(
        (retry.retries(), retry.retried_by[Cause::NoEndpoints as usize]),
        (4, 4)
    );
    assert_eq!((retry.extra_ms, retry.extra_max_ms), (75, 75));
}
