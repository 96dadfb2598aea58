//! The rollout's pictures and `kubectl get pods -w`, for the bundled
//! rolling update (`scenarios/service/rollout.toml`), worked by hand.
//!
//! Three replicas boot in 2 s; traffic starts when every node's rules list
//! them, 3.196 s (node 2 syncs at 2.046 and 2.196 s, its burst of two,
//! and hears of the third Ready with less than a token: the runner retries
//! `min_sync_period` after its last sync's end, 2.196 + 1 s); the rollout
//! 10 s later, 13.196 s. Surge 1, unavailable
//! 0, the new template boots in 3 s: new Pod 3 is created at 13.196 s and
//! Ready at 16.196 s, which lets the controller delete old Pod 0 and create
//! new Pod 4 in that millisecond; Pod 4 Ready at 19.196 s (Pod 1 deleted,
//! Pod 5 created), Pod 5 Ready at 22.196 s (Pod 2 deleted): the new
//! ReplicaSet is available then, +9 s. An old Pod's kubelet hears of the
//! deletion 100 ms later, its app drains 1 s, its object goes 1 s after
//! that: Pod 0 gone at 18.296 s, Pod 1 at 21.296 s, Pod 2 at 24.296 s
//! (+11.1 s). So: 4 Pods from 13.196 s, 5 while an old one terminates
//! beside a new one starting (16.196–18.296, 19.196–21.296), 4 counted at
//! most (terminating ones are not), never fewer than 3 Ready.

use super::common::{TempDir, podsim};
use super::pictures::{attr_u64, parse, with_class};
use roxmltree::Node;

const SCENARIO: &str = "scenarios/service/rollout.toml";

/// The picture `run --svg` draws of the bundled rollout.
fn picture() -> String {
    let dir = TempDir::new();
    let path = dir.path().join("rollout.svg");
    podsim()
        .args(["run", SCENARIO, "--svg"])
        .arg(&path)
        .assert()
        .success();
    std::fs::read_to_string(&path).unwrap()
}

/// The x of `secs` on the time axis, read off its tick labels `0` and `5`.
fn time_x(root: Node) -> impl Fn(f64) -> f64 {
    let tick = |label: &str| -> f64 {
        root.descendants()
            .find(|n| {
                n.has_tag_name("text")
                    && n.attribute("text-anchor") == Some("middle")
                    && n.text() == Some(label)
            })
            .and_then(|n| n.attribute("x")?.parse().ok())
            .unwrap_or_else(|| panic!("no time tick {label}"))
    };
    let (zero, five) = (tick("0"), tick("5"));
    move |secs| zero + secs * (five - zero) / 5.0
}

/// The y of `pods` on the stack's axis, read off its tick labels (their
/// baseline sits 4 px under the grid line).
fn pods_y(root: Node) -> impl Fn(f64) -> f64 {
    let tick = |label: &str| -> f64 {
        with_class(root, "pods-tick")
            .into_iter()
            .find(|n| n.text() == Some(label))
            .and_then(|n| n.attribute("y")?.parse::<f64>().ok())
            .unwrap_or_else(|| panic!("no pods tick {label}"))
            - 4.0
    };
    let (zero, one) = (tick("0"), tick("1"));
    move |pods| zero + pods * (one - zero)
}

#[test]
fn the_stack_never_counts_more_than_replicas_plus_surge() {
    let svg = picture();
    let doc = parse(&svg);
    let rects = with_class(doc.root(), "pods");
    assert!(!rects.is_empty());
    // Per step (its `data-from`), Pods by state, both ReplicaSets together.
    let mut steps: std::collections::BTreeMap<u64, [u64; 4]> = Default::default();
    for r in &rects {
        let state = ["ready", "starting", "not ready", "terminating"]
            .iter()
            .position(|s| r.attribute("data-state") == Some(s))
            .unwrap();
        steps.entry(attr_u64(r, "data-from")).or_default()[state] += attr_u64(r, "data-count");
    }
    let total = |s: &[u64; 4]| s.iter().sum::<u64>();
    let counted = |s: &[u64; 4]| s[0] + s[1] + s[2];
    assert_eq!(steps.values().map(counted).max(), Some(4));
    assert_eq!(steps.values().map(total).max(), Some(5));
    // Ready: 3 old from 2 s, then always 3 (old and new together).
    let ready: Vec<(u64, u64)> = steps.iter().map(|(at, s)| (*at, s[0])).collect();
    assert_eq!(ready[0], (0, 0));
    assert!(ready[1..].iter().all(|&(_, n)| n == 3), "{ready:?}");
    // The steps, worked by hand: creation, Ready, the rollout's three rounds.
    let at: Vec<u64> = steps.keys().copied().collect();
    assert_eq!(
        at,
        [0, 2000, 13_196, 16_196, 18_296, 19_196, 21_296, 22_196, 24_296]
    );
    assert_eq!(steps[&16_196], [3, 1, 0, 1]);
    assert_eq!(steps[&22_196], [3, 0, 0, 1]);
    assert_eq!(steps[&24_296], [3, 0, 0, 0]);
    // The new ReplicaSet's Pods: none before the rollout, three at the end.
    let new_at = |ms: u64| -> u64 {
        rects
            .iter()
            .filter(|r| r.attribute("data-rs") == Some("new") && attr_u64(r, "data-from") == ms)
            .map(|r| attr_u64(r, "data-count"))
            .sum()
    };
    assert_eq!((new_at(2000), new_at(13_196), new_at(24_296)), (0, 1, 3));
}

