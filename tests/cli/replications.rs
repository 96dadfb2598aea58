//! Sweeps with distributions and replications: the `replication` column,
//! the summary against a brute-force computation over the rows, bytes that
//! do not depend on threads or shards, common random numbers, bad input.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use predicates::prelude::*;

use super::common::{TempDir, podsim, write};

/// The seed Pod side by side, its proxy Ready in a lognormal time (median
/// 2 s, p99 7 s), deleted 10 s after Ready.
const BASE: &str = r#"
[pod]
stop_after_ready = "10s"
[[containers]]
name = "proxy"
kind = "app"
boot = { dist = "lognormal", median = "2s", p99 = "7s" }
drain = "1s"
proxy = true
[[containers]]
name = "web"
kind = "app"
boot = "1s"
drain = { dist = "uniform", min = "1s", max = "5s" }
"#;

/// A folder with the base above and a grid over it with `head` and `axes`.
fn grid(head: &str, axes: &str) -> (TempDir, PathBuf) {
    let dir = TempDir::new();
    write(dir.path(), "base.toml", BASE);
    let grid = write(
        dir.path(),
        "grid.toml",
        &format!("base = \"base.toml\"\n{head}\n[axes]\n{axes}"),
    );
    (dir, grid)
}

/// Runs a sweep writing `csv` and `summary` in `dir`; returns both files' bytes.
fn sweep(dir: &Path, grid: &Path, extra: &[&str]) -> (Vec<u8>, Vec<u8>) {
    let (csv, summary) = (dir.join("out.csv"), dir.join("summary.csv"));
    podsim()
        .args(["sweep", "--force", "--grid"])
        .arg(grid)
        .arg("--out")
        .arg(&csv)
        .arg("--summary")
        .arg(&summary)
        .args(extra)
        .assert()
        .success();
    (fs::read(&csv).unwrap(), fs::read(&summary).unwrap())
}

/// The rows of a CSV as maps from column to cell.
fn rows(bytes: &[u8]) -> Vec<BTreeMap<String, String>> {
    let mut reader = csv::Reader::from_reader(bytes);
    let header: Vec<String> = reader.headers().unwrap().iter().map(String::from).collect();
    reader
        .records()
        .map(|r| {
            header
                .iter()
                .cloned()
                .zip(r.unwrap().iter().map(String::from))
                .collect()
        })
        .collect()
}

#[test]
fn replications_add_a_column_and_run_each_combination_that_often() {
    let (dir, grid) = grid(
        "replications = 3\nseed = 5",
        "\"containers.web.boot\" = [\"1s\", \"2s\"]",
    );
    let (csv, _) = sweep(dir.path(), &grid, &[]);
    let text = String::from_utf8(csv.clone()).unwrap();
    assert!(
        text.starts_with("run,replication,containers.web.boot_ms,ready_ms,"),
        "{text}"
    );
    let rows = rows(&csv);
    let keys: Vec<(&str, &str)> = rows
        .iter()
        .map(|r| (r["run"].as_str(), r["replication"].as_str()))
        .collect();
    assert_eq!(
        keys,
        [
            ("0", "0"),
            ("0", "1"),
            ("0", "2"),
            ("1", "0"),
            ("1", "1"),
            ("1", "2")
        ]
    );
    // Replications draw different proxy boots, so different Ready times.
    assert_ne!(rows[0]["ready_ms"], rows[1]["ready_ms"]);
    // --seed replaces the grid's seed: other draws, the same shape.
    let (other, _) = sweep(dir.path(), &grid, &["--seed", "6"]);
    assert_ne!(other, csv);
    assert_eq!(self::rows(&other).len(), 6);
}

#[test]
fn common_random_numbers_leave_what_an_axis_cannot_touch_unchanged() {
    // web's drain only acts after the deletion: Ready is the same for both
    // values in every replication, because replication r draws the same
    // proxy boot whatever the other axes say.
    let (dir, grid) = grid(
        "replications = 200",
        "\"containers.web.drain\" = [\"1s\", { dist = \"exponential\", mean = \"3s\" }]",
    );
    let rows = rows(&sweep(dir.path(), &grid, &[]).0);
    let ready = |run: &str| -> Vec<String> {
        rows.iter()
            .filter(|r| r["run"] == run)
            .map(|r| r["ready_ms"].clone())
            .collect()
    };
    assert_eq!(ready("0"), ready("1"));
    assert_eq!(ready("0").len(), 200);
    // The distribution is spelled in its cell; fixed values too.
    assert_eq!(rows[0]["containers.web.drain"], "1s");
    assert_eq!(rows[200]["containers.web.drain"], "exponential mean=3s");
    // And termination does depend on the drain.
    let termination: Vec<&String> = rows.iter().map(|r| &r["termination_ms"]).collect();
    assert_ne!(termination[..200], termination[200..]);
}

