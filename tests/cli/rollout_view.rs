//! The rollout's pictures and `kubectl get pods -w`, for the bundled
//! rolling update (`scenarios/service/rollout.toml`), worked by hand.
//!
//! Three replicas boot in 2 s; traffic starts when every node's rules list
//! them, 3.056 s; the rollout 10 s later, 13.056 s. Surge 1, unavailable
//! 0, the new template boots in 3 s: new Pod 3 is created at 13.056 s and
//! Ready at 16.056 s, which lets the controller delete old Pod 0 and create
//! new Pod 4 in that millisecond; Pod 4 Ready at 19.056 s (Pod 1 deleted,
//! Pod 5 created), Pod 5 Ready at 22.056 s (Pod 2 deleted): the new
//! ReplicaSet is available then, +9 s. An old Pod's kubelet hears of the
//! deletion 100 ms later, its app drains 1 s, its object goes 1 s after
//! that: Pod 0 gone at 18.156 s, Pod 1 at 21.156 s, Pod 2 at 24.156 s
//! (+11.1 s). So: 4 Pods from 13.056 s, 5 while an old one terminates
//! beside a new one starting (16.056–18.156, 19.056–21.156), 4 counted at
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
        [0, 2000, 13_056, 16_056, 18_156, 19_056, 21_156, 22_056, 24_156]
    );
    assert_eq!(steps[&16_056], [3, 1, 0, 1]);
    assert_eq!(steps[&22_056], [3, 0, 0, 1]);
    assert_eq!(steps[&24_156], [3, 0, 0, 0]);
    // The new ReplicaSet's Pods: none before the rollout, three at the end.
    let new_at = |ms: u64| -> u64 {
        rects
            .iter()
            .filter(|r| r.attribute("data-rs") == Some("new") && attr_u64(r, "data-from") == ms)
            .map(|r| attr_u64(r, "data-count"))
            .sum()
    };
    assert_eq!((new_at(2000), new_at(13_056), new_at(24_156)), (0, 1, 3));
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
    // The line starts with the traffic, 3.056 s.
    assert!((start_x.unwrap() - x(3.056)).abs() < 0.02);
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
    for ((_, at), secs) in marks.iter().zip([13.056, 22.056, 24.156]) {
        assert!(
            (at - x(secs)).abs() < 0.02,
            "mark at {at}, {secs} s at {}",
            x(secs)
        );
    }
    // Seven refused requests, each a red mark on the time axis.
    let failed = with_class(root, "failed");
    assert_eq!(failed.len(), 7);
    assert!(
        failed
            .iter()
            .all(|f| f.attribute("data-cause") == Some("refused"))
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
