//! The Kubernetes website's examples, as published: its StatefulSet,
//! DaemonSet, CronJob, Pod-failure-policy Job, Indexed Job, the liveness-probe and
//! sidecar examples (a Deployment's, a Job's both ways), and the in-place
//! restart of every container.

use podsim::engine::SimDuration;
use podsim::model::{ContainerKind, PodMode, PodPhase, simulate_pod};
use podsim::scenario::manifest::{Timings, WorkloadKind};
use podsim::scenario::{Problem, Scenario};

use super::{first, kinds, one, path, problems};
use crate::picks::*;

#[test]
fn the_website_statefulset_runs_one_pod_and_skips_its_service() {
    let (s, r) = one("web-statefulset.yaml", None);
    assert_eq!(
        (s.name.as_str(), s.workload),
        ("web", Some(WorkloadKind::StatefulSet))
    );
    let notices: Vec<String> = s.notices.iter().map(|n| n.message()).collect();
    // The StatefulSet's governing Service is headless: no kube-proxy rules.
    assert_eq!(
        notices[0],
        "skipped Service \"nginx\": not a workload; headless (clusterIP: None), so kube-proxy routes nothing \
         to it (clients find the Pods by DNS)"
    );
    assert_eq!(
        notices[1],
        "replicas: 2; podsim simulates one Pod of the StatefulSet"
    );
    // No timings: nginx boots the default 1 s and, without probes, is
    // Ready when started (R21); never deleted, the Pod runs on.
    assert_eq!(r.metrics.ready_ms, Some(1000));
    assert_eq!(r.metrics.termination_ms, None);
    assert!(matches!(problems(&s)[3], Problem::NeverDeleted { job: None }));
}

#[test]
fn the_website_daemonset_keeps_its_grace_period() {
    let (s, _) = one("fluentd-daemonset.yaml", None);
    assert_eq!(s.workload, Some(WorkloadKind::DaemonSet));
    assert_eq!(s.run.pod.termination_grace_period, SimDuration::from_secs(30));
    assert_eq!(kinds(&s), [("fluentd-elasticsearch", ContainerKind::App)]);
}

/// The website's CronJob: `date; echo Hello …` takes no time, so its Job's
/// Pod completes at the end of the assumed 1 s boot (R81): Succeeded, with
/// no deletion needed; given a run of 10 s it completes at 11 s.
#[test]
fn the_website_cronjob_is_a_job_whose_script_completes_it() {
    let (s, r) = one("hello-cronjob.yaml", None);
    assert_eq!(s.workload, Some(WorkloadKind::CronJob));
    assert_eq!(s.run.pod.mode, PodMode::Job);
    assert!(matches!(
        problems(&s)[0],
        Problem::ScriptedExit(x) if x.container == "hello" && x.run == SimDuration::ZERO && x.code == 0
    ));
    assert!(
        !problems(&s)
            .iter()
            .any(|p| matches!(p, Problem::NeverDeleted { .. }))
    );
    assert_eq!(r.metrics.completed_ms, Some(1000));
    assert_eq!(r.metrics.phase, PodPhase::Succeeded);
    let text = std::fs::read_to_string(path("hello-cronjob.yaml")).unwrap();
    let timed = text.replacen(
        "      template:\n",
        "      template:\n        metadata:\n          annotations:\n            podsim.dev/hello.run: \"10s\"\n",
        1,
    );
    assert_ne!(timed, text);
    let s = podsim::scenario::manifest::parse(&timed, "hello-cronjob.yaml", None).unwrap();
    assert_eq!(simulate_pod(&s.run).metrics.completed_ms, Some(11_000));
    // The page's own copy before CronJob went GA is refused with the fix.
    let old = std::fs::read_to_string(path("hello-cronjob.yaml"))
        .unwrap()
        .replace("apiVersion: batch/v1\n", "apiVersion: batch/v1beta1\n");
    let e = podsim::scenario::manifest::parse(&old, "cronjob.yaml", None).unwrap_err();
    assert_eq!(
        e.to_string(),
        "cronjob.yaml:5:1: apiVersion \"batch/v1beta1\" of CronJob was removed in Kubernetes 1.25; write apiVersion: batch/v1"
    );
}

