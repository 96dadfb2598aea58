//! The picture of a Service run (`podsim run --svg` and the text chart),
//! checked against a run worked out by hand: one replica (so every new
//! connection goes to it and no draw decides anything) on two nodes,
//! propagation 300 ms, kube-proxy syncing at once, 10 requests/s at
//! constant gaps, 50 ms each, for 5 s.
//!
//! - web boots 0–1 s; both nodes hear of it and sync at 1.3 s: traffic
//!   starts then, the first request at 1.4 s, one every 100 ms, the last
//!   at 6.2 s (the 5 s end at 6.3 s sends nothing): 49 requests;
//! - `kubectl delete` at 1.3 + 2.02 = 3.32 s; the kubelet 100 ms later,
//!   3.42 s: SIGTERM, the listener closes (close-then-drain), the app exits
//!   after its 1 s drain, 4.42 s;
//! - the only endpoint stays in the rules while it serves (KEP-1669's
//!   fallback to serving terminating endpoints), so 3.5–4.7 s are
//!   refused (13); its exit empties the slice, heard and synced 300 ms
//!   later, 4.72 s, on both nodes (+1.4 s after the delete); 4.8–6.2 s
//!   find no endpoint (15); 1.4–3.4 s were answered (21).

use super::common::{TempDir, podsim, write};
use super::pictures::{attr_u64, bands, parse, texts, with_class};
use roxmltree::Node;

const HAND: &str = r#"
name = "one replica, worked by hand"
seed = 1

[service]
replicas = 1
nodes = 2
propagation = "300ms"
kubelet_delay = "100ms"
min_sync_period = "0s"

[traffic]
rate = 10
arrival = "constant"
connections = "new"
clients = 2
service_time = "50ms"
duration = "5s"

[app]
on_sigterm = "close-then-drain"

[[disruptions]]
after_ready = "2020ms"
delete = 0

[[containers]]
name = "web"
kind = "app"
boot = "1s"
drain = "1s"
"#;

/// 6,000 requests/s for 20 s to three replicas: far more than `MAX_MARKS`.
const BUSY: &str = r#"
name = "busy"
seed = 3

[service]
replicas = 3
nodes = 2
propagation = "500ms"
kubelet_delay = "100ms"
min_sync_period = "0s"

[traffic]
rate = 6000
arrival = "poisson"
connections = "new"
clients = 4
service_time = "20ms"
duration = "20s"

[[disruptions]]
after_ready = "5s"
delete = 0

[[containers]]
name = "web"
kind = "app"
boot = "1s"
drain = "1s"
"#;

/// The run's metrics as `--format json` prints them.
fn metrics(path: &std::path::Path) -> serde_json::Value {
    let out = podsim()
        .args(["run", "--format", "json"])
        .arg(path)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    doc["metrics"].clone()
}

/// The picture's seconds-to-pixels map, read off its axis labels `0` and `1`.
fn axis_x(doc: &roxmltree::Document) -> impl Fn(f64) -> f64 {
    let tick = |label: &str| -> f64 {
        doc.descendants()
            .find(|n| n.has_tag_name("text") && n.text() == Some(label))
            .and_then(|n| n.attribute("x"))
            .and_then(|x| x.parse().ok())
            .unwrap_or_else(|| panic!("no tick {label}"))
    };
    let (zero, one) = (tick("0"), tick("1"));
    move |secs| zero + secs * (one - zero)
}

fn near(a: f64, b: f64) -> bool {
    (a - b).abs() < 0.02
}

/// Per outcome, how many requests the strip shows: its marks, or the
/// counts of its per-column bins.
fn strip_counts(root: Node) -> std::collections::BTreeMap<String, u64> {
    let mut counts = std::collections::BTreeMap::new();
    for mark in with_class(root, "request") {
        *counts
            .entry(mark.attribute("data-outcome").unwrap().to_string())
            .or_default() += 1;
    }
    for bin in with_class(root, "request-bin") {
        *counts
            .entry(bin.attribute("data-outcome").unwrap().to_string())
            .or_default() += attr_u64(&bin, "data-count");
    }
    counts
}

