//! A drain end to end: the bundled scenario through `podsim run`, and the
//! same with a budget of every replica, with a budget of neither field and
//! with one above 100%, worked by hand.
//!
//! `scenarios/service/drain.toml`: three replicas on three nodes, Ready
//! in every node's rules at 3.196 s (seed 1); node 0 drained 10 s later,
//! T0 = 13.196 s, under min_available 2. Replica 0 is evicted at once (3
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
    // 13.196, 18.196, …, 58.196 s, ten 429s; the drain never ends.
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

/// Four replicas under min_available 3: node 0 holds replicas 0 and 3
/// (replica r on node r mod 3). At T0 = 13.196 s replica 0 is evicted (4
/// healthy, one disruption allowed) and replica 3's eviction refused (3
/// healthy, none allowed); its retry 5 s later, 18.196 s, finds the
/// replacement of 0 Ready (made at T0, boot 2 s) and is allowed. The node
/// is empty 5.1 s after that: drain_ms 10.1 s. Two replacements: six Pods.
fn four_replicas(dir: &std::path::Path) -> std::path::PathBuf {
    let text = std::fs::read_to_string("scenarios/service/drain.toml")
        .unwrap()
        .replace("replicas = 3", "replicas = 4")
        .replace("min_available = 2", "min_available = 3");
    write(dir, "drain4.toml", &text)
}

#[test]
fn the_drain_picture_shows_each_refused_eviction_and_counts_the_deployments_replicas() {
    let dir = TempDir::new();
    let path = four_replicas(dir.path());
    let m = metrics(&[path.to_str().unwrap()]);
    assert_eq!(
        (&m["drain_ms"], &m["evictions_refused"]),
        (&10_100.into(), &1.into())
    );
    let svg = dir.path().join("drain.svg");
    podsim()
        .arg("run")
        .arg(&path)
        .arg("--svg")
        .arg(&svg)
        .assert()
        .success();
    let text = std::fs::read_to_string(&svg).unwrap();
    let doc = roxmltree::Document::parse(&text).unwrap();
    let with_class = |class: &str| -> Vec<roxmltree::Node> {
        doc.descendants()
            .filter(|n| n.attribute("class") == Some(class))
            .collect()
    };
    let refused = with_class("refused");
    assert_eq!(refused.len(), 1);
    assert_eq!(
        (
            refused[0].attribute("data-at"),
            refused[0].attribute("data-replica")
        ),
        (Some("13196"), Some("3"))
    );
    let lane = with_class("evictions-refused");
    assert_eq!(lane[0].attribute("data-count"), Some("1"));
    let marks: Vec<(&str, &str)> = with_class("rollout-mark")
        .iter()
        .map(|n| (n.attribute("data-kind").unwrap(), n.attribute("data-at").unwrap()))
        .collect();
    assert_eq!(marks, [("drain-start", "13196"), ("drain-done", "23296")]);
    let said = |class: &str| with_class(class)[0].text().unwrap().to_string();
    // 4 replicas, not the 6 Pod objects there were.
    assert!(
        said("summary").starts_with("4 replicas (6 Pods) on 3 nodes · "),
        "{}",
        said("summary")
    );
    let texts: Vec<&str> = doc.descendants().filter_map(|n| n.text()).collect();
    assert!(
        texts.contains(&"node empty after 10.100s · 1 eviction refused (HTTP 429) · below the budget 0 ms"),
        "{texts:?}"
    );
    assert!(texts.contains(&"evictions refused 1"));
}

#[test]
fn the_report_lists_a_drains_figures_with_the_services() {
    let dir = TempDir::new();
    let path = four_replicas(dir.path());
    let html = dir.path().join("r.html");
    podsim()
        .args(["report", "scenarios/service/no-prestop.toml"])
        .arg(&path)
        .arg("--out")
        .arg(&html)
        .assert()
        .success();
    let page = std::fs::read_to_string(&html).unwrap();
    // A row per figure, a column per run: the Service without a drain has none.
    for row in [
        "<tr><td class=\"text\">evictions_refused</td><td>-</td><td>1</td></tr>",
        "<tr><td class=\"text\">drain_ms</td><td>-</td><td>10.100s</td></tr>",
        "<tr><td class=\"text\">below_min_available_ms</td><td>-</td><td>0.000s</td></tr>",
    ] {
        assert!(page.contains(row), "{row}");
    }
}
