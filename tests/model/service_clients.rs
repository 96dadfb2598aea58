//! Client profiles (issue 39), worked by hand: what each way of treating a
//! closed pooled connection and each retry policy does to the one request
//! that meets a Pod going away, and, over seeds, that a client that does
//! not check its pool loses exactly one request per connection pinned to
//! the Pod that closed them.
//!
//! The hand-worked runs are `service`'s: a web app that boots in 1 s, one
//! node, propagation 0 and syncs at once (traffic from 1 s), one client
//! sending a request every 100 ms (request k at 1.1 s + 100 ms · k), 10 ms
//! of service time, the replica deleted 11.95 s after the traffic started
//! (12.95 s). Traffic lasts 12.15 s: 121 requests, the last at 13.1 s.

use podsim::engine::{SimDuration, SimTime};
use podsim::model::RunSpec;
use podsim::model::service::{
    Cause, ClientPreset, Connections, OnClosed, OnSigterm, ServiceChange, ServiceHistory, ServiceSimulator,
    ServiceSpec, TrafficSpec,
};

use super::common::secs;
use super::service::{ms, observed_run as run, service, steady, web};

/// The failures, each `(cause, when)`.
fn failures(history: &ServiceHistory) -> Vec<(Cause, u64)> {
    (history.iter())
        .filter_map(|e| match e.what {
            ServiceChange::RequestFailed { cause, .. } => Some((cause, e.at.as_millis())),
            _ => None,
        })
        .collect()
}

/// The retries, each `(cause of the failed try, when)`.
fn retries(history: &ServiceHistory) -> Vec<(Cause, u64)> {
    (history.iter())
        .filter_map(|e| match e.what {
            ServiceChange::Retried { cause, .. } => Some((cause, e.at.as_millis())),
            _ => None,
        })
        .collect()
}

/// One kept-alive connection (pool 1) with `client`, the kubelet told of
/// the deletion `kubelet` ms after it.
fn pinned(client: ClientPreset, kubelet: u64) -> ServiceSpec {
    let mut traffic = TrafficSpec {
        connections: Some(Connections::KeepAlive),
        pool: Some(1),
        ..steady(ms(12_150))
    };
    traffic.client.preset = client;
    let mut s = service(1, SimDuration::ZERO, ms(11_950), traffic);
    s.kubelet_delay = ms(kubelet);
    s
}

fn with_on_closed(mut s: ServiceSpec, on_closed: OnClosed) -> ServiceSpec {
    s.traffic.as_mut().unwrap().client.on_closed = Some(on_closed);
    s
}

#[test]
fn a_close_in_the_instant_of_a_request_races_it_unless_the_client_checks() {
    // Kubelet 150 ms: SIGTERM at 13.1 s, before that instant's request
    // (scheduled at 13 s, after the kubelet's event at 12.95 s); Go's
    // Shutdown closes the idle connection then. Raced and fails-next send
    // on it: keepalive_race at 13.1 s. Detected drops it and connects
    // through the rules, which still list the lone terminating Pod
    // (KEP-1669), whose listener just closed: refused.
    for (on_closed, cause) in [
        (OnClosed::Raced, Cause::KeepaliveRace),
        (OnClosed::FailsNext, Cause::KeepaliveRace),
        (OnClosed::Detected, Cause::Refused),
    ] {
        let s = with_on_closed(pinned(ClientPreset::Ideal, 150), on_closed);
        let (m, history) = run(web(secs(5)), s);
        assert_eq!(m.requests, 121, "{on_closed:?}");
        assert_eq!(failures(&history), [(cause, 13_100)], "{on_closed:?}");
    }
}

#[test]
fn a_close_before_the_request_fails_it_only_on_a_client_that_does_not_check() {
    // Kubelet 120 ms: the connection closes at 13.07 s, 30 ms before the
    // next request. Raced and detected have dropped it by then (refused
    // on a new connection, as above); fails-next sends on it.
    for (on_closed, cause) in [
        (OnClosed::Raced, Cause::Refused),
        (OnClosed::FailsNext, Cause::KeepaliveRace),
        (OnClosed::Detected, Cause::Refused),
    ] {
        let s = with_on_closed(pinned(ClientPreset::Ideal, 120), on_closed);
        let (_, history) = run(web(secs(5)), s);
        assert_eq!(failures(&history), [(cause, 13_100)], "{on_closed:?}");
    }
}

