//! The summary rows worked by hand: statistics, shares and half-widths
//! of a Pod grid and of a Service grid, and a whole grid run.
use super::*;
use crate::model::{Outcome, PodPhase};

fn metrics(ready: Option<u64>, exposed: u64, sigkilled: u32) -> Metrics {
    Metrics {
        ready_ms: ready,
        exposed_startup_ms: exposed,
        exposed_shutdown_ms: 0,
        exposed_total_ms: exposed,
        termination_ms: None,
        completed_ms: None,
        restarts: 0,
        sigkilled,
        phase: PodPhase::Running,
        outcome: Outcome::Settled,
        end_ms: 10_000,
    }
}

#[test]
fn nearest_rank_percentiles_follow_the_definition() {
    // 1..=10: p50 is the 5th value, p90 the 9th, p99 the 10th (ceil(9.9)).
    let v: Vec<u64> = (1..=10).collect();
    assert_eq!([50, 90, 99, 100].map(|p| nearest_rank(&v, p)), [5, 9, 10, 10]);
    assert_eq!(nearest_rank(&[7], 1), 7);
}

#[test]
fn a_row_holds_means_percentiles_shares_and_half_widths() {
    let mut s = Summary::default();
    // ready 1, 2, 3 s and one never Ready; exposed in two of four.
    for (ready, exposed, killed) in [
        (Some(1000), 0, 0),
        (Some(3000), 500, 1),
        (None, 0, 0),
        (Some(2000), 100, 0),
    ] {
        s.add(&metrics(ready, exposed, killed));
    }
    let ready = s.stats("ready_ms").unwrap();
    // Mean 2000; sd of 1000, 2000, 3000 is 1000, so 1.96·1000/√3 = 1131.6.
    assert_eq!(
        (ready.mean, ready.p50, ready.p90, ready.min, ready.max),
        (2000.0, 2000, 3000, 1000, 3000)
    );
    assert!((ready.ci95.unwrap() - 1131.586).abs() < 0.01);
    assert_eq!(
        s.shares(),
        [("p_exposed", 0.5), ("p_sigkilled", 0.25), ("p_never_ready", 0.25)]
    );
    let mut row = Vec::new();
    s.push_cells(&mut row);
    let row = String::from_utf8(row).unwrap();
    assert!(
        row.starts_with(",4,2000,2000,3000,3000,1000,3000,150,0,500,500,0,500,"),
        "{row}"
    );
    assert!(row.ends_with(",0.5,0.25,0.25,1131.586,233.282"), "{row}");
    assert_eq!(row.split(',').count() - 1, Summary::columns(Table::Pod).len());
}

fn service(failed: u64, termination: u64, sigkilled: u32) -> ServiceMetrics {
    use crate::model::service::Deleted;
    ServiceMetrics {
        ready_ms: Some(3000),
        requests: 100,
        failed,
        failed_by: [failed, 0, 0, 0, 0, 0, 0],
        retried_ok: 0,
        retry: None,
        hop: None,
        min_ready_endpoints: Some(2),
        zero_endpoints_ms: 0,
        deleted: vec![Deleted {
            replica: 0,
            shut_down: false,
            deleted_ms: 13_000,
            termination_ms: Some(termination),
            last_request_ms: None,
            rules_dropped_ms: Vec::new(),
            hop_dropped_ms: None,
        }],
        replicas: vec![metrics(Some(3000), 0, sigkilled)],
        end_ms: 30_000,
        horizon: false,
        rollout: None,
        node: None,
        drain: None,
        crash: None,
    }
}

