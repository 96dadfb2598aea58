//! How containers exit (issue 13 item 4): R55–R59 of
//! `docs/kubelet-rules.md`, each timeline worked by hand in the test's
//! comments. RestartAllContainers (item 6) is `restart_all`.

use super::common::*;
use podsim::model::PodPhase;

#[test]
fn r55_a_process_that_ignores_sigterm_is_sigkilled_at_the_grace_and_exits_137() {
    // web boots 0→1 s, ignores SIGTERM. Deleted at 5 s with grace 10 s, no
    // preStop: SIGTERM at 5 s with a stop timeout of 10 s, SIGKILL at 15 s,
    // exit 137 (128 + 9). A non-zero exit makes the deleted Pod Failed (R44).
    let toml = r#"
        [pod]
        stop_at = "5s"
        termination_grace_period = "10s"
        [[containers]]
        name = "web"
        kind = "app"
        boot = "1s"
        drain = "never"
    "#;
    assert_eq!(events(toml, "web", sigterm_with(10)), [5000]);
    assert_eq!(events(toml, "web", exited_with(137)), [15000]);
    let m = run_text(toml).metrics;
    assert_eq!(
        (m.sigkilled, m.termination_ms, m.phase),
        (1, Some(10_000), PodPhase::Failed)
    );
}

#[test]
fn r55_an_app_that_ignores_sigterm_takes_the_sidecars_turns_r37s_worked_example() {
    // R37's example: grace 30 s; app A has a 5 s preStop and ignores SIGTERM;
    // sidecars S1, S2 (declared in that order) drain 1 s. Deleted at 0 s:
    // A's preStop 0→5 s, SIGTERM at 5 s (timeout 30 − 5 = 25 s), SIGKILL at
    // 30 s. S1 and S2 wait for their turn with their whole 30 s budget; both
    // waits end at 30 s, so both get SIGTERM at once with the 2 s floor and
    // exit 1 s later, at 31 s: the ordering is lost.
    let toml = r#"
        [pod]
        stop_after_ready = "0s"
        [[containers]]
        name = "s1"
        kind = "sidecar"
        boot = "0s"
        drain = "1s"
        [[containers]]
        name = "s2"
        kind = "sidecar"
        boot = "0s"
        drain = "1s"
        [[containers]]
        name = "a"
        kind = "app"
        boot = "0s"
        pre_stop = "5s"
        drain = "never"
    "#;
    assert_eq!(events(toml, "a", sigterm_with(25)), [5000]);
    assert_eq!(events(toml, "a", exited_with(137)), [30_000]);
    for sidecar in ["s1", "s2"] {
        assert_eq!(events(toml, sidecar, sigterm_with(2)), [30_000], "{sidecar}");
        assert_eq!(events(toml, sidecar, exited_with(0)), [31_000], "{sidecar}");
    }
}

#[test]
fn r56_a_sidecar_that_exits_on_its_own_restarts_under_never_and_takes_ready_with_it() {
    // restartPolicy Never. proxy (sidecar, no probes) boots 0→1 s and exits 0
    // `run` = 4 s after its boot; web (app) starts at 1 s, is up at 2 s: Pod
    // Ready at 2 s. proxy exits at 5 s: ContainersReady needs every sidecar
    // (R22), so the Pod is not Ready; R10 restarts it whatever the policy,
    // the first time at once (R15): up at 6 s, Ready again. Its next exit at
    // 10 s waits 10 s of back-off: restart at 20 s, up at 21 s, exit at
    // 25 s, 20 s of back-off to the 30 s horizon. web, alive from 2 s, is
    // exposed while proxy is down: 5→6, 10→21, 25→30 s = 17 s.
    let toml = r#"
        horizon = "30s"
        [pod]
        restart_policy = "Never"
        [[containers]]
        name = "proxy"
        kind = "sidecar"
        boot = "1s"
        run = "4s"
        proxy = true
        [[containers]]
        name = "web"
        kind = "app"
        boot = "1s"
    "#;
    assert_eq!(events(toml, "proxy", exited_with(0)), [5000, 10_000, 25_000]);
    assert_eq!(events(toml, "proxy", is(Change::Started)), [1000, 6000, 21_000]);
    assert_eq!(events(toml, "pod", is(Change::PodReady)), [2000, 6000, 21_000]);
    assert_eq!(
        events(toml, "pod", is(Change::PodNotReady)),
        [5000, 10_000, 25_000]
    );
    let m = run_text(toml).metrics;
    assert_eq!(
        (m.ready_ms, m.restarts, m.exposed_startup_ms, m.phase),
        (Some(2000), 2, 17_000, PodPhase::Running)
    );
}

