//! Rollouts end to end: the bundled rolling update through `podsim run`
//! and `podsim sweep`, and a bad rollout refused where it is written.
//!
//! The bundled scenario, worked by hand: three replicas boot in 2 s; the
//! rollout starts 10 s after traffic, T0; the new template boots in 3 s.
//! Surge 1, unavailable 0, so the three new Pods come one at a time, each
//! Ready 3 s after its creation: complete at T0 + 9 s. The last old Pod is
//! deleted then; the kubelet hears 100 ms later, the app drains 1 s, the
//! object is gone 1 s after that: T0 + 11.1 s. Never more than 4 Pods are
//! counted, and the old Pod deleted first is gone 2.1 s after its deletion,
//! before the next one is (3 s later): at most 5 objects at once.

use super::common::{TempDir, podsim, write};

const SCENARIO: &str = "scenarios/service/rollout.toml";

#[test]
fn the_bundled_rollout_reports_its_figures_in_json_and_text() {
    let out = podsim()
        .args(["run", "--format", "json", SCENARIO])
        .assert()
        .success();
    let doc: serde_json::Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    let m = &doc["metrics"];
    let figures: Vec<u64> = ["rollout_ms", "rollout_done_ms", "peak_pods", "peak_counted_pods"]
        .iter()
        .map(|k| m[k].as_u64().unwrap_or_else(|| panic!("{k} in {m}")))
        .collect();
    assert_eq!(figures, [9000, 11_100, 5, 4]);
    assert_eq!(m["min_ready_endpoints"], 3);
    // Three old Pods deleted, three new ones made.
    assert_eq!(doc["deleted"].as_array().unwrap().len(), 3);
    assert_eq!(doc["replicas"].as_array().unwrap().len(), 6);
    let text = podsim().args(["run", SCENARIO]).assert().success();
    let text = String::from_utf8(text.get_output().stdout.clone()).unwrap();
    assert!(
        text.contains(
            "rollout: new ReplicaSet available after 9.000s, last old Pod gone after 11.100s; \
             at most 5 Pods (4 counted by the controller)"
        ),
        "{text}"
    );
}

#[test]
fn only_a_grid_with_a_rollout_has_the_rollout_columns() {
    let dir = TempDir::new();
    let root = env!("CARGO_MANIFEST_DIR");
    let with = write(
        dir.path(),
        "with.toml",
        &format!("base = '{root}/{SCENARIO}'\n[axes]\n\"disruptions.0.max_surge\" = [1, \"100%\"]\n"),
    );
    let without = write(
        dir.path(),
        "without.toml",
        &format!("base = '{root}/scenarios/service/pre-stop-3s.toml'\n[axes]\nseed = [1]\n"),
    );
    let csv = |grid| {
        let out = podsim()
            .args(["sweep", "--out", "-", "--grid"])
            .arg(grid)
            .assert()
            .success();
        String::from_utf8(out.get_output().stdout.clone()).unwrap()
    };
    let with = csv(&with);
    let header = with.lines().next().unwrap();
    assert!(
        header.ends_with(",end_ms,rollout_ms,rollout_done_ms,peak_pods,peak_counted_pods"),
        "{header}"
    );
    // 100% of 3 surges all three new Pods at once: 3 s, not 9 s; 6 counted.
    let rows: Vec<Vec<&str>> = with.lines().skip(1).map(|l| l.split(',').collect()).collect();
    let tail: Vec<&[&str]> = rows.iter().map(|r| &r[r.len() - 4..]).collect();
    assert_eq!(tail[0], ["9000", "11100", "5", "4"]);
    assert_eq!(tail[1][0], "3000");
    assert_eq!(tail[1][3], "6");
    assert_eq!(rows[1][1], "100%");
    let without = csv(&without);
    assert!(without.lines().next().unwrap().ends_with(",outcome,end_ms"));
}

