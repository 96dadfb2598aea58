//! A graceful node shutdown's priority groups end to end (issue 40 item
//! 3): `pod_priority` from a manifest's `priorityClassName` or
//! `spec.priority`, from an annotation, and as a grid axis, and the
//! kubelet's by-priority list from TOML, an annotation and a grid axis, each read back
//! as the killed replica's termination, worked by hand.
//!
//! The manifest is the bundled `scenarios/service/rollout.yaml` with its
//! rollout annotation made `node_shutdown = 0` (defaults: 30 s, the last
//! 10 s for critical Pods) and nginx draining 25 s: node 0 of three holds
//! replica 0 alone; its 30 s grace is cut to its group's seconds, 20 s for
//! a regular Pod, 10 s for a critical one, and nginx, still draining, is
//! SIGKILLed then.

use super::common::{TempDir, podsim, run_json, sweep_csv, write};

/// `rollout.yaml` shut down as above, `spec` lines added to the Pod
/// template's spec and `annotations` to its annotations; the run's JSON
/// and its stderr.
fn shut_down(spec: &str, annotations: &str) -> (serde_json::Value, String) {
    let text = std::fs::read_to_string("scenarios/service/rollout.yaml")
        .unwrap()
        .replace(
            "podsim.dev/disruptions.0.rollout: \"RollingUpdate\"",
            &format!("podsim.dev/disruptions.0.node_shutdown: \"0\"{annotations}"),
        )
        .replace(
            "podsim.dev/nginx.drain: \"1s\"",
            "podsim.dev/nginx.drain: \"25s\"",
        )
        .replace(
            "terminationGracePeriodSeconds: 30",
            &format!("terminationGracePeriodSeconds: 30{spec}"),
        );
    run_json("edited.yaml", &text)
}

/// The killed replica and its termination (ms from the kill).
fn killed(doc: &serde_json::Value) -> (u64, u64) {
    let deleted = doc["deleted"].as_array().unwrap();
    assert_eq!(deleted.len(), 1, "{deleted:?}");
    let d = &deleted[0];
    // Killed by its kubelet, never deleted: the entry says so.
    assert_eq!(d["node_shutdown"], true, "{d}");
    (
        d["replica"].as_u64().unwrap(),
        d["termination_ms"].as_u64().unwrap(),
    )
}

#[test]
fn a_regular_pod_gets_the_regular_share_and_a_built_in_critical_class_the_critical_one() {
    // No class: priority 0, the regular group's 30 − 10 = 20 s.
    assert_eq!(killed(&shut_down("", "").0), (0, 20_000));
    // system-cluster-critical is 2000000000, system-node-critical 1000
    // more: both in the critical group, 10 s.
    for class in ["system-cluster-critical", "system-node-critical"] {
        let spec = format!("\n      priorityClassName: {class}");
        assert_eq!(killed(&shut_down(&spec, "").0), (0, 10_000), "{class}");
    }
    // spec.priority, as the admission plugin writes it, wins over a class.
    let spec = "\n      priorityClassName: system-node-critical\n      priority: 100";
    assert_eq!(killed(&shut_down(spec, "").0), (0, 20_000));
}

#[test]
fn a_class_of_the_clusters_own_is_taken_as_0_with_a_notice_and_the_annotation_sets_it() {
    let spec = "\n      priorityClassName: high-priority";
    let (doc, stderr) = shut_down(spec, "");
    assert_eq!(killed(&doc), (0, 20_000));
    assert!(
        stderr.contains("\"high-priority\" is a PriorityClass of the cluster's own")
            && stderr.contains("podsim.dev/service.pod_priority"),
        "{stderr}"
    );
    let annotation = "\n        podsim.dev/service.pod_priority: \"2000000000\"";
    let (doc, stderr) = shut_down(spec, annotation);
    assert_eq!(killed(&doc), (0, 10_000));
    assert!(!stderr.contains("high-priority"), "{stderr}");
}

