//! One kube-proxy per node for every Service (`[cluster]`, issue 39 item
//! 3), worked by hand: a change of ours heard while other Services' syncs
//! run waits for the running sync's end and then for a token of the
//! bounded-frequency runner (`minSyncPeriod` 1 s, burst 2), and a sync
//! takes the time its lines take in each proxy mode.
//!
//! Every run has one shape: three replicas of a web app that boots in 1 s
//! (Ready at 1 s) and exits at SIGTERM, one node hearing of every change
//! at once (propagation 0), `minSyncPeriod` 1 s, no traffic. Replica 0 is
//! deleted at 10 s, replica 1 at 10.5 s: with two replicas still serving,
//! a terminating one leaves the rules (KEP-1669), so each deletion is one
//! rule change of ours. The startup's syncs are over by 2.4 s at the
//! latest, so at 10 s the bucket is full (two tokens). The periodic full
//! resync (`full_sync`) is a sync like the others, writing every line.

use podsim::engine::SimDuration;
use podsim::model::service::{
    ClusterSpec, Disruption, OnSigterm, Propagation, ProxyMode, ServiceMetrics, ServiceSimulator,
    ServiceSpec, When,
};
use podsim::model::{ContainerKind, ContainerSpec, PodSpec, RunSpec};

use super::common::secs;
use super::service::ms;

fn run(cluster: Option<ClusterSpec>) -> ServiceMetrics {
    let delete = |replica, at| Disruption {
        when: When::At(ms(at)),
        replica,
        ..Disruption::default()
    };
    let mut service = ServiceSpec {
        replicas: 3,
        nodes: 1,
        propagation: Propagation::Custom(SimDuration::ZERO.into()),
        kubelet_delay: ms(50),
        min_sync_period: secs(1),
        cleanup: secs(1),
        disruptions: vec![delete(0, 10_000), delete(1, 10_500)],
        cluster,
        ..ServiceSpec::default()
    };
    service.app.on_sigterm = OnSigterm::ExitImmediately;
    let pod = PodSpec::new(vec![ContainerSpec::new("web", ContainerKind::App, secs(1))]);
    let run = RunSpec {
        service: Some(Box::new(service)),
        ..RunSpec::new(pod)
    };
    ServiceSimulator::new(run).run()
}

/// Each deletion → the node's rules no longer list the Pod, in ms.
fn lags(m: &ServiceMetrics) -> Vec<Option<u64>> {
    m.deleted.iter().map(|d| d.rules_dropped_ms[0]).collect()
}

/// Syncs of 400 ms, and `rolling` Deployments changing 150 ms apart after ours.
fn busy(rolling: u32) -> ClusterSpec {
    ClusterSpec {
        rolling,
        stagger: ms(150),
        sync_time: Some(ms(400)),
        ..ClusterSpec::default()
    }
}

#[test]
fn alone_each_deletion_leaves_the_rules_at_once() {
    // 10 s: a token (two in the bucket): the sync runs at once and takes
    // no time. 10.5 s: 1.5 tokens since: at once again.
    assert_eq!(lags(&run(None)), [Some(0), Some(0)]);
}

#[test]
fn syncs_that_take_time_delay_each_change_by_their_duration() {
    // 10 s: a token, the sync runs to 10.4 s. 10.5 s: 1 + 0.5 tokens:
    // it runs at once, to 10.9 s. Each change lands 400 ms late.
    assert_eq!(lags(&run(Some(busy(0)))), [Some(400), Some(400)]);
}

#[test]
fn a_change_heard_during_other_services_syncs_waits_for_their_end_and_a_token() {
    // Four Deployments change 150, 300, 450 and 600 ms after each change of ours.
    // 10.0 s: ours, a token (1 left): the sync runs to 10.4 s → lag 400.
    // 10.15, 10.3 s: theirs, during it: one request kept (the run channel).
    // 10.4 s: it is asked: 1 + 0.4 tokens, so it runs at once (0.4 left), to 10.8 s.
    // 10.45 s: theirs; 10.5 s: our second deletion; 10.6 s: theirs, all
    //   during that sync: one request kept.
    // 10.8 s: asked: 0.8 tokens, refused; the runner's retry is
    //   minSyncPeriod after the last sync's end (10.8 s), at 11.8 s (the
    //   token was whole at 11.0 s, but `tryRun` sets its timer from
    //   `lastRun`). The sync runs to 12.2 s: our second change lands
    //   1,700 ms after it was made, where alone (with the same 400 ms
    //   syncs) it took 400.
    assert_eq!(lags(&run(Some(busy(4)))), [Some(400), Some(1700)]);
}

#[test]
fn a_sync_takes_the_time_of_the_lines_its_mode_writes() {
    // 5,000 other Services of 12 endpoints. Ours: 3 + 4·3 = 15 lines;
    // each other 3 + 4·12 = 51; 18 µs a line, rounded up to the ms.
    let big = |mode| ClusterSpec {
        services: 5000,
        endpoints: 12,
        mode,
        ..ClusterSpec::default()
    };
    // iptables-full: every line, 15 + 51·5000 = 255,015 → 4,590.27 ms →
    // 4,591. The second deletion (10.5 s) is heard during the first's
    // sync (to 14.591 s), which then has 1 + 4.591 tokens: at once, to
    // 19.182 s: 8,682 ms after it.
    assert_eq!(
        lags(&run(Some(big(ProxyMode::IptablesFull)))),
        [Some(4591), Some(8682)]
    );
    // iptables (partial): a line per Service (5,001) and ours: 5,016 →
    // 90.288 ms → 91 each; both syncs run at once (tokens left).
    assert_eq!(lags(&run(Some(big(ProxyMode::Iptables)))), [Some(91), Some(91)]);
    // nftables and ipvs: only ours, 15 lines → 0.27 ms → 1.
    for mode in [ProxyMode::Nftables, ProxyMode::Ipvs] {
        assert_eq!(lags(&run(Some(big(mode)))), [Some(1), Some(1)]);
    }
}

#[test]
fn the_periodic_full_resync_takes_the_runners_slot_and_a_token() {
    // 5,000 other Services of 12 endpoints; every node's full resync due
    // at 9.9 s (the bucket full then: two tokens).
    let due = |mode| ClusterSpec {
        services: 5000,
        endpoints: 12,
        mode,
        full_sync: Some(ms(9_900)),
        ..ClusterSpec::default()
    };
    // iptables: the resync writes every line, 255,015 → 4,591 ms, from
    // 9.9 s to 14.491 s; both deletions are heard during it (one request
    // kept). At its end the bucket has 1 + 4.591 tokens (two at most): the
    // partial sync runs at once, 91 ms (as above), to 14.582 s: 4,582 and
    // 4,082 ms after the deletions, where without it each took 91.
    assert_eq!(
        lags(&run(Some(due(ProxyMode::Iptables)))),
        [Some(4582), Some(4082)]
    );
    // ipvs: the resync writes what changed, nothing (0 ms), but takes a
    // token: 10 s finds 1.1 tokens and runs at once (1 ms, to 10.001 s,
    // 0.1 left); 10.5 s finds 0.6, refused: the retry is 1 s after the
    // last sync's end, 11.001 s, to 11.002 s: 502 ms, where without the
    // resync both took 1.
    assert_eq!(lags(&run(Some(due(ProxyMode::Ipvs)))), [Some(1), Some(502)]);
}