/// The Kubernetes website's Pod failure policy example: `main` exits 42
/// after its sleep; rule 0 (FailJob on 42 in main) fails the Job with its
/// first Pod, at boot 1 s + 5 s of work = 6 s (J5); the same Job in TOML
/// gives the same spec and the same story.
#[test]
fn the_websites_pod_failure_policy_job_fails_on_exit_42_with_its_first_pod() {
    let (scenario, report) = one(
        "job-pod-failure-policy-example.yaml",
        Some("job-pod-failure-policy-example.timings.toml"),
    );
    let job = &scenario.run.job;
    assert_eq!((job.backoff_limit, job.pod_failure_policy.len()), (Some(6), 2));
    // completions 12, parallelism 3: one completion is simulated, and said.
    let notices: Vec<String> = scenario.notices.iter().map(|n| n.message()).collect();
    assert!(
        notices
            .iter()
            .any(|n| n.contains("completions: podsim simulates a Job of one completion")),
        "{notices:?}"
    );
    let figures = report.job.as_ref().unwrap().figures;
    assert_eq!(
        (figures.outcome.name(), figures.pods, figures.failed),
        ("Failed", 1, 0)
    );
    assert_eq!(figures.outcome.at().map(|t| t.as_millis()), Some(6_000));
    let toml = r#"
        [pod]
        restart_policy = "Never"
        [job]
        backoff_limit = 6
        [[job.pod_failure_policy]]
        action = "FailJob"
        on_exit_codes = { container = "main", operator = "In", values = [42] }
        [[job.pod_failure_policy]]
        action = "Ignore"
        on_pod_conditions = [{ type = "DisruptionTarget", status = "True" }]
        [[containers]]
        name = "main"
        kind = "app"
        boot = "1s"
        run = "5s"
        exit_code = 42
    "#;
    let from_toml = Scenario::parse(toml, "job.toml").unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(from_toml.run.job, scenario.run.job);
    assert_eq!(simulate_pod(&from_toml.run).job, report.job);
}

/// The website's Indexed Job, in YAML's flow style: its worker is a bare
/// `rev /input/data.txt`, a program that ends once it has printed the
/// file (R81). By hand, no timings: the init container `input` boots the
/// assumed 1 s, its work (R4: the apps wait for it); worker starts at 1 s,
/// is started at 2 s and exits 0 then, so the Pod Succeeds at 2 s (R43)
/// and the Job is Complete with one Pod — one completion of the five,
/// told. Before, `rev` was an unknown program and the Job ran for ever.
#[test]
fn the_websites_indexed_job_completes_when_its_worker_has_reversed_the_file() {
    let (s, r) = one("indexed-job.yaml", None);
    assert_eq!(
        kinds(&s),
        [("input", ContainerKind::Init), ("worker", ContainerKind::App)]
    );
    let notices: Vec<String> = s.notices.iter().map(|n| n.message()).collect();
    assert!(
        notices.iter().any(|n| n.starts_with(
            "container \"worker\": its command line (`rev /input/data.txt`) exits 0 without sleeping"
        )),
        "{notices:?}"
    );
    assert!(
        !problems(&s)
            .iter()
            .any(|p| matches!(p, Problem::NeverDeleted { .. }))
    );
    // No drain is assumed: nothing stops worker, which exits by itself
    // (the kubelet stops an app on a deletion or a probe's kill, R31, and
    // the sidecars alone when the apps are done, R44).
    assert!(problems(&s).contains(&&Problem::AssumedTimings {
        assumed: vec![(
            "boot".into(),
            SimDuration::from_secs(1),
            vec!["input".into(), "worker".into()]
        )]
    }));
    assert_eq!(first(&s, &r, "input", exit(ExitReason::Completed)), Some(1000));
    assert_eq!(first(&s, &r, "worker", exit(ExitReason::Completed)), Some(2000));
    assert_eq!(r.metrics.phase, PodPhase::Succeeded);
    let figures = r.job.as_ref().unwrap().figures;
    assert_eq!((figures.outcome.name(), figures.pods), ("Complete", 1));
    assert_eq!(figures.outcome.at().map(|t| t.as_millis()), Some(2000));
}

