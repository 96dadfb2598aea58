//! The hop's balancers and its outlier detection (issue 39 item 2), worked
//! by hand: ingress-nginx's `ewma` sending every request to the Pod that
//! refuses fast, Envoy's outlier detection ejecting it after five failures
//! in a row, and Envoy's least request with two hosts.
//!
//! The runs are `service`'s (one node, kube-proxy's propagation 0; the web
//! app boots in 1 s and exits at SIGTERM; the kubelet hears of the deletion
//! 50 ms after it; the Pod object stays 60 s, so its IP refuses), with two
//! replicas, new connections and 10 requests/s of 10 ms each, unless said.

use podsim::engine::SimDuration;
use podsim::model::service::{
    Balance, Cause, Connections, HopPreset, HopSpec, Propagation, ServiceChange, ServiceHistory, ServiceSpec,
    TrafficSpec,
};

use super::common::secs;
use super::service::{ms, observed_run as run, service, steady, web};

/// Two replicas behind `preset`, its view following the slice after a
/// fixed `lag`, balancing by `balance`, `tries` tries; replica 0 deleted
/// 5 s after the traffic starts; traffic for `duration`.
fn hop(
    preset: HopPreset,
    lag: SimDuration,
    balance: Balance,
    tries: u32,
    duration: SimDuration,
) -> ServiceSpec {
    let traffic = TrafficSpec {
        connections: Some(Connections::New),
        ..steady(duration)
    };
    let mut s = service(2, SimDuration::ZERO, secs(5), traffic);
    s.hop = Some(HopSpec {
        preset,
        propagation: Some(Propagation::Custom(lag.into())),
        balance: Some(balance),
        tries: Some(tries),
        ..HopSpec::default()
    });
    s
}

/// The replica each request's first try went to, by request number.
fn first_tries(history: &ServiceHistory) -> Vec<u32> {
    (history.iter())
        .filter_map(|e| match e.what {
            ServiceChange::Routed {
                tries: 1, replica, ..
            } => Some(replica),
            _ => None,
        })
        .collect()
}

/// When each request the client saw fail failed, in ms (refused, all).
fn failed_at(history: &ServiceHistory) -> Vec<u64> {
    (history.iter())
        .filter_map(|e| match e.what {
            ServiceChange::RequestFailed { cause, .. } => {
                assert_eq!(cause, Cause::Refused);
                Some(e.at.as_millis())
            }
            _ => None,
        })
        .collect()
}

#[test]
fn ewma_sends_every_request_to_the_pod_that_refuses_fast() {
    // ewma.lua: with two upstreams both are scored, the lower decayed
    // average wins (the first drawn on a tie). Ready at 1 s, in the
    // view at 3.05 s; request k at 3.15 s + 100 ms · k. Request 0 meets
    // two upstreams without stats (0, a tie): the first drawn, X, takes
    // it, and its first sample (10 ms) is its average. From then each
    // average is 10 ms and the one touched longer ago scores lower, so
    // the picks alternate: X for even k, the other for odd k.
    let (m, history) = run(
        web(SimDuration::ZERO),
        hop(HopPreset::IngressNginx, ms(2050), Balance::Ewma, 1, secs(10)),
    );
    let picks = first_tries(&history);
    let x = picks[0];
    let alternating: Vec<u32> = (0..50).map(|k| if k % 2 == 0 { x } else { 1 - x }).collect();
    assert_eq!(picks[..50], alternating[..]);
    // Replica 0 is deleted at 8.05 s, its listener closed at 8.1 s, the
    // view drops it at 10.1 s. Its first request after the close, k = 50
    // (8.15 s) if X is 0, else k = 51, is refused in no time: the 0 ms
    // sample only decays its average, which scores below the other's from
    // then on, so every request until the drop (k ≤ 69, 10.05 s) goes to
    // it and fails: 20 or 19. Round robin sends it every second request.
    let first = if x == 0 { 50 } else { 51 };
    let expected: Vec<u64> = (first..=69).map(|k| 3150 + 100 * k).collect();
    assert_eq!(failed_at(&history), expected);
    assert_eq!(m.hop.as_deref().unwrap().answered[0], expected.len() as u64);
    let (m, _) = run(
        web(SimDuration::ZERO),
        hop(
            HopPreset::IngressNginx,
            ms(2050),
            Balance::RoundRobin,
            1,
            secs(10),
        ),
    );
    assert_eq!(m.failed, 10);
    // nginx's 3 tries: the refused try goes to the upstream not tried
    // (ewma.lua's tried set), which answers and takes the sample (the last
    // try's): the refusing Pod still scores lowest, so each request from
    // the same first one on is a next-upstream retry, and none fails.
    let (m, _) = run(
        web(SimDuration::ZERO),
        hop(HopPreset::IngressNginx, ms(2050), Balance::Ewma, 3, secs(10)),
    );
    assert_eq!(m.failed, 0);
    assert_eq!(m.hop.as_deref().unwrap().retries, expected.len() as u64);
}

