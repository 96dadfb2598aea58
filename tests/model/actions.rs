//! `[[actions]]`: what a scenario scripts to happen during a run (R70–R73
//! in docs/kubelet-rules.md): a later delete that shortens the grace, and a
//! container's image changed in the running Pod. Timelines are worked by
//! hand in each test.

use super::common::*;

/// The Pod's figures for scenario text `toml`.
fn metrics(toml: &str) -> podsim::model::Metrics {
    run_text(toml).metrics
}

const DRAINS_20S: &str = r#"
    [pod]
    stop_at = "5s"
    [[containers]]
    name = "web"
    kind = "app"
    boot = "1s"
    drain = "20s"
"#;

#[test]
fn r70_a_later_delete_with_a_shorter_grace_sigkills_by_the_new_deadline() {
    // web is started at 1 s. The delete at 5 s (grace 30 s) sends SIGTERM
    // with a stop timeout of 30 s; its drain would end at 25 s. The delete
    // at 8 s with --grace-period 4 shortens the grace: SIGKILL at
    // 8 + max(4, 2) = 12 s. Termination: 12 − 5 = 7 s.
    let toml = format!("{DRAINS_20S}[[actions]]\nat = \"8s\"\ndelete = true\ngrace_period = \"4s\"\n");
    assert_eq!(
        events(
            &toml,
            "pod",
            is(Change::DeletionRepeated {
                grace: secs(4),
                shortened: true
            })
        ),
        [8000]
    );
    assert_eq!(events(&toml, "web", is(Change::Sigkill)), [12_000]);
    assert_eq!(events(&toml, "web", exited_with(137)), [12_000]);
    let m = metrics(&toml);
    assert_eq!((m.termination_ms, m.sigkilled), (Some(7000), 1));
}

#[test]
fn r70_a_later_delete_cannot_lengthen_the_grace() {
    // The same Pod, deleted again at 8 s with --grace-period 60: the grace
    // stays 30 s and web drains until 25 s. Termination: 25 − 5 = 20 s.
    let toml = format!("{DRAINS_20S}[[actions]]\nat = \"8s\"\ndelete = true\ngrace_period = \"60s\"\n");
    assert_eq!(
        events(
            &toml,
            "pod",
            is(Change::DeletionRepeated {
                grace: secs(30),
                shortened: false
            })
        ),
        [8000]
    );
    assert_eq!(events(&toml, "web", exit(ExitReason::Terminated(0))), [25_000]);
    let m = metrics(&toml);
    assert_eq!((m.termination_ms, m.sigkilled), (Some(20_000), 0));
}

#[test]
fn r70_a_first_delete_with_its_own_grace_replaces_the_pods() {
    // A delete at 5 s with --grace-period 3: SIGTERM with a stop timeout of
    // 3 s, SIGKILL at 8 s although the Pod's grace is 30 s.
    let toml = r#"
        [[containers]]
        name = "web"
        kind = "app"
        boot = "1s"
        drain = "20s"
        [[actions]]
        at = "5s"
        delete = true
        grace_period = "3s"
    "#;
    assert_eq!(
        events(toml, "pod", is(Change::DeletionRequested { grace: secs(3) })),
        [5000]
    );
    assert_eq!(events(toml, "web", sigterm_with(3)), [5000]);
    assert_eq!(events(toml, "web", is(Change::Sigkill)), [8000]);
}

#[test]
fn r70_r38_a_shorter_grace_cuts_off_a_prestop_hook_that_runs() {
    // web's preStop takes 10 s. Deleted at 2 s (grace 30 s): the hook runs
    // from 2 s and would return at 12 s. Deleted again at 4 s with grace
    // 3 s: the kill may spend the 2 s it used and 3 s more, so the hook is
    // cut off at 4 + 3 = 7 s; the grace left is 5 − 5 = 0, so SIGTERM
    // carries the 2 s floor (R35); the 1 s drain ends at 8 s.
    let toml = r#"
        [[containers]]
        name = "web"
        kind = "app"
        boot = "1s"
        drain = "1s"
        pre_stop = "10s"
        [[actions]]
        at = "2s"
        delete = true
        [[actions]]
        at = "4s"
        delete = true
        grace_period = "3s"
    "#;
    assert_eq!(
        events(toml, "web", is(Change::PreStopFinished { cut_off: true })),
        [7000]
    );
    assert_eq!(events(toml, "web", sigterm_with(2)), [7000]);
    assert_eq!(events(toml, "web", exited_with(0)), [8000]);
    assert_eq!(metrics(toml).termination_ms, Some(6000));
}