#[test]
fn the_ready_line_never_dips_below_three_and_the_marks_sit_on_their_instants() {
    let svg = picture();
    let doc = parse(&svg);
    let root = doc.root();
    let (x, y) = (time_x(root), pods_y(root));
    let line = with_class(root, "ready-endpoints");
    assert_eq!(line.len(), 1);
    assert_eq!(line[0].attribute("data-least"), Some("3"));
    // Every level of the step line, read back through the Pods axis.
    let d = line[0].attribute("d").unwrap();
    let mut levels = Vec::new();
    let mut start_x = None;
    for (i, part) in d.split(['M', 'V']).filter(|p| !p.is_empty()).enumerate() {
        let nums: Vec<f64> = part
            .split(['H', ' '])
            .filter(|s| !s.is_empty())
            .map(|s| s.parse().unwrap())
            .collect();
        if i == 0 {
            start_x = Some(nums[0]);
            levels.push(nums[1]);
        } else {
            levels.push(nums[0]);
        }
    }
    for level in &levels {
        assert!(
            (level - y(3.0)).abs() < 0.02,
            "a level at {level}, 3 Pods at {}",
            y(3.0)
        );
    }
    // The line starts with the traffic, 3.196 s.
    assert!((start_x.unwrap() - x(3.196)).abs() < 0.02);
    let marks: Vec<(String, f64)> = with_class(root, "rollout-mark")
        .iter()
        .map(|g| {
            let kind = g.attribute("data-kind").unwrap().to_string();
            let at = g
                .children()
                .find(|n| n.has_tag_name("line"))
                .and_then(|l| l.attribute("x1")?.parse().ok())
                .unwrap();
            (kind, at)
        })
        .collect();
    let kinds: Vec<&str> = marks.iter().map(|m| m.0.as_str()).collect();
    assert_eq!(kinds, ["start", "available", "done"]);
    for ((_, at), secs) in marks.iter().zip([13.196, 22.196, 24.296]) {
        assert!(
            (at - x(secs)).abs() < 0.02,
            "mark at {at}, {secs} s at {}",
            x(secs)
        );
    }
    // Twelve refused requests (seed 1's draws: `podsim run` says `refused
    // 12`), each a red mark on the time axis.
    let failed = with_class(root, "failed");
    assert_eq!(failed.len(), 12);
    assert!(
        failed
            .iter()
            .all(|f| f.attribute("data-cause") == Some("refused"))
    );
}

/// The scale-downs at 16.196, 19.196 and 22.196 s are 3 s apart, about
/// 63 px on the 35 s axis, and each label ("scale-down", about 62 px) would
/// run into the next: the middle one takes the row above, 13 px up, and the
/// first and the third, 125 px apart, share the lower row. Each starts 4 px
/// right of its line, and the title's line counts 3 replicas, not 6 Pods.
#[test]
fn scale_down_labels_close_together_take_rows_of_their_own() {
    let svg = picture();
    let doc = parse(&svg);
    let root = doc.root();
    let x = time_x(root);
    let labels: Vec<(f64, f64)> = with_class(root, "delete-label")
        .iter()
        .map(|n| {
            assert_eq!(n.text(), Some("scale-down"));
            let at = |a: &str| n.attribute(a).unwrap().parse::<f64>().unwrap();
            (at("x"), at("y"))
        })
        .collect();
    assert_eq!(labels.len(), 3);
    for ((left, _), secs) in labels.iter().zip([16.196, 19.196, 22.196]) {
        assert!((left - x(secs) - 4.0).abs() < 0.02, "{left} for {secs} s");
    }
    let (low, high) = (labels[0].1, labels[1].1);
    assert_eq!((high, labels[2].1), (low - 13.0, low));
    let summary = with_class(root, "summary");
    assert!(
        summary[0]
            .text()
            .unwrap()
            .starts_with("3 replicas (6 Pods) on 3 nodes · 1618 requests"),
        "{:?}",
        summary[0].text()
    );
}