#[test]
fn okhttp_sends_a_request_failed_on_a_stale_connection_once_more() {
    // OkHttp does not check a GET's connection (fails-next): the request
    // of 13.1 s fails on the connection closed at 13.07 s, is retried at
    // once on a new connection (reset_retries 1), which the rules send to
    // the lone Pod whose listener is closed: refused, and OkHttp does not
    // retry a connect failure on a lone route. One failure, refused, after
    // one retry for keepalive_race; nothing answered by a retry.
    let (m, history) = run(web(secs(5)), pinned(ClientPreset::JavaOkhttp, 120));
    assert_eq!(retries(&history), [(Cause::KeepaliveRace, 13_100)]);
    assert_eq!(failures(&history), [(Cause::Refused, 13_100)]);
    let retry = m.retry.expect("a client other than ideal reports its retries");
    assert_eq!((retry.retries(), m.retried_ok), (1, 0));
}

#[test]
fn go_sends_an_idempotent_request_cut_on_a_reused_connection_again() {
    // The app exits at SIGTERM (13 s, kubelet 50 ms). The request of 13 s
    // went out first (its arrival was scheduled at 12.9 s, the kubelet's
    // event at 12.95 s) on the pooled connection, so the exit cuts it.
    // ideal: inflight. python-requests: no retries, inflight. Go: the
    // connection was reused and the request idempotent: sent again at once
    // on a new connection, while the rules still list the Pod (they are
    // synced after the exit is handled): refused, and Go never retries a
    // dial error.
    let exits = |client| {
        let mut s = pinned(client, 50);
        s.app.on_sigterm = OnSigterm::ExitImmediately;
        run(web(SimDuration::ZERO), s)
    };
    for (client, retried, cause) in [
        (ClientPreset::Ideal, vec![], Cause::Inflight),
        (ClientPreset::PythonRequests, vec![], Cause::Inflight),
        (
            ClientPreset::GoNetHttp,
            vec![(Cause::Inflight, 13_000)],
            Cause::Refused,
        ),
    ] {
        let (_, history) = exits(client);
        assert_eq!(retries(&history), retried, "{client:?}");
        assert_eq!(failures(&history)[0], (cause, 13_000), "{client:?}");
    }
}

#[test]
fn envoy_retries_a_connect_failure_twice_after_25_then_50_ms() {
    // New connections; the app exits at SIGTERM, 13.02 s (deleted 11.97 s
    // after the start, kubelet 50 ms): its endpoint leaves the rules at
    // once. The request of 13.1 s finds no endpoint (REJECT), is retried
    // 25 ms later (13.125 s), again no endpoint, then 50 ms after that
    // (13.175 s, Envoy's back-off doubling), and fails for good.
    let mut traffic = steady(ms(12_150));
    traffic.client.preset = ClientPreset::Envoy;
    traffic.connections = Some(Connections::New);
    let mut s = service(1, SimDuration::ZERO, ms(11_970), traffic);
    s.app.on_sigterm = OnSigterm::ExitImmediately;
    let (m, history) = run(web(SimDuration::ZERO), s);
    assert_eq!(
        retries(&history),
        [(Cause::NoEndpoints, 13_100), (Cause::NoEndpoints, 13_125)]
    );
    assert_eq!(failures(&history), [(Cause::NoEndpoints, 13_175)]);
    assert_eq!(m.retry.map(|r| r.retried_by), Some([0, 2, 0, 0, 0, 0, 0]));
}

