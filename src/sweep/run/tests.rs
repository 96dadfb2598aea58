//! `run`'s unit tests, beside it so the module stays readable.

use super::*;
use sha2::{Digest, Sha256};
use std::path::Path;

fn seed_grid(axes: &str) -> Grid {
    let text = format!("base = \"seed-side-by-side.toml\"\n[axes]\n{axes}");
    let folder = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios");
    let base = crate::scenario::Scenario::load(&folder.join("seed-side-by-side.toml")).unwrap();
    Grid::parse(&text, "g.toml", base, &folder).unwrap()
}

fn csv_of(grid: &Grid, runs: Range<u64>, threads: usize) -> String {
    let mut out = Vec::new();
    let sinks = Sinks {
        csv: &mut out,
        summary: None,
    };
    run(grid, runs, threads, sinks, &Limits::default(), &mut |_| {
        ControlFlow::Continue(())
    })
    .unwrap();
    String::from_utf8(out).unwrap()
}

#[test]
fn rows_match_single_runs_of_the_same_spec() {
    // Side by side, web boot 2s: web started at 4s, proxy at 5s: exposed 1s.
    let grid = seed_grid("\"containers.web.boot\" = [\"1s\", \"2s\"]");
    let text = csv_of(&grid, 0..2, 1);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        lines[0],
        "run,containers.web.boot_ms,ready_ms,exposed_startup_ms,exposed_shutdown_ms,exposed_total_ms,termination_ms,completed_ms,restarts,sigkilled,phase,outcome,end_ms"
    );
    assert_eq!(
        lines[1],
        "0,1000,5000,2000,2000,4000,3000,13000,0,0,Succeeded,settled,13000"
    );
    assert_eq!(
        lines[2],
        "1,2000,5000,1000,2000,3000,3000,13000,0,0,Succeeded,settled,13000"
    );
}

/// A row that turns only durations lets the model keep the spec's shape
/// (`Field::shapes_the_pod`); a row that turns a kind or a proxy flag has
/// it worked out again. Here the proxy's proxy flag turns every second
/// row, and with it whether exposure is measured at all (a Pod without a
/// proxy exposes nothing): a shape kept across it would count web alive
/// without a proxy as exposed. Every row is what a fresh simulator gives.
#[test]
fn rows_after_a_kind_or_proxy_change_match_fresh_runs() {
    let grid = seed_grid(
        "\"containers.proxy.kind\" = [\"app\", \"sidecar\"]\n\
         \"containers.proxy.proxy\" = [true, false]\n\
         \"containers.web.boot\" = [\"1s\", \"6s\"]",
    );
    let metrics = rows_are_fresh_runs(&grid);
    let exposed_rows = metrics.iter().filter(|m| m.exposed_total_ms > 0).count();
    // Some rows are exposed and some are not: the proxy flag matters here.
    assert!(
        exposed_rows > 0 && exposed_rows < 8,
        "{exposed_rows} of 8 rows exposed"
    );
}

/// Sweeps all of `grid` on one thread and checks that every row is what
/// a fresh simulator gives for its spec; returns those runs' metrics.
fn rows_are_fresh_runs(grid: &Grid) -> Vec<crate::model::Metrics> {
    let text = csv_of(grid, 0..grid.runs(), 1);
    let mut digits = vec![0; grid.axes.len()];
    let mut all = Vec::new();
    for (run, line) in text.lines().skip(1).enumerate() {
        grid.digits(run as u64, &mut digits);
        let mut spec = grid.base.clone();
        for (axis, &digit) in grid.axes.iter().zip(&digits) {
            axis.apply(digit, &mut spec);
        }
        let metrics = crate::model::PodSimulator::new(spec).run();
        let mut expected = Vec::new();
        csv::push_metrics(&mut expected, &metrics);
        let expected = String::from_utf8(expected).unwrap();
        assert!(line.ends_with(&expected), "run {run}: {line} is not …{expected}");
        all.push(metrics);
    }
    assert_eq!(all.len() as u64, grid.runs());
    all
}