#[test]
fn the_race_picture_of_a_run_worked_by_hand() {
    let dir = TempDir::new();
    let scenario = write(dir.path(), "hand.toml", HAND);
    let out = dir.path().join("race.svg");
    podsim()
        .arg("run")
        .arg(&scenario)
        .arg("--svg")
        .arg(&out)
        .assert()
        .success();
    let text = std::fs::read_to_string(&out).unwrap();
    let doc = parse(&text);
    let x = axis_x(&doc);

    // The replica's block, drawn as a Pod's: booting, running until SIGTERM, draining until its exit.
    let blocks = with_class(doc.root(), "scenario");
    let names: Vec<&str> = blocks.iter().map(|b| b.attribute("data-name").unwrap()).collect();
    assert_eq!(names, ["replica 0 (deleted at 3.320s)"]);
    assert_eq!(
        bands(blocks[0]),
        [
            ("booting", 0, 1000),
            ("running", 1000, 3420),
            ("draining", 3420, 4420)
        ]
    );

    // kubectl delete, across the node rows and the strip.
    let delete = with_class(doc.root(), "service-line");
    assert_eq!(delete.len(), 1);
    assert_eq!(attr_u64(&delete[0], "data-at"), 3320);
    let line = delete[0].children().find(|c| c.has_tag_name("line")).unwrap();
    let x1: f64 = line.attribute("x1").unwrap().parse().unwrap();
    assert!(near(x1, x(3.32)), "delete at x {x1}, want {}", x(3.32));

    // Each node: still routed 3.32–4.72 s, its rules dropping the Pod at 4.72 s.
    let nodes = with_class(doc.root(), "node");
    assert_eq!(nodes.len(), 2);
    for node in &nodes {
        let routed = with_class(*node, "still-routed");
        assert_eq!(routed.len(), 1);
        assert_eq!(
            (attr_u64(&routed[0], "data-from"), attr_u64(&routed[0], "data-to")),
            (3320, 4720)
        );
        let drop = with_class(*node, "rule-drop");
        assert_eq!(drop.len(), 1);
        assert_eq!(attr_u64(&drop[0], "data-at"), 4720);
        let d = drop[0].attribute("d").unwrap();
        let drop_x: f64 = d[1..d.find(' ').unwrap()].parse().unwrap();
        assert!(near(drop_x, x(4.72)), "rule drop at x {drop_x}, want {}", x(4.72));
    }

    // The strip: one mark per request, lanes for the outcomes that happened.
    let strip = with_class(doc.root(), "requests");
    assert_eq!(strip[0].attribute("data-binned"), Some("false"));
    let lanes: Vec<&str> = with_class(strip[0], "lane")
        .iter()
        .map(|l| l.attribute("data-outcome").unwrap())
        .collect();
    assert_eq!(lanes, ["answered", "refused", "no_endpoints"]);
    let at = |outcome: &str| -> Vec<u64> {
        with_class(strip[0], "request")
            .iter()
            .filter(|m| m.attribute("data-outcome") == Some(outcome))
            .map(|m| attr_u64(m, "data-at"))
            .collect()
    };
    let every = |from: u64, to: u64| (from..=to).step_by(100).collect::<Vec<u64>>();
    assert_eq!(at("answered"), every(1400, 3400));
    assert_eq!(at("refused"), every(3500, 4700));
    assert_eq!(at("no_endpoints"), every(4800, 6200));
    let first_refused = with_class(strip[0], "request")
        .into_iter()
        .find(|m| m.attribute("data-outcome") == Some("refused"))
        .unwrap();
    let mark_x: f64 = first_refused.attribute("x").unwrap().parse().unwrap();
    assert!(
        near(mark_x + 1.5, x(3.5)),
        "first refused at x {}, want {}",
        mark_x + 1.5,
        x(3.5)
    );

    // The marks count what the metrics count.
    let m = metrics(&scenario);
    let counts = strip_counts(doc.root());
    assert_eq!(
        (m["requests"].as_u64(), m["failed"].as_u64()),
        (Some(49), Some(28))
    );
    assert_eq!(counts["refused"], m["failed_refused"].as_u64().unwrap());
    assert_eq!(counts["no_endpoints"], m["failed_no_endpoints"].as_u64().unwrap());
    assert_eq!(counts["answered"], 49 - 28);
    let labels = texts(doc.root());
    for label in [
        "node 0",
        "node 1",
        "answered",
        "failed: refused",
        "kubectl delete",
        "still routed",
    ] {
        assert!(labels.iter().any(|l| l == label), "no label {label:?}");
    }
}

