//! Bad input: a clear, positioned message on stderr and exit code 1 (2 for
//! usage errors), never a panic. Each case checks the message itself.

use super::common::{TempDir, podsim, write};

const GOOD: &str = r#"[pod]
stop_at = "10s"

[[containers]]
name = "fetch"
kind = "init"
boot = "2s"

[[containers]]
name = "web"
kind = "app"
boot = "1s"
drain = "3s"
"#;

/// Runs `podsim run` on `text` (written to `bad.toml`) and returns stderr,
/// asserting exit code 1 and an empty stdout.
fn error_for(text: &str) -> String {
    let dir = TempDir::new();
    let path = write(dir.path(), "bad.toml", text);
    let out = podsim().arg("run").arg(&path).output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(1),
        "stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.stdout.is_empty());
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(!stderr.contains("panicked"), "{stderr}");
    // Paths differ per run; report them as `bad.toml`.
    stderr.replace(&format!("{}", path.display()), "bad.toml")
}

#[test]
fn the_good_file_runs() {
    let dir = TempDir::new();
    let path = write(dir.path(), "good.toml", GOOD);
    podsim().arg("run").arg(&path).assert().success();
}

#[test]
fn toml_syntax_error_has_file_line_and_column() {
    let e = error_for(&GOOD.replace("boot = \"1s\"", "boot = \"1s"));
    assert!(
        e.starts_with("podsim: error: bad.toml:12:11: invalid basic string"),
        "{e}"
    );
}

#[test]
fn unknown_key_suggests_the_closest() {
    let e = error_for(&GOOD.replace("drain = \"3s\"", "drian = \"3s\""));
    assert!(
        e.starts_with("podsim: error: bad.toml:13:1: unknown key \"drian\"; did you mean \"drain\"?"),
        "{e}"
    );
    assert!(
        e.contains("expected one of name, kind, boot, drain, pre_stop, fails, fail_probability, proxy"),
        "{e}"
    );
}

#[test]
fn unknown_key_in_pod_table_suggests_too() {
    let e = error_for(&GOOD.replace("stop_at", "stopat"));
    assert!(
        e.contains("bad.toml:2:1: unknown key \"stopat\"; did you mean \"stop_at\"?"),
        "{e}"
    );
}

#[test]
fn unknown_kind_lists_the_valid_kinds() {
    let e = error_for(&GOOD.replace("kind = \"app\"", "kind = \"ap\""));
    assert_eq!(
        e.trim_end(),
        "podsim: error: bad.toml:11:8: container \"web\": unknown kind \"ap\"; did you mean \"app\"? \
         expected one of init, sidecar, app"
    );
}

#[test]
fn malformed_and_negative_durations_are_refused() {
    let e = error_for(&GOOD.replace("boot = \"1s\"", "boot = \"1 sec\""));
    assert!(
        e.contains("bad.toml:12:8: container \"web\": boot: unknown unit \" sec\""),
        "{e}"
    );
    let e = error_for(&GOOD.replace("drain = \"3s\"", "drain = \"-3s\""));
    assert!(
        e.contains("bad.toml:13:9: container \"web\": drain: negative duration \"-3s\""),
        "{e}"
    );
    let e = error_for(&GOOD.replace("boot = \"1s\"", "boot = 1"));
    assert!(
        e.contains("bad.toml:12:8: container \"web\": boot: a duration needs a unit and quotes: write \"1s\" or \"1ms\", not 1"),
        "{e}"
    );
}

#[test]
fn a_duplicate_key_is_named() {
    let e = error_for(&format!("name = \"a\"\nname = \"b\"\n{GOOD}"));
    assert_eq!(
        e.trim_end(),
        "podsim: error: bad.toml:2:1: duplicate key \"name\": a key, or a [table], is written once; merge the two"
    );
}

#[test]
fn duplicate_container_names_are_refused() {
    let e = error_for(&GOOD.replace("name = \"fetch\"", "name = \"web\""));
    assert!(
        e.contains("bad.toml:10:8: duplicate container name \"web\"; names must be unique"),
        "{e}"
    );
}