#[test]
fn r70_r37_a_shorter_grace_ends_a_sidecars_wait_for_its_turn() {
    // proxy (sidecar, drain 1 s) is started at 1 s, web at 2 s. Deleted at
    // 5 s (grace 30 s): web gets SIGTERM, its drain would take 20 s; proxy
    // waits for its turn. Deleted again at 10 s with grace 2 s: web's
    // SIGKILL comes at 10 + max(2, 2) = 12 s, and proxy's wait, which may
    // spend the 5 s it used and 2 s more, ends at 12 s too: SIGTERM with
    // 7 − 7 = 0 s left, so the 2 s floor; it drains 1 s and exits at 13 s.
    let toml = r#"
        [pod]
        stop_at = "5s"
        [[containers]]
        name = "proxy"
        kind = "sidecar"
        boot = "1s"
        drain = "1s"
        [[containers]]
        name = "web"
        kind = "app"
        boot = "1s"
        drain = "20s"
        [[actions]]
        at = "10s"
        delete = true
        grace_period = "2s"
    "#;
    assert_eq!(events(toml, "web", is(Change::Sigkill)), [12_000]);
    assert_eq!(events(toml, "proxy", sigterm_with(2)), [12_000]);
    assert_eq!(events(toml, "proxy", exited_with(0)), [13_000]);
    assert_eq!(metrics(toml).termination_ms, Some(8000));
}

#[test]
fn r71_an_apps_new_image_starts_after_the_old_one_stopped_whatever_the_policy() {
    // restartPolicy Never. web is started and the Pod Ready at 1 s. Its
    // image changes at 10 s: preStop 2 s, SIGTERM at 12 s, drained at
    // 15 s; the new image (boot 4 s) starts at once, whatever the policy,
    // and is started at 19 s: the Pod is Ready again. One restart.
    let toml = r#"
        [pod]
        restart_policy = "Never"
        [[containers]]
        name = "web"
        kind = "app"
        boot = "1s"
        drain = "3s"
        pre_stop = "2s"
        [[actions]]
        at = "10s"
        update_image = "web"
        [actions.timings]
        boot = "4s"
    "#;
    assert_eq!(
        events(toml, "web", is(Change::ImageUpdated(UpdateEffect::Restart))),
        [10_000]
    );
    assert_eq!(events(toml, "web", sigterm), [12_000]);
    assert_eq!(events(toml, "web", attempt(2)), [15_000]);
    assert_eq!(events(toml, "pod", is(Change::PodNotReady)), [15_000]);
    assert_eq!(events(toml, "pod", is(Change::PodReady)), [1000, 19_000]);
    let m = metrics(toml);
    assert_eq!((m.restarts, m.ready_ms), (1, Some(1000)));
}

#[test]
fn r71_a_new_image_brings_the_probes_its_timings_give() {
    // web has no probe and is Ready at 1 s. Its new image (at 10 s: SIGTERM,
    // drained at 11 s, started at once) boots 2 s and has a readiness probe
    // every 3 s from its start, two successes needed: 11 s fails (booting),
    // 14 s and 17 s pass: Ready at 17 s.
    let base = r#"
        [pod]
        restart_policy = "Never"
        [[containers]]
        name = "web"
        kind = "app"
        boot = "1s"
        drain = "1s"
        [[actions]]
        at = "10s"
        update_image = "web"
        [actions.timings]
        boot = "2s"
    "#;
    let toml = format!("{base}readiness_probe = {{ period = \"3s\", success_threshold = 2 }}\n");
    assert_eq!(events(&toml, "pod", is(Change::PodReady)), [1000, 17_000]);
    // A liveness probe every second with threshold 1 instead: its first
    // tick, at the start (11 s), finds the new image booting and kills it.
    let toml = format!("{base}liveness_probe = {{ period = \"1s\", failure_threshold = 1 }}\n");
    assert_eq!(events(&toml, "web", probe_failed(ProbeKind::Liveness)), [11_000]);
}

