//! A hop between the client and the Pods (issue 39 item 2), worked by
//! hand: the failures an ingress whose view lags kube-proxy's adds,
//! ingress-nginx's next-upstream retry turning each refused connect into
//! an answer, and a client's retry of the hop's 502.
//!
//! The runs are `service`'s (one node, kube-proxy's propagation 0 and
//! syncs at once; the web app boots in 1 s and exits at SIGTERM; the
//! kubelet hears of the deletion 50 ms after it; the Pod object stays 60 s,
//! so its IP refuses), with 3 replicas, new connections, 10 requests/s,
//! and an ingress-nginx hop whose view follows the slice after a fixed
//! d_h = 2.05 s, round robin over replicas [0, 1, 2].
//!
//! The timeline: every replica Ready at 1 s, in the node's rules at once
//! and in the hop's view at 3.05 s, so traffic starts then; request j
//! goes out at 3.15 s + 100 ms · j. Replica 0 is deleted 5 s later, at
//! 8.05 s: kube-proxy's rules drop it at once, its listener closes at
//! SIGTERM (8.1 s), and the hop's view drops it at 8.05 + 2.05 = 10.1 s.
//! Round robin gives request j the turn j (one pick per try), so without
//! retries replica 0 gets j = 3m, at 3.15 s + 300 ms · m: those in
//! (8.1 s, 10.1 s) are m = 17 … 23, seven requests refused. kube-proxy
//! alone would have dropped the Pod before its listener closed: none.

use podsim::engine::SimDuration;
use podsim::model::service::{
    Cause, ClientPreset, Connections, HopPreset, HopSpec, Propagation, ServiceChange, ServiceHistory,
    ServiceSpec, TrafficSpec,
};

use super::common::secs;
use super::service::{ms, observed_run as run, service, steady, web};

/// The scenario above, the hop allowed `tries` tries, the client `client`.
fn ingress(tries: u32, client: ClientPreset, status_retries: Option<u32>) -> ServiceSpec {
    let mut traffic = TrafficSpec {
        connections: Some(Connections::New),
        ..steady(secs(10))
    };
    traffic.client.preset = client;
    traffic.client.status_retries = status_retries;
    let mut s = service(3, SimDuration::ZERO, secs(5), traffic);
    s.hop = Some(HopSpec {
        preset: HopPreset::IngressNginx,
        propagation: Some(Propagation::Custom(ms(2050).into())),
        tries: Some(tries),
        ..HopSpec::default()
    });
    s
}

/// When each request the client saw fail failed, in ms.
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
fn an_ingress_whose_view_lags_kube_proxy_adds_the_requests_it_sends_to_a_closed_listener() {
    let (m, history) = run(web(SimDuration::ZERO), ingress(1, ClientPreset::Ideal, None));
    assert_eq!(m.ready_ms, Some(3050));
    // m = 17 … 23: 8.25 s, 8.55 s, … 10.05 s, each refused at once.
    let expected: Vec<u64> = (17..=23).map(|m| 3150 + 300 * m).collect();
    assert_eq!(failed_at(&history), expected);
    assert_eq!(m.failed_of(Cause::Refused), 7);
    let hop = m.hop.as_deref().expect("a hop reports its figures");
    // Each a 502 from the hop; its view dropped the Pod d_h after the deletion.
    assert_eq!((hop.retries, hop.answered), (0, [7, 0, 0]));
    assert_eq!(hop.dropped_ms, Some(2050));
    // The same run without the hop: kube-proxy drops the Pod at the deletion.
    let mut alone = ingress(1, ClientPreset::Ideal, None);
    alone.hop = None;
    let (m, _) = run(web(SimDuration::ZERO), alone);
    assert_eq!((m.failed, m.hop.is_none()), (0, true));
}