#[test]
fn r56_an_init_container_after_an_exited_sidecar_keeps_running_and_its_completion_starts_the_app() {
    // proxy (sidecar) boots 0→1 s and exits 1 `run` = 1 s later, each time;
    // migrate (init) starts at 1 s, when proxy is started (R5), and works 5 s.
    // proxy exits at 2 s, restarts at once, is up at 3 s, exits at 4 s and
    // waits 10 s: down 4→14 s. migrate keeps running (R10) and completes at
    // 6 s; it is the frontier, so web starts then though proxy is down
    // (R51), and is up at 7 s. The Pod is Ready only once proxy is up again
    // at 15 s (R22), until proxy's next exit at 16 s.
    let toml = r#"
        horizon = "30s"
        [[containers]]
        name = "proxy"
        kind = "sidecar"
        boot = "1s"
        run = "1s"
        exit_code = 1
        [[containers]]
        name = "migrate"
        kind = "init"
        boot = "5s"
        [[containers]]
        name = "web"
        kind = "app"
        boot = "1s"
    "#;
    assert_eq!(events(toml, "proxy", exited_with(1)), [2000, 4000, 16_000]);
    assert_eq!(events(toml, "migrate", exited_with(0)), [6000]);
    assert_eq!(events(toml, "web", first_start), [6000]);
    assert_eq!(events(toml, "pod", is(Change::PodReady)), [15_000]);
    assert_eq!(events(toml, "pod", is(Change::PodNotReady)), [16_000]);
}

#[test]
fn r56_run_on_an_init_container_is_refused_since_its_boot_is_its_run() {
    let toml = "[[containers]]\nname = \"migrate\"\nkind = \"init\"\nboot = \"2s\"\nrun = \"1s\"\n\
                [[containers]]\nname = \"web\"\nkind = \"app\"\nboot = \"1s\"\n";
    let e = podsim::scenario::Scenario::parse(toml, "x.toml")
        .unwrap_err()
        .to_string();
    assert_eq!(
        e,
        "x.toml:5:7: container \"migrate\": run does not apply to an init container: its boot is its \
         whole run (it exits 0 when boot is over; `fails` makes attempts exit 1, or exit_code)"
    );
}

#[test]
fn r57_an_init_container_deleted_while_it_works_gets_sigterm_at_once_and_exits_after_its_drain() {
    // proxy (sidecar, drain 1 s) is up at 1 s; migrate (init) starts then
    // and would work 20 s. Deleted at 5 s (grace 10 s): the kubelet kills
    // every running container, init containers included, and a regular init
    // container is not ordered against the sidecars (R41): migrate and proxy
    // (no app runs, no later sidecar) get SIGTERM at 5 s. proxy exits at 6 s,
    // migrate after its 3 s drain at 8 s; web never starts. Ignoring SIGTERM,
    // migrate lives until SIGKILL at 5 + 10 = 15 s (R55).
    let pod = |drain: &str| {
        format!(
            r#"
            [pod]
            stop_at = "5s"
            termination_grace_period = "10s"
            [[containers]]
            name = "proxy"
            kind = "sidecar"
            boot = "1s"
            drain = "1s"
            [[containers]]
            name = "migrate"
            kind = "init"
            boot = "20s"
            drain = "{drain}"
            [[containers]]
            name = "web"
            kind = "app"
            boot = "1s"
        "#
        )
    };
    let draining = pod("3s");
    assert_eq!(
        who_and_when(&draining, sigterm_with(10)),
        [(5000, "proxy".to_string()), (5000, "migrate".to_string())]
    );
    assert_eq!(events(&draining, "proxy", exited_with(0)), [6000]);
    assert_eq!(
        events(&draining, "migrate", exit(ExitReason::Terminated(0))),
        [8000]
    );
    assert!(events(&draining, "web", first_start).is_empty());
    assert_eq!(run_text(&draining).metrics.termination_ms, Some(3000));
    let ignoring = pod("never");
    assert_eq!(events(&ignoring, "migrate", exited_with(137)), [15_000]);
    let m = run_text(&ignoring).metrics;
    assert_eq!((m.termination_ms, m.sigkilled), (Some(10_000), 1));
}