/// The sidecar page's Job, both ways. With its log shipper as a native
/// sidecar, by hand (no timings): logshipper starts at 0 s and is started
/// at 1 s (boot 1 s, no probes); myjob starts then, is started at 2 s and
/// exits 0 at once (its `echo` script, R81). Every app done, the kubelet
/// stops the sidecar (R44): SIGTERM at 2 s, but its PID 1 is a shell
/// running `tail -F`, with no handler (R80), so SIGKILL ends it at 32 s,
/// the grace period's end; the Pod Succeeds then (a sidecar's exit code
/// does not count) and the Job is Complete at 32 s, 30 s after its work.
/// As a second app container (the legacy way) the shipper never exits:
/// the Job stays Running (R46), and the report says what to write in the
/// manifest.
#[test]
fn the_websites_sidecar_job_completes_30_s_late_and_its_legacy_twin_never() {
    let (s, r) = one("job-sidecar.yaml", None);
    assert!(problems(&s).contains(&&Problem::UnhandledSigterm {
        container: "logshipper".into(),
        command: "sh -c 'tail -F /opt/logs.txt'".into(),
    }));
    assert_eq!(first(&s, &r, "myjob", exit(ExitReason::Completed)), Some(2000));
    assert_eq!(
        first(&s, &r, "logshipper", exit(ExitReason::Killed)),
        Some(32_000)
    );
    assert_eq!(r.metrics.phase, PodPhase::Succeeded);
    let figures = r.job.as_ref().unwrap().figures;
    assert_eq!(figures.outcome.at().map(|t| t.as_millis()), Some(32_000));

    let (s, r) = one("job-sidecar-legacy.yaml", None);
    // Only the log shipper keeps it from completing: `main` exits by itself.
    assert!(
        problems(&s)
            .iter()
            .any(|p| matches!(p, Problem::NeverDeleted { job: Some(apps) } if apps == &["logshipper"])),
        "{:?}",
        s.notices
    );
    let job = r.job.as_ref().unwrap();
    assert_eq!(job.figures.outcome.name(), "Running");
    let text = podsim::report::job::text(&s.run.pod, job);
    assert!(
        text.ends_with(
            "job still Running: \"logshipper\" never exits, so the Pod stays Running (R46): give it a `run` \
             (how long its work takes; podsim.dev/logshipper.run on a manifest), or, if it is a helper such as \
             a log shipper or a proxy, make it a native sidecar (kind = \"sidecar\", an initContainers entry \
             with restartPolicy: Always)\n"
        ),
        "{text}"
    );
}

/// The liveness-probe task's exec example, as the website publishes it:
/// busybox's `sh -c` script is PID 1, removes /tmp/healthy at 30 s, and
/// handles no signal. By hand, with its timings (boot 0 s, the file gone
/// from 30 s): the liveness worker ticks every 5 s from the Pod's creation
/// and skips the ticks before `initialDelaySeconds: 5` (R29); 30, 35 and
/// 40 s fail, the third reaches `failureThreshold` 3 (R27): the kubelet
/// kills it at 40 s (R31). SIGTERM reaches no PID 1 without a handler (R80), so
/// it runs on until SIGKILL at 40 + 30 s (the Pod's default grace, R35),
/// exit 137, and stays Ready all the while (no readiness probe: Ready while
/// running, R21). The first restart has no back-off (R15): attempt 2 at
/// 70 s. Told so by a notice; `drain = "0s"` (an entrypoint that forwards
/// the signal) gives the exit at the kill, 40 s.
#[test]
fn the_liveness_example_shell_ignores_sigterm_until_sigkill() {
    let (s, r) = one("exec-liveness.yaml", Some("exec-liveness.timings.toml"));
    assert_eq!(s.run.pod.containers[0].drain, podsim::model::Drain::Never);
    assert!(
        problems(&s).iter().any(|p| matches!(p,
            Problem::UnhandledSigterm { container, command }
                if container == "liveness" && command.starts_with("/bin/sh -c 'touch /tmp/healthy;"))),
        "{:?}",
        s.notices
    );
    assert_eq!(
        first(&s, &r, "liveness", probe_failed(ProbeKind::Liveness)),
        Some(40_000)
    );
    assert_eq!(first(&s, &r, "liveness", exit(ExitReason::Killed)), Some(70_000));
    assert_eq!(first(&s, &r, "liveness", attempt(2)), Some(70_000));
    assert_eq!(first(&s, &r, "pod", is(Change::PodNotReady)), Some(70_000));
    assert_eq!(r.metrics.restarts, 1);
    assert_eq!(r.metrics.sigkilled, 1);

    let text = std::fs::read_to_string(path("exec-liveness.yaml")).unwrap();
    let forwarded = text.replacen(
        "  name: liveness-exec\n",
        "  name: liveness-exec\n  annotations:\n    podsim.dev/liveness.drain: \"0s\"\n",
        1,
    );
    assert_ne!(forwarded, text);
    let timings = Timings::load(&path("exec-liveness.timings.toml")).unwrap();
    let s = podsim::scenario::manifest::parse(&forwarded, "exec-liveness.yaml", Some(&timings)).unwrap();
    assert!(
        !problems(&s)
            .iter()
            .any(|p| matches!(p, Problem::UnhandledSigterm { .. }))
    );
    let r = simulate_pod(&s.run);
    assert_eq!(
        first(&s, &r, "liveness", exit(ExitReason::Terminated(0))),
        Some(40_000)
    );
}

