//! What a user types that Kubernetes or an editor made for them, answered
//! with the fix: an apiVersion Kubernetes removed (with its release), a
//! file saved as UTF-16 or Latin-1, placeholders left in a copied
//! manifest, a grace period past what the API holds.

use super::common::{TempDir, podsim, write};

/// A Pod whose one container boots in 2 s and stops 1 s after it is Ready.
const POD: &str = "\
apiVersion: v1
kind: Pod
metadata:
  name: web
  annotations:
    podsim.dev/web.boot: \"2s\"
    podsim.dev/web.drain: \"0s\"
    podsim.dev/stop_after_ready: \"1s\"
spec:
  containers:
  - name: web
    image: nginx
";

/// `podsim run` on `files`: (exit code, stderr).
fn run(files: &[&std::path::Path]) -> (Option<i32>, String) {
    let out = podsim().arg("run").args(files).output().unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn an_api_version_kubernetes_removed_is_told_with_its_release_and_the_one_to_write() {
    let dir = TempDir::new();
    // The Deprecated API Migration Guide: extensions/v1beta1 Deployments
    // stopped being served in 1.16, batch/v1beta1 CronJobs in 1.25.
    let deployment = "apiVersion: extensions/v1beta1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  \
                      template:\n    spec:\n      containers:\n      - name: web\n        image: nginx\n";
    let old = write(dir.path(), "old.yaml", deployment);
    let cron = write(
        dir.path(),
        "cron.yaml",
        "kind: CronJob\napiVersion: batch/v1beta1\nmetadata:\n  name: c\n",
    );
    let (code, stderr) = run(&[&old, &cron]);
    assert_eq!(code, Some(1));
    let (old, cron) = (old.display(), cron.display());
    assert_eq!(
        stderr,
        format!(
            "podsim: error: {old}:1:1: apiVersion \"extensions/v1beta1\" of Deployment was removed in Kubernetes \
             1.16; write apiVersion: apps/v1\n\
             podsim: error: {cron}:2:1: apiVersion \"batch/v1beta1\" of CronJob was removed in Kubernetes 1.25; \
             write apiVersion: batch/v1\n\
             podsim: error: 2 of 2 inputs refused (listed above); none ran\n"
        )
    );
}

#[test]
fn a_file_saved_as_utf16_or_latin1_is_told_to_be_saved_as_utf8() {
    let dir = TempDir::new();
    let good = write(dir.path(), "good.yaml", POD);
    // What PowerShell's `>` writes: a byte-order mark FF FE, then UTF-16LE.
    let mut utf16 = vec![0xFF, 0xFE];
    utf16.extend(POD.encode_utf16().flat_map(u16::to_le_bytes));
    let wide = dir.path().join("wide.yaml");
    std::fs::write(&wide, utf16).unwrap();
    // "café" in Latin-1: é is the single byte E9, at line 5 column 21.
    let latin = dir.path().join("latin.yaml");
    let text = POD.replace("  name: web\n", "  name: web\n  labels: {team: caf\u{e9}}\n");
    let bytes: Vec<u8> = text.chars().map(|c| c as u8).collect();
    std::fs::write(&latin, bytes).unwrap();
    let (code, stderr) = run(&[&good, &wide, &latin]);
    assert_eq!(code, Some(1));
    let (wide, latin) = (wide.display(), latin.display());
    assert_eq!(
        stderr,
        format!(
            "podsim: error: {wide}: cannot read scenario: the file is UTF-16 (byte-order mark FF FE) and podsim \
             reads UTF-8: save it as UTF-8 (`iconv -f UTF-16 -t UTF-8`; in PowerShell, `Out-File -Encoding \
             utf8`)\n\
             podsim: error: {latin}: cannot read scenario: line 5, column 21: byte E9 ('é' in Latin-1) is not \
             UTF-8: the file looks like Latin-1 or Windows-1252; save it as UTF-8 (`iconv -f LATIN1 -t UTF-8`)\n\
             podsim: error: 2 of 3 inputs refused (listed above); the other 1 ran\n"
        )
    );
    // A UTF-8 byte-order mark (Notepad's "UTF-8 with BOM") is read as UTF-8.
    let marked = write(dir.path(), "marked.yaml", &format!("\u{feff}{POD}"));
    assert_eq!(run(&[&marked]), (Some(0), String::new()));
}

#[test]
fn placeholders_are_listed_at_once_refused_in_a_name_or_image_else_noted() {
    let dir = TempDir::new();
    // The Cloud SQL Auth Proxy guide's sidecar, copied with its blanks.
    let proxy = POD.replace(
        "  - name: web\n    image: nginx\n",
        "  - name: web\n    image: gcr.io/<YOUR-PROJECT>/web:v1\n  - name: cloud-sql-proxy\n    image: \
         gcr.io/cloud-sql-connectors/cloud-sql-proxy:2.14.1\n    args: [\"--port=5432\", \
         \"<INSTANCE_CONNECTION_NAME>\"]\n",
    );
    let refused = write(dir.path(), "refused.yaml", &proxy);
    // Without the image's blank, only the args hold one: podsim does not
    // read args for a proxy, so the run stands, with the one notice.
    let noted = write(
        dir.path(),
        "noted.yaml",
        &proxy.replace("gcr.io/<YOUR-PROJECT>/web:v1", "nginx"),
    );
    let (code, stderr) = run(&[&refused, &noted]);
    assert_eq!(code, Some(1));
    let (refused, noted) = (refused.display(), noted.display());
    // The image is line 12, its blank at column 19 (after `    image: gcr.io/`);
    // the args line 15, its blank at column 28 (after `    args: ["--port=5432", "`).
    assert!(
        stderr.contains(&format!(
            "podsim: notice: {noted}:15:28: 1 placeholder to fill in: line 15 `<INSTANCE_CONNECTION_NAME>`; \
             podsim does not read these fields, so the run is the same, but write the real values before \
             kubectl apply\n"
        )),
        "{stderr}"
    );
    assert!(
        stderr.ends_with(&format!(
            "podsim: error: {refused}:12:19: 2 placeholders to fill in: line 12 `<YOUR-PROJECT>`, line 15 \
             `<INSTANCE_CONNECTION_NAME>`; Kubernetes refuses one in a name, and the kubelet one in an image \
             (InvalidImageName): write the real values\n\
             podsim: error: 1 of 2 inputs refused (listed above); the other 1 ran\n"
        )),
        "{stderr}"
    );
}

#[test]
fn a_grace_period_past_podsims_clock_is_noted_with_what_podsim_uses() {
    let dir = TempDir::new();
    // The API's int64 at its largest; podsim's clock holds u64::MAX ms,
    // 18446744073709551 whole seconds.
    let huge = POD.replace(
        "spec:\n",
        "spec:\n  terminationGracePeriodSeconds: 9223372036854775807\n",
    );
    let pod = write(dir.path(), "huge.yaml", &huge);
    let out = podsim()
        .args(["run", "--format", "json"])
        .arg(&pod)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        format!(
            "podsim: notice: {}:10:3: spec.terminationGracePeriodSeconds: 9223372036854775807 s is more than \
             podsim's clock holds; podsim uses its longest time, 18446744073709551 s (about 584 million years): \
             the grace period never runs out within a run\n",
            pod.display()
        )
    );
    // Deleted 1 s after Ready at 2 s, web drains in 0 s: the grace plays no part.
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["metrics"]["ready_ms"], 2000);
}