/// Rows that turn only kill-only axes (drain, preStop, stop signal,
/// grace) start from a prefix saved by an earlier row; the proxy's boot
/// (outside) and its failures (inside the kill-only axes) pick which.
/// Every row is still the run from Pod creation, and the kill-only axes
/// do change the outcome: a row draining `never` under a 1 s grace is
/// SIGKILLed, one draining 0 s is not.
#[test]
fn rows_started_from_a_shared_prefix_match_fresh_runs() {
    let grid = seed_grid(
        "\"containers.proxy.boot\" = [\"1s\", \"4s\"]\n\
         \"pod.termination_grace_period\" = [\"1s\", \"30s\"]\n\
         \"containers.web.drain\" = [\"0s\", \"3s\", \"never\"]\n\
         \"containers.web.pre_stop\" = [\"0s\", \"2s\"]\n\
         \"containers.proxy.stop_signal\" = [\"SIGTERM\", \"SIGQUIT\"]\n\
         \"containers.proxy.fails\" = [0, 2]",
    );
    assert!(super::prefixes::Prefixes::plan(&grid.axes, 1, &grid.base).is_some());
    let metrics = rows_are_fresh_runs(&grid);
    let sigkilled = metrics.iter().filter(|m| m.sigkilled > 0).count();
    assert!(
        sigkilled > 0 && sigkilled < metrics.len(),
        "{sigkilled} of {}",
        metrics.len()
    );
}

/// The same with durations drawn at random: a seed axis inside the drain
/// axis picks the prefix, and the drains drawn after the deletion are
/// the fresh run's.
#[test]
fn rows_with_random_drains_from_a_shared_prefix_match_fresh_runs() {
    let grid = seed_grid(
        "\"containers.proxy.boot\" = [\"1s\", { dist = \"lognormal\", median = \"2s\", p99 = \"7s\" }]\n\
         \"containers.web.drain\" = [\"1s\", { dist = \"uniform\", min = \"0s\", max = \"6s\" }]\n\
         \"seed\" = [1, 2, 3]",
    );
    assert!(super::prefixes::Prefixes::plan(&grid.axes, 1, &grid.base).is_some());
    let metrics = rows_are_fresh_runs(&grid);
    let terminations: std::collections::BTreeSet<_> = metrics.iter().map(|m| m.termination_ms).collect();
    assert!(terminations.len() > 3, "{terminations:?}");
}

#[test]
fn chunks_and_threads_do_not_change_the_bytes() {
    let grid = seed_grid(
        "\"containers.proxy.boot\" = { from = \"0s\", to = \"6s\", step = \"250ms\" }\n\
         \"containers.web.drain\" = { from = \"0s\", to = \"5s\", step = \"1s\" }\n\
         \"containers.proxy.fails\" = [0, 2, 5]\n\"horizon\" = [\"20s\", \"1h\"]",
    );
    let all = csv_of(&grid, 0..grid.runs(), 1);
    assert_eq!(all.lines().count() as u64, grid.runs() + 1);
    assert_eq!(csv_of(&grid, 0..grid.runs(), 3), all);
    // A range that starts mid-chunk gives the same rows as the full run.
    let part = csv_of(&grid, 100..300, 2);
    let rows: Vec<&str> = all.lines().skip(101).take(200).collect();
    assert_eq!(part.lines().skip(1).collect::<Vec<_>>(), rows);
}

#[test]
fn a_service_grid_is_the_same_on_any_thread_count() {
    let folder = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/service");
    let base = crate::scenario::Scenario::load(&folder.join("no-prestop.toml")).unwrap();
    let text = "base = \"no-prestop.toml\"\n[axes]\n\"service.propagation\" = [\"tiny\", \"medium\"]\n\
                \"traffic.connections\" = [\"new\", \"keep-alive\"]\n\"seed\" = { from = 0, to = 9, step = 1 }\n";
    let grid = Grid::parse(text, "g.toml", base, &folder).unwrap();
    let one = csv_of(&grid, 0..grid.runs(), 1);
    assert_eq!(csv_of(&grid, 0..grid.runs(), 3), one);
    assert!(one.starts_with("run,service.propagation,traffic.connections,seed,ready_ms,requests,failed,"));
    // Seeds differ: the runs are not all one.
    let failed: std::collections::BTreeSet<&str> = one
        .lines()
        .skip(1)
        .map(|l| l.split(',').nth(6).unwrap())
        .collect();
    assert!(failed.len() > 1, "{one}");
}

