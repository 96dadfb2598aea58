//! Time-scale benches: the seed Pod with every duration multiplied by 1,
//! 1,000 and 1,000,000, run by the event engine and by the seed's tick loop
//! (`podsim::reference::run_ticks`) at 1 ms resolution on the same inputs.
//!
//! The event engine's cost must not move with the scale, since the Pod goes
//! through the same events; the tick loop's grows linearly with it. The tick
//! loop is benched only at ×1 and ×1,000: at ×1,000,000 one run is 14 billion
//! ticks, and its cost is extrapolated from the linear scaling instead.
//! Throughput is in runs.

mod common;

use std::hint::black_box;

use common::load_spec;
use criterion::{BenchmarkId, Criterion, SamplingMode, Throughput, criterion_group, criterion_main};
use podsim::engine::{DEFAULT_HORIZON, SimDuration};
use podsim::model::{Deletion, PodSimulator, PodSpec, RunSpec};
use podsim::reference::run_ticks;

/// The scales the event engine runs at.
const SCALES: [u64; 3] = [1, 1_000, 1_000_000];
/// The scales the tick loop runs at: beyond these one iteration takes minutes.
const TICK_SCALES: [u64; 2] = [1, 1_000];
/// The tick loop's resolution.
const TICK: SimDuration = SimDuration::from_millis(1);

/// `spec` with every duration (boots, drains, hooks, back-off, grace period,
/// deletion time) multiplied by `factor`.
fn scaled(spec: &PodSpec, factor: u64) -> PodSpec {
    let times = |d: SimDuration| SimDuration(d.as_millis() * factor);
    let mut spec = spec.clone();
    for c in &mut spec.containers {
        // The seed scenarios' durations are fixed ones.
        let fixed = |d: &podsim::model::Dist| podsim::model::Dist::from(times(d.fixed().unwrap_or_default()));
        c.boot = fixed(&c.boot);
        c.drain = times(c.drain.fixed().unwrap_or_default()).into();
        if let Some(hook) = &mut c.pre_stop {
            *hook = fixed(hook);
        }
    }
    spec.backoff.initial = times(spec.backoff.initial);
    spec.backoff.cap = times(spec.backoff.cap);
    spec.termination_grace_period = times(spec.termination_grace_period);
    spec.deletion = match spec.deletion {
        Deletion::Never => Deletion::Never,
        Deletion::At(at) => Deletion::At(times(at)),
        Deletion::AfterReady(after) => Deletion::AfterReady(times(after)),
    };
    spec
}

fn seed_at_scales(c: &mut Criterion) {
    let seed = load_spec("scenarios/seed-sidecar.toml");
    let mut group = c.benchmark_group("time_scale");
    group.throughput(Throughput::Elements(1));
    // One tick-loop run at ×1,000 takes long enough that criterion's default
    // linear sampling would ask for minutes.
    group.sampling_mode(SamplingMode::Flat);

    for factor in SCALES {
        let horizon = SimDuration(DEFAULT_HORIZON.as_millis() * factor);
        let mut simulator = PodSimulator::new(RunSpec {
            horizon,
            ..RunSpec::new(scaled(&seed, factor))
        });
        let metrics = simulator.run();
        assert_eq!(
            metrics.ready_ms,
            Some(6000 * factor),
            "×{factor}: not the seed's answer"
        );
        group.bench_with_input(
            BenchmarkId::new("event", format!("x{factor}")),
            &factor,
            |b, _| b.iter(|| black_box(simulator.run())),
        );
    }

    for factor in TICK_SCALES {
        let spec = scaled(&seed, factor);
        let max_ticks = 100_000 * factor;
        let result = run_ticks(&spec, TICK, max_ticks);
        assert!(
            result.terminated_at.is_some(),
            "×{factor}: the tick loop hit its tick limit"
        );
        group.bench_with_input(
            BenchmarkId::new("tick_1ms", format!("x{factor}")),
            &spec,
            |b, spec| b.iter(|| black_box(run_ticks(spec, TICK, max_ticks))),
        );
    }
    group.finish();
}

criterion_group!(benches, seed_at_scales);
criterion_main!(benches);