/// The bundled YAML rollout (nginx boots 2 s, drains 1 s, the rest as
/// the TOML one above) with a new template from the timings file: nginx
/// boots in 3 s, so the TOML scenario's figures, worked out above, come
/// back: 9 s, 11.1 s, 5 Pods, 4 counted. Without it the template is the
/// old one (`kubectl rollout restart`): three 2 s boots, 6 s, 8.1 s; the
/// next old Pod is now deleted 2 s after the first, which is gone only
/// 2.1 s after its deletion: 6 objects at once for that 0.1 s.
#[test]
fn a_rollout_from_yaml_takes_its_new_template_from_the_timings_file() {
    let dir = TempDir::new();
    let figures = |timings: Option<&std::path::Path>| -> Vec<u64> {
        let mut cmd = podsim();
        cmd.args(["run", "--format", "json", "scenarios/service/rollout.yaml"]);
        if let Some(t) = timings {
            cmd.arg("--timings").arg(t);
        }
        let out = cmd.assert().success();
        let doc: serde_json::Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
        ["rollout_ms", "rollout_done_ms", "peak_pods", "peak_counted_pods"]
            .iter()
            .map(|k| doc["metrics"][k].as_u64().unwrap_or_else(|| panic!("{k}")))
            .collect()
    };
    assert_eq!(figures(None), [6000, 8100, 6, 4]);
    let listed = write(
        dir.path(),
        "t.toml",
        "[disruptions.template.nginx]\nboot = \"3s\"\n",
    );
    assert_eq!(figures(Some(&listed)), [9000, 11_100, 5, 4]);
    let indexed = write(
        dir.path(),
        "i.toml",
        "[disruptions.0.template.nginx]\nboot = \"3s\"\n",
    );
    assert_eq!(figures(Some(&indexed)), [9000, 11_100, 5, 4]);
    // What shapes the Pod is refused as a TOML scenario refuses it; a
    // container the manifest lacks is named with the manifest.
    let kind = write(
        dir.path(),
        "k.toml",
        "[disruptions.template.nginx]\nkind = \"sidecar\"\n",
    );
    let out = podsim()
        .args(["run", "scenarios/service/rollout.yaml", "--timings"])
        .arg(&kind)
        .assert()
        .code(1);
    assert_eq!(
        String::from_utf8_lossy(&out.get_output().stderr),
        format!(
            "podsim: error: {}:2:1: [disruptions.0] template.nginx kind: kind shapes the Pod, and a new template \
             changes its timings only: the Service finds its app and proxy in the old one\n",
            kind.display()
        )
    );
    let web = write(
        dir.path(),
        "w.toml",
        "[disruptions.template.web]\nboot = \"3s\"\n",
    );
    let out = podsim()
        .args(["run", "scenarios/service/rollout.yaml", "--timings"])
        .arg(&web)
        .assert()
        .code(1);
    assert_eq!(
        String::from_utf8_lossy(&out.get_output().stderr),
        format!(
            "podsim: error: {}:2:1: [disruptions.0] template.web: in scenarios/service/rollout.yaml's Deployment \
             \"nginx-deployment\": unknown container \"web\"; expected one of nginx\n",
            web.display()
        )
    );
}

#[test]
fn a_rollout_without_a_service_is_refused_where_it_is_written() {
    let dir = TempDir::new();
    let path = write(
        dir.path(),
        "bad.toml",
        "[[disruptions]]\nat = \"30s\"\nrollout = \"RollingUpdate\"\n\n[[containers]]\nname = \"web\"\nkind = \"app\"\nboot = \"1s\"\n",
    );
    let out = podsim().arg("run").arg(&path).assert().code(1);
    let stderr = String::from_utf8(out.get_output().stderr.clone()).unwrap();
    assert!(
        stderr.contains("bad.toml:1:3: [disruptions] needs a [service] whose replicas it disrupts"),
        "{stderr}"
    );
}

#[test]
fn the_rollout_grid_gives_the_same_bytes_on_1_and_3_threads() {
    let csv = |threads: &str| {
        let out = podsim()
            .args(["sweep", "--out", "-", "--threads", threads, "--grid"])
            .arg("scenarios/service/rollout-grid.toml")
            .assert()
            .success();
        out.get_output().stdout.clone()
    };
    let one = csv("1");
    assert_eq!(one.iter().filter(|&&b| b == b'\n').count(), 721);
    assert!(one == csv("3"), "the rollout grid depends on the thread count");
}