#[test]
fn an_idle_timeout_closes_the_client_s_connection_before_its_next_request() {
    // One request every 5 s (rate 0.2/s) on keep-alive. undici closes an
    // idle connection after 4 s, so each request opens its own; the ideal
    // client keeps its one connection for the whole run.
    let opened = |client| {
        let mut traffic = steady(secs(30));
        traffic.rate = podsim::model::service::Rate::new(0.2).unwrap();
        traffic.connections = Some(Connections::KeepAlive);
        traffic.client.preset = client;
        let mut s = service(1, SimDuration::ZERO, secs(60), traffic);
        s.disruptions.clear();
        let (m, history) = run(web(secs(5)), s);
        let opened = (history.iter())
            .filter(|e| matches!(e.what, ServiceChange::ConnectionOpened { .. }))
            .count() as u64;
        (m.requests, opened)
    };
    // Requests at 6, 11, 16, 21 and 26 s (start 1 s, every 5 s, before 31 s).
    assert_eq!(opened(ClientPreset::NodeUndici), (5, 5));
    assert_eq!(opened(ClientPreset::Ideal), (5, 1));
}

/// Connections a client held idle in its pool to `replica` when the app
/// closed them at SIGTERM (`at`): opened to it, closed gracefully then,
/// and not right after an answer — a connection busy at SIGTERM whose
/// answer comes in that same millisecond is closed with it (`answered`
/// emits the close just after the answer), and its client saw the close.
fn idle_pinned_at(history: &ServiceHistory, replica: u32, at: SimTime) -> u64 {
    let mut to = std::collections::HashMap::new();
    let mut n = 0;
    let mut after_answer = false;
    for e in history {
        match e.what {
            ServiceChange::ConnectionOpened { conn, replica: r, .. } => {
                to.insert(conn, r);
            }
            ServiceChange::ConnectionClosed { conn, reset: false } if e.at == at && !after_answer => {
                n += u64::from(to.get(&conn) == Some(&replica));
            }
            _ => {}
        }
        after_answer = matches!(e.what, ServiceChange::Answered { .. });
    }
    n
}

#[test]
fn a_client_that_does_not_check_loses_one_request_per_pinned_connection() {
    // 12 clients, each with one kept-alive connection, Poisson traffic, two
    // replicas; replica 0 is deleted and its app (Go's Shutdown) closes
    // the idle connections pinned to it at SIGTERM, busy ones after their
    // answer. python-http-client sends each client's next request on its
    // closed connection: exactly one keepalive_race per idle connection
    // closed, k, whichever clients the draws pinned there. A client that
    // checks (detected) loses none of them.
    let mut total = 0;
    for seed in 0..12 {
        let spec = |on_closed: OnClosed| {
            let mut traffic = TrafficSpec {
                rate: podsim::model::service::Rate::new(60.0).unwrap(),
                clients: 12,
                service_time: ms(10).into(),
                duration: Some(secs(20)),
                ..TrafficSpec::default()
            };
            traffic.client.preset = ClientPreset::PythonHttpClient;
            traffic.client.on_closed = Some(on_closed);
            let mut s = service(2, ms(300), secs(10), traffic);
            s.nodes = 2;
            let mut run = RunSpec {
                service: Some(Box::new(s)),
                ..RunSpec::new(web(secs(5)))
            };
            run.stream.seed = seed;
            run
        };
        let mut sim = ServiceSimulator::observed_by(spec(OnClosed::FailsNext), ServiceHistory::default());
        let m = sim.run();
        let history = sim.observer();
        let sigterm = (history.iter())
            .find_map(|e| match e.what {
                ServiceChange::Pod {
                    replica: 0,
                    change: podsim::model::Change::Sigterm { .. },
                    ..
                } => Some(e.at),
                _ => None,
            })
            .expect("replica 0 got SIGTERM");
        let k = idle_pinned_at(history, 0, sigterm);
        assert_eq!(m.failed_of(Cause::KeepaliveRace), k, "seed {seed}");
        total += k;
        let checked = ServiceSimulator::new(spec(OnClosed::Detected)).run();
        assert_eq!(checked.failed_of(Cause::KeepaliveRace), 0, "seed {seed}");
    }
    // 12 clients over 2 replicas: about 6 pinned to replica 0 each run.
    assert!(total > 12 * 3, "{total}");
}
