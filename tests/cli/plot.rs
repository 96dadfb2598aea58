//! `podsim plot` through the real binary: the trade-off's defaults, its
//! PNG, the columns and formats it refuses, a CSV that is not a sweep, and
//! the pairs of a count column; SVG parsed as XML, expected values the seed
//! chapter's sweep (`pictures::seed_sweep_csv`).
//!
//! Apart from `pictures`, which keeps `run --svg`'s timelines and the
//! helpers every picture test shares, because a plot reads a sweep's CSV,
//! not a run.

use std::path::Path;

use super::common::podsim;
use super::pictures::{
    SIDECAR, attr_u64, fixture, parse, png_size, read, seed_sweep_csv, temp, texts, with_class,
};
use roxmltree::Document;

#[test]
fn plot_defaults_draw_exposure_against_ready_by_layout() {
    let dir = temp();
    let csv = fixture(dir.path());
    podsim()
        .arg("plot")
        .arg(&csv)
        .assert()
        .success()
        .stdout(predicates::str::contains(
            "34 runs in 2 groups by containers.proxy.kind",
        ));
    let text = read(&dir.path().join("seed-sweep.svg"));
    let doc = parse(&text);
    let series: Vec<(&str, u64)> = with_class(doc.root(), "series")
        .iter()
        .map(|s| (s.attribute("data-group").unwrap(), attr_u64(s, "data-runs")))
        .collect();
    // Sidecar with proxy 5 s and web 4 s is Ready at 11 s, after the
    // deletion at 10 s: never Ready, so no ready_ms, so not drawn.
    assert_eq!(series, [("app", 18), ("sidecar", 16)]);

    // Frontiers, by hand. Sidecar: never exposed, so its frontier is the run
    // fastest to Ready: init 2 s + proxy 1 s + web 0.5 s = 3.5 s (run 18; run
    // 19 differs only in web's drain). App: Ready = 2 s + max(proxy, web
    // boot), exposed = (proxy − web boot)⁺ + (web drain − proxy drain 1 s)⁺.
    // Nothing is Ready before 3 s, and run 2 (proxy 1 s, web 1 s, drain 1 s)
    // is Ready at 3 s with exposed 0: it alone beats every other app run.
    let frontier = |group: &str| -> Vec<u64> {
        let g = with_class(doc.root(), "frontier")
            .into_iter()
            .find(|f| f.attribute("data-group") == Some(group))
            .unwrap();
        with_class(g, "frontier-point")
            .iter()
            .map(|p| attr_u64(p, "data-row"))
            .collect()
    };
    assert_eq!(frontier("sidecar"), [18]);
    assert_eq!(frontier("app"), [2]);

    let labels = texts(doc.root());
    for label in [
        "time to Pod Ready (s) · ready_ms",
        "exposed time, startup + shutdown (s) · exposed_total_ms",
        "containers.proxy.kind",
        "app",
        "sidecar",
        "Pareto frontier",
    ] {
        assert!(labels.iter().any(|l| l == label), "no label {label:?}");
    }
}

#[test]
fn plot_png_has_the_requested_size() {
    let dir = temp();
    let csv = fixture(dir.path());
    let out = dir.path().join("p.png");
    podsim()
        .arg("plot")
        .arg(&csv)
        .args([
            "--x",
            "containers.web.boot_ms",
            "--y",
            "termination_ms",
            "--group",
        ])
        .arg("containers.web.drain_ms")
        .args(["--width", "640", "--height", "400", "--out"])
        .arg(&out)
        .assert()
        .success();
    assert_eq!(png_size(&out), (640, 400));
}

#[test]
fn plot_unknown_column_lists_the_valid_ones_and_writes_nothing() {
    let dir = temp();
    let csv = fixture(dir.path());
    let out = dir.path().join("p.svg");
    podsim()
        .arg("plot")
        .arg(&csv)
        .args(["--x", "redy_ms", "--out"])
        .arg(&out)
        .assert()
        .code(1)
        .stderr(predicates::str::contains(
            "no column \"redy_ms\"; did you mean \"ready_ms\"? columns are: run, containers.proxy.kind,",
        ));
    assert!(!out.exists());
}

#[test]
fn plot_refuses_text_axes_and_unknown_formats() {
    let dir = temp();
    let csv = fixture(dir.path());
    podsim()
        .arg("plot")
        .arg(&csv)
        .args(["--x", "containers.proxy.kind", "--out"])
        .arg(dir.path().join("p.svg"))
        .assert()
        .code(1)
        .stderr(predicates::str::contains(
            "seed-sweep.csv:2: column \"containers.proxy.kind\": \"app\" is not a number",
        ));
    podsim()
        .arg("plot")
        .arg(&csv)
        .arg("--out")
        .arg(dir.path().join("p.jpg"))
        .assert()
        .code(2)
        .stderr(predicates::str::contains("name the file .svg or .png"));
    let names: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names, ["seed-sweep.csv"], "no output, no temporary file left");
}

