//! Model benches: whole Pod runs per second, one `PodSimulator` reused across
//! runs as a sweep reuses it, with no trace recorded.
//!
//! Throughput is in runs, so criterion's "elem/s" reads as runs per second.

mod common;

use std::hint::black_box;

use common::load_spec;
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use podsim::engine::SimDuration;
use podsim::model::{ContainerKind, ContainerSpec, Deletion, PodSpec};
use podsim::model::{PodSimulator, RunSpec};

fn ms(ms: u64) -> SimDuration {
    SimDuration::from_millis(ms)
}

/// A Pod as people write them: two init containers, a proxy sidecar with a
/// preStop hook, two apps, and a deletion whose shutdown fits in the grace
/// period (5 s hook + 1 s drain after 3 s of app drain, well inside 30 s).
fn typical_pod() -> PodSpec {
    let mut spec = PodSpec::new(vec![
        ContainerSpec::new("migrate", ContainerKind::Init, ms(1500)),
        ContainerSpec::new("config-fetch", ContainerKind::Init, ms(500)),
        ContainerSpec {
            drain: ms(1000).into(),
            pre_stop: Some(ms(5000).into()),
            proxy: true,
            ..ContainerSpec::new("proxy", ContainerKind::Sidecar, ms(2000))
        },
        ContainerSpec {
            drain: ms(3000).into(),
            ..ContainerSpec::new("web", ContainerKind::App, ms(1000))
        },
        ContainerSpec {
            drain: ms(2000).into(),
            ..ContainerSpec::new("worker", ContainerKind::App, ms(2500))
        },
    ]);
    spec.deletion = Deletion::At(SimDuration::from_secs(60));
    spec
}

fn runs_per_second(c: &mut Criterion) {
    let pods = [
        ("seed_sidecar", load_spec("scenarios/seed-sidecar.toml")),
        ("seed_side_by_side", load_spec("scenarios/seed-side-by-side.toml")),
        ("typical", typical_pod()),
    ];
    let mut group = c.benchmark_group("model");
    group.throughput(Throughput::Elements(1));
    for (name, spec) in pods {
        let mut simulator = PodSimulator::new(RunSpec::new(spec));
        let metrics = simulator.run();
        assert!(
            metrics.termination_ms.is_some(),
            "{name}: the Pod never finished stopping"
        );
        group.bench_function(name, |b| b.iter(|| black_box(simulator.run())));
    }
    group.finish();
}

/// `apps` apps behind 8 native sidecars, deleted once all are up: every
/// exit during termination may release a sidecar, so this shows whether
/// the cost of a run grows linearly with the container count (issue 15).
fn wide_pod(apps: usize) -> PodSpec {
    let sidecars = (0..8).map(|i| ContainerSpec {
        drain: ms(500).into(),
        ..ContainerSpec::new(&format!("sidecar-{i}"), ContainerKind::Sidecar, ms(1000))
    });
    let apps = (0..apps).map(|i| ContainerSpec {
        // Apps drain for different times, so they exit one by one.
        drain: ms(1000 + 10 * i as u64).into(),
        ..ContainerSpec::new(&format!("app-{i}"), ContainerKind::App, ms(2000))
    });
    let mut spec = PodSpec::new(sidecars.chain(apps).collect());
    spec.deletion = Deletion::At(SimDuration::from_secs(60));
    spec
}

fn container_count(c: &mut Criterion) {
    let mut group = c.benchmark_group("model/apps_behind_8_sidecars");
    for apps in [2, 8, 32, 128] {
        let mut simulator = PodSimulator::new(RunSpec::new(wide_pod(apps)));
        let metrics = simulator.run();
        assert!(metrics.termination_ms.is_some(), "{apps} apps: never stopped");
        group.throughput(Throughput::Elements(apps as u64 + 8));
        group.bench_function(apps.to_string(), |b| b.iter(|| black_box(simulator.run())));
    }
    group.finish();
}

criterion_group!(benches, runs_per_second, container_count);
criterion_main!(benches);