#[test]
fn a_service_row_summarises_the_service_metrics_by_the_same_rules() {
    let mut s = Summary::new(Table::Service);
    // failed 0, 2, 7; the deleted Pod terminates in 1 s, 1 s, 4 s; one SIGKILL.
    for (failed, termination, killed) in [(0, 1000, 0), (2, 1000, 0), (7, 4000, 1)] {
        s.add_service(&service(failed, termination, killed));
    }
    let mut row = Vec::new();
    s.push_cells(&mut row);
    let row = String::from_utf8(row).unwrap();
    let cells: Vec<&str> = row[1..].split(',').collect();
    let columns = Summary::columns(Table::Service);
    assert_eq!(cells.len(), columns.len());
    let cell = |name: &str| cells[columns.iter().position(|c| c == name).unwrap()];
    // Sorted 0, 2, 7: mean 3; p50 is the ⌈1.5⌉ = 2nd value, p90 the ⌈2.7⌉ = 3rd.
    let failed: Vec<&str> = STATS.iter().map(|st| cell(&format!("failed_{st}"))).collect();
    assert_eq!(failed, ["3", "2", "7", "7", "0", "7"]);
    assert_eq!(cell("failed_refused_mean"), "3");
    assert_eq!(cell("failed_timeout_max"), "0");
    assert_eq!(cell("termination_ms_mean"), "2000");
    // The metric no replication has: six empty cells.
    assert_eq!(cell("last_request_to_deleted_ms_p50"), "");
    // Two of three failed a request; one of three SIGKILLed a container.
    assert_eq!(
        (cell("p_failed"), cell("p_sigkilled"), cell("p_never_ready")),
        ("0.667", "0.333", "0")
    );
    // s² of 0, 2, 7 is 26/2 = 13: 1.96·√13/√3 = 4.080; of 1, 1, 4 s it
    // is 3 s²: 1.96·√3/√3 s = 1959.964 ms.
    assert_eq!(
        (cell("failed_ci95"), cell("termination_ms_ci95")),
        ("4.08", "1959.964")
    );
    assert!(!columns.iter().any(|c| c.starts_with("outcome")), "{columns:?}");
    assert_eq!(
        columns[1..7],
        [
            "ready_ms_mean",
            "ready_ms_p50",
            "ready_ms_p90",
            "ready_ms_p99",
            "ready_ms_min",
            "ready_ms_max"
        ]
    );
}

/// One replica on one node, heard 1.95 s after each change, synced at
/// once; a constant 10 requests/s for 14 s from traffic's start
/// (2.95 s), request k sent at 3.05 s + 100 ms · k; replica 0 deleted
/// 10 s in (12.95 s). The app closes its listener at SIGTERM and lives
/// 5 s more (tests/model/service.rs works the same run out).
const LONE: &str = "[service]\nreplicas = 1\nnodes = 1\npropagation = \"1950ms\"\n\
    kubelet_delay = \"50ms\"\nmin_sync_period = \"0s\"\ncleanup = \"60s\"\n\
    [traffic]\nrate = 10\narrival = \"constant\"\nservice_time = \"10ms\"\nduration = \"14s\"\n\
    [[disruptions]]\nafter_ready = \"10s\"\ndelete = 0\n\
    [[containers]]\nname = \"web\"\nkind = \"app\"\nboot = \"1s\"\ndrain = \"5s\"\n";

#[test]
fn a_service_grid_summary_has_one_row_per_combination_by_hand() {
    use crate::sweep::{Grid, Sinks, run};
    let base = crate::scenario::Scenario::parse(LONE, "lone.toml").unwrap();
    let text =
        "base = \"lone.toml\"\nreplications = 3\n[axes]\n\"service.kubelet_delay\" = [\"50ms\", \"550ms\"]\n";
    let grid = Grid::parse(text, "g.toml", base, std::path::Path::new(".")).unwrap();
    let (mut csv, mut summary) = (Vec::new(), Vec::new());
    let sinks = Sinks {
        csv: &mut csv,
        summary: Some(&mut summary),
    };
    let written = run(&grid, 0..2, 2, sinks, &Default::default(), &mut |_| {
        std::ops::ControlFlow::Continue(())
    })
    .unwrap();
    assert_eq!(written.summary.map(|w| w.rows), Some(2));
    let text = String::from_utf8(summary).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let columns: Vec<&str> = lines[0].split(',').collect();
    assert_eq!(columns[..3], ["run", "service.kubelet_delay_ms", "replications"]);
    let cell = |row: usize, name: &str| {
        let i = columns.iter().position(|c| *c == name).unwrap();
        lines[row].split(',').nth(i).unwrap().to_string()
    };
    // SIGTERM at 13 s: the requests of 13.05 s to 16.85 s are refused,
    // 39; at 13.5 s, those of 13.55 s on, 34. Of 139 sent, in every
    // replication (nothing is drawn), so the half-width is 0.
    for (row, refused) in [(1, "39"), (2, "34")] {
        for stat in STATS {
            assert_eq!(cell(row, &format!("failed_{stat}")), refused, "{stat}");
            assert_eq!(cell(row, &format!("failed_refused_{stat}")), refused, "{stat}");
        }
        assert_eq!(cell(row, "requests_mean"), "139");
        assert_eq!(cell(row, "replications"), "3");
        assert_eq!(
            (cell(row, "p_failed"), cell(row, "failed_ci95")),
            ("1".into(), "0".into())
        );
    }
}