#[test]
fn nginx_next_upstream_turns_each_refused_connect_into_an_answer() {
    // tries 3: a refused try goes to the next turn, another replica
    // (consecutive turns differ mod 3), and is answered. Each retry takes
    // a turn, so after the first (request 51, 8.25 s) every second request
    // meets replica 0: 8.25 s + 200 ms · n below 10.1 s, n = 0 … 9.
    let (m, history) = run(web(SimDuration::ZERO), ingress(3, ClientPreset::Ideal, None));
    assert_eq!(m.failed, 0);
    let retried: Vec<u64> = (history.iter())
        .filter(|e| {
            matches!(
                e.what,
                ServiceChange::HopRetried {
                    cause: Cause::Refused,
                    ..
                }
            )
        })
        .map(|e| e.at.as_millis())
        .collect();
    let expected: Vec<u64> = (0..10).map(|n| 8250 + 200 * n).collect();
    assert_eq!(retried, expected);
    let hop = m.hop.as_deref().unwrap();
    assert_eq!((hop.retries, hop.answered), (10, [0, 0, 0]));
    // Answered by the hop's retry, at once: no extra latency.
    assert_eq!(m.retried_ok, 10);
}

#[test]
fn a_client_that_retries_gateway_errors_resends_the_hops_502() {
    // No next upstream at the hop; Go's client told to retry a 502 once
    // resends it at once (no back-off), through the hop's next turn: the
    // same arithmetic as nginx's own retry, the 502 seen by the client.
    let (m, history) = run(
        web(SimDuration::ZERO),
        ingress(1, ClientPreset::GoNetHttp, Some(1)),
    );
    assert_eq!(m.failed, 0);
    let retried = (history.iter()).filter(|e| matches!(e.what, ServiceChange::Retried { .. }));
    assert_eq!(retried.count(), 10);
    let retry = m.retry.as_deref().unwrap();
    assert_eq!(retry.retried_by[Cause::Refused as usize], 10);
    assert_eq!(m.hop.as_deref().unwrap().answered, [10, 0, 0]);
    // Istio's Envoy retries 503 alone: the 502s are the first run's seven failures.
    let (m, history) = run(web(SimDuration::ZERO), ingress(1, ClientPreset::Envoy, None));
    assert_eq!(m.failed, 7);
    assert_eq!(failed_at(&history).len(), 7);
}

/// An NLB with IP targets in front of the same three replicas: its view
/// lags the slice 120 s (the preset), round robin for the arithmetic, a
/// health check every `interval` that takes a target out after two fails.
fn nlb(interval: SimDuration) -> ServiceSpec {
    let traffic = TrafficSpec {
        connections: Some(Connections::New),
        ..steady(secs(10))
    };
    let mut s = service(3, SimDuration::ZERO, secs(5), traffic);
    s.hop = Some(HopSpec {
        preset: HopPreset::NlbIp,
        balance: Some(podsim::model::service::Balance::RoundRobin),
        health_interval: Some(interval),
        unhealthy_threshold: Some(2),
        ..HopSpec::default()
    });
    s
}

#[test]
fn a_load_balancer_sends_to_a_terminating_pod_until_its_health_check_takes_it_out() {
    // The replicas are Ready at 1 s; the NLB's view has them at 121 s,
    // traffic starts then (request j at 121.1 s + 100 ms · j, replica 0's
    // at 121.1 s + 300 ms · m), and its checks run every 950 ms from
    // then: 121.95 s, …, 126.7 s, 127.65 s. Replica 0 is deleted at
    // 126 s, its listener closed at 126.05 s: the checks at 126.7 s and
    // 127.65 s fail, the second takes it out. L4: the client sees each
    // refused connect itself, m = 17 (126.2 s) … 21 (127.4 s): five.
    let (m, history) = run(web(SimDuration::ZERO), nlb(ms(950)));
    assert_eq!(m.ready_ms, Some(121_000));
    let expected: Vec<u64> = (17..=21).map(|m| 121_100 + 300 * m).collect();
    assert_eq!(failed_at(&history), expected);
    let out: Vec<(u64, u32, bool)> = (history.iter())
        .filter_map(|e| match e.what {
            ServiceChange::HopHealth { replica, healthy } => Some((e.at.as_millis(), replica, healthy)),
            _ => None,
        })
        .collect();
    assert_eq!(out, [(127_650, 0, false)]);
    // No answer of its own: an L4 hop passes the Pod's refusal on.
    assert_eq!(m.hop.as_deref().unwrap().answered, [0, 0, 0]);
    // Without a health check the view alone drops the Pod, at 246 s: every
    // replica-0 turn until the traffic ends at 131 s fails, m = 17 … 32.
    let (m, _) = run(web(SimDuration::ZERO), nlb(SimDuration::ZERO));
    assert_eq!(m.failed_of(Cause::Refused), 16);
}

