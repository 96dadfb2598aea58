//! `podsim run`: the seed scenarios print exactly the chapter's figures.

use serde_json::Value;

use super::common::{TempDir, podsim, write};

/// The documents `run --format json` prints, one per line.
fn json_lines(args: &[&str]) -> Vec<Value> {
    let out = podsim()
        .args(["run", "--format", "json"])
        .args(args)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).expect("one JSON document per line"))
        .collect()
}

/// The one document of a run of one file.
fn json_of(args: &[&str]) -> Value {
    let mut documents = json_lines(args);
    assert_eq!(documents.len(), 1);
    documents.remove(0)
}

#[test]
fn json_for_the_two_seed_scenarios_holds_the_chapter_figures() {
    let runs = json_lines(&["scenarios/seed-sidecar.toml", "scenarios/seed-side-by-side.toml"]);
    assert_eq!(runs.len(), 2, "one line per run");
    let sidecar = &runs[0]["metrics"];
    assert_eq!(runs[0]["name"], "proxy as a native sidecar");
    assert_eq!(sidecar["ready_ms"], 6000);
    assert_eq!(sidecar["exposed_total_ms"], 0);
    assert_eq!(sidecar["termination_ms"], 4000);
    let side = &runs[1]["metrics"];
    assert_eq!(side["ready_ms"], 5000);
    assert_eq!(side["exposed_startup_ms"], 2000);
    assert_eq!(side["exposed_shutdown_ms"], 2000);
    assert_eq!(side["exposed_total_ms"], 4000);
    assert_eq!(side["termination_ms"], 3000);
    assert_eq!(side["restarts"], 0);
    assert_eq!(side["sigkilled"], 0);
    assert_eq!(side["phase"], "Succeeded");
}

#[test]
fn json_for_one_file_is_one_document_with_events() {
    let v = json_of(&["scenarios/seed-sidecar.toml"]);
    let first = &v["events"][0];
    assert_eq!(
        (first["at_ms"].as_u64(), first["container"].as_str()),
        (Some(0), Some("config-fetch"))
    );
    assert_eq!(first["event"], "starting");
    let ready = v["events"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["event"] == "Pod Ready")
        .unwrap();
    assert_eq!(
        (ready["at_ms"].as_u64(), ready["container"].is_null()),
        (Some(6000), true)
    );
}

#[test]
fn absent_metrics_are_null() {
    let dir = TempDir::new();
    let file = write(
        dir.path(),
        "never.toml",
        "[pod]\nrestart_policy = \"Never\"\n[[containers]]\nname = \"web\"\nkind = \"app\"\nboot = \"1s\"\nfails = 1\n",
    );
    let v = json_of(&[file.to_str().unwrap()]);
    assert!(v["metrics"]["ready_ms"].is_null());
    assert!(v["metrics"]["termination_ms"].is_null());
    assert_eq!(v["metrics"]["phase"], "Failed");
}

#[test]
fn text_shows_timeline_bands_and_metrics_side_by_side() {
    let out = podsim()
        .args([
            "run",
            "scenarios/seed-sidecar.toml",
            "scenarios/seed-side-by-side.toml",
            "--width",
            "26",
        ])
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("t=2.000s    config-fetch  exited 0 (completed)"),
        "{text}"
    );
    // Side by side: 13 s in 26 cells of 500 ms; exposed 3–5 s and 11–13 s.
    assert!(
        text.contains("exposed             |      !!!!            !!!!|"),
        "{text}"
    );
    let table = text
        .split("== side by side")
        .nth(1)
        .expect("a side-by-side table");
    assert!(
        table.contains("exposed_total_ms                        0.000s              4.000s"),
        "{table}"
    );
}

#[test]
fn a_closed_pipe_is_not_an_error() {
    // 200 runs print far more than a pipe buffer; `head -c 1` closes the pipe
    // after one byte, so podsim's writes fail with EPIPE: it must exit 0.
    let files = vec!["scenarios/seed-side-by-side.toml"; 200].join(" ");
    let script = format!(
        "{} run {files} | head -c 1 >/dev/null; exit ${{PIPESTATUS[0]}}",
        assert_cmd::cargo::cargo_bin("podsim").display()
    );
    let status = std::process::Command::new("bash")
        .args(["-c", &script])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .status()
        .unwrap();
    assert!(status.success(), "{status:?}");
}