#[test]
fn an_annotation_may_not_contradict_the_templates_class() {
    let text = std::fs::read_to_string("scenarios/service/rollout.yaml")
        .unwrap()
        .replace(
            "podsim.dev/disruptions.0.rollout: \"RollingUpdate\"",
            "podsim.dev/disruptions.0.node_shutdown: \"0\"\n        podsim.dev/service.pod_priority: \"0\"",
        )
        .replace(
            "terminationGracePeriodSeconds: 30",
            "terminationGracePeriodSeconds: 30\n      priorityClassName: system-cluster-critical",
        );
    let dir = TempDir::new();
    let path = write(dir.path(), "edited.yaml", &text);
    let out = podsim().args(["run"]).arg(&path).assert().failure();
    let stderr = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    assert!(
        stderr.contains("service.pod_priority contradicts the Pod template's spec.template.spec.priorityClassName: system-cluster-critical (2000000000)"),
        "{stderr}"
    );
}

#[test]
fn a_pod_priority_axis_gives_the_critical_replica_the_critical_share() {
    // scenarios/service/disruptions/node-shutdown.toml: node 0 (replica 0)
    // shuts down with 30 s, 10 s of it critical; web drains 25 s, its
    // grace is 30 s: SIGKILLed at 20 s as a regular Pod, 10 s as a
    // critical one.
    let dir = TempDir::new();
    let base = std::fs::read_to_string("scenarios/service/disruptions/node-shutdown.toml").unwrap();
    write(dir.path(), "base.toml", &base);
    let grid = write(
        dir.path(),
        "grid.toml",
        "base = 'base.toml'\n[axes]\n\"service.pod_priority\" = [0, 2000000000]\n",
    );
    let text = sweep_csv(&grid);
    let rows: Vec<Vec<&str>> = text.lines().map(|l| l.split(',').collect()).collect();
    let column = |name: &str| rows[0].iter().position(|&c| c == name).unwrap();
    let (priority, termination) = (column("service.pod_priority"), column("termination_ms"));
    let cells: Vec<(&str, &str)> = rows[1..].iter().map(|r| (r[priority], r[termination])).collect();
    assert_eq!(cells, [("0", "20000"), ("2000000000", "10000")]);
}

#[test]
fn a_toml_pod_priority_reaches_the_shutdown() {
    let base = std::fs::read_to_string("scenarios/service/disruptions/node-shutdown.toml").unwrap();
    let text = base.replace("replicas = 2\n", "replicas = 2\npod_priority = 2000001000\n");
    let (doc, _) = run_json("critical.toml", &text);
    assert_eq!(killed(&doc), (0, 10_000));
}

/// `node-shutdown.toml` with its two plain settings replaced by `with`
/// (lines of its `[[disruptions]]`), as `name`; its path's folder kept.
fn shutdown_toml(dir: &TempDir, name: &str, with: &str) -> std::path::PathBuf {
    let base = std::fs::read_to_string("scenarios/service/disruptions/node-shutdown.toml").unwrap();
    let text = base.replace(
        "shutdown_grace_period = \"30s\"\nshutdown_grace_period_critical_pods = \"10s\"\n",
        with,
    );
    assert_ne!(text, base);
    write(dir.path(), name, &text)
}

#[test]
fn a_by_priority_list_from_toml_puts_a_pod_below_its_lowest_group_there() {
    // Groups 100 up: 8 s, 1000 up: 12 s, 2000000000 up: 4 s; the replicas'
    // priority 0 is below them all, so the lowest group: web (draining
    // 25 s, grace 30 s) is SIGKILLed after 8 s.
    let dir = TempDir::new();
    let groups = "shutdown_grace_period_by_pod_priority = \"100:8s, 1000:12s, 2000000000:4s\"\n";
    let path = shutdown_toml(&dir, "three.toml", groups);
    let out = podsim()
        .args(["run", "--format", "json"])
        .arg(&path)
        .assert()
        .success();
    let doc: serde_json::Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    assert_eq!(killed(&doc), (0, 8000));
}

