//! How the pictures and the text chart lay themselves out where the
//! issue-37 trial found them wrong: runs of very different lengths, each
//! on its own time axis; the text band chart exactly `--width` cells wide.

use super::common::podsim;
use super::pictures::{SIDE_BY_SIDE, SIDECAR, parse, read, temp, with_class};

/// The `run --svg` picture of `files`.
fn timelines(files: &[&str]) -> String {
    let dir = temp();
    let out = dir.path().join("t.svg");
    podsim()
        .arg("run")
        .args(files)
        .arg("--svg")
        .arg(&out)
        .assert()
        .success();
    read(&out)
}

/// The seed's sidecar Pod ends at 14 s, the CKAD adapter Pod runs to the
/// 24 h horizon: on one axis the seed would take 14 / 90,000 of the width.
/// Each gets an axis of its own: the seed's to 16 s (ticks of 2 s; 14 s
/// would put the last exit on the frame's edge, so a step more), 766 px
/// from x = 210 to 976, and its proxy runs from 5 s to 13 s: x = 210 + 5/16
/// · 766 = 449.375, 8/16 · 766 = 383 px wide. The seed's two layouts (13 s
/// and 14 s) keep sharing one axis.
#[test]
fn a_short_run_beside_a_day_long_one_gets_a_time_axis_of_its_own() {
    let svg = timelines(&[SIDECAR, "scenarios/ckad/adapter-pod.yaml"]);
    let doc = parse(&svg);
    let root = doc.root();
    assert_eq!(with_class(root, "axis-title").len(), 2);
    let proxy_running = with_class(root, "band")
        .into_iter()
        .find(|b| {
            b.parent().and_then(|p| p.attribute("data-container")) == Some("proxy")
                && b.attribute("data-state") == Some("running")
        })
        .unwrap();
    let at = |a: &str| proxy_running.attribute(a).unwrap().parse::<f64>().unwrap();
    assert!((at("x") - 449.375).abs() < 0.01, "{}", at("x"));
    assert!((at("width") - 383.0).abs() < 0.01, "{}", at("width"));
    let svg = timelines(&[SIDECAR, SIDE_BY_SIDE]);
    assert_eq!(with_class(parse(&svg).root(), "axis-title").len(), 1);
}

/// `--width 40` on the seed's sidecar Pod (14 s) draws 40 cells of
/// 14,000 / 40 = 350 ms on every row, where cells of a round time gave
/// 28 of 500 ms. The config-fetch init container boots 0–2 s: the cells
/// whose middle (175 + 350c ms) falls before 2 s, c = 0 to 5 (1,925 ms).
#[test]
fn the_band_chart_is_as_wide_as_width_says() {
    let out = podsim().args(["run", SIDECAR, "--width", "40"]).output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    let rows: Vec<&str> = text
        .lines()
        .filter(|l| l.ends_with('|'))
        .map(|l| &l[l.find('|').unwrap() + 1..l.len() - 1])
        .collect();
    assert_eq!(rows.len(), 5, "three containers, exposed, the marks:\n{text}");
    assert!(rows.iter().all(|r| r.chars().count() == 40), "{text}");
    assert_eq!(rows[0], format!("{}{}", "░".repeat(6), " ".repeat(34)));
    assert!(text.contains("(one cell = 350ms)"), "{text}");
}
