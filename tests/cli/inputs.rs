//! `podsim run k8s/*.yaml` as a user types it: every valid workload runs,
//! the refused ones are listed at the end (exit 1), a file with several
//! workloads runs each under `file:Kind/name`, `-` reads standard input in
//! YAML, JSON or TOML, and `report` reads its inputs the same way.

use predicates::prelude::*;

use super::common::{TempDir, podsim, podsim_process, write};

const POD: &str = "\
apiVersion: v1
kind: Pod
metadata:
  name: web
  annotations:
    podsim.dev/web.boot: \"2s\"
    podsim.dev/stop_after_ready: \"1s\"
spec:
  containers:
  - name: web
    image: nginx
";

/// A Deployment and a Job in one file, timed so that neither has a notice.
const TWO: &str = "\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: front
spec:
  template:
    metadata:
      annotations:
        podsim.dev/web.boot: \"3s\"
        podsim.dev/web.drain: \"0s\"
        podsim.dev/stop_after_ready: \"1s\"
    spec:
      containers:
      - name: web
        image: nginx
---
apiVersion: batch/v1
kind: Job
metadata:
  name: batch
spec:
  template:
    metadata:
      annotations:
        podsim.dev/work.boot: \"1s\"
        podsim.dev/work.run: \"4s\"
        podsim.dev/work.drain: \"0s\"
    spec:
      restartPolicy: Never
      containers:
      - name: work
        image: busybox
";

fn lines(stdout: &[u8]) -> Vec<serde_json::Value> {
    String::from_utf8_lossy(stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}

#[test]
fn every_valid_workload_runs_and_the_refused_are_listed_at_the_end() {
    let dir = TempDir::new();
    let good = write(
        dir.path(),
        "a-pod.yaml",
        &POD.replace(
            "podsim.dev/web.boot",
            "podsim.dev/web.drain: \"0s\"\n    podsim.dev/web.boot",
        ),
    );
    let two = write(dir.path(), "b-two.yaml", TWO);
    let bad = write(
        dir.path(),
        "c-bad.yaml",
        &POD.replace("image: nginx", "imag: nginx"),
    );
    let helm = write(
        dir.path(),
        "d-helm.yaml",
        "kind: Pod\nmetadata:\n  name: {{ .Release.Name }}\n",
    );
    let out = podsim()
        .args(["run", "--format", "json"])
        .args([&good, &two, &bad, &helm])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let documents = lines(&out.stdout);
    let sources: Vec<&str> = documents.iter().map(|d| d["source"].as_str().unwrap()).collect();
    let (good, two, bad, helm) = (
        good.display().to_string(),
        two.display().to_string(),
        bad.display().to_string(),
        helm.display().to_string(),
    );
    assert_eq!(
        sources,
        [
            good.clone(),
            format!("{two}:Deployment/front"),
            format!("{two}:Job/batch")
        ]
    );
    let kinds: Vec<&str> = documents.iter().map(|d| d["kind"].as_str().unwrap()).collect();
    assert_eq!(kinds, ["Pod", "Deployment", "Job"]);
    // web boots 2 s; front's web 3 s; the Job's work starts at 0, started
    // at 1 s, works 4 s: Succeeded at 5 s.
    assert_eq!(documents[0]["metrics"]["ready_ms"], 2000);
    assert_eq!(documents[1]["metrics"]["ready_ms"], 3000);
    assert_eq!(documents[2]["metrics"]["completed_ms"], 5000);
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        format!(
            "podsim: error: {bad}:11:5: unknown field \"spec.containers[0].imag\" (Kubernetes rejects it); \
             did you mean \"image\"? `kubectl explain pod.spec.containers` lists the valid ones\n\
             podsim: error: {helm}:3:9: this is an unrendered Helm template ({{{{ ... }}}}), not a manifest: run \
             `helm template` first and give podsim what it prints\n\
             podsim: error: 2 of 5 inputs refused (listed above); the other 3 ran\n"
        )
    );
}

#[test]
fn one_refused_input_alone_is_its_error_only() {
    let dir = TempDir::new();
    let bad = write(dir.path(), "bad.yaml", &POD.replace("image: nginx\n", ""));
    podsim()
        .arg("run")
        .arg(&bad)
        .assert()
        .code(1)
        .stdout("")
        .stderr(format!(
            "podsim: error: {}:10:5: spec.containers[0]: container \"web\" has no image; Kubernetes requires \
             one: add image: <name:tag> (podsim does not pull it, any image will do)\n",
            bad.display()
        ));
}

