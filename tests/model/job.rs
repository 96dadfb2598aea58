//! The Job controller over a Job's Pods (J1–J6 in docs/kubelet-rules.md),
//! worked by hand: back-off between replacements, `backoffLimit`,
//! `podFailurePolicy` on the final statuses (sidecars' included), and the
//! restart count under `restartPolicy: OnFailure`.

use podsim::engine::{SimDuration, SimTime};
use podsim::model::job::{Action, FailureRule, JobFailure, JobOutcome, JobSpec, Requirement};
use podsim::model::{ContainerId, PodPhase, PodReport, simulate_pod};
use podsim::scenario::Scenario;

/// The app fails with exit 1 after 1 s of boot and 2 s of work: each Pod
/// is Failed 3 s after its creation.
const FAILING: &str = r#"
    [pod]
    mode = "job"
    restart_policy = "Never"
    [[containers]]
    name = "main"
    kind = "app"
    boot = "1s"
    run = "2s"
    exit_code = 1
"#;

fn job(toml: &str, spec: JobSpec, horizon: u64) -> PodReport {
    let mut scenario = Scenario::parse(toml, "test.toml").unwrap_or_else(|e| panic!("{e}"));
    scenario.run.job = spec;
    scenario.run.horizon = SimDuration::from_secs(horizon);
    simulate_pod(&scenario.run)
}

fn created_and_finished(report: &PodReport) -> Vec<(u64, Option<u64>)> {
    let job = report.job.as_ref().expect("a Job's report");
    job.pods
        .iter()
        .map(|p| {
            (
                p.created.as_millis() / 1000,
                p.finished.map(|f| f.as_millis() / 1000),
            )
        })
        .collect()
}

#[test]
fn j2_j3_seven_pods_back_off_10_20_40_80_160_320_s_then_backoff_limit_exceeded() {
    // Pod k fails 3 s after its creation; the next is created 10·2^(k−1) s
    // after that failure: 0→3, 13→16, 36→39, 79→82, 162→165, 325→328,
    // 648→651. The 7th counted failure is more than backoffLimit 6.
    let report = job(FAILING, JobSpec::default(), 3600);
    assert_eq!(
        created_and_finished(&report),
        [
            (0, Some(3)),
            (13, Some(16)),
            (36, Some(39)),
            (79, Some(82)),
            (162, Some(165)),
            (325, Some(328)),
            (648, Some(651))
        ]
    );
    let figures = report.job.unwrap().figures;
    assert_eq!((figures.pods, figures.failed), (7, 7));
    let at = SimTime(651_000);
    assert_eq!(
        figures.outcome,
        JobOutcome::Failed {
            decided: at,
            at,
            reason: JobFailure::BackoffLimitExceeded
        }
    );
    // The Pod columns are the first Pod's.
    assert_eq!(
        (report.metrics.phase, report.metrics.completed_ms),
        (PodPhase::Failed, Some(3000))
    );
}

#[test]
fn j2_backoff_limit_0_fails_the_job_with_its_first_pod_and_the_horizon_stops_replacements() {
    let none = job(
        FAILING,
        JobSpec {
            backoff_limit: Some(0),
            ..JobSpec::default()
        },
        3600,
    );
    assert_eq!(created_and_finished(&none), [(0, Some(3))]);
    // With 60 s of horizon the third Pod (due at 36 s) runs, the fourth
    // (due at 79 s) is never made: the Job is still Running.
    let cut = job(FAILING, JobSpec::default(), 60);
    assert_eq!(
        created_and_finished(&cut),
        [(0, Some(3)), (13, Some(16)), (36, Some(39))]
    );
    assert_eq!(cut.job.unwrap().figures.outcome, JobOutcome::Running);
}

/// A Job with a native sidecar proxy (boot 1 s, drain 5 s) and an app that
/// boots 1 s after it, works 2 s and exits 42: the app exits at 4 s, the
/// proxy gets SIGTERM then and, with a 2 s grace, SIGKILL at 6 s (137).
const WITH_SIDECAR: &str = r#"
    [pod]
    mode = "job"
    restart_policy = "Never"
    termination_grace_period = "2s"
    [[containers]]
    name = "proxy"
    kind = "sidecar"
    boot = "1s"
    drain = "5s"
    [[containers]]
    name = "main"
    kind = "app"
    boot = "1s"
    run = "2s"
    exit_code = 42
"#;

fn exit_rule(action: Action, container: Option<u32>, is_in: bool, values: &[i32]) -> FailureRule {
    FailureRule::on_exit_codes(action, container.map(ContainerId), is_in, values)
}

#[test]
fn j5_fail_job_on_exit_42_names_the_rule_and_the_container() {
    let spec = JobSpec {
        pod_failure_policy: vec![exit_rule(Action::FailJob, None, true, &[42])],
        ..JobSpec::default()
    };
    let report = job(WITH_SIDECAR, spec, 3600);
    assert_eq!(created_and_finished(&report), [(0, Some(6))]);
    let JobOutcome::Failed { reason, at, .. } = report.job.unwrap().figures.outcome else {
        panic!("the Job failed")
    };
    assert_eq!(at, SimTime(6_000), "the Pod is terminal once the proxy is killed");
    let fired = reason.fired().unwrap();
    assert_eq!(
        (reason.reason(), fired.rule, fired.exit),
        ("PodFailurePolicy", 0, Some((ContainerId(1), 42)))
    );
}

