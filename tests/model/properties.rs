//! Invariants over random Pods well beyond the seed's domain: any restart
//! policy, preStop hooks, millisecond timings, deletion at any moment.

use podsim::engine::SimDuration;
use podsim::model::job::JobSimulator;
use podsim::model::{
    Backoff, ContainerKind, ContainerSpec, Deletion, Outcome, PodMode, PodPhase, PodSimulator, PodSpec,
    Probe, ProbeOutcome, RestartPolicy, RunSpec, Trace, simulate_pod,
};
use podsim::report::timeline::Timeline;
use proptest::prelude::*;

fn ms(v: u64) -> SimDuration {
    SimDuration::from_millis(v)
}

fn container(kind: ContainerKind) -> impl Strategy<Value = ContainerSpec> {
    (0u64..8000, 0u64..6000, 0u64..4000, 0u32..4, any::<bool>()).prop_map(
        move |(boot, drain, pre_stop, fails, proxy)| {
            let init = kind == ContainerKind::Init;
            ContainerSpec {
                drain: if init { ms(0) } else { ms(drain) }.into(),
                // 0 is no hook here: R58's zero-length hook is tested by hand.
                pre_stop: (!init && pre_stop > 0).then(|| ms(pre_stop).into()),
                fails,
                proxy: proxy && !init,
                ..ContainerSpec::new("", kind, ms(boot))
            }
        },
    )
}

fn pod() -> impl Strategy<Value = PodSpec> {
    let kinds = prop_oneof![
        Just(ContainerKind::Init),
        Just(ContainerKind::Sidecar),
        Just(ContainerKind::App)
    ];
    (
        proptest::collection::vec(kinds.prop_flat_map(container), 0..5),
        proptest::collection::vec(container(ContainerKind::App), 1..3),
        prop_oneof![
            Just(RestartPolicy::Always),
            Just(RestartPolicy::OnFailure),
            Just(RestartPolicy::Never)
        ],
        0u64..40_000,
        prop_oneof![
            Just(Deletion::Never),
            (0u64..30_000).prop_map(|t| Deletion::At(ms(t))),
            (0u64..5_000).prop_map(|t| Deletion::AfterReady(ms(t)))
        ],
        any::<bool>(),
    )
        .prop_map(
            |(mut containers, apps, restart_policy, grace, deletion, immediate)| {
                containers.extend(apps);
                for (i, c) in containers.iter_mut().enumerate() {
                    c.name = format!("c{i}");
                }
                PodSpec {
                    restart_policy,
                    termination_grace_period: ms(grace),
                    deletion,
                    backoff: Backoff {
                        initial: ms(1000),
                        cap: ms(8000),
                        immediate_first_restart: immediate,
                    },
                    ..PodSpec::new(containers)
                }
            },
        )
}

/// A probe with any outcome (R53), mostly one that passes once booted.
fn probe() -> impl Strategy<Value = Option<Probe>> {
    let outcome = prop_oneof![
        6 => Just(ProbeOutcome::Passes),
        1 => Just(ProbeOutcome::Fails),
        1 => Just(ProbeOutcome::Hangs),
        2 => Just(ProbeOutcome::FailsAfterSigterm),
    ];
    let window = (0u64..5_000, proptest::option::of(0u64..30_000));
    proptest::option::of((0u64..3, 1u64..6, 1u32..4, 1u32..3, outcome, window).prop_map(
        |(delay, period, failures, successes, outcome, (after, until))| Probe {
            initial_delay: SimDuration::from_secs(delay),
            period: SimDuration::from_secs(period),
            failure_threshold: failures,
            success_threshold: successes,
            outcome,
            pass_after: ms(after),
            pass_until: until.map(|u| ms(after + u)),
            ..Probe::default()
        },
    ))
}