#[test]
fn a_break_from_progress_stops_the_sweep_after_whole_chunks() {
    let grid = seed_grid("\"containers.web.boot\" = { from = \"0s\", to = \"100s\", step = \"1ms\" }");
    let mut out = Vec::new();
    let stop_at = 3 * CHUNK_RUNS;
    let sinks = Sinks {
        csv: &mut out,
        summary: None,
    };
    let e = run(&grid, 0..grid.runs(), 2, sinks, &Limits::default(), &mut |at| {
        if at.rows() >= stop_at {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    })
    .unwrap_err();
    let SweepError::Interrupted { rows, finished } = e else {
        panic!("{e}")
    };
    // Chunks already waiting in the window are written in one go; no more.
    assert!(
        rows >= stop_at && rows <= stop_at + 2 * WINDOW_PER_THREAD * CHUNK_RUNS,
        "{rows}"
    );
    assert_eq!(rows % CHUNK_RUNS, 0);
    assert_eq!(out.iter().filter(|&&b| b == b'\n').count() as u64, rows + 1);
    // The runs done besides: at most the window's chunks waiting, and
    // less than a chunk in progress on each of the two threads.
    assert!(
        finished >= rows && finished < rows + (2 * WINDOW_PER_THREAD + 2) * CHUNK_RUNS,
        "{finished}"
    );
}

#[test]
fn a_stop_counts_the_runs_done_whose_rows_were_not_written() {
    // Combination 0 sends a million requests a second for half an hour,
    // one by one (minutes of work), combination 1 one a second: on two
    // threads the quick one's two replications are done first and wait
    // for the slow one's rows. The stop asked as they arrive writes no
    // row, yet two runs were done (a Service grid's chunk is a whole
    // combination, so such a stop used to say 0 after any amount of work).
    let folder = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/service");
    let text = std::fs::read_to_string(folder.join("no-prestop.toml")).unwrap();
    assert!(text.contains("rate = 50 "), "the fixture changed");
    let slow = "rate = 1000000\nduration = \"30m\"\nmodel = \"per-request\" ";
    let base = crate::scenario::Scenario::parse(&text.replace("rate = 50 ", slow), "slow.toml").unwrap();
    let grid_text = "base = \"slow.toml\"\nreplications = 2\n[axes]\n\"traffic.rate\" = [1000000, 1]\n";
    let grid = Grid::parse(grid_text, "g.toml", base, &folder).unwrap();
    let mut out = Vec::new();
    let sinks = Sinks {
        csv: &mut out,
        summary: None,
    };
    let e = run(&grid, 0..grid.runs(), 2, sinks, &Limits::default(), &mut |_| {
        ControlFlow::Break(())
    })
    .unwrap_err();
    let SweepError::Interrupted { rows, finished } = e else {
        panic!("{e}")
    };
    assert_eq!((rows, finished), (0, 2));
}

#[test]
fn the_digest_is_that_of_the_bytes_written() {
    let grid = seed_grid("\"containers.web.boot\" = [\"1s\", \"2s\"]");
    let mut out = Vec::new();
    let sinks = Sinks {
        csv: &mut out,
        summary: None,
    };
    let written = run(&grid, 0..2, 1, sinks, &Limits::default(), &mut |_| {
        ControlFlow::Continue(())
    })
    .unwrap()
    .csv;
    assert_eq!(written.bytes, out.len() as u64);
    assert_eq!(written.sha256, <[u8; 32]>::from(Sha256::digest(&out)));
}

#[test]
fn a_failing_sink_stops_the_sweep_with_its_error() {
    // The sink takes the header and the first rows, then fails for good:
    // the error must come from the writer loop (not from the header, which
    // is written before any worker starts), and no write may follow it.
    struct FillsUp {
        room: usize,
        writes_after_full: u32,
    }
    impl Write for FillsUp {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            if self.room == 0 {
                self.writes_after_full += 1;
                return Err(std::io::Error::other("disk full"));
            }
            let n = buf.len().min(self.room);
            self.room -= n;
            Ok(n)
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    // 10^10 runs (boot and drain each 0..=100 s in 1 ms steps): a sweep
    // that went on after the failure would not finish, so this test passing
    // at all says the workers stopped too.
    let grid = seed_grid(
        "\"containers.web.boot\" = { from = \"0s\", to = \"100s\", step = \"1ms\" }\n\
         \"containers.web.drain\" = { from = \"0s\", to = \"100s\", step = \"1ms\" }",
    );
    let header = csv::header_line(&grid.columns()).len();
    let mut sink = FillsUp {
        room: header + 10_000,
        writes_after_full: 0,
    };
    let sinks = Sinks {
        csv: &mut sink,
        summary: None,
    };
    let e = run(&grid, 0..grid.runs(), 2, sinks, &Limits::default(), &mut |_| {
        ControlFlow::Continue(())
    })
    .unwrap_err();
    let SweepError::Io(cause) = e else { panic!("{e}") };
    assert_eq!(cause.to_string(), "disk full");
    assert_eq!(
        sink.writes_after_full, 1,
        "the writer kept writing after the sink failed"
    );
}

#[test]
fn r55_a_drain_axis_takes_never_beside_durations() {
    // Side by side, deleted at 10 s with grace 30 s: the proxy drains 1 s
    // and exits at 11 s. web draining 3 s exits at 13 s (the seed's 2 s
    // exposed at shutdown); web ignoring SIGTERM lives until SIGKILL at
    // 40 s: exposed 11 → 40 s = 29 s, termination 30 s, one SIGKILL, and
    // its 137 fails the Pod.
    let grid = seed_grid("\"containers.web.drain\" = [\"3s\", \"never\"]");
    let text = csv_of(&grid, 0..2, 1);
    let lines: Vec<&str> = text.lines().collect();
    let header: Vec<&str> = lines[0].split(',').collect();
    let cell = |row: usize, column: &str| {
        let i = header.iter().position(|h| *h == column).unwrap();
        lines[row].split(',').nth(i).unwrap().to_string()
    };
    assert_eq!(header[1], "containers.web.drain_ms");
    let columns = [
        "containers.web.drain_ms",
        "exposed_shutdown_ms",
        "termination_ms",
        "sigkilled",
        "phase",
    ];
    let row = |r| columns.map(|c| cell(r, c));
    assert_eq!(row(1), ["3000", "2000", "3000", "0", "Succeeded"]);
    assert_eq!(row(2), ["never", "29000", "30000", "1", "Failed"]);
}

#[test]
fn a_service_grid_is_chunked_by_combination_and_a_pod_grid_by_1024_rows() {
    let folder = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/service");
    let service = |replications: u64| {
        let text = format!(
            "base = \"no-prestop.toml\"\nreplications = {replications}\n[axes]\n\"traffic.connections\" = [\"new\", \"keep-alive\"]\n"
        );
        let base = crate::scenario::Scenario::load(&folder.join("no-prestop.toml")).unwrap();
        Grid::parse(&text, "g.toml", base, &folder).unwrap()
    };
    assert_eq!(combinations_per_chunk(&service(1)), 1);
    assert_eq!(combinations_per_chunk(&service(4)), 1);
    // A Pod grid: 1,024 rows a chunk, whole combinations (1,024 / 50 = 20).
    let mut pod = seed_grid("\"containers.web.boot\" = [\"1s\", \"2s\"]");
    assert_eq!(combinations_per_chunk(&pod), 1024);
    pod.set_replications(50);
    assert_eq!(combinations_per_chunk(&pod), 20);
    pod.set_replications(5000);
    assert_eq!(combinations_per_chunk(&pod), 1);
}
