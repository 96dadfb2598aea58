//! `podsim::advise::advise_job` against Jobs worked out by hand from the
//! kubelet's and the Job controller's rules (R36, R43, R44, R46, J3, J5),
//! each advised Job simulated again to show it completes.

use podsim::advise::{Culprit, Fix, advise_job};
use podsim::model::job::{Action, JobOutcome, Requirement};
use podsim::model::{KubeVersion, RunReport, simulate};
use podsim::scenario::Scenario;

fn scenario(text: &str) -> Scenario {
    Scenario::parse(text, "job").expect("the scenario reads")
}

/// How the Job of `run` ends, simulated on its own.
fn outcome(run: &podsim::model::RunSpec) -> JobOutcome {
    match simulate(run) {
        RunReport::Pod(p) => p.job.expect("a Job").figures.outcome,
        RunReport::Service(_) => panic!("not a Service"),
    }
}

/// A Job whose native sidecar exits 143 on SIGTERM (no handler, R54). Its
/// first Pod is deleted at 5 s (a node drained): main gets SIGTERM and,
/// as written, exits 2 ("interrupted, retry me") after its 1 s drain, at
/// 6 s; the proxy waits for it (R36), gets SIGTERM at 6 s and exits 143.
/// The policy, FailJob on codes NotIn [2] with no containerName, reads
/// main's 2 first (no match), then the proxy's 143 (J5): the Job fails at
/// 6 s. Narrowed to main, the failure is counted (1 ≤ 6), the replacement
/// comes 10 s later (J3), at 16 s; it is not deleted: proxy 0–1 s, main
/// 1–2 s, runs 10 s, exits 0 at 12 s, and the proxy's 143 is not the Pod's
/// (R44): Succeeded, so the Job is Complete at 16 + 12 = 28 s.
#[test]
fn a_sidecars_143_matching_a_rule_for_the_app_gets_the_rule_narrowed_and_the_job_completes() {
    let s = scenario(
        r#"
        name = "drained batch"
        [pod]
        restart_policy = "Never"
        stop_at = "5s"
        [job]
        pod_failure_policy = [{ action = "FailJob", on_exit_codes = { operator = "NotIn", values = [2] } }]
        [[containers]]
        name = "proxy"
        kind = "sidecar"
        boot = "1s"
        proxy = true
        exit_code_on_sigterm = 143
        [[containers]]
        name = "main"
        kind = "app"
        boot = "1s"
        run = "10s"
        drain = "1s"
        exit_code_on_sigterm = 2
        "#,
    );
    assert!(matches!(outcome(&s.run), JobOutcome::Failed { at, .. } if at.as_millis() == 6000));
    let a = advise_job(&s.run, 10);
    assert_eq!(
        a.culprits,
        [Culprit::RuleOnSidecar {
            rule: 0,
            action: Action::FailJob,
            container: "proxy".into(),
            code: 143
        }]
    );
    assert_eq!(
        a.fixes,
        [Fix::NarrowRule {
            rule: 0,
            to: vec!["main".into()]
        }]
    );
    assert_eq!((a.today.failed, a.advised.complete), (10, 10));
    assert_eq!(a.advised.complete_ms, Some(28_000.0));
    let main = a.spec.pod.find("main");
    assert!(matches!(
        &a.spec.job.pod_failure_policy[0].on,
        Requirement::ExitCodes { container, is_in: false, values } if *container == main && values == &[2]
    ));
    assert!(matches!(outcome(&a.spec), JobOutcome::Complete { at } if at.as_millis() == 28_000));
}

/// The cloud-sql-proxy Job with its proxy beside main: main runs 1–11 s,
/// the proxy never exits, the Pod stays Running (R46). As a native sidecar
/// it starts first (0–1 s), main 1–2 s, runs 10 s, exits 0 at 12 s; the
/// kubelet stops the proxy then (R43): Complete at 12 s. Before 1.29 there
/// is no native sidecar to move to, and no rule helps: unfixed.
#[test]
fn a_side_by_side_proxy_that_never_exits_is_moved_to_a_native_sidecar() {
    let s = scenario(
        r#"
        name = "legacy proxy"
        [pod]
        restart_policy = "Never"
        mode = "job"
        [[containers]]
        name = "main"
        kind = "app"
        boot = "1s"
        run = "10s"
        [[containers]]
        name = "proxy"
        kind = "app"
        boot = "1s"
        proxy = true
        "#,
    );
    assert_eq!(outcome(&s.run), JobOutcome::Running);
    let a = advise_job(&s.run, 5);
    assert_eq!(a.culprits, [Culprit::Blocks("proxy".into())]);
    assert_eq!(a.fixes, [Fix::Native("proxy".into())]);
    assert!(matches!(outcome(&a.spec), JobOutcome::Complete { at } if at.as_millis() == 12_000));
    let mut old = s.run.clone();
    old.pod.kubernetes = KubeVersion(28);
    let a = advise_job(&old, 5);
    assert!(a.fixes.is_empty());
    assert_eq!(a.unfixed, Some(Culprit::Blocks("proxy".into())));
}

/// The proxy beside main, killed by main's script when the work is done
/// (`run` 11 s after its boot, exit 143): main runs 1–11 s and exits 0,
/// the proxy exits 143 at 12 s, an app's code, so the Pod is Failed (R44)
/// and every retry fails the same way. As a native sidecar the kill is
/// not needed (the kubelet stops it, R43): proxy 0–1 s, main 1–2 s, runs
/// 10 s, exits 0 at 12 s, the proxy exits 0 on SIGTERM: Complete at 12 s.
#[test]
fn a_side_by_side_proxy_whose_143_fails_the_pod_is_moved_to_a_native_sidecar() {
    let s = scenario(
        r#"
        name = "killed proxy"
        [pod]
        restart_policy = "Never"
        mode = "job"
        [job]
        backoff_limit = 1
        [[containers]]
        name = "main"
        kind = "app"
        boot = "1s"
        run = "10s"
        [[containers]]
        name = "proxy"
        kind = "app"
        boot = "1s"
        proxy = true
        run = "11s"
        exit_code = 143
        "#,
    );
    assert!(matches!(outcome(&s.run), JobOutcome::Failed { .. }));
    let a = advise_job(&s.run, 5);
    assert_eq!(a.culprits, [Culprit::FailsPod("proxy".into(), 143)]);
    assert_eq!(a.fixes, [Fix::Native("proxy".into())]);
    assert!(matches!(outcome(&a.spec), JobOutcome::Complete { at } if at.as_millis() == 12_000));
}
