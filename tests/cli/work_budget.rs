//! A big number never takes podsim down (issue 37): a Service whose
//! traffic would send more requests than a run can hold is refused before
//! it starts, at the key that lowers it, by `podsim run` and by a grid's
//! axis; never an allocation failure. So is a Service whose replicas × nodes
//! would hold more memory than the budget.

use std::fs;
use std::path::{Path, PathBuf};

use super::common::{TempDir, podsim, write};

/// The endpoint-race scenario at `rate`, each request simulated (the
/// budget is the per-request model's: counted, any rate is cheap), written
/// as `name`.
fn at_rate(dir: &Path, name: &str, rate: &str) -> PathBuf {
    let base =
        fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/service/no-prestop.toml"))
            .unwrap()
            .replace("rate = 50 ", &format!("rate = {rate} "))
            .replace(
                "arrival = \"poisson\"\n",
                "arrival = \"poisson\"\nmodel = \"per-request\"\n",
            );
    assert!(base.contains("model = \"per-request\""));
    assert!(base.contains(&format!("rate = {rate} ")));
    write(dir, name, &base)
}

#[test]
fn a_rate_of_a_billion_is_refused_at_the_key_with_the_estimate() {
    let dir = TempDir::new();
    let file = at_rate(dir.path(), "huge.toml", "1e9");
    let output = podsim().arg("run").arg(&file).output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    // 1e9 a second for at least the 10 s tail: 10^10 requests.
    for part in [
        "huge.toml:15:8: traffic.rate would send about 10,000,000,000 requests in one run",
        "budget of 2,000,000,000",
        "lower traffic.rate, or set a short traffic.duration",
    ] {
        assert!(stderr.contains(part), "{part:?} in {stderr}");
    }
    assert!(!stderr.contains("memory allocation"), "{stderr}");
    assert!(output.stdout.is_empty());
}

#[test]
fn a_rate_whose_requests_in_flight_fill_memory_is_refused() {
    let dir = TempDir::new();
    // 10^8 a second for 1 s fits the requests' budget, but each waits the
    // 20 ms service_time: 2·10⁶ in flight at once.
    let file = at_rate(dir.path(), "busy.toml", "1e8\nduration = \"1s\"");
    let output = podsim().arg("run").arg(&file).output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("about 2,000,000 requests in flight at once")
            && stderr.contains("lower traffic.rate or traffic.service_time"),
        "{stderr}"
    );
}

#[test]
fn a_grid_axis_past_the_budget_is_refused_before_any_row() {
    let dir = TempDir::new();
    at_rate(dir.path(), "base.toml", "50");
    sweep_refuses(
        dir.path(),
        "\"traffic.rate\" = [50, 1000000000]",
        "about 10,000,000,000 requests in one run",
    );
}

/// A grid over `base.toml` in `dir` with the one axis `axis` is refused at
/// the axis's line, naming `expected`, before any row is written.
fn sweep_refuses(dir: &Path, axis: &str, expected: &str) {
    let grid = write(
        dir,
        "grid.toml",
        &format!("base = \"base.toml\"\n[axes]\n{axis}\n"),
    );
    let out = dir.join("out.csv");
    let output = podsim()
        .args(["sweep", "--grid"])
        .arg(&grid)
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("grid.toml:3:") && stderr.contains(expected),
        "{stderr}"
    );
    assert!(!out.exists());
}

/// The endpoint-race scenario with `replicas` on `nodes`, written as `name`.
fn sized(dir: &Path, name: &str, replicas: u32, nodes: u32) -> PathBuf {
    let base = at_rate(dir, name, "50");
    let text = fs::read_to_string(&base)
        .unwrap()
        .replace("replicas = 3\n", &format!("replicas = {replicas}\n"))
        .replace("nodes = 3\n", &format!("nodes = {nodes}\n"));
    assert!(text.contains(&format!("nodes = {nodes}\n")));
    write(dir, name, &text)
}

#[test]
fn kubernetes_most_pods_on_its_most_nodes_are_refused_at_the_replicas_with_the_estimate() {
    let dir = TempDir::new();
    // 150,000 Pods and 5,000 nodes pass Kubernetes' limits, but every
    // node's rules list every replica: 7.5·10⁸ × 50 B + 150,000 × 2.6 KB.
    let file = sized(dir.path(), "big.toml", 150_000, 5_000);
    let output = podsim().arg("run").arg(&file).output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    for part in [
        "big.toml:8:12: service.replicas × service.nodes (150,000 × 5,000) would hold about 37.9 GB in one run",
        "over podsim's memory budget of 4.0 GB; lower service.replicas or service.nodes",
    ] {
        assert!(stderr.contains(part), "{part:?} in {stderr}");
    }
    assert!(output.stdout.is_empty());
}

#[test]
fn a_grid_axis_of_nodes_past_the_memory_budget_is_refused_before_any_row() {
    let dir = TempDir::new();
    sized(dir.path(), "base.toml", 150_000, 3);
    // 150,000 replicas fit on 100 nodes (1.1 GB), not on 1,000 (7.9 GB).
    sweep_refuses(
        dir.path(),
        "\"service.nodes\" = [100, 1000]",
        "(150,000 × 1,000) would hold about 7.9 GB",
    );
}