#[test]
fn the_text_draws_the_race_in_cells() {
    let dir = TempDir::new();
    let scenario = write(dir.path(), "hand.toml", HAND);
    let out = podsim()
        .arg("run")
        .arg(&scenario)
        .args(["--width", "63"])
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    let row = |label: &str| -> String {
        let line = text
            .lines()
            .find(|l| l.starts_with(label))
            .unwrap_or_else(|| panic!("no row {label:?} in\n{text}"));
        line[line.find('|').unwrap() + 1..line.rfind('|').unwrap()].to_string()
    };
    // The run ends at 6.3 s (the arrival that finds the traffic over): 63
    // cells of 100 ms, exactly the width asked for. Each cell shows the
    // state at its middle (50 ms in): booting to 1 s, cells 0–9; running
    // to the SIGTERM at 3.42 s (deleted at 3.32 s, the kubelet 100 ms
    // later), cells 10–33; draining 1 s to 4.42 s, cells 34–43.
    assert!(text.contains("(one cell = 100ms)"), "{text}");
    assert_eq!(
        row("replica 0 web (app)"),
        format!(
            "{}{}{}{}",
            "░".repeat(10),
            "█".repeat(24),
            "▒".repeat(10),
            " ".repeat(19)
        )
    );
    // Still routed 3.32–4.72 s: cells 33 (3.3–3.4 s) to 47 (4.7–4.8 s).
    let routed = format!("{}{}{}", " ".repeat(33), "=".repeat(15), " ".repeat(15));
    assert_eq!(row("node 0 rules"), routed);
    assert_eq!(row("node 1 rules"), routed);
    // Refused 3.5–4.7 s: cells 35–47; no endpoints 4.8–6.2 s: cells 48–62.
    assert_eq!(
        row("requests failed"),
        format!("{}{}{}", " ".repeat(35), "r".repeat(13), "n".repeat(15))
    );
    // Answered 1.4–3.4 s: cells 14–34.
    assert_eq!(
        row("requests answered"),
        format!("{}{}{}", " ".repeat(14), "·".repeat(21), " ".repeat(28))
    );
}

#[test]
fn a_busy_run_is_counted_per_pixel_column_and_stays_small() {
    let dir = TempDir::new();
    let scenario = write(dir.path(), "busy.toml", BUSY);
    let out = dir.path().join("busy.svg");
    podsim()
        .arg("run")
        .arg(&scenario)
        .arg("--svg")
        .arg(&out)
        .assert()
        .success();
    let text = std::fs::read_to_string(&out).unwrap();
    assert!(text.len() < 1_000_000, "{} bytes", text.len());
    let doc = parse(&text);
    let strip = with_class(doc.root(), "requests");
    assert_eq!(strip[0].attribute("data-binned"), Some("true"));
    assert!(with_class(doc.root(), "request").is_empty());
    let m = metrics(&scenario);
    let requests = m["requests"].as_u64().unwrap();
    assert!(requests > 100_000, "{requests} requests");
    let counts = strip_counts(doc.root());
    assert_eq!(counts["refused"], m["failed_refused"].as_u64().unwrap());
    assert!(counts["refused"] > 0, "the race failed nothing: {m}");
    assert_eq!(counts.values().sum::<u64>(), requests);
    assert_eq!(counts["answered"], requests - m["failed"].as_u64().unwrap());
}

#[test]
fn one_picture_of_several_services_is_a_usage_error() {
    let dir = TempDir::new();
    let out = dir.path().join("two.svg");
    let two = podsim()
        .args([
            "run",
            "scenarios/service/no-prestop.toml",
            "scenarios/service/pre-stop-3s.toml",
            "--svg",
        ])
        .arg(&out)
        .output()
        .unwrap();
    assert_eq!(two.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&two.stderr).contains(
        "--svg draws Pod scenarios together or one Service scenario alone, and \
         scenarios/service/no-prestop.toml is a Service scenario among 2 runs"
    ));
    assert!(!out.exists());
}

