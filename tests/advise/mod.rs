//! `podsim::advise` through the public API, against settings worked out by
//! hand from the Service model's rules: a fixed propagation per node,
//! kube-proxy's token bucket (burst 2, one token per `min_sync_period`)
//! and the kubelet's kill arithmetic (R35: the grace left after the hook
//! is the grace minus the hook's whole seconds, at least 2 s); and the
//! search against a brute-force scan of the same range. `patch_applies`:
//! the patch applied to its manifest as a strategic merge, re-simulated.

mod job;
mod matrix;
mod patch_applies;
mod proxy;
mod rollout;
mod start;

use podsim::advise::{Advice, Measurer, PRE_STOP_TOP, Point, Request, Target, WALK, advise};
use podsim::engine::SimDuration;
use podsim::scenario::Scenario;
use podsim::scenario::key::{Field, Key};

/// Four replicas on two nodes, every node hearing of a change 2 s after
/// it (d), the kubelet 100 ms after the delete (k), kube-proxy's
/// min_sync_period 2 s (M), new connections, an app that closes its
/// listener at SIGTERM; replicas 0, 1 and 2 deleted 250 ms apart (δ).
/// `extra` is appended to the web container.
fn three_deletes(min_sync: &str, grace: &str, extra: &str) -> Scenario {
    let text = format!(
        r#"
        seed = 7
        [service]
        replicas = 4
        nodes = 2
        propagation = "2s"
        kubelet_delay = "100ms"
        min_sync_period = "{min_sync}"
        [traffic]
        rate = 40
        connections = "new"
        clients = 2
        service_time = "20ms"
        [app]
        on_sigterm = "close-then-drain"
        [[disruptions]]
        after_ready = "10s"
        delete = 0
        [[disruptions]]
        after_ready = "10250ms"
        delete = 1
        [[disruptions]]
        after_ready = "10500ms"
        delete = 2
        [pod]
        termination_grace_period = "{grace}"
        [[containers]]
        name = "web"
        kind = "app"
        boot = "2s"
        {extra}
        "#
    );
    Scenario::parse(&text, "three-deletes").expect("the scenario reads")
}

pub(crate) fn request(replications: u64, step_ms: u64) -> Request {
    Request {
        step: SimDuration::from_millis(step_ms),
        ..Request::new(Target::FailedP99(0), replications)
    }
}

fn ms(d: Option<SimDuration>) -> Option<u64> {
    d.map(SimDuration::as_millis)
}

