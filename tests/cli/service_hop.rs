//! The hop in `podsim run`'s views and in a grid (issue 39): its own view's
//! row under the nodes' kube-proxy rows, in the text chart and the picture,
//! at the instant worked by hand; and a sweep over its keys.

use super::common::{TempDir, podsim, write};
use super::pictures::{attr_u64, parse, with_class};

/// Three replicas behind ingress-nginx whose view follows the slice after
/// a fixed 2 s; replica 0 deleted 5 s after the traffic starts. With three
/// replicas the deleted Pod leaves the slice at once, so the hop's view
/// drops it 2 s after the deletion (kube-proxy's, propagation 0 and no
/// minimum sync period, at once).
const INGRESS: &str = r#"
name = "behind ingress-nginx"
seed = 1

[service]
replicas = 3
nodes = 1
propagation = "0s"
min_sync_period = "0s"

[traffic]
rate = 10
arrival = "constant"
duration = "20s"
connections = "new"

[hop]
preset = "ingress-nginx"
propagation = "2s"
tries = 1

[[disruptions]]
after_ready = "5s"
delete = 0

[[containers]]
name = "web"
kind = "app"
boot = "1s"
"#;

#[test]
fn the_hop_s_view_has_its_row_under_the_nodes_in_the_chart_and_the_picture() {
    let dir = TempDir::new();
    let scenario = write(dir.path(), "ingress.toml", INGRESS);
    let out = podsim()
        .args(["run", "--format", "json"])
        .arg(&scenario)
        .output()
        .unwrap();
    let m: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let deleted = &m["deleted"][0];
    assert_eq!(deleted["hop_dropped_ms"], 2000, "{m}");
    let deleted_ms = deleted["deleted_ms"].as_u64().unwrap();

    let out = podsim().arg("run").arg(&scenario).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    let labels: Vec<&str> = (text.lines())
        .filter_map(|l| l.split(" |").next())
        .map(str::trim_end)
        .filter(|l| l.ends_with("rules") || l.starts_with("hop view"))
        .collect();
    assert_eq!(labels, ["node 0 rules", "hop view"], "{text}");

    let svg = dir.path().join("ingress.svg");
    podsim()
        .arg("run")
        .arg(&scenario)
        .arg("--svg")
        .arg(&svg)
        .assert()
        .success();
    let picture = std::fs::read_to_string(&svg).unwrap();
    let doc = parse(&picture);
    let hop = with_class(doc.root(), "hop");
    assert_eq!(hop.len(), 1, "one hop row");
    let drops: Vec<u64> = (hop[0].descendants())
        .filter(|n| n.attribute("class") == Some("rule-drop"))
        .map(|n| attr_u64(&n, "data-at"))
        .collect();
    assert_eq!(drops, [deleted_ms + 2000]);
    // A run without a hop has no such row.
    let hop = "[hop]\npreset = \"ingress-nginx\"\npropagation = \"2s\"\ntries = 1\n";
    assert!(INGRESS.contains(hop));
    let plain = write(dir.path(), "plain.toml", &INGRESS.replace(hop, ""));
    let out = podsim().arg("run").arg(&plain).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("node 0 rules") && !text.contains("hop view"),
        "{text}"
    );
}

#[test]
fn a_grid_sweeps_the_hop_s_balance_draining_and_outlier_keys() {
    let dir = TempDir::new();
    write(dir.path(), "base.toml", INGRESS);
    let grid = write(
        dir.path(),
        "grid.toml",
        "base = \"base.toml\"\n\n[axes]\n\"hop.balance\" = [\"round-robin\", \"ewma\"]\n\
         \"hop.deregistration_delay\" = [\"0s\", \"10s\"]\n\"hop.connection_termination\" = [true, false]\n\
         \"hop.consecutive_5xx\" = [0, 5]\n\"hop.base_ejection_time\" = [\"30s\"]\n",
    );
    let csv = dir.path().join("out.csv");
    podsim()
        .args(["sweep", "--force", "--grid"])
        .arg(&grid)
        .arg("--out")
        .arg(&csv)
        .arg("--summary")
        .arg(dir.path().join("summary.csv"))
        .assert()
        .success();
    let text = std::fs::read_to_string(&csv).unwrap();
    let header = text.lines().next().unwrap();
    for key in [
        "hop.balance",
        "hop.deregistration_delay",
        "hop.connection_termination",
        "hop.consecutive_5xx",
    ] {
        assert!(header.contains(key), "{header}");
    }
    // 2 × 2 × 2 × 2 × 1 points, one run each.
    assert_eq!(text.lines().count(), 1 + 16, "{text}");
}