/// A web app with a readiness probe, as a TOML scenario.
const PROBED: &str = "\
[pod]
termination_grace_period = \"30s\"
stop_after_ready = \"1s\"

[[containers]]
name = \"web\"
kind = \"app\"
boot = \"2s\"
readiness_probe = { period = \"10s\" }
";

#[test]
fn a_length_the_api_keeps_in_whole_seconds_is_refused_with_a_fraction_in_toml_and_on_an_axis() {
    let dir = TempDir::new();
    let grace = write(dir.path(), "grace.toml", &PROBED.replace("\"30s\"", "\"1.5s\""));
    let period = write(
        dir.path(),
        "period.toml",
        &PROBED.replace("period = \"10s\"", "period = \"1500ms\""),
    );
    let (code, stderr) = run(&[&grace, &period]);
    assert_eq!(code, Some(1));
    // 1.5 s lies between 1 s and 2 s: both are offered. Each is told at its
    // value: the grace's on line 2 after `termination_grace_period = `, the
    // period's on line 9 after `readiness_probe = { period = `.
    assert!(
        stderr.contains(&format!(
            "{}:2:28: termination_grace_period \"1.5s\" is not a whole number of seconds, and the Kubernetes API \
             keeps terminationGracePeriodSeconds in whole seconds; write \"1s\" or \"2s\"\n",
            grace.display()
        )),
        "{stderr}"
    );
    assert!(
        stderr.contains(
            "container \"web\": readiness_probe.period \"1.5s\" is not a whole number of seconds, and the \
             Kubernetes API keeps readinessProbe.periodSeconds in whole seconds; write \"1s\" or \"2s\"\n"
        ),
        "{stderr}"
    );
    assert!(
        stderr.contains(&format!("{}:9:30: ", period.display())),
        "{stderr}"
    );
    // The same value on a sweep axis is refused the same way, before any run.
    let base = write(dir.path(), "base.toml", PROBED);
    let grid = write(
        dir.path(),
        "grid.toml",
        &format!(
            "base = {:?}\n[axes]\n\"containers.web.readiness_probe.period\" = [\"1s\", \"2500ms\"]\n",
            base.display().to_string()
        ),
    );
    let out = podsim()
        .args(["sweep", "--grid"])
        .arg(&grid)
        .args(["--out"])
        .arg(dir.path().join("out.csv"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("readiness_probe.period \"2.5s\" is not a whole number of seconds")
            && stderr.contains("write \"2s\" or \"3s\""),
        "{stderr}"
    );
    assert!(!dir.path().join("out.csv").exists());
}

#[test]
fn a_timings_file_naming_a_container_one_manifest_lacks_names_that_manifest() {
    let dir = TempDir::new();
    let has = write(
        dir.path(),
        "has.yaml",
        &format!("{POD}  - name: proxy\n    image: envoy\n"),
    );
    let lacks = write(
        dir.path(),
        "lacks.yaml",
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: front\nspec:\n  template:\n    spec:\n      \
         containers:\n      - name: web\n        image: nginx\n",
    );
    // `[containers.` is 12 characters: the name starts at column 13.
    let timings = write(
        dir.path(),
        "t.toml",
        "[containers.proxy]\nboot = \"1s\"\ndrain = \"0s\"\n",
    );
    let out = podsim()
        .arg("run")
        .args([&has, &lacks])
        .arg("--timings")
        .arg(&timings)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        format!(
            "podsim: error: {}:1:13: [containers.proxy]: in {}'s Deployment \"front\": unknown container \
             \"proxy\"; expected one of web\n\
             podsim: error: 1 of 2 inputs refused (listed above); the other 1 ran\n",
            timings.display(),
            lacks.display()
        )
    );
}
