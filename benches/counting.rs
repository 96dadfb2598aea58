//! The counting traffic model's cost (issue 41): a Service run at 10 to
//! 10⁹ requests a second costs the same (its events are the Pods', the
//! proxies' and one per span of routing state, never one per request), and
//! the bundled rollout at 10⁵ requests a second against the per-request
//! model, side by side.
//!
//! Each run is a bundled scenario as it is (three clients on three nodes,
//! each request's client drawn, so counting is exact:
//! `ServiceSpec::counting_blocker`), one `ServiceSimulator` reused across
//! runs as a sweep reuses it, no history recorded. Throughput is in runs.

mod common;

use std::hint::black_box;

use common::load_run;
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use podsim::model::RunSpec;
use podsim::model::service::{Rate, ServiceSimulator, TrafficModel};

/// Bundled scenario `path` at `rate` requests/s, run by `model`.
fn scenario(path: &str, rate: f64, model: TrafficModel) -> RunSpec {
    let mut run = load_run(path);
    let service = run.service.as_deref_mut().expect("a Service scenario");
    let traffic = service.traffic.as_mut().expect("with traffic");
    traffic.rate = Rate::new(rate).expect("a rate above 0");
    traffic.model = model;
    run
}

fn bench(c: &mut Criterion, group: &str, runs: Vec<(String, RunSpec)>) {
    let mut group = c.benchmark_group(group);
    group.throughput(Throughput::Elements(1));
    for (name, run) in runs {
        let mut simulator = ServiceSimulator::new(run);
        let metrics = simulator.run();
        assert!(metrics.requests > 0 && !metrics.horizon, "{name}: {metrics:?}");
        group.bench_function(name, |b| b.iter(|| black_box(simulator.run())));
    }
    group.finish();
}

fn flat_in_the_rate(c: &mut Criterion) {
    let runs = [10.0, 1e3, 1e5, 1e7, 1e9]
        .map(|rate| {
            let run = scenario("scenarios/service/no-prestop.toml", rate, TrafficModel::Counting);
            (format!("no_prestop/{rate:e}rps"), run)
        })
        .to_vec();
    bench(c, "counting", runs);
}

fn against_per_request(c: &mut Criterion) {
    let runs = [TrafficModel::PerRequest, TrafficModel::Counting]
        .map(|model| {
            let run = scenario("scenarios/service/rollout.toml", 1e5, model);
            (format!("rollout/1e5rps/{}", model.name()), run)
        })
        .to_vec();
    bench(c, "models", runs);
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(10);
    targets = flat_in_the_rate, against_per_request
}
criterion_main!(benches);