/// The sidecar concept page's Deployment, as published: a shell loop as
/// the app and `sh -c 'tail -F …'` as the native sidecar, neither handling
/// SIGTERM. By hand, each booting the assumed 1 s, deleted 5 s after Ready:
/// logshipper runs 0→1 s and is started (R21), myapp starts then and is up
/// at 2 s, Ready at 2 s; deleted at 7 s. myapp gets SIGTERM (the sidecar
/// waits for the apps, R36), ignores it, and SIGKILL ends it at 7 + 30 =
/// 37 s. The grace is spent, so logshipper gets only the 2 s floor (R37):
/// SIGTERM at 37 s, ignored, SIGKILL at 39 s. Both exit 137: phase Failed
/// (R44), 32 s of termination where a drain of 0 s gave none.
#[test]
fn the_sidecar_example_takes_the_whole_grace_period_to_delete() {
    let (s, r) = one("deployment-sidecar.yaml", Some("deployment-sidecar.timings.toml"));
    let deaf: Vec<&str> = problems(&s)
        .iter()
        .filter_map(|p| match p {
            Problem::UnhandledSigterm { container, .. } => Some(container.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(deaf, ["logshipper", "myapp"]);
    assert_eq!(r.metrics.ready_ms, Some(2000));
    assert_eq!(first(&s, &r, "myapp", is(Change::Sigkill)), Some(37_000));
    assert_eq!(first(&s, &r, "logshipper", sigterm_with(2)), Some(37_000));
    assert_eq!(
        first(&s, &r, "logshipper", exit(ExitReason::Killed)),
        Some(39_000)
    );
    assert_eq!(r.metrics.termination_ms, Some(32_000));
    assert_eq!(r.metrics.sigkilled, 2);
    assert_eq!(r.metrics.phase, PodPhase::Failed);
}

/// The restart-policy page's in-place restart (KEP-5532), as published: a
/// watcher sidecar whose rule restarts every container on exit 88. By hand,
/// with its scripts' timings (every boot 0 s; the watcher exits 88 60 s
/// after it starts): all three run at 0 s, Ready at 0 s. At 60 s the rule
/// matches (R61): main-application is SIGKILLed (137), and the startup runs
/// again from setup-environment at the same instant, Ready again at 60 s;
/// again at 120 s. Each round restarts all three (R20): 6 by 150 s.
#[test]
fn the_watcher_sidecar_restarts_every_container_in_place_on_exit_88() {
    let (s, r) = one(
        "restart-all-containers.yaml",
        Some("restart-all-containers.timings.toml"),
    );
    assert_eq!(
        kinds(&s),
        [
            ("setup-environment", ContainerKind::Init),
            ("watcher-sidecar", ContainerKind::Sidecar),
            ("main-application", ContainerKind::App)
        ]
    );
    let restarts_all: Vec<u64> = history(&r, &s.run.pod)
        .into_iter()
        .filter(|(_, who, what)| who == "pod" && *what == Change::AllContainersRestarting)
        .map(|(t, _, _)| t)
        .collect();
    assert_eq!(restarts_all, [60_000, 120_000]);
    assert_eq!(
        first(&s, &r, "main-application", exit(ExitReason::Killed)),
        Some(60_000)
    );
    assert_eq!(first(&s, &r, "setup-environment", attempt(3)), Some(120_000));
    assert_eq!(r.metrics.ready_ms, Some(0));
    assert_eq!((r.metrics.restarts, r.metrics.sigkilled), (6, 2));
    assert_eq!(r.metrics.phase, PodPhase::Running);
}

/// The Windows guide's IIS Pod, as published: podsim runs it, as a Linux
/// node would, and says at its `nodeSelector` (line 23 of the fixture,
/// column 7) that a Windows container stops another way (kubernetes.io,
/// Windows containers in Kubernetes: CTRL_SHUTDOWN_EVENT, then the image's
/// own timeout, not the grace period).
#[test]
fn a_pod_for_a_windows_node_is_run_and_told_it_stops_another_way() {
    let (s, r) = one("windows-simple-pod.yaml", None);
    assert_eq!(kinds(&s), [("iis", ContainerKind::App)]);
    let windows: Vec<String> = s
        .notices
        .iter()
        .map(|n| n.to_string())
        .filter(|n| n.contains("kubernetes.io/os"))
        .collect();
    assert_eq!(windows.len(), 1, "{:?}", s.notices);
    assert!(
        windows[0].contains("windows-simple-pod.yaml:23:7: spec.nodeSelector kubernetes.io/os: windows:"),
        "{}",
        windows[0]
    );
    assert!(windows[0].contains("CTRL_SHUTDOWN_EVENT"), "{}", windows[0]);
    // Nothing else changes: the one app boots in the assumed 1 s and is Ready.
    assert_eq!(r.metrics.ready_ms, Some(1000));
}
