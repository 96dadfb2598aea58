//! `podsim report` through the real binary: one self-contained HTML page
//! (parsed as XML) for a run, a sweep's CSV, a summary, a Service sweep or
//! a Job, with every part it must hold; a failed report keeps the previous
//! file. Kept apart from `pictures`, whose helpers it shares.

use super::common::podsim;
use super::pictures::{SIDE_BY_SIDE, SIDECAR, cells, fixture, parse, read, temp, with_class};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use podsim::model::Metrics;
use roxmltree::Node;

/// Every input is read before the page is made, so one refused input
/// leaves the previous page as it was: nothing was opened for writing yet
/// (the invariant in `cli/report.rs`). A refusal that came after the page
/// was opened for writing (truncating it) would fail here.
#[test]
fn a_refused_input_leaves_the_previous_page_untouched() {
    let dir = temp();
    let bad = dir.path().join("bad.toml");
    std::fs::write(
        &bad,
        "name = \"x\"\n[[containers]]\nname = \"web\"\nkind = \"ap\"\nboot = \"1s\"\n",
    )
    .unwrap();
    let out = dir.path().join("r.html");
    std::fs::write(&out, "old").unwrap();
    podsim()
        .args(["report", SIDECAR])
        .arg(&bad)
        .arg("--out")
        .arg(&out)
        .assert()
        .code(1)
        .stderr(predicates::str::contains("unknown kind \"ap\""));
    assert_eq!(read(&out), "old");
}

#[test]
fn report_is_self_contained_and_holds_every_part() {
    let dir = temp();
    let csv = fixture(dir.path());
    let out = dir.path().join("report.html");
    podsim()
        .args(["report", SIDECAR, SIDE_BY_SIDE])
        .arg(&csv)
        .arg("--out")
        .arg(&out)
        .assert()
        .success();
    let text = read(&out);
    assert!(text.starts_with("<!DOCTYPE html>"));
    let doc = parse(&text);
    let html = doc.root_element();
    assert!(html.has_tag_name("html"));
    let by_id = |id: &str| {
        doc.descendants()
            .find(|n| n.attribute("id") == Some(id))
            .unwrap_or_else(|| panic!("no #{id}"))
    };
    let svgs = |n: Node| n.descendants().filter(|d| d.has_tag_name("svg")).count();

    // Nothing to fetch: no scripts, links, images, frames or fonts; the only
    // URLs are the XML namespace names, which a browser never requests.
    for n in doc.descendants().filter(|n| n.is_element()) {
        let tag = n.tag_name().name();
        assert!(
            ![
                "script", "link", "img", "iframe", "object", "embed", "image", "use", "base"
            ]
            .contains(&tag),
            "<{tag}> in the report"
        );
        for a in n.attributes() {
            assert!(
                !["src", "href", "srcset", "poster", "data"].contains(&a.name()),
                "{}={} on <{tag}>",
                a.name(),
                a.value()
            );
            if a.value().contains("http") {
                assert_eq!(a.name(), "xmlns", "URL in {}", a.name());
            }
        }
    }
    let style: String = doc
        .descendants()
        .filter(|n| n.has_tag_name("style"))
        .filter_map(|n| n.text())
        .collect();
    for banned in ["@import", "url(", "@font-face", "http"] {
        assert!(!style.contains(banned), "{banned} in the style");
    }

    assert_eq!(
        doc.descendants()
            .find(|n| n.has_tag_name("title"))
            .unwrap()
            .text(),
        Some("podsim report")
    );
    let timelines = by_id("timelines");
    assert_eq!(svgs(timelines), 1);
    assert_eq!(with_class(timelines, "scenario").len(), 2);

    // The metrics table: a header row naming both runs, one row per metric.
    let metrics = by_id("metrics");
    let rows: Vec<Node> = metrics.children().filter(|n| n.has_tag_name("tr")).collect();
    assert_eq!(rows.len(), 1 + Metrics::NAMES.len());
    let header = cells(rows[0]);
    assert_eq!(
        header,
        ["metric", "proxy as a native sidecar", "proxy side by side"]
    );
    let exposed = cells(rows[4]);
    assert_eq!(exposed, ["exposed_total_ms", "0.000s", "4.000s"]);

    let scenario_plot = by_id("scenario-tradeoff");
    let groups: BTreeSet<&str> = with_class(scenario_plot, "series")
        .iter()
        .map(|s| s.attribute("data-group").unwrap())
        .collect();
    assert_eq!(
        groups,
        BTreeSet::from(["proxy as a native sidecar", "proxy side by side"])
    );
    assert_eq!(with_class(html, "events").len(), 2);

    let sweep = by_id("sweep-0");
    assert_eq!(svgs(sweep), 1);
    let frontier = with_class(sweep, "frontier")
        .into_iter()
        .find(|n| n.has_tag_name("table"))
        .unwrap();
    let rows: Vec<Node> = frontier.children().filter(|n| n.has_tag_name("tr")).collect();
    let header = cells(rows[0]);
    assert_eq!(
        header,
        [
            "run",
            "ready_ms",
            "exposed_total_ms",
            "runs alike",
            "containers.proxy.kind",
            "containers.proxy.boot_ms",
            "containers.web.boot_ms",
            "containers.web.drain_ms"
        ]
    );
    let body: Vec<Vec<String>> = rows[1..].iter().map(|r| cells(*r)).collect();
    assert_eq!(
        body,
        [
            ["2", "3000", "0", "1", "app", "1000", "1000", "1000"],
            ["18", "3500", "0", "2", "sidecar", "1000", "500", "1000"]
        ]
    );
}