#[test]
fn the_report_of_a_service_shows_its_race_not_its_pod_template_alone() {
    let dir = TempDir::new();
    let scenario = write(dir.path(), "hand.toml", HAND);
    let out = dir.path().join("report.html");
    podsim()
        .arg("report")
        .arg(&scenario)
        .arg("--out")
        .arg(&out)
        .assert()
        .success()
        .stdout(predicates::str::contains("1 scenario(s)"));
    let text = std::fs::read_to_string(&out).unwrap();
    let doc = parse(&text);
    let by_id = |id: &str| {
        doc.descendants()
            .find(|n| n.attribute("id") == Some(id))
            .unwrap_or_else(|| panic!("no #{id}"))
    };
    // The race's picture, with the requests as the hand-worked run has them.
    let figure = by_id("service-0");
    let counts = strip_counts(figure);
    assert_eq!(counts.get("answered"), Some(&21), "{counts:?}");
    assert_eq!(counts.values().sum::<u64>(), 49, "{counts:?}");
    // The metrics table: 49 requests, 28 failed (13 refused + 15 no endpoint).
    let table = by_id("service-metrics");
    let row = |name: &str| -> Vec<String> {
        table
            .children()
            .find(|tr| tr.children().next().and_then(|td| td.text()) == Some(name))
            .unwrap_or_else(|| panic!("no row {name}"))
            .children()
            .filter_map(|td| td.text().map(str::to_string))
            .collect()
    };
    assert_eq!(row("requests"), ["requests", "49"]);
    assert_eq!(row("failed"), ["failed", "28"]);
    assert_eq!(row("failed_refused"), ["failed_refused", "13"]);
    assert_eq!(row("failed_no_endpoints"), ["failed_no_endpoints", "15"]);
    // No Pod section: the template alone, never deleted and with no traffic,
    // would tell another story.
    assert!(doc.descendants().all(|n| n.attribute("id") != Some("timelines")));
    assert_eq!(metrics(&scenario)["failed"], 28);
}

#[test]
fn a_client_s_retries_are_counted_in_the_json_the_text_and_the_picture() {
    // HAND with Envoy's client profile (still a new connection per
    // request): each failure is retried twice, 25 ms then 50 ms later.
    // Refused 3.5–4.6 s (12): both retries by 4.675 s, before the rules
    // empty at 4.72 s: refused three times. Refused 4.7 s: retried at
    // 4.725 s (no endpoint) and 4.775 s (none): fails with no_endpoints.
    // No endpoint 4.8–6.2 s (15): twice more each. Retries: after refused
    // 12 · 2 + 1 = 25, after no_endpoints 1 + 15 · 2 = 31; none answered.
    let dir = TempDir::new();
    let envoy = HAND.replace("service_time", "client = \"envoy\"\nservice_time");
    let scenario = write(dir.path(), "envoy.toml", &envoy);
    let m = metrics(&scenario);
    let figure = |name: &str| m[name].as_u64().unwrap_or_else(|| panic!("{name} in {m}"));
    assert_eq!(
        ["retries", "retried_refused", "retried_no_endpoints", "retried_ok"].map(figure),
        [56, 25, 31, 0]
    );
    assert_eq!(["failed_refused", "failed_no_endpoints"].map(figure), [12, 16]);
    let out = podsim().arg("run").arg(&scenario).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("retries 56 (after refused 25, no_endpoints 31)\n"),
        "{text}"
    );
    let svg = dir.path().join("envoy.svg");
    podsim()
        .arg("run")
        .arg(&scenario)
        .arg("--svg")
        .arg(&svg)
        .assert()
        .success();
    let picture = std::fs::read_to_string(&svg).unwrap();
    assert!(
        picture.contains("28 failed, 56 retries, 0 answered by a retry"),
        "{picture}"
    );
    // The ideal client's run says nothing of retries.
    let plain = metrics(&write(dir.path(), "hand.toml", HAND));
    assert!(plain.get("retries").is_none(), "{plain}");
}