#[test]
fn a_pod_without_an_app_is_refused() {
    let e = error_for(&GOOD.replace("kind = \"app\"", "kind = \"sidecar\""));
    assert!(
        e.contains("bad.toml: the Pod has no app container; add a [[containers]] entry with kind = \"app\""),
        "{e}"
    );
}

#[test]
fn hooks_and_traffic_on_an_init_container_are_refused() {
    // R57: drain is allowed; R58: a preStop of 0 s is a hook too.
    for (key, value) in [
        ("proxy", "true"),
        ("pre_stop", "\"1s\""),
        ("pre_stop", "\"0s\""),
        ("post_start", "\"1s\""),
    ] {
        let e = error_for(&GOOD.replace("boot = \"2s\"", &format!("boot = \"2s\"\n{key} = {value}")));
        let expected = format!(
            "bad.toml:8:{}: container \"fetch\": {key} is not allowed on an init container",
            key.len() + 4
        );
        assert!(e.contains(&expected), "{key}: {e}");
    }
}

#[test]
fn stop_at_and_stop_after_ready_together_are_refused() {
    let e = error_for(&GOOD.replace(
        "stop_at = \"10s\"",
        "stop_at = \"10s\"\nstop_after_ready = \"5s\"",
    ));
    assert!(
        e.contains("bad.toml:3:20: stop_at and stop_after_ready are both set; keep one"),
        "{e}"
    );
}

#[test]
fn an_unknown_restart_policy_suggests_the_closest() {
    let e = error_for(&GOOD.replace("[pod]", "[pod]\nrestart_policy = \"always\""));
    assert!(
        e.contains("unknown restart_policy \"always\"; did you mean \"Always\"?"),
        "{e}"
    );
}

