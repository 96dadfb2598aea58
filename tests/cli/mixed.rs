//! `podsim run` with Pod and Service scenarios in one call, and the flags a
//! Pod run has (`--seed`, `--replication`, `--replications`) on a Service.
//!
//! The seed Pod as a native sidecar is Ready at 6 s (the seed chapter's
//! figure); `scenarios/service/no-prestop.toml` is seed 1. A Service's
//! figures in a mixed call must be those it has alone, and a flag must
//! act as the same setting written into the scenario would.

use super::common::{TempDir, podsim, write};

const POD: &str = "scenarios/seed-sidecar.toml";
const SERVICE: &str = "scenarios/service/no-prestop.toml";

/// Each line of `--format json` for `args`, parsed.
fn documents(args: &[&str]) -> Vec<serde_json::Value> {
    let out = podsim()
        .args(["run", "--format", "json"])
        .args(args)
        .assert()
        .success();
    String::from_utf8(out.get_output().stdout.clone())
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).expect("each line one JSON document"))
        .collect()
}

#[test]
fn a_pod_and_a_service_run_in_one_call_in_the_order_given() {
    let out = podsim().args(["run", SERVICE, POD]).assert().success();
    let text = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    let headers: Vec<&str> = text.lines().filter(|l| l.starts_with("== ")).collect();
    assert_eq!(
        headers,
        [
            "== delete one of three, no preStop (scenarios/service/no-prestop.toml)",
            "== proxy as a native sidecar (scenarios/seed-sidecar.toml)",
        ]
    );
    // One Pod run: no side-by-side table of Pod metrics.
    assert!(!text.contains("== side by side"));

    let both = documents(&[POD, SERVICE]);
    let alone = documents(&[SERVICE]);
    assert_eq!(both.len(), 2);
    assert_eq!(both[0]["metrics"]["ready_ms"], 6000);
    assert_eq!(both[1], alone[0], "a Service's document is the one it has alone");
}

#[test]
fn a_service_document_is_one_line_with_the_header_of_a_pod_run() {
    let out = podsim()
        .args(["run", "--format", "json", SERVICE])
        .assert()
        .success();
    let stdout = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    assert_eq!(stdout.lines().count(), 1, "JSON Lines: {stdout:.200}");
    let doc: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    let keys: Vec<&str> = doc.as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(
        &keys[..5],
        ["name", "source", "kind", "notices", "metrics"],
        "{keys:?}"
    );
    assert_eq!(doc["source"], SERVICE);
    assert_eq!(doc["kind"], serde_json::Value::Null);
    assert_eq!(doc["replicas"].as_array().map(Vec::len), Some(3));
}

#[test]
fn svg_refuses_a_service_among_other_runs_and_writes_nothing() {
    let dir = TempDir::new();
    let svg = dir.path().join("race.svg");
    let out = podsim()
        .args(["run", POD, SERVICE, "--svg"])
        .arg(&svg)
        .assert()
        .code(2);
    let stderr = String::from_utf8(out.get_output().stderr.clone()).unwrap();
    assert!(
        stderr.contains("scenarios/service/no-prestop.toml is a Service scenario among 2 runs"),
        "{stderr}"
    );
    assert!(!svg.exists());
}

#[test]
fn seed_and_replication_act_on_a_service_as_its_own_settings_do() {
    let text = std::fs::read_to_string(SERVICE).unwrap();
    assert!(text.contains("\nseed = 1\n"));
    let dir = TempDir::new();
    let seven = write(
        dir.path(),
        "seven.toml",
        &text.replace("\nseed = 1\n", "\nseed = 7\n"),
    );
    let seven = seven.to_str().unwrap();

    let by_flag = &documents(&[SERVICE, "--seed", "7"])[0];
    let by_file = &documents(&[seven])[0];
    assert_eq!(by_flag["metrics"], by_file["metrics"]);
    let seed_1 = &documents(&[SERVICE])[0];
    assert_ne!(
        by_flag["metrics"], seed_1["metrics"],
        "seed 7 draws other durations"
    );

    // Replication 1 is another draw of the same seed.
    let second = &documents(&[SERVICE, "--replication", "1"])[0];
    assert_ne!(second["metrics"], seed_1["metrics"]);
}

#[test]
fn replications_give_a_service_the_distribution_of_its_runs() {
    let failed: Vec<u64> = (0..3)
        .map(|r| {
            let doc = &documents(&[SERVICE, "--replication", &r.to_string()])[0];
            doc["metrics"]["failed"].as_u64().unwrap()
        })
        .collect();
    let doc = &documents(&[SERVICE, "--replications", "3"])[0];
    let d = &doc["distribution"];
    assert_eq!(d["replications"], 3);
    assert_eq!(d["seed"], 1);
    let mean = failed.iter().sum::<u64>() as f64 / 3.0;
    assert!(
        (d["failed"]["mean"].as_f64().unwrap() - mean).abs() < 1e-9,
        "{d} vs {failed:?}"
    );
    assert_eq!(
        d["failed"]["min"].as_f64(),
        failed.iter().min().map(|&m| m as f64)
    );
    assert_eq!(
        d["failed"]["max"].as_f64(),
        failed.iter().max().map(|&m| m as f64)
    );
    let share = failed.iter().filter(|&&f| f > 0).count() as f64 / 3.0;
    assert_eq!(d["p_failed"].as_f64(), Some(share));
}

#[test]
fn a_service_no_client_calls_gets_a_notice() {
    let text = std::fs::read_to_string(SERVICE).unwrap();
    let start = text.find("[traffic]").unwrap();
    let end = text.find("[app]").unwrap();
    let quiet = format!("{}{}", &text[..start], &text[end..]);
    let dir = TempDir::new();
    let path = write(dir.path(), "quiet.toml", &quiet);
    let out = podsim().arg("run").arg(&path).assert().success();
    let stderr = String::from_utf8(out.get_output().stderr.clone()).unwrap();
    assert!(
        stderr.contains("no client sends the Service requests, so none can fail; add [traffic] rate = 50"),
        "{stderr}"
    );
    let stdout = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    assert!(stdout.contains("requests 0, failed 0"), "{stdout}");
    // The bundled scenario, which has traffic, gets none.
    let out = podsim().args(["run", SERVICE]).assert().success();
    assert!(out.get_output().stderr.is_empty());
}