#[test]
fn j5_an_unnamed_not_in_rule_matches_the_sidecars_137_and_ignores_every_failure() {
    // "Ignore what is not 42" meant the app; unnamed, it skips main (42 is
    // in the list) and matches the proxy's SIGKILL, 137: never counted, so
    // Pods are replaced until the horizon (10 min): 0→6, 16→22, 42→48,
    // 88→94, 174→180, 340→346; the next would be at 666 s.
    let trap = JobSpec {
        pod_failure_policy: vec![exit_rule(Action::Ignore, None, false, &[42])],
        ..JobSpec::default()
    };
    let report = job(WITH_SIDECAR, trap, 600);
    assert_eq!(
        created_and_finished(&report),
        [
            (0, Some(6)),
            (16, Some(22)),
            (42, Some(48)),
            (88, Some(94)),
            (174, Some(180)),
            (340, Some(346))
        ]
    );
    let job_report = report.job.unwrap();
    assert_eq!(
        (job_report.figures.failed, job_report.figures.outcome),
        (0, JobOutcome::Running)
    );
    assert_eq!(
        job_report.pods[0].fired.unwrap().exit,
        Some((ContainerId(0), 137))
    );
    // Named to main, the rule never matches: every failure counts, and the
    // 7th (created at 666 s) exceeds backoffLimit 6.
    let named = JobSpec {
        pod_failure_policy: vec![exit_rule(Action::Ignore, Some(1), false, &[42])],
        ..JobSpec::default()
    };
    let report = job(WITH_SIDECAR, named, 3600);
    let figures = report.job.unwrap().figures;
    assert_eq!(
        (figures.pods, figures.failed, figures.outcome.at()),
        (7, 7, Some(SimTime(672_000)))
    );
}

#[test]
fn j4_on_failure_restarts_reach_backoff_limit_2_and_the_job_deletes_its_pod() {
    // Exit 1 at 3 s, restarted at once (back-off 0, R15), exits at 6 s,
    // back-off 10 s: the second restart at 16 s makes restartCount 2 =
    // backoffLimit. The controller deletes the Pod right after (16.001 s);
    // the booting app stops at once: the Pod is Failed at 16.001 s.
    let on_failure = FAILING.replace("\"Never\"", "\"OnFailure\"");
    let report = job(
        &on_failure,
        JobSpec {
            backoff_limit: Some(2),
            ..JobSpec::default()
        },
        3600,
    );
    let job_report = report.job.unwrap();
    assert_eq!(
        job_report.figures.outcome,
        JobOutcome::Failed {
            decided: SimTime(16_000),
            at: SimTime(16_001),
            reason: JobFailure::BackoffLimitExceeded
        }
    );
    assert_eq!((job_report.figures.pods, job_report.pods[0].restarts), (1, 2));
    // The app stopped on SIGTERM with exit 0, so the deleted Pod itself is
    // Succeeded (R44, R48): the Job failed all the same, it decided first.
    assert_eq!(report.metrics.phase, PodPhase::Succeeded);
}

#[test]
fn j1_a_pod_that_succeeds_completes_the_job_once_its_sidecar_stopped() {
    let fine = WITH_SIDECAR.replace("exit_code = 42", "exit_code = 0");
    let report = job(&fine, JobSpec::default(), 3600);
    let figures = report.job.unwrap().figures;
    assert_eq!(
        (figures.outcome, figures.pods),
        (JobOutcome::Complete { at: SimTime(6_000) }, 1)
    );
}

#[test]
fn j5_the_toml_job_table_reads_as_the_api_spells_the_policy() {
    let toml = format!(
        "{WITH_SIDECAR}\n[job]\nbackoff_limit = 2\n[[job.pod_failure_policy]]\naction = \"Ignore\"\n\
         on_pod_conditions = [{{ type = \"DisruptionTarget\" }}]\n[[job.pod_failure_policy]]\n\
         action = \"FailJob\"\non_exit_codes = {{ container = \"main\", operator = \"In\", values = [1, 42] }}\n"
    );
    let scenario = Scenario::parse(&toml, "test.toml").unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(scenario.run.job.backoff_limit, Some(2));
    let rules = &scenario.run.job.pod_failure_policy;
    assert_eq!(rules.len(), 2);
    assert_eq!(
        rules[0].on,
        Requirement::PodConditions(vec![podsim::model::job::ConditionPattern {
            condition: "DisruptionTarget".into(),
            status: "True".into()
        }]),
        "status defaults to True"
    );
    assert_eq!(rules[1], exit_rule(Action::FailJob, Some(1), true, &[1, 42]));
    // DisruptionTarget never holds (podsim evicts no Job Pod): rule 1 fires.
    let report = simulate_pod(&scenario.run);
    let JobOutcome::Failed { reason, .. } = report.job.unwrap().figures.outcome else {
        panic!("the Job failed")
    };
    assert_eq!(reason.fired().map(|f| f.rule), Some(1));
}