/// Envoy in front of the two replicas, its view 20 s behind the slice
/// (Ready at 1 s, traffic from 21 s: request k at 21.1 s + 100 ms · k),
/// one try, outlier detection after `consecutive` failures (0: none).
fn envoy(consecutive: u32) -> ServiceSpec {
    let mut s = hop(HopPreset::Envoy, secs(20), Balance::LeastRequest, 1, secs(30));
    s.hop.as_mut().unwrap().consecutive_5xx = Some(consecutive);
    s
}

#[test]
fn outlier_detection_ejects_the_refusing_pod_after_five_failures_in_a_row() {
    // Replica 0 is deleted at 26 s, refuses from 26.05 s, and stays in the
    // view until 46 s. Each request is answered 10 ms after it went out,
    // before the next: both hosts have no request active, so least request
    // takes its first draw, either host. Each try at replica 0 fails (503
    // to the client, who does not retry it); the fifth ejects it, and the
    // sweeps (every 10 s from 31 s) bring it back no sooner than 30 s
    // later, past the drop: exactly five failures.
    let (m, history) = run(web(SimDuration::ZERO), envoy(5));
    let failed = failed_at(&history);
    assert_eq!(failed.len(), 5);
    assert!(failed[0] >= 26_100);
    let ejected: Vec<(u64, u32, bool)> = (history.iter())
        .filter_map(|e| match e.what {
            ServiceChange::HopEjected { replica, ejected } => Some((e.at.as_millis(), replica, ejected)),
            _ => None,
        })
        .collect();
    assert_eq!(ejected, [(failed[4], 0, true)]);
    assert_eq!(m.hop.as_deref().unwrap().answered, [0, 5, 0]);
    // Without it (Istio's default), each of the 199 requests from 26.1 s
    // to 45.9 s fails when its draw lands on replica 0: Bin(199, 1/2),
    // mean 99.5, sd 7.05; within 4 sd.
    let (m, _) = run(web(SimDuration::ZERO), envoy(0));
    assert!((71..=128).contains(&m.failed), "{}", m.failed);
}

/// Envoy's least request over the two replicas, no deletion, about
/// 2,000 requests of `service` each: the pairs of consecutive requests,
/// and how many of them went to the same replica.
fn repeats(service_time: SimDuration) -> (f64, f64) {
    let mut s = hop(HopPreset::Envoy, ms(500), Balance::LeastRequest, 1, secs(200));
    s.disruptions.clear();
    s.traffic.as_mut().unwrap().service_time = service_time.into();
    let (m, history) = run(web(SimDuration::ZERO), s);
    assert_eq!(m.failed, 0);
    let picks = first_tries(&history);
    assert!(picks.len() >= 1990, "{}", picks.len());
    let same = picks.windows(2).filter(|w| w[0] == w[1]).count();
    ((picks.len() - 1) as f64, same as f64)
}

/// `same` of `n` pairs is within 4 sd of Bin(n, p).
fn binomial(n: f64, same: f64, p: f64) {
    let (mean, sd) = (n * p, (n * p * (1.0 - p)).sqrt());
    assert!(
        (same - mean).abs() <= 4.0 * sd,
        "{same} of {n}, expected {mean} ± {sd}"
    );
}

#[test]
fn least_request_with_two_hosts_samples_with_replacement_and_keeps_the_first_on_a_tie() {
    // Envoy's unweightedHostPickNChoices: two draws with replacement, the
    // second taken only if strictly less busy. 150 ms answers at 10/s:
    // each request finds the one before it still active (1) and the one
    // before that done, so it repeats its predecessor's host only if both
    // draws land there: 1/4 of the pairs (about 500 of 2,000, sd 19).
    let (n, same) = repeats(ms(150));
    binomial(n, same, 0.25);
    // 10 ms answers: both idle, a tie, the first draw wins: 1/2 (sd 22).
    let (n, same) = repeats(ms(10));
    binomial(n, same, 0.5);
}
