//! Pictures through the real binary: `run --svg`, `plot` and `report`.
//! SVG and HTML are parsed as XML and checked for the series, marks and
//! labels they must hold; PNG is decoded and measured; expected values are
//! the seed chapter's (side by side: exposed 3–5 s and 11–13 s; sidecar: none).

use super::common::{TempDir, podsim};
use std::path::{Path, PathBuf};

use podsim::engine::SimDuration;
use podsim::model::{ContainerKind, Field, Metrics, PodSimulator};
use podsim::scenario::Scenario;
use roxmltree::{Document, Node, ParsingOptions};

pub(super) const SIDECAR: &str = "scenarios/seed-sidecar.toml";
pub(super) const SIDE_BY_SIDE: &str = "scenarios/seed-side-by-side.toml";

pub(super) fn temp() -> TempDir {
    TempDir::new()
}

pub(super) fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

pub(super) fn parse(text: &str) -> Document<'_> {
    let options = ParsingOptions {
        allow_dtd: true,
        ..ParsingOptions::default()
    };
    Document::parse_with_options(text, options).unwrap_or_else(|e| panic!("not well-formed: {e}"))
}

pub(super) fn has_class(node: &Node, class: &str) -> bool {
    node.attribute("class")
        .is_some_and(|c| c.split_whitespace().any(|c| c == class))
}

pub(super) fn with_class<'a, 'i>(root: Node<'a, 'i>, class: &str) -> Vec<Node<'a, 'i>> {
    root.descendants().filter(|n| has_class(n, class)).collect()
}

pub(super) fn attr_u64(node: &Node, name: &str) -> u64 {
    node.attribute(name)
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| panic!("no numeric {name} on {node:?}"))
}

/// The cells of a table row as text (a cell's text nodes joined, so a
/// `<wbr/>` inside a header does not split it).
pub(super) fn cells(row: Node) -> Vec<String> {
    row.children()
        .filter(|c| c.is_element())
        .map(|c| {
            c.descendants()
                .filter(|d| d.is_text())
                .filter_map(|d| d.text())
                .collect()
        })
        .collect()
}

pub(super) fn texts(root: Node) -> Vec<String> {
    root.descendants()
        .filter(|n| n.has_tag_name("text"))
        .map(|n| n.text().unwrap_or_default().to_string())
        .collect()
}

/// The seed Pod swept over the proxy's layout and the boot and drain times:
/// what the sweep's CSV holds (`run`, the axes, the metrics; absent metrics
/// empty), built through the library as the sweep does.
pub(super) fn seed_sweep_csv() -> String {
    let base = Scenario::load(&Path::new(env!("CARGO_MANIFEST_DIR")).join(SIDECAR)).unwrap();
    let mut sim = PodSimulator::new(base.run);
    let mut csv = String::from(
        "run,containers.proxy.kind,containers.proxy.boot_ms,containers.web.boot_ms,containers.web.drain_ms,",
    );
    csv.push_str(&Metrics::NAMES.join(","));
    csv.push('\n');
    let mut run = 0;
    for kind in [ContainerKind::App, ContainerKind::Sidecar] {
        for proxy_boot in [1000, 3000, 5000] {
            for web_boot in [500, 1000, 4000] {
                for web_drain in [1000, 3000] {
                    let spec = &mut sim.spec_mut().pod;
                    spec.containers[1].kind = kind;
                    spec.containers[1].boot = SimDuration(proxy_boot).into();
                    spec.containers[2].boot = SimDuration(web_boot).into();
                    spec.containers[2].drain = SimDuration(web_drain).into();
                    let metrics = sim.run();
                    let cells: Vec<String> = metrics
                        .fields()
                        .into_iter()
                        .map(|f| match f {
                            Field::Millis(v) => v.map_or(String::new(), |ms| ms.to_string()),
                            Field::Count(n) => n.to_string(),
                            Field::Text(t) => t.to_string(),
                        })
                        .collect();
                    csv.push_str(&format!(
                        "{run},{},{proxy_boot},{web_boot},{web_drain},{}\n",
                        kind.name(),
                        cells.join(",")
                    ));
                    run += 1;
                }
            }
        }
    }
    csv
}

pub(super) fn fixture(dir: &Path) -> PathBuf {
    let path = dir.join("seed-sweep.csv");
    std::fs::write(&path, seed_sweep_csv()).unwrap();
    path
}

