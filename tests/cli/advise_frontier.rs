//! `podsim advise --svg`: the frontier picture, read back as a user's tool
//! would read it: the axes' tick labels give the scale, and the advised
//! ring and today's square must stand where the advice's numbers put them.
//!
//! The bundled race (scenarios/service/no-prestop.toml) by hand: the app
//! closes its listener at SIGTERM and drains for 1 s, so a deleted Pod's
//! termination (deletion → last exit) is 1 s today, with no hook, and the
//! advised preStop p plus that 1 s when advised: 3 s for the 2 s the guide
//! shows. The advised point meets the target, failed p99 0; today's does
//! not (the endpoint race: its p99 is above 0).

use super::common::{TempDir, podsim};
use super::pictures::{parse, with_class};

const RACE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/scenarios/service/no-prestop.toml");

/// A linear axis read from its grid lines and their tick labels, in the
/// same order: (pixel, value) of the first and the last tick.
struct Axis {
    first: (f64, f64),
    last: (f64, f64),
}

impl Axis {
    fn read(doc: &roxmltree::Document, axis: &str, coordinate: &str) -> Axis {
        let lines = with_class(doc.root(), &format!("{axis}-grid"));
        let labels = with_class(doc.root(), &format!("{axis}-tick"));
        assert_eq!(lines.len(), labels.len(), "a label per grid line");
        let ticks: Vec<(f64, f64)> = (lines.iter().zip(&labels))
            .map(|(line, label)| (attr(line, coordinate), label.text().unwrap().parse().unwrap()))
            .collect();
        assert!(ticks.len() >= 2, "{axis}: {ticks:?}");
        Axis {
            first: ticks[0],
            last: ticks[ticks.len() - 1],
        }
    }

    /// The value at pixel `px`.
    fn value(&self, px: f64) -> f64 {
        let ((p0, v0), (p1, v1)) = (self.first, self.last);
        v0 + (px - p0) * (v1 - v0) / (p1 - p0)
    }

    /// One pixel, in the axis's units: how close a mark must be.
    fn pixel(&self) -> f64 {
        ((self.last.1 - self.first.1) / (self.last.0 - self.first.0)).abs()
    }
}

fn attr(node: &roxmltree::Node, name: &str) -> f64 {
    node.attribute(name).unwrap().parse().unwrap()
}

#[test]
fn the_advised_point_stands_at_the_advices_numbers() {
    let dir = TempDir::new();
    let svg = dir.path().join("frontier.svg");
    let out = podsim()
        .args([
            "advise",
            RACE,
            "--replications",
            "100",
            "--format",
            "json",
            "--svg",
        ])
        .arg(&svg)
        .output()
        .expect("podsim runs");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let advice: serde_json::Value = serde_json::from_slice(&out.stdout).expect("one JSON document");
    let pre_stop = advice["settings"][0]["advised_ms"]
        .as_f64()
        .expect("a preStop is advised")
        / 1000.0;
    // By hand: the hook, then the 1 s drain.
    let (today_x, advised_x) = (1.0, pre_stop + 1.0);
    assert_eq!(advice["advised"]["termination_ms_mean"], advised_x * 1000.0);
    assert_eq!(advice["today"]["termination_ms_mean"], today_x * 1000.0);
    let today_y = advice["today"]["failed_p99"].as_f64().unwrap();
    assert!(today_y > 0.0, "today's race fails requests");

    let text = std::fs::read_to_string(&svg).expect("the picture is written");
    let doc = parse(&text);
    let (x, y) = (Axis::read(&doc, "x", "x1"), Axis::read(&doc, "y", "y1"));
    let advised = with_class(doc.root(), "advised");
    assert_eq!(advised.len(), 1, "one advised ring");
    let (cx, cy) = (attr(&advised[0], "cx"), attr(&advised[0], "cy"));
    assert!(
        (x.value(cx) - advised_x).abs() <= x.pixel(),
        "advised at x {}",
        x.value(cx)
    );
    assert!(y.value(cy).abs() <= y.pixel(), "advised at y {}", y.value(cy));
    // Today's square: its centre is 7 px in from its corner.
    let today = with_class(doc.root(), "today");
    let (tx, ty) = (attr(&today[0], "x") + 7.0, attr(&today[0], "y") + 7.0);
    assert!(
        (x.value(tx) - today_x).abs() <= x.pixel(),
        "today at x {}",
        x.value(tx)
    );
    assert!(
        (y.value(ty) - today_y).abs() <= y.pixel(),
        "today at y {}",
        y.value(ty)
    );
    // The target line is at failed p99 = 0.
    let target = with_class(doc.root(), "target");
    assert!(y.value(attr(&target[0], "y1")).abs() <= y.pixel());
    // One p99 dot per candidate on the search's replications, as many as
    // the subtitle says; never more than the search ran.
    let dots = with_class(doc.root(), "p99").len();
    let evaluated = advice["settings"][0]["searched"]["evaluated"].as_u64().unwrap()
        + advice["settings"][1]["searched"]["evaluated"].as_u64().unwrap();
    assert!(
        dots >= 3 && dots as u64 <= evaluated + 3,
        "{dots} dots, {evaluated} evaluated"
    );
    let subtitle = with_class(doc.root(), "subtitle")[0].text().unwrap().to_string();
    assert!(
        subtitle.starts_with(&format!(
            "the {dots} candidates the search ran, each on the same 100 replications"
        )),
        "{subtitle}"
    );
}

#[test]
fn the_frontier_is_drawn_as_png_and_refused_for_several_inputs() {
    let dir = TempDir::new();
    let png = dir.path().join("frontier.png");
    podsim()
        .args(["advise", RACE, "--replications", "20", "--svg"])
        .arg(&png)
        .assert()
        .success()
        .stdout(predicates::str::contains("drew the frontier in"));
    let bytes = std::fs::read(&png).expect("the PNG is written");
    assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n");
    podsim()
        .args(["advise", RACE, RACE, "--svg"])
        .arg(dir.path().join("two.svg"))
        .assert()
        .failure()
        .stderr(predicates::str::contains("--svg draws one advice"));
}