#[test]
fn r57_an_init_container_whose_work_ends_during_its_drain_exits_0_then() {
    // migrate works 0→6 s and drains 5 s. Deleted at 4 s: SIGTERM at 4 s,
    // but its work is done at 6 s, before the drain would end at 9 s: it
    // exits 0 (completed) at 6 s and nothing else starts (R40).
    let toml = r#"
        [pod]
        stop_at = "4s"
        [[containers]]
        name = "migrate"
        kind = "init"
        boot = "6s"
        drain = "5s"
        [[containers]]
        name = "web"
        kind = "app"
        boot = "1s"
    "#;
    assert_eq!(events(toml, "migrate", sigterm), [4000]);
    assert_eq!(events(toml, "migrate", exit(ExitReason::Completed)), [6000]);
    assert!(events(toml, "web", first_start).is_empty());
}

#[test]
fn r58_a_pre_stop_of_0s_is_a_hook_that_runs_and_returns_at_once_and_changes_no_time() {
    // web boots 0→1 s, drains 2 s; deleted at 5 s. With `pre_stop = "0s"`
    // the kubelet runs the hook (a `sleep: {seconds: 0}`) and it returns at
    // once: started and finished at 5 s, SIGTERM at 5 s with the whole 30 s
    // (nothing elapsed, nothing truncated), exit at 7 s. Without a hook the
    // same times, and no hook lines.
    let pod = |hook: &str| {
        format!(
            "[pod]\nstop_at = \"5s\"\n[[containers]]\nname = \"web\"\nkind = \"app\"\nboot = \"1s\"\n\
             drain = \"2s\"\n{hook}"
        )
    };
    let zero = pod("pre_stop = \"0s\"\n");
    let none = pod("");
    let hook_lines = |toml: &str| {
        history_of(toml)
            .into_iter()
            .filter(|(_, _, what)| matches!(what, Change::PreStopStarted | Change::PreStopFinished { .. }))
            .collect::<Vec<_>>()
    };
    let line = |what: Change| (5000, "web".to_string(), what);
    assert_eq!(
        hook_lines(&zero),
        [
            line(Change::PreStopStarted),
            line(Change::PreStopFinished { cut_off: false })
        ]
    );
    assert!(hook_lines(&none).is_empty());
    assert_eq!(events(&zero, "web", sigterm_with(30)), [5000]);
    assert_eq!(events(&zero, "web", exited_with(0)), [7000]);
    assert_eq!(run_text(&zero).metrics, run_text(&none).metrics);
}

#[test]
fn r59_the_stop_signal_reaches_the_process_which_drains_only_on_the_signal_it_handles() {
    // web boots 0→1 s and drains 5 s on the signal it handles; deleted at
    // 5 s with grace 10 s, so the stop timeout is 10 s (SIGKILL at 15 s).
    let pod = |keys: &str| {
        format!(
            "[pod]\nstop_at = \"5s\"\ntermination_grace_period = \"10s\"\n[[containers]]\nname = \"web\"\n\
             kind = \"app\"\nboot = \"1s\"\ndrain = \"5s\"\n{keys}"
        )
    };
    // Sent SIGQUIT while it handles SIGTERM: the kernel's default ends it at
    // once, 128 + 3 = 131, and the Pod is Failed.
    let quit = pod("stop_signal = \"SIGQUIT\"\n");
    assert_eq!(
        events(
            &quit,
            "web",
            is(Change::Sigterm {
                timeout: secs(10),
                signal: Signal::Quit
            })
        ),
        [5000]
    );
    assert_eq!(
        events(&quit, "web", exit(ExitReason::Signalled(Signal::Quit))),
        [5000]
    );
    assert_eq!(run_text(&quit).metrics.phase, PodPhase::Failed);
    // nginx: SIGQUIT is the signal it drains on: exit 0 at 5 + 5 = 10 s.
    let graceful = pod("stop_signal = \"SIGQUIT\"\ndrains_on = \"SIGQUIT\"\n");
    assert_eq!(
        events(&graceful, "web", exit(ExitReason::Terminated(0))),
        [10_000]
    );
    // The same nginx sent the default SIGTERM, which it has no handler for
    // here: 143 at once.
    let fast = pod("drains_on = \"SIGQUIT\"\n");
    assert_eq!(
        events(&fast, "web", exit(ExitReason::Signalled(Signal::Term))),
        [5000]
    );
    // SIGWINCH is ignored without a handler: SIGKILL at 15 s, 137.
    let ignored = pod("stop_signal = \"SIGWINCH\"\n");
    assert_eq!(events(&ignored, "web", exit(ExitReason::Killed)), [15_000]);
    // SIGKILL as the stop signal: 137 at once.
    let killed = pod("stop_signal = \"SIGKILL\"\n");
    assert_eq!(
        events(&killed, "web", exit(ExitReason::Signalled(Signal::Kill))),
        [5000]
    );
}

