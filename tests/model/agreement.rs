//! The event engine agrees with the seed's tick loop (`podsim::reference`)
//! wherever the tick loop's model applies: 1–3 init containers, 0–1 sidecar,
//! 1–3 apps, the sidecar or one app a proxy, integer-second boots 1–6 s,
//! drains 0–5 s, 0–3 scripted failures, the seed back-off, deletion after
//! Ready, no preStop, a grace period longer than every drain.
//!
//! Outside that domain the two differ on purpose (see docs/concepts.md, "The
//! tick loop and the event engine"): a zero-second boot costs the tick loop one
//! tick per gate slot, and a deletion during startup drops booting containers
//! at once in the tick loop while the kubelet sends them SIGTERM and waits.

use podsim::engine::SimDuration;
use podsim::model::{Backoff, ContainerKind, ContainerSpec, Deletion, PodSpec};
use podsim::reference::run_ticks;
use proptest::prelude::*;

use super::common::{run, secs};

#[derive(Clone, Debug)]
struct Script {
    boot: u64,
    drain: u64,
    fails: u32,
}

fn script() -> impl Strategy<Value = Script> {
    (1u64..=6, 0u64..=5, 0u32..=3).prop_map(|(boot, drain, fails)| Script { boot, drain, fails })
}

/// A Pod in the tick loop's domain.
fn pod() -> impl Strategy<Value = PodSpec> {
    (
        proptest::collection::vec(script(), 1..=3),
        proptest::option::of((script(), 0usize..=3)),
        proptest::collection::vec(script(), 1..=3),
        0usize..=3,
        1u64..=5,
    )
        .prop_map(|(inits, sidecar, apps, proxy_pick, stop_after)| {
            let mut containers: Vec<ContainerSpec> = inits
                .iter()
                .enumerate()
                .map(|(i, s)| ContainerSpec {
                    fails: s.fails,
                    ..ContainerSpec::new(&format!("init-{i}"), ContainerKind::Init, secs(s.boot))
                })
                .collect();
            let has_sidecar = sidecar.is_some();
            if let Some((s, at)) = sidecar {
                let sidecar = ContainerSpec {
                    drain: secs(s.drain).into(),
                    fails: s.fails,
                    ..ContainerSpec::new("sidecar", ContainerKind::Sidecar, secs(s.boot))
                };
                containers.insert(at.min(containers.len()), sidecar);
            }
            for (i, s) in apps.iter().enumerate() {
                containers.push(ContainerSpec {
                    drain: secs(s.drain).into(),
                    fails: s.fails,
                    ..ContainerSpec::new(&format!("app-{i}"), ContainerKind::App, secs(s.boot))
                });
            }
            // The proxy: the sidecar if there is one and the pick says so, else an app.
            let candidates: Vec<usize> = containers
                .iter()
                .enumerate()
                .filter(|(_, c)| {
                    c.kind == ContainerKind::App || (has_sidecar && c.kind == ContainerKind::Sidecar)
                })
                .map(|(i, _)| i)
                .collect();
            containers[candidates[proxy_pick % candidates.len()]].proxy = true;
            PodSpec {
                termination_grace_period: secs(30),
                deletion: Deletion::AfterReady(secs(stop_after)),
                backoff: Backoff {
                    initial: secs(1),
                    cap: secs(8),
                    immediate_first_restart: false,
                },
                ..PodSpec::new(containers)
            }
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn prop_event_engine_agrees_with_the_tick_loop(spec in pod()) {
        let events = run(&spec);
        let ticks = run_ticks(&spec, SimDuration::from_secs(1), 100_000);
        prop_assert_eq!(events.ready_ms, ticks.ready.map(|t| t * 1000));
        prop_assert_eq!(events.exposed_startup_ms, ticks.exposed_startup * 1000);
        prop_assert_eq!(events.exposed_shutdown_ms, ticks.exposed_shutdown * 1000);
        prop_assert_eq!(events.restarts, ticks.restarts);
    }
}

#[test]
fn zero_second_boots_cost_the_tick_loop_a_tick_per_gate_slot() {
    // init 0 s then app 1 s. Event engine: init done at 0, app started at 1 s.
    // Tick loop: the init begins and settles at tick 0 but the gate only moves
    // on at tick 1, so the app begins at 1 and is running at 2.
    let spec = PodSpec::new(vec![
        ContainerSpec::new("init", ContainerKind::Init, secs(0)),
        ContainerSpec::new("app", ContainerKind::App, secs(1)),
    ]);
    assert_eq!(run(&spec).ready_ms, Some(1000));
    assert_eq!(run_ticks(&spec, SimDuration::from_secs(1), 100).ready, Some(2));
}