/// Two replicas behind an NLB whose view follows the slice after a fixed
/// 1 s, round robin, no health check; one keep-alive client whose one
/// connection carries every request (each answered in 10 ms, well before
/// the next); replica 0's app ignores SIGTERM, so it serves until SIGKILL
/// at the 30 s grace deadline; its deregistration delay is `delay`, its
/// connections reset at the end if `terminates`.
fn nlb_keep_alive(delay: SimDuration, terminates: bool) -> ServiceSpec {
    let traffic = TrafficSpec {
        connections: Some(Connections::KeepAlive),
        ..steady(secs(60))
    };
    let mut s = service(2, SimDuration::ZERO, ms(4955), traffic);
    s.app.on_sigterm = podsim::model::service::OnSigterm::Ignore;
    s.hop = Some(HopSpec {
        preset: HopPreset::NlbIp,
        propagation: Some(Propagation::Custom(secs(1).into())),
        balance: Some(podsim::model::service::Balance::RoundRobin),
        health_interval: Some(SimDuration::ZERO),
        deregistration_delay: Some(delay),
        connection_termination: Some(terminates),
        ..HopSpec::default()
    });
    s
}

/// Each request the client saw fail, as (when, cause).
fn failures(history: &ServiceHistory) -> Vec<(u64, Cause)> {
    (history.iter())
        .filter_map(|e| match e.what {
            ServiceChange::RequestFailed { cause, .. } => Some((e.at.as_millis(), cause)),
            _ => None,
        })
        .collect()
}

#[test]
fn a_load_balancer_that_terminates_at_its_deregistration_delay_cuts_what_the_pod_would_have() {
    // Ready at 1 s, in the NLB's view at 2 s: traffic starts then, request
    // k at 2 s + 100 ms · (k + 1), on one connection opened to turn 0,
    // replica 0. Replica 0 is deleted 4.955 s later (6.955 s), leaves the
    // view at 7.955 s and keeps serving; the kubelet hears at 7.005 s and
    // SIGKILLs it 30 s later, at 37.005 s, cutting the request sent at
    // 37.0 s (answered at 37.01 s): the Pod exits before a 60 s delay ends.
    let (m, history) = run(web(SimDuration::ZERO), nlb_keep_alive(secs(60), true));
    assert_eq!(m.ready_ms, Some(2000));
    assert_eq!(failures(&history), [(37_005, Cause::Inflight)]);
    // A delay of 10.05 s ends first, at 17.955 + 0.05 = 18.005 s: the NLB
    // resets the connection then, cutting the request sent at 18.0 s; the
    // next opens a connection the view sends to replica 1, and the
    // SIGKILL at 37.005 s finds nothing of replica 0's left to cut.
    let (m, history) = run(web(SimDuration::ZERO), nlb_keep_alive(ms(10_050), true));
    assert_eq!(failures(&history), [(18_005, Cause::Inflight)]);
    let terminated: Vec<(u64, u32)> = (history.iter())
        .filter_map(|e| match e.what {
            ServiceChange::HopTerminated { replica } => Some((e.at.as_millis(), replica)),
            _ => None,
        })
        .collect();
    assert_eq!(terminated, [(18_005, 0)]);
    assert_eq!(m.failed, 1);
    // The NLB's own default, connection termination off: the delay's end
    // cuts nothing, the flow goes on to the SIGKILL.
    let (_, history) = run(web(SimDuration::ZERO), nlb_keep_alive(ms(10_050), false));
    assert_eq!(failures(&history), [(37_005, Cause::Inflight)]);
}
