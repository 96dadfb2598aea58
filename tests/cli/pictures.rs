//! Pictures through the real binary: `run --svg`'s timelines, and the
//! helpers `plot` and `report` share. SVG and HTML are parsed as XML and
//! checked for the series, marks and labels they must hold; PNG is decoded
//! and measured; expected values are the seed chapter's (side by side:
//! exposed 3–5 s and 11–13 s; sidecar: none).

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

/// Each timeline band below `row` as (state, from ms, to ms), in the
/// picture's order.
pub(super) fn bands<'a>(row: Node<'a, '_>) -> Vec<(&'a str, u64, u64)> {
    with_class(row, "band")
        .iter()
        .map(|b| {
            (
                b.attribute("data-state").unwrap(),
                attr_u64(b, "data-from"),
                attr_u64(b, "data-to"),
            )
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
    assert_eq!(
        bands(web),
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

pub(super) fn png_size(path: &Path) -> (u32, u32) {
    let decoder = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(path).unwrap()));
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut buf).unwrap();
    // Not blank: some pixels are dark (text, axes).
    assert!(buf.iter().any(|&b| b < 64), "PNG is blank");
    (info.width, info.height)
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
