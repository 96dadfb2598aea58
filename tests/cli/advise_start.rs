//! `podsim advise` on a Pod's start, as a user runs it: the seed Pod's
//! keys, and an Istio-injected Deployment (the injector's own test output,
//! tests/manifests/istio-classic-sidecar.yaml) whose patch moves the proxy
//! to a native sidecar with a startup probe; the patch, merged into the
//! manifest as a strategic merge does (by name; `$patch: delete` removes,
//! a new entry is appended), runs again with no exposure.

use serde_json::Value;

use super::common::{TempDir, podsim, write};

fn stdout(args: &[&str]) -> String {
    let out = podsim().args(args).output().expect("podsim runs");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

/// The seed Pod side by side: exposed 2 s + 2 s, Ready at 5 s; native,
/// nothing exposed and Ready at 6 s (R5, R36; worked out in
/// tests/advise/start.rs). The key to set is the proxy's kind.
#[test]
fn the_seed_pod_gets_the_proxy_moved_and_what_it_costs() {
    let text = stdout(&[
        "advise",
        "scenarios/seed-side-by-side.toml",
        "--replications",
        "10",
    ]);
    assert!(
        text.contains(
            "proxy placement  side by side  native sidecar  exposed p99 2s + 2s → 0s + 0s  Ready p99 5s → 6s"
        ),
        "{text}"
    );
    assert!(text.ends_with("containers.proxy.kind = \"sidecar\"\n"), "{text}");
}

/// istio-init 0–1 s; the proxy starts at 1 s and serves at 3.5 s (the
/// timings file). Side by side, hello serves from 2 s: 1.5 s exposed. A
/// native sidecar without a startup probe is started as soon as it runs
/// (R21), so hello still starts at 1 s: the advice adds a startup probe,
/// with the readiness probe's handler. Its ticks at 0, 2, 4 s (period 2 s):
/// 2 s fails, 4 s passes, so threshold 2 and started at 4 s; at 1 s the
/// ticks 2, 3 fail and 4 passes, no sooner; at 5 s and 10 s later. hello
/// boots 1 s: Ready at 5 s, deleted 5 s later, drains 2 s, then the proxy
/// goes: nothing exposed.
#[test]
fn an_istio_deployment_gets_a_native_sidecar_whose_patch_runs_unexposed() {
    let dir = TempDir::new();
    let manifest = "tests/manifests/istio-classic-sidecar.yaml";
    let timings = "tests/manifests/istio-classic-sidecar.timings.toml";
    let text = stdout(&["advise", manifest, "--timings", timings, "--replications", "10"]);
    assert!(
        text.contains("startupProbe (istio-proxy)  none          period 2 × 2"),
        "{text}"
    );
    let lines: Vec<&str> = text.lines().collect();
    let at = lines.iter().position(|l| *l == "spec:").expect("a patch");
    assert_eq!(
        lines[at..at + 7],
        [
            "spec:",
            "  template:",
            "    spec:",
            "      containers:",
            "      - name: istio-proxy",
            "        $patch: delete",
            "      initContainers:",
        ]
    );
    let entry: Value = serde_json::from_str(lines[at + 7].trim_start().strip_prefix("- ").unwrap()).unwrap();
    assert_eq!(entry["restartPolicy"], "Always");
    assert_eq!(entry["startupProbe"]["periodSeconds"], 2);
    assert_eq!(entry["startupProbe"]["failureThreshold"], 2);
    assert!(
        entry["startupProbe"]["httpGet"].is_object(),
        "the readiness probe's handler"
    );
    assert!(entry["image"].is_string(), "the whole container");
    // The strategic merge, by hand: out of containers, appended to initContainers.
    let original = std::fs::read_to_string(manifest).unwrap();
    let mut doc: Value = serde_saphyr::from_multiple::<Value>(&original).unwrap().remove(0);
    let spec = doc.pointer_mut("/spec/template/spec").unwrap();
    let containers = spec["containers"].as_array_mut().unwrap();
    containers.retain(|c| c["name"] != "istio-proxy");
    spec["initContainers"].as_array_mut().unwrap().push(entry);
    let patched = write(dir.path(), "patched.json", &doc.to_string());
    let run = stdout(&[
        "run",
        patched.to_str().unwrap(),
        "--timings",
        timings,
        "--format",
        "json",
    ]);
    let run: Value = serde_json::from_str(&run).unwrap();
    assert_eq!(run["metrics"]["exposed_total_ms"], 0);
    assert_eq!(run["metrics"]["ready_ms"], 5000);
}

/// The Kubernetes docs' Job with a legacy sidecar (tests/manifests/
/// job-sidecar-legacy.yaml): logshipper beside myapp tails a file for
/// ever, so the Pod stays Running (R46). The patch moves it to
/// `initContainers` with `restartPolicy: Always`; merged as a strategic
/// merge does, the Job completes (R43), and the patch says a live Job
/// cannot take it.
#[test]
fn a_job_blocked_by_a_legacy_sidecar_gets_a_patch_with_which_it_completes() {
    let dir = TempDir::new();
    let manifest = "tests/manifests/job-sidecar-legacy.yaml";
    let text = stdout(&["advise", manifest, "--replications", "5"]);
    assert!(
        text.contains("today:   Complete in 0 of 5 runs, Failed in 0, still Running in 5"),
        "{text}"
    );
    assert!(
        text.contains("a live job cannot take it (its spec is immutable)"),
        "{text}"
    );
    let lines: Vec<&str> = text.lines().collect();
    let at = lines
        .iter()
        .position(|l| *l == "      initContainers:")
        .expect("a move");
    let entry: Value = serde_json::from_str(lines[at + 1].trim_start().strip_prefix("- ").unwrap()).unwrap();
    assert_eq!(
        (entry["name"].as_str(), entry["restartPolicy"].as_str()),
        (Some("logshipper"), Some("Always"))
    );
    let original = std::fs::read_to_string(manifest).unwrap();
    let mut doc: Value = serde_saphyr::from_multiple::<Value>(&original).unwrap().remove(0);
    let spec = doc.pointer_mut("/spec/template/spec").unwrap();
    spec["containers"]
        .as_array_mut()
        .unwrap()
        .retain(|c| c["name"] != "logshipper");
    spec["initContainers"] = Value::Array(vec![entry]);
    let patched = write(dir.path(), "patched.json", &doc.to_string());
    let run = stdout(&["run", patched.to_str().unwrap(), "--format", "json"]);
    let run: Value = serde_json::from_str(&run).unwrap();
    assert_eq!(run["job"]["outcome"], "Complete");
}