#[test]
fn a_by_priority_list_beside_a_plain_setting_or_misspelt_is_refused_at_its_line() {
    let dir = TempDir::new();
    // node-shutdown.toml's [[disruptions]] starts on line 19: after_ready,
    // node_shutdown, then the two lines written here, 22 and 23.
    let both = "shutdown_grace_period = \"30s\"\nshutdown_grace_period_by_pod_priority = \"0:20s\"\n";
    let path = shutdown_toml(&dir, "both.toml", both);
    let out = podsim().arg("run").arg(&path).assert().failure();
    let stderr = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    assert!(
        stderr.contains("both.toml:22:")
            && stderr
                .contains("shutdown_grace_period and shutdown_grace_period_by_pod_priority are both set"),
        "{stderr}"
    );
    let bad = "shutdown_grace_period_by_pod_priority = \"0=20s\"\n";
    let path = shutdown_toml(&dir, "bad.toml", bad);
    let out = podsim().arg("run").arg(&path).assert().failure();
    let stderr = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    assert!(
        stderr.contains("bad.toml:22:")
            && stderr.contains("shutdown_grace_period_by_pod_priority")
            && stderr.contains("such as \"0:20s, 2000000000:10s\"")
            && stderr.contains("\"0=20s\" has no ':'"),
        "{stderr}"
    );
}

#[test]
fn a_by_priority_list_from_an_annotation_and_as_a_grid_axis() {
    // The manifest's replica 0 (priority 0) in a one-group list of 7 s.
    let annotation = "\n        podsim.dev/disruptions.0.shutdown_grace_period_by_pod_priority: \"0:7s\"";
    assert_eq!(killed(&shut_down("", annotation).0), (0, 7000));
    // An axis of whole lists: 20 s, then 5 s for the one group.
    let dir = TempDir::new();
    shutdown_toml(&dir, "base.toml", "");
    let grid = write(
        dir.path(),
        "grid.toml",
        "base = 'base.toml'\n[axes]\n\"disruptions.0.shutdown_grace_period_by_pod_priority\" = [\"0:20s\", \"0:5s, 2000000000:1s\"]\n",
    );
    let text = sweep_csv(&grid);
    // The list's cell is quoted, its comma inside: one cell.
    assert!(text.contains("\"0:5s, 2000000000:1s\""), "{text}");
    let text = text.replace("\"0:5s, 2000000000:1s\"", "list");
    let rows: Vec<Vec<&str>> = text.lines().map(|l| l.split(',').collect()).collect();
    let termination = rows[0].iter().position(|&c| c == "termination_ms").unwrap();
    let cells: Vec<&str> = rows[1..].iter().map(|r| r[termination]).collect();
    assert_eq!(cells, ["20000", "5000"]);
}

#[test]
fn the_watch_shows_the_shut_down_pod_failed_at_its_sigkill_and_never_terminating_or_deleted() {
    // The bundled scenario: every replica Ready at 3.056 s, node 0 shut
    // down 10 s later (13.056 s) with 30 − 10 = 20 s for regular Pods; web
    // drains 25 s, so the SIGKILL at 33.056 s ends it (exit 137): Failed,
    // `0/1 Error` at AGE 33s (created at 0), then nothing more of it (the
    // object stays), and no `Terminating` (no deletion timestamp). Its
    // replacement is created only then: its ADDED line comes right after.
    let out = podsim()
        .args([
            "run",
            "--watch",
            "scenarios/service/disruptions/node-shutdown.toml",
        ])
        .assert()
        .success();
    let text = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
    assert!(!text.contains("Terminating"), "{text}");
    let rows: Vec<Vec<&str>> = text
        .lines()
        .skip(1)
        .map(|l| l.split_whitespace().collect())
        .collect();
    let error = rows.iter().position(|r| r[2] == "Error").expect("an Error row");
    let name = rows[error][0];
    assert_eq!(rows[error][1..], ["0/1", "Error", "0", "33s"], "{text}");
    assert!(rows[error + 1..].iter().all(|r| r[0] != name), "{text}");
    let next = &rows[error + 1];
    assert_ne!(next[0], name);
    assert_eq!(next[1..], ["0/1", "Pending", "0", "0s"], "{text}");
    assert_eq!(rows.iter().filter(|r| r[2] == "Pending").count(), 3, "{text}");
}