#[test]
fn watch_reproduces_the_blogs_kubectl_transcript() {
    // seed 001: `kubectl get po -w` for a Job with a native Cloud SQL proxy.
    let blog = [
        ("0/2", "Init:0/1"),
        ("0/2", "Init:0/1"),
        ("0/2", "PodInitializing"),
        ("1/2", "PodInitializing"),
        ("2/2", "Running"),
        ("1/2", "Completed"),
        ("0/2", "Completed"),
    ];
    // The TOML scenario and the Job manifest (probes and annotations) alike,
    // the Pod named as the API server names a Job's: the Job's name, a dash
    // and five characters of its alphabet, the same for the same Job.
    let names: Vec<String> = [
        "scenarios/blog-cloudsql-job.toml",
        "scenarios/blog-cloudsql-job.yaml",
    ]
    .into_iter()
    .map(|file| check_blog_transcript(file, &blog))
    .collect();
    let suffix = names[0].strip_prefix("sidecar-test-").unwrap();
    assert!(
        suffix.len() == 5
            && suffix
                .bytes()
                .all(|b| b"bcdfghjklmnpqrstvwxz2456789".contains(&b))
    );
    assert_eq!(names[0], names[1]);
}

/// Checks `file`'s watch against the blog's lines; returns the Pod's name.
fn check_blog_transcript(file: &str, blog: &[(&str, &str)]) -> String {
    let out = podsim().args(["run", "--watch", file]).output().unwrap();
    assert!(out.status.success());
    assert!(
        out.stderr.is_empty(),
        "no notices: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    let mut lines = text.lines();
    assert_eq!(
        lines.next().map(|h| h.split_whitespace().collect::<Vec<_>>()),
        Some(vec!["NAME", "READY", "STATUS", "RESTARTS", "AGE"])
    );
    let rows: Vec<Vec<&str>> = lines.map(|l| l.split_whitespace().collect()).collect();
    let shown: Vec<(&str, &str)> = rows.iter().map(|r| (r[1], r[2])).collect();
    assert_eq!(shown, blog);
    assert!(rows.iter().all(|r| r[0] == rows[0][0] && r[3] == "0"));
    // Ages: created 0 s; the startup probe passes at its 10 s tick; the app
    // runs 12→21 s; the proxy drains 1 s.
    let ages: Vec<&str> = rows.iter().map(|r| r[4]).collect();
    assert_eq!(ages, ["0s", "0s", "10s", "11s", "12s", "21s", "22s"]);
    rows[0][0].to_string()
}

#[test]
fn watch_shows_every_pod_a_job_made() {
    // Each Pod boots 1 s, runs 2 s and exits 1; backoffLimit 2 allows two
    // failures, so three Pods (J2), each Running at 1 s and Error at 3 s of
    // its own age.
    let dir = TempDir::new();
    let file = write(
        dir.path(),
        "flaky.yaml",
        "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: flaky\nspec:\n  backoffLimit: 2\n  template:\n    \
         metadata:\n      annotations:\n        podsim.dev/work.boot: \"1s\"\n        podsim.dev/work.run: \"2s\"\n        \
         podsim.dev/work.exit_code: \"1\"\n    spec:\n      restartPolicy: Never\n      containers:\n      - name: work\n        \
         image: busybox\n",
    );
    let out = podsim().args(["run", "--watch"]).arg(&file).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8(out.stdout).unwrap();
    let rows: Vec<Vec<&str>> = text
        .lines()
        .skip(1)
        .map(|l| l.split_whitespace().collect())
        .collect();
    let shown: Vec<(&str, &str, &str)> = rows.iter().map(|r| (r[1], r[2], r[4])).collect();
    let one_pod = [
        ("0/1", "ContainerCreating", "0s"),
        ("1/1", "Running", "1s"),
        ("0/1", "Error", "3s"),
    ];
    assert_eq!(shown, [one_pod, one_pod, one_pod].concat());
    let mut names: Vec<&str> = rows.iter().map(|r| r[0]).collect();
    names.dedup();
    assert_eq!(names.len(), 3, "three Pods, each its own name: {names:?}");
    assert!(
        names
            .iter()
            .all(|n| n.starts_with("flaky-") && n.len() == "flaky-".len() + 5)
    );
}

#[test]
fn watch_shows_crash_loops_and_termination() {
    let dir = TempDir::new();
    let file = write(
        dir.path(),
        "crashy.toml",
        "[pod]\nstop_at = \"20s\"\n[[containers]]\nname = \"web\"\nkind = \"app\"\nboot = \"1s\"\nfails = 2\ndrain = \"2s\"\n",
    );
    let out = podsim().args(["run", "--watch"]).arg(&file).output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    let rows: Vec<Vec<String>> = text
        .lines()
        .skip(1)
        // Columns are three spaces apart; RESTARTS has spaces of its own.
        .map(|l| {
            l.split("   ")
                .map(str::trim)
                .filter(|c| !c.is_empty())
                .map(str::to_string)
                .collect()
        })
        .collect();
    let shown: Vec<(&str, &str, &str, &str)> = rows
        .iter()
        .map(|r| (r[1].as_str(), r[2].as_str(), r[3].as_str(), r[4].as_str()))
        .collect();
    // web: creating 0→1 s, exits 1 at 1 s and restarts at once (no back-off
    // shown), exits 1 at 2 s, CrashLoopBackOff 10 s, restarted at 12 s and
    // started at 13 s; deleted at 20 s, drains 2 s. Each exit before a
    // restart or a back-off is its own `Error` row first (R82). RESTARTS
    // (R69): the age of the last termination, none while the first exit is
    // the current state, the exit at 1 s once restarted and while the exit
    // at 2 s is the current state (1 s ago), the one at 2 s once it waits in
    // CrashLoopBackOff and while it runs again; terminated at 22 s, its last
    // state is still the exit at 2 s.
    assert_eq!(
        shown,
        [
            ("0/1", "ContainerCreating", "0", "0s"),
            ("0/1", "Error", "0", "1s"),
            ("0/1", "ContainerCreating", "1 (0s ago)", "1s"),
            ("0/1", "Error", "1 (1s ago)", "2s"),
            ("0/1", "CrashLoopBackOff", "1 (0s ago)", "2s"),
            ("0/1", "ContainerCreating", "2 (10s ago)", "12s"),
            ("1/1", "Running", "2 (11s ago)", "13s"),
            ("1/1", "Terminating", "2 (18s ago)", "20s"),
            ("0/1", "Completed", "2 (20s ago)", "22s"),
        ]
    );
}

#[test]
fn horizon_flag_cuts_an_endless_crash_loop() {
    let dir = TempDir::new();
    let file = write(
        dir.path(),
        "loop.toml",
        "[[containers]]\nname = \"web\"\nkind = \"app\"\nboot = \"1s\"\nfails = 1000000\n",
    );
    let v = json_of(&["--horizon", "2m", file.to_str().unwrap()]);
    // Restarts at 1, 12, 33, 74 s (back-off 0, 10, 20, 40 s after 1 s boots);
    // the next would be at 155 s, past the 120 s horizon.
    assert_eq!(v["metrics"]["outcome"], "horizon");
    assert_eq!(v["metrics"]["end_ms"], 120_000);
    assert_eq!(v["metrics"]["restarts"], 4);
    let out = podsim()
        .args(["run", "--horizon", "2 min"])
        .arg(&file)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown unit \" min\""));
}

