//! A misspelt key of every family (the run, the Pod, its back-off, a
//! container, a probe, the Job, the Service's tables, the disruptions and
//! the actions), written in every reader that takes the family: a grid
//! axis, a `podsim.dev/` annotation and a timings file. Each gets "did you
//! mean" and the valid keys of its own family, from the one grammar in
//! `key::path`. The lists below are the registry's keys in its order,
//! written out by hand; a manifest's readers leave out the keys the
//! manifest says (`restart_policy`, `kind`, a probe's `period`, …).

use std::path::Path;

use super::common::{TempDir, podsim, write};
use super::sweep::{grid, sweep_error};

/// The error a sweep of `axis` over the bundled `base` prints, after its
/// place in the grid file.
fn axis(base: &str, path: &str) -> String {
    let (_dir, grid) = grid(base, &format!("\"{path}\" = [\"1s\"]\n"));
    let e = sweep_error(&grid);
    let (place, message) = e.split_once("grid.toml:3:1: ").expect("the axis's place");
    assert!(place.starts_with("podsim: error: "), "{e}");
    message.trim_end().to_string()
}

/// A Pod with one container, `web`, and `annotation` if any.
fn pod(annotation: Option<&str>) -> String {
    let annotations = match annotation {
        Some(key) => format!("  annotations:\n    podsim.dev/{key}: \"1s\"\n"),
        None => String::new(),
    };
    format!(
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: k\n{annotations}spec:\n  restartPolicy: Never\n  \
         containers:\n  - name: web\n    image: nginx\n"
    )
}

/// What `podsim run` prints on refusing `args` in `dir`.
fn refused(dir: &Path, args: &[&str]) -> String {
    let out = podsim().current_dir(dir).args(args).assert().code(1);
    String::from_utf8(out.get_output().stderr.clone())
        .unwrap()
        .trim_end()
        .to_string()
}

/// The error of the Pod annotated `podsim.dev/<key>`, after its place.
fn annotation(key: &str) -> String {
    let dir = TempDir::new();
    write(dir.path(), "p.yaml", &pod(Some(key)));
    let e = refused(dir.path(), &["run", "p.yaml"]);
    let prefix = format!("podsim: error: p.yaml:6:5: annotation \"podsim.dev/{key}\": ");
    e.strip_prefix(&prefix)
        .unwrap_or_else(|| panic!("{e}"))
        .to_string()
}

/// The error of the Pod run with the timings file `text`, with its place.
fn timings(text: &str) -> String {
    let dir = TempDir::new();
    write(dir.path(), "p.yaml", &pod(None));
    write(dir.path(), "t.toml", text);
    let e = refused(dir.path(), &["run", "p.yaml", "--timings", "t.toml"]);
    e.strip_prefix("podsim: error: ")
        .unwrap_or_else(|| panic!("{e}"))
        .to_string()
}

/// What the Pod's annotations and a timings file's `[pod]` write.
const POD_KEYS: &str = "horizon, seed, stop_at, stop_after_ready, backoff.initial, backoff.cap, \
                        backoff.immediate_first_restart, kubernetes";
/// The same of a container.
const CONTAINER_KEYS: &str = "boot, drain, pre_stop, fails, fail_probability, proxy, crash_after, run, \
     exit_code, startup_probe.outcome, startup_probe.pass_after, startup_probe.pass_until, \
     readiness_probe.outcome, readiness_probe.pass_after, readiness_probe.pass_until, \
     liveness_probe.outcome, liveness_probe.pass_after, liveness_probe.pass_until, exit_code_on_sigterm, \
     drains_on, post_start, post_start_fails, image_pull";
/// The axes of the Pod's own table.
const POD_AXES: &str = "the axes of [pod] are pod.restart_policy, pod.termination_grace_period, pod.stop_at, \
     pod.stop_after_ready, pod.mode, pod.kubernetes, pod.backoff.{initial,cap,immediate_first_restart}";