#[test]
fn standard_input_is_sniffed_or_read_as_told() {
    let json = "{\"apiVersion\": \"v1\", \"kind\": \"Pod\", \"metadata\": {\"name\": \"j\", \"annotations\": \
                {\"podsim.dev/web.boot\": \"4s\"}},\n \"spec\": {\"containers\": [{\"name\": \"web\", \"image\": \"nginx\"}]}}\n";
    let out = podsim()
        .args(["run", "-", "--format", "json"])
        .write_stdin(json)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let document = &lines(&out.stdout)[0];
    assert_eq!(
        (document["source"].as_str(), document["kind"].as_str()),
        (Some("<stdin>"), Some("Pod"))
    );
    assert_eq!(document["metrics"]["ready_ms"], 4000);
    // YAML on stdin, errors named <stdin>.
    podsim()
        .args(["run", "-"])
        .write_stdin(POD.replace("name: web\n    image", "name: Web\n    image"))
        .assert()
        .code(1)
        .stderr(predicate::str::starts_with(
            "podsim: error: <stdin>:10:11: spec.containers[0].name: \"Web\" is not a container name",
        ));
    // A TOML scenario is recognised, or told.
    let seed = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/scenarios/seed-sidecar.toml"
    ))
    .unwrap();
    for args in [
        &["run", "-", "--format", "json"][..],
        &["run", "-", "--format", "json", "--input-format", "toml"],
    ] {
        let out = podsim().args(args).write_stdin(seed.clone()).output().unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        assert_eq!(
            lines(&out.stdout)[0]["metrics"]["ready_ms"],
            6000,
            "the seed figure"
        );
    }
    // A table header still being typed is TOML's error, not JSON's.
    podsim()
        .args(["run", "-"])
        .write_stdin("[pod\nstop_at = \"1s\"\n")
        .assert()
        .code(1)
        .stderr(
            predicate::str::starts_with("podsim: error: <stdin>:1:")
                .and(predicate::str::contains("JSON").not()),
        );
    podsim()
        .args(["run", "-", "-"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("`-` (standard input) can be given once"));
}

#[test]
fn report_reads_several_workloads_and_refuses_to_write_a_page_missing_one() {
    let dir = TempDir::new();
    let two = write(dir.path(), "two.yaml", TWO);
    let bad = write(
        dir.path(),
        "bad.yaml",
        "apiVersion: serving.knative.dev/v1\nkind: Service\nmetadata:\n  name: k\n",
    );
    let out = dir.path().join("r.html");
    podsim()
        .arg("report")
        .arg(&two)
        .arg("--out")
        .arg(&out)
        .assert()
        .success()
        .stdout(predicate::str::contains("2 scenario(s), 0 sweep(s)"));
    std::fs::remove_file(&out).unwrap();
    podsim()
        .arg("report")
        .arg(&two)
        .arg(&bad)
        .arg("--out")
        .arg(&out)
        .assert()
        .code(1)
        .stderr(predicate::str::contains(
            "Knative Service (serving.knative.dev/v1) is a custom resource",
        ))
        .stderr(predicate::str::contains(
            "1 of 3 inputs refused (listed above); nothing written",
        ));
    assert!(!out.exists(), "no page without every input");
}

#[test]
fn input_format_reads_a_file_whatever_its_name() {
    let dir = TempDir::new();
    let pod = write(dir.path(), "pod.txt", POD);
    // By its name, a TOML scenario: YAML is not TOML.
    podsim().arg("run").arg(&pod).assert().code(1);
    let out = podsim()
        .args(["run", "--format", "json", "--input-format", "yaml"])
        .arg(&pod)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(lines(&out.stdout)[0]["metrics"]["ready_ms"], 2000);
}

#[test]
fn a_missing_file_among_several_inputs_keeps_its_cause() {
    // Alone, a missing file says why it cannot be read; listed among
    // refusals it said only "cannot read scenario".
    let dir = TempDir::new();
    let good = write(dir.path(), "good.yaml", POD);
    let missing = dir.path().join("missing.toml");
    podsim()
        .arg("run")
        .args([&good, &missing])
        .assert()
        .code(1)
        .stderr(predicate::str::ends_with(format!(
            "podsim: error: {}: cannot read scenario: No such file or directory (os error 2)\n\
             podsim: error: 1 of 2 inputs refused (listed above); the other 1 ran\n",
            missing.display()
        )));
}

/// An endless input is refused once it passes the cap, not read until
/// memory runs out (`podsim run - < /dev/zero` once grew to 2.1 GB in 5 s):
/// standard input and a named file alike. (`/dev/zero` is opened as the
/// child's standard input directly: assert_cmd's `pipe_stdin` would read
/// it whole first.)
#[test]
fn an_endless_input_is_refused_at_the_cap() {
    let cases = [
        (["run", "-"], "<stdin>: cannot read standard input"),
        (["run", "/dev/zero"], "/dev/zero: cannot read scenario"),
    ];
    for (args, what) in cases {
        let out = podsim_process()
            .args(args)
            .stdin(std::fs::File::open("/dev/zero").unwrap())
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{stderr}");
        assert!(
            stderr.contains(&format!("{what}: it holds more than 64 MiB")),
            "{stderr}"
        );
    }
}
