//! A drain end to end: the bundled scenario through `podsim run`, and the
//! same with a budget of every replica, with a budget of neither field and
//! with one above 100%, worked by hand.
//!
//! `scenarios/service/drain.toml`: three replicas on three nodes, Ready
//! in every node's rules at 3.056 s (seed 1); node 0 drained 10 s later,
//! T0 = 13.056 s, under min_available 2. Replica 0 is evicted at once (3
//! healthy > 2); the kubelet hears 100 ms later, preStop 3 s, drain 1 s,
//! the object gone 1 s after: 5.1 s. Ready endpoints: 3, 2 while the
//! replacement boots, 3 again: never below the budget.

use super::common::{TempDir, podsim, write};

fn metrics(args: &[&str]) -> serde_json::Value {
    let out = podsim()
        .args(["run", "--format", "json"])
        .args(args)
        .assert()
        .success();
    let doc: serde_json::Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    doc["metrics"].clone()
}

#[test]
fn the_bundled_drain_evicts_the_nodes_pod_within_the_budget() {
    let m = metrics(&["scenarios/service/drain.toml"]);
    assert_eq!(
        (
            &m["drain_ms"],
            &m["evictions_refused"],
            &m["below_min_available_ms"]
        ),
        (&5100.into(), &0.into(), &0.into())
    );
    assert_eq!(m["min_ready_endpoints"], 2);
    assert_eq!(m["failed"], 0);
}

#[test]
fn a_budget_of_every_replica_refuses_the_drain_until_the_horizon() {
    // min_available 3: refused at T0 and every 5 s up to the 60 s horizon:
    // 13.056, 18.056, …, 58.056 s, ten 429s; the drain never ends.
    let dir = TempDir::new();
    let text = std::fs::read_to_string("scenarios/service/drain.toml")
        .unwrap()
        .replace("min_available = 2", "min_available = 3");
    let path = write(dir.path(), "drain3.toml", &text);
    let m = metrics(&[path.to_str().unwrap(), "--horizon", "60s"]);
    assert_eq!(
        (&m["drain_ms"], &m["evictions_refused"]),
        (&serde_json::Value::Null, &10.into())
    );
    assert_eq!(m["outcome"], "horizon");
}

#[test]
fn a_drain_grid_summarises_finished_drains_and_counts_the_unfinished() {
    // min_available 2: as above, 5.1 s, nothing refused. 3: ten 429s and
    // no end within 60 s, so drain_ms has no value (its six cells are
    // empty) and p_drain_unfinished counts both replications.
    let dir = TempDir::new();
    let text = std::fs::read_to_string("scenarios/service/drain.toml").unwrap();
    write(dir.path(), "drain.toml", &format!("horizon = \"60s\"\n{text}"));
    let (header, rows) = super::rollout::summary_of(
        dir.path(),
        "base = 'drain.toml'\nreplications = 2\n[axes]\n\"pdb.min_available\" = [2, 3]\n",
    );
    let cell = |row: usize, name: &str| {
        let i = header
            .iter()
            .position(|c| c == name)
            .unwrap_or_else(|| panic!("{name} in {header:?}"));
        rows[row][i].as_str()
    };
    for stat in ["mean", "p50", "p90", "p99", "min", "max"] {
        let of = |m: &str| format!("{m}_{stat}");
        assert_eq!(
            [0, 1].map(|r| (cell(r, &of("drain_ms")), cell(r, &of("evictions_refused")))),
            [("5100", "0"), ("", "10")],
            "{stat}"
        );
        assert_eq!(cell(0, &of("below_min_available_ms")), "0");
        assert_eq!(cell(1, &of("below_min_available_ms")), "0");
    }
    assert_eq!([0, 1].map(|r| cell(r, "p_drain_unfinished")), ["0", "1"]);
    assert!(!header.iter().any(|c| c.starts_with("rollout_ms")), "{header:?}");
}

#[test]
fn a_budget_with_neither_field_refuses_the_drain_and_says_why() {
    // [pdb] with only the policy, as a policy/v1 budget with neither
    // minAvailable nor maxUnavailable: disruptionsAllowed is 0 (the
    // disruption controller's expectedCount stays 0), so the eviction is
    // refused at T0 and every 5 s, as with min_available 3 above: ten 429s
    // within 60 s. It used to read as min_available 1 and drain in 5.1 s.
    let dir = TempDir::new();
    let text = std::fs::read_to_string("scenarios/service/drain.toml")
        .unwrap()
        .replace("min_available = 2", "");
    let path = write(dir.path(), "neither.toml", &text);
    let out = podsim()
        .args(["run", "--format", "json", "--horizon", "60s"])
        .arg(&path)
        .assert()
        .success();
    let stderr = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    assert!(
        stderr.contains(
            "neither.toml:26:2: [pdb] sets neither min_available nor max_unavailable: the disruption \
             controller then allows no disruption"
        ),
        "{stderr}"
    );
    let doc: serde_json::Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    let m = &doc["metrics"];
    assert_eq!(
        (&m["drain_ms"], &m["evictions_refused"]),
        (&serde_json::Value::Null, &10.into())
    );
}

#[test]
fn a_budget_above_100_percent_is_refused_at_its_line() {
    // IsNotMoreThan100Percent (ValidatePodDisruptionBudgetSpec) on either field.
    let dir = TempDir::new();
    let text = std::fs::read_to_string("scenarios/service/drain.toml")
        .unwrap()
        .replace("min_available = 2 ", "max_unavailable = \"150%\"");
    let path = write(dir.path(), "over.toml", &text);
    podsim().arg("run").arg(&path).assert().code(1).stderr(format!(
        "podsim: error: {}:27:19: [pdb] max_unavailable = \"150%\" is above 100%; write \"100%\" at most \
         (the API refuses more)\n",
        path.display()
    ));
}