#[test]
fn a_missing_file_is_named() {
    let out = podsim().args(["run", "scenarios/nope.toml"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let e = String::from_utf8(out.stderr).unwrap();
    assert!(
        e.starts_with("podsim: error: scenarios/nope.toml: cannot read scenario: No such file"),
        "{e}"
    );
}

#[test]
fn usage_errors_exit_2() {
    let out = podsim()
        .args(["run", "--format", "yaml", "scenarios/seed-sidecar.toml"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("possible values: text, json"));
    podsim().arg("runn").assert().code(2);
}

#[test]
fn a_grid_given_to_run_says_to_sweep_it() {
    let out = podsim()
        .args(["run", "scenarios/seed-grid.toml"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let e = String::from_utf8(out.stderr).unwrap();
    assert!(
        e.contains("scenarios/seed-grid.toml:10:1: unknown key \"base\": this looks like a grid file, not a scenario; \
                    run it with `podsim sweep --grid scenarios/seed-grid.toml`"),
        "{e}"
    );
}

#[test]
fn a_column_prefix_suggests_the_full_name() {
    let out = podsim()
        .args([
            "plot",
            "results/seed-sweep.csv",
            "--x",
            "ready",
            "--out",
            "/nonexistent/x.svg",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let e = String::from_utf8(out.stderr).unwrap();
    assert!(
        e.contains("no column \"ready\"; did you mean \"ready_ms\"?"),
        "{e}"
    );
}

#[test]
fn a_full_stdout_is_named() {
    let full = std::fs::OpenOptions::new().write(true).open("/dev/full").unwrap();
    let output = super::common::podsim_process()
        .args(["run", "scenarios/seed-sidecar.toml"])
        .stdout(full)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.starts_with("podsim: error: cannot write to stdout: No space left on device"),
        "{stderr}"
    );
}

#[test]
fn output_errors_name_the_real_path() {
    let dir = TempDir::new();
    let out = dir.path().join("nowhere/t.svg");
    podsim()
        .args(["run", "scenarios/seed-sidecar.toml", "--svg"])
        .arg(&out)
        .assert()
        .code(1)
        .stderr(format!(
            "podsim: error: cannot write {}: directory {} does not exist\n",
            out.display(),
            dir.path().join("nowhere").display()
        ));
}

/// A Job's rules refused where they are written, in the API's words (J5, J6).
#[test]
fn job_policy_errors_point_at_the_rule() {
    let job = "[pod]\nrestart_policy = \"Never\"\n[[containers]]\nname = \"main\"\nkind = \"app\"\nboot = \"1s\"\nrun = \"2s\"\n";
    let rule = |r: &str| format!("{job}[[job.pod_failure_policy]]\n{r}\n");
    let e = error_for(&rule(
        "action = \"FailJob\"\non_exit_codes = { operator = \"In\", values = [0, 42] }",
    ));
    assert!(
        e.contains("bad.toml:10:45") && e.contains("0 cannot be used with In"),
        "{e}"
    );
    let e = error_for(&rule(
        "action = \"FailIndex\"\non_exit_codes = { operator = \"In\", values = [42] }",
    ));
    assert!(e.contains("FailIndex needs backoff_limit_per_index"), "{e}");
    let e = error_for(&rule(
        "action = \"FailJob\"\non_exit_codes = { container = \"mian\", operator = \"In\", values = [42] }",
    ));
    assert!(
        e.contains("bad.toml:10:31") && e.contains("did you mean \"main\""),
        "{e}"
    );
    let e = error_for(&rule("action = \"Ignore\""));
    assert!(e.contains("say what the rule matches"), "{e}");
    let e = error_for(&format!(
        "{}[job]\nbackoff_limt = 1\n",
        job.replace("\"Never\"", "\"OnFailure\"")
    ));
    assert!(
        e.contains("bad.toml:9:1") && e.contains("did you mean \"backoff_limit\""),
        "{e}"
    );
    let e = error_for(
        &rule("action = \"FailJob\"\non_exit_codes = { operator = \"In\", values = [42] }")
            .replace("\"Never\"", "\"OnFailure\""),
    );
    assert!(
        e.contains("bad.toml:2:18") && e.contains("only restart_policy = \"Never\""),
        "{e}"
    );
}

/// R60: a container's own restart policy and rules, refused where the API
/// or the kubelet version refuses them.
#[test]
fn container_restart_policy_errors_point_at_the_key() {
    let app = "[[containers]]\nname = \"web\"\nkind = \"app\"\nboot = \"1s\"\n";
    let e = error_for(&format!(
        "{app}restart_policy_rules = [{{ action = \"Restart\", exit_codes = {{ operator = \"In\", values = [42] }} }}]\n"
    ));
    assert!(
        e.contains("restart_policy_rules need the container's own restart_policy"),
        "{e}"
    );
    // R61: simulated from 1.35.
    let e = error_for(&format!(
        "[pod]\nkubernetes = \"1.34\"\n{app}restart_policy = \"Never\"\nrestart_policy_rules = [{{ action = \"RestartAllContainers\", exit_codes = {{ operator = \"In\", values = [42] }} }}]\n"
    ));
    assert!(
        e.contains("action RestartAllContainers needs Kubernetes 1.35 or later"),
        "{e}"
    );
    let e = error_for(&format!(
        "[pod]\nkubernetes = \"1.33\"\n{app}restart_policy = \"OnFailure\"\n"
    ));
    assert!(
        e.contains("bad.toml:7:18") && e.contains("needs Kubernetes 1.34 or later"),
        "{e}"
    );
    let e = error_for(&format!(
        "[[containers]]\nname = \"proxy\"\nkind = \"sidecar\"\nboot = \"1s\"\nrestart_policy = \"Never\"\n{app}"
    ));
    assert!(
        e.contains("bad.toml:5:18") && e.contains("a sidecar always restarts"),
        "{e}"
    );
}

/// `podsim --help` lists the exit codes a script checks (0, 1, 2, 130),
/// as the README's "Exit codes" table does; `-h` stays a summary.
#[test]
fn help_lists_the_exit_codes() {
    let out = podsim()
        .arg("--help")
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let help = String::from_utf8(out).unwrap();
    // clap wraps the text at 100 columns: compare it with lines joined.
    let flat = help.replace('\n', " ");
    for code in [
        "0 success",
        "1 an error in the input",
        "2 a usage error",
        "130 a sweep or run stopped",
    ] {
        assert!(flat.contains(code), "--help lacks exit code \"{code}\":\n{help}");
    }
    let short = podsim().arg("-h").assert().success().get_output().stdout.clone();
    assert!(!String::from_utf8(short).unwrap().contains("Exit codes"));
}