/// A sidecar proxy, and a web app that fails its first boot and ignores
/// SIGTERM for longer than the 5 s grace.
const TYPED: &str = r#"
[pod]
termination_grace_period = "5s"
stop_at = "20s"
[[containers]]
name = "proxy"
kind = "sidecar"
boot = "1s"
drain = "1s"
proxy = true
[[containers]]
name = "web"
kind = "app"
boot = "2s"
pre_stop = "1500ms"
drain = "10s"
fails = 1
"#;

#[test]
fn json_events_carry_their_type_and_typed_fields() {
    let dir = crate::cli::common::TempDir::new();
    let file = crate::cli::common::write(dir.path(), "typed.toml", TYPED);
    let v = json_of(&[file.to_str().unwrap()]);
    let events: Vec<Value> = v["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            let mut e = e.clone();
            e.as_object_mut().unwrap().remove("event");
            e
        })
        .collect();
    // proxy started at 1 s lets web start; web's first boot fails at 3 s and
    // restarts at once (R15). Deleted at 20 s, grace 5 s: the proxy waits
    // for web (R36); web's preStop takes 1.5 s (floored to 1 s), leaving 4 s
    // for SIGTERM, too little for its 10 s drain: SIGKILL at 25.5 s. The
    // proxy's wait ends with the grace at 25 s: SIGTERM with the 2 s floor
    // (R37), exits after its 1 s drain. web was killed: Failed (R44).
    let expected = serde_json::json!([
        {"at_ms": 0, "container": "proxy", "type": "starting", "attempt": 1},
        {"at_ms": 1000, "container": "proxy", "type": "started"},
        {"at_ms": 1000, "container": "web", "type": "starting", "attempt": 1},
        {"at_ms": 3000, "container": "web", "type": "exited", "exit_code": 1, "reason": "failed"},
        {"at_ms": 3000, "container": "web", "type": "back_off", "delay_ms": 0},
        {"at_ms": 3000, "container": null, "type": "phase", "phase": "Running"},
        {"at_ms": 3000, "container": "web", "type": "starting", "attempt": 2},
        {"at_ms": 5000, "container": "web", "type": "started"},
        {"at_ms": 5000, "container": null, "type": "pod_ready"},
        {"at_ms": 20000, "container": null, "type": "deletion_requested", "grace_ms": 5000, "deadline_ms": 25000},
        {"at_ms": 20000, "container": "proxy", "type": "awaiting_turn"},
        {"at_ms": 20000, "container": "web", "type": "pre_stop_started"},
        {"at_ms": 21500, "container": "web", "type": "pre_stop_finished", "cut_off": false},
        {"at_ms": 21500, "container": "web", "type": "sigterm", "timeout_ms": 4000, "deadline_ms": 25500},
        {"at_ms": 25000, "container": "proxy", "type": "sigterm", "timeout_ms": 2000, "deadline_ms": 27000},
        {"at_ms": 25500, "container": "web", "type": "sigkill"},
        {"at_ms": 25500, "container": "web", "type": "exited", "exit_code": 137, "reason": "killed"},
        {"at_ms": 26000, "container": "proxy", "type": "exited", "exit_code": 0, "reason": "terminated"},
        {"at_ms": 26000, "container": null, "type": "phase", "phase": "Failed"},
    ]);
    assert_eq!(Value::Array(events), expected);
}