#[test]
fn a_plain_delete_draws_no_stack() {
    let dir = TempDir::new();
    let path = dir.path().join("race.svg");
    podsim()
        .args(["run", "scenarios/service/no-prestop.toml", "--svg"])
        .arg(&path)
        .assert()
        .success();
    let svg = std::fs::read_to_string(&path).unwrap();
    assert!(with_class(parse(&svg).root(), "rollout").is_empty());
}

/// `run --watch`'s lines for `scenario`: (Pod, READY, STATUS, AGE), each
/// Pod named by its place: `old0`… in the order the old ReplicaSet's Pods
/// first appear, `new0`… for the new one's; and the header.
fn watch(scenario: &str) -> (String, Vec<(String, String, String, String)>) {
    let out = podsim().args(["run", scenario, "--watch"]).assert().success();
    let text = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    let mut lines = text.lines();
    let header = lines.next().unwrap().to_string();
    let mut names: Vec<String> = Vec::new();
    let mut hashes: Vec<String> = Vec::new();
    let rows = lines
        .map(|l| {
            let cols: Vec<&str> = l.split_whitespace().collect();
            assert_eq!(cols.len(), 5, "{l}");
            assert_eq!(cols[3], "0", "no restarts: {l}");
            let (rest, suffix) = cols[0].rsplit_once('-').unwrap();
            let (deployment, hash) = rest.rsplit_once('-').unwrap();
            assert_eq!(
                deployment,
                scenario.rsplit('/').next().unwrap().trim_end_matches(".toml")
            );
            assert_eq!(suffix.len(), 5);
            if !hashes.iter().any(|h| h == hash) {
                hashes.push(hash.to_string());
            }
            if !names.iter().any(|n| n == cols[0]) {
                names.push(cols[0].to_string());
            }
            let rs = if hash == hashes[0] { "old" } else { "new" };
            let place = names
                .iter()
                .filter(|n| n.contains(hash))
                .position(|n| n == cols[0])
                .unwrap();
            (
                format!("{rs}{place}"),
                cols[1].into(),
                cols[2].into(),
                cols[4].into(),
            )
        })
        .collect();
    (header, rows)
}

#[test]
fn the_watch_shows_each_pod_appear_go_terminating_and_disappear_in_the_clusters_order() {
    let (header, rows) = watch(SCENARIO);
    assert!(header.starts_with("NAME") && header.ends_with("READY   STATUS              RESTARTS   AGE"));
    let got: Vec<String> = rows
        .iter()
        .map(|(p, r, s, a)| format!("{p} {r} {s} {a}"))
        .collect();
    // Worked by hand (module doc). At 0 the ReplicaSet stores its three
    // Pods (Pending: no kubelet has seen them), then their kubelets create
    // the containers; each new Pod appears the same way, its AGE from its
    // own creation. At 16.196 s new0's Ready comes first, then the old Pod
    // it lets go (Terminating: the deletion timestamp, 100 ms before its
    // kubelet hears), then the Pod created in its place. An old Pod's app
    // exits 1.1 s after its deletion (0/1 Completed: a deleted Pod ends in a
    // terminal phase) and its object goes 1 s later: the DELETED event
    // prints that last row once more.
    let want = [
        "old0 0/1 Pending 0s",
        "old1 0/1 Pending 0s",
        "old2 0/1 Pending 0s",
        "old0 0/1 ContainerCreating 0s",
        "old1 0/1 ContainerCreating 0s",
        "old2 0/1 ContainerCreating 0s",
        "old0 1/1 Running 2s",
        "old1 1/1 Running 2s",
        "old2 1/1 Running 2s",
        // 13.196 s: the rollout creates new0.
        "new0 0/1 Pending 0s",
        "new0 0/1 ContainerCreating 0s",
        // 16.196 s.
        "new0 1/1 Running 3s",
        "old0 1/1 Terminating 16s",
        "new1 0/1 Pending 0s",
        "new1 0/1 ContainerCreating 0s",
        "old0 0/1 Completed 17s",
        "old0 0/1 Completed 18s",
        // 19.196 s.
        "new1 1/1 Running 3s",
        "old1 1/1 Terminating 19s",
        "new2 0/1 Pending 0s",
        "new2 0/1 ContainerCreating 0s",
        "old1 0/1 Completed 20s",
        "old1 0/1 Completed 21s",
        // 22.196 s: the new ReplicaSet is available; the last old Pod goes.
        "new2 1/1 Running 3s",
        "old2 1/1 Terminating 22s",
        "old2 0/1 Completed 23s",
        "old2 0/1 Completed 24s",
    ];
    assert_eq!(got, want);
}