/// The axes of a container of `seed-sidecar.toml`.
const CONTAINER_AXES: &str = "the axes of [[containers]] are containers.<name>.{kind,boot,drain,pre_stop,\
     fails,fail_probability,proxy,crash_after,run,exit_code,restart_policy,exit_code_on_sigterm,stop_signal,\
     drains_on,post_start,post_start_fails,image_pull}, containers.<name>.<startup|readiness|liveness>_probe.\
     {initial_delay,period,timeout,success_threshold,failure_threshold,termination_grace_period,outcome,\
     pass_after,pass_until}, with <name> one of config-fetch, proxy, web";

#[test]
fn a_misspelt_run_key_is_suggested_with_every_family_at_a_glance() {
    assert_eq!(
        axis("seed-sidecar.toml", "horizn"),
        "unknown axis \"horizn\"; did you mean \"horizon\"? an axis is a scenario key: horizon, seed, \
         or a key of a table: pod.<key>, containers.<name>.<key>, job.<key>, service.<key>, traffic.<key>, \
         app.<key>, pdb.<key>, hop.<key>, disruptions.<index>.<key>, actions.<index>.<key>, cluster.<key>"
    );
    assert_eq!(
        annotation("horizn"),
        format!("unknown pod key \"horizn\"; did you mean \"horizon\"? expected one of {POD_KEYS}")
    );
    assert_eq!(
        timings("[pod]\nhorizn = \"1s\"\n"),
        format!(
            "t.toml:2:1: [pod] horizn: unknown timing key \"horizn\"; did you mean \"horizon\"? \
             expected one of {POD_KEYS}"
        )
    );
}

#[test]
fn a_misspelt_pod_key_lists_the_pods_keys() {
    assert_eq!(
        axis("seed-sidecar.toml", "pod.stop_att"),
        format!("unknown axis \"pod.stop_att\"; did you mean \"pod.stop_at\"? {POD_AXES}")
    );
    assert_eq!(
        annotation("stop_att"),
        format!("unknown pod key \"stop_att\"; did you mean \"stop_at\"? expected one of {POD_KEYS}")
    );
    assert_eq!(
        timings("[pod]\nstop_att = \"1s\"\n"),
        format!(
            "t.toml:2:1: [pod] stop_att: unknown timing key \"stop_att\"; did you mean \"stop_at\"? \
             expected one of {POD_KEYS}"
        )
    );
}

#[test]
fn a_misspelt_back_off_key_lists_the_pods_keys_with_the_back_off_group() {
    assert_eq!(
        axis("seed-sidecar.toml", "pod.backoff.cpa"),
        format!("unknown axis \"pod.backoff.cpa\"; did you mean \"pod.backoff.cap\"? {POD_AXES}")
    );
    assert_eq!(
        annotation("backoff.cpa"),
        format!("unknown pod key \"backoff.cpa\"; did you mean \"backoff.cap\"? expected one of {POD_KEYS}")
    );
    // Column 13: the key inside the group's inline table.
    assert_eq!(
        timings("[pod]\nbackoff = { cpa = \"1s\" }\n"),
        format!(
            "t.toml:2:13: [pod] backoff.cpa: unknown timing key \"backoff.cpa\"; did you mean \
             \"backoff.cap\"? expected one of {POD_KEYS}"
        )
    );
}

#[test]
fn a_misspelt_container_key_lists_a_containers_keys() {
    assert_eq!(
        axis("seed-sidecar.toml", "containers.web.bot"),
        format!(
            "unknown axis \"containers.web.bot\"; did you mean \"containers.web.boot\"? {CONTAINER_AXES}"
        )
    );
    assert_eq!(
        annotation("web.bot"),
        format!("unknown timing key \"bot\"; did you mean \"boot\"? expected one of {CONTAINER_KEYS}")
    );
    assert_eq!(
        timings("[containers.web]\nbot = \"1s\"\n"),
        format!(
            "t.toml:2:1: [containers.web] bot: unknown timing key \"bot\"; did you mean \"boot\"? \
             expected one of {CONTAINER_KEYS}"
        )
    );
}