#[test]
fn every_json_event_type_is_in_the_readme() {
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/running.md")).unwrap();
    let dir = crate::cli::common::TempDir::new();
    let typed = crate::cli::common::write(dir.path(), "typed.toml", TYPED);
    let mut files = vec![typed.to_str().unwrap().to_string()];
    for folder in ["scenarios", "scenarios/ckad"] {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(folder);
        for entry in std::fs::read_dir(root).unwrap() {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            if path.is_file() && !name.ends_with("-grid.toml") {
                files.push(path.to_string_lossy().into_owned());
            }
        }
    }
    files.sort();
    let args: Vec<&str> = files.iter().map(String::as_str).collect();
    let mut types: Vec<String> = json_lines(&args)
        .iter()
        .flat_map(|doc| doc["events"].as_array().unwrap().clone())
        .map(|e| e["type"].as_str().unwrap().to_string())
        .collect();
    types.sort();
    types.dedup();
    assert!(types.len() >= 12, "too few kinds of event to check: {types:?}");
    for t in types {
        assert!(
            readme.contains(&format!("| `{t}` |")),
            "docs/running.md has no row for event type {t}"
        );
    }
}

#[test]
fn r58_json_shows_a_zero_second_pre_stop_hook_that_ran() {
    let dir = TempDir::new();
    let path = write(
        dir.path(),
        "zero.toml",
        "[pod]\nstop_at = \"5s\"\n[[containers]]\nname = \"web\"\nkind = \"app\"\nboot = \"1s\"\npre_stop = \"0s\"\n",
    );
    let run = json_of(&[path.to_str().unwrap()]);
    let hooks: Vec<(u64, &str)> = run["events"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["type"].as_str().unwrap().starts_with("pre_stop"))
        .map(|e| (e["at_ms"].as_u64().unwrap(), e["type"].as_str().unwrap()))
        .collect();
    assert_eq!(hooks, [(5000, "pre_stop_started"), (5000, "pre_stop_finished")]);
    assert_eq!(run["metrics"]["termination_ms"], 0);
}