/// Nearest rank, written out: the ceil(p·n/100)-th smallest value.
fn percentile(sorted: &[f64], p: f64) -> f64 {
    let rank = (p * sorted.len() as f64 / 100.0).ceil().max(1.0) as usize;
    sorted[rank - 1]
}

#[test]
fn the_summary_equals_a_brute_force_computation_over_the_rows() {
    let (dir, grid) = grid(
        "replications = 101\nseed = 3",
        "\"containers.web.boot\" = [\"1s\", \"4s\"]\n\"pod.stop_after_ready\" = [\"1s\", \"10s\"]",
    );
    let (csv, summary) = sweep(dir.path(), &grid, &[]);
    let (rows, summary) = (rows(&csv), rows(&summary));
    assert_eq!(summary.len(), 4);
    for line in &summary {
        let mine: Vec<&BTreeMap<String, String>> = rows.iter().filter(|r| r["run"] == line["run"]).collect();
        assert_eq!(line["replications"], mine.len().to_string());
        assert_eq!(line["containers.web.boot_ms"], mine[0]["containers.web.boot_ms"]);
        for metric in [
            "ready_ms",
            "exposed_total_ms",
            "termination_ms",
            "restarts",
            "end_ms",
        ] {
            let mut v: Vec<f64> = mine.iter().filter_map(|r| r[metric].parse().ok()).collect();
            v.sort_by(f64::total_cmp);
            let mean = v.iter().sum::<f64>() / v.len() as f64;
            let cell = |s: &str| line[&format!("{metric}_{s}")].parse::<f64>().unwrap();
            assert!((cell("mean") - mean).abs() < 0.0005, "{metric} mean");
            for (stat, p) in [("p50", 50.0), ("p90", 90.0), ("p99", 99.0), ("max", 100.0)] {
                assert_eq!(cell(stat), percentile(&v, p), "{metric} {stat}");
            }
            assert_eq!(cell("min"), v[0]);
            if metric == "ready_ms" || metric == "exposed_total_ms" {
                let sd = (v.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (v.len() - 1) as f64).sqrt();
                let half = 1.96 * sd / (v.len() as f64).sqrt();
                let got: f64 = line[&format!("{metric}_ci95")].parse().unwrap();
                assert!(
                    (got - half).abs() < 0.01 * half.max(1.0),
                    "{metric} ci95 {got} {half}"
                );
            }
        }
        let share = |f: &dyn Fn(&BTreeMap<String, String>) -> bool| {
            mine.iter().filter(|r| f(r)).count() as f64 / mine.len() as f64
        };
        let p = |c: &str| line[c].parse::<f64>().unwrap();
        assert!((p("p_exposed") - share(&|r| r["exposed_total_ms"] != "0")).abs() < 0.0005);
        assert!((p("p_sigkilled") - share(&|r| r["sigkilled"] != "0")).abs() < 0.0005);
        assert!((p("p_never_ready") - share(&|r| r["ready_ms"].is_empty())).abs() < 0.0005);
    }
    // Side by side the app is exposed at startup whenever the proxy boots
    // more than web's 1 s: with median 2 s, most of the time.
    assert!(summary[0]["p_exposed"].parse::<f64>().unwrap() > 0.5);
}