/// Issue 16, found by the csv_table fuzz target: a NUL or another control
/// character in a CSV's header or cells went into the plot and the report
/// as it was, and XML forbids it, so the SVG would not open at all.
#[test]
fn issue_16_control_characters_in_a_csv_made_the_pictures_unreadable() {
    let dir = temp();
    let csv = seed_sweep_csv()
        .replacen("run,", "\0run,", 1)
        .replace(",sidecar,", ",side\u{1}car,");
    let path = dir.path().join("odd.csv");
    std::fs::write(&path, csv).unwrap();
    let (svg, html) = (dir.path().join("odd.svg"), dir.path().join("odd.html"));
    podsim()
        .arg("plot")
        .arg(&path)
        .arg("--out")
        .arg(&svg)
        .assert()
        .success();
    podsim()
        .arg("report")
        .arg(&path)
        .arg("--out")
        .arg(&html)
        .assert()
        .success();
    let (svg, html) = (read(&svg), read(&html));
    let legend = texts(parse(&svg).root_element());
    assert!(legend.iter().any(|t| t.contains("side\u{fffd}car")), "{legend:?}");
    parse(&html);
    assert!(html.contains("side\u{fffd}car") && !html.contains('\0'), "{html}");
}

#[test]
fn plot_names_what_is_not_a_sweep_and_what_to_run() {
    let dir = temp();
    let not_a_sweep = |file: &Path, message: &str| {
        podsim()
            .arg("plot")
            .arg(file)
            .arg("--out")
            .arg(dir.path().join("p.svg"))
            .assert()
            .code(1)
            .stderr(predicates::str::contains(message));
    };
    not_a_sweep(
        Path::new(SIDECAR),
        "scenarios/seed-sidecar.toml is a scenario, not a sweep's CSV; draw its timeline with: podsim run",
    );
    not_a_sweep(
        Path::new("scenarios/seed-grid.toml"),
        "is a grid, not a sweep's CSV; run it first: podsim sweep --grid scenarios/seed-grid.toml",
    );
    not_a_sweep(
        Path::new("scenarios/ckad/graceful.yaml"),
        "is a Kubernetes manifest, not a sweep's CSV",
    );
    let empty = dir.path().join("empty.csv");
    std::fs::write(&empty, "").unwrap();
    not_a_sweep(
        &empty,
        "is empty, not a sweep's CSV; write one with: podsim sweep --grid",
    );
    let header = dir.path().join("header.csv");
    std::fs::write(&header, "run,ready_ms,exposed_total_ms\n").unwrap();
    not_a_sweep(&header, "has a header but no runs");
}

#[test]
fn count_columns_get_whole_ticks_and_pairs_show_the_trade_off() {
    let dir = temp();
    let csv = Path::new(env!("CARGO_MANIFEST_DIR")).join("results/seed-sweep.csv");
    let out = dir.path().join("restarts.svg");
    podsim()
        .arg("plot")
        .arg(&csv)
        .args(["--y", "restarts", "--out"])
        .arg(&out)
        .assert()
        .success();
    let svg = read(&out);
    let doc = Document::parse(&svg).unwrap();
    let ticks: Vec<&str> = with_class(doc.root(), "y-tick")
        .iter()
        .map(|n| n.text().unwrap())
        .collect();
    // The seed grid's proxy fails 0 to 3 times: restarts 0, 1, 2, 3.
    assert_eq!(ticks, ["0", "1", "2", "3"]);

    // Paired by layout: one dot per configuration, the sidecar's cost and saving.
    let out = dir.path().join("pair.svg");
    podsim()
        .arg("plot")
        .arg(&csv)
        .args(["--pair", "containers.proxy.kind", "--out"])
        .arg(&out)
        .assert()
        .success()
        .stdout(predicates::str::contains(
            "10800 configurations, sidecar against app",
        ));
    let svg = read(&out);
    let doc = Document::parse(&svg).unwrap();
    let series = with_class(doc.root(), "series");
    assert_eq!(series.len(), 1);
    assert_eq!(attr_u64(&series[0], "data-runs"), 10_800);
    assert!(
        svg.contains("time to Pod Ready added by sidecar (s)"),
        "{svg:.300}"
    );
    podsim()
        .arg("plot")
        .arg(&csv)
        .args(["--pair", "containers.proxy.kind=sidecar", "--out"])
        .arg(&out)
        .assert()
        .code(2)
        .stderr(predicates::str::contains("write COLUMN=A,B"));
}