#[test]
fn a_misspelt_probe_key_lists_a_containers_keys_with_its_probes() {
    assert_eq!(
        axis("seed-sidecar.toml", "containers.web.startup_probe.perod"),
        format!(
            "unknown axis \"containers.web.startup_probe.perod\"; did you mean \
             \"containers.web.startup_probe.period\"? {CONTAINER_AXES}"
        )
    );
    // A probe's period is the manifest's: the manifest's readers take its
    // outcome and timings only.
    assert_eq!(
        annotation("web.startup_probe.pass_aftr"),
        format!(
            "unknown timing key \"startup_probe.pass_aftr\"; did you mean \"startup_probe.pass_after\"? \
             expected one of {CONTAINER_KEYS}"
        )
    );
    assert_eq!(
        timings("[containers.web]\nstartup_probe = { pass_aftr = \"1s\" }\n"),
        format!(
            "t.toml:2:19: [containers.web] startup_probe.pass_aftr: unknown timing key \
             \"startup_probe.pass_aftr\"; did you mean \"startup_probe.pass_after\"? expected one of {CONTAINER_KEYS}"
        )
    );
}

/// The Job's keys are the manifest's (`spec.backoffLimit`, …): a
/// manifest's readers list them anyway, so that the suggestion leads to
/// the refusal that names the field to edit.
#[test]
fn a_misspelt_job_key_lists_the_jobs_keys() {
    assert_eq!(
        axis("blog-cloudsql-job.toml", "job.backoff_limt"),
        "unknown axis \"job.backoff_limt\"; did you mean \"job.backoff_limit\"? the axes of [job] are \
         job.backoff_limit, job.backoff_limit_per_index"
    );
    let listed = "did you mean \"backoff_limit\"? expected one of backoff_limit, backoff_limit_per_index";
    assert_eq!(
        annotation("job.backoff_limt"),
        format!("unknown [job] key \"backoff_limt\"; {listed}")
    );
    assert_eq!(
        timings("[job]\nbackoff_limt = 1\n"),
        format!("t.toml:2:1: [job] backoff_limt: unknown [job] key \"backoff_limt\"; {listed}")
    );
    assert!(
        annotation("job.backoff_limit")
            .contains("backoff_limit comes from the manifest: the Job's spec.backoffLimit")
    );
}

/// One of the Service's tables, written once: the axis on the bundled
/// Service, the annotation and the timings file, each listing `keys`.
fn service_table(table: &str, misspelt: &str, meant: &str, keys: &[&str]) {
    let paths: Vec<String> = keys.iter().map(|k| format!("{table}.{k}")).collect();
    assert_eq!(
        axis("service/no-prestop.toml", &format!("{table}.{misspelt}")),
        format!(
            "unknown axis \"{table}.{misspelt}\"; did you mean \"{table}.{meant}\"? the axes of [{table}] are {}",
            paths.join(", ")
        )
    );
    let listed = format!(
        "unknown [{table}] key \"{misspelt}\"; did you mean \"{meant}\"? expected one of {}",
        keys.join(", ")
    );
    assert_eq!(annotation(&format!("{table}.{misspelt}")), listed);
    assert_eq!(
        timings(&format!("[{table}]\n{misspelt} = 1\n")),
        format!("t.toml:2:1: [{table}] {misspelt}: {listed}")
    );
}

#[test]
fn a_misspelt_service_key_lists_the_services_keys() {
    let keys = [
        "replicas",
        "nodes",
        "propagation",
        "kubelet_delay",
        "min_sync_period",
        "cleanup",
        "pod_priority",
    ];
    service_table("service", "replica", "replicas", &keys);
}