#[test]
fn csv_and_summary_are_the_same_on_any_threads_and_merged_shards() {
    let (dir, grid) = grid(
        "replications = 37",
        "\"containers.web.boot\" = { from = \"0s\", to = \"3s\", step = \"250ms\" }\n\
         \"containers.proxy.drain\" = [\"0s\", \"2s\"]",
    );
    let one = sweep(dir.path(), &grid, &["--threads", "1"]);
    assert_eq!(sweep(dir.path(), &grid, &["--threads", "2"]), one);
    assert_eq!(sweep(dir.path(), &grid, &["--threads", "8"]), one);
    // 26 combinations in 4 shards, each with all its replications.
    let part = |k: u32, what: &str| dir.path().join(format!("{what}-{k}.csv"));
    for k in 0..4 {
        podsim()
            .args(["sweep", "--grid"])
            .arg(&grid)
            .arg("--out")
            .arg(part(k, "csv"))
            .arg("--summary")
            .arg(part(k, "summary"))
            .args(["--shard", &format!("{k}/4"), "--threads", "2"])
            .assert()
            .success();
    }
    // The merge counts rows: 26 × 37 = 962 in the CSV, 26 in the summary.
    for (what, whole, rows) in [("csv", &one.0, 962), ("summary", &one.1, 26)] {
        let merged = dir.path().join(format!("merged-{what}.csv"));
        podsim()
            .arg("merge")
            .arg(&merged)
            .args((0..4).rev().map(|k| part(k, what)))
            .assert()
            .success()
            .stdout(predicates::str::starts_with(format!(
                "merged 4 shards: {rows} rows ("
            )));
        assert!(&fs::read(&merged).unwrap() == whole, "{what}");
    }
}

#[test]
fn one_replication_without_distributions_keeps_the_manifest_of_before() {
    let dir = TempDir::new();
    let csv = dir.path().join("seed.csv");
    podsim()
        .args([
            "sweep",
            "--grid",
            "scenarios/seed-grid.toml",
            "--replications",
            "1",
            "--out",
        ])
        .arg(&csv)
        .assert()
        .success();
    let manifest = fs::read_to_string(format!("{}.manifest.json", csv.display())).unwrap();
    assert!(!manifest.contains("replications"), "{manifest}");
    let committed = Path::new(env!("CARGO_MANIFEST_DIR")).join("results/seed-sweep.csv");
    assert!(fs::read(&csv).unwrap() == fs::read(committed).unwrap());
}

#[test]
fn bad_replications_and_distributions_are_located() {
    let refused = |head: &str, axes: &str, message: &str| {
        let (_dir, grid) = grid(head, axes);
        podsim()
            .args(["sweep", "--out", "-", "--grid"])
            .arg(&grid)
            .assert()
            .code(1)
            .stderr(predicate::str::contains(message));
    };
    refused(
        "replications = 0",
        "\"containers.web.boot\" = [\"1s\"]",
        "grid.toml:2:16: replications must be at least 1",
    );
    refused(
        "",
        "\"containers.web.boot\" = [{ dist = \"gamma\", mean = \"1s\" }]",
        "grid.toml:4:26: axis \"containers.web.boot\": unknown dist \"gamma\"",
    );
    refused(
        "",
        "\"pod.termination_grace_period\" = [{ dist = \"exponential\", mean = \"1s\" }]",
        "termination_grace_period",
    );
    podsim()
        .args([
            "sweep",
            "--grid",
            "scenarios/seed-grid.toml",
            "--out",
            "-",
            "--replications",
            "0",
        ])
        .assert()
        .code(2);
}

