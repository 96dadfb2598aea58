//! Service model benches: simulated requests per second, one
//! `ServiceSimulator` reused across runs as a sweep reuses it, no history
//! recorded. Issue 11's target is ≥ 1 M simulated requests per second on
//! one core.
//!
//! Throughput is in requests (each run's `requests`, counted once before
//! timing), so criterion's "elem/s" reads as simulated requests per second.
//! Each run is the bundled `scenarios/service/no-prestop.toml` (three
//! replicas on three nodes, one deleted, the endpoint race) at the rate and
//! traffic duration in the bench's name, so the fixed cost of starting
//! three Pods is spread over many requests, as in a long run.

mod common;

use std::hint::black_box;

use common::load_run;
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use podsim::engine::SimDuration;
use podsim::model::RunSpec;
use podsim::model::service::{Connections, Rate, ServiceSimulator};

/// The bundled scenario with `rate` requests/s for `secs` of traffic on
/// `connections`.
fn service(rate: f64, secs: u64, connections: Connections) -> RunSpec {
    let mut run = load_run("scenarios/service/no-prestop.toml");
    let service = run.service.as_deref_mut().expect("a Service scenario");
    let traffic = service.traffic.as_mut().expect("with traffic");
    traffic.rate = Rate::new(rate).expect("a rate above 0");
    traffic.duration = Some(SimDuration::from_secs(secs));
    traffic.connections = Some(connections);
    run
}

fn requests_per_second(c: &mut Criterion) {
    let runs = [
        ("bundled/new/50rps", load_run("scenarios/service/no-prestop.toml")),
        ("new/1000rps/60s", service(1000.0, 60, Connections::New)),
        (
            "keep_alive/1000rps/60s",
            service(1000.0, 60, Connections::KeepAlive),
        ),
    ];
    let mut group = c.benchmark_group("service");
    for (name, run) in runs {
        let mut simulator = ServiceSimulator::new(run);
        let metrics = simulator.run();
        assert!(metrics.requests > 0 && !metrics.horizon, "{name}: {metrics:?}");
        group.throughput(Throughput::Elements(metrics.requests));
        group.bench_function(name, |b| b.iter(|| black_box(simulator.run())));
    }
    group.finish();
}

criterion_group!(benches, requests_per_second);
criterion_main!(benches);