#[test]
fn r71_r17_a_new_image_has_a_fresh_back_off() {
    // web fails at the end of each of its first 3 boots (1 s). Attempt 1
    // fails at 1 s and restarts at once (R15), attempt 2 fails at 2 s:
    // CrashLoopBackOff 10 s. The image changes at 5 s: the back-off key
    // holds the image (R17), so the new one starts at once (attempt 3),
    // fails at 6 s (the third scripted failure) and, being new to the
    // back-off, restarts at once again: attempt 4 is started at 7 s.
    // Without the update: attempt 3 at 12 s fails at 13 s, waits 20 s,
    // attempt 4 at 33 s is started at 34 s.
    let base = r#"
        [[containers]]
        name = "web"
        kind = "app"
        boot = "1s"
        fails = 3
    "#;
    let toml = format!("{base}[[actions]]\nat = \"5s\"\nupdate_image = \"web\"\n");
    assert_eq!(
        events(&toml, "web", is(Change::ImageUpdated(UpdateEffect::StartsNow))),
        [5000]
    );
    assert_eq!(events(&toml, "web", restarted), [1000, 5000, 6000]);
    assert_eq!(
        events(&toml, "web", is(Change::BackOff { delay: secs(0) })),
        [1000, 6000]
    );
    assert_eq!(metrics(&toml).ready_ms, Some(7000));
    assert_eq!(metrics(base).ready_ms, Some(34_000));
}

#[test]
fn r72_a_sidecars_new_image_restarts_it_and_the_app_is_exposed_meanwhile() {
    // proxy (sidecar, boot 3 s, drain 1 s) is started at 3 s, web (boot
    // 1 s) at 4 s: Ready. proxy's image changes at 10 s: SIGTERM, exits at
    // 11 s, the Pod leaves Ready, the new proxy starts at once and is
    // started at 14 s: Ready again. web runs with no proxy 11–14 s: 3 s.
    let toml = r#"
        [[containers]]
        name = "proxy"
        kind = "sidecar"
        boot = "3s"
        drain = "1s"
        proxy = true
        [[containers]]
        name = "web"
        kind = "app"
        boot = "1s"
        [[actions]]
        at = "10s"
        update_image = "proxy"
    "#;
    assert_eq!(events(toml, "proxy", attempt(2)), [11_000]);
    assert_eq!(events(toml, "pod", is(Change::PodNotReady)), [11_000]);
    assert_eq!(events(toml, "pod", is(Change::PodReady)), [4000, 14_000]);
    let m = metrics(toml);
    assert_eq!((m.exposed_startup_ms, m.restarts), (3000, 1));
}

#[test]
fn r72_a_sidecar_updated_before_its_startup_probe_passed_restarts_once_it_has() {
    // proxy's startup probe ticks every second from 0 s and passes from the
    // end of its 5 s boot. Its image changes at 2 s: the kubelet looks at
    // the change only once the probe has passed, at 5 s. That sync starts
    // web (the Pod is initialized) and kills proxy (no drain: it exits at
    // once); the new proxy starts at 5 s, its probe's next tick is 6 s and
    // passes from 10 s: started at 10 s. web, started at 6 s, waits for it:
    // the Pod is Ready at 10 s.
    let toml = r#"
        [[containers]]
        name = "proxy"
        kind = "sidecar"
        boot = "5s"
        startup_probe = { period = "1s", failure_threshold = 30 }
        [[containers]]
        name = "web"
        kind = "app"
        boot = "1s"
        [[actions]]
        at = "2s"
        update_image = "proxy"
    "#;
    assert_eq!(
        events(
            toml,
            "proxy",
            is(Change::ImageUpdated(UpdateEffect::AfterStartup))
        ),
        [2000]
    );
    assert_eq!(events(toml, "proxy", attempt(2)), [5000]);
    assert_eq!(events(toml, "web", first_start), [5000]);
    assert_eq!(events(toml, "proxy", is(Change::Started)), [5000, 10_000]);
    assert_eq!(metrics(toml).ready_ms, Some(10_000));
}

#[test]
fn r17_a_deferred_image_update_restarts_without_the_old_images_back_off() {
    // proxy's first two attempts fail at the end of their 5 s boot. Attempt
    // 1 fails at 5 s and restarts at once (no back-off entry yet, R15);
    // attempt 2 runs 5–10 s. The image changes at 7 s, before the startup
    // probe passed: the kubelet waits for it (R72). Attempt 2 fails at 10 s:
    // kubernetes/kubernetes pkg/kubelet/kuberuntime/kuberuntime_manager.go
    // doBackOff looks up GetStableKey(pod, container) (helpers.go: the key
    // ends in HashContainer of the spec, which now names the new image),
    // finds no entry and starts it: attempt 3 at 10 s, not after the old
    // key's 10 s back-off at 20 s. It boots 5 s, the startup probe (every
    // 1 s) passes at 15 s: web starts then, Ready at 16 s.
    let toml = r#"
        [[containers]]
        name = "proxy"
        kind = "sidecar"
        boot = "5s"
        fails = 2
        startup_probe = { period = "1s", failure_threshold = 30 }
        [[containers]]
        name = "web"
        kind = "app"
        boot = "1s"
        [[actions]]
        at = "7s"
        update_image = "proxy"
    "#;
    assert_eq!(
        events(
            toml,
            "proxy",
            is(Change::ImageUpdated(UpdateEffect::AfterStartup))
        ),
        [7000]
    );
    assert_eq!(events(toml, "proxy", exited), [5000, 10_000]);
    assert_eq!(events(toml, "proxy", restarted), [5000, 10_000]);
    assert_eq!(events(toml, "web", first_start), [15_000]);
    assert_eq!(metrics(toml).ready_ms, Some(16_000));
}

