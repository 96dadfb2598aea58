//! `shard`'s unit tests, beside it so the module stays readable.

use super::*;

#[test]
fn shards_cover_every_run_once_in_order() {
    for total in [0, 1, 7, 10, 1_000_003] {
        for count in 1..=9 {
            let mut next = 0;
            for index in 0..count {
                let r = Shard { index, count }.runs(total);
                assert_eq!(r.start, next);
                next = r.end;
            }
            assert_eq!(next, total);
        }
    }
}

/// A shard of runs `runs` out of `total`, its CSV `rows` (run numbers).
fn input(runs: Range<u64>, total: u64, rows: &[u64]) -> ShardInput<&'static [u8]> {
    let columns = vec!["run".to_string(), "x".to_string()];
    let mut csv = csv::header_line(&columns);
    for r in rows {
        csv.extend_from_slice(format!("{r},7\n").as_bytes());
    }
    let manifest = Manifest {
        podsim_version: "0".into(),
        grid_sha256: "g".into(),
        runs_total: total,
        replications: 1,
        first_run: runs.start,
        end_run: runs.end,
        shard: None,
        columns,
        bytes: csv.len() as u64,
        csv_sha256: hex(&Sha256::digest(&csv)),
    };
    ShardInput {
        name: format!("s{}.csv", runs.start),
        manifest,
        csv: Vec::leak(csv),
    }
}

/// A shard of runs with 2 replications each, rows `(run, replication)`.
fn replicated(runs: Range<u64>, rows: &[(u64, u64)]) -> ShardInput<&'static [u8]> {
    let columns = vec!["run".to_string(), "replication".to_string()];
    let mut csv = csv::header_line(&columns);
    for (r, k) in rows {
        csv.extend_from_slice(format!("{r},{k}\n").as_bytes());
    }
    let mut shard = input(runs, 2, &[]);
    shard.manifest.replications = 2;
    shard.manifest.columns = columns;
    shard.manifest.bytes = csv.len() as u64;
    shard.manifest.csv_sha256 = hex(&Sha256::digest(&csv));
    shard.csv = Vec::leak(csv);
    shard
}

#[test]
fn replications_are_merged_run_by_run_and_a_missing_one_is_named() {
    let mut out = Vec::new();
    let shards = vec![
        replicated(1..2, &[(1, 0), (1, 1)]),
        replicated(0..1, &[(0, 0), (0, 1)]),
    ];
    merge(shards, &mut out).unwrap();
    assert_eq!(
        String::from_utf8(out).unwrap(),
        "run,replication\n0,0\n0,1\n1,0\n1,1\n"
    );
    let e = merge_error(vec![
        replicated(0..1, &[(0, 0), (0, 1)]),
        replicated(1..2, &[(1, 1)]),
    ]);
    assert_eq!(e, "s1.csv: run 1: expected replication 0, found \"1,1\"");
    let e = merge_error(vec![
        replicated(0..1, &[(0, 0)]),
        replicated(1..2, &[(1, 0), (1, 1)]),
    ]);
    assert!(e.contains("s0.csv: run 0 is missing"), "{e}");
}

fn merge_error(shards: Vec<ShardInput<&'static [u8]>>) -> String {
    merge(shards, &mut Vec::new()).unwrap_err().to_string()
}

#[test]
fn merging_names_missing_and_duplicate_runs_by_number() {
    let mut out = Vec::new();
    let m = merge(
        vec![input(3..5, 5, &[3, 4]), input(0..3, 5, &[0, 1, 2])],
        &mut out,
    )
    .unwrap();
    assert_eq!(out, b"run,x\n0,7\n1,7\n2,7\n3,7\n4,7\n");
    assert_eq!(m.csv_sha256, hex(&Sha256::digest(&out)));
    assert_eq!(
        merge_error(vec![input(0..2, 5, &[0, 1]), input(3..5, 5, &[3, 4])]),
        "run 2 is missing: none of the shards given holds it; was a shard left out?"
    );
    assert_eq!(
        merge_error(vec![input(0..3, 5, &[0, 1, 2]), input(2..5, 5, &[2, 3, 4])]),
        "run 2 is in both s0.csv and s2.csv; each run must come from one shard"
    );
    assert_eq!(
        merge_error(vec![input(0..5, 5, &[0, 1, 1, 2, 3])]),
        "s0.csv: run 1 appears twice"
    );
    assert_eq!(
        merge_error(vec![input(0..5, 5, &[0, 3, 4])]),
        "s0.csv: runs 1 to 2 are missing"
    );
    assert!(merge_error(vec![input(0..5, 5, &[0, 1, 2])]).starts_with("s0.csv: runs 3 to 4 are missing;"));
}

#[test]
fn shard_text_and_job_indices() {
    assert_eq!(Shard::parse("1/4"), Ok(Shard { index: 1, count: 4 }));
    assert!(Shard::parse("4/4").unwrap_err().contains("goes from 0 to 3"));
    assert!(Shard::parse("1-4").unwrap_err().contains("write K/N"));
    assert!(Shard::parse("0/0").unwrap_err().contains("at least 1"));
    let env = |pairs: &'static [(&'static str, &'static str)]| {
        move |name: &str| pairs.iter().find(|(k, _)| *k == name).map(|(_, v)| v.to_string())
    };
    assert_eq!(
        Shard::from_job(4, env(&[("JOB_COMPLETION_INDEX", "2")]))
            .unwrap()
            .index,
        2
    );
    let slurm = env(&[("SLURM_ARRAY_TASK_ID", "3"), ("SLURM_ARRAY_TASK_MIN", "1")]);
    assert_eq!(Shard::from_job(4, slurm).unwrap().index, 2);
    assert!(
        Shard::from_job(4, env(&[]))
            .unwrap_err()
            .contains("neither is set")
    );
    assert!(Shard::from_job(2, env(&[("JOB_COMPLETION_INDEX", "5")])).is_err());
    assert_eq!(Shard { index: 3, count: 16 }.label(), "shard-03-of-16");
}