/// `pod()` plus probes, crashes while running, finite runs and Job mode.
pub fn rich_pod() -> impl Strategy<Value = PodSpec> {
    let extras = (
        probe(),
        probe(),
        probe(),
        proptest::collection::vec(0u64..20_000, 0..3),
        proptest::option::of(0u64..20_000),
        0i32..2,
    );
    (pod(), proptest::collection::vec(extras, 8), any::<bool>()).prop_map(|(mut spec, extras, job)| {
        for (c, (startup, readiness, liveness, crashes, run, code)) in spec.containers.iter_mut().zip(extras)
        {
            if c.kind == ContainerKind::Init {
                continue;
            }
            c.probes = [startup, readiness, liveness];
            c.crash_after = crashes.into_iter().map(|c| ms(c).into()).collect();
            if c.kind == ContainerKind::App {
                c.run = run.map(|r| ms(r).into());
                c.exit_code = if c.run.is_some() { code } else { 0 };
            }
        }
        if job {
            spec.mode = PodMode::Job;
            if spec.restart_policy == RestartPolicy::Always {
                spec.restart_policy = RestartPolicy::Never;
            }
        }
        spec
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1000))]

    /// Same input, same output — also on a simulator reused after another run.
    #[test]
    fn prop_same_input_same_output(spec in rich_pod(), other in rich_pod()) {
        let horizon = SimDuration::from_secs(3600);
        let first = simulate_pod(&RunSpec { horizon, ..RunSpec::new(spec.clone()) });
        let mut reused = PodSimulator::recording(RunSpec { horizon, ..RunSpec::new(other.clone()) });
        reused.run();
        reused.spec_mut().pod = spec.clone();
        let again = reused.run();
        if spec.mode != PodMode::Job {
            prop_assert_eq!(first.metrics, again);
            prop_assert_eq!(&first.trace[..], reused.trace());
        }
        // A Job's Pods under its controller, on a reused simulator too.
        let mut jobs = JobSimulator::observed_by(RunSpec { horizon, ..RunSpec::new(other) }, Trace::new());
        jobs.run(|_, _| {});
        jobs.spec_mut().pod = spec.clone();
        let mut trace = None;
        let (again, figures) = jobs.run(|_, t| {
            trace.get_or_insert_with(|| t.to_vec());
        });
        prop_assert_eq!(first.metrics, again);
        prop_assert_eq!(first.trace, trace.unwrap_or_default());
        prop_assert_eq!(first.job.map(|j| j.figures), figures);
    }

    /// Every run ends: by itself when failures are finite scripts (no probes
    /// that may kill forever), else at the horizon; a Job that ends settled
    /// has completed or is stuck. A deleted
    /// Pod always ends with every container stopped in a terminal phase.
    #[test]
    fn prop_every_run_terminates(spec in pod(), rich in rich_pod()) {
        let m = simulate_pod(&RunSpec { horizon: SimDuration::from_secs(3600), ..RunSpec::new(rich.clone()) }).metrics;
        if rich.mode == PodMode::Job && m.outcome != Outcome::Horizon {
            prop_assert!(m.completed_ms.is_some() || matches!(m.outcome, Outcome::Stuck(_)), "{:?}", m);
        }
        let m = simulate_pod(&RunSpec::new(spec.clone())).metrics;
        prop_assert_eq!(m.outcome, Outcome::Settled);
        if m.termination_ms.is_some() {
            prop_assert!(matches!(m.phase, PodPhase::Succeeded | PodPhase::Failed), "{:?}", m.phase);
        }
        if let Deletion::At(_) = spec.deletion {
            prop_assert!(m.termination_ms.is_some());
        }
    }

    /// The exposed row drawn from the trace adds up to the metered exposure.
    #[test]
    fn prop_pictures_agree_with_metrics(spec in rich_pod()) {
        let report = simulate_pod(&RunSpec { horizon: SimDuration::from_secs(3600), ..RunSpec::new(spec.clone()) });
        let timeline = Timeline::new(&spec, &report);
        let drawn: u64 = timeline.exposed.iter().map(|(a, b)| b.since(*a).as_millis()).sum();
        prop_assert_eq!(drawn, report.metrics.exposed_total_ms);
    }

    /// A proxy declared as a native sidecar means zero exposure, as long as
    /// the apps finish inside the grace period (beyond it, see
    /// `sidecar_proxy_is_exposed_when_the_grace_period_runs_out`).
    #[test]
    fn prop_native_sidecar_proxy_means_zero_exposure(mut spec in pod()) {
        for c in &mut spec.containers {
            c.proxy = false;
        }
        spec.containers.insert(0, ContainerSpec { proxy: true, drain: ms(500).into(), ..ContainerSpec::new("proxy", ContainerKind::Sidecar, ms(3000)) });
        let slowest_app = spec
            .containers
            .iter()
            .filter(|c| c.kind == ContainerKind::App)
            .map(|c| c.pre_stop.as_ref().map_or(0, |p| p.fixed().unwrap().as_millis()) + c.drain.fixed().unwrap().as_millis())
            .max()
            .unwrap_or(0);
        spec.termination_grace_period = spec.termination_grace_period.max(ms(slowest_app + 1000));
        let m = simulate_pod(&RunSpec::new(spec.clone())).metrics;
        prop_assert_eq!(m.exposed_total_ms, 0);
    }
}

#[test]
fn sidecar_proxy_is_exposed_when_the_grace_period_runs_out() {
    // Real kubelet arithmetic (R35, A8): grace 30 s; web's preStop takes
    // 1.5 s, floored to 1 s, so web gets 29 s after SIGTERM (at 1.5 s) and
    // exits at 30.4 s; the proxy's turn-wait ends at 30 s, it gets SIGTERM
    // and exits at once: web runs 0.4 s with no proxy.
    let spec = PodSpec {
        deletion: Deletion::At(ms(10_000)),
        ..PodSpec::new(vec![
            ContainerSpec {
                proxy: true,
                ..ContainerSpec::new("proxy", ContainerKind::Sidecar, ms(1000))
            },
            ContainerSpec {
                pre_stop: Some(ms(1500).into()),
                drain: ms(28_900).into(),
                ..ContainerSpec::new("web", ContainerKind::App, ms(1000))
            },
        ])
    };
    let m = simulate_pod(&RunSpec::new(spec.clone())).metrics;
    assert_eq!(
        (m.exposed_shutdown_ms, m.sigkilled, m.termination_ms),
        (400, 0, Some(30_400))
    );
}