#[test]
fn timelines_show_the_seed_layouts_side_by_side() {
    let dir = temp();
    let out = dir.path().join("seed.svg");
    podsim()
        .args(["run", SIDECAR, SIDE_BY_SIDE, "--svg"])
        .arg(&out)
        .assert()
        .success();
    let text = read(&out);
    let doc = parse(&text);
    let blocks = with_class(doc.root(), "scenario");
    let names: Vec<&str> = blocks.iter().map(|b| b.attribute("data-name").unwrap()).collect();
    assert_eq!(names, ["proxy as a native sidecar", "proxy side by side"]);

    let exposed = |block: Node| -> Vec<(u64, u64)> {
        with_class(block, "exposed")
            .iter()
            .map(|r| (attr_u64(r, "data-from"), attr_u64(r, "data-to")))
            .collect()
    };
    assert!(exposed(blocks[0]).is_empty());
    assert_eq!(exposed(blocks[1]), [(3000, 5000), (11_000, 13_000)]);

    for block in &blocks {
        let rows: Vec<&str> = with_class(*block, "row")
            .iter()
            .map(|r| r.attribute("data-container").unwrap())
            .collect();
        assert_eq!(rows, ["config-fetch", "proxy", "web"]);
    }
    // Side by side, web: waiting 0–2 s, booting 2–3 s, running 3–10 s, draining 10–13 s.
    let web = with_class(blocks[1], "row")[2];
    let bands: Vec<(&str, u64, u64)> = with_class(web, "band")
        .iter()
        .map(|b| {
            (
                b.attribute("data-state").unwrap(),
                attr_u64(b, "data-from"),
                attr_u64(b, "data-to"),
            )
        })
        .collect();
    assert_eq!(
        bands,
        [
            ("waiting", 0, 2000),
            ("booting", 2000, 3000),
            ("running", 3000, 10_000),
            ("draining", 10_000, 13_000)
        ]
    );

    // Marks of the sidecar run: 3 starts, 2 started (the init container
    // completes instead), 2 SIGTERMs, 3 clean exits; no SIGKILL.
    let marks = |block: Node, kind: &str| -> Vec<u64> {
        with_class(block, "mark")
            .iter()
            .filter(|m| m.attribute("data-kind") == Some(kind))
            .map(|m| attr_u64(m, "data-at"))
            .collect()
    };
    assert_eq!(marks(blocks[0], "start"), [0, 2000, 5000]);
    assert_eq!(marks(blocks[0], "started"), [5000, 6000]);
    assert_eq!(marks(blocks[0], "SIGTERM"), [10_000, 13_000]);
    assert_eq!(marks(blocks[0], "exit 0"), [2000, 13_000, 14_000]);
    assert!(marks(blocks[0], "SIGKILL").is_empty());

    let line = |block: Node, kind: &str| -> u64 {
        let found: Vec<Node> = with_class(block, "pod-line")
            .into_iter()
            .filter(|l| l.attribute("data-kind") == Some(kind))
            .collect();
        assert_eq!(found.len(), 1, "{kind}");
        attr_u64(&found[0], "data-at")
    };
    assert_eq!([line(blocks[0], "ready"), line(blocks[1], "ready")], [6000, 5000]);
    assert_eq!(line(blocks[1], "deletion"), 10_000);
    // 30 s of grace after the deletion at 10 s, beyond the 14 s axis: named, not drawn.
    assert_eq!(line(blocks[1], "kill-deadline"), 40_000);
    assert!(text.contains("SIGKILL deadline at 40s →"));

    let labels = texts(doc.root());
    for label in [
        "waiting",
        "booting",
        "running",
        "draining",
        "failed, back-off",
        "exposed",
        "SIGTERM",
        "SIGKILL",
        "Ready",
        "deletion",
        "time since Pod creation (s)",
        "sidecar, proxy",
    ] {
        assert!(labels.iter().any(|l| l == label), "no label {label:?}");
    }
}

#[test]
fn timeline_png_decodes_to_the_svg_size() {
    let dir = temp();
    let svg = dir.path().join("t.svg");
    let png = dir.path().join("t.png");
    podsim()
        .args(["run", SIDE_BY_SIDE, "--svg"])
        .arg(&svg)
        .assert()
        .success();
    podsim()
        .args(["run", SIDE_BY_SIDE, "--svg"])
        .arg(&png)
        .assert()
        .success();
    let text = read(&svg);
    let doc = parse(&text);
    let (w, h) = (
        attr_u64(&doc.root_element(), "width"),
        attr_u64(&doc.root_element(), "height"),
    );
    assert_eq!(png_size(&png), (w as u32, h as u32));
}

fn png_size(path: &Path) -> (u32, u32) {
    let decoder = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(path).unwrap()));
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut buf).unwrap();
    // Not blank: some pixels are dark (text, axes).
    assert!(buf.iter().any(|&b| b < 64), "PNG is blank");
    (info.width, info.height)
}

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
fn the_readme_timelines_picture_is_up_to_date() {
    let dir = temp();
    let out = dir.path().join("seed-timelines.svg");
    podsim()
        .args(["run", SIDECAR, SIDE_BY_SIDE, "--svg"])
        .arg(&out)
        .assert()
        .success();
    let committed = Path::new(env!("CARGO_MANIFEST_DIR")).join("results/seed-timelines.svg");
    assert!(
        read(&out) == read(&committed),
        "results/seed-timelines.svg is stale; remake it with: \
         cargo run --release -- run {SIDECAR} {SIDE_BY_SIDE} --svg results/seed-timelines.svg"
    );
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