#[test]
fn a_service_grid_without_a_rollout_keeps_its_bytes_and_its_hash() {
    let dir = TempDir::new();
    let out = dir.path().join("service.csv");
    podsim()
        .args(["sweep", "--grid", "scenarios/service/grid.toml", "--out"])
        .arg(&out)
        .assert()
        .success();
    let committed = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("results/service-sweep.csv");
    assert!(std::fs::read(&out).unwrap() == std::fs::read(committed).unwrap());
    // The grid's hash as the committed results have it (written before
    // rollouts existed): shards made then still merge with shards made now.
    let manifest = std::fs::read_to_string(dir.path().join("service.csv.manifest.json")).unwrap();
    let hash = |text: &str| {
        text.lines()
            .find(|l| l.contains("\"grid_sha256\""))
            .map(str::to_string)
    };
    let committed =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("results/service-sweep.csv.manifest.json");
    let committed = std::fs::read_to_string(committed).unwrap();
    assert!(
        hash(&manifest).is_some() && hash(&manifest) == hash(&committed),
        "{manifest}"
    );
}

/// The summary of `grid` (written into `dir`), as its header and rows.
pub fn summary_of(dir: &std::path::Path, grid: &str) -> (Vec<String>, Vec<Vec<String>>) {
    let grid = write(dir, "grid.toml", grid);
    let summary = dir.join("summary.csv");
    podsim()
        .args(["sweep", "--out", "-", "--summary"])
        .arg(&summary)
        .arg("--grid")
        .arg(grid)
        .assert()
        .success();
    let text = std::fs::read_to_string(summary).unwrap();
    let mut lines = text
        .lines()
        .map(|l| l.split(',').map(str::to_string).collect::<Vec<_>>());
    let header = lines.next().unwrap();
    (header, lines.collect())
}

#[test]
fn a_rollout_grid_summarises_the_rollout_figures_by_hand() {
    // Surge 1 (unavailable 0 of 3): as above, 9 s, 11.1 s, 5 objects, 4
    // counted. Surge 3: the three new Pods at once, all available 3 s
    // later, when the three old ones are deleted and gone 2.1 s after:
    // 3 s, 5.1 s, 6 objects, 6 counted. Nothing in them is drawn, so both
    // replications agree and every statistic is the value.
    let dir = TempDir::new();
    let root = env!("CARGO_MANIFEST_DIR");
    let (header, rows) = summary_of(
        dir.path(),
        &format!(
            "base = '{root}/{SCENARIO}'\nreplications = 2\n[axes]\n\"disruptions.0.max_surge\" = [1, 3]\n"
        ),
    );
    let cell = |row: &[String], name: &str| {
        let i = header
            .iter()
            .position(|c| c == name)
            .unwrap_or_else(|| panic!("{name} in {header:?}"));
        row[i].clone()
    };
    let expected = [
        [
            ("rollout_ms", "9000"),
            ("rollout_done_ms", "11100"),
            ("peak_pods", "5"),
            ("peak_counted_pods", "4"),
        ],
        [
            ("rollout_ms", "3000"),
            ("rollout_done_ms", "5100"),
            ("peak_pods", "6"),
            ("peak_counted_pods", "6"),
        ],
    ];
    for (row, figures) in rows.iter().zip(expected) {
        for (metric, value) in figures {
            for stat in ["mean", "p50", "p90", "p99", "min", "max"] {
                assert_eq!(cell(row, &format!("{metric}_{stat}")), value, "{metric}_{stat}");
            }
        }
        assert_eq!(cell(row, "p_rollout_unfinished"), "0");
    }
    // The rollout's columns follow the Service's, the shares after them.
    let at = |name: &str| header.iter().position(|c| c == name).unwrap();
    assert_eq!(at("rollout_ms_mean"), at("end_ms_max") + 1);
    assert_eq!(at("p_failed"), at("peak_counted_pods_max") + 1);
    assert_eq!(at("p_rollout_unfinished"), at("p_never_ready") + 1);
    assert!(!header.iter().any(|c| c.starts_with("drain_ms")), "{header:?}");
}