#[test]
fn r59_a_stop_signal_needs_kubernetes_1_33_and_is_alpha_there() {
    let pod = |version: &str| {
        format!(
            "[pod]\nkubernetes = \"{version}\"\n[[containers]]\nname = \"web\"\nkind = \"app\"\nboot = \"1s\"\n\
             stop_signal = \"SIGQUIT\"\n"
        )
    };
    let e = podsim::scenario::Scenario::parse(&pod("1.32"), "x.toml")
        .unwrap_err()
        .to_string();
    assert!(
        e.ends_with(
            "container \"web\": a stop signal other than SIGTERM needs Kubernetes 1.33 or later \
             (ContainerStopSignals, alpha from 1.33); this Pod says 1.32"
        ),
        "{e}"
    );
    let s = podsim::scenario::Scenario::parse(&pod("1.33"), "x.toml").unwrap();
    assert!(
        s.notices.iter().any(|n| n
            .to_string()
            .contains("feature gate ContainerStopSignals, off by default")),
        "{:?}",
        s.notices
    );
}

#[test]
fn r9_an_init_containers_failure_exits_with_its_exit_code() {
    // kubernetes/kubernetes pkg/kubelet/kuberuntime/kuberuntime_container.go
    // isInitContainerFailed: an exited init container whose code is not 0
    // failed, whatever the code; computeInitContainerActions restarts it
    // (Always: R9), the first restart at once (R15). setup's first attempt
    // fails at 2 s with its exit_code 3; attempt 2 runs 2–4 s and
    // completes: web starts at 4 s, Ready at 5 s.
    let toml = r#"
        [[containers]]
        name = "setup"
        kind = "init"
        boot = "2s"
        fails = 1
        exit_code = 3
        [[containers]]
        name = "web"
        kind = "app"
        boot = "1s"
    "#;
    assert_eq!(events(toml, "setup", exit(ExitReason::Failed(3))), [2000]);
    assert_eq!(events(toml, "setup", exit(ExitReason::Completed)), [4000]);
    assert_eq!(events(toml, "web", first_start), [4000]);
    assert_eq!(run_text(toml).metrics.ready_ms, Some(5000));
    // Under Never the failure with 3 fails the Pod (R9): at 2 s, nothing
    // else runs, so Failed then.
    let never = format!("[pod]\nrestart_policy = \"Never\"\n{toml}");
    assert_eq!(events(&never, "pod", is(Change::PodFailed)), [2000]);
    assert_eq!(run_text(&never).metrics.phase, PodPhase::Failed);
}

#[test]
fn an_apps_scripted_failures_exit_with_its_exit_code() {
    // web's first two attempts fail at the end of their 1 s boot with
    // exit_code 42 (no run: the code is the failures' alone); under Always
    // it restarts at once (1 s), then after 10 s (2 s + 10 s = 12 s): the
    // third attempt boots 12–13 s and runs.
    let toml = r#"
        [[containers]]
        name = "web"
        kind = "app"
        boot = "1s"
        fails = 2
        exit_code = 42
    "#;
    assert_eq!(events(toml, "web", exit(ExitReason::Failed(42))), [1000, 2000]);
    assert_eq!(events(toml, "web", restarted), [1000, 12_000]);
    // exit_code without run and without a scripted failure has nothing to name.
    let e = podsim::scenario::Scenario::parse(&toml.replace("fails = 2", ""), "x.toml")
        .unwrap_err()
        .to_string();
    assert!(e.ends_with("exit_code needs run (the time after which the app exits), or fails or fail_probability (the attempts that exit with it)"), "{e}");
}