#[test]
fn report_reads_manifests_and_timings_as_run_does() {
    let dir = temp();
    let timings = dir.path().join("t.toml");
    std::fs::write(&timings, "[containers.web]\nboot = \"2s\"\n").unwrap();
    let out = dir.path().join("r.html");
    podsim()
        .args([
            "report",
            "scenarios/ckad/graceful.yaml",
            "results/seed-sweep.csv",
            "--timings",
        ])
        .arg(&timings)
        .arg("--out")
        .arg(&out)
        .assert()
        .success()
        .stdout(predicates::str::contains("1 scenario(s), 1 sweep(s)"));
    // --timings applies to manifests only, as for run.
    podsim()
        .args(["report", SIDECAR, "--timings"])
        .arg(&timings)
        .arg("--out")
        .arg(&out)
        .assert()
        .code(1)
        .stderr(predicates::str::contains("--timings"));
}

/// `podsim report results/*.csv` draws every kind of table a sweep writes:
/// a Pod sweep (Ready against exposure), a summary (the same at the
/// medians) and a Service sweep (failed requests against termination).
#[test]
fn the_report_draws_every_bundled_result() {
    let dir = temp();
    let out = dir.path().join("all.html");
    let mut csvs: Vec<PathBuf> = std::fs::read_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join("results"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "csv"))
        .collect();
    csvs.sort();
    assert!(
        csvs.iter().any(|p| p.to_string_lossy().ends_with("-summary.csv")),
        "{csvs:?}"
    );
    assert!(
        csvs.iter().any(|p| p.to_string_lossy().contains("service")),
        "{csvs:?}"
    );
    podsim()
        .arg("report")
        .args(&csvs)
        .arg("--out")
        .arg(&out)
        .assert()
        .success();
    let page = read(&out);
    assert_eq!(page.matches("<section class=\"sweep\"").count(), csvs.len());
    assert!(
        page.contains("ready_ms_p50") || page.contains("Ready (p50"),
        "the summary plot names its medians"
    );
}

/// A Job's report tells its controller's story under its events (J1): the
/// blog's Job completes with its one Pod at 22 s.
#[test]
fn the_report_of_a_job_tells_the_job_controllers_story() {
    let dir = temp();
    let out = dir.path().join("job.html");
    podsim()
        .args(["report", "scenarios/blog-cloudsql-job.toml", "--out"])
        .arg(&out)
        .assert()
        .success();
    let page = std::fs::read_to_string(&out).unwrap();
    assert!(
        page.contains("job Complete at 22.000s after 1 Pod"),
        "no Job story in the report"
    );
}
