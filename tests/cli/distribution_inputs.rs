//! Distributions as people write them outside a grid: in a manifest's
//! podsim.dev/ annotations, in a `--timings` file and in a scenario, the
//! same spelling giving the same draws, and every bad one refused with its
//! file, line and column.

use std::fs;
use std::path::Path;

use predicates::prelude::*;

use super::common::{TempDir, podsim, write};

#[test]
fn annotations_and_timings_files_take_the_same_spelling() {
    let dir = TempDir::new();
    let yaml = fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/ckad/graceful.yaml"))
        .unwrap()
        .replace(
            "podsim.dev/web.boot: \"2s\"",
            "podsim.dev/web.boot: '{ dist = \"lognormal\", median = \"2s\", p99 = \"7s\" }'",
        );
    let pod = write(dir.path(), "pod.yaml", &yaml);
    let boots = |extra: &[&str]| -> String {
        let out = podsim()
            .arg("run")
            .arg(&pod)
            .args(["--replications", "200", "--format", "json"])
            .args(extra)
            .assert()
            .success();
        let doc: serde_json::Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
        doc["distribution"]["ready_ms"].to_string()
    };
    let annotated = boots(&[]);
    // A fixed 2 s boot would make every replication alike; this one varies.
    assert!(
        !annotated.contains("\"min\":3000.0,\"p50\":3000.0"),
        "{annotated}"
    );
    let timings = write(
        dir.path(),
        "timings.toml",
        "[containers.web]\nboot = { dist = \"lognormal\", median = \"2s\", p99 = \"7s\" }\n",
    );
    let fixed_pod = write(
        dir.path(),
        "fixed.yaml",
        &yaml.replace(
            "'{ dist = \"lognormal\", median = \"2s\", p99 = \"7s\" }'",
            "\"2s\"",
        ),
    );
    let out = podsim()
        .arg("run")
        .arg(&fixed_pod)
        .arg("--timings")
        .arg(&timings)
        .args(["--replications", "200", "--format", "json"])
        .assert()
        .success();
    let doc: serde_json::Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    // Same key, same container, same seed: the same draws either way.
    assert_eq!(doc["distribution"]["ready_ms"].to_string(), annotated);
    let bad = write(
        dir.path(),
        "bad.yaml",
        &yaml.replace("\"lognormal\"", "\"lognorm\""),
    );
    podsim()
        .arg("run")
        .arg(&bad)
        .assert()
        .code(1)
        .stderr(predicate::str::contains(
            "unknown dist \"lognorm\"; did you mean \"lognormal\"?",
        ));
}

#[test]
fn every_bad_distribution_is_a_located_error_with_exit_1() {
    let dir = TempDir::new();
    let cases = [
        (
            "boot = { dist = \"weibull\", mean = \"1s\" }",
            "unknown dist \"weibull\"",
        ),
        (
            "boot = { dist = \"lognormal\", median = \"2s\" }",
            "needs median and p99",
        ),
        (
            "boot = { dist = \"uniform\", min = \"-1s\", max = \"2s\" }",
            "min: negative duration",
        ),
        (
            "boot = { dist = \"lognormal\", median = \"2s\", p99 = \"1s\" }",
            "p99 (1s) is below median (2s)",
        ),
        ("boot = { dist = \"empirical\", values = [] }", "values is empty"),
        ("boot = \"1s\"\nfail_probability = 1.2", "must be from 0 to 1"),
        ("boot = \"1s\"\nfail_probability = -0.5", "must be from 0 to 1"),
    ];
    for (i, (line, message)) in cases.iter().enumerate() {
        let name = format!("bad-{i}.toml");
        let path = write(
            dir.path(),
            &name,
            &format!("[[containers]]\nname = \"web\"\nkind = \"app\"\n{line}\n"),
        );
        let out = podsim().arg("run").arg(&path).assert().code(1);
        let stderr = String::from_utf8(out.get_output().stderr.clone()).unwrap();
        assert!(
            stderr.contains(&format!("{name}:")) && stderr.contains(message),
            "{line}: {stderr}"
        );
        // file:line:col, on the line of the value.
        let located = format!(
            "{name}:{}:",
            if line.contains("fail_probability") { 5 } else { 4 }
        );
        assert!(stderr.contains(&located), "{line}: {stderr}");
    }
}
