//! The picture's node rows read back (issue 40): each node's own state
//! strip (`rect.node-state`, in its row's `g.node`) and the legend's line
//! of the states shown, for a graceful node shutdown and a
//! cluster-autoscaler scale-down, worked by hand from each scenario's
//! comment and the instant its traffic starts (`ready_ms`, the JSON's).

use super::common::{TempDir, podsim};
use super::pictures::{attr_u64, parse, texts, with_class};

/// The run's `ready_ms` and its picture's text.
fn run(scenario: &str) -> (u64, String) {
    let out = podsim()
        .args(["run", "--format", "json", scenario])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let ready = doc["metrics"]["ready_ms"].as_u64().unwrap();
    let dir = TempDir::new();
    let svg = dir.path().join("run.svg");
    podsim()
        .args(["run", scenario, "--svg"])
        .arg(&svg)
        .assert()
        .success();
    (ready, std::fs::read_to_string(&svg).unwrap())
}

/// Each state stretch as (node, state, from ms, to ms).
fn stretches(svg: &str) -> Vec<(u64, String, u64, u64)> {
    let doc = parse(svg);
    let mut out = Vec::new();
    for row in with_class(doc.root(), "node") {
        for r in with_class(row, "node-state") {
            let state = r.attribute("data-state").unwrap().to_string();
            let stretch = (attr_u64(&r, "data-from"), attr_u64(&r, "data-to"));
            out.push((attr_u64(&row, "data-node"), state, stretch.0, stretch.1));
        }
    }
    out
}

#[test]
fn a_node_shutting_down_shows_in_its_row_and_the_legend() {
    // node-shutdown.toml: node 0 shuts down 10 s after traffic starts and
    // stays so to the picture's end; node 1 stays Ready (no strip).
    let (ready, svg) = run("scenarios/service/disruptions/node-shutdown.toml");
    let s = stretches(&svg);
    assert_eq!(s.len(), 1, "{s:?}");
    assert_eq!(
        (s[0].0, s[0].1.as_str(), s[0].2),
        (0, "shutting down", ready + 10_000)
    );
    let doc = parse(&svg);
    let legend: Vec<String> = (with_class(doc.root(), "legend").into_iter())
        .flat_map(texts)
        .collect();
    assert!(legend.iter().any(|t| t == "node shutting down"), "{legend:?}");
}

#[test]
fn a_node_the_autoscaler_removes_shows_scaling_down_then_deleted() {
    // autoscaler-scale-down.toml: node 0 tainted 10 s after traffic
    // starts (T + 10 s); its second Pod's eviction passes at the 10 s
    // retry (T + 20 s), the Pod exits 3.1 s later and its object goes 2
    // s after (T + 25.1 s); the 5 s looks from T + 20 s find it gone at
    // T + 30 s, which deletes the node.
    let (ready, svg) = run("scenarios/service/disruptions/autoscaler-scale-down.toml");
    let s = stretches(&svg);
    let got: Vec<(u64, &str, u64)> = s.iter().map(|x| (x.0, x.1.as_str(), x.2)).collect();
    assert_eq!(
        got,
        [
            (0, "scaling down", ready + 10_000),
            (0, "deleted", ready + 30_000)
        ]
    );
    assert_eq!(s[0].3, ready + 30_000);
    let doc = parse(&svg);
    let legend: Vec<String> = (with_class(doc.root(), "legend").into_iter())
        .flat_map(texts)
        .collect();
    for word in ["node scaling down", "node deleted"] {
        assert!(legend.iter().any(|t| t == word), "{word}: {legend:?}");
    }
}