#[test]
fn r72_an_init_containers_new_image_does_nothing_once_the_pod_is_initialized() {
    // setup completes at 2 s, web is started at 3 s. setup's image changes
    // at 10 s: after initialization no regular init container runs again.
    let toml = r#"
        [[containers]]
        name = "setup"
        kind = "init"
        boot = "2s"
        [[containers]]
        name = "web"
        kind = "app"
        boot = "1s"
        [[actions]]
        at = "10s"
        update_image = "setup"
    "#;
    assert_eq!(
        events(toml, "setup", is(Change::ImageUpdated(UpdateEffect::Ignored))),
        [10_000]
    );
    assert_eq!(events(toml, "setup", first_start), [0]);
    assert_eq!(metrics(toml).restarts, 0);
}

#[test]
fn r72_a_running_init_container_runs_on_and_its_retry_runs_the_new_image() {
    // setup's first attempt (boot 2 s) fails at 2 s. Its image changes at
    // 1 s, while it runs: the kubelet waits for it to finish. The retry at
    // 2 s (the first restart is immediate, R15) runs the new image, whose
    // boot is 5 s: it completes at 7 s, web starts then and is started at
    // 8 s.
    let toml = r#"
        [[containers]]
        name = "setup"
        kind = "init"
        boot = "2s"
        fails = 1
        [[containers]]
        name = "web"
        kind = "app"
        boot = "1s"
        [[actions]]
        at = "1s"
        update_image = "setup"
        [actions.timings]
        boot = "5s"
    "#;
    assert_eq!(
        events(toml, "setup", is(Change::ImageUpdated(UpdateEffect::NextStart))),
        [1000]
    );
    assert_eq!(events(toml, "setup", exit(ExitReason::Completed)), [7000]);
    assert_eq!(events(toml, "web", first_start), [7000]);
    assert_eq!(metrics(toml).ready_ms, Some(8000));
}

#[test]
fn r73_an_image_update_during_termination_is_ignored() {
    // Deleted at 5 s, web drains 20 s, until 25 s; its image changes at
    // 7 s: a terminating Pod's containers are only killed.
    let toml = format!("{DRAINS_20S}[[actions]]\nat = \"7s\"\nupdate_image = \"web\"\n");
    assert_eq!(
        events(&toml, "web", is(Change::ImageUpdated(UpdateEffect::Ignored))),
        [7000]
    );
    assert_eq!(events(&toml, "web", exited_with(0)), [25_000]);
    assert_eq!(metrics(&toml).restarts, 0);
}

#[test]
fn an_action_after_ready_counts_from_the_first_ready() {
    // web is Ready at 3 s; the image update 4 s later, at 7 s, restarts it
    // (no drain): the new instance starts at 7 s and is started at 10 s.
    let toml = r#"
        [[containers]]
        name = "web"
        kind = "app"
        boot = "3s"
        [[actions]]
        after_ready = "4s"
        update_image = "web"
    "#;
    assert_eq!(events(toml, "web", attempt(2)), [7000]);
    assert_eq!(events(toml, "pod", is(Change::PodReady)), [3000, 10_000]);
}

#[test]
fn the_new_images_timings_are_gone_when_the_run_is_over() {
    // The spec a run leaves behind is the one it was given: a sweep writes
    // its axes into it between runs.
    let toml = r#"
        [[containers]]
        name = "web"
        kind = "app"
        boot = "1s"
        [[actions]]
        at = "2s"
        update_image = "web"
        [actions.timings]
        boot = "7s"
    "#;
    let scenario = podsim::scenario::Scenario::parse(toml, "t.toml").unwrap();
    let mut sim = podsim::model::PodSimulator::new(scenario.run.clone());
    let first = sim.run();
    assert_eq!(sim.spec(), &scenario.run);
    assert_eq!(sim.run(), first);
    assert_eq!(first.restarts, 1);
}
