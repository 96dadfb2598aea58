//! `podsim run` on Kubernetes YAML as a user types it: the CKAD lab runs,
//! an overlay changes timings, notices go to stderr, typos are errors that
//! point at the line and suggest the fix.

use predicates::prelude::*;

use super::common::{TempDir, podsim, write};

fn file(dir: &TempDir, name: &str, text: &str) -> String {
    write(dir.path(), name, text).display().to_string()
}

fn json(output: &[u8]) -> serde_json::Value {
    serde_json::from_slice(output).unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(output)))
}

const BARE: &str = "\
apiVersion: v1
kind: Pod
metadata:
  name: bare
spec:
  containers:
  - name: web
    image: nginx
";

#[test]
fn the_ckad_lab_runs_side_by_side_with_notices_only_for_the_pods_never_deleted() {
    let files = [
        "app-init",
        "ordered-init",
        "log-shipper",
        "ambassador-pod",
        "adapter-pod",
        "graceful",
    ];
    let paths: Vec<String> = files.iter().map(|f| format!("scenarios/ckad/{f}.yaml")).collect();
    let never = "the Pod is never deleted; add podsim.dev/stop_after_ready (or [pod] stop_after_ready in \
                 --timings) to see shutdown";
    let mut assert = podsim()
        .arg("run")
        .args(&paths)
        .assert()
        .success()
        .stderr(format!(
            "podsim: notice: scenarios/ckad/ordered-init.yaml:3:1: {never}\n\
         podsim: notice: scenarios/ckad/adapter-pod.yaml:20:5: container \"app\": its command line \
         (`/bin/sh -c 'sleep 3600'`) exits 0 after sleeping 1h, so podsim runs it for run = \"1h\" after its \
         boot, with exit_code 0; annotate podsim.dev/app.run (or write run under [containers.app] in \
         --timings) to change it\n\
         podsim: notice: scenarios/ckad/adapter-pod.yaml:5:1: {never}\n"
        ));
    for f in files {
        assert = assert.stdout(predicate::str::contains(format!(
            "== {f} (scenarios/ckad/{f}.yaml)"
        )));
    }
    assert.stdout(predicate::str::contains("== side by side"));
}