#[test]
fn a_misspelt_traffic_key_lists_the_traffics_keys() {
    let keys = [
        "rate",
        "arrival",
        "connections",
        "pool",
        "clients",
        "service_time",
        "retry",
        "duration",
        "connect_timeout",
        "client",
        "on_closed",
        "connect_retries",
        "reset_retries",
        "retry_backoff",
        "idle_timeout",
        "timeout",
        "idempotent",
        "model",
        "status_retries",
    ];
    service_table("traffic", "rat", "rate", &keys);
}

#[test]
fn a_misspelt_app_key_lists_the_apps_keys() {
    service_table("app", "on_sigtrm", "on_sigterm", &["on_sigterm", "drain_delay"]);
}

#[test]
fn a_misspelt_budget_key_lists_the_budgets_keys() {
    let keys = [
        "min_available",
        "max_unavailable",
        "unhealthy_pod_eviction_policy",
    ];
    service_table("pdb", "min_availble", "min_available", &keys);
}

#[test]
fn a_misspelt_disruption_key_lists_a_disruptions_keys() {
    let keys = "at, after_ready, delete, grace_period, every, rollout, max_surge, max_unavailable, \
                min_ready_seconds, drain, unready, for, crash, node_failure, partition, \
                node_monitor_grace_period, toleration_seconds, spot_reclaim, provider, notice, \
                lease_renew_interval, node_monitor_period, lease_age, monitor_lag, node_deleted, \
                out_of_service, scale_to, \
                annotate, deletion_cost, node_shutdown, shutdown_grace_period, \
                shutdown_grace_period_critical_pods, shutdown_grace_period_by_pod_priority, scale_down_node, max_graceful_termination_sec, \
                max_pod_eviction_time, eviction_retry_time";
    // The bundled Service has one disruption.
    assert_eq!(
        axis("service/no-prestop.toml", "disruptions.0.aftr_ready"),
        format!(
            "unknown axis \"disruptions.0.aftr_ready\"; did you mean \"disruptions.0.after_ready\"? the axes of \
             [[disruptions]] are disruptions.<index>.{{{}}}, with <index> 0",
            keys.replace(", ", ",")
        )
    );
    let listed = format!("did you mean \"after_ready\"? expected one of {keys}");
    assert_eq!(
        annotation("disruptions.0.aftr_ready"),
        format!("unknown [disruptions] key \"aftr_ready\"; {listed}")
    );
    assert_eq!(
        timings("[[disruptions]]\naftr_ready = \"1s\"\n"),
        format!(
            "t.toml:2:1: [disruptions.0] aftr_ready: unknown [disruptions.0] key \"aftr_ready\"; {listed}"
        )
    );
}

/// Actions are a TOML scenario's only: a manifest's readers say so, a
/// scenario and an axis suggest.
#[test]
fn a_misspelt_action_key_lists_an_actions_keys() {
    // The bundled scenario has four actions.
    assert_eq!(
        axis("actions.toml", "actions.0.att"),
        "unknown axis \"actions.0.att\"; did you mean \"actions.0.at\"? the axes of [[actions]] are \
         actions.<index>.{at,after_ready,grace_period,down}, with <index> one of 0 to 3"
    );
    let dir = TempDir::new();
    write(
        dir.path(),
        "s.toml",
        "[[containers]]\nname = \"web\"\nkind = \"app\"\nboot = \"1s\"\n[[actions]]\ndelete = true\natt = \"1s\"\n",
    );
    assert_eq!(
        refused(dir.path(), &["run", "s.toml"]),
        "podsim: error: s.toml:7:1: unknown key \"att\"; did you mean \"at\"? expected one of at, after_ready, \
         grace_period, down, delete, update_image, kubelet_restart, node_reboot, timings, forget_exited_init"
    );
    let none = "a manifest has no actions: write them as [[actions]] in a TOML scenario";
    assert_eq!(annotation("actions.0.att"), none);
    assert_eq!(
        timings("[[actions]]\nat = \"1s\"\n"),
        format!("t.toml:1:3: actions: {none}")
    );
}
