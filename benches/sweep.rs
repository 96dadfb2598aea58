//! Sweep throughput in rows per second: 100,000 runs of the seed example
//! (the first slice of `benches/grids/seed-1m.toml`) into an in-memory sink
//! and into a file, on one thread and on every CPU. Names carry the
//! parameters: `sweep/<sink>/rows=100000/threads=<n>`. Beside them, the
//! bench bar grid's 100,000 runs with their rows starting from shared
//! prefixes (`bar/prefixes`, `grids/bar-100k.toml`) and, the same runs in
//! another order, every one from Pod creation (`bar/from-creation`).
//!
//! Run: `cargo bench --bench sweep`. CI only checks that it builds and runs once.

use std::fs::File;
use std::hint::black_box;
use std::io::BufWriter;
use std::ops::ControlFlow;
use std::path::Path;
use std::time::Duration;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};

use podsim::sweep::{self, Grid};

const ROWS: u64 = 100_000;

fn sweep_rows(c: &mut Criterion) {
    let grid_path = Path::new(env!("CARGO_MANIFEST_DIR")).join("grids/seed-1m.toml");
    let grid = Grid::load(&grid_path).unwrap_or_else(|e| panic!("{e}"));
    let all = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mut threads = vec![1];
    if all > 1 {
        threads.push(all);
    }
    let file_path = std::env::temp_dir().join(format!("podsim-bench-{}.csv", std::process::id()));
    let mut group = c.benchmark_group("sweep");
    group.throughput(Throughput::Elements(ROWS));
    group.sample_size(10);
    group.warm_up_time(Duration::from_secs(1));
    group.measurement_time(Duration::from_secs(5));
    for &n in &threads {
        let mut memory = Vec::with_capacity(16 << 20);
        group.bench_function(format!("memory/rows={ROWS}/threads={n}"), |b| {
            b.iter(|| {
                memory.clear();
                black_box(
                    sweep::run(
                        &grid,
                        0..ROWS,
                        n,
                        sweep::Sinks {
                            csv: &mut memory,
                            summary: None,
                        },
                        &Default::default(),
                        &mut |_| ControlFlow::Continue(()),
                    )
                    .unwrap(),
                )
            })
        });
        group.bench_function(format!("file/rows={ROWS}/threads={n}"), |b| {
            b.iter(|| {
                let mut file = BufWriter::with_capacity(1 << 20, File::create(&file_path).unwrap());
                black_box(
                    sweep::run(
                        &grid,
                        0..ROWS,
                        n,
                        sweep::Sinks {
                            csv: &mut file,
                            summary: None,
                        },
                        &Default::default(),
                        &mut |_| ControlFlow::Continue(()),
                    )
                    .unwrap(),
                )
            })
        });
    }
    group.finish();
    let _ = std::fs::remove_file(&file_path);
}

fn bar_rows(c: &mut Criterion) {
    let mut group = c.benchmark_group("bar");
    group.throughput(Throughput::Elements(ROWS));
    group.sample_size(10);
    group.warm_up_time(Duration::from_secs(1));
    group.measurement_time(Duration::from_secs(5));
    let mut memory = Vec::with_capacity(16 << 20);
    for (name, file) in [
        ("prefixes", "bar-100k"),
        ("from-creation", "bar-100k-from-creation"),
    ] {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("grids/{file}.toml"));
        let grid = Grid::load(&path).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(grid.runs(), ROWS);
        group.bench_function(format!("{name}/rows={ROWS}/threads=1"), |b| {
            b.iter(|| {
                memory.clear();
                let sinks = sweep::Sinks {
                    csv: &mut memory,
                    summary: None,
                };
                black_box(
                    sweep::run(&grid, 0..ROWS, 1, sinks, &Default::default(), &mut |_| {
                        ControlFlow::Continue(())
                    })
                    .unwrap(),
                )
            })
        });
    }
    group.finish();
}

criterion_group!(benches, sweep_rows, bar_rows);
criterion_main!(benches);