/// The runner's arithmetic. Every replica is Ready at 2 s; the nodes hear
/// of it at 4 s and sync at once (the bucket starts full: 2 tokens),
/// leaving one token. The deletes come at 14 s, 14.25 s and 14.5 s; the
/// nodes hear of them at 16 s, 16.25 s and 16.5 s. At 16 s the bucket is
/// full again (12 s of refill): sync at once, one token left; at 16.25 s
/// one token + 250 ms: sync at once, 250 ms of credit left; at 16.5 s the
/// credit is 500 ms, so the runner retries M after the last sync's end
/// (`tryRun`: `minInterval` after `lastRun`), at 18.25 s. Replica 2's
/// rules drop 3.75 s after its delete (d + M − δ), while its listener
/// closes k + preStop after it: safe from preStop ≥ 3.65 s, so 4 s on a
/// 500 ms grid (3.5 s is short) and on a 1 s grid.
/// Without the bucket (min_sync_period 0) every rule drops d after its
/// delete: d − k = 1.9 s, so 2 s.
#[test]
fn the_pre_stop_covers_the_propagation_and_the_token_bucket() {
    let bucket = three_deletes("2s", "30s", r#"drain = "1s""#);
    let advice = advise(&bucket.run, &request(20, 500)).expect("a Service is advised");
    assert_eq!(ms(advice.pre_stop.advised), Some(4000));
    let advice = advise(&bucket.run, &request(20, 1000)).expect("a Service is advised");
    assert_eq!(ms(advice.pre_stop.advised), Some(4000));
    let no_bucket = three_deletes("0s", "30s", r#"drain = "1s""#);
    let advice = advise(&no_bucket.run, &request(20, 500)).expect("a Service is advised");
    assert_eq!(ms(advice.pre_stop.advised), Some(2000));
    // Today (no hook) every replication fails requests; advised, none.
    assert!(advice.today.failed_percentile(99) > 0);
    assert_eq!(advice.advised.failed_percentile(99), 0);
    // 30 s is ample for 2 s of hook and 1 s of drain: kept.
    assert_eq!(ms(advice.grace.advised), Some(30_000));
    assert_eq!(advice.grace.killed_today, 0);
}

/// The kubelet's arithmetic (R35), with M = 1.75 s: as above, the third
/// sync is retried M after the second's end, at 16.25 + 1.75 = 18 s, so
/// replica 2's rules drop 3.5 s after its delete and the hook is 3.5 s
/// (3.4 s would tie). With the 3.5 s hook and a 4.8 s drain,
/// the app exits 8.3 s after the kubelet starts; SIGKILL comes at
/// 3.5 s + max(grace − floor(3.5 s), 2 s) = grace + 0.5 s. So grace 7 s
/// kills at 7.5 s and 8 s first lets the app exit (at 8.3 s < 8.5 s): 8 s,
/// one less than rounding hook + drain up (9 s). Today's 2 s is below the
/// hook, so every replication is SIGKILLed today.
#[test]
fn a_grace_below_the_hook_is_raised_to_what_the_kill_arithmetic_needs() {
    let short = three_deletes("1750ms", "2s", r#"drain = "4800ms""#);
    let advice = advise(&short.run, &request(20, 500)).expect("a Service is advised");
    assert_eq!(ms(advice.pre_stop.advised), Some(3500));
    assert_eq!(ms(advice.grace.advised), Some(8000));
    assert!(!advice.grace.kills_remain);
    assert_eq!(advice.grace.killed_today, 20);
    assert_eq!(advice.advised.killed_runs(), 0);
}

/// An app that ignores SIGTERM is SIGKILLed at any grace: the grace is not
/// advised, and the search says how far it looked.
#[test]
fn no_grace_is_advised_for_an_app_that_never_exits_on_sigterm() {
    let stuck = three_deletes("0s", "30s", r#"drain = "never""#);
    let advice = advise(&stuck.run, &request(10, 1000)).expect("a Service is advised");
    assert!(advice.grace.kills_remain);
    assert_eq!(advice.grace.killed_at_top, 10);
}

/// A Pod scenario is refused with the words the CLI prints.
#[test]
fn a_pod_scenario_gets_no_pre_stop_advice() {
    let pod = Scenario::load(std::path::Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/scenarios/seed-sidecar.toml"
    )))
    .expect("the seed reads");
    let refusal = advise(&pod.run, &request(10, 1000)).expect_err("a Pod has no preStop to advise");
    assert!(
        refusal
            .to_string()
            .starts_with("the preStop sleep and the grace are advised for a Service scenario")
    );
}

/// On every bundled Service scenario (the TOML ones that are not grids):
/// the smallest preStop of a brute-force scan of 0–120 s by 1 s on the
/// same replications (the grace raised as the search raises it) against
/// the search's. The bisection's answer, on the same replications, must
/// be the scan's (failed requests do not increase with the preStop); the
/// advice, checked on fresh replications, at most the fresh check's walk
/// above it; and the search must run a fraction of the sweep's 121 values.
#[test]
fn the_search_agrees_with_a_brute_force_scan_on_every_bundled_service() {
    let dir = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/scenarios/service"));
    let mut paths: Vec<_> = std::fs::read_dir(dir)
        .expect("the scenarios are there")
        .map(|e| e.expect("an entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "toml"))
        .collect();
    paths.sort();
    let (r, step) = (40, 1000);
    let mut compared = 0;
    for path in paths {
        // A grid names a base scenario; it is not one.
        let Ok(scenario) = Scenario::load(&path) else {
            continue;
        };
        let advice: Advice = advise(&scenario.run, &request(r, step)).expect("a Service is advised");
        let grace = scenario.run.pod.termination_grace_period;
        let mut scan = Measurer::new(
            scenario.run.clone(),
            Key::container(Field::PreStop, 0),
            Key::pod(Field::TerminationGracePeriod),
        );
        let values = PRE_STOP_TOP.as_millis() / step + 1;
        let smallest = (0..values)
            .map(|i| SimDuration::from_millis(i * step))
            .find(|&p| {
                let point = Point {
                    pre_stop: Some(p),
                    grace: Some(SimDuration(p.as_millis() + grace.as_millis())),
                    rollout: None,
                };
                scan.sample(point, 0..r).failed_percentile(99) == 0
            });
        let name = path.display();
        let searched = &advice.pre_stop.searched;
        assert_eq!(searched.bisected, smallest, "{name}: bisection against the scan");
        let advised = advice.pre_stop.advised.expect("a preStop in range is safe");
        let walked = advised.as_millis() - smallest.expect("the scan finds one").as_millis();
        assert!(
            walked <= WALK * step,
            "{name}: the fresh check walked {walked} ms"
        );
        assert!(
            searched.evaluated * 5 < values,
            "{name}: {} values run",
            searched.evaluated
        );
        println!(
            "{name}: scan {} ({} of 121 values), search {advised} ({} values); runs {} against a grid's {}",
            smallest.unwrap_or_default(),
            smallest.map_or(values, |p| p.as_millis() / step + 1),
            searched.evaluated,
            advice.runs,
            advice.grid_runs()
        );
        compared += 1;
    }
    assert_eq!(
        compared, 6,
        "drain, ignore-sigterm, keep-alive, no-prestop, pre-stop-3s, rollout"
    );
}

/// A mean budget the scenario meets with no hook at all: 0 s is advised
/// after three candidates (the top, 0 s itself, and 0 s on fresh
/// replications), and the grace stays.
#[test]
fn a_budget_met_without_a_hook_advises_none() {
    let bucket = three_deletes("2s", "30s", r#"drain = "1s""#);
    let request = Request {
        target: Target::FailedMean(1000.0),
        ..request(10, 1000)
    };
    let advice = advise(&bucket.run, &request).expect("a Service is advised");
    assert_eq!(ms(advice.pre_stop.advised), Some(0));
    assert_eq!(advice.pre_stop.searched.evaluated, 3);
    assert_eq!(ms(advice.grace.advised), Some(30_000));
}

/// keep-alive.toml's long preStop is not the endpoint race: a Node app
/// (close-keep-busy) serves kept-alive connections after SIGTERM until
/// they sit idle, and the clients keep them busy, so what fails one step
/// below the advice is requests cut at SIGKILL (inflight), never a
/// refused or timed-out connection; the advice says so.
#[test]
fn the_keep_alive_pre_stop_is_decided_by_connections_kept_busy_not_by_the_race() {
    let scenario = Scenario::load(std::path::Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/scenarios/service/keep-alive.toml"
    )))
    .expect("the scenario reads");
    let advice = advise(&scenario.run, &request(40, 1000)).expect("a Service is advised");
    let p = &advice.pre_stop;
    assert!(p.keeps_busy);
    // Far beyond the tiny preset's p99 of 1 s: 11 s on these replications
    // (each request's client drawn with its arrival gap; 20 s with a draw
    // of its own, the same law on other draws: a tail of 40 runs; 51 s
    // when the three clients took the requests in turn, a smoother load
    // that let a pool keep its connection to the deleted Pod longer).
    assert!(p.advised.expect("a preStop is safe") > SimDuration::from_secs(10));
    let causes: Vec<_> = p.decided_by.iter().map(|&(c, _)| c).collect();
    assert_eq!(causes, vec![podsim::model::service::Cause::Inflight]);
}
