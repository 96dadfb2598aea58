//! Engine benches: the raw event queue; the `Simulation` run loop with a model
//! that does nothing but reschedule (the engine's own ceiling); and the
//! `Simulation` driving a Pod with many containers in long crash loops (the
//! engine plus the Pod model). The gap between the last two is the model.
//!
//! Throughput is in events: one event is pushed once and popped once (queue),
//! or handled once by the model (simulation), so criterion's "elem/s" reads
//! as events per second. Inputs are fixed; nothing is random.

use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use podsim::engine::{DEFAULT_HORIZON, EventQueue, Model, Scheduler, SimDuration, SimTime, Simulation};
use podsim::model::{ContainerId, ContainerKind, ContainerSpec, PodEvent, PodSimulator, PodSpec, RunSpec};

/// Hold steps per queue iteration: long enough to dwarf the fill and drain.
const HOLD_STEPS: u64 = 10_000;

/// Delays in milliseconds for the hold workload, spread over 0 ms – 64 s by a
/// fixed linear congruential sequence, so every run sees the same order.
fn hold_delays() -> Vec<u64> {
    let mut x: u64 = 0x2545_f491_4f6c_dd1d;
    (0..4096)
        .map(|_| {
            x = x
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            (x >> 33) % 64_000
        })
        .collect()
}

/// The classic "hold" model of queue benchmarks: keep `pending` events in
/// the queue; each step pops the earliest and schedules a successor later.
/// The payload is the Pod model's own event, so entries have their real size.
fn queue_hold(c: &mut Criterion) {
    let delays = hold_delays();
    let mut group = c.benchmark_group("engine/queue_hold");
    for pending in [16u64, 1024] {
        group.throughput(Throughput::Elements(pending + HOLD_STEPS));
        group.bench_with_input(BenchmarkId::new("pending", pending), &pending, |b, &pending| {
            let mut queue = EventQueue::new();
            b.iter(|| {
                queue.clear();
                let mut next_delay = delays.iter().cycle();
                for i in 0..pending {
                    let event = PodEvent::BootFinished {
                        container: ContainerId(i as u32),
                        attempt: 1,
                    };
                    queue.push(SimTime(*next_delay.next().unwrap()), event);
                }
                for _ in 0..HOLD_STEPS {
                    let (at, event) = queue.pop().unwrap();
                    queue.push(at + SimDuration(*next_delay.next().unwrap()), event);
                }
                while let Some(popped) = queue.pop() {
                    black_box(popped);
                }
            });
        });
    }
    group.finish();
}

/// A model with no state to speak of: each event schedules its successor a
/// fixed-sequence delay later, until `budget` events have been handled.
struct Relay<'d> {
    delays: std::iter::Cycle<std::slice::Iter<'d, u64>>,
    budget: u64,
}

impl Model for Relay<'_> {
    type Event = PodEvent;

    fn is_current(&self, _event: &PodEvent) -> bool {
        true
    }

    fn handle(&mut self, _now: SimTime, event: PodEvent, scheduler: &mut Scheduler<'_, PodEvent>) {
        if self.budget > 0 {
            self.budget -= 1;
            scheduler.after(SimDuration(*self.delays.next().unwrap()), event);
        }
    }
}

/// The run loop's own cost per event: `Simulation::run` over the hold
/// workload, with a model that only reschedules.
fn relay(c: &mut Criterion) {
    let delays = hold_delays();
    let mut group = c.benchmark_group("engine/relay");
    // 2 is a Pod's own depth (a boot or drain per container, a deletion):
    // the engine's ceiling for the Pod model's runs (BENCHMARKS.md, issue 15).
    for pending in [2u64, 16, 1024] {
        group.throughput(Throughput::Elements(pending + HOLD_STEPS));
        group.bench_with_input(BenchmarkId::new("pending", pending), &pending, |b, &pending| {
            let idle = Relay {
                delays: delays.iter().cycle(),
                budget: 0,
            };
            let mut sim = Simulation::new(idle, DEFAULT_HORIZON);
            b.iter(|| {
                sim.rewind();
                *sim.model_mut() = Relay {
                    delays: delays.iter().cycle(),
                    budget: HOLD_STEPS,
                };
                for i in 0..pending {
                    let event = PodEvent::BootFinished {
                        container: ContainerId(i as u32),
                        attempt: 1,
                    };
                    sim.schedule(SimTime(delays[i as usize]), event);
                }
                black_box(sim.run());
                debug_assert_eq!(sim.counts().0, pending + HOLD_STEPS);
            });
        });
    }
    group.finish();
}

/// `containers` apps that each fail `fails` times under the kubelet's default
/// back-off (0, 10, 20 … 300 s) before they stay up; boots differ by 100 ms
/// so the crash loops interleave instead of moving in lockstep.
fn crash_loop_pod(containers: u32, fails: u32) -> PodSpec {
    let containers = (0..containers)
        .map(|i| ContainerSpec {
            fails,
            ..ContainerSpec::new(
                &format!("app-{i}"),
                ContainerKind::App,
                SimDuration::from_millis(1000 + 100 * u64::from(i)),
            )
        })
        .collect();
    PodSpec::new(containers)
}

/// Events per second of the whole engine and Pod model: many containers,
/// long crash loops, a handful of pending events at any time.
fn crash_loop(c: &mut Criterion) {
    let (containers, fails) = (20, 200);
    let mut simulator = PodSimulator::new(RunSpec::new(crash_loop_pod(containers, fails)));
    let metrics = simulator.run();
    assert_eq!(
        metrics.restarts,
        containers * fails,
        "the horizon cut the crash loops short"
    );
    let (handled, _stale) = simulator.event_counts();

    let mut group = c.benchmark_group("engine/crash_loop");
    group.throughput(Throughput::Elements(handled));
    group.bench_function(format!("{containers}x{fails}"), |b| {
        b.iter(|| black_box(simulator.run()))
    });
    group.finish();
}

criterion_group!(benches, queue_hold, relay, crash_loop);
criterion_main!(benches);