#[test]
fn graceful_as_json_terminates_in_15s_without_sigkill() {
    let out = podsim()
        .args(["run", "scenarios/ckad/graceful.yaml", "--format", "json"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let metrics = &json(&out.stdout)["metrics"];
    assert_eq!(metrics["termination_ms"], 15_000);
    assert_eq!(metrics["sigkilled"], 0);
}

#[test]
fn a_timings_overlay_wins_over_the_annotations() {
    let dir = TempDir::new();
    let timings = file(&dir, "t.toml", "[containers.web]\nboot = \"5s\"\n");
    let out = podsim()
        .args([
            "run",
            "scenarios/ckad/graceful.yaml",
            "--format",
            "json",
            "--timings",
            &timings,
        ])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    // drainer started at 1 s, web boots 5 s instead of the annotated 2 s.
    assert_eq!(json(&out.stdout)["metrics"]["ready_ms"], 6000);
}

#[test]
fn assumed_timings_are_notices_on_stderr_and_json_stays_clean() {
    let dir = TempDir::new();
    let pod = file(&dir, "bare.yaml", BARE);
    let out = podsim().args(["run", &pod, "--format", "json"]).output().unwrap();
    assert!(out.status.success());
    let document = json(&out.stdout);
    assert_eq!(document["metrics"]["ready_ms"], 1000);
    // Never deleted: its drain never matters, so only boot is assumed.
    let assumed = "container \"web\": podsim assumes boot 1s (annotate podsim.dev/web.boot or use --timings)";
    let never = "the Pod is never deleted; add podsim.dev/stop_after_ready (or [pod] stop_after_ready in \
                 --timings) to see shutdown";
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        stderr,
        format!("podsim: notice: {pod}:7:5: {assumed}\npodsim: notice: {pod}:1:1: {never}\n")
    );
    // The JSON carries the same notices, with their places.
    assert_eq!(
        document["notices"],
        serde_json::json!([
            {"file": pod, "line": 7, "column": 5, "message": assumed},
            {"file": pod, "line": 1, "column": 1, "message": never},
        ])
    );
}

#[test]
fn an_annotation_typo_is_an_error_at_its_line_with_a_suggestion() {
    let dir = TempDir::new();
    let text = BARE.replace(
        "  name: bare\n",
        "  name: bare\n  annotations:\n    podsim.dev/web.bot: \"2s\"\n",
    );
    let pod = file(&dir, "typo.yaml", &text);
    podsim()
        .args(["run", &pod])
        .assert()
        .code(1)
        .stdout("")
        .stderr(format!(
            "podsim: error: {pod}:6:5: annotation \"podsim.dev/web.bot\": unknown timing key \"bot\"; \
         did you mean \"boot\"? expected one of boot, drain, pre_stop, fails, fail_probability, proxy, crash_after, run, exit_code, \
         startup_probe.outcome, startup_probe.pass_after, startup_probe.pass_until, readiness_probe.outcome, \
         readiness_probe.pass_after, readiness_probe.pass_until, liveness_probe.outcome, liveness_probe.pass_after, \
         liveness_probe.pass_until, exit_code_on_sigterm, drains_on, post_start, post_start_fails, image_pull\n"
        ));
}

#[test]
fn a_kubernetes_rule_broken_is_an_error_naming_the_field() {
    let dir = TempDir::new();
    let text = BARE.replace(
        "spec:\n",
        "spec:\n  initContainers:\n  - name: proxy\n    image: envoy\n    restartPolicy: Sometimes\n",
    );
    let pod = file(&dir, "policy.yaml", &text);
    podsim()
        .args(["run", &pod])
        .assert()
        .code(1)
        .stderr(predicate::str::contains(format!(
            "{pod}:9:20: spec.initContainers[0].restartPolicy: init container \"proxy\": restartPolicy \"Sometimes\""
        )));
}

#[test]
fn timings_for_a_toml_scenario_or_an_unknown_container_are_refused() {
    let dir = TempDir::new();
    let timings = file(&dir, "t.toml", "[containers.wbe]\nboot = \"5s\"\n");
    podsim()
        .args(["run", "scenarios/seed-sidecar.toml", "--timings", &timings])
        .assert()
        .code(1)
        .stderr(predicate::str::contains(
            "applies to Kubernetes manifests (.yaml, .yml, .json); write the timings into this TOML",
        ));
    podsim()
        .args(["run", "scenarios/ckad/graceful.yaml", "--timings", &timings])
        .assert()
        .code(1)
        .stderr(format!(
            "podsim: error: {timings}:1:13: [containers.wbe]: in scenarios/ckad/graceful.yaml's Pod \"graceful\": \
             unknown container \"wbe\"; did you mean \"web\"? expected one of drainer, web\n"
        ));
}

#[test]
fn a_spec_problem_set_in_the_timings_file_points_at_its_key() {
    // exit_code without run (the app never exits, so no code to exit with):
    // the fault is the timings file's line 3, not the manifest's container.
    let dir = TempDir::new();
    let timings = file(&dir, "t.toml", "[containers.web]\nboot = \"2s\"\nexit_code = 3\n");
    podsim()
        .args(["run", "scenarios/ckad/graceful.yaml", "--timings", &timings])
        .assert()
        .code(1)
        .stderr(format!(
            "podsim: error: {timings}:3:1: container \"web\": exit_code needs run (the time after which the app exits), \
             or fails or fail_probability (the attempts that exit with it)\n"
        ));
}

/// `scenarios/service/rollout.yaml` written as a TOML scenario, key by key.
const ROLLOUT_TOML: &str = r#"name = "nginx-deployment"
seed = 1
[service]
replicas = 3
propagation = "tiny"
kubelet_delay = "100ms"
min_sync_period = "1s"
[traffic]
rate = 50
arrival = "poisson"
connections = "new"
clients = 3
service_time = "20ms"
[app]
on_sigterm = "close-then-drain"
[pdb]
min_available = 2
[[disruptions]]
after_ready = "10s"
rollout = "RollingUpdate"
max_surge = "25%"
max_unavailable = "25%"
min_ready_seconds = "0s"
[pod]
termination_grace_period = "30s"
[[containers]]
name = "nginx"
kind = "app"
boot = "2s"
drain = "1s"
"#;

#[test]
fn a_deployment_behind_a_service_runs_as_its_toml_twin_does() {
    // Three replicas boot in 2 s; the rollout starts 10 s after traffic
    // (T0). Surge 1, unavailable 0: one new Pod at a time, each Ready 2 s
    // after its creation, so available at T0 + 6 s; the last old Pod,
    // deleted then, is gone 0.1 s + 1 s drain + 1 s cleanup later: 8.1 s.
    // At T0 + 4 s the first old Pod (gone at 4.1 s) is still there beside
    // the second, deleted then, the third and three new ones: 6 objects.
    let dir = TempDir::new();
    let toml = file(&dir, "rollout.toml", ROLLOUT_TOML);
    let run = |path: &str| {
        let out = podsim()
            .args(["run", "--format", "json", path])
            .assert()
            .success();
        out.get_output().stdout.clone()
    };
    // The same run; only the header (source, kind) says where it came from.
    let body = |mut doc: serde_json::Value| {
        let object = doc.as_object_mut().unwrap();
        assert_eq!(object.remove("notices"), Some(serde_json::json!([])));
        for key in ["name", "source", "kind"] {
            object.remove(key);
        }
        doc
    };
    let yaml = json(&run("scenarios/service/rollout.yaml"));
    assert_eq!(yaml["kind"], "Deployment");
    let yaml = body(yaml);
    assert!(
        yaml == body(json(&run(&toml))),
        "the manifest and its TOML twin differ"
    );
    let m = &yaml["metrics"];
    let figures: Vec<u64> = ["rollout_ms", "rollout_done_ms", "peak_pods", "peak_counted_pods"]
        .iter()
        .map(|k| m[k].as_u64().unwrap_or_else(|| panic!("{k} in {m}")))
        .collect();
    assert_eq!(figures, [6000, 8100, 6, 4]);
    // Nothing assumed or skipped: the Service and the budget are read.
    podsim()
        .args(["run", "scenarios/service/rollout.yaml"])
        .assert()
        .success()
        .stderr("");
}

#[test]
fn an_annotation_that_contradicts_the_deployment_is_refused_at_its_line() {
    let text = std::fs::read_to_string("scenarios/service/rollout.yaml").unwrap();
    let dir = TempDir::new();
    // Line 48 holds disruptions.0.rollout: "RollingUpdate"; the surge goes below it.
    let surge = text.replace(
        "        podsim.dev/disruptions.0.rollout: \"RollingUpdate\"\n",
        "        podsim.dev/disruptions.0.rollout: \"RollingUpdate\"\n        podsim.dev/disruptions.0.max_surge: \"2\"\n",
    );
    let path = file(&dir, "surge.yaml", &surge);
    podsim().args(["run", &path]).assert().code(1).stderr(format!(
        "podsim: error: {path}:49:9: disruptions.0.max_surge contradicts the Deployment's \
         spec.strategy.rollingUpdate.maxSurge: 25% (27:17), which podsim reads as it is: the manifest is \
         the source of truth; edit it there, or drop disruptions.0.max_surge\n"
    ));
}
