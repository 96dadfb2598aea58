//! Durations drawn from distributions: each attempt draws its own, a draw
//! is keyed by (seed, replication, container, key, attempt), and chance
//! failures happen as often as their probability says.

use podsim::model::{Change, Dist, DrawKey, ExitReason, Stream, name_hash, simulate_pod};
use podsim::scenario::Scenario;

use super::common::secs;

/// A native-sidecar proxy that crashes twice, then stays up; its boot is
/// lognormal, so the three attempts draw three boots.
const CRASHY: &str = r#"
seed = 7
[pod]
backoff = { initial = "1s", cap = "1s", immediate_first_restart = false }
[[containers]]
name = "proxy"
kind = "sidecar"
boot = { dist = "lognormal", median = "2s", p99 = "7s" }
fails = 2
[[containers]]
name = "web"
kind = "app"
boot = "1s"
"#;

#[test]
fn each_attempt_draws_its_own_boot_from_its_own_key() {
    let scenario = Scenario::parse(CRASHY, "t.toml").unwrap();
    let report = simulate_pod(&scenario.run);
    // Boot i = the lognormal's sample at the uniform of attempt i.
    let dist = Dist::LogNormal {
        median: secs(2),
        p99: secs(7),
    };
    let stream = Stream {
        seed: 7,
        replication: 0,
    };
    let boots: Vec<u64> = (1..=3)
        .map(|a| {
            dist.sample(stream.uniform(name_hash("proxy"), DrawKey::Boot, a))
                .as_millis()
        })
        .collect();
    assert!(boots[0] != boots[1] && boots[1] != boots[2], "{boots:?}");
    // Each start of the proxy is followed by its exit (attempts 1, 2) or
    // its becoming alive (attempt 3) exactly that boot later.
    let proxy = scenario.run.pod.find("proxy").unwrap();
    let mine: Vec<(u64, Change)> = report
        .trace
        .iter()
        .filter(|e| e.container == Some(proxy))
        .map(|e| (e.at.as_millis(), e.what))
        .collect();
    let starts: Vec<u64> = mine
        .iter()
        .filter(|(_, c)| matches!(c, Change::Starting { .. }))
        .map(|(t, _)| *t)
        .collect();
    let ends: Vec<u64> = mine
        .iter()
        .filter(|(_, c)| matches!(c, Change::Exited(ExitReason::Failed(1)) | Change::Alive { .. }))
        .map(|(t, _)| *t)
        .collect();
    assert_eq!(starts.len(), 3);
    let took: Vec<u64> = starts.iter().zip(&ends).map(|(s, e)| e - s).collect();
    assert_eq!(took, boots);
}

#[test]
fn the_seed_changes_the_draws_and_nothing_else_does() {
    let ready = |text: &str| {
        let s = Scenario::parse(text, "t.toml").unwrap();
        simulate_pod(&s.run).metrics.ready_ms
    };
    let a = ready(CRASHY);
    assert_eq!(a, ready(CRASHY));
    assert_ne!(a, ready(&CRASHY.replace("seed = 7", "seed = 8")));
    // Another container's boot leaves the proxy's draws alone: web starts
    // when the proxy's third attempt is started, and is Ready its own boot
    // later, so half a second less boot is exactly half a second sooner.
    let faster = ready(&CRASHY.replace("boot = \"1s\"", "boot = \"500ms\""));
    assert_eq!(a.map(|ms| ms - 500), faster);
}

#[test]
fn chance_failures_happen_as_often_as_their_probability() {
    // Under Never a failed first attempt fails the app for good: over
    // 4,000 replications the share of Failed Pods is 0.3 ± 4·sqrt(0.3·0.7/4000)
    // = 0.3 ± 0.029.
    let text = "[pod]\nrestart_policy = \"Never\"\n[[containers]]\nname = \"job\"\nkind = \"app\"\nboot = \"1s\"\nrun = \"1s\"\nfail_probability = 0.3\n";
    let mut run = Scenario::parse(text, "t.toml").unwrap().run;
    let n = 4000;
    let failed = (0..n)
        .filter(|&r| {
            run.stream.replication = r;
            simulate_pod(&run).metrics.phase.name() == "Failed"
        })
        .count();
    let share = failed as f64 / n as f64;
    assert!((share - 0.3).abs() < 0.029, "{share}");
}