#[test]
fn a_delete_is_watched_the_same_way_and_nothing_replaces_the_pod() {
    // no-prestop.toml: replica 0 deleted 10 s after the traffic's start
    // (3.196 s), 13.196 s; it exits 1.1 s later, its object goes 1 s after.
    let (_, rows) = watch("scenarios/service/no-prestop.toml");
    let got: Vec<String> = rows[9..]
        .iter()
        .map(|(p, r, s, a)| format!("{p} {r} {s} {a}"))
        .collect();
    assert_eq!(rows.len(), 12);
    assert_eq!(
        got,
        [
            "old0 1/1 Terminating 13s",
            "old0 0/1 Completed 14s",
            "old0 0/1 Completed 15s"
        ]
    );
}

#[test]
fn the_report_page_opens_a_rollouts_figure_with_the_stack() {
    let dir = TempDir::new();
    let page = dir.path().join("report.html");
    podsim()
        .args(["report", SCENARIO, "--out"])
        .arg(&page)
        .assert()
        .success();
    let html = std::fs::read_to_string(&page).unwrap();
    assert_eq!(html.matches("class=\"rollout\"").count(), 1);
    assert_eq!(html.matches("class=\"rollout-mark\"").count(), 3);
    assert!(html.contains("the Deployment's Pods stacked by ReplicaSet and state"));
}

#[test]
fn a_drained_pod_goes_terminating_and_its_replacement_joins_the_same_replica_set() {
    // drain.toml: node 0 (replica 0 alone) drained at 13.196 s; the budget
    // allows it at once. Its kubelet hears 100 ms later, preStop 3 s, drain
    // 1 s: exit at 17.296 s, object gone 1 s later. The ReplicaSet's
    // replacement is created in the same millisecond, after the eviction,
    // and boots in 2 s.
    let (_, rows) = watch("scenarios/service/drain.toml");
    let got: Vec<String> = rows[9..]
        .iter()
        .map(|(p, r, s, a)| format!("{p} {r} {s} {a}"))
        .collect();
    assert_eq!(
        got,
        [
            "old0 1/1 Terminating 13s",
            "old3 0/1 Pending 0s",
            "old3 0/1 ContainerCreating 0s",
            "old3 1/1 Running 2s",
            "old0 0/1 Completed 17s",
            "old0 0/1 Completed 18s",
        ]
    );
}

#[test]
fn a_recreate_that_fails_thousands_marks_them_per_pixel_column_and_keeps_the_count() {
    // The bundled rollout as a Recreate under 3,000 requests/s: no endpoint
    // for the 4.1 s between the old Pods' stop and the new ones' Ready, so
    // far more failures than MAX_MARKS (5,000).
    let dir = TempDir::new();
    let text = std::fs::read_to_string(SCENARIO)
        .unwrap()
        .replace("rate = 50 ", "rate = 3000 ")
        .replace("rollout = \"RollingUpdate\"", "rollout = \"Recreate\"")
        .lines()
        .filter(|l| !l.starts_with("max_surge") && !l.starts_with("max_unavailable"))
        .collect::<Vec<_>>()
        .join("\n");
    let scenario = super::common::write(dir.path(), "recreate.toml", &text);
    let svg_path = dir.path().join("recreate.svg");
    let out = podsim()
        .args(["run", "--format", "json"])
        .arg(&scenario)
        .args(["--svg"])
        .arg(&svg_path)
        .assert()
        .success();
    let doc: serde_json::Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    let failed = doc["metrics"]["failed"].as_u64().unwrap();
    assert!(failed > 5000, "only {failed} failed");
    let svg = std::fs::read_to_string(&svg_path).unwrap();
    let doc = parse(&svg);
    let group = with_class(doc.root(), "failed-marks");
    assert_eq!(group[0].attribute("data-binned"), Some("true"));
    let marks = with_class(doc.root(), "failed");
    assert!(marks.len() < 5000, "{} marks", marks.len());
    assert_eq!(
        marks.iter().map(|m| attr_u64(m, "data-count")).sum::<u64>(),
        failed
    );
}