#[test]
fn pictures_of_distributions_come_as_svg_png_and_in_the_report() {
    let (dir, grid) = grid(
        "replications = 50",
        "\"containers.proxy.kind\" = [\"sidecar\", \"app\"]\n\"containers.web.boot\" = [\"1s\", \"3s\"]",
    );
    sweep(dir.path(), &grid, &[]);
    let csv = dir.path().join("out.csv");
    let ecdf = dir.path().join("ecdf.svg");
    podsim()
        .arg("plot")
        .arg(&csv)
        .args([
            "--ecdf",
            "ready_ms",
            "--only",
            "containers.web.boot_ms=1000",
            "--out",
        ])
        .arg(&ecdf)
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "empirical CDF of ready_ms, sidecar, app",
        ));
    let svg = fs::read_to_string(&ecdf).unwrap();
    let doc = roxmltree::Document::parse(&svg).unwrap();
    let curves: Vec<(&str, &str)> = doc
        .descendants()
        .filter(|n| n.attribute("class") == Some("curve"))
        .map(|n| {
            (
                n.attribute("data-group").unwrap(),
                n.attribute("data-runs").unwrap(),
            )
        })
        .collect();
    assert_eq!(curves, [("sidecar", "50"), ("app", "50")]);
    let png = dir.path().join("ecdf.png");
    podsim()
        .arg("plot")
        .arg(&csv)
        .args(["--ecdf", "ready_ms", "--out"])
        .arg(&png)
        .assert()
        .success();
    assert!(fs::read(&png).unwrap().starts_with(b"\x89PNG"));
    // The scatter draws 4 combinations, each with its whiskers.
    let scatter = dir.path().join("scatter.svg");
    podsim()
        .arg("plot")
        .arg(&csv)
        .arg("--out")
        .arg(&scatter)
        .assert()
        .success();
    let svg = fs::read_to_string(&scatter).unwrap();
    let doc = roxmltree::Document::parse(&svg).unwrap();
    let spreads = doc
        .descendants()
        .filter(|n| n.attribute("class") == Some("spread"))
        .count();
    assert_eq!(spreads, 2, "one whisker group per layout");
    assert!(
        svg.contains("4 configurations × 50 replications of"),
        "one point per combination, each standing for its 50 replications"
    );
    let report = dir.path().join("report.html");
    podsim()
        .arg("report")
        .arg(&csv)
        .arg("--out")
        .arg(&report)
        .assert()
        .success();
    assert!(
        fs::read_to_string(&report)
            .unwrap()
            .contains("<figure class=\"ecdf\">")
    );
    // An unknown metric is named with the columns there are.
    podsim()
        .arg("plot")
        .arg(&csv)
        .args(["--ecdf", "redy_ms"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("did you mean \"ready_ms\"?"));
}

#[test]
fn run_with_replications_prints_the_distribution_a_sweep_summarises() {
    let out = podsim()
        .args(["run", "scenarios/mesh-startup.toml", "--replications", "100"])
        .assert()
        .success();
    let text = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    assert!(
        text.contains("distribution over 100 replications (seed 0; percentiles by nearest rank)"),
        "{text}"
    );
    assert!(
        text.contains("p_exposed 0  p_sigkilled 0  p_never_ready 0"),
        "{text}"
    );
    let json = |extra: &[&str]| -> serde_json::Value {
        let out = podsim()
            .args(["run", "scenarios/mesh-startup.toml", "--format", "json"])
            .args(extra)
            .assert()
            .success();
        serde_json::from_slice(&out.get_output().stdout).unwrap()
    };
    let doc = json(&["--replications", "100"]);
    let p50 = doc["distribution"]["ready_ms"]["p50"].as_f64().unwrap();
    // The same scenario swept once with 100 replications summarises alike.
    let dir = TempDir::new();
    let mesh = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/mesh-startup.toml");
    let grid = write(
        dir.path(),
        "grid.toml",
        &format!(
            "base = '{}'\nreplications = 100\n[axes]\n\"containers.web.boot\" = [\"1s\"]\n",
            mesh.display()
        ),
    );
    let (_, summary) = sweep(dir.path(), &grid, &[]);
    assert_eq!(rows(&summary)[0]["ready_ms_p50"], format!("{p50}"));
    // --replication K shows replication K's own timeline: another proxy boot.
    let ready = |doc: &serde_json::Value| doc["metrics"]["ready_ms"].clone();
    let (zero, three) = (json(&[]), json(&["--replication", "3"]));
    let again = json(&["--replication", "3", "--seed", "0"]);
    assert_eq!(ready(&three), ready(&again));
    let differs = (1..6).any(|k| ready(&json(&["--replication", &k.to_string()])) != ready(&zero));
    assert!(differs);
}

/// The seed's sidecar Pod has fixed durations only: its replications are
/// one run, and `run` says so on stderr (the distribution is printed all
/// the same); the mesh Pod's proxy boot is drawn, and nothing is said.
#[test]
fn replications_of_a_scenario_without_draws_are_said_to_be_alike() {
    let stderr = |file: &str| {
        let out = podsim()
            .args(["run", file, "--replications", "20"])
            .assert()
            .success();
        String::from_utf8(out.get_output().stderr.clone()).unwrap()
    };
    let fixed = stderr("scenarios/seed-sidecar.toml");
    assert_eq!(
        fixed,
        "podsim: notice: proxy as a native sidecar: all 20 replications measured exactly the same: \
         nothing drawn at random changes this scenario, so every run is the same; a distribution \
         (boot = { dist = \"lognormal\", median = \"3s\", p99 = \"10s\" }) makes them differ\n"
    );
    assert_eq!(stderr("scenarios/mesh-startup.toml"), "");
}
